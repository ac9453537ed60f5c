-- queries/lib/answer_saved.sql: lib/answer.sql from a saved summary (@summary) instead of a profile.
-- sqlite3-only: lib/saved_summary.sql reads the file with the shell's readfile().
--
-- Common start of the question files *_from_summary.sql: reads the parameters,
-- fills temp.xq_summary from @summary (queries/lib/saved_summary.sql), and
-- the @op target (queries/lib/target.sql); then the question's
-- queries/lib/ask_<question>.sql prints the answer the profile would give.
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/saved_summary.sql
.read queries/lib/target.sql
.mode list
.headers off
