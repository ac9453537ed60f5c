-- queries/hierarchical_regions_from_summary.sql: "Show the hierarchical regions.", answered from a saved summary.
-- sqlite3-only: it reads @summary with the shell's readfile().
--
-- The same question and the same output as queries/hierarchical_regions.sql, from @summary (a
-- profile_summary.v1 file: `xplane summarize -o FILE` or summary.sql's output)
-- instead of @profile: no profile is read. Its other parameters are those of
-- hierarchical_regions.sql (@top_k, @op, ...; the summary options were fixed when the summary
-- was made).
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @summary 'run.summary.json'" :memory: '.read queries/hierarchical_regions_from_summary.sql'
.read queries/lib/answer_saved.sql
.read queries/lib/ask_hierarchical_regions.sql
.read queries/lib/cleanup.sql
