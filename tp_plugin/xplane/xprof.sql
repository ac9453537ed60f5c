-- xplane.xprof: the xprof-style tables of the extension that a converted
-- trace can hold, with the extension's columns and meanings
-- (schema/TABLES.md; the package's tables have no file, run, host columns):
-- xplane_memory / xplane_memory_peaks, xplane_devices,
-- xplane_hlo_stats (the roofline) and xplane_kernel_stats (xprof's
-- xplane_op_regions and xplane_hlo_op_paths: module xplane.regions). The device facts
-- come from the converter's `xplane.plane` records (one per plane, carrying
-- its plane stats: tp_plugin/pf_model.h); kernel launch configurations from
-- a PerfettoSQL parser of the kernel_details stat. Not here:
-- xplane_hlo_instructions (an HLO proto file, not trace data).
--
--   INCLUDE PERFETTO MODULE xplane.xprof;
--   SELECT name, op_name, count, total_ps FROM xplane_kernel_stats ORDER BY total_ps DESC LIMIT 10;

INCLUDE PERFETTO MODULE xplane.rules;
INCLUDE PERFETTO MODULE xplane.slices;
INCLUDE PERFETTO MODULE xplane.op_base;

-- The allocator events of the trace (xplane_memory of the extension, the
-- same rows and columns): slices named MemoryAllocation / MemoryDeallocation
-- with a numeric bytes_allocated arg, in (time, plane, line, event) order.
CREATE PERFETTO TABLE xplane_memory(
  -- XPlane index of the plane.
  plane_index LONG,
  -- Plane name.
  plane_name STRING,
  -- XLine index.
  line_index LONG,
  -- XEvent index.
  event_index LONG,
  -- Start in ps.
  time_ps LONG,
  -- allocation or deallocation.
  kind STRING,
  -- allocator_name, else index_on_host:<n>, else unknown.
  allocator STRING,
  -- allocation_bytes.
  bytes LONG,
  -- requested_bytes.
  requested_bytes LONG,
  -- bytes_allocated: in use after the event.
  in_use_bytes LONG,
  -- peak_bytes_in_use.
  peak_in_use_bytes LONG,
  -- bytes_available.
  available_bytes LONG,
  -- bytes_reserved.
  reserved_bytes LONG,
  -- fragmentation.
  fragmentation DOUBLE,
  -- addr.
  addr LONG,
  -- tf_op.
  tf_op STRING,
  -- shape.
  shape STRING,
  -- region_type.
  region_type STRING
) AS
WITH
  ev AS (
    SELECT s.plane_index, s.plane_name, s.line_index, s.event_index, s.start_ps, s.name, s.arg_set_id
    FROM xplane_slice s
    WHERE s.name IN ('MemoryAllocation', 'MemoryDeallocation') AND s.start_ps IS NOT NULL
  ),
  a AS (
    SELECT a.arg_set_id,
      max(CASE WHEN a.key = 'debug.bytes_allocated' THEN CASE a.value_type WHEN 'int' THEN a.int_value WHEN 'real' THEN a.real_value WHEN 'uint' THEN xplane_uint64(a.int_value) END END) AS in_use,
      max(CASE WHEN a.key = 'debug.allocation_bytes' THEN CASE a.value_type WHEN 'int' THEN a.int_value WHEN 'real' THEN a.real_value WHEN 'uint' THEN xplane_uint64(a.int_value) END END) AS bytes,
      max(CASE WHEN a.key = 'debug.requested_bytes' THEN CASE a.value_type WHEN 'int' THEN a.int_value WHEN 'real' THEN a.real_value WHEN 'uint' THEN xplane_uint64(a.int_value) END END) AS requested,
      max(CASE WHEN a.key = 'debug.peak_bytes_in_use' THEN CASE a.value_type WHEN 'int' THEN a.int_value WHEN 'real' THEN a.real_value WHEN 'uint' THEN xplane_uint64(a.int_value) END END) AS peak,
      max(CASE WHEN a.key = 'debug.bytes_available' THEN CASE a.value_type WHEN 'int' THEN a.int_value WHEN 'real' THEN a.real_value WHEN 'uint' THEN xplane_uint64(a.int_value) END END) AS available,
      max(CASE WHEN a.key = 'debug.bytes_reserved' THEN CASE a.value_type WHEN 'int' THEN a.int_value WHEN 'real' THEN a.real_value WHEN 'uint' THEN xplane_uint64(a.int_value) END END) AS reserved,
      max(CASE WHEN a.key = 'debug.fragmentation' THEN CASE a.value_type WHEN 'int' THEN a.int_value WHEN 'real' THEN a.real_value WHEN 'uint' THEN xplane_uint64(a.int_value) END END) AS frag,
      max(CASE WHEN a.key = 'debug.addr' AND a.value_type != 'string' THEN a.int_value END) AS addr,
      max(CASE WHEN a.key = 'debug.tf_op' AND a.string_value != '' THEN a.string_value END) AS tf_op,
      max(CASE WHEN a.key = 'debug.shape' AND a.string_value != '' THEN a.string_value END) AS shape,
      max(CASE WHEN a.key = 'debug.region_type' AND a.string_value != '' THEN a.string_value END) AS region_type,
      max(CASE WHEN a.key = 'debug.allocator_name' AND a.string_value != '' THEN a.string_value END) AS allocator_name,
      max(CASE WHEN a.key = 'debug.index_on_host' AND a.value_type != 'string' THEN CASE a.value_type WHEN 'int' THEN a.int_value WHEN 'real' THEN a.real_value WHEN 'uint' THEN xplane_uint64(a.int_value) END END) AS index_on_host
    -- (each numeric stat as _xplane_num reads it, inline: a function call per
    -- arg costs more than the rest)
    FROM args a
    WHERE a.arg_set_id IN (SELECT arg_set_id FROM ev)
    GROUP BY a.arg_set_id
  )
