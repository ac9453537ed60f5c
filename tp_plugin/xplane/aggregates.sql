-- xplane.aggregates: the small tables the canned reports read, with the
-- columns and meanings of the extension's xplane_tracks, xplane_op_names
-- and xplane_hints (sqlite_ext/tables_summary.c, sqlite_ext/aggregates.c,
-- schema/TABLES.md), so a report's SQL runs on both engines.
--
--   INCLUDE PERFETTO MODULE xplane.aggregates;
--   SELECT category, sum(self_ps) FROM xplane_tracks
--   WHERE coalesce(nullif(line_display_name, ''), nullif(line_name, ''), 'xline:' || line_index) <> 'Steps'
--   GROUP BY category;
--   SELECT * FROM xplane_op_names ORDER BY self_ps DESC LIMIT 25;
--   SELECT value, count FROM xplane_hints WHERE kind = 'run_id';

INCLUDE PERFETTO MODULE xplane.rules;
INCLUDE PERFETTO MODULE xplane.semantics;
INCLUDE PERFETTO MODULE xplane.slices;
INCLUDE PERFETTO MODULE xplane.line_sums;
INCLUDE PERFETTO MODULE xplane.op_base;
INCLUDE PERFETTO MODULE xplane.ops;

-- One row per line and event category that has analysis events.
CREATE PERFETTO TABLE xplane_tracks(
  -- XPlane index of the plane.
  plane_index LONG,
  -- Plane name.
  plane_name STRING,
  -- XLine index.
  line_index LONG,
  -- XLine id (NULL in traces written without xplane.line_* annotations).
  line_id LONG,
  -- Raw XLine name.
  line_name STRING,
  -- XLine display name.
  line_display_name STRING,
  -- The events' category (xplane_event_category: compute, communication,
  -- host, stall, other).
  category STRING,
  -- Number of analysis events.
  n_events LONG,
  -- Their summed duration in ps.
  dur_ps LONG,
  -- Their summed exclusive time in ps.
  self_ps LONG,
  -- The first start in ps.
  first_start_ps LONG,
  -- The last end in ps.
  last_end_ps LONG
) AS
WITH
  -- The events summed per line and name first (_xplane_line_name_sum): the
  -- joins below then run once per line and name, not per event.
  per_name AS MATERIALIZED (
    SELECT upid, line_index, plane_index, plane_name, line_name, name, n_events, dur_ps, self_ps,
      first_start_ps, last_end_ps
    FROM _xplane_line_name_sum
  ),
  -- (the category once per distinct plane and name: a function call costs
  -- more than the rest of the row)
  cat AS MATERIALIZED (
    SELECT plane_name, name, xplane_event_category(plane_name, name) AS category
    FROM (SELECT DISTINCT plane_name, name FROM per_name)
  ),
  -- (a MATERIALIZED copy: SQLite indexes it on (upid, line_index) for the
  -- lookup per row, where it would scan the table of trace processor)
  line AS MATERIALIZED (SELECT upid, line_index, line_id, line_display_name FROM _xplane_line)
SELECT
  e.plane_index,
  e.plane_name,
  e.line_index,
  l.line_id,
  e.line_name,
  coalesce(l.line_display_name, '') AS line_display_name,
  c.category,
  sum(e.n_events) AS n_events,
  sum(e.dur_ps) AS dur_ps,
  sum(e.self_ps) AS self_ps,
  min(e.first_start_ps) AS first_start_ps,
  max(e.last_end_ps) AS last_end_ps
FROM per_name e
JOIN cat c ON c.plane_name IS e.plane_name AND c.name = e.name
JOIN process p USING (upid)
LEFT JOIN line l ON l.upid = e.upid AND l.line_index = e.line_index
GROUP BY e.upid, e.line_index, c.category
ORDER BY p.pid, e.line_index,
  CASE category WHEN 'compute' THEN 0 WHEN 'communication' THEN 1 WHEN 'host' THEN 2 WHEN 'stall' THEN 3 ELSE 4 END;

