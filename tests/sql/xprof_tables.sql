-- xprof_tables.sql: xplane_devices, xplane_hlo_stats (roofline) and
-- xplane_kernel_stats on the hand-made profile tests/fixtures/xprof.textproto,
-- every expected value derived by hand below (not by the code under test).
--
-- /device:TPU:0: peak_teraflops_per_second 100, peak_hbm_bw_gigabytes_per_second 50
--   -> peak 1e14 FLOP/s, 5e10 bytes/s, ridge 1e14 / 5e10 = 2000 FLOP/byte.
--   Ops on `XLA Ops`, back to back (no nesting: self = duration):
--   dot.1    x2, 10 us each, flops 5e8, bytes 1e5, model_flops 4e8, convolution
--            -> flops 1e9, bytes 2e5, self 2e-5 s: 5e13 FLOP/s (utilization 0.5),
--               1e10 bytes/s (0.2), intensity 1e9 / 2e5 = 5000 >= 2000: compute
--   fusion.2 20 us, flops 1e6, bytes 5e5, loop fusion
--            -> 5e10 FLOP/s (5e-4), 2.5e10 bytes/s (0.5), intensity 2 < 2000: memory
--   copy.3   10 us, bytes 1000, no flops stat: unknown; 1e8 bytes/s (0.002)
--   fusion.4 10 us, flops 0, bytes 0, loop fusion: unknown (no work)
--   category loop fusion = fusion.2 + fusion.4: flops 1e6, bytes 5e5, self 3e-5 s
--            -> intensity 2: memory
-- /device:GPU:0: clock_rate 1500000 kHz -> 1.5e9 Hz, 80 cores, memory_bandwidth
--   9e11 bytes/s, memory_size 16e9, compute capability 8.0, vendor Nvidia, no
--   FLOP peak (so no ridge and every GPU op is unknown).
--   Ops on `Stream #1`: volta_h884gemm_64x64 4 us and 6 us (grid 8,4,1) and 3 us
--   (grid 16,4,1); elementwise_kernel 1 us (ROCm-style details, tf_op XlaModule:
--   -> op name from the `name` stat); bad_kernel 2 us (unparsable regs, a grid of
--   two numbers and a block of four: both stay 1,1,1, and an empty occ_pct);
--   MemcpyH2D 5 us without kernel_details (not a kernel row).
-- Device self time: 60 us (TPU) + 4 + 6 + 3 + 1 + 2 + 5 (GPU) = 81 us, so the
-- shares are dot.1 20/81, copy.3 10/81, ... and sum to 1.
.load @EXT@
.mode list
.separator ' | '
SELECT plane_index, plane_name, device_type, vendor, compute_capability, core_count, clock_rate_hz,
       memory_size_bytes, peak_flops_per_s, peak_bw_bytes_per_s, ridge_flops_per_byte, core_details
  FROM xplane_devices('@FIXTURES@/xprof.xplane.pb');
SELECT kind, name, category, count, self_ps, bound_by FROM xplane_hlo_stats('@FIXTURES@/xprof.xplane.pb');

-- The roofline numbers against the hand-derived ones: sums and rates exact
-- (a rate is the correctly rounded quotient of exactly representable
-- numbers, e.g. 1e6 FLOPs in 3e7 ps = 1e18 / 3e7 FLOP/s); utilizations within
-- 1e-15 (a quotient of a rounded rate).
CREATE TEMP TABLE want(kind, name, flops, bytes, model_flops, flops_per_s, bytes_per_s, intensity, ridge,
                       bound_by, flop_util, bw_util, share);
INSERT INTO want VALUES
  ('op', 'dot.1', 1e9, 2e5, 8e8, 5e13, 1e10, 5000.0, 2000.0, 'compute', 0.5, 0.2, 20.0 / 81),
  ('op', 'fusion.2', 1e6, 5e5, NULL, 5e10, 2.5e10, 2.0, 2000.0, 'memory', 5e10 / 1e14, 0.5, 20.0 / 81),
  ('op', 'copy.3', NULL, 1000.0, NULL, NULL, 1e8, NULL, 2000.0, 'unknown', NULL, 1e8 / 5e10, 10.0 / 81),
  ('op', 'fusion.4', 0.0, 0.0, NULL, 0.0, 0.0, NULL, 2000.0, 'unknown', 0.0, 0.0, 10.0 / 81),
  ('category', 'loop fusion', 1e6, 5e5, NULL, 1e18 / 3e7, 5e17 / 3e7, 2.0, 2000.0, 'memory',
   1e4 / 3e7, 1e7 / 3e7, 30.0 / 81),
  ('op', 'volta_h884gemm_64x64', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'unknown', NULL, NULL, 13.0 / 81);
SELECT w.kind, w.name,
       h.flops IS w.flops AND h.bytes_accessed IS w.bytes AND h.model_flops IS w.model_flops AS sums_ok,
       h.flops_per_s IS w.flops_per_s AND h.bytes_per_s IS w.bytes_per_s AS rates_ok,
       h.flops_per_byte IS w.intensity AND h.ridge_flops_per_byte IS w.ridge AND h.bound_by IS w.bound_by AS roofline_ok,
       abs(h.flop_utilization - w.flop_util) < 1e-15 OR (h.flop_utilization IS NULL AND w.flop_util IS NULL) AS flop_util_ok,
       abs(h.bw_utilization - w.bw_util) < 1e-15 OR (h.bw_utilization IS NULL AND w.bw_util IS NULL) AS bw_util_ok,
       h.share_of_device_self IS w.share AS share_ok
  FROM want w LEFT JOIN xplane_hlo_stats('@FIXTURES@/xprof.xplane.pb') h ON h.kind = w.kind AND h.name = w.name;
SELECT kind, sum(share_of_device_self) AS share_sum FROM xplane_hlo_stats('@FIXTURES@/xprof.xplane.pb')
 WHERE kind = 'op' GROUP BY kind;

-- Kernels: two launch configurations of the gemm are two rows; tensor cores
-- by name (volta_h884...) and eligibility by op (.../MatMul).
SELECT name, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers_per_thread, static_shmem_bytes,
       dynamic_shmem_bytes, shared_mem_bytes, private_mem_bytes, occupancy_pct, uses_tensor_core,
       op_tensor_core_eligible, op_name, count, total_ps, min_ps, max_ps, mean_ps
  FROM xplane_kernel_stats('@FIXTURES@/xprof.xplane.pb');

-- A profile with no device plane (one host event): empty tables, not errors.
SELECT writefile('@TMP@/host_only.json', '{"traceEvents": [
 {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "/host:CPU"}},
 {"ph": "X", "pid": 1, "tid": 1, "name": "step", "ts": 0, "dur": 4}]}') > 0 AS written;
SELECT (SELECT count(*) FROM xplane_devices('@TMP@/host_only.json')) AS devices,
       (SELECT count(*) FROM xplane_hlo_stats('@TMP@/host_only.json')) AS hlo_rows,
       (SELECT count(*) FROM xplane_kernel_stats('@TMP@/host_only.json')) AS kernels;
