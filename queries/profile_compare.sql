-- queries/profile_compare.sql: compare two profiles (before / after) by the
-- device-time model: `xplane compare` on two profiles. @format json (the
-- default): the document "xplane_compare.v1" (queries/lib/profile_compare_doc.sql
-- says what it holds; ms); @format markdown: the same figures as a report
-- (queries/lib/profile_compare_md.sql: the header with provenance and each
-- side's hardware, a warning when it differs, Device Time, Steps, Top Device
-- Op Changes; ms). Both read lib/profile_compare_build.sql's figures.
-- sqlite3-only: it reads two profiles, and trace processor holds one trace.
--
-- The reference summarizer's comparison (its JSON document, and that
-- document as markdown) is queries/compare.sql (`xplane compare --format
-- reference-json`; `--format reference`).
--
-- Parameters: @before and @after (required: .xplane.pb files or directories
-- holding one), @top_k ops (default 10), @format, @warmup_steps, and
-- @hot_op_limit, @breakdown_mode for the provenance's summaries.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @before base.xplane.pb" \
--           -cmd ".parameter set @after new.xplane.pb" :memory: '.read queries/profile_compare.sql'
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/compare_build.sql
.read queries/lib/compare_json.sql
.read queries/lib/profile_compare_build.sql
.read queries/lib/profile_compare_doc.sql
.read queries/lib/profile_compare_md.sql
.mode list
.headers off
SELECT xplane_json_pretty(doc) FROM xq_pcdoc WHERE (SELECT format FROM xq_input) = 'json';
SELECT rtrim(group_concat(line, char(10)), ' ' || char(10)) FROM (SELECT line FROM xq_pmd ORDER BY seq)
HAVING (SELECT format FROM xq_input) = 'markdown';
.read queries/lib/cleanup.sql
