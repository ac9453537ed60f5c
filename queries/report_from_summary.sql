-- queries/report_from_summary.sql: the markdown report of a saved summary (@summary).
-- sqlite3-only: it reads @summary with the shell's readfile().
--
-- The bytes queries/report.sql prints for the profile the summary was made
-- from (a profile_summary.v1 file: `xplane summarize -o FILE` or summary.sql's
-- output): no profile is read. Parameters: @summary (required), @top_k (rows
-- per table, default 10).
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @summary 'run.summary.json'" :memory: '.read queries/report_from_summary.sql' > report.md
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/saved_summary.sql
.read queries/lib/report_print.sql
.read queries/lib/cleanup.sql
