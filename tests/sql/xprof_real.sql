-- xprof_real.sql: invariants of the xprof tables (xplane_devices,
-- xplane_hlo_stats, xplane_kernel_stats) and of xplane_op_regions on every
-- real profile, each against numbers computed here from the row tables.
.load @EXT@
.mode list
.separator ' | '
CREATE TEMP TABLE ops AS SELECT host, name, dur_ps, self_ps, stats FROM xplane_ops('@DATA@');
CREATE TEMP TABLE hlo AS SELECT * FROM xplane_hlo_stats('@DATA@');
CREATE TEMP TABLE kern AS SELECT * FROM xplane_kernel_stats('@DATA@');

-- Devices: one row per /device: plane.
SELECT 'devices' AS t, (SELECT count(*) FROM xplane_devices('@DATA@')) =
                  (SELECT count(*) FROM xplane_planes('@DATA@') WHERE plane_name LIKE '/device:%') AS ok;

-- Roofline, per profile: op rows hold every op once (count, total and self
-- time add up to the ops'), their shares sum to 1, category rows hold the
-- ops that have an hlo_category, achieved FLOP/s never exceeds the device
-- peak (utilization <= 1), and bound-by is known only with FLOPs, bytes and
-- peaks.
SELECT 'hlo_stats' AS t, o.host,
       h.n = o.n AND h.total = o.total AND h.self = o.self AS op_rows_ok,
       abs(h.share - 1.0) < 1e-9 AS shares_sum_to_1,
       coalesce(c.n, 0) = o.n_cat AS category_rows_ok,
       (SELECT count(*) FROM hlo x WHERE x.host = o.host AND x.flop_utilization > 1.0) AS above_peak,
       (SELECT count(*) FROM hlo x WHERE x.host = o.host AND x.bound_by <> 'unknown'
          AND (x.flops IS NULL OR x.bytes_accessed IS NULL OR x.peak_flops_per_s IS NULL)) AS bad_bound_by,
       (SELECT group_concat(bound_by || ':' || n, ' ') FROM (SELECT bound_by, count(*) n FROM hlo x
          WHERE x.host = o.host AND kind = 'op' GROUP BY 1 ORDER BY 1)) AS bound_by_counts
  FROM (SELECT host, count(*) n, sum(dur_ps) total, sum(max(self_ps, 0)) self,
               sum(coalesce(stats ->> '$.hlo_category', '') <> '') n_cat FROM ops GROUP BY host) o
  LEFT JOIN (SELECT host, sum(count) n, sum(total_ps) total, sum(self_ps) self, sum(share_of_device_self) share
               FROM hlo WHERE kind = 'op' GROUP BY host) h USING (host)
  LEFT JOIN (SELECT host, sum(count) n FROM hlo WHERE kind = 'category' GROUP BY host) c USING (host)
 ORDER BY o.host;

-- Kernels: every op with a kernel_details stat is in exactly one row.
SELECT 'kernel_stats' AS t, o.host, o.n AS kernels, coalesce(k.n, 0) = o.n AND coalesce(k.total, 0) = o.total AS ok,
       coalesce(k.bad, 0) AS min_mean_max_out_of_order
  FROM (SELECT host, count(*) n, sum(dur_ps) total FROM ops WHERE stats ->> '$.kernel_details' IS NOT NULL
         GROUP BY host) o
  LEFT JOIN (SELECT host, sum(count) n, sum(total_ps) total,
                    sum(NOT (min_ps <= mean_ps AND mean_ps <= max_ps)) bad FROM kern GROUP BY host) k USING (host)
 ORDER BY o.host;

-- Op regions: no op counted twice, every row names a window path.
SELECT 'op_regions' AS t, o.host, coalesce(r.n, 0) <= o.n AS ok, coalesce(r.empty_paths, 0) AS empty_paths
  FROM (SELECT host, count(*) n FROM ops GROUP BY host) o
  LEFT JOIN (SELECT host, sum(count) n, sum(region_path = '') empty_paths FROM xplane_op_regions('@DATA@')
              GROUP BY host) r USING (host)
 ORDER BY o.host;

-- Memory: every MemoryAllocation / MemoryDeallocation event with a start and
-- a bytes_allocated stat is one xplane_memory row; each allocator's peak is
-- the largest in_use_bytes of its rows, reached at peak_time_ps, and never
-- above the allocator's own reported peak.
CREATE TEMP TABLE mem AS SELECT * FROM xplane_memory('@DATA@');
SELECT 'memory' AS t, e.host, e.n AS events, coalesce(m.n, 0) = e.n AS ok
  FROM (SELECT host, count(*) n FROM xplane_events('@DATA@')
         WHERE coalesce(nullif(display_name, ''), name) IN ('MemoryAllocation', 'MemoryDeallocation')
           AND start_ps IS NOT NULL AND typeof(stats ->> '$.bytes_allocated') IN ('integer', 'real')
         GROUP BY host) e
  LEFT JOIN (SELECT host, count(*) n FROM mem GROUP BY host) m USING (host)
 ORDER BY e.host;
SELECT 'memory_peaks' AS t, p.host, count(*) AS allocators,
       sum(p.peak_in_use_bytes = (SELECT max(in_use_bytes) FROM mem m WHERE m.host = p.host AND m.allocator = p.allocator)
           AND EXISTS (SELECT 1 FROM mem m WHERE m.host = p.host AND m.allocator = p.allocator
                         AND m.time_ps = p.peak_time_ps AND m.in_use_bytes = p.peak_in_use_bytes)) AS peaks_ok,
       sum(p.reported_peak_bytes IS NOT NULL AND p.peak_in_use_bytes > p.reported_peak_bytes) AS above_reported
  FROM xplane_memory_peaks('@DATA@') p GROUP BY p.host ORDER BY p.host;
