-- queries/lib/html_regions.sql: the regions picture of the HTML reports
-- (queries/report_html.sql, queries/profile_report_html.sql): an icicle of
-- xplane_scopes, one rect (class region-rect) per region at least 1 px wide,
-- 8 levels at most; x: share of device op exclusive time (%), y: nesting
-- level. Input: temp.xq_html(part, html), the profile in use. Output: part 30.
DROP TABLE IF EXISTS temp.xq_h_sc;
CREATE TEMP TABLE xq_h_sc AS
SELECT scope_path, parent_path, inclusive_ps, exclusive_ps, count,
       coalesce(sum(inclusive_ps) OVER (PARTITION BY parent_path ORDER BY inclusive_ps DESC, scope_path
                                         ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS off,
       row_number() OVER (PARTITION BY parent_path ORDER BY inclusive_ps DESC, scope_path) AS sib
  FROM xplane_scopes;
CREATE INDEX temp.xq_h_sc_parent ON xq_h_sc(parent_path);
DROP TABLE IF EXISTS temp.xq_h_tree;
CREATE TEMP TABLE xq_h_tree AS
WITH RECURSIVE tree(path, lvl, x, w, incl, excl, n, sib, leaf) AS (
  SELECT scope_path, 0, off, inclusive_ps, inclusive_ps, exclusive_ps, count, sib,
         substr(scope_path, 1) FROM xq_h_sc WHERE parent_path IS NULL
  UNION ALL
  SELECT c.scope_path, t.lvl + 1, t.x + c.off, c.inclusive_ps, c.inclusive_ps, c.exclusive_ps, c.count, c.sib,
         substr(c.scope_path, length(t.path) + 3)
    FROM tree t JOIN xq_h_sc c ON c.parent_path = t.path WHERE t.lvl < 7)
SELECT * FROM tree;
DROP TABLE IF EXISTS temp.xq_h_icicle;
CREATE TEMP TABLE xq_h_icicle AS
SELECT t.*, 840.0 * t.x / tot.ps AS px, 840.0 * t.w / tot.ps AS pw
  FROM xq_h_tree t, (SELECT max(sum(inclusive_ps), 1) AS ps FROM xq_h_sc WHERE parent_path IS NULL) tot
 WHERE 840.0 * t.w / tot.ps >= 1;
INSERT INTO xq_html
SELECT 30, '<h2>Hierarchical regions</h2><div class="card">' ||
  CASE WHEN NOT EXISTS (SELECT 1 FROM xq_h_icicle) THEN '<p class="note">No named-scope regions (no device ops).</p>'
  ELSE '<p class="note">Icicle of the named-scope regions of the device ops (xplane_scopes): width = inclusive exclusive-time share, one row per nesting level (8 at most); regions narrower than 1 px are left out. Hover for the full path.</p>' ||
  '<svg data-chart="regions" data-marks="' || (SELECT count(*) FROM xq_h_icicle) || '" width="960" height="' ||
  (60 + 24 * (SELECT max(lvl) + 1 FROM xq_h_icicle)) || '" viewBox="0 0 960 ' ||
  (60 + 24 * (SELECT max(lvl) + 1 FROM xq_h_icicle)) || '" role="img" aria-label="hierarchical regions">' ||
  (SELECT group_concat(t, '') FROM (
     SELECT printf('<rect class="mark region-rect" x="%.2f" y="%d" width="%.2f" height="22" fill="%s" stroke="#fff" stroke-width="0.5"><title>%s
%.3f ms inclusive (%.2f %%), %.3f ms exclusive, %d ops</title></rect>%s',
                   80 + px, 10 + 24 * lvl, pw,
                   CASE (lvl + sib) % 6 WHEN 0 THEN '#4e79a7' WHEN 1 THEN '#76b7b2' WHEN 2 THEN '#59a14f'
                                        WHEN 3 THEN '#edc948' WHEN 4 THEN '#af7aa1' ELSE '#ff9da7' END,
                   xplane_html(path),
                   incl / 1e9, 100.0 * pw / 840, excl / 1e9, n,
                   CASE WHEN pw >= 40 THEN printf('<text x="%.1f" y="%d" style="pointer-events:none">%s</text>', 80 + px + 3, 25 + 24 * lvl,
                        xplane_html(CASE WHEN length(leaf) > CAST((pw - 6) / 6.2 AS INTEGER)
                               THEN substr(leaf, 1, max(CAST((pw - 6) / 6.2 AS INTEGER) - 1, 1)) || '…' ELSE leaf END)) ELSE '' END) AS t
       FROM xq_h_icicle ORDER BY lvl, px)) ||
  (SELECT printf('<g class="axis"><line x1="80" x2="920" y1="%d" y2="%d"/></g>', y, y) ||
          group_concat(printf('<text x="%.1f" y="%d" text-anchor="middle">%d</text>', 80 + 210.0 * i, y + 14, 25 * i), '') ||
          printf('<text class="axis-title" x="500" y="%d" text-anchor="middle">share of device op exclusive time (%%); rows: nesting level 1 (top) to %d</text>',
                 y + 32, (SELECT max(lvl) + 1 FROM xq_h_icicle))
     FROM (SELECT 12 + 24 * (SELECT max(lvl) + 1 FROM xq_h_icicle) AS y),
          (SELECT 0 AS i UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4)) ||
  '</svg>' END || '</div>';

