-- xplane.ops: the device ops, one row per op invocation, with the columns
-- and meanings of the extension's xplane_ops table (sqlite_ext/tables_ops.c),
-- so the same queries run on trace processor and on the extension.
--
--   INCLUDE PERFETTO MODULE xplane.ops;
--   SELECT name, count(*), sum(self_ps) / 1e6 AS self_us
--   FROM xplane_ops GROUP BY name ORDER BY 3 DESC LIMIT 10;
--
-- A device op is an analysis event on a device-op line (`XLA Ops`,
-- `Async XLA Ops`, `Stream #...` of a `/device:` plane). Times are exact
-- picoseconds (from the xplane.start_ps / dur_ps annotations); ts and dur
-- are the slice's nanoseconds. self_ps is the analysis exclusive time
-- (xplane.slices); the pre-op gap is computed per track over its device ops
-- ordered by (start, end, line, event): an op that starts after every op
-- before it has ended is a marker and its gap is start - the latest end;
-- its payload is itself unless it is marker-like, else the first
-- non-marker-like op among the next 8 whose chain of ends stays unbroken.
-- The step column comes from xplane.steps, the text columns (long name,
-- tf_op, region path, shape signature, stats) from xplane.op_base.

INCLUDE PERFETTO MODULE xplane.rules;
INCLUDE PERFETTO MODULE xplane.op_base;
INCLUDE PERFETTO MODULE xplane.steps;

