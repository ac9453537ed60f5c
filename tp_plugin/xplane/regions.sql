-- xplane.regions: the device ops by region window, as the extension's
-- xplane_op_regions (the summary's device_op_region_aggregates), and
-- xplane_hlo_op_paths (the extension's HLO-proto rewrite map, from the
-- converter's source record). Included by xplane.xprof and xplane.summary; its own module so that
-- the summary does not build xprof's other tables (memory, devices, roofline,
-- kernel stats), which it does not read.
--
--   INCLUDE PERFETTO MODULE xplane.regions;
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

-- The candidate windows: the analysis events (_xplane_analysis_raw) that
-- are not device ops (_xplane_op_stat's test: a track of a plane with op
-- lines and an op line's name). A view that SQLite flattens into its
-- readers, so their filters (a name, a track) reach the slice table.
CREATE PERFETTO VIEW _xplane_window_candidate(
  -- Slice id of the event.
  id ID(slice.id),
  -- Its track.
  track_id JOINID(track.id),
  -- Event name.
  name STRING,
  -- Args of the event.
  arg_set_id ARGSETID
) AS
SELECT r.id, r.track_id, r.name, r.arg_set_id
FROM _xplane_analysis_raw r
WHERE NOT (
  r.track_id IN (SELECT track_id FROM _xplane_event_track WHERE upid IN (SELECT upid FROM _xplane_op_line))
  AND coalesce(r.category, '') IN (SELECT line_name FROM _xplane_op_line)
);

-- The tracks that may hold a candidate window with a tf_op or name stat:
-- those whose plane may have such stats (_xplane_event_track.tf_op_or_name)
-- and whose thread has a line that is not a device-op line (where every
-- line is one, every slice is an op). In track id order.
CREATE PERFETTO TABLE _xplane_window_tf_track(
  -- Track id.
  track_id JOINID(track.id)
) AS
SELECT k.track_id
FROM _xplane_event_track k
WHERE k.tf_op_or_name
  AND EXISTS (
    SELECT 1 FROM _xplane_line l
    WHERE l.utid = k.utid
      AND NOT (l.upid IN (SELECT upid FROM _xplane_op_line)
               AND coalesce(l.line_name, '') IN (SELECT line_name FROM _xplane_op_line))
  )
ORDER BY k.track_id;

-- The candidate windows (_xplane_window_candidate) that carry a tf_op or
-- name stat, with their effective tf_op, in id order: few (none on the
-- generated profiles). Every other candidate's (tf_op, name) pair is
-- ('', its name). One scan of the candidates of the tracks that may have
-- these stats (_xplane_window_tf_track: none on the generated profiles,
-- where the scan of every candidate, two extract_arg each, cost 7 s of the
-- 1 GB summary's 98), each stat read with
-- extract_arg; no table of every candidate (a copy sorted by arg set, for
-- a lookup per arg of these keys, cost 8 s of 140 at 1 GB).
CREATE PERFETTO TABLE _xplane_window_tf(
  -- Slice id of the event.
  id LONG,
  -- Event name.
  name STRING,
  -- Its effective tf_op (NULL for none).
  tf_op STRING
) AS
SELECT id, name, xplane_effective_tf_op(tf, nm) AS tf_op
FROM (
  SELECT
    id, name,
    -- (text stats count when non-empty strings)
    CASE WHEN typeof(tf) = 'text' AND tf != '' THEN tf END AS tf,
    CASE WHEN typeof(nm) = 'text' AND nm != '' THEN nm END AS nm
  FROM (
    -- (OFFSET 0: not flattened, so each extract_arg runs once per row; a
    -- key that no arg has is not looked up: _xplane_arg_key)
    SELECT
      r.id, r.name,
      CASE WHEN (SELECT tf_op FROM _xplane_arg_key) THEN extract_arg(r.arg_set_id, 'debug.tf_op') END AS tf,
      CASE WHEN (SELECT name FROM _xplane_arg_key) THEN extract_arg(r.arg_set_id, 'debug.name') END AS nm
    FROM _xplane_window_candidate r
    WHERE r.track_id IN (SELECT track_id FROM _xplane_window_tf_track)
    -- (no row, and no scan, when no track may have them: a term that holds a
    -- subquery does not stop the scan, _xplane_arm)
    LIMIT (SELECT CASE WHEN EXISTS (SELECT 1 FROM _xplane_window_tf_track) THEN -1 ELSE 0 END)
    OFFSET 0
  )
)
WHERE tf IS NOT NULL OR nm IS NOT NULL
ORDER BY id;

-- The region path of each (tf_op, name) pair of those events and of
-- ('', name) for every name of a line that is not a device-op line (the
-- candidates' names, from _xplane_line_name_agg's rows, a few per line), as
-- `<parts>:<path>` (_xplane_scope). A pair that no candidate has is never a
-- window's, since _xplane_region_window matches each candidate's own pair.
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
  SELECT '' AS tf, name
  FROM (
    SELECT DISTINCT name FROM _xplane_line_name_agg
    WHERE line_key IS NULL OR line_key NOT IN (SELECT line_key FROM _xplane_op_line)
  )
  UNION
  SELECT coalesce(tf_op, '') AS tf, name FROM _xplane_window_tf
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
  depth LONG,
  -- Its rank among the windows for an op inside several: by depth
  -- (greatest first), then duration (shortest first), then path (greatest
  -- first); equal ranks only for equal (depth, duration, path).
  wrank LONG
) AS
WITH
  -- The (tf_op, name) pairs whose region path is not the fallback (one
  -- part equal to the canonical name): the windows' (a MATERIALIZED copy:
  -- SQLite indexes it for the lookups below).
  scope AS MATERIALIZED (
    SELECT tf, name, path, depth
    FROM (
      SELECT
        tf, name, canonical_name,
        substr(s, instr(s, ':') + 1) AS path,
        CAST(substr(s, 1, instr(s, ':') - 1) AS INT) AS depth
      FROM _xplane_window_scope
    )
    WHERE NOT (depth = 1 AND path = canonical_name)
  ),
  -- The windows' names without a tf_op.
  bare AS MATERIALIZED (SELECT name, path, depth FROM scope WHERE tf = ''),
  -- The windows: the candidates with a tf_op or name stat by their pair,
  -- the others by ('', name): those of a name in bare, picked from the
  -- slice table by name (none when bare is empty: LIMIT 0).
  win AS (
    SELECT t.id, sc.path, sc.depth
    FROM _xplane_window_tf t
    JOIN scope sc ON sc.tf = coalesce(t.tf_op, '') AND sc.name = t.name
    UNION ALL
    SELECT * FROM (
      SELECT r.id, b.path, b.depth
      FROM _xplane_window_candidate r
      JOIN bare b ON b.name = r.name
      WHERE r.name IN (SELECT name FROM bare)
        AND r.id NOT IN (SELECT id FROM _xplane_window_tf)
      LIMIT (SELECT CASE WHEN EXISTS (SELECT 1 FROM bare) THEN -1 ELSE 0 END)
    )
  )
SELECT start2, end2, dur_ps, path, depth, rank() OVER (ORDER BY depth DESC, dur_ps ASC, path DESC) AS wrank
FROM (
  SELECT t.start_ps * 2 AS start2, (t.start_ps + t.dur_ps) * 2 AS end2, t.dur_ps, t.path, t.depth
  FROM (
    SELECT coalesce(x.start_ps, s.ts * 1000) AS start_ps, coalesce(x.dur_ps, s.dur * 1000) AS dur_ps, w.path, w.depth
    FROM win w
    -- (each window's exact times: its slice by id, its arg set's exact
    -- times where it has some; through _xplane_analysis_exact, trace
    -- processor filtered by track instead of id)
    CROSS JOIN slice s ON s.id = w.id
    LEFT JOIN _xplane_exact_time x ON x.arg_set_id = s.arg_set_id
  ) t
);

-- The bucket grid of the windows: the doubled time line from the first
-- window start cut into about one bucket per 8 windows. (A window is
-- listed in every bucket it touches, and those rows cost more than an op's
-- comparisons with the windows of its bucket: on the TPU profile, one bucket
-- per window gave 40,058 rows, one per 8 windows 9,516 and 5 % fewer
-- instructions for the whole summary; one per 16, 0.4 % fewer again.)
CREATE PERFETTO TABLE _xplane_window_grid(
  -- The first window start, doubled.
  t0 LONG,
  -- Bucket width (doubled ps, at least 1).
  width LONG
) AS
SELECT min(start2) AS t0, max(1, (max(end2) - min(start2)) / max(1, count(*) / 8) + 1) AS width
FROM _xplane_region_window;

-- The windows by time bucket (_xplane_window_grid), each window listed in
-- every bucket it touches, so an op meets only the windows of its
-- midpoint's bucket (an equality join) instead of all of them.
CREATE PERFETTO TABLE _xplane_window_bucket(
  -- Bucket number.
  bucket LONG,
  -- Window start, doubled.
  start2 LONG,
  -- Window end, doubled.
  end2 LONG,
  -- Window path.
  path STRING,
  -- Its number of parts.
  depth LONG,
  -- Its rank (_xplane_region_window).
  wrank LONG
) AS
WITH RECURSIVE
  spread(bucket, last, start2, end2, path, depth, wrank) AS (
    SELECT (w.start2 - g.t0) / g.width, (w.end2 - g.t0) / g.width, w.start2, w.end2, w.path, w.depth, w.wrank
    FROM _xplane_region_window w, _xplane_window_grid g
    UNION ALL
    SELECT bucket + 1, last, start2, end2, path, depth, wrank FROM spread WHERE bucket < last
  )
SELECT bucket, start2, end2, path, depth, wrank FROM spread ORDER BY bucket;

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
  op(op_id, mid2, bucket) AS (
    SELECT o.op_id, o.start_ps * 2 + o.dur_ps, (o.start_ps * 2 + o.dur_ps - g.t0) / g.width
    FROM _xplane_op_base o, _xplane_window_grid g
    WHERE o.start_ps * 2 + o.dur_ps >= g.t0
  ),
  -- (min(wrank) alone in its query: SQLite takes path and depth from the
  -- row of the best rank)
  best AS (
    SELECT op.op_id, op.mid2, min(w.wrank) AS wrank, w.path, w.depth
    FROM op
    JOIN _xplane_window_bucket w ON w.bucket = op.bucket
    WHERE w.start2 <= op.mid2 AND w.end2 >= op.mid2
    GROUP BY op.op_id
  )
SELECT op_id, row_number() OVER (ORDER BY mid2, op_id) AS seq, path, depth
FROM best;

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
    SELECT w.path, w.depth, w.seq, i.op_id, i.name, i.dur_ps, i.self_ps, i.shape_signature
    FROM _xplane_op_window w
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
  sum(c.self_ps) AS self_ps,
  (SELECT s.shape_signature FROM shapes s WHERE s.path = c.path AND s.name = c.name AND s.r = 1) AS shape_signature,
  (SELECT f.first_op_id FROM firsts f WHERE f.path = c.path AND f.name = c.name) AS first_op_id
FROM counted c
GROUP BY c.path, c.name
ORDER BY self_ps DESC, total_ps DESC, region_path, name;

-- The extension's HLO-proto rewrite map (device-op name -> the path the
-- HloProto files beside the profile give it). A trace holds no HLO proto file:
-- the converter computes the rows when it reads the profile (core/hlo.h, the
-- code behind the extension's table) and writes them into the source record
-- as the JSON arg `xplane.source.hlo_op_paths`; none without HLO protos
-- beside the profile, and then the summary prints the profile's own paths.
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
SELECT j.value ->> '$.name' AS name, j.value ->> '$.kernel' AS kernel, j.value ->> '$.tf_op_path' AS tf_op_path,
  j.value ->> '$.votes' AS votes
FROM slice s
JOIN args a USING (arg_set_id)
JOIN json_each(a.string_value) j
WHERE s.category = 'xplane' AND s.name = 'xplane.source' AND a.key = 'debug.xplane_source_hlo_op_paths'
ORDER BY s.id, j.key;
