-- aggregates_real.sql: the cached report aggregates (xplane_tracks,
-- xplane_op_names, xplane_hints) equal the same numbers computed in plain SQL
-- from the row tables, on every real profile.
.load @EXT@
.mode list
.separator ' | '
CREATE TEMP TABLE ops AS SELECT * FROM xplane_ops('@DATA@');

-- Tracks: per line and category, the analysis events' count, duration, self
-- time and span, against xplane_events with the category function.
CREATE TEMP TABLE by_sql AS
  SELECT host, plane_index, line_index,
         xplane_event_category(plane_name, coalesce(nullif(display_name, ''), name)) AS category,
         count(*) AS n, sum(dur_ps) AS dur, sum(self_ps) AS self, min(start_ps) AS first, max(end_ps) AS last
    FROM xplane_events('@DATA@') WHERE self_ps IS NOT NULL
   GROUP BY 1, 2, 3, 4;
SELECT 'tracks', count(*) AS rows,
       sum(t.n_events = s.n AND t.dur_ps = s.dur AND t.self_ps = s.self AND t.first_start_ps = s.first
           AND t.last_end_ps = s.last) AS agree,
       (SELECT count(*) FROM by_sql) AS sql_rows
  FROM xplane_tracks('@DATA@') t
  JOIN by_sql s USING (host, plane_index, line_index, category);

-- Op names: count, totals, and the modes (most frequent, ties to the first op).
CREATE TEMP TABLE mode_shape AS
  SELECT host, name, shape_signature AS v FROM (
    SELECT host, name, shape_signature, row_number() OVER (PARTITION BY host, name
             ORDER BY count(*) DESC, min(op_id)) AS r
      FROM ops WHERE shape_signature IS NOT NULL GROUP BY host, name, shape_signature) WHERE r = 1;
CREATE TEMP TABLE mode_tf AS
  SELECT host, name, tf_op AS v FROM (
    SELECT host, name, tf_op, row_number() OVER (PARTITION BY host, name ORDER BY count(*) DESC, min(op_id)) AS r
      FROM ops WHERE tf_op IS NOT NULL GROUP BY host, name, tf_op) WHERE r = 1;
SELECT 'op_names', count(*) AS names,
       sum(g.count = o.n AND g.total_ps = o.total AND g.self_ps = o.self AND g.first_op_id = o.first) AS agree,
       sum(g.shape_signature IS ms.v) AS shape_agree, sum(g.tf_op IS mt.v) AS tf_op_agree
  FROM xplane_op_names('@DATA@') g
  JOIN (SELECT host, name, count(*) AS n, sum(dur_ps) AS total, sum(self_ps) AS self, min(op_id) AS first
          FROM ops GROUP BY host, name) o USING (host, name)
  LEFT JOIN mode_shape ms USING (host, name) LEFT JOIN mode_tf mt USING (host, name);

-- FLOP proxy: per name, the sum over invocations with a signature of the
-- proxy for the name's family (from the canonical name).
SELECT 'flop_proxy', count(*), sum(abs(g.flop_proxy_sum - f.s) <= 1e-9 * f.s) FROM xplane_op_names('@DATA@') g
  JOIN (SELECT host, name, sum(xplane_flop_proxy(xplane_semantic_family(canonical_name), shape_signature)) AS s
          FROM ops GROUP BY host, name HAVING s > 0) f USING (host, name);

-- Hints: run_id values over all analysis events (TPU: the module runs).
SELECT host, kind, count(*), sum(count), min(first_seen) FROM xplane_hints('@DATA@') GROUP BY host, kind ORDER BY host, kind;
SELECT 'run_id check', count(*) FROM xplane_events('@DATA@/xprof_tpu_inference_2.xplane.pb')
 WHERE self_ps IS NOT NULL AND stats ->> '$.run_id' IS NOT NULL;
