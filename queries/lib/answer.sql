-- queries/lib/answer.sql: common start of the question files (queries/top_ops.sql & co.).
--
-- Reads the parameters, builds the summary document of @profile (one source
-- of truth: queries/lib/summary_json.sql) and normalizes the optional @op
-- target into temp.xq_target(target) the way the reference normalizes a
-- question's target: surrounding white space and `"'?.!, stripped, a leading
-- "op " or "operation " dropped; empty means none (NULL). Answers are printed
-- as JSON with xplane_json_pretty (indent 2, keys sorted), as the reference
-- CLI prints `profile_summary query`.
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/use_profile.sql
.read queries/lib/summary_json.sql
DROP TABLE IF EXISTS temp.xq_target;
CREATE TEMP TABLE xq_target AS
WITH t0(t) AS (SELECT trim(trim((SELECT op FROM xq_input), ' ' || char(9, 10, 11, 12, 13)), '`"''?.!, ')),
t1(t) AS (
  SELECT CASE WHEN lower(t) LIKE 'operation_%' AND substr(t, 10, 1) IN (' ', char(9), char(10), char(13))
              THEN ltrim(substr(t, 10), ' ' || char(9, 10, 11, 12, 13))
              WHEN lower(t) LIKE 'op_%' AND substr(t, 3, 1) IN (' ', char(9), char(10), char(13))
              THEN ltrim(substr(t, 3), ' ' || char(9, 10, 11, 12, 13))
              ELSE t END FROM t0)
SELECT nullif(t, '') AS target FROM t1;
.mode list
.headers off
