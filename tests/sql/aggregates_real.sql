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

-- Gap groups: (payload, marker, payload tf_op) with count, total and max gap.
CREATE TEMP TABLE gap_sql AS
  SELECT m.host, p.name AS payload, m.name AS marker, coalesce(p.tf_op, '') AS tf, count(*) AS n,
         sum(m.gap_before_ps) AS total, max(m.gap_before_ps) AS mx
    FROM ops m JOIN ops p ON p.host = m.host AND p.op_id = m.gap_payload_op_id
   WHERE m.gap_before_ps > 0 GROUP BY 1, 2, 3, 4;
SELECT 'gaps', count(*) AS groups, sum(g.count = s.n AND g.total_ps = s.total AND g.max_ps = s.mx) AS agree,
       (SELECT count(*) FROM gap_sql) AS sql_groups
  FROM xplane_gaps('@DATA@') g
  JOIN gap_sql s ON s.host = g.host AND s.payload = g.payload_name AND s.marker = g.marker_name
                AND s.tf = coalesce(g.payload_tf_op, '');
-- Name x tf_op counts.
SELECT 'tf_ops', count(*) AS pairs, sum(t.count = s.n AND t.first_op_id = s.first) AS agree,
       (SELECT count(*) FROM (SELECT DISTINCT host, name, tf_op FROM ops WHERE tf_op IS NOT NULL)) AS sql_pairs
  FROM xplane_op_tf_ops('@DATA@') t
  JOIN (SELECT host, name, tf_op, count(*) AS n, min(op_id) AS first FROM ops WHERE tf_op IS NOT NULL
         GROUP BY 1, 2, 3) s USING (host, name, tf_op);
