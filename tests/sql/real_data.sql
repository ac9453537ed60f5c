-- real_data.sql: the real profiles of $XPLANE_DATA (shared/data/README.md),
-- counted and spot-checked. Every expected value comes from outside the
-- extension: the README's table (counted with an independent protobuf
-- reader) or `protoc --decode=tensorflow.profiler.XSpace` text dumps of the
-- files (the event start is the line's timestamp_ns * 1000 + offset_ps).
-- tests/test_real_data.sh compares every line of every file with protoc.
.load @EXT@

-- The README's table: planes, lines, events per file.
SELECT host, n_planes, n_lines, n_events FROM xplane_space('@DATA@') ORDER BY host;
-- The same counts, as rows of the per-kind tables.
SELECT host, p.n AS planes, l.n AS lines, e.n AS events
  FROM (SELECT host, count(*) AS n FROM xplane_planes('@DATA@') GROUP BY host) p
  JOIN (SELECT host, count(*) AS n FROM xplane_lines('@DATA@') GROUP BY host) l USING (host)
  JOIN (SELECT host, count(*) AS n FROM xplane_events('@DATA@') GROUP BY host) e USING (host)
 ORDER BY host;
-- Every event has an offset (README: none uses num_occurrences).
SELECT count(*) AS events, count(start_ps) AS timed, count(num_occurrences) AS aggregated
  FROM xplane_events('@DATA@');

-- XSpace fields and the `Task Environment` times (protoc: the plane's
-- profile_start_time / profile_stop_time uint64 stats; gpu_mw, from
-- TensorFlow 2.4, has no such plane).
SELECT host, hostnames, errors, warnings, profile_start_time_ns, profile_stop_time_ns
  FROM xplane_space('@DATA@') ORDER BY host;

-- Threads (xplane_space.n_threads, the converter's threads): the distinct
-- (plane, line id, or line index + 1 for id 0), also counted here in SQL
-- over xplane_lines (tests/test_real_data.sh counts them from protoc).
SELECT s.host, s.n_threads, coalesce(l.n, 0) AS distinct_tracks
  FROM xplane_space('@DATA@') s
  LEFT JOIN (SELECT host, count(*) AS n
               FROM (SELECT DISTINCT host, plane_index, CASE WHEN line_id <> 0 THEN line_id ELSE line_index + 1 END
                       FROM xplane_lines('@DATA@'))
              GROUP BY host) l USING (host)
 ORDER BY host;

-- A named GPU kernel: the first event of `Stream #16(Kernel)` on
-- /device:GPU:0 of the gemm file. protoc: timestamp_ns 711141, metadata 2
-- (`__amd_rocclr_copyBuffer.kd`), offset_ps 661861000, duration_ps 4320000.
SELECT plane_index, line_index, event_index, name, start_ps, dur_ps, end_ps, offset_ps
  FROM xplane_events('@DATA@/tracelens_jax08_gemm.xplane.pb')
 WHERE plane_name = '/device:GPU:0' AND line_name = 'Stream #16(Kernel)' AND event_index = 0;
-- Its stats: ref values resolve to the interned strings (protoc: kernel_details
-- ref 20, tf_op ref 12, hlo_op ref 21, prefix ref 23, hlo_module ref 24).
SELECT stat_id, name, value_type, value, ref_id, origin
  FROM xplane_stats('@DATA@/tracelens_jax08_gemm.xplane.pb')
 WHERE plane_name = '/device:GPU:0' AND line_name = 'Stream #16(Kernel)' AND event_index = 0;
-- Every hlo_op and kernel_details stat of that file is a ref (84 and 54).
SELECT name, value_type, count(*) AS n FROM xplane_stats('@DATA@/tracelens_jax08_gemm.xplane.pb')
 WHERE name IN ('hlo_op', 'kernel_details') GROUP BY name, value_type ORDER BY name;
SELECT value AS hlo_op, count(*) AS n FROM xplane_stats('@DATA@/tracelens_jax08_gemm.xplane.pb')
 WHERE name = 'hlo_op' GROUP BY value ORDER BY n DESC, value;

-- TPU: the first `XLA Ops` event of /device:TPU:0 (protoc: metadata 5
-- `broadcast.2`, no timestamp_ns (0), offset_ps 5439011744500, duration_ps
-- 4443766328). Everything but the device clock comes from the metadata;
-- program_id is a uint64 beyond int64 (11287434908481120160, as text).
SELECT plane_index, line_index, display_name, start_ps, dur_ps
  FROM xplane_events('@DATA@/xprof_tpu_inference_2.xplane.pb')
 WHERE plane_name = '/device:TPU:0' AND line_name = 'XLA Ops' AND event_index = 0;
SELECT stat_id, name, value_type, CASE WHEN value_type = 'bytes' THEN hex(value) ELSE value END AS value, origin
  FROM xplane_stats('@DATA@/xprof_tpu_inference_2.xplane.pb')
 WHERE plane_name = '/device:TPU:0' AND line_name = 'XLA Ops' AND event_index = 0
   AND name <> 'source_stack';
-- hlo_category of all 6013 XLA Ops events: always from the metadata.
SELECT value AS hlo_category, origin, count(*) AS n
  FROM xplane_stats('@DATA@/xprof_tpu_inference_2.xplane.pb')
 WHERE line_name = 'XLA Ops' AND name = 'hlo_category'
 GROUP BY value, origin ORDER BY n DESC, value;

-- gpu_mw: stat_metadata holds stat names and interned strings. On /host:CPU,
-- 1367 entries: 35 are used as XStat.metadata_id (is_stat_name), 1330 are
-- ref targets (the spec's "1330 of 1367"), and 2 are neither (step_name and
-- selected_group_ids, never used in this file). protoc dump, counted.
SELECT plane_index, plane_name, count(*) AS entries, sum(is_stat_name) AS stat_names
  FROM xplane_stat_metadata('@DATA@/gpu_mw.xplane.pb') GROUP BY plane_index ORDER BY plane_index;
SELECT count(DISTINCT ref_id) AS ref_targets
  FROM xplane_stats('@DATA@/gpu_mw.xplane.pb') WHERE plane_index = 0 AND value_type = 'ref';
SELECT id, name FROM xplane_stat_metadata('@DATA@/gpu_mw.xplane.pb')
 WHERE plane_index = 0 AND NOT is_stat_name
   AND id NOT IN (SELECT ref_id FROM xplane_stats('@DATA@/gpu_mw.xplane.pb')
                   WHERE plane_index = 0 AND ref_id IS NOT NULL)
 ORDER BY id;
SELECT group_concat(name, ',') AS stat_names
  FROM (SELECT name FROM xplane_stat_metadata('@DATA@/gpu_mw.xplane.pb')
         WHERE plane_index = 0 AND is_stat_name ORDER BY name);
