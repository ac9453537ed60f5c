-- queries/report_html.sql: the profile report as pictures, one self-contained
-- HTML document on stdout (inline SVG and CSS; no script, no external file,
-- no network).
--
--   sqlite3 -cmd '.load build/xplane' -cmd '.parameter set @profile run/host.xplane.pb' :memory: '.read queries/report_html.sql' > report.html
--
-- Run from the repository root. Parameters: @profile (required), and those of
-- summary.sql (@warmup_steps, @hot_op_limit, @breakdown_mode, @top_k).
-- Sections, each an <svg data-chart="..."> (or a table) whose marks carry a
-- class the tests count (tests/test_html.sh):
--   steps      one bar per step (class step-bar), coloured by its class:
--              warmup (below @warmup_steps), light / heavy (the summary's
--              k-means step classes), else typical; y: step time (ms). A
--              profile without Steps line or train annotation gets one bar
--              per XLA module run (xplane_steps source 'module', class module)
--   breakdown  one stacked bar (class breakdown-seg per non-zero category) of
--              the summary's time_breakdown shares; x: share of total (%)
--   regions    icicle of xplane_scopes (class region-rect, one per region at
--              least 1 px wide, 8 levels at most); x: share of device op
--              exclusive time (%), y: nesting level
--   top_ops    the summary's first @top_k hot ops (class op-bar), each label
--              unique (long names: head and tail; still equal: " #rank");
--              x: ms
--   roofline   ops of xplane_hlo_stats with FLOPs and bytes (class roof-op,
--              one per op; the section says so when there are none): x =
--              FLOP per byte, y = achieved FLOP/s, both log10 with decade
--              ticks; the roof and ridge point when the peaks are known
--   timeline   one representative step (the summary's representative step of
--              its first step class, else the median bar) on its first
--              device plane: the ops (class tl-op) per line, and the device
--              idle gaps (class tl-gap: no op of the plane running) of at
--              least 1 % of the step; x: time since step start (ms)
--   findings   a table of xplane_findings (class finding-row)
-- Everything is computed in SQL from the summary document
-- (queries/lib/summary_json.sql) and the tables; picoseconds are converted to
-- ms only for display. Coordinates: each chart is 960 px wide, its plot area
-- starts 80 px from the left and is 840 px wide (top ops: bars from 340 px,
-- 520 px wide; timeline: from 160 px, 760 px wide, beside the line names).
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/use_profile.sql
.read queries/lib/summary_json.sql

DROP TABLE IF EXISTS temp.xq_html;
CREATE TEMP TABLE xq_html(part INTEGER, html TEXT);