SELECT
  ev.plane_index, ev.plane_name, ev.line_index, ev.event_index, ev.start_ps AS time_ps,
  CASE WHEN ev.name = 'MemoryDeallocation' THEN 'deallocation' ELSE 'allocation' END AS kind,
  coalesce(a.allocator_name, 'index_on_host:' || CAST(a.index_on_host AS INT), 'unknown') AS allocator,
  CAST(a.bytes AS INT) AS bytes, CAST(a.requested AS INT) AS requested_bytes, CAST(a.in_use AS INT) AS in_use_bytes,
  CAST(a.peak AS INT) AS peak_in_use_bytes, CAST(a.available AS INT) AS available_bytes,
  CAST(a.reserved AS INT) AS reserved_bytes, CAST(a.frag AS DOUBLE) AS fragmentation, a.addr,
  a.tf_op, a.shape, a.region_type
FROM ev JOIN a USING (arg_set_id)
WHERE a.in_use IS NOT NULL
ORDER BY time_ps, ev.plane_index, ev.line_index, ev.event_index;

-- Per allocator of xplane_memory: the peak in use and when it was first
-- reached, the allocator-reported peak, and the device ops running then
-- (xplane_memory_peaks of the extension, the same columns).
CREATE PERFETTO TABLE xplane_memory_peaks(
  -- The allocator.
  allocator STRING,
  -- Allocation events.
  n_allocations LONG,
  -- Deallocation events.
  n_deallocations LONG,
  -- Summed allocation_bytes of the allocations.
  allocated_bytes LONG,
  -- The largest in_use_bytes.
  peak_in_use_bytes LONG,
  -- When it was first reached (ps).
  peak_time_ps LONG,
  -- The largest peak_bytes_in_use (NULL if none).
  reported_peak_bytes LONG,
  -- In use after the last event.
  final_in_use_bytes LONG,
  -- First event (ps).
  first_time_ps LONG,
  -- Last event (ps).
  last_time_ps LONG,
  -- Device ops running at the peak (start <= t < end).
  n_ops_at_peak LONG,
  -- JSON array of their distinct names, the first 10 in op order.
  ops_at_peak STRING
) AS
WITH
  m AS (SELECT *, row_number() OVER (ORDER BY time_ps, plane_index, line_index, event_index) AS seq FROM xplane_memory),
  agg AS (
    SELECT allocator,
      sum(kind = 'allocation') AS n_allocations, sum(kind = 'deallocation') AS n_deallocations,
      coalesce(sum(CASE WHEN kind = 'allocation' THEN bytes END), 0) AS allocated_bytes,
      max(in_use_bytes) AS peak_in_use_bytes, max(peak_in_use_bytes) AS reported_peak_bytes,
      min(time_ps) AS first_time_ps, max(time_ps) AS last_time_ps, max(seq) AS last_seq,
      min(plane_index * 4294967296 + line_index * 65536 + event_index) AS first_seen
    FROM m GROUP BY allocator
  ),
  pk AS (
    SELECT g.*, (SELECT m.time_ps FROM m WHERE m.allocator = g.allocator AND m.in_use_bytes = g.peak_in_use_bytes
                 ORDER BY m.seq LIMIT 1) AS peak_time_ps,
           (SELECT m.in_use_bytes FROM m WHERE m.seq = g.last_seq) AS final_in_use_bytes
    FROM agg g
  )
SELECT
  pk.allocator, pk.n_allocations, pk.n_deallocations, pk.allocated_bytes, pk.peak_in_use_bytes, pk.peak_time_ps,
  pk.reported_peak_bytes, pk.final_in_use_bytes, pk.first_time_ps, pk.last_time_ps,
  (SELECT count(*) FROM _xplane_op_base o WHERE o.start_ps <= pk.peak_time_ps AND pk.peak_time_ps < o.start_ps + o.dur_ps)
    AS n_ops_at_peak,
  '[' || coalesce((SELECT group_concat(xplane_json_string(name), ',') FROM (
      SELECT sc.name, min(o.op_id) AS first_op FROM _xplane_op_base o
      JOIN _xplane_op_scope sc USING (skey)
      WHERE o.start_ps <= pk.peak_time_ps AND pk.peak_time_ps < o.start_ps + o.dur_ps
      GROUP BY sc.name ORDER BY first_op LIMIT 10)), '') || ']' AS ops_at_peak
FROM pk
ORDER BY pk.first_seen;

