-- queries/candidates.sql: "What should I try next?"
--
-- Prints {"query_type": "optimization_candidates", "results": [...]}: every
-- optimization candidate of the summary, in order (communication-heavy,
-- stall-heavy, single-hot-op, pre-op-gap, step-jitter; else
-- no-dominant-bottleneck), each with candidate_id, title, rationale, evidence
-- and suggestions.
-- Parameters: @profile (required), and those of summary.sql.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile host.xplane.pb" :memory: '.read queries/candidates.sql'
.read queries/lib/answer.sql
.read queries/lib/ask_candidates.sql
.read queries/lib/cleanup.sql
