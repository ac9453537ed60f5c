-- queries/lib/compare_saved.sql: the two summary documents of compare.sql / track.sql, from saved files.
-- sqlite3-only: readfile() is the shell's (the xplane command registers the same).
--
-- Read in place of queries/lib/compare_build.sql (`xplane compare` and
-- `xplane track` do when BEFORE or AFTER is a saved summary): fills
-- temp.xq_before(doc) and temp.xq_after(doc) from the files @before_summary and
-- @after_summary, as compare_summaries.sql does, so compare.sql and track.sql
-- accept saved summaries as the reference's compare and track do. Read after
-- checks.sql, params.sql and input.sql.
.read queries/lib/read_summary_files.sql
.read queries/lib/input.sql
.read queries/lib/summary_docs.sql
