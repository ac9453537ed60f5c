-- xplane.steps: the training steps of every device, with the columns and
-- meanings of the extension's xplane_steps table (sqlite_ext/tables_ops.c,
-- core/steps.c).
--
--   INCLUDE PERFETTO MODULE xplane.steps;
--   SELECT plane_name, step, dur_ps / 1e6 AS us, idle_ps / 1e6 AS idle_us
--   FROM xplane_steps ORDER BY plane_index, step;
--
-- Step markers come from the first source that has any:
--   steps_line       analysis events of `/device:` planes on lines labelled
--                    `Steps` whose name is an integer (xplane_parse_int);
--   host_annotation  analysis events named `train` of `/host:` planes with
--                    an integer step_num (else step) stat; each is a step of
--                    every device plane that has ops (of its own host plane
--                    when there are no ops);
--   module           analysis events of `/device:` planes on lines labelled
--                    `XLA Modules`, numbered 0, 1, ... per device in time
--                    order.
-- An op belongs to the marker that starts last at or before its time
-- (markers ordered by start, plane, duration, number: of two that start
-- together the longer is last) when it has not ended by then:
-- the time is the op's start, for host annotations the start of the host
-- event with the same correlation_id (its launch) when there is one. Device
-- markers are searched on the op's own device, host annotations among all.
-- The breakdown sums the self time of a step's ops (of that device) by op
-- category; idle is the rest of the step.
--
-- Where the extension differs (none of these occurs in the real profiles):
-- several host events with the op's correlation_id: the earliest is the
-- launch here (the extension's pick among them is unspecified); `train`
-- annotations on more than one host plane: here searched in time order
-- (the extension binary-searches them in plane order, which is only
-- ordered within a plane); host events the converter skips (negative
-- duration) cannot be launches here.

INCLUDE PERFETTO MODULE xplane.rules;
INCLUDE PERFETTO MODULE xplane.slices;
INCLUDE PERFETTO MODULE xplane.op_base;

-- The correlation ids of the host slices (the threads of the `/host:*`
-- planes, the plane name being the process name or its part after a merged
-- trace's `[host] `) read as integers (xplane_int_like), each with the
-- slice's exact start: one row per host slice that has one (trace processor
-- keeps one arg per key: the last value). Picked from trace processor's
-- slice table by track, read with extract_arg per slice: trace processor
-- finds a slice's arg without a scan, where filtering the whole args table
-- by key cost more.
CREATE PERFETTO TABLE _xplane_host_correlation(
  -- The correlation id as an integer.
  v LONG,
  -- Exact start of the slice in ps.
  start_ps LONG
) AS
SELECT
  -- (xplane_int_like inline: a function call per slice costs more than the
  -- rest; extract_arg gives a uint as its int_value, as xplane_int_like
  -- reads it)
  CASE typeof(x)
    WHEN 'integer' THEN x
    WHEN 'real' THEN CASE WHEN x > -9.2e18 AND x < 9.2e18 THEN CAST(x AS INT) END
    WHEN 'text' THEN xplane_parse_int(x)
  END AS v,
  start_ps
-- (OFFSET 0: not flattened, so each extract_arg runs once per row; LIMIT
-- 0 where no arg has a correlation id: the statement then reads no slice,
-- where a constant false WHERE term would still have the slice table
-- filter every host slice)
FROM (
  SELECT
    extract_arg(s.arg_set_id, 'debug.correlation_id') AS x,
    coalesce(CASE WHEN (SELECT start_ps FROM _xplane_arg_key) THEN extract_arg(s.arg_set_id, 'debug.xplane_start_ps') END,
             s.ts * 1000) AS start_ps
  FROM slice s
  WHERE s.track_id IN (
      SELECT k.track_id FROM _xplane_event_track k JOIN _xplane_thread_track t USING (track_id)
      WHERE t.process_name GLOB '/host:*'
    )
  LIMIT (SELECT correlation_ids FROM _xplane_arm) OFFSET 0
)
WHERE x IS NOT NULL;

-- Every step marker of every source (0 steps_line, 1 host_annotation,
-- 2 module).
CREATE PERFETTO TABLE _xplane_step_candidate(
  -- 0 steps_line, 1 host_annotation, 2 module.
  source LONG,
  -- Process of the marker.
  upid JOINID(process.id),
  -- Its plane.
  plane_index LONG,
  -- Plane name.
  plane_name STRING,
  -- Step number (NULL for module runs).
  number LONG,
  -- Exact start in ps.
  start_ps LONG,
  -- Exact duration in ps.
  dur_ps LONG
) AS
WITH
  -- (the lines by kind, each by its line_key, as _xplane_op_base filters
  -- its lines: 0 the `Steps` lines and 2 the `XLA Modules` lines of the
  -- device planes; 1 the host planes' lines)
  line AS MATERIALIZED (
    SELECT
      line_key AS k,
      utid,
      plane_name,
      CASE
        WHEN plane_name GLOB '/device:*' AND line_label = 'Steps' THEN 0
        WHEN plane_name GLOB '/host:*' THEN 1
        WHEN plane_name GLOB '/device:*' AND line_label = 'XLA Modules' THEN 2
      END AS kind
    FROM _xplane_event_line
  )
-- (the events on the tracks of the lines' threads first, a filter trace
-- processor runs itself on its slice table; then CROSS JOIN: those events
-- stay the outer loop, each looking its line up, where SQLite would scan
-- the events once per line)
SELECT 0 AS source, e.upid, e.plane_index, l.plane_name, xplane_parse_int(e.name) AS number, e.start_ps, e.dur_ps
FROM (
  SELECT * FROM _xplane_slice_core
  WHERE track_id IN (SELECT track_id FROM _xplane_event_track WHERE utid IN (SELECT utid FROM line WHERE kind = 0))
    AND name != '' AND dur_ps > 0
) e
CROSS JOIN line l ON l.k = e.line_key
WHERE l.kind = 0 AND xplane_parse_int(e.name) IS NOT NULL
UNION ALL
SELECT 1, e.upid, e.plane_index, l.plane_name, n.number, e.start_ps, e.dur_ps
FROM (
  SELECT * FROM _xplane_slice_core
  WHERE track_id IN (SELECT track_id FROM _xplane_event_track WHERE utid IN (SELECT utid FROM line WHERE kind = 1))
    AND name = 'train' AND dur_ps > 0
) e
-- (the step_num, else step, stat as an integer: the args of the few
-- `train` slices)
JOIN (
  SELECT
    a.arg_set_id,
    coalesce(
      max(CASE WHEN a.key = 'debug.step_num' THEN xplane_int_like(a.value_type, a.int_value, a.string_value, a.real_value) END),
      max(CASE WHEN a.key = 'debug.step' THEN xplane_int_like(a.value_type, a.int_value, a.string_value, a.real_value) END)
    ) AS number
  FROM args a
  WHERE a.key IN ('debug.step_num', 'debug.step')
    AND a.arg_set_id IN (SELECT arg_set_id FROM slice WHERE name = 'train')
  GROUP BY a.arg_set_id
) n USING (arg_set_id)
CROSS JOIN line l ON l.k = e.line_key
WHERE l.kind = 1 AND e.name = 'train' AND n.number IS NOT NULL
UNION ALL
SELECT 2, e.upid, e.plane_index, l.plane_name, NULL, e.start_ps, e.dur_ps
FROM (
  SELECT * FROM _xplane_slice_core
  WHERE track_id IN (SELECT track_id FROM _xplane_event_track WHERE utid IN (SELECT utid FROM line WHERE kind = 2))
    AND name != '' AND dur_ps > 0
) e
CROSS JOIN line l ON l.k = e.line_key
WHERE l.kind = 2;

-- The markers of the source used, numbered (mid), with their search key
-- (the device, or -1: host annotations serve every device) and rank r
-- within it in the extension's order (core/steps.c): start, plane,
-- duration, number (a device's markers are of one plane), so of two
-- markers that start together the longer ranks last.
CREATE PERFETTO TABLE _xplane_step_marker(
  -- Marker id.
  mid LONG,
  -- Rank within its key in (start, plane, duration, number) order.
  r LONG,
  -- 0 steps_line, 1 host_annotation, 2 module.
  source LONG,
  -- Process of the marker.
  upid JOINID(process.id),
  -- Its plane.
  plane_index LONG,
  -- Plane name.
  plane_name STRING,
  -- Exact start in ps.
  start_ps LONG,
  -- Exact duration in ps.
  dur_ps LONG,
  -- Step number.
  number LONG,
  -- Search key: the device (upid), or -1 for host annotations.
  k LONG
) AS
WITH chosen AS (
  SELECT
    source, upid, plane_index, plane_name, start_ps, dur_ps,
    CASE WHEN source = 2 THEN row_number() OVER (PARTITION BY upid ORDER BY start_ps, dur_ps) - 1 ELSE number END AS number,
    CASE WHEN source = 1 THEN -1 ELSE upid END AS k
  FROM _xplane_step_candidate
  WHERE source = (SELECT min(source) FROM _xplane_step_candidate)
)
SELECT
  row_number() OVER (ORDER BY k, start_ps, plane_index, dur_ps, number) AS mid,
  row_number() OVER (PARTITION BY k ORDER BY start_ps, plane_index, dur_ps, number) AS r,
  *
FROM chosen
ORDER BY mid;

-- One row per step per device: a device marker, or a host annotation times
-- each device plane that has ops (the annotation itself, on its host plane,
-- when no device has ops).
CREATE PERFETTO TABLE _xplane_step_row(
  -- The marker.
  mid LONG,
  -- Its source.
  source LONG,
  -- The device (process).
  upid JOINID(process.id),
  -- Its plane.
  plane_index LONG,
  -- Plane name.
  plane_name STRING,
  -- Step number.
  number LONG,
  -- Exact start in ps.
  start_ps LONG,
  -- Exact duration in ps.
  dur_ps LONG
) AS
SELECT m.mid, m.source, m.upid, m.plane_index, m.plane_name, m.number, m.start_ps, m.dur_ps
FROM _xplane_step_marker m
WHERE m.source != 1 OR NOT EXISTS (SELECT 1 FROM _xplane_op_base)
UNION ALL
SELECT m.mid, m.source, d.upid, d.plane_index, d.plane_name, m.number, m.start_ps, m.dur_ps
FROM _xplane_step_marker m
CROSS JOIN (
  SELECT DISTINCT l.upid, l.plane_index, l.plane_name
  FROM _xplane_event_line l
  WHERE l.upid IN (SELECT upid FROM _xplane_op_base)
) d
WHERE m.source = 1;

-- The launches: the earliest host event with each correlation id, sorted by
-- the id (trace processor then finds an op's launch by binary search).
CREATE PERFETTO TABLE _xplane_launch(
  -- Correlation id.
  correlation LONG,
  -- Start of the earliest host event with it, in ps.
  t LONG
) AS
SELECT v AS correlation, min(start_ps) AS t
FROM _xplane_host_correlation
WHERE v IS NOT NULL
GROUP BY v
ORDER BY v;

-- Each op with the time and key its step is looked up by: with host
-- annotations (source 1, key -1) its launch's start, else its own start;
-- with device markers its device's key, upid. In op_id order; empty without
-- markers.
CREATE PERFETTO TABLE _xplane_op_time(
  -- An op.
  op_id LONG,
  -- Its device (with device markers, the markers' key it is looked up
  -- under, _xplane_step_marker.k; with host annotations every op's key is
  -- -1).
  upid JOINID(process.id),
  -- The time it is looked up at, in ps.
  t LONG,
  -- Its exclusive time in ps (_xplane_op_base.self_ps).
  self_ps LONG,
  -- Its category (_xplane_op_base.category_code).
  category_code LONG
) AS
SELECT
  b.op_id,
  b.upid,
  CASE
    WHEN m.source = 1
      THEN coalesce((SELECT l.t FROM _xplane_launch l WHERE l.correlation = b.correlation_int), b.start_ps)
    ELSE b.start_ps
  END AS t,
  b.self_ps,
  b.category_code
-- (CROSS JOIN: the marker source, one row, is the outer loop, and the ops
-- are read once, in op_id order; with the ops outer, SQLite read the
-- source again per op, 3.8 times the time)
FROM (SELECT DISTINCT source FROM _xplane_step_marker) m
CROSS JOIN _xplane_op_base b;

-- The same rows sorted by time (by trace processor, whose table finds a
-- time range by binary search).
CREATE PERFETTO TABLE _xplane_op_at(
  -- The time the op is looked up at, in ps.
  t LONG,
  -- The op.
  op_id LONG,
  -- Its device.
  upid JOINID(process.id),
  -- Its exclusive time in ps.
  self_ps LONG,
  -- Its category (_xplane_op_base.category_code).
  category_code LONG
) AS
SELECT t, op_id, upid, self_ps, category_code FROM _xplane_op_time ORDER BY t;

-- The step of each op that has one: its marker (mid) and the marker's step
-- number. An op's marker is the last one of its key (in r order: start,
-- plane, duration, number) that starts at or before its time, and only
-- while that marker lasts: each marker takes the ops of its key whose time
-- is in [its start, the next marker's start) and before its end (an empty
-- range when the next starts with it). (The markers
-- are the outer loop, a few per step; trace processor finds each range of
-- _xplane_op_at by binary search. Written in marker order; an index on
-- op_id finds an op's row, where a copy sorted by op_id cost a table write
-- per op.)
CREATE PERFETTO TABLE _xplane_op_step(
  -- An op.
  op_id LONG,
  -- Its marker (_xplane_step_marker.mid, which holds the step number).
  mid LONG,
  -- Its device.
  upid JOINID(process.id),
  -- Its exclusive time in ps (what xplane_steps sums per step and device:
  -- carried here, the steps read no other table per op).
  self_ps LONG,
  -- Its category (_xplane_op_base.category_code).
  category_code LONG
) AS
WITH
  -- (a MATERIALIZED copy: SQLite indexes it on (k, r) for the next marker)
  marker AS MATERIALIZED (SELECT k, r, mid, number, start_ps, dur_ps FROM _xplane_step_marker),
  span AS MATERIALIZED (
    SELECT
      m.k, m.mid, m.number, m.start_ps AS lo,
      CASE WHEN n.start_ps IS NULL THEN m.start_ps + m.dur_ps ELSE min(n.start_ps, m.start_ps + m.dur_ps) END AS hi
    FROM marker m
    LEFT JOIN marker n ON n.k = m.k AND n.r = m.r + 1
  )
-- (two arms: with host annotations (key -1) a marker takes the ops of
-- every device, with device markers those of its device; one applies, the
-- other's markers fail their key test before any op is read)
SELECT o.op_id, s.mid, o.upid, o.self_ps, o.category_code
FROM span s
CROSS JOIN _xplane_op_at o
WHERE s.k = -1 AND o.t >= s.lo AND o.t < s.hi
UNION ALL
SELECT o.op_id, s.mid, o.upid, o.self_ps, o.category_code
FROM span s
CROSS JOIN _xplane_op_at o
WHERE s.k != -1 AND o.upid = s.k AND o.t >= s.lo AND o.t < s.hi;

-- (xplane_ops looks an op's step up by op_id)
CREATE PERFETTO INDEX _xplane_op_step_op ON _xplane_op_step(op_id);

-- The steps.
CREATE PERFETTO TABLE xplane_steps(
  -- XPlane index of the device plane.
  plane_index LONG,
  -- Device plane name.
  plane_name STRING,
  -- Step number.
  step LONG,
  -- steps_line, host_annotation or module.
  source STRING,
  -- Exact start of the marker in ps.
  start_ps LONG,
  -- Its duration in ps.
  dur_ps LONG,
  -- Its end in ps.
  end_ps LONG,
  -- Device ops assigned to the step on this device.
  n_ops LONG,
  -- Their self time, compute ops.
  compute_ps LONG,
  -- Their self time, communication ops.
  communication_ps LONG,
  -- Their self time, stall ops.
  stall_ps LONG,
  -- dur_ps minus the three, at least 0.
  idle_ps LONG
) AS
WITH credit AS (
  SELECT
    os.mid,
    os.upid,
    count(*) AS n_ops,
    sum(CASE WHEN os.category_code = 0 THEN os.self_ps ELSE 0 END) AS compute_ps,
    sum(CASE WHEN os.category_code = 1 THEN os.self_ps ELSE 0 END) AS communication_ps,
    sum(CASE WHEN os.category_code = 2 THEN os.self_ps ELSE 0 END) AS stall_ps
  -- (the steps' ops alone: each carries its exclusive time and category)
  FROM _xplane_op_step os
  GROUP BY os.mid, os.upid
)
SELECT
  r.plane_index,
  r.plane_name,
  r.number AS step,
  CASE r.source WHEN 0 THEN 'steps_line' WHEN 1 THEN 'host_annotation' ELSE 'module' END AS source,
  r.start_ps,
  r.dur_ps,
  r.start_ps + r.dur_ps AS end_ps,
  coalesce(c.n_ops, 0) AS n_ops,
  coalesce(c.compute_ps, 0) AS compute_ps,
  coalesce(c.communication_ps, 0) AS communication_ps,
  coalesce(c.stall_ps, 0) AS stall_ps,
  max(0, r.dur_ps - coalesce(c.compute_ps, 0) - coalesce(c.communication_ps, 0) - coalesce(c.stall_ps, 0))
    AS idle_ps
FROM _xplane_step_row r
LEFT JOIN credit c ON c.mid = r.mid AND c.upid = r.upid
-- (the extension's order: host annotations by start, host plane, duration
-- and number (their mid's order), each then by device; device markers by
-- plane, start, duration and number)
ORDER BY
  CASE WHEN r.source = 1 THEN 0 ELSE r.plane_index END, r.start_ps, CASE WHEN r.source = 1 THEN r.mid END,
  r.dur_ps, r.number, r.plane_index;
