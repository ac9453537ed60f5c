-- xplane.slices: the slices xplane2perfetto wrote, with their XPlane
-- identity and exact times.
--
--   INCLUDE PERFETTO MODULE xplane.slices;
--   SELECT plane_name, line_name, name, start_ps, dur_ps FROM xplane_slice LIMIT 10;
--
-- The converter (tp_plugin/pf_model.h) maps plane -> process, the lines of
-- a plane sharing an id -> thread, the XLine name -> slice category, and
-- annotates every slice with xplane.event_index (its XEvent within its line)
-- and, where the slice's whole ns do not give them, xplane.start_ps /
-- dur_ps (exact picoseconds: ts and dur are floor(ps / 1000) of both ends).
-- The plane index is the process's (its `xplane.plane` record); the line
-- index is on the first slice of each XLine, with the line's id and display
-- name (xplane.line_index, xplane.line_id, xplane.line_display_name: nothing
-- else in the trace holds them), so a slice's line is the one of its thread
-- and category; the slices of lines that share their thread and name carry
-- xplane.line_index each (as every slice of an older converter's trace
-- does). Partially overlapping events of one thread sit on child tracks
-- ("<thread> (overlap k)") so nesting stays strict; an event whose analysis
-- parent is on another track carries it as xplane.parent_line_index /
-- parent_event_index. The converted slices are those on the thread tracks
-- of the converter's threads (a thread with an XLine: its first slice
-- carries xplane.line_index); slices of other sources, on other threads,
-- are left out, as are the source and plane records (no thread).
--
-- No table here holds a row per slice: the tables that need every event
-- (the line sums, the children's durations) group trace processor's slice
-- table directly, and the ones that need some (the ops, the step markers,
-- the region windows) pick them from it by track and category and derive
-- their columns then. The views (_xplane_slice_core and the public ones)
-- derive each row when read.

-- The xplane.* annotations that few slices carry (a cross-track parent; the
-- first slice of each line), one row per arg set that has one, from the
-- args of those keys (looking them up in every slice's arg set costs more).
CREATE PERFETTO TABLE _xplane_slice_rare(
  -- Arg set of the slice.
  arg_set_id ARGSETID,
  -- Line of the analysis parent when it is not the slice's parent_id.
  parent_line_index LONG,
  -- Event index of that parent.
  parent_event_index LONG,
  -- XLine id (on the first slice of each line, else NULL).
  line_id LONG,
  -- XLine display name (on the first slice of each line, else NULL).
  line_display_name STRING
) AS
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
ORDER BY arg_set_id;

-- The thread tracks with their thread and process, one row per track.
CREATE PERFETTO TABLE _xplane_thread_track(
  -- Track id.
  track_id JOINID(track.id),
  -- Thread of the track.
  utid JOINID(thread.id),
  -- Process of the thread.
  upid JOINID(process.id),
  -- Thread id.
  tid LONG,
  -- Thread name.
  thread_name STRING,
  -- Process name without a merged trace's `[host] ` prefix.
  process_name STRING,
  -- XPlane index of the process's plane (from its plane record; NULL in a
  -- trace without plane records).
  plane_index LONG,
  -- Whether the slices of the process may carry a tf_op or name stat
  -- (debug.tf_op, debug.name): false where its plane record says that the
  -- plane's stat metadata names neither (xplane.plane.tf_op_or_name_stat
  -- = 0), true where it says otherwise or says nothing (a trace of an older
  -- converter, a thread without a plane record).
  tf_op_or_name BOOL
) AS
WITH
  -- The plane records (one `xplane.plane` instant per plane): each
  -- process's plane index and tf_op_or_name flag, by the pid the record
  -- names.
  plane AS MATERIALIZED (
    SELECT
      extract_arg(arg_set_id, 'debug.xplane_plane_pid') AS pid,
      extract_arg(arg_set_id, 'debug.xplane_plane_plane_index') AS plane_index,
      extract_arg(arg_set_id, 'debug.xplane_plane_tf_op_or_name_stat') AS tf_op_or_name
    FROM slice
    WHERE name = 'xplane.plane' AND category = 'xplane'
  )
SELECT
  tt.id AS track_id,
  tt.utid,
  t.upid,
  t.tid,
  t.name AS thread_name,
  CASE WHEN p.name GLOB '[[]*] *' THEN substr(p.name, instr(p.name, '] ') + 2) ELSE p.name END AS process_name,
  (SELECT pl.plane_index FROM plane pl WHERE pl.pid = p.pid) AS plane_index,
  coalesce((SELECT pl.tf_op_or_name != 0 FROM plane pl WHERE pl.pid = p.pid), 1) AS tf_op_or_name
FROM thread_track tt
JOIN thread t USING (utid)
JOIN process p USING (upid)
ORDER BY tt.id;

-- The XLines that have slices, one row per line.
CREATE PERFETTO TABLE _xplane_line(
  -- Process: the line's plane.
  upid JOINID(process.id),
  -- Thread: the line's XPlane track.
  utid JOINID(thread.id),
  -- XLine index within its plane.
  line_index LONG,
  -- XLine id.
  line_id LONG,
  -- Raw XLine name.
  line_name STRING,
  -- XLine display name ('' when unset).
  line_display_name STRING,
  -- The line's label: display name, else name, else `xline:<index>`.
  line_label STRING,
  -- Whether another line of its thread has the same name (the converter
  -- then writes xplane.line_index on each of their slices).
  shared BOOL
) AS
WITH
  -- (MATERIALIZED copies: SQLite indexes them for the lookup per slice,
  -- where it would scan a table of trace processor)
  firsts AS MATERIALIZED (
    SELECT arg_set_id, line_id, line_display_name FROM _xplane_slice_rare WHERE line_id IS NOT NULL
  ),
  trk AS MATERIALIZED (SELECT track_id, utid, upid FROM _xplane_thread_track)
