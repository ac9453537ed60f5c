-- xplane.scopes: the hierarchical named-scope regions of the device ops,
-- with the columns and meanings of the extension's xplane_scopes table
-- (core/regions.c, docs/ANALYSIS.md "Hierarchical regions").
--
--   INCLUDE PERFETTO MODULE xplane.scopes;
--   SELECT scope_path, depth, inclusive_ps / 1e6 AS us FROM xplane_scopes LIMIT 20;
--
-- Each op's region path (xplane_scope_path: its tf_op name stack, else its
-- name split on `=>` or `::`, else its canonical name) has one prefix per
-- part; every prefix is a region: count + 1 and inclusive += the op's self
-- time; the full path also gets exclusive += it. Regions deeper than 1 with
-- exactly one child region of the same inclusive time (within 1 ps or
-- 1e-9 relative) are pruned; parent_path is the nearest surviving ancestor.
-- Rows are ordered by (inclusive desc, exclusive desc, path).

INCLUDE PERFETTO MODULE xplane.op_base;

-- The prefixes of every distinct region path: depth d, the prefix (its
-- first d `=>`-separated segments) and the one above it.
CREATE PERFETTO TABLE _xplane_scope_prefix(
  -- A region path of an op.
  path STRING,
  -- Its number of parts.
  parts LONG,
  -- Prefix depth.
  d LONG,
  -- The first d segments.
  prefix STRING,
  -- The first d - 1 (NULL at depth 1).
  parent STRING
) AS
WITH RECURSIVE pre(path, parts, d, prefix, parent, rest) AS (
  SELECT
    path,
    parts,
    1,
    CASE WHEN instr(path, '=>') > 0 THEN substr(path, 1, instr(path, '=>') - 1) ELSE path END,
    NULL,
    CASE WHEN instr(path, '=>') > 0 THEN substr(path, instr(path, '=>') + 2) END
  FROM (SELECT DISTINCT scope_path AS path, scope_parts AS parts FROM _xplane_op_scope)
  UNION ALL
  SELECT
    path,
    parts,
    d + 1,
    prefix || '=>' || CASE WHEN instr(rest, '=>') > 0 THEN substr(rest, 1, instr(rest, '=>') - 1) ELSE rest END,
    prefix,
    CASE WHEN instr(rest, '=>') > 0 THEN substr(rest, instr(rest, '=>') + 2) END
  FROM pre
  WHERE d < parts AND rest IS NOT NULL
)
SELECT path, parts, d, prefix, parent FROM pre;

-- Every region before pruning, with its number of child regions and
-- whether it is pruned.
CREATE PERFETTO TABLE _xplane_scope_all(
  -- Region path.
  scope_path STRING,
  -- Number of parts.
  depth LONG,
  -- The path above it.
  parent STRING,
  -- Ops at or below.
  count LONG,
  -- Their self time.
  inclusive_ps LONG,
  -- Self time of the ops whose path is this one.
  exclusive_ps LONG,
  -- Deeper than 1 with one child of the same inclusive time.
  pruned BOOL
) AS
WITH
  -- (MATERIALIZED: SQLite indexes the copy of the prefixes for the lookup per
  -- op, where it would scan the table of trace processor; region is read twice)
  prefix AS MATERIALIZED (SELECT path, parts, prefix, d, parent FROM _xplane_scope_prefix),
  -- (the ops' groups, _xplane_op_group, summed per region path first, then
  -- spread over its prefixes: a row per path and prefix, not per op and
  -- prefix)
  per_path AS MATERIALIZED (
    SELECT sc.scope_path AS path, sc.scope_parts AS parts, sum(o.n) AS n, sum(o.self_ps) AS self_ps
    FROM _xplane_op_group o
    JOIN _xplane_op_scope sc USING (skey)
    GROUP BY sc.scope_path, sc.scope_parts
  ),
  region AS MATERIALIZED (
    SELECT
      p.prefix AS scope_path,
      min(p.d) AS depth,
      min(p.parent) AS parent,
      sum(o.n) AS count,
      sum(o.self_ps) AS inclusive_ps,
      sum(CASE WHEN p.d = p.parts THEN o.self_ps ELSE 0 END) AS exclusive_ps
    FROM per_path o
    JOIN prefix p ON p.path = o.path AND p.parts = o.parts
    GROUP BY p.prefix
  ),
  kids AS (
    -- (CAST: a typed column, so SQLite can index the join on it)
    SELECT CAST(parent AS TEXT) AS scope_path, count(*) AS n_kids, max(inclusive_ps) AS kid_inclusive_ps
    FROM region
    WHERE parent IS NOT NULL
    GROUP BY parent
  )
SELECT
  r.*,
  coalesce(
    r.depth > 1 AND k.n_kids = 1
      AND (abs(r.inclusive_ps - k.kid_inclusive_ps) <= 1
           OR abs(r.inclusive_ps - k.kid_inclusive_ps) <= 1e-9 * max(r.inclusive_ps, k.kid_inclusive_ps)),
    0) AS pruned
FROM region r
LEFT JOIN kids k USING (scope_path);

-- The regions.
CREATE PERFETTO TABLE xplane_scopes(
  -- Parts joined with `=>`.
  scope_path STRING,
  -- Number of parts.
  depth LONG,
  -- The nearest surviving ancestor's path, NULL for roots.
  parent_path STRING,
  -- Ops at or below this region.
  count LONG,
  -- Their self time in ps.
  inclusive_ps LONG,
  -- Self time of the ops whose full path is this one, in ps.
  exclusive_ps LONG
) AS
WITH RECURSIVE up(scope_path, cand) AS (
  SELECT scope_path, parent FROM _xplane_scope_all WHERE NOT pruned
  UNION ALL
  SELECT u.scope_path, a.parent
  FROM up u
  JOIN _xplane_scope_all a ON a.scope_path = u.cand
  WHERE a.pruned
)
SELECT s.scope_path, s.depth, u.cand AS parent_path, s.count, s.inclusive_ps, s.exclusive_ps
FROM _xplane_scope_all s
JOIN up u USING (scope_path)
WHERE NOT s.pruned
  AND (u.cand IS NULL OR NOT (SELECT a.pruned FROM _xplane_scope_all a WHERE a.scope_path = u.cand))
ORDER BY s.inclusive_ps DESC, s.exclusive_ps DESC, s.scope_path;
