-- queries/lib/compare_print.sql: print the comparison (temp.xq_compare).
--
-- format json (default): the comparison document of the field's reference
-- (`profile_summary compare`), keys sorted, indent 2 (see
-- queries/lib/compare_json.sql for its keys and rules).
-- format markdown: the same comparison as a report (the reference has none):
--   # Profile Comparison, then Provenance (status and messages), Step Time
--   (steady median and p90: before, after, delta, change %), Step Classes,
--   Time Breakdown Shares (before, after, delta in percentage points),
--   Semantic Families (exclusive before/after/delta/change, FLOP proxy ratio,
--   time-per-FLOP change), Regressed Ops and Improved Ops (exclusive
--   before/after/delta). Numbers '.3f', percents '.2f%' with a sign, 'n/a'
--   where a side is missing.
-- Runs on both engines; read by compare.sql and compare_summaries.sql.

DROP TABLE IF EXISTS temp.xq_md;
CREATE TEMP TABLE xq_md(seq INTEGER PRIMARY KEY, line TEXT NOT NULL);
DROP VIEW IF EXISTS temp.xq_cmp;
CREATE TEMP VIEW xq_cmp AS
SELECT c.doc AS c, b.doc AS b, a.doc AS a FROM xq_compare c, xq_before b, xq_after a;

-- header and provenance
INSERT INTO xq_md(line)
SELECT line FROM (
  SELECT 0 AS o, 0 AS i, '# Profile Comparison' AS line
  UNION ALL SELECT 1, 0, ''
  UNION ALL SELECT 2, 0, '- Before: `' || (c ->> '$.before_source') || '` (SHA256 `'
                         || coalesce(c ->> '$.provenance_checks.before_trace_sha256', 'unknown') || '`)' FROM xq_cmp
  UNION ALL SELECT 3, 0, '- After: `' || (c ->> '$.after_source') || '` (SHA256 `'
                         || coalesce(c ->> '$.provenance_checks.after_trace_sha256', 'unknown') || '`)' FROM xq_cmp
  UNION ALL SELECT 4, 0, '- Provenance: `' || (c ->> '$.provenance_checks.status') || '`' FROM xq_cmp
  UNION ALL SELECT 5, m.key, '  - ' || m.value FROM xq_cmp, json_each(c, '$.provenance_checks.messages') m
  UNION ALL SELECT 6, 0, ''
  ORDER BY 1, 2);

-- steady-state step time
INSERT INTO xq_md(line)
WITH v(o, label, bv, av) AS (
  SELECT 0, 'Median', c ->> '$.step_time.steady_state_median_before', c ->> '$.step_time.steady_state_median_after' FROM xq_cmp
  UNION ALL
  SELECT 1, 'P90', c ->> '$.step_time.steady_state_p90_before', c ->> '$.step_time.steady_state_p90_after' FROM xq_cmp)
SELECT line FROM (
  SELECT -3 AS o, '## Step Time (Steady State)' AS line
  UNION ALL SELECT -2, '| Metric | Before | After | Delta | Change |'
  UNION ALL SELECT -1, '|---|---:|---:|---:|---:|'
  UNION ALL
  SELECT o, '| ' || label || ' | ' || coalesce(xplane_format(bv, '.3f'), 'n/a') || ' | '
         || coalesce(xplane_format(av, '.3f'), 'n/a') || ' | ' || coalesce(xplane_format(av - bv, '.3f'), 'n/a') || ' | '
         || coalesce(CASE WHEN bv > 0 THEN CASE WHEN av >= bv THEN '+' ELSE '' END
                                           || xplane_format((av - bv) / bv * 100.0, '.2f') || '%' END, 'n/a') || ' |'
    FROM v
  UNION ALL SELECT 9, ''
  ORDER BY 1);

-- step classes
INSERT INTO xq_md(line)
SELECT line FROM (
  SELECT -3 AS o, '## Step Classes' AS line
  UNION ALL SELECT -2, '| Class | Before Count | After Count | Before Fraction | After Fraction | Median Before | Median After | Median Delta | Change |'
  UNION ALL SELECT -1, '|---|---:|---:|---:|---:|---:|---:|---:|---:|'
  UNION ALL
  SELECT j.key, '| `' || (j.value ->> '$.name') || '` | ' || (j.value ->> '$.before_count') || ' | '
         || (j.value ->> '$.after_count') || ' | '
         || xplane_format((j.value ->> '$.before_fraction') * 100, '.2f') || '% | '
         || xplane_format((j.value ->> '$.after_fraction') * 100, '.2f') || '% | '
         || coalesce(xplane_format(j.value ->> '$.median_before', '.3f'), 'n/a') || ' | '
         || coalesce(xplane_format(j.value ->> '$.median_after', '.3f'), 'n/a') || ' | '
         || coalesce(xplane_format(j.value ->> '$.median_delta', '.3f'), 'n/a') || ' | '
         || coalesce(CASE WHEN (j.value ->> '$.median_regression_pct') >= 0 THEN '+' ELSE '' END
                     || xplane_format(j.value ->> '$.median_regression_pct', '.2f') || '%', 'n/a') || ' |'
    FROM xq_cmp, json_each(c, '$.step_classes.delta') j
  UNION ALL SELECT 1e9, ''
  ORDER BY 1);