-- ---- HTML text escaping: every name from the profile goes through
-- xplane_html(X) (core/escape.h: printable text, & < > " ' as references).

-- ---- head ---------------------------------------------------------------------
DROP TABLE IF EXISTS temp.xq_html_page;
CREATE TEMP TABLE xq_html_page AS SELECT 1000 AS width, '' AS extra;
.read queries/lib/html_head.sql
INSERT INTO xq_html
SELECT 1, '<h1>xplane profile report</h1>
<div class="meta">' || xplane_html(s.doc->>'$.source_path')
  || ' &middot; ' || (s.doc->>'$.schema_version') || ' &middot; generated ' || (s.doc->>'$.generated_at_utc') || '</div>
<div class="card kv">'
  || '<span>steps <b>' || coalesce(s.doc->>'$.step_time.all_steps.count', 0) || '</b></span>'
  || '<span>median step <b>' || CASE WHEN s.doc->>'$.step_time.all_steps.median' IS NULL THEN 'n/a' ELSE printf('%.3f ms', (s.doc->>'$.step_time.all_steps.median') / 1e3) END || '</b></span>'
  || '<span>p90 step <b>' || CASE WHEN s.doc->>'$.step_time.all_steps.p90' IS NULL THEN 'n/a' ELSE printf('%.3f ms', (s.doc->>'$.step_time.all_steps.p90') / 1e3) END || '</b></span>'
  || '<span>profile span <b>' || printf('%.3f ms', ((s.doc->>'$.trace_overview.profile_end_ts') - (s.doc->>'$.trace_overview.profile_start_ts')) / 1e3) || '</b></span>'
  || '<span>events <b>' || (s.doc->>'$.trace_overview.num_events_total') || '</b></span>'
  || '<span>findings <b>' || (SELECT count(*) FROM xplane_findings) || '</b></span>'
  || '</div>'
  FROM xq_summary s;

-- ---- step-time chart ------------------------------------------------------------
DROP TABLE IF EXISTS temp.xq_h_steps;
CREATE TEMP TABLE xq_h_steps AS
SELECT row_number() OVER (ORDER BY st.step) - 1 AS k, st.step, st.dur / 1e3 AS ms,
       CASE WHEN st.step IN (SELECT step FROM xq_stepset WHERE set_name = 'heavy') THEN 'heavy'
            WHEN st.step IN (SELECT step FROM xq_stepset WHERE set_name = 'light') THEN 'light'
            WHEN st.step < (SELECT warmup_steps FROM xq_input) THEN 'warmup'
            ELSE 'typical' END AS cls
  FROM xq_step st
UNION ALL  -- no Steps line nor train annotation: the XLA module runs (xplane_steps' fallback), mean over devices
SELECT row_number() OVER (ORDER BY step) - 1, step, avg(dur_ps) / 1e9, 'module'
  FROM xplane_steps WHERE source = 'module' AND NOT EXISTS (SELECT 1 FROM xq_step) GROUP BY step;
DROP TABLE IF EXISTS temp.xq_h_sdim;
CREATE TEMP TABLE xq_h_sdim AS
SELECT count(*) AS n, max(max(ms), 1e-9) AS top, 840.0 / max(count(*), 1) AS bw FROM xq_h_steps;
DROP TABLE IF EXISTS temp.xq_h_colors;
CREATE TEMP TABLE xq_h_colors(name TEXT PRIMARY KEY, color TEXT);
INSERT INTO xq_h_colors VALUES ('typical', '#59a14f'), ('module', '#9c755f'), ('light', '#4e79a7'), ('heavy', '#e15759'),
  ('warmup', '#bab0ac'), ('compute', '#4e79a7'), ('communication', '#f28e2b'), ('stall', '#e15759'),
  ('host', '#76b7b2'), ('other', '#bab0ac');

INSERT INTO xq_html
SELECT 10, '<h2>Step time</h2><div class="card">' ||
  CASE WHEN d.n = 0 THEN '<p class="note">No steps found (no Steps line, train annotation or XLA module run).</p>'
  WHEN EXISTS (SELECT 1 FROM xq_h_steps WHERE cls = 'module')
  THEN '<p class="note">No Steps line or train annotation: one bar per XLA module run (numbered in time order, mean over devices); the summary has no step classes for these.</p>'
  ELSE '<p class="note">One bar per step; colour = step class (light / heavy from the k-means split of the steady steps, warmup = steps below ' ||
       (SELECT warmup_steps FROM xq_input) || ').</p>' END || CASE WHEN d.n = 0 THEN '' ELSE

  '<svg data-chart="steps" data-marks="' || d.n || '" width="960" height="290" viewBox="0 0 960 290" role="img" aria-label="step time per step">' ||
  -- grid and y ticks (5)
  (SELECT group_concat(t, '') FROM (
     SELECT printf('<g class="grid"><line x1="80" x2="920" y1="%.1f" y2="%.1f"/></g><text x="74" y="%.1f" text-anchor="end">%s</text>',
                   20 + 220 - 220.0 * i / 4, 20 + 220 - 220.0 * i / 4, 24 + 220 - 220.0 * i / 4,
                   printf('%.2f', d.top * i / 4)) AS t
       FROM (SELECT 0 AS i UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4))) ||
  -- bars
  (SELECT group_concat(t, '') FROM (
     SELECT printf('<rect class="mark step-bar %s" x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s"><title>step %d: %.3f ms (%s)</title></rect>',
                   b.cls, 80 + b.k * d.bw + d.bw * 0.1, 240 - 220.0 * b.ms / d.top, max(d.bw * 0.8, 0.5),
                   220.0 * b.ms / d.top, c.color, b.step, b.ms, b.cls) AS t
       FROM xq_h_steps b JOIN xq_h_colors c ON c.name = b.cls ORDER BY b.k)) ||
  -- x labels: about 20 at most
  (SELECT group_concat(t, '') FROM (
     SELECT printf('<text x="%.1f" y="256" text-anchor="middle">%d</text>', 80 + b.k * d.bw + d.bw / 2, b.step) AS t
       FROM xq_h_steps b WHERE b.k % max(1, (d.n + 19) / 20) = 0 ORDER BY b.k)) ||
  '<g class="axis"><line x1="80" x2="920" y1="240" y2="240"/><line x1="80" x2="80" y1="20" y2="240"/></g>' ||
  '<text class="axis-title" x="500" y="280" text-anchor="middle">step number</text>' ||
  '<text class="axis-title" transform="translate(16,130) rotate(-90)" text-anchor="middle">step time (ms)</text>' ||
  -- legend
  (SELECT group_concat(t, '') FROM (
     SELECT printf('<rect x="%d" y="4" width="10" height="10" fill="%s"/><text x="%d" y="13">%s</text>',
                   640 + 70 * (row_number() OVER (ORDER BY c.name) - 1), c.color,
                   654 + 70 * (row_number() OVER (ORDER BY c.name) - 1), c.name) AS t
       FROM xq_h_colors c WHERE c.name IN (SELECT cls FROM xq_h_steps) ORDER BY c.name)) ||
  '</svg>' END || '</div>'
  FROM xq_h_sdim d;

-- ---- time breakdown ---------------------------------------------------------------
DROP TABLE IF EXISTS temp.xq_h_bd;
CREATE TEMP TABLE xq_h_bd AS
SELECT c.name, c.color, coalesce(s.doc->>('$.time_breakdown.' || c.name || '.share_of_total'), 0) AS share,
       coalesce(s.doc->>('$.time_breakdown.' || c.name || '.total_duration'), 0) / 1e3 AS ms,
       CASE c.name WHEN 'compute' THEN 0 WHEN 'communication' THEN 1 WHEN 'stall' THEN 2 WHEN 'host' THEN 3 ELSE 4 END AS ord
  FROM xq_h_colors c, xq_summary s WHERE c.name IN ('compute', 'communication', 'stall', 'host', 'other');
DROP TABLE IF EXISTS temp.xq_h_bdx;
CREATE TEMP TABLE xq_h_bdx AS
SELECT b.*, coalesce(sum(share) OVER (ORDER BY ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS x0
  FROM xq_h_bd b;
INSERT INTO xq_html
SELECT 20, '<h2>Time breakdown</h2><div class="card"><p class="note">Exclusive time by category over all analysis events (' ||
  (s.doc->>'$.time_breakdown.duration_basis') || '); total ' ||
  printf('%.3f ms', coalesce(s.doc->>'$.time_breakdown.total_duration', 0) / 1e3) || '.</p>' ||
  '<svg data-chart="breakdown" data-marks="' || (SELECT count(*) FROM xq_h_bdx WHERE share > 0) ||
  '" width="960" height="110" viewBox="0 0 960 110" role="img" aria-label="time breakdown">' ||
  coalesce((SELECT group_concat(t, '') FROM (
     SELECT printf('<rect class="mark breakdown-seg %s" x="%.2f" y="10" width="%.2f" height="36" fill="%s"><title>%s: %.2f %% (%.3f ms)</title></rect>%s',
                   name, 80 + 840 * x0, 840 * share, color, name, 100 * share, ms,
                   CASE WHEN 840 * share >= 90 THEN printf('<text x="%.1f" y="33" text-anchor="middle" style="fill:#fff">%s %.1f%%</text>',
                                                           80 + 840 * (x0 + share / 2), name, 100 * share) ELSE '' END) AS t
       FROM xq_h_bdx WHERE share > 0 ORDER BY ord)), '') ||
  (SELECT group_concat(t, '') FROM (
     SELECT printf('<g class="axis"><line x1="%.1f" x2="%.1f" y1="46" y2="51"/></g><text x="%.1f" y="63" text-anchor="middle">%d</text>',
                   80 + 210.0 * i, 80 + 210.0 * i, 80 + 210.0 * i, 25 * i) AS t
       FROM (SELECT 0 AS i UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4))) ||
  '<g class="axis"><line x1="80" x2="920" y1="46" y2="46"/></g>' ||
  '<text class="axis-title" x="500" y="80" text-anchor="middle">share of total exclusive time (%)</text>' ||
  (SELECT group_concat(t, '') FROM (
     SELECT printf('<rect x="%d" y="92" width="10" height="10" fill="%s"/><text x="%d" y="101">%s %s ms</text>',
                   80 + 170 * ord, color, 94 + 170 * ord, name,
                   CASE WHEN ms >= 100 THEN printf('%.0f', ms) WHEN ms >= 10 THEN printf('%.1f', ms) ELSE printf('%.3f', ms) END) AS t
       FROM xq_h_bdx ORDER BY ord)) ||
  '</svg></div>'
  FROM xq_summary s;

.read queries/lib/html_regions.sql

-- ---- top ops ----------------------------------------------------------------------
DROP TABLE IF EXISTS temp.xq_h_ops;
CREATE TEMP TABLE xq_h_ops AS
SELECT CAST(j.key AS INTEGER) AS k, j.value->>'$.name' AS name, j.value->>'$.category' AS category,
       (j.value->>'$.exclusive_duration') / 1e3 AS ms, j.value->>'$.count' AS n
  FROM xq_summary s, json_each(s.doc, '$.hot_ops') j, xq_input i WHERE j.key < i.top_k;
-- each bar's label: the name, or when longer than 48 characters its first 30 and last 17
-- around an ellipsis; labels that are still equal get their rank, " #k" (the full name is
-- the bar's hover title)
DROP TABLE IF EXISTS temp.xq_h_oplab;
CREATE TEMP TABLE xq_h_oplab AS
SELECT k, CASE WHEN count(*) OVER (PARTITION BY lab) > 1 THEN lab || ' #' || (k + 1) ELSE lab END AS lab
  FROM (SELECT k, CASE WHEN length(name) > 48 THEN substr(name, 1, 30) || '…' || substr(name, -17) ELSE name END AS lab
          FROM xq_h_ops);
INSERT INTO xq_html
SELECT 40, '<h2>Top ops by exclusive time</h2><div class="card">' ||
  CASE WHEN NOT EXISTS (SELECT 1 FROM xq_h_ops) THEN '<p class="note">No device ops.</p>'
  ELSE '<svg data-chart="top_ops" data-marks="' || (SELECT count(*) FROM xq_h_ops) || '" width="960" height="' ||
  (60 + 22 * (SELECT count(*) FROM xq_h_ops)) || '" viewBox="0 0 960 ' || (60 + 22 * (SELECT count(*) FROM xq_h_ops)) ||
  '" role="img" aria-label="top ops">' ||
  (SELECT group_concat(t, '') FROM (
     SELECT printf('<text x="336" y="%d" text-anchor="end">%s</text><rect class="mark op-bar" x="340" y="%d" width="%.2f" height="16" fill="%s"><title>%s
%s, %d calls, %.3f ms exclusive</title></rect><text x="%.1f" y="%d">%.3f ms</text>',
                   22 + 22 * o.k,
                   xplane_html((SELECT lab FROM xq_h_oplab l WHERE l.k = o.k)),
                   10 + 22 * o.k, max(520.0 * o.ms / m.top, 0.5), coalesce(c.color, '#bab0ac'),
                   xplane_html(o.name),
                   o.category, o.n, o.ms, 344 + 520.0 * o.ms / m.top, 22 + 22 * o.k, o.ms) AS t
       FROM xq_h_ops o LEFT JOIN xq_h_colors c ON c.name = o.category,
            (SELECT max(max(ms), 1e-9) AS top FROM xq_h_ops) m ORDER BY o.k)) ||
  (SELECT printf('<g class="axis"><line x1="340" x2="860" y1="%d" y2="%d"/></g>', y, y) ||
          group_concat(printf('<text x="%.1f" y="%d" text-anchor="middle">%.2f</text>', 340 + 130.0 * i, y + 14, top * i / 4), '') ||
          printf('<text class="axis-title" x="600" y="%d" text-anchor="middle">exclusive time (ms); colour = category</text>', y + 32)
     FROM (SELECT 8 + 22 * (SELECT count(*) FROM xq_h_ops) AS y, (SELECT max(max(ms), 1e-9) FROM xq_h_ops) AS top),
          (SELECT 0 AS i UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4)) ||
  '</svg>' END || '</div>';

.read queries/lib/html_roofline.sql

-- ---- one representative step's device timeline -------------------------------------
DROP TABLE IF EXISTS temp.xq_h_rep;
CREATE TEMP TABLE xq_h_rep AS
WITH want AS (
  SELECT coalesce((SELECT s.doc->>'$.step_time.classes[0].representative_step' FROM xq_summary s),
                  (SELECT step FROM xq_h_steps ORDER BY ms, step LIMIT 1 OFFSET (SELECT count(*) / 2 FROM xq_h_steps))) AS step)
SELECT st.step, st.plane_index, st.plane_name, st.start_ps, st.end_ps, st.dur_ps
  FROM xplane_steps st, want w
 WHERE st.step = w.step AND st.n_ops > 0 AND st.dur_ps > 0
 ORDER BY st.plane_index LIMIT 1;
DROP TABLE IF EXISTS temp.xq_h_tl;
CREATE TEMP TABLE xq_h_tl AS
SELECT o.line_index, o.line_name, o.name, o.category,
       max(o.start_ps, r.start_ps) AS s, min(o.end_ps, r.end_ps) AS e
  FROM xq_h_rep r, xplane_ops o
 WHERE o.plane_index = r.plane_index AND o.start_ps < r.end_ps AND o.end_ps > r.start_ps
   AND o.start_ps >= r.start_ps - r.dur_ps;
DROP TABLE IF EXISTS temp.xq_h_lanes;
CREATE TEMP TABLE xq_h_lanes AS
SELECT row_number() OVER (ORDER BY line_index) - 1 AS lane, line_index, line_name
  FROM (SELECT DISTINCT line_index, line_name FROM xq_h_tl);
-- Device idle: no op of the plane running; the gaps of the union of the
-- step's ops, the step's edges included, of at least 1 % of the step.
DROP TABLE IF EXISTS temp.xq_h_gaps;
CREATE TEMP TABLE xq_h_gaps AS
WITH pts AS (
  SELECT s, e, max(e) OVER (ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end FROM xq_h_tl
  UNION ALL SELECT r.end_ps, r.end_ps, (SELECT max(e) FROM xq_h_tl) FROM xq_h_rep r),
g AS (SELECT coalesce(max(p.prev_end, r.start_ps), r.start_ps) AS gs, p.s AS ge FROM pts p, xq_h_rep r)
SELECT gs, ge FROM g, xq_h_rep r WHERE ge - gs >= 0.01 * r.dur_ps;
INSERT INTO xq_html
SELECT 50, '<h2>Representative step timeline</h2><div class="card">' ||
  CASE WHEN NOT EXISTS (SELECT 1 FROM xq_h_rep) THEN '<p class="note">No step with device ops.</p>'
  ELSE printf('<p class="note">Step %d on %s: %.3f ms. One row per device line; hatched red = the device idle (no op running on the plane) for at least 1 %% of the step: %d gaps, %.3f ms.</p>',
              r.step, xplane_html(r.plane_name),
              r.dur_ps / 1e9, (SELECT count(*) FROM xq_h_gaps), coalesce((SELECT sum(ge - gs) FROM xq_h_gaps), 0) / 1e9) ||
  '<svg data-chart="timeline" data-marks="' || (SELECT count(*) FROM xq_h_tl) || '" data-gaps="' || (SELECT count(*) FROM xq_h_gaps) ||
  '" width="960" height="' || (70 + 30 * (SELECT count(*) FROM xq_h_lanes)) || '" viewBox="0 0 960 ' ||
  (70 + 30 * (SELECT count(*) FROM xq_h_lanes)) || '" role="img" aria-label="step timeline">' ||
  '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fdecea"/><line x1="0" y1="0" x2="0" y2="6" stroke="#e15759" stroke-width="2"/></pattern></defs>' ||
  coalesce((SELECT group_concat(t, '') FROM (
     SELECT printf('<rect class="mark tl-gap" x="%.2f" y="6" width="%.2f" height="%d" fill="url(#hatch)" opacity="0.9"><title>device idle %.3f ms</title></rect>',
                   160 + 760.0 * (g.gs - r.start_ps) / r.dur_ps, max(760.0 * (g.ge - g.gs) / r.dur_ps, 1),
                   30 * (SELECT count(*) FROM xq_h_lanes) + 4, (g.ge - g.gs) / 1e9) AS t
       FROM xq_h_gaps g ORDER BY g.gs)), '') ||
  (SELECT group_concat(t, '') FROM (
     SELECT printf('<text x="156" y="%d" text-anchor="end">%s</text>', 28 + 30 * lane,
                   xplane_html(CASE WHEN length(line_name) > 24 THEN substr(line_name, 1, 23) || '…' ELSE line_name END)) AS t FROM xq_h_lanes ORDER BY lane)) ||
  (SELECT group_concat(t, '') FROM (
     SELECT printf('<rect class="mark tl-op" x="%.3f" y="%d" width="%.3f" height="22" fill="%s"><title>%s (%s) %.3f us</title></rect>',
                   160 + 760.0 * (o.s - r.start_ps) / r.dur_ps, 10 + 30 * l.lane, max(760.0 * (o.e - o.s) / r.dur_ps, 0.3),
                   coalesce(c.color, '#bab0ac'),
                   xplane_html(o.name),
                   o.category, (o.e - o.s) / 1e6) AS t
       FROM xq_h_tl o JOIN xq_h_lanes l USING (line_index) LEFT JOIN xq_h_colors c ON c.name = o.category
      ORDER BY l.lane, o.s)) ||
  (SELECT printf('<g class="axis"><line x1="160" x2="920" y1="%d" y2="%d"/></g>', y, y) ||
          group_concat(printf('<text x="%.1f" y="%d" text-anchor="middle">%.3f</text>', 160 + 190.0 * i, y + 14, r.dur_ps / 1e9 * i / 4), '') ||
          printf('<text class="axis-title" x="540" y="%d" text-anchor="middle">time since step start (ms); rows: device lines</text>', y + 32)
     FROM (SELECT 12 + 30 * (SELECT count(*) FROM xq_h_lanes) AS y),
          (SELECT 0 AS i UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4)) ||
  '</svg>' END || '</div>'
  FROM (SELECT 1) LEFT JOIN xq_h_rep r;

-- ---- findings ---------------------------------------------------------------------
INSERT INTO xq_html
SELECT 60, '<h2>Findings</h2><div class="card">' ||
  CASE WHEN NOT EXISTS (SELECT 1 FROM xplane_findings)
  THEN '<p class="note" data-findings="0">No findings: no recompilation, host-bound step, large transfer, tiny-kernel storm, blocking synchronization or memory-bound hot op above the thresholds of schema/TABLES.md.</p>'
  ELSE '<table data-findings="' || (SELECT count(*) FROM xplane_findings) || '"><thead><tr><th>severity</th><th>finding</th><th>where</th><th>count</th><th>time (ms)</th><th>share (%)</th><th>bytes (MiB)</th><th>suggestion</th></tr></thead><tbody>' ||
  (SELECT group_concat(t, '') FROM (
     SELECT printf('<tr class="finding-row"><td><span class="sev sev-%s">%s</span></td><td>%s</td><td>%s</td><td class="num">%s</td><td class="num">%.3f</td><td class="num">%.2f</td><td class="num">%s</td><td>%s</td></tr>',
                   severity, severity, id,
                   xplane_html(coalesce(plane_name, 'profile') || coalesce(' · ' || subject, '') || coalesce(' · steps ' || steps, '') || coalesce(' · ops ' || nullif(ops, subject), '')),
                   count || coalesce(' / ' || of_total, ''), time_ps / 1e9, 100 * share,
                   CASE WHEN bytes IS NULL THEN '' ELSE printf('%.1f', bytes / 1048576.0) END,
                   xplane_html(suggestion)) AS t
       FROM xplane_findings ORDER BY severity = 'high' DESC, time_ps DESC, id, plane_index, subject)) ||
  '</tbody></table>' END || '</div>';

INSERT INTO xq_html SELECT 99, '<p class="note" id="report-end">Generated by xplane-sqlite (queries/report_html.sql); times in ms unless stated.</p></body></html>';

.mode list
.headers off
SELECT group_concat(html, char(10)) FROM (SELECT html FROM xq_html ORDER BY part);
.read queries/lib/cleanup.sql
