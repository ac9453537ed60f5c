-- queries/lib/answer.sql: common start of the question files (queries/top_ops.sql & co.).
--
-- Reads the parameters, builds the summary document of @profile (one source
-- of truth: queries/lib/summary_json.sql) and normalizes the optional @op
-- target into temp.xq_target(target) (queries/lib/target.sql); then each
-- question file reads its answer, queries/lib/ask_<question>.sql. The
-- *_from_summary.sql files read lib/answer_saved.sql instead. Answers are printed
-- as JSON with xplane_json_pretty (indent 2, keys sorted), as the reference
-- CLI prints `profile_summary query`.
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/use_profile.sql
.read queries/lib/summary_json.sql
.read queries/lib/target.sql
.mode list
.headers off
