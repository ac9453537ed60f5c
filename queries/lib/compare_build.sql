-- queries/lib/compare_build.sql: the summary documents of @before and @after.
-- sqlite3-only: it reads two profiles, and trace processor holds one trace.
--
-- Builds the summary document of each profile (queries/lib/summary_json.sql,
-- same @warmup_steps/@hot_op_limit/@breakdown_mode for both) into
-- temp.xq_before(doc) and temp.xq_after(doc), which queries/lib/compare_json.sql
-- compares. (queries/lib/summary_docs.sql fills the same two tables from
-- summary documents printed earlier, by either engine.)
-- Read queries/lib/checks.sql, params.sql and input.sql first.

INSERT INTO xq_fail SELECT 'compare-unset' WHERE @before IS NULL OR @after IS NULL OR @before = '' OR @after = '';
UPDATE xq_input SET profile = CAST(@before AS TEXT);
.read queries/lib/use_profile.sql
.read queries/lib/summary_json.sql
DROP TABLE IF EXISTS temp.xq_before;
CREATE TEMP TABLE xq_before AS SELECT doc FROM xq_summary;
UPDATE xq_input SET profile = CAST(@after AS TEXT);
.read queries/lib/use_profile.sql
.read queries/lib/summary_json.sql
DROP TABLE IF EXISTS temp.xq_after;
CREATE TEMP TABLE xq_after AS SELECT doc FROM xq_summary;