-- time breakdown shares (percentage points)
INSERT INTO xq_md(line)
WITH cat(o, key, label) AS (VALUES (0, 'compute', 'Compute'), (1, 'communication', 'Communication'), (2, 'host', 'Host'),
                                   (3, 'stall', 'Stall'), (4, 'other', 'Other'))
SELECT line FROM (
  SELECT -3 AS o, '## Time Breakdown Shares (`' || (b ->> '$.time_breakdown.duration_basis') || '`)' AS line FROM xq_cmp
  UNION ALL SELECT -2, '| Category | Before | After | Delta (pp) |'
  UNION ALL SELECT -1, '|---|---:|---:|---:|'
  UNION ALL
  SELECT cat.o, '| ' || cat.label || ' | '
         || xplane_format(json_extract(b, '$.time_breakdown.' || cat.key || '.share_of_total') * 100, '.2f') || '% | '
         || xplane_format(json_extract(a, '$.time_breakdown.' || cat.key || '.share_of_total') * 100, '.2f') || '% | '
         || CASE WHEN json_extract(c, '$.time_breakdown_share_delta.' || cat.key) >= 0 THEN '+' ELSE '' END
         || xplane_format(json_extract(c, '$.time_breakdown_share_delta.' || cat.key) * 100, '.2f') || ' |'
    FROM xq_cmp, cat
  UNION ALL SELECT 9, ''
  ORDER BY 1);

-- semantic families
INSERT INTO xq_md(line)
SELECT line FROM (
  SELECT -3 AS o, '## Semantic Families' AS line
  UNION ALL SELECT -2, '| Family | Before Exclusive | After Exclusive | Delta | Change | FLOP Proxy Ratio | Time/FLOP Change | Example (After) |'
  UNION ALL SELECT -1, '|---|---:|---:|---:|---:|---:|---:|---|'
  UNION ALL
  SELECT j.key, '| `' || (j.value ->> '$.family') || '` | '
         || xplane_format(j.value ->> '$.before_exclusive_duration', '.3f') || ' | '
         || xplane_format(j.value ->> '$.after_exclusive_duration', '.3f') || ' | '
         || xplane_format(j.value ->> '$.exclusive_duration_delta', '.3f') || ' | '
         || coalesce(CASE WHEN (j.value ->> '$.exclusive_regression_pct') >= 0 THEN '+' ELSE '' END
                     || xplane_format(j.value ->> '$.exclusive_regression_pct', '.2f') || '%', 'n/a') || ' | '
         || coalesce(xplane_format(j.value ->> '$.flop_proxy_ratio', '.3f'), 'n/a') || ' | '
         || coalesce(CASE WHEN (j.value ->> '$.time_per_flop_regression_pct') >= 0 THEN '+' ELSE '' END
                     || xplane_format(j.value ->> '$.time_per_flop_regression_pct', '.2f') || '%', 'n/a') || ' | '
         || '`' || replace(replace(coalesce(j.value ->> '$.example_after', j.value ->> '$.example_before', 'n/a'),
                                   '`', '\`'), '|', '\|') || '` |'
    FROM xq_cmp, json_each(c, '$.semantic_family_delta') j
  UNION ALL SELECT 1e9, ''
  ORDER BY 1);

-- regressed and improved ops
INSERT INTO xq_md(line)
SELECT line FROM (
  SELECT l.o AS o, -3 AS i, '## ' || l.title AS line FROM (SELECT 0 AS o, 'Regressed Ops' AS title UNION ALL SELECT 1, 'Improved Ops') l
  UNION ALL SELECT l.o, -2, '| Op | Before | After | Delta |' FROM (SELECT 0 AS o UNION ALL SELECT 1) l
  UNION ALL SELECT l.o, -1, '|---|---:|---:|---:|' FROM (SELECT 0 AS o UNION ALL SELECT 1) l
  UNION ALL
  SELECT l.o, j.key, '| `' || replace(replace(j.value ->> '$.name', '`', '\`'), '|', '\|') || '` | '
         || xplane_format(j.value ->> '$.before', '.3f') || ' | ' || xplane_format(j.value ->> '$.after', '.3f') || ' | '
         || CASE WHEN (j.value ->> '$.delta') > 0 THEN '+' ELSE '' END || xplane_format(j.value ->> '$.delta', '.3f') || ' |'
    FROM xq_cmp, (SELECT 0 AS o, '$.regressed_ops' AS path UNION ALL SELECT 1, '$.improved_ops') l, json_each(c, l.path) j
  UNION ALL SELECT l.o, 1e9, '' FROM (SELECT 0 AS o UNION ALL SELECT 1) l
  ORDER BY 1, 2);

.mode list
.headers off
SELECT CASE (SELECT format FROM xq_input)
         WHEN 'markdown' THEN (SELECT rtrim(group_concat(line, char(10)), ' ' || char(9, 10, 13))
                                 FROM (SELECT line FROM xq_md ORDER BY seq))
         ELSE xplane_json_pretty(doc) END AS document
  FROM xq_compare;
