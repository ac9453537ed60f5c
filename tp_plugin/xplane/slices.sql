-- xplane.slices: the slices xplane2perfetto wrote, with their XPlane
-- identity and exact times.
--
--   INCLUDE PERFETTO MODULE xplane.slices;
--   SELECT plane_name, line_name, name, start_ps, dur_ps FROM xplane_slice LIMIT 10;
--
-- The converter (tp_plugin/pf_model.h) maps plane -> process, the lines of
-- a plane sharing an id -> thread, the XLine name -> slice category, and
-- annotates every slice with xplane.plane_index / line_index / event_index
-- (its XEvent) and xplane.start_ps / dur_ps (exact picoseconds: ts and dur
-- are floor(ps / 1000) of both ends). Partially overlapping events of one
-- thread sit on child tracks ("<thread> (overlap k)") so nesting stays
-- strict; an event whose analysis parent is on another track carries it as
-- xplane.parent_line_index / parent_event_index. The first slice of each
-- XLine carries the line's id and display name (xplane.line_id,
-- xplane.line_display_name: nothing else in the trace holds them). Slices
-- of other sources (without these annotations) are left out.

-- The xplane.* annotations of every converted slice, one row per arg set
-- (read with extract_arg per slice: an arg set has one arg per key, and
-- trace processor finds them by arg set; a pivot of the args table by key
-- costs twice as much there).
CREATE PERFETTO TABLE _xplane_slice_args(
  -- Arg set of the slice.
  arg_set_id ARGSETID,
  -- XPlane index of the event's plane.
  plane_index LONG,
  -- XLine index of the event within its plane.
  line_index LONG,
  -- XEvent index within its line.
  event_index LONG,
  -- Exact start in picoseconds.
  start_ps LONG,
  -- Exact duration in picoseconds.
  dur_ps LONG,
  -- Line of the analysis parent when it is not the slice's parent_id.
  parent_line_index LONG,
  -- Event index of that parent.
  parent_event_index LONG,
  -- XLine id (on the first slice of each line, else NULL).
  line_id LONG,
  -- XLine display name (on the first slice of each line, else NULL).
  line_display_name STRING
) AS
WITH
  -- The keys on a few slices only (a cross-track parent; the first slice of
  -- each line) from the args of those keys: looking them up in every slice's
  -- arg set cost more.
  rare AS MATERIALIZED (
    SELECT
      arg_set_id,
      max(CASE WHEN key = 'debug.xplane_parent_line_index' THEN int_value END) AS parent_line_index,
      max(CASE WHEN key = 'debug.xplane_parent_event_index' THEN int_value END) AS parent_event_index,
      max(CASE WHEN key = 'debug.xplane_line_id' THEN int_value END) AS line_id,
      max(CASE WHEN key = 'debug.xplane_line_display_name' THEN string_value END) AS line_display_name
    FROM args
    WHERE key IN ('debug.xplane_parent_line_index', 'debug.xplane_parent_event_index', 'debug.xplane_line_id',
                  'debug.xplane_line_display_name')
    GROUP BY arg_set_id
  )
SELECT
  f.arg_set_id, f.plane_index, f.line_index, f.event_index, f.start_ps, f.dur_ps,
  r.parent_line_index, r.parent_event_index, r.line_id, r.line_display_name
FROM (
  SELECT
    arg_set_id,
    extract_arg(arg_set_id, 'debug.xplane_plane_index') AS plane_index,
    extract_arg(arg_set_id, 'debug.xplane_line_index') AS line_index,
    extract_arg(arg_set_id, 'debug.xplane_event_index') AS event_index,
    extract_arg(arg_set_id, 'debug.xplane_start_ps') AS start_ps,
    extract_arg(arg_set_id, 'debug.xplane_dur_ps') AS dur_ps
  FROM (SELECT DISTINCT arg_set_id FROM slice WHERE arg_set_id IS NOT NULL)
  -- (LIMIT -1 OFFSET 0: not flattened, so each extract_arg runs once per row)
  LIMIT -1 OFFSET 0
) f
LEFT JOIN rare r USING (arg_set_id)
-- (the converter writes these five on every slice it converts)
WHERE coalesce(f.plane_index, f.line_index, f.event_index, f.start_ps, f.dur_ps) IS NOT NULL
ORDER BY f.arg_set_id;

-- The XLines that have slices, one row per line.
CREATE PERFETTO TABLE _xplane_line(
  -- Process: the line's plane.
  upid JOINID(process.id),
  -- XLine index within its plane.
  line_index LONG,
  -- XLine id.
  line_id LONG,
  -- Raw XLine name.
  line_name STRING,
  -- XLine display name ('' when unset).
  line_display_name STRING,
  -- The line's label: display name, else name, else `xline:<index>`.
  line_label STRING
) AS
SELECT
  t.upid,
  a.line_index,
  a.line_id,
  s.category AS line_name,
  a.line_display_name,
  coalesce(nullif(a.line_display_name, ''), nullif(s.category, ''), 'xline:' || a.line_index) AS line_label
