-- xplane.xprof: the xprof-style tables of the extension that a converted
-- trace can hold, with the extension's columns and meanings
-- (schema/TABLES.md). Today: xplane_op_regions (the summary's
-- device_op_region_aggregates), xplane_hlo_op_paths (always empty here), and
-- xplane_memory / xplane_memory_peaks. Not here: xplane_devices, xplane_hlo_stats
-- and xplane_kernel_stats (the converter does not carry plane stats, so the
-- device peaks are not in the trace; kernel stats would need a PerfettoSQL
-- kernel_details parser).
--
--   INCLUDE PERFETTO MODULE xplane.xprof;
--   SELECT region_path, name, count, self_ps FROM xplane_op_regions ORDER BY self_ps DESC LIMIT 10;
--
-- Region windows are the analysis events that are not device ops and whose
-- region path (xplane_scope_path of their effective tf_op and name) is not
-- the fallback (one part equal to the canonical name). A device op belongs
-- to the window open at its midpoint (start + dur/2; windows are closed
-- intervals) with the greatest depth, then the shortest duration, then the
-- greatest path; ops outside every window are not counted. Times are
-- doubled so midpoints stay integers.

INCLUDE PERFETTO MODULE xplane.rules;
INCLUDE PERFETTO MODULE xplane.semantics;
INCLUDE PERFETTO MODULE xplane.slices;
INCLUDE PERFETTO MODULE xplane.op_base;

-- The analysis events that are not device ops (the candidate windows).
CREATE PERFETTO TABLE _xplane_window_event(
  -- Arg set of the event.
  arg_set_id ARGSETID,
  -- Event name.
  name STRING,
  -- Exact start in ps.
  start_ps LONG,
  -- Exact end in ps.
  end_ps LONG,
  -- Exact duration in ps.
  dur_ps LONG
) AS
WITH
  -- (the line rule once per distinct line, not per event)
  other_line AS MATERIALIZED (
    SELECT plane_name, line_name
    FROM (SELECT DISTINCT plane_name, line_name FROM xplane_analysis_event)
    WHERE NOT xplane_is_device_op_line(plane_name, line_name)
  )
SELECT e.arg_set_id, e.name, e.start_ps, e.end_ps, e.dur_ps
FROM xplane_analysis_event e
JOIN other_line l ON l.plane_name IS e.plane_name AND l.line_name IS e.line_name
ORDER BY e.arg_set_id;

-- The effective tf_op of each analysis event that is not a device op.
CREATE PERFETTO TABLE _xplane_window_tf(
  -- Arg set of the event.
  arg_set_id LONG,
  -- Its effective tf_op (NULL for none).
  tf_op STRING
) AS
SELECT
  arg_set_id,
  xplane_effective_tf_op(
    max(CASE WHEN key = 'debug.tf_op' AND value_type = 'string' AND string_value != '' THEN string_value END),
    max(CASE WHEN key = 'debug.name' AND value_type = 'string' AND string_value != '' THEN string_value END)
  ) AS tf_op
-- (one arg per key in an arg set: trace processor keeps the last value)
FROM args
WHERE key IN ('debug.tf_op', 'debug.name')
  AND arg_set_id IN (SELECT arg_set_id FROM _xplane_window_event)
GROUP BY arg_set_id
ORDER BY arg_set_id;

-- The region path of each distinct (tf_op, name) of those events, as
-- `<parts>:<path>` (_xplane_scope).
CREATE PERFETTO TABLE _xplane_window_scope(
  -- The effective tf_op ('' for none).
  tf STRING,
  -- The event name.
  name STRING,
  -- _xplane_scope of the two.
  s STRING,
  -- xplane_canonical_name(name).
  canonical_name STRING
) AS
SELECT tf, name, _xplane_scope(nullif(tf, ''), name) AS s, xplane_canonical_name(name) AS canonical_name
FROM (
  SELECT DISTINCT coalesce(t.tf_op, '') AS tf, e.name
  FROM _xplane_window_event e
  LEFT JOIN _xplane_window_tf t USING (arg_set_id)
);