-- Gap markers and their payload op (the marker when none qualifies).
CREATE PERFETTO TABLE _xplane_op_payload(
  -- A gap marker.
  op_id LONG,
  -- Its payload op.
  payload_op_id LONG
) AS
WITH
  -- (MATERIALIZED: SQLite indexes it on (utid, rn) for the lookups below;
  -- a table of trace processor it would scan per lookup)
  base AS MATERIALIZED (
    SELECT op_id, utid, rn, start_ps, end_ps, marker_like FROM _xplane_op_base
  ),
  marker AS MATERIALIZED (
    SELECT op_id, utid, rn, end_ps, marker_like FROM _xplane_op_base
    WHERE prev_max_end IS NOT NULL AND start_ps > prev_max_end
  ),
  candidate AS (
    SELECT
      m.op_id AS marker_id,
      m.end_ps AS marker_end,
      n.rn - m.rn AS k,
      n.op_id,
      n.start_ps,
      n.marker_like,
      max(n.end_ps) OVER (PARTITION BY m.op_id ORDER BY n.rn ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end,
      -- the first candidate that is not marker-like (if any)
      first_value(n.op_id) OVER (PARTITION BY m.op_id ORDER BY n.marker_like, n.rn) AS first_payload_op
    FROM marker m
    CROSS JOIN (VALUES (1), (2), (3), (4), (5), (6), (7), (8)) d
    CROSS JOIN base n ON n.utid = m.utid AND n.rn = m.rn + d.column1
    -- (a marker that is not marker-like is its own payload: no candidates)
    WHERE m.marker_like IS NOT 0
  ),
  firsts AS (
    SELECT
      marker_id,
      min(CASE WHEN start_ps > max(marker_end, coalesce(prev_end, marker_end)) THEN k END) AS first_break,
      min(CASE WHEN NOT marker_like THEN k END) AS first_payload,
      max(first_payload_op) AS first_payload_op
    FROM candidate
    GROUP BY marker_id
  )
SELECT
  m.op_id,
  CASE
    WHEN NOT m.marker_like THEN m.op_id
    WHEN f.first_payload IS NOT NULL AND (f.first_break IS NULL OR f.first_payload < f.first_break)
      THEN f.first_payload_op
    ELSE m.op_id
  END AS payload_op_id
FROM marker m
LEFT JOIN firsts f ON f.marker_id = m.op_id
ORDER BY m.op_id;

-- The device ops, numeric stats as (value_type, int_value, real_value).
CREATE PERFETTO TABLE _xplane_ops(
  -- XPlane index of the device plane.
  plane_index LONG,
  -- Device plane name.
  plane_name STRING,
  -- XLine index of the op.
  line_index LONG,
  -- Raw XLine name.
  line_name STRING,
  -- XEvent index within its line.
  event_index LONG,
  -- Op number: plane, track, line, event order (as the extension).
  op_id LONG,
  -- Op name (display name, else name).
  name STRING,
  -- Canonical name (xplane_canonical_name).
  canonical_name STRING,
  -- The long_name stat, else the metadata name where it differs from name
  -- (TPU: the HLO text).
  long_name STRING,
  -- stall, communication or compute.
  category STRING,
  -- Collective kind of a communication op, else NULL.
  collective_kind STRING,
  -- hlo_category stat.
  hlo_category STRING,
  -- hlo_module stat.
  hlo_module STRING,
  -- program_id stat: its value_type.
  program_id_type STRING,
  -- Its int_value.
  program_id_int LONG,
  -- Its real_value.
  program_id_real DOUBLE,
  -- The name stack: the tf_op stat (one of `XlaModule` defers to the name
  -- stat).
  tf_op STRING,
  -- Region path (xplane_scope_path(tf_op, name)).
  scope_path STRING,
  -- source, source_file or file_name stat.
  source_file STRING,
  -- Shape signature of the long name (xplane_shape_signature).
  shape_signature STRING,
  -- flops stat: its value_type.
  flops_type STRING,
  -- Its int_value.
  flops_int LONG,
  -- Its real_value.
  flops_real DOUBLE,
  -- bytes_accessed stat: its value_type.
  bytes_accessed_type STRING,
  -- Its int_value.
  bytes_accessed_int LONG,
  -- Its real_value.
  bytes_accessed_real DOUBLE,
  -- Exact start in ps.
  start_ps LONG,
  -- Exact duration in ps.
  dur_ps LONG,
  -- Exact end in ps.
  end_ps LONG,
  -- Exclusive time in ps.
  self_ps LONG,
  -- Idle time before this op on its track when it is a gap marker, else 0.
  gap_before_ps LONG,
  -- For a marker: op_id of the op where work resumes.
  gap_payload_op_id LONG,
  -- For a marker: name of that op.
  gap_payload_name STRING,
  -- device_offset_ps stat (TPU device clock).
  device_offset_ps_type STRING,
  -- Its int_value.
  device_offset_ps_int LONG,
  -- Its real_value.
  device_offset_ps_real DOUBLE,
  -- device_duration_ps stat: its value_type.
  device_duration_ps_type STRING,
  -- Its int_value.
  device_duration_ps_int LONG,
  -- Its real_value.
  device_duration_ps_real DOUBLE,
  -- correlation_id stat: its value_type.
  correlation_id_type STRING,
  -- Its int_value.
  correlation_id_int LONG,
  -- Its real_value.
  correlation_id_real DOUBLE,
  -- The step the op belongs to (xplane_steps.step), NULL when none.
  step LONG,
  -- Effective stats as a JSON object.
  stats STRING,
  -- Start in ns.
  ts TIMESTAMP,
  -- Duration in ns.
  dur DURATION,
  -- The op's slice.
  slice_id JOINID(slice.id),
  -- Its thread (XPlane track).
  utid JOINID(thread.id)
) AS
SELECT
  b.plane_index,
  b.plane_name,
  b.line_index,
  b.line_name,
  b.event_index,
  b.op_id,
  b.name,
  i.canonical_name,
  i.long_name,
  i.category,
  CASE WHEN xplane_is_communication(b.name) THEN xplane_collective_kind(b.name) END AS collective_kind,
  st.hlo_category,
  st.hlo_module,
  st.program_id_type,
  st.program_id_int,
  st.program_id_real,
  i.tf_op,
  i.scope_path,
  st.source_file,
  i.shape_signature,
  st.flops_type,
  st.flops_int,
  st.flops_real,
  st.bytes_accessed_type,
  st.bytes_accessed_int,
  st.bytes_accessed_real,
  b.start_ps,
  b.dur_ps,
  b.end_ps,
  b.self_ps,
  CASE WHEN p.op_id IS NOT NULL THEN b.start_ps - b.prev_max_end ELSE 0 END AS gap_before_ps,
  p.payload_op_id AS gap_payload_op_id,
  pb.name AS gap_payload_name,
  st.device_offset_ps_type,
  st.device_offset_ps_int,
  st.device_offset_ps_real,
  st.device_duration_ps_type,
  st.device_duration_ps_int,
  st.device_duration_ps_real,
  st.correlation_id_type,
  st.correlation_id_int,
  st.correlation_id_real,
  os.step,
  j.stats,
  b.ts,
  b.dur,
  b.id AS slice_id,
  b.utid
FROM _xplane_op_base b
JOIN _xplane_op_info i USING (op_id)
LEFT JOIN _xplane_op_payload p USING (op_id)
LEFT JOIN _xplane_op_base pb ON pb.op_id = p.payload_op_id
LEFT JOIN _xplane_op_stat st ON st.arg_set_id = b.arg_set_id
LEFT JOIN _xplane_op_stats_json j ON j.arg_set_id = b.arg_set_id
LEFT JOIN _xplane_op_step os USING (op_id)
ORDER BY b.op_id;

-- The device ops: every column of the extension's xplane_ops, plus ts, dur,
-- slice_id and utid. A view over _xplane_ops, so that the numeric stats keep
-- their own type.
CREATE PERFETTO VIEW xplane_ops(
  -- XPlane index of the device plane.
  plane_index LONG,
  -- Device plane name.
  plane_name STRING,
  -- XLine index of the op.
  line_index LONG,
  -- Raw XLine name.
  line_name STRING,
  -- XEvent index within its line.
  event_index LONG,
  -- Op number: plane, track, line, event order (as the extension).
  op_id LONG,
  -- Op name (display name, else name).
  name STRING,
  -- Canonical name (xplane_canonical_name).
  canonical_name STRING,
  -- The long_name stat, else the metadata name where it differs from name
  -- (TPU: the HLO text).
  long_name STRING,
  -- stall, communication or compute.
  category STRING,
  -- Collective kind of a communication op, else NULL.
  collective_kind STRING,
  -- hlo_category stat.
  hlo_category STRING,
  -- hlo_module stat.
  hlo_module STRING,
  -- program_id stat, in the stat's own type: an integer, a real, or a uint64 over
  -- 2^63 - 1 as decimal text (as in the extension; NULL when absent).
  program_id LONG,
  -- The name stack: the tf_op stat (one of `XlaModule` defers to the name
  -- stat).
  tf_op STRING,
  -- Region path (xplane_scope_path(tf_op, name)).
  scope_path STRING,
  -- source, source_file or file_name stat.
  source_file STRING,
  -- Shape signature of the long name (xplane_shape_signature).
  shape_signature STRING,
  -- flops stat, in the stat's own type: an integer, a real, or a uint64 over
  -- 2^63 - 1 as decimal text (as in the extension; NULL when absent).
  flops DOUBLE,
  -- bytes_accessed stat, in the stat's own type: an integer, a real, or a uint64 over
  -- 2^63 - 1 as decimal text (as in the extension; NULL when absent).
  bytes_accessed DOUBLE,
  -- Exact start in ps.
  start_ps LONG,
  -- Exact duration in ps.
  dur_ps LONG,
  -- Exact end in ps.
  end_ps LONG,
  -- Exclusive time in ps.
  self_ps LONG,
  -- Idle time before this op on its track when it is a gap marker, else 0.
  gap_before_ps LONG,
  -- For a marker: op_id of the op where work resumes.
  gap_payload_op_id LONG,
  -- For a marker: name of that op.
  gap_payload_name STRING,
  -- device_offset_ps stat (TPU device clock).
  device_offset_ps LONG,
  -- device_duration_ps stat, in the stat's own type: an integer, a real, or a uint64 over
  -- 2^63 - 1 as decimal text (as in the extension; NULL when absent).
  device_duration_ps LONG,
  -- correlation_id stat, in the stat's own type: an integer, a real, or a uint64 over
  -- 2^63 - 1 as decimal text (as in the extension; NULL when absent).
  correlation_id LONG,
  -- The step the op belongs to (xplane_steps.step), NULL when none.
  step LONG,
  -- Effective stats as a JSON object.
  stats STRING,
  -- Start in ns.
  ts TIMESTAMP,
  -- Duration in ns.
  dur DURATION,
  -- The op's slice.
  slice_id JOINID(slice.id),
  -- Its thread (XPlane track).
  utid JOINID(thread.id)
) AS
SELECT
  plane_index,
  plane_name,
  line_index,
  line_name,
  event_index,
  op_id,
  name,
  canonical_name,
  long_name,
  category,
  collective_kind,
  hlo_category,
  hlo_module,
  _xplane_num(program_id_type, program_id_int, program_id_real) AS program_id,
  tf_op,
  scope_path,
  source_file,
  shape_signature,
  _xplane_num(flops_type, flops_int, flops_real) AS flops,
  _xplane_num(bytes_accessed_type, bytes_accessed_int, bytes_accessed_real) AS bytes_accessed,
  start_ps,
  dur_ps,
  end_ps,
  self_ps,
  gap_before_ps,
  gap_payload_op_id,
  gap_payload_name,
  _xplane_num(device_offset_ps_type, device_offset_ps_int, device_offset_ps_real) AS device_offset_ps,
  _xplane_num(device_duration_ps_type, device_duration_ps_int, device_duration_ps_real) AS device_duration_ps,
  _xplane_num(correlation_id_type, correlation_id_int, correlation_id_real) AS correlation_id,
  step,
  stats,
  ts,
  dur,
  slice_id,
  utid
FROM _xplane_ops;