-- ---- devices, roofline and kernel stats -------------------------------------
-- The converter writes one `xplane.plane` record per plane (tp_plugin/pf_model.h):
-- an instant on the source record's track whose args are the plane's index,
-- id, name and process pid (debug.xplane_plane_plane_index, ..._plane_id,
-- ..._plane_name, ..._pid) and its plane stats under their own names
-- (debug.peak_teraflops_per_second, ...). The tables below read the device
-- facts from them as the extension reads plane stats (core/xprof.h).

-- A stat as the extension's xp_stat_as_int reads it: integers, a uint64 up
-- to 2^63 - 1, a double truncated (NULL beyond +-9.2e18); NULL for text.
CREATE PERFETTO FUNCTION _xplane_stat_int(
  -- The arg's value_type.
  value_type STRING,
  -- Its int_value.
  int_value LONG,
  -- Its real_value.
  real_value DOUBLE
)
RETURNS LONG AS
SELECT
  CASE $value_type
    WHEN 'int' THEN $int_value
    WHEN 'uint' THEN CASE WHEN $int_value >= 0 THEN $int_value END
    WHEN 'real' THEN CASE WHEN $real_value >= -9.2e18 AND $real_value <= 9.2e18 THEN CAST($real_value AS INT) END
  END;

-- A numeric stat as a double (the extension's stat_num); NULL for text.
CREATE PERFETTO FUNCTION _xplane_stat_real(
  -- The arg's value_type.
  value_type STRING,
  -- Its int_value.
  int_value LONG,
  -- Its real_value.
  real_value DOUBLE
)
RETURNS DOUBLE AS
SELECT
  CASE $value_type
    WHEN 'int' THEN CAST($int_value AS REAL)
    WHEN 'uint' THEN CASE WHEN $int_value >= 0 THEN CAST($int_value AS REAL)
                          ELSE CAST($int_value AS REAL) + 18446744073709551616.0 END
    WHEN 'real' THEN $real_value
  END;

-- The plane records, one row per plane of the trace.
CREATE PERFETTO TABLE _xplane_plane_record(
  -- Args of the record.
  arg_set_id ARGSETID,
  -- The plane's process.
  upid JOINID(process.id),
  -- XPlane index of the plane.
  plane_index LONG,
  -- XPlane id.
  plane_id LONG,
  -- Plane name.
  plane_name STRING
) AS
SELECT r.arg_set_id, p.upid, r.plane_index, r.plane_id, r.plane_name
FROM (
  SELECT s.arg_set_id,
    max(CASE WHEN a.key = 'debug.xplane_plane_plane_index' THEN a.int_value END) AS plane_index,
    max(CASE WHEN a.key = 'debug.xplane_plane_plane_id' THEN a.int_value END) AS plane_id,
    max(CASE WHEN a.key = 'debug.xplane_plane_plane_name' THEN a.string_value END) AS plane_name,
    max(CASE WHEN a.key = 'debug.xplane_plane_pid' THEN a.int_value END) AS pid
  FROM slice s JOIN args a USING (arg_set_id)
  WHERE s.category = 'xplane' AND s.name = 'xplane.plane'
  GROUP BY s.arg_set_id
) r
LEFT JOIN process p ON p.pid = r.pid;

-- The devices (`/device:` planes) with the plane stats the roofline reads.
CREATE PERFETTO TABLE _xplane_device(
  -- The plane's process.
  upid JOINID(process.id),
  -- XPlane index of the plane.
  plane_index LONG,
  -- Plane name.
  plane_name STRING,
  -- device_type_string.
  device_type STRING,
  -- device_vendor.
  vendor STRING,
  -- core_details (bytes as hex).
  core_details STRING,
  -- peak_teraflops_per_second * 1e12 (NULL unless > 0).
  peak_flops_per_s DOUBLE,
  -- peak_hbm_bw_gigabytes_per_second * 1e9, else memory_bandwidth (NULL unless > 0).
  peak_bw_bytes_per_s DOUBLE,
  -- core_count.
  core_count LONG,
  -- clock_rate, kHz.
  clock_rate_khz LONG,
  -- memory_size, bytes.
  memory_size_bytes LONG,
  -- compute_cap_major.
  cc_major LONG,
  -- compute_cap_minor.
  cc_minor LONG
) AS
WITH st AS (
  SELECT r.upid, r.plane_index, r.plane_name,
    max(CASE WHEN a.key = 'debug.device_type_string' AND a.value_type = 'string' AND a.string_value != ''
             THEN a.string_value END) AS device_type,
    max(CASE WHEN a.key = 'debug.device_vendor' AND a.value_type = 'string' AND a.string_value != ''
             THEN a.string_value END) AS vendor,
    max(CASE WHEN a.key = 'debug.core_details' AND a.value_type = 'string' AND a.string_value != ''
             THEN a.string_value END) AS core_details,
    max(CASE WHEN a.key = 'debug.peak_teraflops_per_second'
             THEN _xplane_stat_real(a.value_type, a.int_value, a.real_value) END) AS tflops,
    max(CASE WHEN a.key = 'debug.peak_hbm_bw_gigabytes_per_second'
             THEN _xplane_stat_real(a.value_type, a.int_value, a.real_value) END) AS hbm_gbps,
    max(CASE WHEN a.key = 'debug.memory_bandwidth'
             THEN _xplane_stat_real(a.value_type, a.int_value, a.real_value) END) AS mem_bw,
    max(CASE WHEN a.key = 'debug.core_count' THEN _xplane_stat_int(a.value_type, a.int_value, a.real_value) END)
      AS core_count,
    max(CASE WHEN a.key = 'debug.clock_rate' THEN _xplane_stat_int(a.value_type, a.int_value, a.real_value) END)
      AS clock_khz,
    max(CASE WHEN a.key = 'debug.memory_size' THEN _xplane_stat_int(a.value_type, a.int_value, a.real_value) END)
      AS memory_size,
    max(CASE WHEN a.key = 'debug.compute_cap_major'
             THEN _xplane_stat_int(a.value_type, a.int_value, a.real_value) END) AS cc_major,
    max(CASE WHEN a.key = 'debug.compute_cap_minor'
             THEN _xplane_stat_int(a.value_type, a.int_value, a.real_value) END) AS cc_minor
  FROM _xplane_plane_record r
  LEFT JOIN args a USING (arg_set_id)
  WHERE r.plane_name GLOB '/device:*'
  GROUP BY r.arg_set_id
)
SELECT upid, plane_index, plane_name, device_type, vendor, core_details,
  CASE WHEN tflops > 0 THEN tflops * 1e12 END AS peak_flops_per_s,
  CASE WHEN hbm_gbps > 0 THEN hbm_gbps * 1e9 WHEN mem_bw > 0 THEN mem_bw END AS peak_bw_bytes_per_s,
  core_count, clock_khz AS clock_rate_khz, memory_size AS memory_size_bytes, cc_major, cc_minor
FROM st;

-- One row per `/device:` plane with the facts its plane stats carry
-- (xplane_devices of the extension, the same columns but file, run, host).
CREATE PERFETTO TABLE xplane_devices(
  -- XPlane index of the plane.
  plane_index LONG,
  -- Plane name.
  plane_name STRING,
  -- device_type_string (TPU).
  device_type STRING,
  -- device_vendor (GPU).
  vendor STRING,
  -- compute_cap_major.minor (GPU).
  compute_capability STRING,
  -- core_count.
  core_count LONG,
  -- clock_rate in Hz.
  clock_rate_hz LONG,
  -- memory_size in bytes.
  memory_size_bytes LONG,
  -- Peak FLOP/s.
  peak_flops_per_s DOUBLE,
  -- Peak memory bandwidth, bytes/s.
  peak_bw_bytes_per_s DOUBLE,
  -- peak_flops_per_s / peak_bw_bytes_per_s.
  ridge_flops_per_byte DOUBLE,
  -- core_details (a bytes value as lower-case hex).
  core_details STRING
) AS
SELECT plane_index, plane_name, device_type, vendor,
  CASE WHEN cc_major IS NOT NULL AND cc_minor IS NOT NULL THEN cc_major || '.' || cc_minor END AS compute_capability,
  core_count,
  CASE WHEN clock_rate_khz <= 9223372036854775 THEN clock_rate_khz * 1000 END AS clock_rate_hz,
  memory_size_bytes, peak_flops_per_s, peak_bw_bytes_per_s,
  peak_flops_per_s / peak_bw_bytes_per_s AS ridge_flops_per_byte,
  core_details
FROM _xplane_device
ORDER BY plane_index;

-- The stats of the device ops that the roofline and kernel tables read and
-- xplane.op_base does not: model_flops, kernel_details, hlo_op, `level 0`
-- (the last arg of each key).
CREATE PERFETTO TABLE _xplane_xprof_op_arg(
  -- Arg set of the op.
  arg_set_id ARGSETID,
  -- hlo_category text.
  hlo_category STRING,
  -- flops as a double.
  flops DOUBLE,
  -- bytes_accessed as a double.
  bytes_accessed DOUBLE,
  -- model_flops as a double.
  model_flops DOUBLE,
  -- kernel_details text.
  kernel_details STRING,
  -- hlo_op text.
  hlo_op STRING,
  -- `level 0` text.
  level0 STRING,
  -- device_duration_ps as xp_stat_as_int reads it (TPU: the device clock); NULL when
  -- absent or negative.
  device_ps LONG
) AS
SELECT arg_set_id,
  max(CASE WHEN key = 'debug.hlo_category' AND value_type = 'string' AND string_value != '' THEN string_value END)
    AS hlo_category,
  max(CASE WHEN key = 'debug.flops' THEN _xplane_stat_real(value_type, int_value, real_value) END) AS flops,
  max(CASE WHEN key = 'debug.bytes_accessed' THEN _xplane_stat_real(value_type, int_value, real_value) END)
    AS bytes_accessed,
  max(CASE WHEN key = 'debug.model_flops' THEN _xplane_stat_real(value_type, int_value, real_value) END) AS model_flops,
  max(CASE WHEN key = 'debug.kernel_details' AND value_type = 'string' AND string_value != '' THEN string_value END)
    AS kernel_details,
  max(CASE WHEN key = 'debug.hlo_op' AND value_type = 'string' AND string_value != '' THEN string_value END) AS hlo_op,
  max(CASE WHEN key = 'debug.level 0' AND value_type = 'string' AND string_value != '' THEN string_value END) AS level0,
  max(CASE WHEN key = 'debug.device_duration_ps' AND _xplane_stat_int(value_type, int_value, real_value) >= 0
           THEN _xplane_stat_int(value_type, int_value, real_value) END) AS device_ps
FROM (
  SELECT a.arg_set_id, a.key, a.value_type, a.int_value, a.real_value, a.string_value,
         row_number() OVER (PARTITION BY a.arg_set_id, a.key ORDER BY a.id DESC) AS last
  FROM args a
  JOIN _xplane_op_stat b USING (arg_set_id)
  WHERE a.key IN ('debug.hlo_category', 'debug.flops', 'debug.bytes_accessed', 'debug.model_flops',
                  'debug.kernel_details', 'debug.hlo_op', 'debug.level 0', 'debug.device_duration_ps')
)
WHERE last = 1
GROUP BY arg_set_id;

-- The device ops with what the roofline reads of them.
CREATE PERFETTO TABLE _xplane_roofline_op(
  -- Op number.
  op_id LONG,
  -- Op name.
  name STRING,
  -- Duration in ps.
  dur_ps LONG,
  -- Exclusive time in ps (at least 0).
  self_ps LONG,
  -- hlo_category.
  category STRING,
  -- flops stat.
  flops DOUBLE,
  -- model_flops stat.
  model_flops DOUBLE,
  -- bytes_accessed stat.
  bytes DOUBLE,
  -- device_duration_ps stat (TPU: the device clock), NULL when absent.
  device_ps LONG,
  -- The device's peak FLOP/s when it has both peaks.
  peak_flops DOUBLE,
  -- The device's peak bytes/s when it has both peaks.
  peak_bw DOUBLE
) AS
SELECT b.op_id, b.name, b.dur_ps, b.self_ps, x.hlo_category AS category,
  x.flops,
  x.model_flops,
  x.bytes_accessed AS bytes,
  x.device_ps,
  CASE WHEN d.peak_flops_per_s IS NOT NULL AND d.peak_bw_bytes_per_s IS NOT NULL THEN d.peak_flops_per_s END
    AS peak_flops,
  CASE WHEN d.peak_flops_per_s IS NOT NULL AND d.peak_bw_bytes_per_s IS NOT NULL THEN d.peak_bw_bytes_per_s END
    AS peak_bw
FROM _xplane_op_info b
LEFT JOIN _xplane_xprof_op_arg x USING (arg_set_id)
LEFT JOIN _xplane_device d USING (upid);

-- The roofline table (xplane_hlo_stats of the extension, the same columns
-- but file, run, host): device ops grouped by name (kind `op`) and by their
-- hlo_category (kind `category`) with summed flops, model_flops and
-- bytes_accessed, rates over the TPU device clock's time (else self time), the devices' ridge point, bound-by
-- and utilization of peak. Op rows by (self desc, total desc, name), then
-- category rows likewise.
CREATE PERFETTO TABLE xplane_hlo_stats(
  -- op or category.
  kind STRING,
  -- Op name, or the category.
  name STRING,
  -- Op rows: the most frequent hlo_category (ties: first seen); category rows: itself.
  category STRING,
  -- Invocations.
  count LONG,
  -- Summed duration in ps.
  total_ps LONG,
  -- Summed exclusive time in ps.
  self_ps LONG,
  -- self_ps / the self time of all device ops.
  share_of_device_self DOUBLE,
  -- Summed flops (NULL when no invocation has the stat).
  flops DOUBLE,
  -- Summed model_flops.
  model_flops DOUBLE,
  -- Summed bytes_accessed.
  bytes_accessed DOUBLE,
  -- flops * 1e12 / rate_time_ps (NULL unless every invocation has flops).
  flops_per_s DOUBLE,
  -- bytes * 1e12 / rate_time_ps.
  bytes_per_s DOUBLE,
  -- flops / bytes_accessed.
  flops_per_byte DOUBLE,
  -- The devices' peak FLOP/s / peak bytes/s.
  ridge_flops_per_byte DOUBLE,
  -- Peak FLOP/s (when every invocation's device has both peaks, all equal).
  peak_flops_per_s DOUBLE,
  -- Peak bytes/s.
  peak_bw_bytes_per_s DOUBLE,
  -- compute, memory or unknown.
  bound_by STRING,
  -- flops_per_s / peak FLOP/s.
  flop_utilization DOUBLE,
  -- bytes_per_s / peak bytes/s.
  bw_utilization DOUBLE,
  -- Op id of the first invocation.
  first_op_id LONG,
  -- The rates' time in ps: the summed device_duration_ps when every invocation has one
  -- (TPU, as xprof), else self_ps.
  rate_time_ps LONG,
  -- device or self: which of the two rate_time_ps is.
  rate_clock STRING
) AS
WITH
  base AS (SELECT sum(self_ps) AS device_self FROM _xplane_roofline_op),
  op_cat AS (
    SELECT name, category FROM (
      SELECT name, category, row_number() OVER (PARTITION BY name ORDER BY count(*) DESC, min(op_id)) AS r
      FROM _xplane_roofline_op WHERE category IS NOT NULL GROUP BY name, category)
    WHERE r = 1
  ),
  grp AS (
    SELECT 0 AS korder, 'op' AS kind, o.name, (SELECT c.category FROM op_cat c WHERE c.name = o.name) AS category,
      count(*) AS count, sum(dur_ps) AS total_ps, sum(self_ps) AS self_ps,
      count(flops) AS n_flops, sum(flops) AS flops, count(model_flops) AS n_model_flops,
      sum(model_flops) AS model_flops, count(bytes) AS n_bytes, sum(bytes) AS bytes,
      count(peak_flops) = count(*) AND min(peak_flops) = max(peak_flops) AND min(peak_bw) = max(peak_bw) AS has_peaks,
      max(peak_flops) AS pf, max(peak_bw) AS pb, min(op_id) AS first_op_id,
      count(device_ps) AS n_device, sum(device_ps) AS device_ps
    FROM _xplane_roofline_op o GROUP BY o.name
    UNION ALL
    SELECT 1, 'category', category, category,
      count(*), sum(dur_ps), sum(self_ps),
      count(flops), sum(flops), count(model_flops), sum(model_flops), count(bytes), sum(bytes),
      count(peak_flops) = count(*) AND min(peak_flops) = max(peak_flops) AND min(peak_bw) = max(peak_bw),
      max(peak_flops), max(peak_bw), min(op_id), count(device_ps), sum(device_ps)
    FROM _xplane_roofline_op WHERE category IS NOT NULL GROUP BY category
  ),
  clocked AS (
    SELECT g.*, n_device = count AND count > 0 AS device_clock,
      CASE WHEN n_device = count AND count > 0 THEN device_ps ELSE self_ps END AS rate_ps
    FROM grp g
  ),
  rates AS (
    SELECT g.*,
      n_flops = count AND count > 0 AS flops_full,
      n_bytes = count AND count > 0 AS bytes_full,
      CASE WHEN n_flops = count AND count > 0 AND rate_ps > 0 THEN flops * 1e12 / rate_ps END AS flops_per_s,
      CASE WHEN n_bytes = count AND count > 0 AND rate_ps > 0 THEN bytes * 1e12 / rate_ps END AS bytes_per_s,
      CASE WHEN n_flops = count AND n_bytes = count AND count > 0 AND bytes > 0 THEN flops / bytes END AS intensity,
      CASE WHEN has_peaks THEN pf / pb END AS ridge
    FROM clocked g
  )
SELECT kind, name, category, count, total_ps, self_ps,
  CASE WHEN (SELECT device_self FROM base) > 0 THEN CAST(self_ps AS REAL) / (SELECT device_self FROM base) END
    AS share_of_device_self,
  CASE WHEN n_flops > 0 THEN flops END AS flops,
  CASE WHEN n_model_flops > 0 THEN model_flops END AS model_flops,
  CASE WHEN n_bytes > 0 THEN bytes END AS bytes_accessed,
  flops_per_s, bytes_per_s, intensity AS flops_per_byte, ridge AS ridge_flops_per_byte,
  CASE WHEN has_peaks THEN pf END AS peak_flops_per_s,
  CASE WHEN has_peaks THEN pb END AS peak_bw_bytes_per_s,
  CASE
    WHEN NOT flops_full OR NOT bytes_full OR NOT has_peaks OR (bytes <= 0 AND flops <= 0) THEN 'unknown'
    WHEN bytes <= 0 THEN 'compute'
    WHEN intensity >= ridge THEN 'compute'
    ELSE 'memory'
  END AS bound_by,
  CASE WHEN has_peaks THEN flops_per_s / pf END AS flop_utilization,
  CASE WHEN has_peaks THEN bytes_per_s / pb END AS bw_utilization,
  first_op_id, rate_ps AS rate_time_ps, CASE WHEN device_clock THEN 'device' ELSE 'self' END AS rate_clock
FROM rates
ORDER BY korder, self_ps DESC, total_ps DESC, name;

-- Each distinct kernel_details text parsed as the extension parses it
-- (core/xprof.h): tokens split on blanks and newlines, `key:value` with one
-- colon; regs, static_shared, dynamic_shared, shm / group_mem (shared
-- memory), private_mem (unsigned integers of 1..18 digits), grid and block
-- (three such integers, comma-separated; 1,1,1 when absent), occ_pct (a
-- decimal number); a later valid token of a key wins, invalid ones are
-- skipped. (occ_pct is read with CAST: the C reader's strtod also takes hex
-- floats and a leading tab, which no profiler writes.)
CREATE PERFETTO TABLE _xplane_kernel_details(
  -- The kernel_details text.
  details STRING,
  -- regs.
  regs LONG,
  -- static_shared.
  static_shmem LONG,
  -- dynamic_shared.
  dynamic_shmem LONG,
  -- shm or group_mem.
  shared_mem LONG,
  -- private_mem.
  private_mem LONG,
  -- grid:x,y,z (NULL when absent or invalid).
  grid STRING,
  -- block:x,y,z.
  block STRING,
  -- occ_pct.
  occupancy_pct DOUBLE
) AS
WITH RECURSIVE
  d AS (SELECT DISTINCT kernel_details AS details FROM _xplane_xprof_op_arg WHERE kernel_details IS NOT NULL),
  tok(details, rest, t, k) AS (
    SELECT details, replace(details, char(10), ' ') || ' ', NULL, 0 FROM d
    UNION ALL
    SELECT details, substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1), k + 1
    FROM tok WHERE rest != ''
  ),
  kv AS (
    SELECT details, k, substr(t, 1, instr(t, ':') - 1) AS key, substr(t, instr(t, ':') + 1) AS v
    FROM tok
    WHERE t IS NOT NULL AND instr(t, ':') > 0 AND instr(substr(t, instr(t, ':') + 1), ':') = 0
  ),
  valid AS (
    SELECT details, k, CASE WHEN key = 'group_mem' THEN 'shm' ELSE key END AS key,
      CASE WHEN key IN ('grid', 'block') THEN CAST(a AS INT) || ',' || CAST(b AS INT) || ',' || CAST(c AS INT)
           ELSE v END AS v,
      CASE
        WHEN key IN ('regs', 'static_shared', 'dynamic_shared', 'shm', 'group_mem', 'private_mem')
          THEN v != '' AND length(v) <= 18 AND NOT v GLOB '*[^0-9]*'
        WHEN key IN ('grid', 'block') THEN
          a != '' AND length(a) <= 18 AND NOT a GLOB '*[^0-9]*' AND
          b != '' AND length(b) <= 18 AND NOT b GLOB '*[^0-9]*' AND
          c != '' AND length(c) <= 18 AND NOT c GLOB '*[^0-9]*'
        WHEN key = 'occ_pct' THEN v != '' AND length(v) < 64 AND NOT v GLOB '*[^0-9.eE+-]*' AND v GLOB '*[0-9]*'
        ELSE 0
      END AS ok
    FROM (
      SELECT kv.*,
        CASE WHEN instr(v, ',') > 0 THEN substr(v, 1, instr(v, ',') - 1) END AS a,
        CASE WHEN instr(v, ',') > 0 AND instr(substr(v, instr(v, ',') + 1), ',') > 0
             THEN substr(substr(v, instr(v, ',') + 1), 1, instr(substr(v, instr(v, ',') + 1), ',') - 1) END AS b,
        CASE WHEN instr(v, ',') > 0 AND instr(substr(v, instr(v, ',') + 1), ',') > 0
             THEN substr(substr(v, instr(v, ',') + 1), instr(substr(v, instr(v, ',') + 1), ',') + 1) END AS c
      FROM kv
    )
  ),
  last AS (
    SELECT details, key, v FROM (
      SELECT details, key, v, row_number() OVER (PARTITION BY details, key ORDER BY k DESC) AS r
      FROM valid WHERE ok)
    WHERE r = 1
  )
SELECT d.details,
  (SELECT CAST(v AS INT) FROM last l WHERE l.details = d.details AND l.key = 'regs') AS regs,
  (SELECT CAST(v AS INT) FROM last l WHERE l.details = d.details AND l.key = 'static_shared') AS static_shmem,
  (SELECT CAST(v AS INT) FROM last l WHERE l.details = d.details AND l.key = 'dynamic_shared') AS dynamic_shmem,
  (SELECT CAST(v AS INT) FROM last l WHERE l.details = d.details AND l.key = 'shm') AS shared_mem,
  (SELECT CAST(v AS INT) FROM last l WHERE l.details = d.details AND l.key = 'private_mem') AS private_mem,
  (SELECT v FROM last l WHERE l.details = d.details AND l.key = 'grid') AS grid,
  (SELECT v FROM last l WHERE l.details = d.details AND l.key = 'block') AS block,
  (SELECT CAST(v AS REAL) FROM last l WHERE l.details = d.details AND l.key = 'occ_pct') AS occupancy_pct
FROM d;

-- The i-th (1..3) integer of a valid `x,y,z` text, 1 when the text is NULL.
CREATE PERFETTO FUNCTION _xplane_dim(
  -- The dims text.
  dims STRING,
  -- Which (1, 2 or 3).
  i LONG
)
RETURNS LONG AS
SELECT
  CASE
    WHEN $dims IS NULL THEN 1
    WHEN $i = 1 THEN CAST(substr($dims, 1, instr($dims, ',') - 1) AS INT)
    WHEN $i = 2 THEN CAST(substr(r, 1, instr(r, ',') - 1) AS INT)
    ELSE CAST(substr(r, instr(r, ',') + 1) AS INT)
  END
FROM (SELECT substr($dims, instr($dims, ',') + 1) AS r);

-- Does a kernel's name say it runs on tensor cores (xprof's rule)?
CREATE PERFETTO FUNCTION _xplane_uses_tensor_core(
  -- Kernel name.
  name STRING
)
RETURNS BOOL AS
SELECT
  $name GLOB 'volta_i884*' OR $name GLOB 'volta_h884*' OR $name GLOB 'volta_s884*'
  OR $name GLOB 'volta_fp16_i884*' OR $name GLOB 'volta_fp16_h884*' OR $name GLOB 'volta_fp16_s884*'
  OR $name GLOB 'turing_i1688*' OR $name GLOB 'turing_h1688*' OR $name GLOB 'turing_s1688*'
  OR $name GLOB 'turing_fp16_i1688*' OR $name GLOB 'turing_fp16_h1688*' OR $name GLOB 'turing_fp16_s1688*'
  OR instr($name, 'hmma') > 0 OR instr($name, 'xmma') > 0;

