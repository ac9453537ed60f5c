-- queries/lib/ask_compute_vs_communication.sql: the answer of queries/compute_vs_communication.sql (and compute_vs_communication_from_summary.sql),
-- printed from temp.xq_summary, xq_input and xq_target (lib/answer.sql or
-- lib/answer_saved.sql builds them). Read by those two files only.
SELECT xplane_json_pretty(json_object(
  'query_type', 'compute_vs_communication',
  'dominant', CASE WHEN s.doc ->> '$.time_breakdown.communication.share_of_total'
                        > s.doc ->> '$.time_breakdown.compute.share_of_total'
                   THEN 'communication' ELSE 'compute' END,
  'compute_share', json(xplane_repr(s.doc ->> '$.time_breakdown.compute.share_of_total')),
  'communication_share', json(xplane_repr(s.doc ->> '$.time_breakdown.communication.share_of_total')),
  'communication_breakdown', json((SELECT json_group_array(json(j.value)) FROM json_each(s.doc, '$.communication_ops') j
                               WHERE j.key < i.top_k)))) AS document
  FROM xq_summary s, xq_input i;