FROM _xplane_slice_args a
JOIN slice s USING (arg_set_id)
JOIN thread_track tt ON tt.id = s.track_id
JOIN thread t USING (utid)
WHERE a.line_id IS NOT NULL;

-- Every slice converted from an XPlane event (instants included).
CREATE PERFETTO TABLE xplane_slice(
  -- Slice id.
  id ID(slice.id),
  -- Start in ns (floor of start_ps / 1000).
  ts TIMESTAMP,
  -- Duration in ns (end and start each floored to ns).
  dur DURATION,
  -- Track of the slice (the thread's track or one of its overlap tracks).
  track_id JOINID(track.id),
  -- Thread: one XPlane track (the lines of a plane sharing an id).
  utid JOINID(thread.id),
  -- Process: one XPlane plane.
  upid JOINID(process.id),
  -- Thread id (orders the tracks as the extension does).
  tid LONG,
  -- XPlane index of the plane.
  plane_index LONG,
  -- Plane name: the process name without a merged trace's `[host] `
  -- prefix; '' for an unnamed plane (its process is `xplane:<index>`).
  plane_name STRING,
  -- XLine index of the event.
  line_index LONG,
  -- Raw XLine name (the slice category).
  line_name STRING,
  -- Thread name: display name, else name, of the track's first line.
  thread_name STRING,
  -- The line's own label: display name, else name, else `xline:<index>`
  -- (the thread name in traces written without xplane.line_* annotations).
  line_label STRING,
  -- XEvent index within its line.
  event_index LONG,
  -- Event name (display name, else name); NULL for an unknown metadata id.
  name STRING,
  -- Exact start in picoseconds.
  start_ps LONG,
  -- Exact duration in picoseconds.
  dur_ps LONG,
  -- Exact end in picoseconds.
  end_ps LONG,
  -- Nesting depth on its track.
  depth LONG,
  -- Enclosing slice on its track.
  parent_id JOINID(slice.id),
  -- Line of the analysis parent when it is not parent_id (else NULL).
  parent_line_index LONG,
  -- Event index of that parent.
  parent_event_index LONG,
  -- Args of the slice (every effective XStat as debug.<name>).
  arg_set_id ARGSETID
) AS
-- (a MATERIALIZED copy of _xplane_line: SQLite indexes it for the lookup per
-- slice, where it would scan the table of trace processor)
WITH line AS MATERIALIZED (SELECT upid, line_index, line_label FROM _xplane_line)
SELECT
  s.id,
  s.ts,
  s.dur,
  s.track_id,
  tt.utid,
  t.upid,
  t.tid,
  a.plane_index,
  CASE
    WHEN pn = 'xplane:' || a.plane_index THEN ''
    ELSE pn
  END AS plane_name,
  a.line_index,
  s.category AS line_name,
  t.name AS thread_name,
  coalesce(l.line_label, t.name) AS line_label,
  a.event_index,
  s.name,
  a.start_ps,
  a.dur_ps,
  a.start_ps + a.dur_ps AS end_ps,
  s.depth,
  s.parent_id,
  a.parent_line_index,
  a.parent_event_index,
  s.arg_set_id
FROM slice s
JOIN _xplane_slice_args a USING (arg_set_id)
JOIN thread_track tt ON tt.id = s.track_id
JOIN thread t USING (utid)
JOIN (
  SELECT upid, CASE WHEN name GLOB '[[]*] *' THEN substr(name, instr(name, '] ') + 2) ELSE name END AS pn
  FROM process
) p USING (upid)
LEFT JOIN line l ON l.upid = t.upid AND l.line_index = a.line_index
ORDER BY s.id;

-- The analysis events (docs/ANALYSIS.md): a start, a duration > 0
-- and a non-empty name, with their analysis parent and exclusive time.
CREATE PERFETTO TABLE xplane_analysis_event(
  -- Slice id.
  id ID(slice.id),
  -- Thread (XPlane track).
  utid JOINID(thread.id),
  -- Thread id (track order).
  tid LONG,
  -- Process (XPlane plane).
  upid JOINID(process.id),
  -- XPlane index of the plane.
  plane_index LONG,
  -- Plane name.
  plane_name STRING,
  -- XLine index.
  line_index LONG,
  -- Raw XLine name.
  line_name STRING,
  -- Thread name.
  thread_name STRING,
  -- The line's own label.
  line_label STRING,
  -- XEvent index within its line.
  event_index LONG,
  -- Event name.
  name STRING,
  -- Exact start in picoseconds.
  start_ps LONG,
  -- Exact duration in picoseconds.
  dur_ps LONG,
  -- Exact end in picoseconds.
  end_ps LONG,
  -- The analysis parent: the annotated one, else parent_id.
  analysis_parent_id JOINID(slice.id),
  -- Exclusive time: duration minus the durations of the events whose
  -- analysis parent this is, at least 0.
  self_ps LONG,
  -- Start in ns.
  ts TIMESTAMP,
  -- Duration in ns.
  dur DURATION,
  -- Args of the slice.
  arg_set_id ARGSETID
) AS
WITH
  -- (MATERIALIZED: SQLite then indexes the CTEs for the joins below, which it
  -- cannot do on the tables of trace processor)
  ev AS MATERIALIZED (
    SELECT id, utid, line_index, event_index, parent_id, parent_line_index, parent_event_index, dur_ps
    FROM xplane_slice WHERE name IS NOT NULL AND name != '' AND dur_ps > 0
  ),
  -- The few events whose analysis parent is on another track, and the
  -- events that could be such a parent (an event index one of them names):
  -- the join below then indexes these, not every event.
  annotated AS MATERIALIZED (
    SELECT id, utid, parent_line_index, parent_event_index FROM ev WHERE parent_event_index IS NOT NULL
  ),
  named AS MATERIALIZED (
    SELECT id, utid, line_index, event_index FROM ev
    WHERE event_index IN (SELECT parent_event_index FROM annotated)
  ),
  cross_parent AS MATERIALIZED (
    SELECT a.id, p.id AS parent
    FROM annotated a
    JOIN named p ON p.utid = a.utid AND p.line_index = a.parent_line_index AND p.event_index = a.parent_event_index
  ),
  parented AS MATERIALIZED (
    SELECT
      e.id,
      e.dur_ps,
      -- (CAST: a typed column, so SQLite can index the join on it)
      CAST(CASE WHEN e.parent_event_index IS NULL THEN e.parent_id ELSE c.parent END AS INT) AS analysis_parent_id
    FROM ev e
    LEFT JOIN cross_parent c ON e.parent_event_index IS NOT NULL AND c.id = e.id
  ),
  children AS (
    SELECT analysis_parent_id AS id, sum(dur_ps) AS children_ps
    FROM parented
    WHERE analysis_parent_id IS NOT NULL
    GROUP BY analysis_parent_id
  )
SELECT
  e.id,
  e.utid,
  e.tid,
  e.upid,
  e.plane_index,
  e.plane_name,
  e.line_index,
  e.line_name,
  e.thread_name,
  e.line_label,
  e.event_index,
  e.name,
  e.start_ps,
  e.dur_ps,
  e.end_ps,
  pa.analysis_parent_id,
  max(0, e.dur_ps - coalesce(c.children_ps, 0)) AS self_ps,
  e.ts,
  e.dur,
  e.arg_set_id
FROM xplane_slice e
JOIN parented pa USING (id)
LEFT JOIN children c USING (id)
ORDER BY e.id;

-- The converted events with the columns of the extension's xplane_events
-- that a trace holds (the canned summary's global breakdown reads them):
-- one row per slice of an XPlane event (instants included; events the
-- converter skipped, without a start or with a negative duration, are not
-- in the trace).
CREATE PERFETTO VIEW xplane_events(
  -- XPlane index of the plane.
  plane_index LONG,
  -- Plane name.
  plane_name STRING,
  -- XLine index.
  line_index LONG,
  -- XLine id (NULL for a line whose first slice is not in the trace).
  line_id LONG,
  -- Raw XLine name.
  line_name STRING,
  -- XLine display name ('' when unset).
  line_display_name STRING,
  -- XEvent index within its line.
  event_index LONG,
  -- The event metadata's name (the slice name, or the name a display name
  -- hides: xplane.metadata_name).
  name STRING,
  -- The display name when it hides a different name, else '' (as the
  -- extension's '' for no display name; a display name equal to the name
  -- is not in the trace, so it reads '' here where the extension repeats
  -- the name).
  display_name STRING,
  -- Exact start in picoseconds.
  start_ps LONG,
  -- Exact end in picoseconds.
  end_ps LONG,
  -- Exact duration in picoseconds (0: an instant).
  dur_ps LONG,
  -- Exclusive time of an analysis event (xplane_analysis_event), else NULL.
  self_ps LONG
) AS
SELECT
  s.plane_index,
  s.plane_name,
  s.line_index,
  l.line_id,
  s.line_name,
  l.line_display_name,
  s.event_index,
  coalesce(m.display_name_of, s.name) AS name,
  CASE WHEN m.display_name_of IS NOT NULL THEN s.name ELSE '' END AS display_name,
  s.start_ps,
  s.end_ps,
  s.dur_ps,
  e.self_ps
FROM xplane_slice s
LEFT JOIN (
  SELECT arg_set_id, string_value AS display_name_of
  FROM args
  WHERE key = 'debug.xplane_metadata_name'
) m USING (arg_set_id)
LEFT JOIN _xplane_line l ON l.upid = s.upid AND l.line_index = s.line_index
LEFT JOIN xplane_analysis_event e USING (id);
