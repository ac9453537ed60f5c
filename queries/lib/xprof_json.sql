-- queries/lib/xprof_json.sql: what xprof shows, as one JSON document beside
-- the summary (never inside profile_summary.v1's reference sections).
--
-- Input: temp.xq_input (queries/lib/input.sql) and the profile chosen by
-- queries/lib/use_profile.sql. Output: temp.xq_xprof(doc), an object with the
-- sections below; a section the profile has no data for is an empty list or
-- null, never an error. Reads xplane_devices, xplane_hlo_stats,
-- xplane_kernel_stats, xplane_memory_peaks, xplane_steps and xplane_ops
-- (sqlite3 shell only: the PerfettoSQL package has no device, roofline,
-- kernel or memory tables yet). Times are microseconds (`_us`, ps / 1e6);
-- rates FLOP/s and bytes/s; @top_k rows per list.
--
--   devices          xplane_devices rows that hold any fact (type, peaks, ridge, cores,
--                    clock, memory)
--   flop_utilization achieved FLOP/s over the device peak, all ops with FLOPs
--                    on devices with known peaks: sum(flops) / sum(self time) / peak
--                    (null without FLOPs or peaks, or with devices of different peaks)
--   roofline         the top ops of xplane_hlo_stats by self time, and every category
--   kernels          the top kernels of xplane_kernel_stats by total time
--   memory           xplane_memory_peaks, by peak desc
--   step_overview    per step (mean over devices) the step time split into device
--                    compute, collectives, input wait (infeed ops and stall ops)
--                    and idle (compute and collectives sum op self times, which
--                    overlap across lines with asynchronous ops, so they can
--                    exceed the step time); the verdict from the steady steps' input share
--                    (xprof's thresholds: over 20 % highly input-bound, over 5 %
--                    moderately, else not input-bound); null without steps

DROP TABLE IF EXISTS temp.xq_step_parts;
CREATE TEMP TABLE xq_step_parts AS
WITH input_ops AS (
  SELECT plane_index, step, sum(max(self_ps, 0)) AS input_ps,
         sum(CASE WHEN category = 'compute' THEN max(self_ps, 0) ELSE 0 END) AS input_compute_ps
    FROM xplane_ops
   WHERE step IS NOT NULL AND (lower(name) LIKE '%infeed%' OR category = 'stall')
   GROUP BY plane_index, step)
SELECT s.step, count(*) AS n_devices,
       avg(s.dur_ps) AS dur_ps,
       avg(s.compute_ps - coalesce(i.input_compute_ps, 0)) AS compute_ps,
       avg(s.communication_ps) AS collectives_ps,
       avg(s.stall_ps + coalesce(i.input_compute_ps, 0)) AS input_ps,
       avg(s.idle_ps) AS idle_ps
  FROM xplane_steps s LEFT JOIN input_ops i ON i.plane_index = s.plane_index AND i.step = s.step
 GROUP BY s.step;

DROP TABLE IF EXISTS temp.xq_xprof;
CREATE TEMP TABLE xq_xprof AS
WITH
k(n) AS (SELECT top_k FROM xq_input),
peak(p) AS (SELECT CASE WHEN count(DISTINCT peak_flops_per_s) = 1 THEN max(peak_flops_per_s) END
              FROM xplane_hlo_stats WHERE kind = 'op' AND flops IS NOT NULL AND peak_flops_per_s IS NOT NULL),
steady(dur, input) AS (SELECT sum(dur_ps), sum(input_ps) FROM xq_step_parts
                        WHERE step >= (SELECT warmup_steps FROM xq_input))
SELECT json_object(
  'devices', json((SELECT json_group_array(json_object(
      'plane_name', plane_name, 'device_type', device_type, 'vendor', vendor,
      'compute_capability', compute_capability, 'core_count', core_count, 'clock_rate_hz', clock_rate_hz,
      'memory_size_bytes', memory_size_bytes, 'peak_flops_per_s', peak_flops_per_s,
      'peak_bw_bytes_per_s', peak_bw_bytes_per_s, 'ridge_flops_per_byte', ridge_flops_per_byte))
      FROM (SELECT * FROM xplane_devices
             WHERE coalesce(device_type, vendor, compute_capability, core_count, clock_rate_hz, memory_size_bytes,
                            peak_flops_per_s, peak_bw_bytes_per_s) IS NOT NULL
             ORDER BY plane_index))),
  'flop_utilization', (SELECT CASE WHEN (SELECT p FROM peak) IS NOT NULL AND sum(self_ps) > 0
                                   THEN sum(flops) * 1e12 / sum(self_ps) / (SELECT p FROM peak) END
                         FROM xplane_hlo_stats WHERE kind = 'op' AND flops IS NOT NULL AND peak_flops_per_s IS NOT NULL),
  'roofline', json_object(
      'ops', json((SELECT json_group_array(json_object(
          'name', name, 'category', category, 'count', count, 'self_time_us', self_ps / 1e6,
          'share_of_device_self', share_of_device_self, 'flops', flops, 'bytes_accessed', bytes_accessed,
          'flops_per_s', flops_per_s, 'bytes_per_s', bytes_per_s, 'flops_per_byte', flops_per_byte,
          'ridge_flops_per_byte', ridge_flops_per_byte, 'bound_by', bound_by,
          'flop_utilization', flop_utilization, 'bw_utilization', bw_utilization))
          FROM (SELECT * FROM xplane_hlo_stats WHERE kind = 'op'
                 ORDER BY self_ps DESC, total_ps DESC, name LIMIT (SELECT n FROM k)))),
      'categories', json((SELECT json_group_array(json_object(
          'category', name, 'count', count, 'self_time_us', self_ps / 1e6,
          'share_of_device_self', share_of_device_self, 'flops_per_s', flops_per_s, 'bytes_per_s', bytes_per_s,
          'flops_per_byte', flops_per_byte, 'bound_by', bound_by, 'flop_utilization', flop_utilization,
          'bw_utilization', bw_utilization))
          FROM (SELECT * FROM xplane_hlo_stats WHERE kind = 'category' ORDER BY self_ps DESC, total_ps DESC, name)))),
  'kernels', json((SELECT json_group_array(json_object(
      'name', name, 'grid', json_array(grid_x, grid_y, grid_z), 'block', json_array(block_x, block_y, block_z),
      'registers_per_thread', registers_per_thread, 'static_shmem_bytes', static_shmem_bytes,
      'dynamic_shmem_bytes', dynamic_shmem_bytes, 'shared_mem_bytes', shared_mem_bytes,
      'occupancy_pct', occupancy_pct, 'uses_tensor_core', json(CASE WHEN uses_tensor_core THEN 'true' ELSE 'false' END),
      'op_tensor_core_eligible', json(CASE WHEN op_tensor_core_eligible THEN 'true' ELSE 'false' END),
      'op_name', op_name, 'count', count, 'total_time_us', total_ps / 1e6, 'min_time_us', min_ps / 1e6,
      'max_time_us', max_ps / 1e6, 'mean_time_us', mean_ps / 1e6))
      FROM (SELECT * FROM xplane_kernel_stats ORDER BY total_ps DESC LIMIT (SELECT n FROM k)))),
  'memory', json((SELECT json_group_array(json_object(
      'allocator', allocator, 'allocations', n_allocations, 'deallocations', n_deallocations,
      'peak_in_use_bytes', peak_in_use_bytes, 'peak_time_us', peak_time_ps / 1e6,
      'reported_peak_bytes', reported_peak_bytes, 'final_in_use_bytes', final_in_use_bytes,
      'ops_at_peak', json(ops_at_peak)))
      FROM (SELECT * FROM xplane_memory_peaks ORDER BY peak_in_use_bytes DESC, allocator))),
  'step_overview', json((SELECT CASE WHEN count(*) = 0 THEN NULL ELSE json_object(
      'steps', json((SELECT json_group_array(json_object(
          'step', step, 'devices', n_devices, 'step_time_us', dur_ps / 1e6, 'compute_us', compute_ps / 1e6,
          'collectives_us', collectives_ps / 1e6, 'input_wait_us', input_ps / 1e6, 'idle_us', idle_ps / 1e6))
          FROM (SELECT * FROM xq_step_parts ORDER BY step))),
      'steady_input_percent', (SELECT CASE WHEN dur > 0 THEN 100.0 * input / dur END FROM steady),
      'input_bound', (SELECT CASE WHEN dur IS NULL OR dur <= 0 THEN 'unknown'
                                  WHEN 100.0 * input / dur > 20 THEN 'highly input-bound'
                                  WHEN 100.0 * input / dur > 5 THEN 'moderately input-bound'
                                  ELSE 'not input-bound' END FROM steady)) END
      FROM xq_step_parts))
) AS doc;