-- The region windows.
CREATE PERFETTO TABLE _xplane_region_window(
  -- Start, doubled (ps * 2).
  start2 LONG,
  -- End, doubled.
  end2 LONG,
  -- Duration in ps.
  dur_ps LONG,
  -- The region path.
  path STRING,
  -- Its number of parts.
  depth LONG
) AS
WITH
  -- (a MATERIALIZED copy: SQLite indexes it for the lookup below)
  scope AS MATERIALIZED (SELECT tf, name, s, canonical_name FROM _xplane_window_scope)
SELECT start2, end2, dur_ps, path, depth
FROM (
  SELECT
    e.start_ps * 2 AS start2,
    e.end_ps * 2 AS end2,
    e.dur_ps,
    substr(sc.s, instr(sc.s, ':') + 1) AS path,
    CAST(substr(sc.s, 1, instr(sc.s, ':') - 1) AS INT) AS depth,
    sc.canonical_name
  FROM _xplane_window_event e
  LEFT JOIN _xplane_window_tf t USING (arg_set_id)
  JOIN scope sc ON sc.tf = coalesce(t.tf_op, '') AND sc.name = e.name
)
WHERE NOT (depth = 1 AND path = canonical_name);

-- The windows by time bucket: the doubled time line from the first window
-- start cut into about as many buckets as there are windows, each window
-- listed in every bucket it touches, so an op meets only the windows of its
-- midpoint's bucket (an equality join) instead of all of them.
CREATE PERFETTO TABLE _xplane_window_bucket(
  -- Bucket number.
  bucket LONG,
  -- Window start, doubled.
  start2 LONG,
  -- Window end, doubled.
  end2 LONG,
  -- Window duration in ps.
  dur_ps LONG,
  -- Window path.
  path STRING,
  -- Its number of parts.
  depth LONG
) AS
WITH RECURSIVE
  grid(t0, width) AS (
    SELECT min(start2), max(1, (max(end2) - min(start2)) / count(*) + 1) FROM _xplane_region_window
  ),
  spread(bucket, last, start2, end2, dur_ps, path, depth) AS (
    SELECT (w.start2 - g.t0) / g.width, (w.end2 - g.t0) / g.width, w.start2, w.end2, w.dur_ps, w.path, w.depth
    FROM _xplane_region_window w, grid g
    UNION ALL
    SELECT bucket + 1, last, start2, end2, dur_ps, path, depth FROM spread WHERE bucket < last
  )
SELECT bucket, start2, end2, dur_ps, path, depth FROM spread ORDER BY bucket;

-- Each device op with the best window open at its midpoint, in sweep order
-- (midpoint, then op id).
CREATE PERFETTO TABLE _xplane_op_window(
  -- The op.
  op_id LONG,
  -- Its position in the sweep, from 1.
  seq LONG,
  -- The window's path.
  path STRING,
  -- The window's number of parts.
  depth LONG
) AS
WITH
  grid(t0, width) AS (
    SELECT min(start2), max(1, (max(end2) - min(start2)) / count(*) + 1) FROM _xplane_region_window
  ),
  op(op_id, mid2, bucket) AS (
    SELECT o.op_id, o.start_ps * 2 + o.dur_ps, (o.start_ps * 2 + o.dur_ps - g.t0) / g.width
    FROM _xplane_op_base o, grid g
    WHERE o.start_ps * 2 + o.dur_ps >= g.t0
  ),
  ranked AS (
    SELECT op.op_id, op.mid2, w.path, w.depth,
           row_number() OVER (PARTITION BY op.op_id ORDER BY w.depth DESC, w.dur_ps ASC, w.path DESC) AS r
    FROM op
    JOIN _xplane_window_bucket w ON w.bucket = op.bucket
    WHERE w.start2 <= op.mid2 AND w.end2 >= op.mid2
  )
SELECT op_id, row_number() OVER (ORDER BY mid2, op_id) AS seq, path, depth
FROM ranked
WHERE r = 1;

