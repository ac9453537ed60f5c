-- queries/lib/summary_json.sql: the profile_summary.v1 document of one profile.
--
-- The one source of truth of every canned query: summary.sql prints what this
-- builds, report.sql and the question files render it, compare.sql and
-- track.sql build it twice. Input: temp.xq_input (queries/lib/input.sql; read
-- queries/lib/checks.sql first). Output: temp.xq_summary(doc), the document as
-- compact JSON (print it with xplane_json_pretty(doc)), plus the xq_* temp
-- tables below, which other files may read.
--
-- One body, two engines. It reads the tables by name, without a path:
-- xplane_files, xplane_space, xplane_tracks, xplane_hints, xplane_steps,
-- xplane_op_names, xplane_op_tf_ops, xplane_gaps, xplane_scopes,
-- xplane_op_regions, xplane_hlo_op_paths and (global breakdown only) xplane_events, and calls only functions both engines have.
-- In the sqlite3 shell they are the extension's tables over the profile that
-- queries/lib/use_profile.sql chose with xplane_use(@profile); in trace
-- processor they are the PerfettoSQL package's (tp_plugin/xplane, module
-- xplane.summary) over a converted trace, assembled by tp_plugin/tp_query.sh.
--
-- Semantics: docs/ANALYSIS.md (the project's contract), in the order of
-- its sections; source_format, source_path, display_time_unit and the event
-- total come from xplane_space, so a JSON trace the extension reads gets its
-- own. Every time is an integer in picoseconds until the document is
-- assembled, where it becomes microseconds (ps / 1e6, a double) written with
-- xplane_repr (Python's float repr). Lists are assembled with
-- json_group_array over ordered subqueries (SQLite 3.40 has no ORDER BY
-- inside aggregates); JSON read back from a column or a subquery is wrapped
-- in json() outside the subquery (a sort drops the JSON subtype). The device
-- op-level sections read the cached aggregates (xplane_op_names,
-- xplane_op_tf_ops, xplane_gaps, xplane_scopes, xplane_op_regions), computed
-- once per decode by the extension.

-- ---- the profile file -------------------------------------------------------
DROP TABLE IF EXISTS temp.xq_file;
CREATE TEMP TABLE xq_file AS
SELECT i.*,
       (SELECT min(file) FROM xplane_files WHERE status = 'ok') AS file,
       (SELECT count(*) FROM xplane_files WHERE status = 'ok') AS n_files,   -- entries that cannot be read: see xplane_skip_unreadable
       max(i.hot_op_limit, 500) AS long_limit,   -- gaps, regions, gap contexts
       max(i.hot_op_limit, 50) AS family_limit
  FROM xq_input i;
INSERT INTO xq_fail SELECT 'no-profile-file' FROM xq_file WHERE n_files = 0;
INSERT INTO xq_fail SELECT 'many-profile-files' FROM xq_file WHERE n_files > 1;

-- ---- events: the cached per-line aggregates (xplane_tracks) -----------------
-- Analysis ("complete") events by line and category (xplane_event_category
-- of the plane and the event's name), as the extension keeps them per decode:
-- the overview's counts and span, and the breakdown, which leaves out the
-- lines whose thread name (display_name, else name) is `Steps`.
DROP TABLE IF EXISTS temp.xq_evgroups;
CREATE TEMP TABLE xq_evgroups AS
SELECT t.plane_name,
       coalesce(nullif(t.line_display_name, ''), nullif(t.line_name, ''), 'xline:' || t.line_index) AS thread,
       t.category, t.n_events AS n, t.self_ps, t.first_start_ps AS first_ps, t.last_end_ps AS last_ps
  FROM xplane_tracks t;

-- ---- provenance: run_id and source-file values of the analysis events -------
-- xplane_hints counts them over the effective stats of every analysis event
-- (run_id as text, numbers as their integer digits; a source is the first
-- non-empty text among source, source_file, file_name). Ranked by count,
-- ties by first appearance in (plane, line, event) order; 20 are kept.
DROP TABLE IF EXISTS temp.xq_hints;
CREATE TEMP TABLE xq_hints AS
SELECT CASE h.kind WHEN 'run_id' THEN 'run_id' ELSE 'source' END AS kind, h.value AS text,
       row_number() OVER (PARTITION BY h.kind ORDER BY h.count DESC, h.first_seen) AS rank
  FROM xplane_hints h;

-- ---- steps -------------------------------------------------------------------
-- Device `Steps` markers, else host `train` annotations (xplane_steps'
-- `module` fallback is not part of the reference's summary). A step's
-- duration is the mean over its markers (devices).
DROP TABLE IF EXISTS temp.xq_step;
CREATE TEMP TABLE xq_step AS
SELECT s.step AS step, CAST(sum(s.dur_ps) AS REAL) / count(*) / 1e6 AS dur
  FROM xplane_steps s
 WHERE s.source IN ('steps_line', 'host_annotation')
 GROUP BY s.step
 ORDER BY s.step;

-- Step sets whose duration statistics the document reports: all, steady,
-- and (below) the k-means groups g0/g1.
DROP TABLE IF EXISTS temp.xq_stepset;
CREATE TEMP TABLE xq_stepset(set_name TEXT, step INTEGER, dur REAL);
INSERT INTO xq_stepset SELECT 'all', step, dur FROM xq_step ORDER BY step;
INSERT INTO xq_stepset
SELECT 'steady', step, dur FROM xq_step WHERE step >= (SELECT warmup_steps FROM xq_file) ORDER BY step;

-- Two-means on log(duration) over the steady steps (in step order): centres
-- start at min and max; a point joins the nearer centre (ties: the low one);
-- stop when neither centre moves by 1e-9 and no label changed, or after 40
-- rounds. Row k+1 holds the centres computed in round k (a, b), the centres
-- that round labelled with (pa, pb) and whether its labels changed. Only
-- tried with >= 6 steady steps, min > 0 and max/min >= 1.25. The centres use
-- sum(), which SQLite 3.43 and later (trace processor's) compensate: a centre
-- may differ there in its last bits, which can change only the label of a
-- step within rounding of the midpoint of the two centres (the means below
-- add in order for that reason; a step that close has not been seen).
DROP TABLE IF EXISTS temp.xq_km_in;
CREATE TEMP TABLE xq_km_in AS SELECT step, dur, ln(dur) AS x FROM xq_stepset WHERE set_name = 'steady' AND dur > 0 ORDER BY step;
DROP TABLE IF EXISTS temp.xq_km;
CREATE TEMP TABLE xq_km AS
WITH RECURSIVE km(k, a, b, pa, pb, changed) AS (
  SELECT 0, min(x), max(x), NULL, NULL, NULL FROM xq_km_in
   WHERE (SELECT count(*) FROM xq_stepset WHERE set_name = 'steady') >= 6
     AND (SELECT min(dur) FROM xq_stepset WHERE set_name = 'steady') > 0
     AND (SELECT max(dur) / min(dur) FROM xq_stepset WHERE set_name = 'steady') >= 1.25
  UNION ALL
  SELECT r.k + 1,
         (SELECT sum(x) / count(*) FROM xq_km_in WHERE abs(x - r.a) <= abs(x - r.b)),
         (SELECT sum(x) / count(*) FROM xq_km_in WHERE abs(x - r.a) > abs(x - r.b)),
         r.a, r.b,
         EXISTS (SELECT 1 FROM xq_km_in
                  WHERE (abs(x - r.a) > abs(x - r.b))
                     <> (r.pa IS NOT NULL AND abs(x - r.pa) > abs(x - r.pb)))
    FROM km r
   WHERE r.a IS NOT NULL AND r.b IS NOT NULL AND r.k < 40
     AND NOT (r.k > 0 AND abs(r.a - r.pa) < 1e-9 AND abs(r.b - r.pb) < 1e-9 AND NOT r.changed)
)
SELECT * FROM km ORDER BY k DESC LIMIT 1;

-- The groups of the last labelling (centres pa, pb of the last row); the
-- centres that order them are pa, pb when converged, else a, b (40 rounds).
DROP TABLE IF EXISTS temp.xq_km_groups;
CREATE TEMP TABLE xq_km_groups AS
SELECT i.step, i.dur,
       CASE WHEN abs(i.x - m.pa) <= abs(i.x - m.pb) THEN 0 ELSE 1 END AS label,
       CASE WHEN (CASE WHEN abs(m.a - m.pa) < 1e-9 AND abs(m.b - m.pb) < 1e-9 AND NOT m.changed
                       THEN m.pa <= m.pb ELSE m.a <= m.b END)
            THEN 0 ELSE 1 END AS low_label
  FROM xq_km m, xq_km_in i
 WHERE m.k > 0 AND m.a IS NOT NULL AND m.b IS NOT NULL;
-- Valid split: >= 2 steps and >= 10 % of the steady steps in each group.
DELETE FROM xq_km_groups
 WHERE (SELECT min(n) FROM (SELECT count(*) AS n FROM xq_km_groups GROUP BY label)) < 2
    OR (SELECT count(DISTINCT label) FROM xq_km_groups) < 2
    OR (SELECT min(n) * 1.0 / sum(n) FROM (SELECT count(*) AS n FROM xq_km_groups GROUP BY label)) < 0.1;
INSERT INTO xq_stepset
SELECT CASE WHEN label = low_label THEN 'light' ELSE 'heavy' END, step, dur FROM xq_km_groups ORDER BY step;

-- Duration statistics of every set: count, mean (sum of the ascending values
-- / n), median and p90 interpolated at position (n-1)q as
-- v[lo]*(1-w) + v[hi]*w, min, max.
DROP TABLE IF EXISTS temp.xq_sorted;
CREATE TEMP TABLE xq_sorted AS
SELECT set_name, row_number() OVER (PARTITION BY set_name ORDER BY dur, step) - 1 AS i, dur, step
  FROM xq_stepset;
CREATE INDEX temp.xq_sorted_i ON xq_sorted(set_name, i);
-- The sum of each set's ascending values, added one at a time in that order (the
-- reference's float sum): sum() would do, but SQLite 3.43 and later (trace
-- processor's) add doubles with Kahan-Babuska-Neumaier compensation, and its last
-- bits then differ from the plain sum of SQLite 3.40 and of the reference on some
-- sets (the mean step of a live JAX capture differed in its last digits between the
-- two engines).
DROP TABLE IF EXISTS temp.xq_seqsum;
CREATE TEMP TABLE xq_seqsum AS
WITH RECURSIVE acc(set_name, i, s) AS (
  SELECT set_name, 0, dur FROM xq_sorted WHERE i = 0
  UNION ALL
  SELECT a.set_name, a.i + 1, a.s + t.dur FROM acc a JOIN xq_sorted t ON t.set_name = a.set_name AND t.i = a.i + 1)
SELECT set_name, s FROM (SELECT set_name, s, row_number() OVER (PARTITION BY set_name ORDER BY i DESC) AS last FROM acc)
 WHERE last = 1;
DROP TABLE IF EXISTS temp.xq_dstats;
CREATE TEMP TABLE xq_dstats AS
WITH sets(set_name) AS (VALUES ('all'), ('steady'), ('light'), ('heavy')),
-- (MATERIALIZED: each set counted once; trace processor's SQLite evaluated n
-- again for every reference, a count over the steps each time: 0.42 s at
-- 2,200 steps)
n AS MATERIALIZED (SELECT s.set_name, (SELECT count(*) FROM xq_sorted t WHERE t.set_name = s.set_name) AS n FROM sets s),
q(set_name, n, q, pos) AS MATERIALIZED (
  SELECT set_name, n, 0.5, (n - 1) * 0.5 FROM n UNION ALL SELECT set_name, n, 0.9, (n - 1) * 0.9 FROM n),
qv AS MATERIALIZED (
  SELECT set_name, q,
         CASE WHEN n = 0 THEN NULL
              WHEN n = 1 THEN (SELECT dur FROM xq_sorted t WHERE t.set_name = q.set_name AND i = 0)
              ELSE (SELECT dur FROM xq_sorted t WHERE t.set_name = q.set_name AND i = CAST(pos AS INTEGER))
                     * (1.0 - (pos - CAST(pos AS INTEGER)))
                 + (SELECT dur FROM xq_sorted t WHERE t.set_name = q.set_name AND i = min(CAST(pos AS INTEGER) + 1, n - 1))
                     * (pos - CAST(pos AS INTEGER))
         END AS v
    FROM q)
SELECT n.set_name, n.n AS count,
       (SELECT s FROM xq_seqsum ss WHERE ss.set_name = n.set_name) / n.n AS mean,
       (SELECT v FROM qv WHERE qv.set_name = n.set_name AND q = 0.5) AS median,
       (SELECT v FROM qv WHERE qv.set_name = n.set_name AND q = 0.9) AS p90,
       (SELECT min(dur) FROM xq_sorted t WHERE t.set_name = n.set_name) AS min,
       (SELECT max(dur) FROM xq_sorted t WHERE t.set_name = n.set_name) AS max
  FROM n;

-- Step classes: none without steady steps; light + heavy when the split is
-- valid and heavy median / light median >= 1.5; else one `typical` class.
-- Representative step: duration closest to the class median, ties to the
-- lower step. Heavy periodicity: the most common difference > 1 between
-- consecutive heavy steps (ties: smaller), with >= 3 heavy steps, >= 2 such
-- differences, and a count >= 2.
DROP TABLE IF EXISTS temp.xq_classes;
CREATE TEMP TABLE xq_classes AS
WITH split_ok AS (
  SELECT coalesce((SELECT count FROM xq_dstats WHERE set_name = 'light') > 0
              AND (SELECT count FROM xq_dstats WHERE set_name = 'heavy') > 0
              AND (SELECT median FROM xq_dstats WHERE set_name = 'light') > 0
              AND (SELECT median FROM xq_dstats WHERE set_name = 'heavy')
                  / (SELECT median FROM xq_dstats WHERE set_name = 'light') >= 1.5, 0) AS ok),
chosen(seq, name, set_name) AS (
  SELECT 1, 'light', 'light' FROM split_ok WHERE ok
  UNION ALL SELECT 2, 'heavy', 'heavy' FROM split_ok WHERE ok
  UNION ALL SELECT 1, 'typical', 'steady' FROM split_ok
   WHERE NOT ok AND (SELECT count FROM xq_dstats WHERE set_name = 'steady') > 0),
heavy_gaps AS (
  SELECT step - lag(step) OVER (ORDER BY step) AS d FROM xq_stepset WHERE set_name = 'heavy'),
representative AS (
  SELECT x.set_name, x.step, x.dur,
         row_number() OVER (PARTITION BY x.set_name ORDER BY abs(x.dur - st.median), x.step) AS pick
    FROM xq_stepset x JOIN xq_dstats st ON st.set_name = x.set_name),
periodicity AS (
  SELECT CASE WHEN (SELECT count(*) FROM xq_stepset WHERE set_name = 'heavy') >= 3
               AND (SELECT count(*) FROM heavy_gaps WHERE d > 1) >= 2
              THEN (SELECT d FROM heavy_gaps WHERE d > 1 GROUP BY d HAVING count(*) >= 2
                     ORDER BY count(*) DESC, d LIMIT 1) END AS p)
SELECT c.seq, c.name, c.set_name, st.count, st.mean, st.median, st.p90, st.min, st.max,
       CASE WHEN c.name = 'typical' THEN 1.0
            ELSE st.count * 1.0 / (SELECT count FROM xq_dstats WHERE set_name = 'steady') END AS fraction,
       rep.step AS rep_step, rep.dur AS rep_dur,
       CASE WHEN c.name = 'heavy' THEN (SELECT p FROM periodicity) END AS periodicity
  FROM chosen c JOIN xq_dstats st ON st.set_name = c.set_name
  LEFT JOIN representative rep ON rep.set_name = c.set_name AND rep.pick = 1;

-- ---- time breakdown ----------------------------------------------------------
-- exclusive_per_track: self time by event category over every analysis event
-- of every track except `Steps` lines. exclusive_global: a sweep over the
-- device compute/communication events (not on `Steps`), clipped to the window
-- [first start, last end] of the compute ones; each elementary interval is
-- communication if one is active, else compute if one is, else stall.
DROP TABLE IF EXISTS temp.xq_breakdown;
CREATE TEMP TABLE xq_breakdown(category TEXT PRIMARY KEY, ps INTEGER);
INSERT INTO xq_breakdown
WITH c(category) AS (VALUES ('compute'), ('communication'), ('host'), ('stall'), ('other'))
SELECT c.category, coalesce((SELECT sum(self_ps) FROM xq_evgroups g WHERE g.category = c.category AND g.thread <> 'Steps'), 0)
  FROM c
 WHERE (SELECT breakdown_mode FROM xq_file) = 'exclusive_per_track';

DROP TABLE IF EXISTS temp.xq_global_events;
CREATE TEMP TABLE xq_global_events AS
SELECT e.start_ps, e.end_ps, xplane_event_category(e.plane_name, coalesce(nullif(e.display_name, ''), e.name)) AS category
  FROM xq_file f CROSS JOIN xplane_events e -- f first: in the other mode the events are never read
 WHERE f.breakdown_mode = 'exclusive_global'
   AND e.self_ps IS NOT NULL AND e.plane_name LIKE '/device:%'
   AND coalesce(nullif(e.line_display_name, ''), nullif(e.line_name, ''), 'xline:' || e.line_index) <> 'Steps';
DELETE FROM xq_global_events WHERE category NOT IN ('compute', 'communication');
DROP TABLE IF EXISTS temp.xq_window;
CREATE TEMP TABLE xq_window AS
SELECT min(start_ps) AS w0, max(end_ps) AS w1 FROM xq_global_events WHERE category = 'compute';
INSERT INTO xq_breakdown
WITH clipped AS (
  SELECT max(g.start_ps, w.w0) AS s, min(g.end_ps, w.w1) AS e, g.category
    FROM xq_global_events g, xq_window w WHERE w.w1 > w.w0),
points AS (
  SELECT s AS t, category = 'communication' AS dc, category = 'compute' AS dk FROM clipped WHERE e > s
  UNION ALL
  SELECT e, -(category = 'communication'), -(category = 'compute') FROM clipped WHERE e > s),
times AS (SELECT t, sum(dc) AS dc, sum(dk) AS dk FROM points GROUP BY t),
active AS (
  SELECT t, lead(t) OVER (ORDER BY t) AS t_next,
         sum(dc) OVER (ORDER BY t) AS comm, sum(dk) OVER (ORDER BY t) AS comp
    FROM times),
covered AS (
  SELECT coalesce(sum(CASE WHEN comm > 0 THEN t_next - t END), 0) AS comm_ps,
         coalesce(sum(CASE WHEN comm <= 0 AND comp > 0 THEN t_next - t END), 0) AS comp_ps
    FROM active WHERE t_next IS NOT NULL)
SELECT category, ps FROM (
  SELECT 'compute' AS category, comp_ps AS ps FROM covered
  UNION ALL SELECT 'communication', comm_ps FROM covered
  UNION ALL SELECT 'host', 0 UNION ALL SELECT 'other', 0
  UNION ALL SELECT 'stall', max(0, coalesce((SELECT w1 - w0 FROM xq_window WHERE w1 > w0), 0) - comp_ps - comm_ps)
    FROM covered)
 WHERE (SELECT breakdown_mode FROM xq_file) = 'exclusive_global';

DROP TABLE IF EXISTS temp.xq_breakdown_total;
CREATE TEMP TABLE xq_breakdown_total AS
SELECT CASE (SELECT breakdown_mode FROM xq_file)
         WHEN 'exclusive_global' THEN coalesce((SELECT w1 - w0 FROM xq_window WHERE w1 > w0), 0)
         ELSE (SELECT sum(ps) FROM xq_breakdown) END AS ps,
       CASE (SELECT breakdown_mode FROM xq_file)
         WHEN 'exclusive_global' THEN 'exclusive_duration_global_timeline'
         ELSE 'exclusive_duration_per_track' END AS basis;
DROP TABLE IF EXISTS temp.xq_shares;
CREATE TEMP TABLE xq_shares AS
SELECT b.category, b.ps / 1e6 AS us,
       CASE WHEN t.ps > 0 THEN (b.ps / 1e6) / (t.ps / 1e6) ELSE 0.0 END AS share
  FROM xq_breakdown b, xq_breakdown_total t;

-- ---- hot ops -----------------------------------------------------------------
-- Device ops by exact name, ranked by (exclusive desc, total desc, name); the
-- most frequent shape signature, source file and raw tf_op (ties: first seen).
DROP TABLE IF EXISTS temp.xq_hot;
CREATE TEMP TABLE xq_hot AS
-- xplane_op_names keeps these per name (computed once per decode): counts,
-- totals, the modes (ties: first seen) and the FLOP proxy summed over the
-- invocations that have one (family from the name alone, as the reference).
WITH ranked AS (
  SELECT g.name, g.canonical_name, g.category, g.count AS n, g.total_ps, g.self_ps AS excl_ps,
         g.flop_proxy_sum AS flop_sum, g.flop_proxy_count AS flop_n,
         row_number() OVER (ORDER BY g.self_ps DESC, g.total_ps DESC, g.name) AS rank,
         g.shape_signature, g.source_file, g.tf_op AS tf_op_path
    FROM xplane_op_names g)
SELECT r.*, CASE WHEN r.flop_n > 0 THEN r.flop_sum / r.flop_n END AS flop_per_inv
  FROM ranked r
 WHERE r.rank <= (SELECT hot_op_limit FROM xq_file);

-- ---- communication -------------------------------------------------------------
DROP TABLE IF EXISTS temp.xq_comm;
CREATE TEMP TABLE xq_comm AS
SELECT xplane_collective_kind(g.name) AS collective, sum(g.count) AS n, sum(g.self_ps) AS total_ps,
       row_number() OVER (ORDER BY sum(g.self_ps) DESC, xplane_collective_kind(g.name)) AS rank
  FROM xplane_op_names g
 WHERE xplane_is_communication(g.name) GROUP BY 1;

-- ---- semantic families (of the hot ops listed) ---------------------------------
-- Family of "canonical name + ' ' + tf_op path" (docs/ANALYSIS.md); example = the
-- family's highest-ranked op; dominant shape weighted by op count (ties:
-- first inserted); share against max(breakdown total, sum of hot-op exclusive).
DROP TABLE IF EXISTS temp.xq_families;
CREATE TEMP TABLE xq_families AS
WITH fam AS (
  SELECT h.*, xplane_semantic_family(h.canonical_name || CASE WHEN h.tf_op_path <> '' THEN ' ' || h.tf_op_path ELSE '' END) AS family
    FROM xq_hot h),
denom AS (
  SELECT CASE WHEN t.ps > 0 AND o.ps > 0 THEN max(t.ps, o.ps) WHEN t.ps > 0 THEN t.ps ELSE o.ps END / 1e6 AS us
    FROM xq_breakdown_total t, (SELECT coalesce(sum(excl_ps), 0) AS ps FROM xq_hot) o),
agg AS (
  SELECT family, sum(n) AS n, sum(total_ps) AS total_ps, sum(excl_ps) AS excl_ps, min(rank) AS first_rank,
         sum(CASE WHEN flop_per_inv IS NOT NULL AND n > 0 THEN flop_per_inv * n END) AS flop_total,
         sum(CASE WHEN flop_per_inv IS NOT NULL AND n > 0 THEN n ELSE 0 END) AS flop_n
    FROM fam GROUP BY family)
SELECT a.family, a.n, a.total_ps, a.excl_ps,
       (SELECT name FROM fam WHERE fam.family = a.family AND fam.rank = a.first_rank) AS example_op,
       (SELECT shape_signature FROM fam WHERE fam.family = a.family AND shape_signature <> ''
         GROUP BY shape_signature ORDER BY sum(n) DESC, min(rank) LIMIT 1) AS dominant_shape,
       CASE WHEN a.flop_n > 0 THEN a.flop_total END AS flop_total,
       CASE WHEN a.flop_n > 0 AND a.flop_total > 0 THEN (a.excl_ps / 1e6) / a.flop_total END AS time_per_flop,
       CASE WHEN d.us > 0 THEN (a.excl_ps / 1e6) / d.us ELSE 0.0 END AS share,
       row_number() OVER (ORDER BY a.excl_ps DESC, a.family) AS rank
  FROM agg a, denom d;
DELETE FROM xq_families WHERE rank > (SELECT family_limit FROM xq_file);

-- ---- pre-op gaps -----------------------------------------------------------------
-- Each op that starts after everything before it on its track ended is a
-- marker (gap_before_ps > 0); xplane_ops resolved its payload. Aggregated
-- under the payload's name; the marker shown is the most frequent (ties: name).
-- xplane_gaps keeps them grouped by (payload, marker, payload's tf_op),
-- computed once per decode.
DROP TABLE IF EXISTS temp.xq_gap_groups;
CREATE TEMP TABLE xq_gap_groups AS
SELECT g.payload_name AS payload, g.marker_name AS marker, coalesce(g.payload_tf_op, '') AS tf_op,
       g.count AS n, g.total_ps, g.max_ps
  FROM xplane_gaps g;
CREATE INDEX temp.xq_gap_groups_payload ON xq_gap_groups(payload, marker);
DROP TABLE IF EXISTS temp.xq_gaps;
CREATE TEMP TABLE xq_gaps AS
SELECT payload AS name, sum(n) AS n, sum(total_ps) AS total_ps, max(max_ps) AS max_ps,
       (SELECT marker FROM xq_gap_groups x WHERE x.payload = g.payload
         GROUP BY marker ORDER BY sum(n) DESC, marker LIMIT 1) AS marker_op,
       row_number() OVER (ORDER BY sum(total_ps) DESC, max(max_ps) DESC, payload) AS rank
  FROM xq_gap_groups g GROUP BY payload;
DELETE FROM xq_gaps WHERE rank > (SELECT long_limit FROM xq_file);

-- ---- gap context by region ---------------------------------------------------------
-- The payload's scope path cut to 4 parts. A "fallback" path (one part, the
-- canonical name: no usable tf_op) is replaced by the op name's most frequent
-- 4-part path among its ops that have a tf_op with a real path (ties: path).
-- Copy ops are labelled copy / copy(<path>).
-- The paths of every (payload name, tf_op) the two statements below read,
-- each computed once (a rule call costs more than the rest of a row).
DROP TABLE IF EXISTS temp.xq_payload_path;
CREATE TEMP TABLE xq_payload_path(name TEXT, tf_op TEXT, full_path TEXT, path4 TEXT, canonical TEXT);
INSERT INTO xq_payload_path
SELECT name, tf_op, xplane_scope_path(tf_op, name), xplane_scope_path(tf_op, name, 4), xplane_canonical_name(name)
  FROM (SELECT t.name, t.tf_op FROM xplane_op_tf_ops t WHERE t.name IN (SELECT payload FROM xq_gap_groups)
        UNION
        SELECT payload, tf_op FROM xq_gap_groups);
CREATE INDEX temp.xq_payload_path_key ON xq_payload_path(name, tf_op);
DROP TABLE IF EXISTS temp.xq_preferred;
CREATE TEMP TABLE xq_preferred(name TEXT PRIMARY KEY, path TEXT) WITHOUT ROWID;
INSERT INTO xq_preferred
SELECT name, path FROM (
  SELECT name, path, row_number() OVER (PARTITION BY name ORDER BY sum(n) DESC, path) AS pick
    FROM (SELECT t.name, t.count AS n, p.path4 AS path
            FROM xplane_op_tf_ops t
            -- (every name of xq_payload_path is a gap payload's)
            JOIN xq_payload_path p ON p.name IS t.name AND p.tf_op IS t.tf_op
           WHERE NOT (instr(p.full_path, '=>') = 0 AND p.full_path = p.canonical))
   GROUP BY name, path)
 WHERE pick = 1 AND path <> '';
DROP TABLE IF EXISTS temp.xq_gap_regions;
CREATE TEMP TABLE xq_gap_regions AS
WITH named AS MATERIALIZED (   -- the paths depend on the payload name and tf_op alone
  SELECT g.payload, sum(g.n) AS n, sum(g.total_ps) AS gap_ps, p.full_path, p.path4, p.canonical
    FROM xq_gap_groups g
    JOIN xq_payload_path p ON p.name IS g.payload AND p.tf_op IS g.tf_op
   GROUP BY g.payload, g.tf_op),
region AS (
  SELECT payload, n, gap_ps,
         CASE WHEN instr(full_path, '=>') = 0 AND full_path = canonical
                   AND (SELECT path FROM xq_preferred x WHERE x.name = payload) IS NOT NULL
              THEN (SELECT path FROM xq_preferred x WHERE x.name = payload)
              ELSE path4 END AS path,
         lower(canonical) LIKE 'copy%' AS is_copy
    FROM named),
labelled AS (
  SELECT payload, n, gap_ps,
         CASE WHEN NOT is_copy THEN path
              WHEN stripped = '' THEN 'copy'
              WHEN substr(stripped, 1, 5) = 'copy(' THEN stripped
              WHEN lower(stripped) = 'copy' THEN 'copy'
              ELSE 'copy(' || stripped || ')' END AS region_path
    FROM (SELECT *, trim(path, ' ' || char(9, 10, 11, 12, 13)) AS stripped FROM region))
SELECT payload AS op_name, region_path, sum(n) AS n, sum(gap_ps) AS total_ps,
       row_number() OVER (ORDER BY sum(gap_ps) DESC, payload, region_path) AS rank
  FROM labelled GROUP BY payload, region_path;
DELETE FROM xq_gap_regions WHERE rank > (SELECT long_limit FROM xq_file);

-- ---- hierarchical regions ----------------------------------------------------------
-- Every prefix of each op's scope path (parts joined by "=>") is a region:
-- count of ops, inclusive = their exclusive time; the full path also gets
-- exclusive time. A region deeper than 1 with exactly one child region of the
-- same inclusive time (within 1 ps or 1e-9 relative) is dropped: the
-- extension's xplane_scopes, cached per decode.
DROP TABLE IF EXISTS temp.xq_regions;
CREATE TEMP TABLE xq_regions AS
SELECT s.scope_path AS path, s.depth, s.count AS n, s.inclusive_ps, s.exclusive_ps,
       row_number() OVER (ORDER BY s.inclusive_ps DESC, s.exclusive_ps DESC, s.scope_path) AS rank
  FROM xplane_scopes s;
DELETE FROM xq_regions WHERE rank > (SELECT long_limit FROM xq_file);

-- ---- device-op region aggregates ------------------------------------------------
-- Each device op counted under the region window open at its midpoint (an
-- analysis event that is not a device op, with a non-fallback scope path;
-- deepest, then shortest, then greatest path) and its name: the extension's
-- xplane_op_regions, cached per decode. Ranked by (exclusive desc, total desc,
-- region path, op name); max(hot-op limit, 500) rows.
DROP TABLE IF EXISTS temp.xq_op_regions;
CREATE TEMP TABLE xq_op_regions AS
SELECT r.region_path, r.name AS op_name, r.canonical_name, r.category, r.count AS n, r.total_ps,
       r.self_ps AS excl_ps, r.shape_signature,
       row_number() OVER (ORDER BY r.self_ps DESC, r.total_ps DESC, r.region_path, r.name) AS rank
  FROM xplane_op_regions r;
DELETE FROM xq_op_regions WHERE rank > (SELECT long_limit FROM xq_file);

-- ---- the HLO-proto rewrite (the reference's, applied when the document is assembled) ----
-- With `*.hlo_proto.pb` files beside the profile, xplane_hlo_op_paths gives
-- device-op names of gemm_fusion_dot kernels a `jit(train_step)/...dot_general`
-- path (core/hlo.h says how the reference finds it). A hot op whose tf_op path
-- is missing or generic (command_buffer, XlaModule, XlaModule:, command_buffer=>...,
-- anything naming GpuExecutable) takes that path, and so does a device-op region
-- row with a generic region path. Like the reference, only the printed rows
-- change: families, ranks and candidates are computed before it.

-- ---- overview ------------------------------------------------------------------------
-- Every event counts in the total (for a JSON trace: every traceEvents entry);
-- planes are processes; threads are distinct (plane, line id or index + 1),
-- xplane_space.n_threads. Absolute times add back the time base the extension
-- subtracted from epoch-based line times (xplane_space.time_base_ns, usually 0).
DROP TABLE IF EXISTS temp.xq_overview;
CREATE TEMP TABLE xq_overview AS
SELECT coalesce(sp.trace_events, sp.n_events) AS n_total,
       (SELECT coalesce(sum(n), 0) FROM xq_evgroups) AS n_complete,
       sp.n_planes AS n_processes,
       sp.n_threads,
       (SELECT min(first_ps) FROM xq_evgroups) AS start_ps,
       (SELECT max(last_ps) FROM xq_evgroups) AS end_ps,
       sp.sha256, sp.warnings, sp.errors, sp.time_base_ns, sp.source_format, sp.source_file, sp.display_time_unit
  FROM xplane_space sp;

-- ---- optimization candidates ---------------------------------------------------------
-- In order, thresholds exact; T = breakdown total (1.0 when 0), in us.
DROP TABLE IF EXISTS temp.xq_candidates;
CREATE TEMP TABLE xq_candidates(seq INTEGER, candidate_id TEXT, title TEXT, rationale TEXT, evidence TEXT, suggestions TEXT);
INSERT INTO xq_candidates
WITH share(c, m, h, s) AS (
  SELECT (SELECT share FROM xq_shares WHERE category = 'compute'),
         (SELECT share FROM xq_shares WHERE category = 'communication'),
         (SELECT share FROM xq_shares WHERE category = 'host'),
         (SELECT share FROM xq_shares WHERE category = 'stall')),
t(us) AS (SELECT CASE WHEN ps / 1e6 <> 0 THEN ps / 1e6 ELSE 1.0 END FROM xq_breakdown_total),
top_op AS (SELECT name, excl_ps / 1e6 AS excl, (excl_ps / 1e6) / (SELECT us FROM t) AS hot_share FROM xq_hot WHERE rank = 1),
top_gap AS (SELECT name, marker_op, n, total_ps / 1e6 AS total, max_ps / 1e6 AS max,
                   (total_ps / 1e6) / (SELECT us FROM t) AS gap_share FROM xq_gaps WHERE rank = 1),
steady AS (SELECT count, median, p90 FROM xq_dstats WHERE set_name = 'steady'),
found AS (
  SELECT 1 AS seq, 'communication-heavy' AS id, 'Communication appears dominant' AS title,
         'Communication accounts for ' || xplane_format(m, '.1%') || ' of exclusive profiled duration.' AS rationale,
         json_array('Communication share: ' || xplane_format(m, '.1%'),
                    'Top collective: ' || coalesce((SELECT collective FROM xq_comm WHERE rank = 1), 'collectives')) AS evidence,
         json_array('Evaluate sharding/layout choices to reduce collective volume.',
                    'Try overlapping collectives with compute where possible.',
                    'Inspect all-reduce/all-gather callsites for avoidable synchronization.') AS suggestions
    FROM share WHERE m >= 0.15
  UNION ALL
  SELECT 2, 'stall-heavy', 'Stall/wait time is significant',
         'Stall-like events account for ' || xplane_format(s, '.1%') || ' of profiled duration.',
         json_array('Stall share: ' || xplane_format(s, '.1%')),
         json_array('Investigate dependency waits and synchronization barriers.',
                    'Check host input pipeline and device dispatch overlap.',
                    'Reduce unnecessary host-side blocking calls around step execution.')
    FROM share WHERE s >= 0.20
  UNION ALL
  SELECT 3, 'single-hot-op', 'Single op has outsized exclusive time',
         'Top op ''' || name || ''' contributes ' || xplane_format(hot_share, '.1%') || ' of profiled exclusive duration.',
         json_array('Top op: ' || name, 'Top op exclusive duration: ' || xplane_format(excl, '.3f'),
                    'Top op share: ' || xplane_format(hot_share, '.1%')),
         json_array('Inspect kernel implementation and tiling/fusion opportunities for this op.',
                    'Try alternative algorithmic variants or precision/layout adjustments.',
                    'Run a focused microbenchmark on this op before/after tuning changes.')
    FROM top_op WHERE hot_share >= 0.08
  UNION ALL
  SELECT 4, 'pre-op-gap', 'Large idle gaps appear before specific ops',
         'Op ''' || name || ''' accumulates significant pre-op idle gap (' || xplane_format(gap_share, '.1%')
           || ' of total profiled exclusive duration).',
         json_array('Payload op with largest pre-gap: ' || name,
                    'Observed first op after gap (marker): ' || coalesce(nullif(marker_op, ''), name),
                    'Total pre-gap: ' || xplane_format(total, '.3f'), 'Max pre-gap: ' || xplane_format(max, '.3f'),
                    'Occurrences: ' || n),
         json_array('Inspect upstream dependencies immediately before this op.',
                    'Look for host dispatch or synchronization barriers causing the gap.',
                    'Use hierarchical region totals to localize where the waiting accumulates.')
    FROM top_gap WHERE total > 0 AND (gap_share >= 0.05 OR max >= 1000.0)
  UNION ALL
  SELECT 5, 'step-jitter', 'Steady-state step time has high jitter',
         'Steady-state p90/median ratio is ' || xplane_format(p90 / median, '.2f') || ', indicating intermittent slow steps.',
         json_array('Steady median: ' || xplane_format(median, '.3f'), 'Steady p90: ' || xplane_format(p90, '.3f'),
                    'p90/median: ' || xplane_format(p90 / median, '.2f')),
         json_array('Correlate slow steps with collective spikes and host wait events.',
                    'Check for periodic checkpoint/eval/input stalls during profiled range.',
                    'Compare traces before/after disabling optional callbacks or host work.')
    FROM steady WHERE count >= 4 AND median > 0 AND p90 > 0 AND p90 / median >= 1.4)
SELECT seq, id, title, rationale, evidence, suggestions FROM found
UNION ALL
SELECT 6, 'no-dominant-bottleneck', 'No single dominant bottleneck found',
       'Compute, communication, host, and stall shares are relatively balanced.',
       json_array('Compute: ' || xplane_format(c, '.1%'), 'Communication: ' || xplane_format(m, '.1%'),
                  'Host: ' || xplane_format(h, '.1%'), 'Stall: ' || xplane_format(s, '.1%')),
       json_array('Prioritize low-risk wins on top 3 hot ops and re-profile.',
                  'Use before/after summary comparison to confirm throughput impact.')
  FROM share WHERE NOT EXISTS (SELECT 1 FROM found)
 ORDER BY 1;

-- ---- the document ----------------------------------------------------------------------
-- Doubles go through json(xplane_repr(...)) so they print as Python does;
-- counts stay integers. JSON read back from a column is wrapped in json().
DROP TABLE IF EXISTS temp.xq_summary;
CREATE TEMP TABLE xq_summary AS
WITH
now(ts) AS (SELECT strftime('%Y-%m-%dT%H:%M:%S', 'now') || CASE WHEN substr(strftime('%f', 'now'), 4) = '000' THEN ''
                   ELSE '.' || substr(strftime('%f', 'now'), 4) || '000' END || 'Z'),
stats_json(set_name, obj) AS (
  SELECT set_name, json_object('count', count, 'max', json(xplane_repr(max)), 'mean', json(xplane_repr(mean)),
                               'median', json(xplane_repr(median)), 'min', json(xplane_repr(min)),
                               'p90', json(xplane_repr(p90)))
    FROM xq_dstats),
part(category, obj) AS (
  SELECT category, json_object('share_of_total', json(xplane_repr(share)), 'total_duration', json(xplane_repr(us)))
    FROM xq_shares),
warnings(list) AS (
  SELECT json_group_array(w) FROM (
    SELECT 0 AS k, 0 AS i, 'Trace contains exactly ' || xplane_format(n_complete, ',')
             || ' complete events; this often indicates export truncation at a collector cap.' AS w
      FROM xq_overview WHERE n_complete IN (1000000, 5000000)
    UNION ALL SELECT 1, CAST(j.key AS INTEGER), j.value FROM xq_overview o, json_each(o.warnings) j
    UNION ALL SELECT 2, CAST(j.key AS INTEGER), j.value FROM xq_overview o, json_each(o.errors) j
    UNION ALL SELECT 3, 0, 'XPlane protobuf contained no direct timeline events with offset/duration data.'
      FROM xq_overview WHERE n_complete = 0 AND source_format = 'xplane_pb'
    ORDER BY 1, 2))
SELECT json_object(
  'communication_ops', json((SELECT json_group_array(json_object(
      'avg_duration', json(xplane_repr((total_ps / 1e6) / n)), 'collective', collective, 'count', n,
      'total_duration', json(xplane_repr(total_ps / 1e6))))
      FROM (SELECT * FROM xq_comm ORDER BY rank))),
  'device_op_region_aggregates', json((SELECT json_group_array(json_object(
      'avg_duration', json(xplane_repr((total_ps / 1e6) / n)), 'canonical_name', canonical_name,
      'category', category, 'count', n, 'exclusive_duration', json(xplane_repr(excl_ps / 1e6)),
      'op_name', op_name, 'region_path', printed_region_path, 'shape_signature', shape_signature,
      'total_duration', json(xplane_repr(total_ps / 1e6))))
      FROM (SELECT r.*, CASE WHEN p.tf_op_path IS NOT NULL
                                  AND (r.region_path IN ('command_buffer', 'XlaModule', 'XlaModule:')
                                       OR r.region_path GLOB 'command_buffer=>*' OR instr(r.region_path, 'GpuExecutable') > 0)
                             THEN p.tf_op_path ELSE r.region_path END AS printed_region_path
              FROM xq_op_regions r LEFT JOIN xplane_hlo_op_paths p ON p.name = r.op_name ORDER BY r.rank))),
  'gap_before_ops', json((SELECT json_group_array(json_object(
      'avg_gap_duration', json(xplane_repr((total_ps / 1e6) / n)), 'count', n, 'marker_op', marker_op,
      'max_gap_duration', json(xplane_repr(max_ps / 1e6)), 'name', name, 'payload_op', name,
      'total_gap_duration', json(xplane_repr(total_ps / 1e6))))
      FROM (SELECT * FROM xq_gaps ORDER BY rank))),
  'gap_region_contexts', json((SELECT json_group_array(json_object(
      'avg_gap_duration', json(xplane_repr((total_ps / 1e6) / n)), 'count', n, 'op_name', op_name,
      'region_path', region_path, 'total_gap_duration', json(xplane_repr(total_ps / 1e6))))
      FROM (SELECT * FROM xq_gap_regions ORDER BY rank))),
  'generated_at_utc', (SELECT ts FROM now),
  'hierarchical_regions', json((SELECT json_group_array(json_object(
      'count', n, 'depth', depth, 'exclusive_duration', json(xplane_repr(exclusive_ps / 1e6)),
      'inclusive_duration', json(xplane_repr(inclusive_ps / 1e6)), 'path', path))
      FROM (SELECT * FROM xq_regions ORDER BY rank))),
  'hot_ops', json((SELECT json_group_array(json_object(
      'avg_duration', json(xplane_repr((total_ps / 1e6) / n)), 'canonical_name', canonical_name,
      'category', category, 'count', n, 'exclusive_duration', json(xplane_repr(excl_ps / 1e6)),
      'flop_proxy_per_invocation', json(xplane_repr(flop_per_inv)), 'name', name,
      'shape_signature', shape_signature, 'source_file', source_file, 'tf_op_path', printed_tf_op_path,
      'total_duration', json(xplane_repr(total_ps / 1e6))))
      FROM (SELECT h.*, CASE WHEN p.tf_op_path IS NOT NULL AND (h.tf_op_path IS NULL
                                  OR h.tf_op_path IN ('command_buffer', 'XlaModule', 'XlaModule:')
                                  OR h.tf_op_path GLOB 'command_buffer=>*' OR instr(h.tf_op_path, 'GpuExecutable') > 0)
                             THEN p.tf_op_path ELSE h.tf_op_path END AS printed_tf_op_path
              FROM xq_hot h LEFT JOIN xplane_hlo_op_paths p ON p.name = h.name ORDER BY h.rank))),
  'optimization_candidates', json((SELECT json_group_array(json_object(
      'candidate_id', candidate_id, 'evidence', json(evidence), 'rationale', rationale,
      'suggestions', json(suggestions), 'title', title))
      FROM (SELECT * FROM xq_candidates ORDER BY seq))),
  'run_metadata', json_object('artifact_name', NULL, 'artifact_ref', NULL, 'config_hash', NULL, 'git_sha', NULL,
      'hardware_type', NULL, 'mesh_or_topology', NULL, 'num_devices', NULL, 'num_hosts', NULL,
      'run_id', NULL, 'run_path', NULL),
  'schema_version', 'profile_summary.v1',
  'semantic_families', json((SELECT json_group_array(json_object(
      'avg_duration', json(xplane_repr(CASE WHEN n > 0 THEN (total_ps / 1e6) / n ELSE 0.0 END)),
      'avg_exclusive_duration', json(xplane_repr(CASE WHEN n > 0 THEN (excl_ps / 1e6) / n ELSE 0.0 END)),
      'count', n, 'dominant_shape_signature', dominant_shape, 'example_op', example_op,
      'exclusive_duration', json(xplane_repr(excl_ps / 1e6)), 'family', family,
      'flop_proxy_total', json(xplane_repr(flop_total)), 'share_of_total', json(xplane_repr(share)),
      'time_per_flop_proxy', json(xplane_repr(time_per_flop)), 'total_duration', json(xplane_repr(total_ps / 1e6))))
      FROM (SELECT * FROM xq_families ORDER BY rank))),
  'source_format', (SELECT source_format FROM xq_overview),
  'source_path', (SELECT source_file FROM xq_overview),
  'step_time', json_object(
      'all_steps', json((SELECT obj FROM stats_json WHERE set_name = 'all')),
      'classes', json((SELECT json_group_array(json_object(
          'count', count,
          'duration_stats', json_object('count', count, 'max', json(xplane_repr(max)), 'mean', json(xplane_repr(mean)),
                                        'median', json(xplane_repr(median)), 'min', json(xplane_repr(min)),
                                        'p90', json(xplane_repr(p90))),
          'fraction_of_steady', json(xplane_repr(fraction)), 'name', name, 'periodicity', periodicity,
          'representative_duration', json(xplane_repr(rep_dur)), 'representative_step', rep_step))
          FROM (SELECT * FROM xq_classes ORDER BY seq))),
      'steady_state_steps', json((SELECT obj FROM stats_json WHERE set_name = 'steady')),
      'warmup_steps_ignored', (SELECT warmup_steps FROM xq_file)),
  'time_breakdown', json_object(
      'communication', json((SELECT obj FROM part WHERE category = 'communication')),
      'compute', json((SELECT obj FROM part WHERE category = 'compute')),
      'duration_basis', (SELECT basis FROM xq_breakdown_total),
      'host', json((SELECT obj FROM part WHERE category = 'host')),
      'other', json((SELECT obj FROM part WHERE category = 'other')),
      'stall', json((SELECT obj FROM part WHERE category = 'stall')),
      'total_duration', json((SELECT xplane_repr(ps / 1e6) FROM xq_breakdown_total))),
  'trace_overview', json((SELECT json_object(
      'display_time_unit', display_time_unit, 'duration_basis', 'exclusive_duration_per_track',
      'num_complete_events', n_complete, 'num_events_total', n_total, 'num_processes', n_processes,
      'num_threads', n_threads, 'profile_end_ts', json(xplane_repr(time_base_ns / 1e3 + end_ps / 1e6)),
      'profile_start_ts', json(xplane_repr(time_base_ns / 1e3 + start_ps / 1e6)),
      'quality_warnings', json((SELECT list FROM warnings)),
      'suspected_truncation', json(CASE WHEN n_complete IN (1000000, 5000000) THEN 'true' ELSE 'false' END))
      FROM xq_overview)),
  'trace_provenance', json_object(
      'run_ids', json((SELECT json_group_array(text) FROM (SELECT text FROM xq_hints WHERE kind = 'run_id' AND rank <= 20 ORDER BY rank))),
      'source_file_hints', json((SELECT json_group_array(text) FROM (SELECT text FROM xq_hints WHERE kind = 'source' AND rank <= 20 ORDER BY rank))),
      'trace_sha256', (SELECT sha256 FROM xq_overview))
) AS doc;
