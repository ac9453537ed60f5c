-- queries/lib/saved_summary.sql: the summary document from a file saved earlier (@summary).
-- sqlite3-only: readfile() is the shell's (the xplane command registers the same).
--
-- Fills temp.xq_summary(doc), as queries/lib/summary_json.sql does from a
-- profile, from @summary: a profile_summary.v1 JSON file (summary.sql's or
-- `xplane summarize`'s output). Read it in place of queries/lib/use_profile.sql
-- and queries/lib/summary_json.sql (`xplane report --summary FILE` and
-- `xplane query --summary FILE` do), after checks.sql, params.sql and
-- input.sql; the rendering files (report_md.sql, the question files' SELECT)
-- read only xq_summary, so a saved summary gives the bytes the profile gives.
-- A file that cannot be read or is not such a document stops the script.
INSERT INTO xq_fail SELECT 'summary-file' FROM xq_input
 WHERE NOT coalesce(json_valid(CAST(readfile(CAST(@summary AS TEXT)) AS TEXT)), 0)
    OR json_extract(CAST(readfile(CAST(@summary AS TEXT)) AS TEXT), '$.schema_version') IS NOT 'profile_summary.v1';
DROP TABLE IF EXISTS temp.xq_summary;
CREATE TEMP TABLE xq_summary AS SELECT json(CAST(readfile(CAST(@summary AS TEXT)) AS TEXT)) AS doc;
