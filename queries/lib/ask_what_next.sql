-- queries/lib/ask_what_next.sql: the answer of queries/what_next.sql (and
-- what_next_from_summary.sql), from temp.xq_summary (the summary document)
-- and temp.xq_findings_doc (the findings as candidates): the findings'
-- candidates in their order, then the summary's optimization candidates in
-- theirs, each marked with its "source".
SELECT xplane_json_pretty(json_object(
  'query_type', 'what_next',
  'results', json((SELECT json_group_array(json(c)) FROM (
      SELECT json_set(j.value, '$.source', 'finding') AS c, 0 AS g, j.key AS k
        FROM xq_findings_doc f, json_each(f.doc, '$.candidates') j
      UNION ALL
      SELECT json_set(j.value, '$.source', 'profile_summary'), 1, j.key
        FROM json_each(s.doc, '$.optimization_candidates') j
      ORDER BY g, k))))) AS document
  FROM xq_summary s;
