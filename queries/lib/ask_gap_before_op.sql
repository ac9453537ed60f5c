-- queries/lib/ask_gap_before_op.sql: the answer of queries/gap_before_op.sql (and gap_before_op_from_summary.sql),
-- printed from temp.xq_summary, xq_input and xq_target (lib/answer.sql or
-- lib/answer_saved.sql builds them). Read by those two files only.
WITH gaps AS (
  SELECT CAST(j.key AS INTEGER) AS i, j.value AS gap,
         lower(j.value ->> '$.name') AS n, lower(coalesce(j.value ->> '$.payload_op', '')) AS p,
         lower(coalesce(j.value ->> '$.marker_op', '')) AS m
    FROM xq_summary s, json_each(s.doc, '$.gap_before_ops') j),
contexts AS (
  SELECT CAST(j.key AS INTEGER) AS i, j.value AS ctx, lower(j.value ->> '$.op_name') AS op
    FROM xq_summary s, json_each(s.doc, '$.gap_region_contexts') j),
t(t) AS (SELECT lower(target) FROM xq_target WHERE target IS NOT NULL),
matched AS (
  SELECT coalesce(
    (SELECT gap FROM gaps, t WHERE t.t IN (n, nullif(p, ''), nullif(m, '')) ORDER BY i LIMIT 1),
    (SELECT gap FROM gaps, t WHERE instr(n, t.t) OR (p <> '' AND instr(p, t.t)) OR (m <> '' AND instr(m, t.t))
      ORDER BY i LIMIT 1)) AS gap),
exact AS (SELECT i, ctx FROM contexts, t WHERE op = t.t),
picked AS (
  SELECT i, ctx FROM exact
  UNION ALL SELECT i, ctx FROM contexts, t WHERE instr(op, t.t) AND NOT EXISTS (SELECT 1 FROM exact))
SELECT xplane_json_pretty(CASE WHEN (SELECT target FROM xq_target) IS NULL
  THEN json_object('query_type', 'pre_op_gap',
                   'top_gaps', json((SELECT json_group_array(json(gap)) FROM (SELECT gap FROM gaps WHERE i < k ORDER BY i))))
  ELSE json_object('query_type', 'pre_op_gap', 'target', (SELECT target FROM xq_target),
                   'match', json((SELECT gap FROM matched)),
                   'context', json((SELECT json_group_array(json(ctx)) FROM (SELECT ctx FROM picked ORDER BY i LIMIT (SELECT top_k FROM xq_input)))),
                   'top_gaps', json((SELECT json_group_array(json(gap)) FROM (SELECT gap FROM gaps WHERE i < k ORDER BY i))))
  END) AS document
  FROM (SELECT top_k AS k FROM xq_input);
