-- sqlite3-only: reads xplane_findings, which the PerfettoSQL package does not define
-- queries/what_next.sql: "What should I try next?", answered from the
-- findings first: the performance killers xplane_findings detected in the
-- profile (queries/lib/findings_json.sql: high severity first, then time),
-- then the reference summary's optimization candidates (queries/candidates.sql
-- prints those alone, byte-equal to the reference tool).
--
-- Prints {"query_type": "what_next", "results": [...]}: each result is a
-- candidate (candidate_id, title, rationale, evidence, suggestions) with
-- "source": "finding" (it also carries the finding row) or
-- "profile_summary".
-- Parameters: @profile (required), @finding_params, and those of summary.sql.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile host.xplane.pb" :memory: '.read queries/what_next.sql'
.read queries/lib/answer.sql
.read queries/lib/findings_json.sql
.read queries/lib/ask_what_next.sql
.read queries/lib/cleanup.sql
