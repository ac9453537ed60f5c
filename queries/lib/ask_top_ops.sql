-- queries/lib/ask_top_ops.sql: the answer of queries/top_ops.sql (and top_ops_from_summary.sql),
-- printed from temp.xq_summary, xq_input and xq_target (lib/answer.sql or
-- lib/answer_saved.sql builds them). Read by those two files only.
SELECT xplane_json_pretty(json_object(
  'query_type', 'top_ops',
  'results', json((SELECT json_group_array(json(j.value)) FROM json_each(s.doc, '$.hot_ops') j WHERE j.key < i.top_k)))) AS document
  FROM xq_summary s, xq_input i;