-- Device ops by the region window they ran under and their name.
CREATE PERFETTO TABLE xplane_op_regions(
  -- The window's region path (parts joined with `=>`).
  region_path STRING,
  -- Its number of parts.
  depth LONG,
  -- Op name.
  name STRING,
  -- xplane_canonical_name(name).
  canonical_name STRING,
  -- xplane_op_category(name).
  category STRING,
  -- Ops counted.
  count LONG,
  -- Their summed duration in ps.
  total_ps LONG,
  -- Their summed exclusive time in ps.
  self_ps LONG,
  -- The most frequent non-empty shape signature (ties: first counted).
  shape_signature STRING,
  -- Op id of the first op counted.
  first_op_id LONG
) AS
WITH
  -- (MATERIALIZED: each is read several times, and SQLite indexes a
  -- materialized CTE for the lookups below; trace processor's tables it cannot)
  counted AS MATERIALIZED (
    SELECT w.path, w.depth, w.seq, b.op_id, b.name, b.dur_ps, b.self_ps, i.shape_signature
    FROM _xplane_op_window w
    JOIN _xplane_op_base b USING (op_id)
    JOIN _xplane_op_info i USING (op_id)
  ),
  shapes AS MATERIALIZED (
    SELECT path, name, shape_signature,
           row_number() OVER (PARTITION BY path, name ORDER BY count(*) DESC, min(seq)) AS r
    FROM counted
    WHERE coalesce(shape_signature, '') != ''
    GROUP BY path, name, shape_signature
  ),
  firsts AS MATERIALIZED (
    SELECT path, name, op_id AS first_op_id, depth
    FROM (SELECT path, name, op_id, depth, row_number() OVER (PARTITION BY path, name ORDER BY seq) AS r
          FROM counted)
    WHERE r = 1
  )
SELECT
  c.path AS region_path,
  (SELECT f.depth FROM firsts f WHERE f.path = c.path AND f.name = c.name) AS depth,
  c.name,
  xplane_canonical_name(c.name) AS canonical_name,
  xplane_op_category(c.name) AS category,
  count(*) AS count,
  sum(c.dur_ps) AS total_ps,
  sum(max(0, c.self_ps)) AS self_ps,
  (SELECT s.shape_signature FROM shapes s WHERE s.path = c.path AND s.name = c.name AND s.r = 1) AS shape_signature,
  (SELECT f.first_op_id FROM firsts f WHERE f.path = c.path AND f.name = c.name) AS first_op_id
FROM counted c
GROUP BY c.path, c.name
ORDER BY self_ps DESC, total_ps DESC, region_path, name;

-- The extension's HLO-proto rewrite map (device-op name -> the path the
-- HloProto files beside the profile give it). A trace holds no HLO proto file,
-- so in trace processor it has no rows: the summary prints the profile's own
-- paths, as the reference does for a profile without HLO protos beside it.
CREATE PERFETTO TABLE xplane_hlo_op_paths(
  -- Device-op name.
  name STRING,
  -- Its kernel lookup name (gemm_fusion_dot_N, gemm_fusion_dot_general_N).
  kernel STRING,
  -- The jit(train_step)/...dot_general path.
  tf_op_path STRING,
  -- Votes for that path.
  votes LONG
) AS
SELECT NULL AS name, NULL AS kernel, NULL AS tf_op_path, NULL AS votes WHERE 0;

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
  (SELECT count(*) FROM _xplane_op_base o WHERE o.start_ps <= pk.peak_time_ps AND pk.peak_time_ps < o.end_ps)
    AS n_ops_at_peak,
  '[' || coalesce((SELECT group_concat(xplane_json_string(name), ',') FROM (
      SELECT o.name, min(o.op_id) AS first_op FROM _xplane_op_base o
      WHERE o.start_ps <= pk.peak_time_ps AND pk.peak_time_ps < o.end_ps
      GROUP BY o.name ORDER BY first_op LIMIT 10)), '') || ']' AS ops_at_peak
FROM pk
ORDER BY pk.first_seen;
