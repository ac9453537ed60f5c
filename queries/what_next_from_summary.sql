-- queries/what_next_from_summary.sql: queries/what_next.sql's answer from a
-- saved summary (@summary). The findings are the summary's `xplane_findings`
-- key, which `xplane summarize` writes with queries/summary_findings.sql; a
-- summary without it (the reference's document) answers with its
-- optimization candidates only.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @summary s.json" :memory: '.read queries/what_next_from_summary.sql'
.read queries/lib/answer_saved.sql
DROP TABLE IF EXISTS temp.xq_findings_doc;
CREATE TEMP TABLE xq_findings_doc AS
SELECT json_object('candidates', json(coalesce(doc -> '$.xplane_findings.candidates', '[]'))) AS doc FROM xq_summary;
.read queries/lib/ask_what_next.sql
.read queries/lib/cleanup.sql
