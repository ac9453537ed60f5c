-- queries/lib/target.sql: the question's optional @op target, normalized into temp.xq_target(target)
-- the way the reference normalizes a question's target: surrounding white space and
-- `"'?.!, stripped, a leading "op " or "operation " dropped; empty means none (NULL).
-- Read by lib/answer.sql and lib/answer_saved.sql, after lib/input.sql.
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
