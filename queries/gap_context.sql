-- queries/gap_context.sql: "Show the gap context (region) for op X."
--
-- Prints {"query_type": "gap_region_context", "target": X or null,
-- "results": [gap region contexts]}: the contexts of op X (exact op name,
-- case-insensitive; failing that, names containing X), or the first ones
-- when @op is not set; at most @top_k (default 10). Each has op_name,
-- region_path (the payload's name-scope path cut to 4 parts; copy ops as
-- copy(<path>)), count, total_gap_duration, avg_gap_duration (microseconds).
-- Parameters: @profile (required), @op, @top_k, and those of summary.sql.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile host.xplane.pb" \
--           -cmd ".parameter set @op copy.1" :memory: '.read queries/gap_context.sql'
.read queries/lib/answer.sql
WITH contexts AS (
  SELECT CAST(j.key AS INTEGER) AS i, j.value AS ctx, lower(j.value ->> '$.op_name') AS op
    FROM xq_summary s, json_each(s.doc, '$.gap_region_contexts') j),
t(t) AS (SELECT lower(target) FROM xq_target WHERE target IS NOT NULL),
exact AS (SELECT i, ctx FROM contexts, t WHERE op = t.t),
picked AS (
  SELECT i, ctx FROM contexts WHERE NOT EXISTS (SELECT 1 FROM t)
  UNION ALL SELECT i, ctx FROM exact
  UNION ALL SELECT i, ctx FROM contexts, t WHERE instr(op, t.t) AND NOT EXISTS (SELECT 1 FROM exact))
SELECT xplane_json_pretty(json_object(
  'query_type', 'gap_region_context',
  'target', (SELECT target FROM xq_target),
  'results', json((SELECT json_group_array(json(ctx)) FROM (SELECT ctx FROM picked ORDER BY i LIMIT (SELECT top_k FROM xq_input)))))) AS document;
.read queries/lib/cleanup.sql
