-- queries/lib/region_shares.sql: hierarchical regions of a summary with their shares.
--
-- Input: temp.xq_summary(doc). Output: temp view xq_region_shares(i, path,
-- depth, n, incl, excl, incl_share, excl_share), one row per region of the
-- document's list (i = position). As the reference reports them: a region's
-- share is relative to its depth-1 root's inclusive time when that root is in
-- the list, else to the largest root's; 0 when that is not positive.
-- Used by report.sql (Hierarchical Regions table) and hierarchical_regions.sql.
DROP VIEW IF EXISTS temp.xq_region_shares;
CREATE TEMP VIEW xq_region_shares AS
WITH regions AS (
  SELECT CAST(j.key AS INTEGER) AS i, j.value ->> '$.path' AS path, j.value ->> '$.depth' AS depth,
         j.value ->> '$.count' AS n, j.value ->> '$.inclusive_duration' AS incl,
         j.value ->> '$.exclusive_duration' AS excl
    FROM xq_summary s, json_each(s.doc, '$.hierarchical_regions') j),
roots AS (SELECT path, max(0.0, incl) AS total FROM regions WHERE depth = 1),
denoms AS (
  SELECT r.*, coalesce((SELECT total FROM roots
                         WHERE roots.path = CASE WHEN instr(r.path, '=>') > 0 THEN substr(r.path, 1, instr(r.path, '=>') - 1)
                                                 ELSE r.path END),
                       (SELECT max(total) FROM roots), 0.0) AS denom
    FROM regions r)
SELECT i, path, depth, n, incl, excl,
       CASE WHEN denom > 0 THEN incl / denom ELSE 0.0 END AS incl_share,
       CASE WHEN denom > 0 THEN excl / denom ELSE 0.0 END AS excl_share
  FROM denoms;