SELECT
  k.upid,
  k.utid,
  x.line_index,
  x.line_id,
  x.category AS line_name,
  x.line_display_name,
  coalesce(nullif(x.line_display_name, ''), nullif(x.category, ''), 'xline:' || x.line_index) AS line_label,
  count(*) OVER (PARTITION BY k.utid, x.category) > 1 AS shared
-- (CROSS JOIN: one scan of the slices, each probing the few first slices;
-- SQLite would otherwise scan the slices once per track)
FROM (
  SELECT s.track_id, s.category, f.line_id, f.line_display_name,
         extract_arg(s.arg_set_id, 'debug.xplane_line_index') AS line_index
  FROM slice s
  CROSS JOIN firsts f USING (arg_set_id)
  LIMIT -1 OFFSET 0
) x
CROSS JOIN trk k USING (track_id);

-- Which of the keys that the package reads with extract_arg once per slice
-- or per op occur in the trace at all: one row, a column per key, 1 when
-- some arg has it, else 0. From one scan of the args for those keys; a
-- key that no arg has is then not looked up per row (extract_arg would
-- give NULL for every row). The generated profiles have neither exact-ps
-- annotation nor six of the eight op stats; gpu_mw has five of the ten.
-- line_index says whether a slice's line must be read from the slice: the
-- converter writes xplane.line_index on the first slice of each line, and
-- on every slice of the lines that share their thread and name (an older
-- converter on every slice), so that is the case when more slices carry it
-- than there are lines.
CREATE PERFETTO TABLE _xplane_arg_key(
  -- debug.xplane_start_ps (exact start where the slice's ns do not give it).
  start_ps BOOL,
  -- debug.xplane_dur_ps (exact duration, likewise).
  dur_ps BOOL,
  -- debug.source.
  source BOOL,
  -- debug.source_file.
  source_file BOOL,
  -- debug.file_name.
  file_name BOOL,
  -- debug.tf_op.
  tf_op BOOL,
  -- debug.name.
  name BOOL,
  -- debug.long_name.
  long_name BOOL,
  -- debug.xplane_metadata_name.
  metadata_name BOOL,
  -- debug.correlation_id.
  correlation_id BOOL,
  -- debug.xplane_line_index on a slice that is not the first of its line.
  line_index BOOL
) AS
SELECT
  coalesce(max(key = 'debug.xplane_start_ps'), 0) AS start_ps,
  coalesce(max(key = 'debug.xplane_dur_ps'), 0) AS dur_ps,
  coalesce(max(key = 'debug.source'), 0) AS source,
  coalesce(max(key = 'debug.source_file'), 0) AS source_file,
  coalesce(max(key = 'debug.file_name'), 0) AS file_name,
  coalesce(max(key = 'debug.tf_op'), 0) AS tf_op,
  coalesce(max(key = 'debug.name'), 0) AS name,
  coalesce(max(key = 'debug.long_name'), 0) AS long_name,
  coalesce(max(key = 'debug.xplane_metadata_name'), 0) AS metadata_name,
  coalesce(max(key = 'debug.correlation_id'), 0) AS correlation_id,
  (SELECT count(*) FROM args WHERE key = 'debug.xplane_line_index') > (SELECT count(*) FROM _xplane_line)
    AS line_index
FROM (
  SELECT DISTINCT key FROM args
  WHERE key IN ('debug.xplane_start_ps', 'debug.xplane_dur_ps', 'debug.source', 'debug.source_file',
                'debug.file_name', 'debug.tf_op', 'debug.name', 'debug.long_name',
                'debug.xplane_metadata_name', 'debug.correlation_id')
);

-- The thread tracks of the converter's threads (a thread with an XLine),
-- in track id order (a lookup by track is a binary search): the slices on
-- these are the converted ones.
CREATE PERFETTO TABLE _xplane_event_track(
  -- Track id.
  track_id JOINID(track.id),
  -- Thread: one XPlane track (the lines of a plane sharing an id).
  utid JOINID(thread.id),
  -- Thread id (the converter's track ordinal).
  tid LONG,
  -- Process: one XPlane plane.
  upid JOINID(process.id),
  -- XPlane index of the plane (NULL in a trace without plane records).
  plane_index LONG,
  -- Whether its slices may carry a tf_op or name stat
  -- (_xplane_thread_track.tf_op_or_name).
  tf_op_or_name BOOL
) AS
SELECT track_id, utid, tid, upid, plane_index, tf_op_or_name
FROM _xplane_thread_track
WHERE utid IN (SELECT utid FROM _xplane_line)
ORDER BY track_id;

-- The line of a slice by its track and category: one row per track and
-- line whose name no other line of its thread has (a slice of a line that
-- shares its name carries xplane.line_index), in track id order.
CREATE PERFETTO TABLE _xplane_track_line(
  -- Track id (the thread's track or one of its overlap tracks).
  track_id JOINID(track.id),
  -- The line's raw name, the slice category ('' for none).
  category STRING,
  -- XLine index.
  line_index LONG,
  -- The line as one integer, upid << 32 | line_index (as
  -- _xplane_slice_core.line_key).
  line_key LONG
) AS
SELECT
  k.track_id,
  coalesce(l.line_name, '') AS category,
  l.line_index,
  CASE WHEN l.line_index BETWEEN 0 AND 4294967295 THEN (l.upid << 32) | l.line_index END AS line_key
FROM _xplane_event_track k
JOIN _xplane_line l USING (utid)
WHERE NOT l.shared
ORDER BY k.track_id;

-- The row limits that switch the arms of a statement on or off for this
-- trace, from _xplane_arg_key and _xplane_track_line: -1 (no limit) where
-- the arm applies, 0 where it does not. A statement whose LIMIT is 0 ends
-- before it asks the slice table for a row; a constant false WHERE term
-- does not stop it: SQLite tests a term that holds a subquery row by row,
-- after trace processor has filtered (and for a GROUP BY sorted) the
-- slices (at 100 MB, 0.5 s for an arm that gives no row).
CREATE PERFETTO TABLE _xplane_arm(
  -- No exact-time annotation: every exact time is the slice's ns times
  -- 1000, so the arm reads the slice table's own columns.
  ns_times LONG,
  -- Exact-time annotations: the arm reads them (_xplane_exact_time).
  exact_times LONG,
  -- ns_times, every slice's line given by its track and category, and
  -- some track with lines of several names.
  ns_lines LONG,
  -- ns_times, and every slice's line given by its track alone: no track
  -- has lines of two names (the generated profiles), so the events are
  -- grouped by track and name, the category the track's (a string key
  -- fewer in the sort: at 100 MB 0.92 -> 0.69-0.82 s of the line sums).
  ns_track_lines LONG,
  -- exact_times, and every slice's line given by its track and category.
  exact_lines LONG,
  -- Lines that share their thread and name: the slices' own line index.
  shared_lines LONG,
  -- Some arg holds a correlation id: the host slices' ids are read.
  correlation_ids LONG
) AS
SELECT
  CASE WHEN start_ps OR dur_ps THEN 0 ELSE -1 END AS ns_times,
  CASE WHEN start_ps OR dur_ps THEN -1 ELSE 0 END AS exact_times,
  CASE WHEN start_ps OR dur_ps OR line_index OR one_line THEN 0 ELSE -1 END AS ns_lines,
  CASE WHEN start_ps OR dur_ps OR line_index OR NOT one_line THEN 0 ELSE -1 END AS ns_track_lines,
  CASE WHEN NOT line_index AND (start_ps OR dur_ps) THEN -1 ELSE 0 END AS exact_lines,
  CASE WHEN line_index THEN -1 ELSE 0 END AS shared_lines,
  CASE WHEN correlation_id THEN -1 ELSE 0 END AS correlation_ids
FROM _xplane_arg_key
CROSS JOIN (
  SELECT (SELECT count(*) FROM _xplane_track_line) = (SELECT count(DISTINCT track_id) FROM _xplane_track_line)
    AS one_line
);

-- The exact times that a slice's ns do not give: one row per arg set with
-- an xplane.start_ps or xplane.dur_ps annotation, in arg set order (a
-- slice's row is a binary search), from one scan of the args of those two
-- keys; none, without reading an arg, in a trace without them
-- (_xplane_arm). _xplane_analysis_exact looks each slice up here: one
-- lookup per slice where extract_arg ran once per key and reference (at
-- every aggregate that reads the time: on the TPU profile the line sums
-- 29 -> 20 ms).
CREATE PERFETTO TABLE _xplane_exact_time(
  -- Arg set of the slice.
  arg_set_id ARGSETID,
  -- Exact start in ps (NULL: ts * 1000).
  start_ps LONG,
  -- Exact duration in ps (NULL: dur * 1000).
  dur_ps LONG
) AS
SELECT * FROM (
  SELECT
    arg_set_id,
    max(CASE WHEN key = 'debug.xplane_start_ps' THEN int_value END) AS start_ps,
    max(CASE WHEN key = 'debug.xplane_dur_ps' THEN int_value END) AS dur_ps
  FROM args
  WHERE key IN ('debug.xplane_start_ps', 'debug.xplane_dur_ps')
  GROUP BY arg_set_id
  ORDER BY arg_set_id
  LIMIT (SELECT exact_times FROM _xplane_arm)
);

-- The analysis events (docs/ANALYSIS.md: a duration > 0 ps and a
-- non-empty name) among the converted slices, with their exact times, as
-- trace processor's slice table holds them: no lookup per row. A view that
-- SQLite flattens into its readers, so their filters on track_id, category,
-- name, parent_id or arg_set_id reach the slice table: the tables that group
-- every event (_xplane_line_name_agg, _xplane_child_dur) or pick some by
-- track and category (_xplane_op_stat, _xplane_window_tf) read it.
CREATE PERFETTO VIEW _xplane_analysis_raw(
  -- Slice id.
  id ID(slice.id),
  -- Track of the slice (the thread's track or one of its overlap tracks).
  track_id JOINID(track.id),
  -- Raw XLine name (the slice category).
  category STRING,
  -- Event name.
  name STRING,
  -- Enclosing slice on its track.
  parent_id JOINID(slice.id),
  -- Args of the slice.
  arg_set_id ARGSETID,
  -- Exact start in picoseconds.
  start_ps LONG,
  -- Exact duration in picoseconds.
  dur_ps LONG
) AS
-- (the exact times where the slice's whole ns do not give them; a key no
-- arg has is not looked up: _xplane_arg_key; a slice of 0 ns may last some
-- ps)
SELECT
  s.id,
  s.track_id,
  s.category,
  s.name,
  s.parent_id,
  s.arg_set_id,
  coalesce(CASE WHEN (SELECT start_ps FROM _xplane_arg_key) THEN extract_arg(s.arg_set_id, 'debug.xplane_start_ps') END,
           s.ts * 1000) AS start_ps,
  coalesce(CASE WHEN (SELECT dur_ps FROM _xplane_arg_key) THEN extract_arg(s.arg_set_id, 'debug.xplane_dur_ps') END,
           s.dur * 1000) AS dur_ps
FROM slice s
WHERE s.track_id IN (SELECT track_id FROM _xplane_event_track)
  AND s.name != ''
  AND (s.dur > 0 OR ((SELECT dur_ps FROM _xplane_arg_key) AND extract_arg(s.arg_set_id, 'debug.xplane_dur_ps') > 0));

-- The analysis events as _xplane_analysis_raw picks them, with the slice
-- table's own ns times: the arms that run where no slice carries an
-- exact-time annotation (_xplane_arm.ns_times) read these, since there
-- start_ps is ts * 1000 and dur_ps is dur * 1000, and scale their sums once
-- per group. A view that SQLite flattens into its readers, as
-- _xplane_analysis_raw.
CREATE PERFETTO VIEW _xplane_analysis_ns(
  -- Slice id.
  id ID(slice.id),
  -- Track of the slice (the thread's track or one of its overlap tracks).
  track_id JOINID(track.id),
  -- Raw XLine name (the slice category).
  category STRING,
  -- Event name.
  name STRING,
  -- Enclosing slice on its track.
  parent_id JOINID(slice.id),
  -- Args of the slice.
  arg_set_id ARGSETID,
  -- Start in ns.
  ts TIMESTAMP,
  -- Duration in ns (> 0).
  dur DURATION
) AS
SELECT id, track_id, category, name, parent_id, arg_set_id, ts, dur
FROM slice
WHERE track_id IN (SELECT track_id FROM _xplane_event_track) AND name != '' AND dur > 0;

-- The analysis events among the converted slices with their exact times
-- looked up in _xplane_exact_time (the columns of _xplane_analysis_raw):
-- the exact-time arms of the tables that group or pick every event read
-- it (the line sums, the children's durations, the ops). A view that SQLite
-- flattens into its readers, so their filters reach the slice table; not
-- for a lookup by id (trace processor then filters by the track, not the
-- id: the region windows' times through it, TPU profile +268 M
-- instructions). _xplane_analysis_raw stays for what every trace reads
-- (the region candidates): a lookup per slice in a GPU profile's empty
-- table cost more there (100 MB: _xplane_window_tf 589 -> 637 ms).
CREATE PERFETTO VIEW _xplane_analysis_exact(
  -- Slice id.
  id ID(slice.id),
  -- Track of the slice (the thread's track or one of its overlap tracks).
  track_id JOINID(track.id),
  -- Raw XLine name (the slice category).
  category STRING,
  -- Event name.
  name STRING,
  -- Enclosing slice on its track.
  parent_id JOINID(slice.id),
  -- Args of the slice.
  arg_set_id ARGSETID,
  -- Exact start in picoseconds.
  start_ps LONG,
  -- Exact duration in picoseconds (> 0).
  dur_ps LONG
) AS
SELECT
  s.id, s.track_id, s.category, s.name, s.parent_id, s.arg_set_id,
  coalesce(x.start_ps, s.ts * 1000) AS start_ps,
  coalesce(x.dur_ps, s.dur * 1000) AS dur_ps
FROM slice s
LEFT JOIN _xplane_exact_time x USING (arg_set_id)
WHERE s.track_id IN (SELECT track_id FROM _xplane_event_track)
  AND s.name != ''
  AND (s.dur > 0 OR x.dur_ps > 0);

-- Every converted slice (instants included) with the columns the other
-- tables read. A view of trace processor's slice table: each row looks up
-- its thread (_xplane_event_track), its line (_xplane_track_line, else the
-- slice's own xplane.line_index) and its rare annotations, and reads its
-- event index and exact times with extract_arg, when read. A filter on id,
-- track_id, name or arg_set_id reaches the slice table (the slices stay the
-- outer loop), so a reader that wants some slices picks them first.
CREATE PERFETTO VIEW _xplane_slice_core(
  -- Slice id.
  id ID(slice.id),
  -- Track of the slice (the thread's track or one of its overlap tracks).
  track_id JOINID(track.id),
  -- Thread: one XPlane track (the lines of a plane sharing an id).
  utid JOINID(thread.id),
  -- Its thread id (the converter's track ordinal: the op order sorts by it).
  tid LONG,
  -- Process: one XPlane plane.
  upid JOINID(process.id),
  -- XPlane index of the plane.
  plane_index LONG,
  -- XLine index of the event.
  line_index LONG,
  -- The line as one integer, upid << 32 | line_index: the key the tables
  -- that pick events by line filter on (NULL for a line index outside
  -- 0 .. 2^32 - 1, which no converter writes: an XLine's index is its
  -- position in its plane).
  line_key LONG,
  -- XEvent index within its line.
  event_index LONG,
  -- Event name (display name, else name); NULL for an unknown metadata id.
  name STRING,
  -- Raw XLine name (the slice category).
  category STRING,
  -- Start in ns.
  ts TIMESTAMP,
  -- Duration in ns.
  dur DURATION,
  -- Nesting depth on its track.
  depth LONG,
  -- Exact start in picoseconds.
  start_ps LONG,
  -- Exact duration in picoseconds.
  dur_ps LONG,
  -- Enclosing slice on its track.
  parent_id JOINID(slice.id),
  -- Line of the analysis parent when it is not parent_id (else NULL).
  parent_line_index LONG,
  -- Event index of that parent.
  parent_event_index LONG,
  -- Args of the slice (every effective XStat as debug.<name>).
  arg_set_id ARGSETID
) AS
-- (the exact times where the slice's whole ns do not give them, start_ps =
-- ts * 1000 and dur_ps = dur * 1000 otherwise; the plane index of a trace
-- without plane records from the slice, where an older converter wrote it)
SELECT
  s.id,
  s.track_id,
  k.utid,
  k.tid,
  k.upid,
  coalesce(k.plane_index, extract_arg(s.arg_set_id, 'debug.xplane_plane_index')) AS plane_index,
  coalesce(l.line_index, CASE WHEN y.line_index THEN extract_arg(s.arg_set_id, 'debug.xplane_line_index') END)
    AS line_index,
  coalesce(
    l.line_key,
    CASE WHEN y.line_index AND extract_arg(s.arg_set_id, 'debug.xplane_line_index') BETWEEN 0 AND 4294967295
      THEN (k.upid << 32) | extract_arg(s.arg_set_id, 'debug.xplane_line_index') END
  ) AS line_key,
  extract_arg(s.arg_set_id, 'debug.xplane_event_index') AS event_index,
  s.name,
  s.category,
  s.ts,
  s.dur,
  s.depth,
  coalesce(CASE WHEN y.start_ps THEN extract_arg(s.arg_set_id, 'debug.xplane_start_ps') END, s.ts * 1000) AS start_ps,
  coalesce(CASE WHEN y.dur_ps THEN extract_arg(s.arg_set_id, 'debug.xplane_dur_ps') END, s.dur * 1000) AS dur_ps,
  s.parent_id,
  r.parent_line_index,
  r.parent_event_index,
  s.arg_set_id
-- (CROSS JOIN: the one row of _xplane_arg_key, then the slices as the outer
-- loop; each finds its track, line and rare annotations by binary search)
FROM _xplane_arg_key y
CROSS JOIN slice s
CROSS JOIN _xplane_event_track k ON k.track_id = s.track_id
LEFT JOIN _xplane_track_line l ON l.track_id = s.track_id AND l.category = coalesce(s.category, '')
LEFT JOIN _xplane_slice_rare r ON r.arg_set_id = s.arg_set_id;

-- Every slice converted from an XPlane event (instants included). A view
-- of _xplane_slice_core: its thread's and process's names and its line's
-- label are looked up per row when read.
CREATE PERFETTO VIEW xplane_slice(
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
WITH
  -- (MATERIALIZED copies: SQLite indexes them for the lookup per slice)
  trk AS MATERIALIZED (SELECT track_id, tid, thread_name, process_name FROM _xplane_thread_track),
  line AS MATERIALIZED (SELECT upid, line_index, line_label FROM _xplane_line)
SELECT
  c.id,
  c.ts,
  c.dur,
  c.track_id,
  c.utid,
  c.upid,
  k.tid,
  c.plane_index,
  CASE WHEN k.process_name = 'xplane:' || c.plane_index THEN '' ELSE k.process_name END AS plane_name,
  c.line_index,
  c.category AS line_name,
  k.thread_name,
  coalesce((SELECT l.line_label FROM line l WHERE l.upid = c.upid AND l.line_index = c.line_index), k.thread_name)
    AS line_label,
  c.event_index,
  c.name,
  c.start_ps,
  c.dur_ps,
  c.start_ps + c.dur_ps AS end_ps,
  c.depth,
  c.parent_id,
  c.parent_line_index,
  c.parent_event_index,
  c.arg_set_id
-- (CROSS JOIN: the core stays the outer loop, in id order; each track is
-- found by its id)
FROM _xplane_slice_core c
CROSS JOIN trk k ON k.track_id = c.track_id;

-- The durations of the analysis events summed per parent_id, for the
-- events whose analysis parent is their parent_id (no annotated parent):
-- one row per parent, in id order. Grouped from trace processor's slice
-- table (_xplane_analysis_ns or _xplane_analysis_exact): the analysis
-- events that are not annotated
-- with a parent on another track. (A table of trace processor: it sorts the
-- slices by parent_id itself, and finds a parent's row without a scan.)
CREATE PERFETTO TABLE _xplane_child_dur(
  -- The parent slice.
  id ID(slice.id),
  -- The summed durations of its children in ps.
  ps LONG
) AS
-- (two arms, _xplane_arm: the slice table's ns where they give the exact
-- durations (_xplane_analysis_ns), summed per parent and scaled once; else
-- the exact ones of _xplane_analysis_exact)
SELECT * FROM (
  SELECT parent_id AS id, sum(dur) * 1000 AS ps
  FROM _xplane_analysis_ns
  WHERE parent_id IS NOT NULL
    AND arg_set_id NOT IN (SELECT arg_set_id FROM _xplane_slice_rare WHERE parent_event_index IS NOT NULL)
  GROUP BY parent_id
  LIMIT (SELECT ns_times FROM _xplane_arm)
)
UNION ALL
SELECT * FROM (
  SELECT parent_id AS id, sum(dur_ps) AS ps
  FROM _xplane_analysis_exact
  WHERE parent_id IS NOT NULL
    AND arg_set_id NOT IN (SELECT arg_set_id FROM _xplane_slice_rare WHERE parent_event_index IS NOT NULL)
  GROUP BY parent_id
  LIMIT (SELECT exact_times FROM _xplane_arm)
)
ORDER BY id;

-- The analysis events whose analysis parent is on another track (annotated
-- with xplane.parent_line_index / parent_event_index, a few at most), with
-- that parent, in id order.
CREATE PERFETTO TABLE _xplane_cross_parent(
  -- The event's slice id.
  id LONG,
  -- Its analysis parent's slice id.
  parent LONG
) AS
WITH
  -- The annotated events, and the events that could be such a parent (an
  -- event index one of them names): picked from the slices by their arg
  -- sets, so the join below indexes these, not every event. (MATERIALIZED:
  -- SQLite then indexes the CTEs for the join, which it cannot do on the
  -- tables of trace processor.)
  annotated AS MATERIALIZED (
    SELECT id, utid, parent_line_index, parent_event_index FROM _xplane_slice_core
    WHERE arg_set_id IN (SELECT arg_set_id FROM _xplane_slice_rare WHERE parent_event_index IS NOT NULL)
      AND name != '' AND dur_ps > 0
  ),
  named AS MATERIALIZED (
    SELECT id, utid, line_index, event_index FROM _xplane_slice_core
    WHERE arg_set_id IN (
        SELECT arg_set_id FROM args
        WHERE key = 'debug.xplane_event_index' AND int_value IN (SELECT parent_event_index FROM annotated)
      )
      AND name != '' AND dur_ps > 0
  )
SELECT a.id, p.id AS parent
FROM annotated a
JOIN named p ON p.utid = a.utid AND p.line_index = a.parent_line_index AND p.event_index = a.parent_event_index
ORDER BY a.id;

-- The summed durations of the children of each analysis event that has
-- some (the events whose analysis parent it is: _xplane_child_dur's, plus
-- those of _xplane_cross_parent), one row per parent, in id order: few
-- rows (10,845 parents of 1.77 million events at 100 MB), which the
-- tables that need an event's exclusive time read, not a lookup per event
-- where they can avoid one.
CREATE PERFETTO TABLE _xplane_child_ps(
  -- The parent's slice id.
  id LONG,
  -- The summed durations of its children in ps.
  ps LONG
) AS
SELECT id, sum(ps) AS ps
FROM (
  SELECT id, ps FROM _xplane_child_dur
  UNION ALL
  SELECT c.parent AS id, e.dur_ps AS ps
  FROM _xplane_cross_parent c
  JOIN _xplane_slice_core e USING (id)
)
GROUP BY id
ORDER BY id;

-- The analysis events (docs/ANALYSIS.md): a start, a duration > 0 and a
-- non-empty name, with the columns of their slice only: a filter of
-- _xplane_slice_core, for the tables that pick events by line or thread
-- and read neither the analysis parent nor the exclusive time
-- (_xplane_analysis_core adds those, a lookup per row).
CREATE PERFETTO VIEW _xplane_analysis_slice(
  -- Slice id.
  id ID(slice.id),
  -- Track of the slice (a filter on it reaches the slice table).
  track_id JOINID(track.id),
  -- Thread (XPlane track).
  utid JOINID(thread.id),
  -- Its thread id.
  tid LONG,
  -- Process (XPlane plane).
  upid JOINID(process.id),
  -- XPlane index of the plane.
  plane_index LONG,
  -- XLine index.
  line_index LONG,
  -- The line as one integer (_xplane_slice_core.line_key).
  line_key LONG,
  -- XEvent index within its line.
  event_index LONG,
  -- Event name.
  name STRING,
  -- Exact start in picoseconds.
  start_ps LONG,
  -- Exact duration in picoseconds.
  dur_ps LONG,
  -- Args of the slice.
  arg_set_id ARGSETID
) AS
SELECT id, track_id, utid, tid, upid, plane_index, line_index, line_key, event_index, name, start_ps, dur_ps, arg_set_id
FROM _xplane_slice_core
WHERE name IS NOT NULL AND name != '' AND dur_ps > 0;

-- The analysis events with their analysis parent and exclusive time; the
-- columns the other tables read (xplane_analysis_event is a view of it).
-- A view of _xplane_slice_core: each row looks its children's summed
-- durations up in _xplane_child_ps by id (a sorted column: a binary
-- search); a table of these rows copied every column of every event again
-- (1.3 s at 100 MB). The package's own tables avoid the lookup per event:
-- _xplane_line_name_agg corrects its sums per parent, _xplane_op_base looks
-- the parents up in an indexed copy.
CREATE PERFETTO VIEW _xplane_analysis_core(
  -- Slice id.
  id ID(slice.id),
  -- Thread (XPlane track).
  utid JOINID(thread.id),
  -- Its thread id.
  tid LONG,
  -- Process (XPlane plane).
  upid JOINID(process.id),
  -- XPlane index of the plane.
  plane_index LONG,
  -- XLine index.
  line_index LONG,
  -- The line as one integer (_xplane_slice_core.line_key).
  line_key LONG,
  -- XEvent index within its line.
  event_index LONG,
  -- Event name.
  name STRING,
  -- Exact start in picoseconds.
  start_ps LONG,
  -- Exact duration in picoseconds.
  dur_ps LONG,
  -- The analysis parent: the annotated one, else parent_id.
  analysis_parent_id JOINID(slice.id),
  -- Exclusive time: duration minus the durations of the events whose
  -- analysis parent this is, at least 0.
  self_ps LONG,
  -- Args of the slice.
  arg_set_id ARGSETID
) AS
SELECT
  e.id,
  e.utid,
  e.tid,
  e.upid,
  e.plane_index,
  e.line_index,
  e.line_key,
  e.event_index,
  e.name,
  e.start_ps,
  e.dur_ps,
  CASE
    WHEN e.parent_event_index IS NULL THEN e.parent_id
    ELSE (SELECT c.parent FROM _xplane_cross_parent c WHERE c.id = e.id)
  END AS analysis_parent_id,
  max(0, e.dur_ps - coalesce(d.ps, 0)) AS self_ps,
  e.arg_set_id
FROM _xplane_slice_core e
LEFT JOIN _xplane_child_ps d USING (id)
WHERE e.name IS NOT NULL AND e.name != '' AND e.dur_ps > 0;

-- The analysis events summed per line and name, in one pass over trace
-- processor's slice table (grouped by track, category and name, a few rows
-- per line, then by line): _xplane_event_line takes the lines from these
-- rows, _xplane_line_name_sum adds the lines' names, and xplane_breakdown
-- and xplane_tracks group them, a few per line, not the events.
CREATE PERFETTO TABLE _xplane_line_name_agg(
  -- Process (XPlane plane).
  upid JOINID(process.id),
  -- XLine index.
  line_index LONG,
  -- The line as one integer (_xplane_slice_core.line_key).
  line_key LONG,
  -- Event name.
  name STRING,
  -- Number of analysis events.
  n_events LONG,
  -- Their summed duration in ps.
  dur_ps LONG,
  -- Their summed exclusive time in ps.
  self_ps LONG,
  -- The first start in ps.
  first_start_ps LONG,
  -- The last end in ps.
  last_end_ps LONG,
  -- The smallest slice id among them.
  first_id LONG
) AS
WITH
  -- (the analysis events, _xplane_analysis_raw, grouped by track,
  -- category and name, in one of four arms (_xplane_arm): where the ns
  -- give every exact time, the usual case of a GPU profile, from the slice
  -- table's own columns, its sums in ns scaled once per group (the view's
  -- exact-time expressions, evaluated at each reference, cost a third of
  -- the grouping), by track and name alone where each track has one line;
  -- else from the view; and by the slice's own line index
  -- too where a thread has lines of one name (an expression in the
  -- grouping key of the other arms cost 3x the group))
  per_track AS MATERIALIZED (
    SELECT * FROM (
      SELECT
        track_id, category, name, NULL AS li, count(*) AS n, sum(dur) * 1000 AS dur_ps,
        min(ts) * 1000 AS first_start_ps, max(ts + dur) * 1000 AS last_end_ps, min(id) AS first_id
      FROM _xplane_analysis_ns
      GROUP BY track_id, category, name
      LIMIT (SELECT ns_lines FROM _xplane_arm)
    )
    UNION ALL
    SELECT * FROM (
      SELECT
        track_id, (SELECT l.category FROM _xplane_track_line l WHERE l.track_id = g.track_id) AS category, name,
        NULL AS li, n, dur_ps, first_start_ps, last_end_ps, first_id
      FROM (
        SELECT
          track_id, name, count(*) AS n, sum(dur) * 1000 AS dur_ps, min(ts) * 1000 AS first_start_ps,
          max(ts + dur) * 1000 AS last_end_ps, min(id) AS first_id
        FROM _xplane_analysis_ns
        GROUP BY track_id, name
        LIMIT (SELECT ns_track_lines FROM _xplane_arm)
      ) g
    )
    UNION ALL
    SELECT * FROM (
      SELECT
        track_id, category, name, NULL AS li, count(*) AS n, sum(dur_ps) AS dur_ps, min(start_ps) AS first_start_ps,
        max(start_ps + dur_ps) AS last_end_ps, min(id) AS first_id
      FROM _xplane_analysis_exact
      GROUP BY track_id, category, name
      LIMIT (SELECT exact_lines FROM _xplane_arm)
    )
    UNION ALL
    SELECT * FROM (
      SELECT
        track_id, category, name, extract_arg(arg_set_id, 'debug.xplane_line_index') AS li, count(*) AS n,
        sum(dur_ps) AS dur_ps, min(start_ps) AS first_start_ps, max(start_ps + dur_ps) AS last_end_ps,
        min(id) AS first_id
      FROM _xplane_analysis_raw
      GROUP BY track_id, category, name, li
      LIMIT (SELECT shared_lines FROM _xplane_arm)
    )
  ),
  -- (the groups' lines: the track's line of that category, else the
  -- slices' own line index)
  per_line AS (
    SELECT
      k.upid, coalesce(l.line_index, g.li) AS line_index, g.name,
      sum(g.n) AS n_events, sum(g.dur_ps) AS dur_ps, min(g.first_start_ps) AS first_start_ps,
      max(g.last_end_ps) AS last_end_ps, min(g.first_id) AS first_id
    FROM per_track g
    JOIN _xplane_event_track k USING (track_id)
    LEFT JOIN _xplane_track_line l ON l.track_id = g.track_id AND l.category = coalesce(g.category, '')
    GROUP BY k.upid, coalesce(l.line_index, g.li), g.name
  ),
  -- (each group's exclusive time is its duration minus what the children
  -- of its parents take, min(duration, children's durations) per parent:
  -- the exclusive time per event is max(0, duration - children's), and
  -- few events are parents, so they are looked up, not every event)
  taken AS MATERIALIZED (
    SELECT e.upid, e.line_index, e.name, sum(min(e.dur_ps, c.ps)) AS ps
    FROM _xplane_child_ps c
    CROSS JOIN _xplane_analysis_slice e USING (id)
    GROUP BY e.upid, e.line_index, e.name
  )
SELECT
  e.upid, e.line_index,
  CASE WHEN e.line_index BETWEEN 0 AND 4294967295 THEN (e.upid << 32) | e.line_index END AS line_key,
  e.name, e.n_events, e.dur_ps,
  e.dur_ps - coalesce(t.ps, 0) AS self_ps, e.first_start_ps, e.last_end_ps, e.first_id
FROM per_line e
LEFT JOIN taken t ON t.upid = e.upid AND t.line_index IS e.line_index AND t.name = e.name;

-- The lines of the analysis events, one row per (plane, line), with the
-- names the events of a line share (its thread's and process's, its
-- category and label): the tables that filter or group events by line read
-- these, not a name per event. From the line's first event
-- (_xplane_line_name_agg's groups give it).
CREATE PERFETTO TABLE _xplane_event_line(
  -- Process (XPlane plane).
  upid JOINID(process.id),
  -- XLine index.
  line_index LONG,
  -- The line as one integer (_xplane_analysis_core.line_key).
  line_key LONG,
  -- Thread (XPlane track).
  utid JOINID(thread.id),
  -- Thread id (track order).
  tid LONG,
  -- XPlane index of the plane.
  plane_index LONG,
  -- Plane name (as xplane_slice.plane_name).
  plane_name STRING,
  -- Raw XLine name.
  line_name STRING,
  -- Thread name.
  thread_name STRING,
  -- The line's own label (as xplane_slice.line_label).
  line_label STRING
) AS
WITH
  first AS MATERIALIZED (
    SELECT upid, line_index, min(line_key) AS line_key, min(first_id) AS id FROM _xplane_line_name_agg GROUP BY upid, line_index
  )
SELECT f.upid, f.line_index, f.line_key, v.utid, v.tid, v.plane_index, v.plane_name, v.line_name, v.thread_name, v.line_label
FROM first f
CROSS JOIN xplane_slice v USING (id);

-- The analysis events (docs/ANALYSIS.md): a start, a duration > 0
-- and a non-empty name, with their analysis parent and exclusive time.
-- A view of _xplane_analysis_core and xplane_slice.
CREATE PERFETTO VIEW xplane_analysis_event(
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
SELECT
  e.id,
  e.utid,
  v.tid,
  e.upid,
  e.plane_index,
  v.plane_name,
  e.line_index,
  v.line_name,
  v.thread_name,
  v.line_label,
  e.event_index,
  e.name,
  e.start_ps,
  e.dur_ps,
  v.end_ps,
  e.analysis_parent_id,
  e.self_ps,
  v.ts,
  v.dur,
  e.arg_set_id
-- (the names and ns times as xplane_slice looks them up, by id)
FROM _xplane_analysis_core e
CROSS JOIN xplane_slice v USING (id);

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
WITH
  -- (MATERIALIZED copies: SQLite indexes them for the lookup per slice)
  trk AS MATERIALIZED (SELECT track_id, process_name FROM _xplane_thread_track),
  line AS MATERIALIZED (SELECT upid, line_index, line_id, line_display_name FROM _xplane_line)
SELECT
  c.plane_index,
  CASE WHEN k.process_name = 'xplane:' || c.plane_index THEN '' ELSE k.process_name END AS plane_name,
  c.line_index,
  l.line_id,
  s.category AS line_name,
  l.line_display_name,
  c.event_index,
  coalesce(m.display_name_of, c.name) AS name,
  CASE WHEN m.display_name_of IS NOT NULL THEN c.name ELSE '' END AS display_name,
  c.start_ps,
  c.start_ps + c.dur_ps AS end_ps,
  c.dur_ps,
  e.self_ps
FROM _xplane_slice_core c
CROSS JOIN slice s USING (id)
CROSS JOIN trk k ON k.track_id = s.track_id
LEFT JOIN (
  SELECT arg_set_id, string_value AS display_name_of
  FROM args
  WHERE key = 'debug.xplane_metadata_name'
) m ON m.arg_set_id = c.arg_set_id
LEFT JOIN line l ON l.upid = c.upid AND l.line_index = c.line_index
LEFT JOIN _xplane_analysis_core e ON e.id = c.id;