-- Is an op of a kind that can use tensor cores (xprof's rule)?
CREATE PERFETTO FUNCTION _xplane_op_tensor_core_eligible(
  -- Op name (NULL: no).
  op STRING
)
RETURNS BOOL AS
SELECT coalesce(
  $op GLOB '*Conv2D' OR $op GLOB '*Conv2DBackpropFilter' OR $op GLOB '*Conv2DBackpropInput' OR $op GLOB '*Conv3D'
  OR $op GLOB '*DepthwiseConv2dNative' OR $op GLOB '*DepthwiseConv2dNativeBackpropFilter'
  OR $op GLOB '*DepthwiseConv2dNativeBackpropInput' OR $op GLOB '*/MatMul' OR $op GLOB '*FusedMatMul'
  OR $op GLOB '*/CudnnRNN' OR $op GLOB '*XlaDot' OR $op GLOB '*XlaDotV2'
  OR instr($op, 'BatchMatMul') > 0 OR instr($op, 'CudnnRNNV') > 0 OR instr($op, 'CudnnRNNForward') > 0
  OR instr($op, 'CudnnRNNBackprop') > 0, 0);

-- GPU kernels (device ops with a kernel_details stat) by name and launch
-- configuration (xplane_kernel_stats of the extension, the same columns but
-- file, run, host), ordered by (total desc, name, grid, block, registers,
-- shared memory, op name).
CREATE PERFETTO TABLE xplane_kernel_stats(
  -- Kernel name.
  name STRING,
  -- Grid x.
  grid_x LONG,
  -- Grid y.
  grid_y LONG,
  -- Grid z.
  grid_z LONG,
  -- Block x.
  block_x LONG,
  -- Block y.
  block_y LONG,
  -- Block z.
  block_z LONG,
  -- regs.
  registers_per_thread LONG,
  -- static_shared, bytes.
  static_shmem_bytes LONG,
  -- dynamic_shared, bytes.
  dynamic_shmem_bytes LONG,
  -- shm or group_mem, bytes.
  shared_mem_bytes LONG,
  -- private_mem, bytes.
  private_mem_bytes LONG,
  -- occ_pct of the group's first kernel.
  occupancy_pct DOUBLE,
  -- By the kernel's name.
  uses_tensor_core LONG,
  -- By the op's name.
  op_tensor_core_eligible LONG,
  -- The effective tf_op, else hlo_op, else `level 0`.
  op_name STRING,
  -- Launches.
  count LONG,
  -- Summed duration, ps.
  total_ps LONG,
  -- Shortest, ps.
  min_ps LONG,
  -- Longest, ps.
  max_ps LONG,
  -- total_ps / count.
  mean_ps DOUBLE,
  -- Op id of the first launch.
  first_op_id LONG
) AS
WITH k AS (
  SELECT b.op_id, b.name, b.dur_ps, kd.*,
    coalesce(b.tf_op, x.hlo_op, x.level0) AS op_name
  FROM _xplane_op_info b
  JOIN _xplane_xprof_op_arg x USING (arg_set_id)
  JOIN _xplane_kernel_details kd ON kd.details = x.kernel_details
),
g AS (
  SELECT name, grid, block, regs, static_shmem, dynamic_shmem, shared_mem, private_mem,
    occupancy_pct IS NOT NULL AS has_occ, op_name,
    count(*) AS count, sum(dur_ps) AS total_ps, min(dur_ps) AS min_ps, max(dur_ps) AS max_ps,
    min(op_id) AS first_op_id
  FROM k
  GROUP BY name, grid, block, regs, static_shmem, dynamic_shmem, shared_mem, private_mem, has_occ, op_name
)
SELECT g.name,
  _xplane_dim(grid, 1) AS grid_x, _xplane_dim(grid, 2) AS grid_y, _xplane_dim(grid, 3) AS grid_z,
  _xplane_dim(block, 1) AS block_x, _xplane_dim(block, 2) AS block_y, _xplane_dim(block, 3) AS block_z,
  regs AS registers_per_thread, static_shmem AS static_shmem_bytes, dynamic_shmem AS dynamic_shmem_bytes,
  shared_mem AS shared_mem_bytes, private_mem AS private_mem_bytes,
  (SELECT k.occupancy_pct FROM k WHERE k.op_id = g.first_op_id) AS occupancy_pct,
  _xplane_uses_tensor_core(g.name) AS uses_tensor_core,
  _xplane_op_tensor_core_eligible(op_name) AS op_tensor_core_eligible,
  op_name, count, total_ps, min_ps, max_ps, CAST(total_ps AS REAL) / count AS mean_ps, first_op_id
FROM g
ORDER BY total_ps DESC, name, grid_x, grid_y, grid_z, block_x, block_y, block_z,
  coalesce(registers_per_thread, 0), coalesce(static_shmem_bytes, 0), coalesce(dynamic_shmem_bytes, 0),
  coalesce(shared_mem_bytes, 0), coalesce(private_mem_bytes, 0), op_name;