-- The hint stats' args (run_id, source, source_file, file_name: few
-- events carry them, none in many profiles), one row per arg.
CREATE PERFETTO TABLE _xplane_hint_arg(
  -- Arg set.
  arg_set_id ARGSETID,
  -- The key.
  key STRING,
  -- int_value.
  int_value LONG,
  -- string_value.
  string_value STRING,
  -- real_value.
  real_value DOUBLE,
  -- value_type.
  value_type STRING
) AS
SELECT a.arg_set_id, a.key, a.int_value, a.string_value, a.real_value, a.value_type
FROM args a
WHERE a.key IN ('debug.run_id', 'debug.source', 'debug.source_file', 'debug.file_name');

-- The analysis events that carry a hint arg (none in many profiles), with
-- their order keys (process id, line, event): picked from the slice table
-- by arg set, each found in _xplane_analysis_slice by id. (Every analysis
-- event in (process id, line, event) order, for its position, cost 48 of
-- 420 ms of the TPU profile's summary; xplane_hints counts the events
-- before a value's first one instead.)
CREATE PERFETTO TABLE _xplane_hint_event(
  -- Arg set of the event.
  arg_set_id ARGSETID,
  -- Thread (XPlane track).
  utid JOINID(thread.id),
  -- Process (XPlane plane).
  upid JOINID(process.id),
  -- Its process id.
  pid LONG,
  -- XLine index.
  line_index LONG,
  -- XEvent index.
  event_index LONG
) AS
SELECT e.arg_set_id, e.utid, e.upid, p.pid, e.line_index, e.event_index
-- (CROSS JOIN: the slices with a hint arg set are the outer loop, each
-- found in the view by id)
FROM (
  SELECT id FROM slice WHERE arg_set_id IN (SELECT arg_set_id FROM _xplane_hint_arg)
) h
CROSS JOIN _xplane_analysis_slice e ON e.id = h.id
JOIN process p USING (upid);

-- How often each run_id and source-file value occurs over the analysis
-- events (in plane, line, event order), and the order of first appearance.
CREATE PERFETTO TABLE xplane_hints(
  -- run_id (the stat: non-empty text, or an integer, a real truncated, as
  -- its digits) or source_file (source, source_file or file_name stat).
  kind STRING,
  -- The value.
  value STRING,
  -- Analysis events carrying it.
  count LONG,
  -- Position of the first of them among the analysis events (from 1).
  first_seen LONG
) AS
WITH
  per_event AS (
    SELECT
      arg_set_id,
      max(CASE WHEN key = 'debug.run_id' THEN
        CASE value_type
          WHEN 'string' THEN nullif(string_value, '')
          WHEN 'int' THEN CAST(int_value AS TEXT)
          WHEN 'uint' THEN CAST(xplane_uint64(int_value) AS TEXT)
          WHEN 'real' THEN
            CASE WHEN real_value > -9.2e18 AND real_value < 9.2e18 THEN CAST(CAST(real_value AS INT) AS TEXT) END
        END
      END) AS run_id,
      coalesce(
        max(CASE WHEN key = 'debug.source' AND value_type = 'string' AND string_value != '' THEN string_value END),
        max(CASE WHEN key = 'debug.source_file' AND value_type = 'string' AND string_value != '' THEN string_value END),
        max(CASE WHEN key = 'debug.file_name' AND value_type = 'string' AND string_value != '' THEN string_value END)
      ) AS source_file
    FROM _xplane_hint_arg
    GROUP BY arg_set_id
  ),
  -- (joined to the events once: each join of per_event groups it anew)
  ev AS MATERIALIZED (
    SELECT h.utid, h.upid, h.pid, h.line_index, h.event_index, p.run_id, p.source_file
    FROM _xplane_hint_event h
    JOIN per_event p USING (arg_set_id)
  ),
  hint AS (
    SELECT 0 AS k, 'run_id' AS kind, run_id AS value, utid, upid, pid, line_index, event_index
    FROM ev WHERE run_id IS NOT NULL
    UNION ALL
    SELECT 1, 'source_file', source_file, utid, upid, pid, line_index, event_index
    FROM ev WHERE source_file IS NOT NULL
  ),
  -- (each value's count and first event in (process id, line, event) order)
  first AS MATERIALIZED (
    SELECT k, kind, value, count, utid, upid, line_index, event_index
    FROM (
      SELECT
        k, kind, value, utid, upid, line_index, event_index,
        count(*) OVER (PARTITION BY k, value) AS count,
        row_number() OVER (PARTITION BY k, value ORDER BY pid, line_index, event_index) AS rn
      FROM hint
    )
    WHERE rn = 1
  ),
  -- (the analysis events of the lines before each line: its lines' sums,
  -- _xplane_line_name_agg, in (process id, line) order)
  line_before AS MATERIALIZED (
    SELECT
      upid, line_index,
      coalesce(sum(n) OVER (ORDER BY pid, line_index ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
        AS before
    FROM (
      SELECT a.upid, p.pid, a.line_index, sum(a.n_events) AS n
      FROM _xplane_line_name_agg a
      JOIN process p USING (upid)
      GROUP BY a.upid, a.line_index
    )
  ),
  -- (the analysis events of the first events' lines, from their threads'
  -- tracks only)
  line_event AS (
    SELECT c.upid, c.line_index, c.event_index
    FROM _xplane_analysis_slice c
    WHERE c.track_id IN (SELECT track_id FROM _xplane_event_track WHERE utid IN (SELECT utid FROM first))
      AND EXISTS (SELECT 1 FROM first f WHERE f.upid = c.upid AND f.line_index IS c.line_index)
  ),
  -- (each first event's events before it on its line: a running count over
  -- the line's events and the first events, a first event ahead of the
  -- event it is)
  within AS (
    SELECT k, value, n_before
    FROM (
      SELECT
        k, value, is_first,
        sum(1 - is_first) OVER (
          PARTITION BY upid, line_index ORDER BY event_index, is_first DESC ROWS UNBOUNDED PRECEDING
        ) AS n_before
      FROM (
        SELECT NULL AS k, NULL AS value, 0 AS is_first, upid, line_index, event_index FROM line_event
        UNION ALL
        SELECT k, value, 1, upid, line_index, event_index FROM first
      )
    )
    WHERE is_first
  )
SELECT f.kind, f.value, f.count, b.before + w.n_before + 1 AS first_seen
FROM first f
JOIN within w USING (k, value)
JOIN line_before b ON b.upid = f.upid AND b.line_index IS f.line_index
ORDER BY first_seen, f.k;

-- The device ops counted per name and combination of shape signature,
-- source file and tf_op (few combinations: xplane_op_names and
-- _xplane_op_name_value group these, where grouping the ops for each sorted
-- all of them again).
CREATE PERFETTO TABLE _xplane_op_combo(
  -- Op name.
  name STRING,
  -- Canonical name (of the name).
  canonical_name STRING,
  -- Category (of the name).
  category STRING,
  -- Shape signature.
  shape_signature STRING,
  -- Source file.
  source_file STRING,
  -- Effective tf_op.
  tf_op STRING,
  -- Invocations.
  n LONG,
  -- Their summed duration in ps.
  total_ps LONG,
  -- Their summed exclusive time in ps (each at least 0: _xplane_analysis_core).
  self_ps LONG,
  -- op_id of the first of them.
  first LONG
) AS
-- (the ops' groups by (tf_op, name) pair, long name and source file,
-- _xplane_op_group; then the shape and the pair's names looked up per
-- group, and the groups of one shape summed)
WITH
  combo AS (
    SELECT
      c.skey, sh.shape_signature, c.source_file,
      sum(c.n) AS n, sum(c.total_ps) AS total_ps, sum(c.self_ps) AS self_ps, min(c.first) AS first
    FROM _xplane_op_group c
    LEFT JOIN _xplane_op_shape sh USING (long_name)
    GROUP BY c.skey, sh.shape_signature, c.source_file
  )
SELECT
  s.name, s.canonical_name, s.category, c.shape_signature, c.source_file, nullif(s.tf, '') AS tf_op,
  c.n, c.total_ps, c.self_ps, c.first
FROM combo c
JOIN _xplane_op_scope s USING (skey);

-- Per device-op name, each value of its shape signature (kind 0), source
-- file (1) and tf_op (2): how many invocations have it and the first of
-- them (xplane_op_names takes the most frequent, xplane_op_tf_ops lists
-- the tf_ops).
CREATE PERFETTO TABLE _xplane_op_name_value(
  -- Op name.
  name STRING,
  -- 0 shape signature, 1 source file, 2 tf_op.
  kind LONG,
  -- The value (not NULL).
  value STRING,
  -- Invocations with it.
  n LONG,
  -- op_id of the first of them.
  first LONG
) AS
WITH
  val AS (
    SELECT name, 0 AS kind, shape_signature AS value, n, first FROM _xplane_op_combo WHERE shape_signature IS NOT NULL
    UNION ALL
    SELECT name, 1, source_file, n, first FROM _xplane_op_combo WHERE source_file IS NOT NULL
    UNION ALL
    SELECT name, 2, tf_op, n, first FROM _xplane_op_combo WHERE tf_op IS NOT NULL
  )
SELECT name, kind, value, sum(n) AS n, min(first) AS first
FROM val
GROUP BY name, kind, value;

-- One row per device-op name.
CREATE PERFETTO TABLE xplane_op_names(
  -- Op name.
  name STRING,
  -- Canonical name.
  canonical_name STRING,
  -- stall, communication or compute.
  category STRING,
  -- Invocations.
  count LONG,
  -- Summed duration in ps.
  total_ps LONG,
  -- Summed exclusive time in ps.
  self_ps LONG,
  -- The most frequent non-empty shape signature (ties: first seen), NULL if
  -- none.
  shape_signature STRING,
  -- The most frequent source file (same rule).
  source_file STRING,
  -- The most frequent tf_op (same rule).
  tf_op STRING,
  -- Sum over the invocations with a signature of xplane_flop_proxy(family
  -- of the canonical name, signature); NULL when none has one.
  flop_proxy_sum DOUBLE,
  -- Those invocations.
  flop_proxy_count LONG,
  -- op_id of the first invocation.
  first_op_id LONG
) AS
WITH
  grp AS (
    SELECT name, min(canonical_name) AS canonical_name, min(category) AS category, sum(n) AS count,
           sum(total_ps) AS total_ps, sum(self_ps) AS self_ps, min(first) AS first_op_id
    FROM _xplane_op_combo
    GROUP BY name
  ),
  counted AS MATERIALIZED (SELECT name, kind, value, n, first FROM _xplane_op_name_value),
  mode AS (
    SELECT name, kind, value
    FROM (SELECT *, row_number() OVER (PARTITION BY name, kind ORDER BY n DESC, first) AS rn FROM counted)
    WHERE rn = 1
  ),
  proxy AS (
    SELECT c.name, c.n, xplane_flop_proxy(xplane_semantic_family(g.canonical_name), c.value) AS v
    FROM counted c
    JOIN grp g USING (name)
    WHERE c.kind = 0
  ),
  flops AS (
    SELECT name, sum(v * n) AS flop_proxy_sum, sum(n) AS flop_proxy_count
    FROM proxy
    WHERE v > 0
    GROUP BY name
  )
SELECT
  g.name,
  g.canonical_name,
  g.category,
  g.count,
  g.total_ps,
  g.self_ps,
  (SELECT value FROM mode m WHERE m.name = g.name AND m.kind = 0) AS shape_signature,
  (SELECT value FROM mode m WHERE m.name = g.name AND m.kind = 1) AS source_file,
  (SELECT value FROM mode m WHERE m.name = g.name AND m.kind = 2) AS tf_op,
  f.flop_proxy_sum,
  coalesce(f.flop_proxy_count, 0) AS flop_proxy_count,
  g.first_op_id
FROM grp g
LEFT JOIN flops f USING (name)
ORDER BY g.first_op_id;

-- How often each device-op name runs with each non-empty tf_op (the
-- preferred region of a gap payload), in order of first occurrence.
CREATE PERFETTO TABLE xplane_op_tf_ops(
  -- Op name.
  name STRING,
  -- The op's tf_op (xplane_ops.tf_op).
  tf_op STRING,
  -- Invocations with that tf_op.
  count LONG,
  -- op_id of the first of them.
  first_op_id LONG
) AS
SELECT name, value AS tf_op, n AS count, first AS first_op_id
FROM _xplane_op_name_value
WHERE kind = 2 AND value != ''
ORDER BY first_op_id;

-- Pre-op gaps grouped by (payload name, marker name, payload tf_op), in
-- order of their first marker: the gap sections of the summary. The gaps
-- are grouped first by their marker's and payload's (tf_op, name) pairs,
-- integers that _xplane_op_base and _xplane_op_payload carry (the markers
-- that are their own payload and the marker-like ones; trace processor
-- sorts them for the grouping; names grouped per gap cost twice as much),
-- then those few groups by name.
CREATE PERFETTO TABLE xplane_gaps(
  -- The payload op's name (xplane_ops.gap_payload_op_id).
  payload_name STRING,
  -- The gap marker's name (the op after the idle period).
  marker_name STRING,
  -- The payload's tf_op, NULL when empty.
  payload_tf_op STRING,
  -- Gaps in the group.
  count LONG,
  -- Their summed length in ps.
  total_ps LONG,
  -- The longest, in ps.
  max_ps LONG,
  -- op_id of the first marker.
  first_marker_id LONG
) AS
WITH
  pair AS MATERIALIZED (
    -- (the markers that are not marker-like, their own payload, grouped by
    -- their pair; an equality on the flag, which trace processor filters
    -- itself; a marker starts after every op before it on its track has
    -- ended: prev_max_end is NULL for a track's first op, so that is none)
    SELECT skey AS payload_skey, skey AS marker_skey, count(*) AS n, sum(start_ps - prev_max_end) AS total_ps,
           max(start_ps - prev_max_end) AS max_ps, min(op_id) AS first
    FROM _xplane_op_base
    WHERE marker_like = 0 AND start_ps > prev_max_end
    GROUP BY skey
    UNION ALL
    -- (the marker-like ones, with the payload the lookahead found)
    SELECT payload_skey, marker_skey, count(*) AS n, sum(gap_ps) AS total_ps, max(gap_ps) AS max_ps, min(op_id) AS first
    FROM _xplane_op_payload
    GROUP BY payload_skey, marker_skey
  )
SELECT
  p.name AS payload_name,
  m.name AS marker_name,
  nullif(p.tf, '') AS payload_tf_op,
  sum(g.n) AS count,
  sum(g.total_ps) AS total_ps,
  max(g.max_ps) AS max_ps,
  min(g.first) AS first_marker_id
FROM pair g
-- (_xplane_op_scope is sorted by skey: a binary search per group)
JOIN _xplane_op_scope p ON p.skey = g.payload_skey
JOIN _xplane_op_scope m ON m.skey = g.marker_skey
GROUP BY p.name, m.name, nullif(p.tf, '')
ORDER BY first_marker_id;
