-- queries/lib/ask_gap_context.sql: the answer of queries/gap_context.sql (and gap_context_from_summary.sql),
-- printed from temp.xq_summary, xq_input and xq_target (lib/answer.sql or
-- lib/answer_saved.sql builds them). Read by those two files only.
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
