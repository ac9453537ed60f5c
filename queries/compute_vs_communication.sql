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
.read queries/lib/ask_compute_vs_communication.sql
.read queries/lib/cleanup.sql
