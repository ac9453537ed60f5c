-- package_compare.sql: the PerfettoSQL package (tp_plugin/xplane) against
-- the extension, on one profile (run by tests/test_perfetto.sh through
-- tests/perfetto_sql_shim with @PROFILE@ replaced).
--
-- Prints, per compared object, `<object>|<extension rows>|<package rows>`,
-- then every row found on one side only (none expected): the tables
-- xplane_ops (every column), xplane_steps, xplane_scopes, xplane_tracks,
-- xplane_op_names, xplane_hints and the breakdown, and the rule functions
-- xplane_scope_path, xplane_shape_signature, xplane_semantic_family and
-- xplane_flop_proxy over every distinct input the profile gives them plus
-- the hand-written cases of rule_cases.sql; and xplane_files / xplane_space
-- (xplane.source: the trace's source record), every column, their names and
-- order included; xplane_gaps and xplane_op_tf_ops (every column) and
-- xplane_events (the events a trace holds, the columns the package has); xplane_devices,
-- xplane_hlo_stats and xplane_kernel_stats (xplane.xprof: the device facts from the
-- converter's xplane.plane records, kernel_details parsed in PerfettoSQL), every column
-- but file, run, host. Numbers are compared as text (a
-- uint64 over 2^63 - 1 is exact decimal text on both; a real prints the
-- same when it is the same double). The extension's side is read first:
-- the package's functions take the names of the extension's SQL functions.

-- (tests/test_perfetto.sh runs rule_cases.sql first: the rule_*_case tables)

CREATE TEMP TABLE n_ops AS
SELECT op_id, plane_index, plane_name, line_index, line_name, event_index, name, canonical_name, long_name,
       category, collective_kind, hlo_category, hlo_module, program_id || '' AS program_id, tf_op, scope_path,
       source_file, shape_signature, flops || '' AS flops, bytes_accessed || '' AS bytes_accessed, start_ps, dur_ps,
       end_ps, self_ps, gap_before_ps, gap_payload_op_id, gap_payload_name, device_offset_ps || '' AS device_offset_ps,
       device_duration_ps || '' AS device_duration_ps, correlation_id || '' AS correlation_id, step, stats,
       start_ps / 1000 AS ts, (start_ps + dur_ps) / 1000 - start_ps / 1000 AS dur
FROM xplane_ops(@PROFILE@);
CREATE TEMP TABLE n_steps AS
SELECT plane_index, plane_name, step, source, start_ps, dur_ps, end_ps, n_ops, compute_ps, communication_ps,
       stall_ps, idle_ps
FROM xplane_steps(@PROFILE@);
CREATE TEMP TABLE n_scopes AS
SELECT scope_path, depth, parent_path, count, inclusive_ps, exclusive_ps FROM xplane_scopes(@PROFILE@);
CREATE TEMP TABLE n_tracks AS
SELECT plane_index, plane_name, line_index, line_id, line_name, line_display_name, category, n_events, dur_ps,
       self_ps, first_start_ps, last_end_ps
FROM xplane_tracks(@PROFILE@);
CREATE TEMP TABLE n_op_names AS
SELECT name, canonical_name, category, count, total_ps, self_ps, shape_signature, source_file, tf_op,
       flop_proxy_sum || '' AS flop_proxy_sum, flop_proxy_count, first_op_id
FROM xplane_op_names(@PROFILE@);
CREATE TEMP TABLE n_hints AS SELECT kind, value, count, first_seen FROM xplane_hints(@PROFILE@);
-- breakdown (exclusive_per_track): the extension's per-line category sums
CREATE TEMP TABLE n_breakdown AS
SELECT category, sum(self_ps) AS self_ps FROM n_tracks
WHERE coalesce(nullif(line_display_name, ''), nullif(line_name, ''), 'xline:' || line_index) <> 'Steps'
GROUP BY category
HAVING sum(self_ps) > 0;
-- the rule functions over the profile's inputs and the hand-written cases
CREATE TEMP TABLE in_scope AS
SELECT DISTINCT tf_op, name FROM xplane_ops(@PROFILE@)
UNION SELECT tf_op, name FROM rule_scope_case;
CREATE TEMP TABLE in_long AS
SELECT DISTINCT long_name FROM xplane_ops(@PROFILE@) WHERE long_name IS NOT NULL
UNION SELECT long_name FROM rule_shape_case;
CREATE TEMP TABLE in_text AS
SELECT canonical_name AS s FROM xplane_ops(@PROFILE@)
UNION SELECT canonical_name || ' ' || scope_path FROM xplane_ops(@PROFILE@)
UNION SELECT s FROM rule_family_case;
CREATE TEMP TABLE in_sig AS
SELECT DISTINCT shape_signature AS sig FROM xplane_ops(@PROFILE@) WHERE shape_signature IS NOT NULL
UNION SELECT sig FROM rule_flop_case;
CREATE TEMP TABLE in_family AS
SELECT column1 AS family FROM (VALUES ('attention_flash'), ('attention_dense'), ('attention_splash'), ('loss_xent'),
                                      ('fusion'), ('other'));
CREATE TEMP TABLE n_rule AS
SELECT 'scope_path' AS rule, coalesce(tf_op, '<null>') || ' | ' || name AS input, xplane_scope_path(tf_op, name) AS output
FROM in_scope
UNION ALL SELECT 'shape_signature', long_name, xplane_shape_signature(long_name) FROM in_long
UNION ALL SELECT 'semantic_family', s, xplane_semantic_family(s) FROM in_text
UNION ALL SELECT 'flop_proxy', family || ' | ' || sig, xplane_flop_proxy(family, sig) || '' FROM in_sig, in_family;

CREATE TEMP TABLE n_files AS SELECT * FROM xplane_files(@PROFILE@);
CREATE TEMP TABLE n_space AS SELECT * FROM xplane_space(@PROFILE@);
CREATE TEMP TABLE n_gaps AS
SELECT payload_name, marker_name, payload_tf_op, count, total_ps, max_ps, first_marker_id FROM xplane_gaps(@PROFILE@);
CREATE TEMP TABLE n_op_tf_ops AS SELECT name, tf_op, count, first_op_id FROM xplane_op_tf_ops(@PROFILE@);
-- the events a trace holds (a start, a duration >= 0); the label as slices name them
CREATE TEMP TABLE n_events AS
SELECT plane_index, plane_name, line_index, line_id, line_name, line_display_name, event_index, name,
       coalesce(nullif(display_name, ''), name) AS label, start_ps, end_ps, dur_ps, self_ps
FROM xplane_events(@PROFILE@) WHERE start_ps IS NOT NULL AND dur_ps >= 0;
CREATE TEMP TABLE n_devices AS
SELECT plane_index, plane_name, device_type, vendor, compute_capability, core_count, clock_rate_hz,
       memory_size_bytes, peak_flops_per_s, peak_bw_bytes_per_s, ridge_flops_per_byte, core_details
FROM xplane_devices(@PROFILE@);
CREATE TEMP TABLE n_hlo_stats AS
SELECT kind, name, category, count, total_ps, self_ps, share_of_device_self, flops, model_flops, bytes_accessed,
       flops_per_s, bytes_per_s, flops_per_byte, ridge_flops_per_byte, peak_flops_per_s, peak_bw_bytes_per_s,
       bound_by, flop_utilization, bw_utilization, first_op_id, rate_time_ps, rate_clock
FROM xplane_hlo_stats(@PROFILE@);
CREATE TEMP TABLE n_kernel_stats AS
SELECT name, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers_per_thread, static_shmem_bytes,
       dynamic_shmem_bytes, shared_mem_bytes, private_mem_bytes, occupancy_pct, uses_tensor_core,
       op_tensor_core_eligible, op_name, count, total_ps, min_ps, max_ps, mean_ps, first_op_id
FROM xplane_kernel_stats(@PROFILE@);

INCLUDE PERFETTO MODULE xplane.source;
INCLUDE PERFETTO MODULE xplane.ops;
INCLUDE PERFETTO MODULE xplane.steps;
INCLUDE PERFETTO MODULE xplane.scopes;
INCLUDE PERFETTO MODULE xplane.aggregates;
INCLUDE PERFETTO MODULE xplane.breakdown;
INCLUDE PERFETTO MODULE xplane.slices;
INCLUDE PERFETTO MODULE xplane.xprof;
INCLUDE PERFETTO MODULE xplane.regions;

CREATE TEMP TABLE p_ops AS
SELECT op_id, plane_index, plane_name, line_index, line_name, event_index, name, canonical_name, long_name,
       category, collective_kind, hlo_category, hlo_module, program_id || '' AS program_id, tf_op, scope_path,
       source_file, shape_signature, flops || '' AS flops, bytes_accessed || '' AS bytes_accessed, start_ps, dur_ps,
       end_ps, self_ps, gap_before_ps, gap_payload_op_id, gap_payload_name, device_offset_ps || '' AS device_offset_ps,
       device_duration_ps || '' AS device_duration_ps, correlation_id || '' AS correlation_id, step, stats, ts, dur
FROM xplane_ops;
CREATE TEMP TABLE p_steps AS SELECT * FROM xplane_steps;
CREATE TEMP TABLE p_scopes AS SELECT * FROM xplane_scopes;
CREATE TEMP TABLE p_tracks AS SELECT * FROM xplane_tracks;
CREATE TEMP TABLE p_op_names AS
SELECT name, canonical_name, category, count, total_ps, self_ps, shape_signature, source_file, tf_op,
       flop_proxy_sum || '' AS flop_proxy_sum, flop_proxy_count, first_op_id
FROM xplane_op_names;
CREATE TEMP TABLE p_hints AS SELECT * FROM xplane_hints;
CREATE TEMP TABLE p_breakdown AS SELECT category, self_ps FROM xplane_breakdown WHERE self_ps > 0;
CREATE TEMP TABLE p_files AS SELECT * FROM xplane_files;
CREATE TEMP TABLE p_space AS SELECT * FROM xplane_space;
CREATE TEMP TABLE p_gaps AS SELECT * FROM xplane_gaps;
CREATE TEMP TABLE p_op_tf_ops AS SELECT * FROM xplane_op_tf_ops;
CREATE TEMP TABLE p_events AS
SELECT plane_index, plane_name, line_index, line_id, line_name, line_display_name, event_index, name,
       coalesce(nullif(display_name, ''), name) AS label, start_ps, end_ps, dur_ps, self_ps
FROM xplane_events;
CREATE TEMP TABLE p_devices AS SELECT * FROM xplane_devices;
CREATE TEMP TABLE p_hlo_stats AS SELECT * FROM xplane_hlo_stats;
CREATE TEMP TABLE p_kernel_stats AS SELECT * FROM xplane_kernel_stats;
CREATE TEMP TABLE p_rule AS
SELECT 'scope_path' AS rule, coalesce(tf_op, '<null>') || ' | ' || name AS input, xplane_scope_path(tf_op, name) AS output
FROM in_scope
UNION ALL SELECT 'shape_signature', long_name, xplane_shape_signature(long_name) FROM in_long
UNION ALL SELECT 'semantic_family', s, xplane_semantic_family(s) FROM in_text
UNION ALL SELECT 'flop_proxy', family || ' | ' || sig, xplane_flop_proxy(family, sig) || '' FROM in_sig, in_family;

SELECT 'ops', (SELECT count(*) FROM n_ops), (SELECT count(*) FROM p_ops);
SELECT 'steps', (SELECT count(*) FROM n_steps), (SELECT count(*) FROM p_steps);
SELECT 'scopes', (SELECT count(*) FROM n_scopes), (SELECT count(*) FROM p_scopes);
SELECT 'tracks', (SELECT count(*) FROM n_tracks), (SELECT count(*) FROM p_tracks);
SELECT 'op_names', (SELECT count(*) FROM n_op_names), (SELECT count(*) FROM p_op_names);
SELECT 'hints', (SELECT count(*) FROM n_hints), (SELECT count(*) FROM p_hints);
SELECT 'breakdown', (SELECT count(*) FROM n_breakdown), (SELECT count(*) FROM p_breakdown);
SELECT 'rules', (SELECT count(*) FROM n_rule), (SELECT count(*) FROM p_rule);
SELECT 'files', (SELECT count(*) FROM n_files), (SELECT count(*) FROM p_files);
SELECT 'space', (SELECT count(*) FROM n_space), (SELECT count(*) FROM p_space);
SELECT 'gaps', (SELECT count(*) FROM n_gaps), (SELECT count(*) FROM p_gaps);
SELECT 'op_tf_ops', (SELECT count(*) FROM n_op_tf_ops), (SELECT count(*) FROM p_op_tf_ops);
SELECT 'events', (SELECT count(*) FROM n_events), (SELECT count(*) FROM p_events);
SELECT 'devices', (SELECT count(*) FROM n_devices), (SELECT count(*) FROM p_devices);
SELECT 'hlo_stats', (SELECT count(*) FROM n_hlo_stats), (SELECT count(*) FROM p_hlo_stats);
SELECT 'kernel_stats', (SELECT count(*) FROM n_kernel_stats), (SELECT count(*) FROM p_kernel_stats);
SELECT 'ops only native', * FROM (SELECT * FROM n_ops EXCEPT SELECT * FROM p_ops) LIMIT 5;
SELECT 'ops only package', * FROM (SELECT * FROM p_ops EXCEPT SELECT * FROM n_ops) LIMIT 5;
SELECT 'steps only native', * FROM (SELECT * FROM n_steps EXCEPT SELECT * FROM p_steps) LIMIT 5;
SELECT 'steps only package', * FROM (SELECT * FROM p_steps EXCEPT SELECT * FROM n_steps) LIMIT 5;
SELECT 'scopes only native', * FROM (SELECT * FROM n_scopes EXCEPT SELECT * FROM p_scopes) LIMIT 5;
SELECT 'scopes only package', * FROM (SELECT * FROM p_scopes EXCEPT SELECT * FROM n_scopes) LIMIT 5;
SELECT 'scopes order differs' WHERE (SELECT group_concat(scope_path, '/') FROM n_scopes)
  IS NOT (SELECT group_concat(scope_path, '/') FROM p_scopes);
SELECT 'tracks only native', * FROM (SELECT * FROM n_tracks EXCEPT SELECT * FROM p_tracks) LIMIT 5;
SELECT 'tracks only package', * FROM (SELECT * FROM p_tracks EXCEPT SELECT * FROM n_tracks) LIMIT 5;
SELECT 'op_names only native', * FROM (SELECT * FROM n_op_names EXCEPT SELECT * FROM p_op_names) LIMIT 5;
SELECT 'op_names only package', * FROM (SELECT * FROM p_op_names EXCEPT SELECT * FROM n_op_names) LIMIT 5;
SELECT 'hints only native', * FROM (SELECT * FROM n_hints EXCEPT SELECT * FROM p_hints) LIMIT 5;
SELECT 'hints only package', * FROM (SELECT * FROM p_hints EXCEPT SELECT * FROM n_hints) LIMIT 5;
SELECT 'breakdown only native', * FROM (SELECT * FROM n_breakdown EXCEPT SELECT * FROM p_breakdown);
SELECT 'breakdown only package', * FROM (SELECT * FROM p_breakdown EXCEPT SELECT * FROM n_breakdown);
SELECT 'rule only native', * FROM (SELECT * FROM n_rule EXCEPT SELECT * FROM p_rule) LIMIT 10;
SELECT 'rule only package', * FROM (SELECT * FROM p_rule EXCEPT SELECT * FROM n_rule) LIMIT 10;
SELECT 'files only native', * FROM (SELECT * FROM n_files EXCEPT SELECT * FROM p_files);
SELECT 'files only package', * FROM (SELECT * FROM p_files EXCEPT SELECT * FROM n_files);
SELECT 'files columns differ' WHERE (SELECT group_concat(name) FROM pragma_table_info('n_files'))
  IS NOT (SELECT group_concat(name) FROM pragma_table_info('p_files'));
SELECT 'space only native', * FROM (SELECT * FROM n_space EXCEPT SELECT * FROM p_space);
SELECT 'space only package', * FROM (SELECT * FROM p_space EXCEPT SELECT * FROM n_space);
SELECT 'space columns differ' WHERE (SELECT group_concat(name) FROM pragma_table_info('n_space'))
  IS NOT (SELECT group_concat(name) FROM pragma_table_info('p_space'));
SELECT 'gaps only native', * FROM (SELECT * FROM n_gaps EXCEPT SELECT * FROM p_gaps) LIMIT 5;
SELECT 'gaps only package', * FROM (SELECT * FROM p_gaps EXCEPT SELECT * FROM n_gaps) LIMIT 5;
SELECT 'op_tf_ops only native', * FROM (SELECT * FROM n_op_tf_ops EXCEPT SELECT * FROM p_op_tf_ops) LIMIT 5;
SELECT 'op_tf_ops only package', * FROM (SELECT * FROM p_op_tf_ops EXCEPT SELECT * FROM n_op_tf_ops) LIMIT 5;
SELECT 'events only native', * FROM (SELECT * FROM n_events EXCEPT SELECT * FROM p_events) LIMIT 5;
SELECT 'events only package', * FROM (SELECT * FROM p_events EXCEPT SELECT * FROM n_events) LIMIT 5;
SELECT 'devices only native', * FROM (SELECT * FROM n_devices EXCEPT SELECT * FROM p_devices) LIMIT 5;
SELECT 'devices only package', * FROM (SELECT * FROM p_devices EXCEPT SELECT * FROM n_devices) LIMIT 5;
SELECT 'hlo_stats only native', * FROM (SELECT * FROM n_hlo_stats EXCEPT SELECT * FROM p_hlo_stats) LIMIT 5;
SELECT 'hlo_stats only package', * FROM (SELECT * FROM p_hlo_stats EXCEPT SELECT * FROM n_hlo_stats) LIMIT 5;
SELECT 'hlo_stats order differs' WHERE (SELECT group_concat(kind || name, '/') FROM n_hlo_stats)
  IS NOT (SELECT group_concat(kind || name, '/') FROM p_hlo_stats);
SELECT 'kernel_stats only native', * FROM (SELECT * FROM n_kernel_stats EXCEPT SELECT * FROM p_kernel_stats) LIMIT 5;
SELECT 'kernel_stats only package', * FROM (SELECT * FROM p_kernel_stats EXCEPT SELECT * FROM n_kernel_stats) LIMIT 5;
