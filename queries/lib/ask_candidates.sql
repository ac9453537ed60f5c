-- queries/lib/ask_candidates.sql: the answer of queries/candidates.sql (and candidates_from_summary.sql),
-- printed from temp.xq_summary, xq_input and xq_target (lib/answer.sql or
-- lib/answer_saved.sql builds them). Read by those two files only.
SELECT xplane_json_pretty(json_object(
  'query_type', 'optimization_candidates',
  'results', json(s.doc ->> '$.optimization_candidates'))) AS document
  FROM xq_summary s;
