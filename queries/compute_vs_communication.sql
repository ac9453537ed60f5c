-- queries/compute_vs_communication.sql: "Is compute or communication dominating?"
--
-- Prints {"query_type": "compute_vs_communication", "dominant":
-- "communication" | "compute", "compute_share", "communication_share",
-- "communication_breakdown": [the first @top_k collectives: collective, count,
-- total_duration, avg_duration]}. Communication dominates only when its share
-- of the time breakdown is strictly larger than compute's.
-- Parameters: @profile (required), @top_k (default 10), @breakdown_mode and
-- the others of summary.sql.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile host.xplane.pb" :memory: '.read queries/compute_vs_communication.sql'
.read queries/lib/answer.sql
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
.read queries/lib/cleanup.sql
