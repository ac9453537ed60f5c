-- queries/report.sql: print the markdown root-cause report of one profile.
--
-- Sections, in order: run metadata, trace provenance, trace overview (with
-- truncation and quality warnings), steady-state step time, step classes,
-- time breakdown (with its basis), hierarchical regions, top ops by exclusive
-- (self) time, semantic families, communication collectives, pre-op gaps
-- (payload and marker), gap context by region, optimization candidates.
-- Rendered from the summary document (queries/lib/summary_json.sql) by
-- queries/lib/report_md.sql: the report and summary.sql never disagree.
-- Output is byte-identical to the reference's `report --output` file, except
-- generated_at_utc.
--
-- Parameters: those of summary.sql (@profile required, @warmup_steps,
-- @hot_op_limit, @breakdown_mode), plus @top_k rows per table (default 10).
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile run/host.xplane.pb" \
--           :memory: '.read queries/report.sql' > report.md
--
-- From a saved summary instead of the profile: queries/report_from_summary.sql.
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/use_profile.sql
.read queries/lib/summary_json.sql
.read queries/lib/report_print.sql
.read queries/lib/cleanup.sql
