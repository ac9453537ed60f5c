-- queries/profile_compare.sql: compare two profiles (before / after) by the
-- device-time model, in markdown: `xplane compare --format markdown` on two
-- profiles. Sections (queries/lib/profile_compare_md.sql): the header with
-- provenance and each side's hardware (a warning when it differs), Device
-- Time, Steps, Top Device Op Changes; times in ms.
-- sqlite3-only: it reads two profiles, and trace processor holds one trace.
--
-- The reference summarizer's comparison (its JSON document, and that
-- document as markdown) is queries/compare.sql (`xplane compare`, `--format
-- json`; `--format reference`).
--
-- Parameters: @before and @after (required: .xplane.pb files or directories
-- holding one), @top_k ops (default 10), @warmup_steps, and @hot_op_limit,
-- @breakdown_mode for the provenance's summaries.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @before base.xplane.pb" \
--           -cmd ".parameter set @after new.xplane.pb" :memory: '.read queries/profile_compare.sql'
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/compare_build.sql
.read queries/lib/compare_json.sql
.read queries/lib/profile_compare_md.sql
.mode list
.headers off
SELECT rtrim(group_concat(line, char(10)), ' ' || char(10)) FROM (SELECT line FROM xq_pmd ORDER BY seq);
.read queries/lib/cleanup.sql
