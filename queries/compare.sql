-- queries/compare.sql: compare two profiles (before / after).
-- sqlite3-only: it reads two profiles, and trace processor holds one trace.
--
-- @format json (default): the comparison document of the field's reference
-- (`profile_summary compare`); @format markdown: the same as a report
-- (queries/lib/compare_print.sql says what each holds). To compare two
-- summary documents printed earlier (by either engine), use
-- compare_summaries.sql.
--
-- Parameters: @before and @after (required: .xplane.pb files or directories
-- holding one), @top_k ops per list (default 10), @format, and @warmup_steps,
-- @hot_op_limit, @breakdown_mode for both summaries.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @before base.xplane.pb" \
--           -cmd ".parameter set @after new.xplane.pb" :memory: '.read queries/compare.sql'
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/compare_build.sql
.read queries/lib/compare_json.sql
.read queries/lib/compare_print.sql
.read queries/lib/cleanup.sql
