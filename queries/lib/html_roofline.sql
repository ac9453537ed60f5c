-- queries/lib/html_roofline.sql: the roofline picture of the HTML reports
-- (queries/report_html.sql, queries/profile_report_html.sql). Input:
-- temp.xq_html(part, html), the profile in use. Output: part 45.
-- ---- roofline scatter (ops with FLOPs and bytes) -------------------------------------
-- One mark per op row of xplane_hlo_stats whose every run carries flops and
-- bytes_accessed and whose FLOPs, bytes and self time are > 0 (a log axis
-- cannot place zero): x = FLOP per byte, y = achieved FLOP/s over the op's time (the
-- device clock on TPU, else self time: xplane_hlo_stats.rate_clock),
-- both log10 with a tick per decade (data-log10 = the exponent). With one
-- peak pair for all plotted ops, the roof: min(peak FLOP/s, x * peak bytes/s)
-- and the ridge point. Colour = bound_by; area ~ share of device self time.
DROP TABLE IF EXISTS temp.xq_h_roof;
CREATE TEMP TABLE xq_h_roof AS
SELECT row_number() OVER (ORDER BY self_ps DESC, name) - 1 AS k, name, category, bound_by, self_ps,
       share_of_device_self AS share, flops_per_byte AS x, flops_per_s AS y, peak_flops_per_s AS pf,
       peak_bw_bytes_per_s AS pb
  FROM xplane_hlo_stats
 WHERE kind = 'op' AND flops > 0 AND bytes_accessed > 0 AND self_ps > 0 AND flops_per_byte > 0 AND flops_per_s > 0;
DROP TABLE IF EXISTS temp.xq_h_rdim;
CREATE TEMP TABLE xq_h_rdim AS
WITH pk AS (SELECT CASE WHEN count(DISTINCT pf) = 1 AND count(DISTINCT pb) = 1 AND count(pf) = count(*) AND count(pb) = count(*)
                        THEN max(pf) END AS pf,
                   CASE WHEN count(DISTINCT pf) = 1 AND count(DISTINCT pb) = 1 AND count(pf) = count(*) AND count(pb) = count(*)
                        THEN max(pb) END AS pb
              FROM xq_h_roof),
b AS (SELECT pk.pf, pk.pb, pk.pf / pk.pb AS ridge,
             floor(log10(min((SELECT min(x) FROM xq_h_roof), coalesce(pk.pf / pk.pb, 1e300)))) AS xlo,
             ceil(log10(max((SELECT max(x) FROM xq_h_roof), coalesce(pk.pf / pk.pb, 0)))) AS xhi,
             floor(log10((SELECT min(y) FROM xq_h_roof))) AS ylo,
             ceil(log10(max((SELECT max(y) FROM xq_h_roof), coalesce(pk.pf, 0)))) AS yhi
        FROM pk)
SELECT pf, pb, ridge, CAST(xlo AS INTEGER) AS xlo, CAST(max(xhi, xlo + 1) AS INTEGER) AS xhi,
       CAST(ylo AS INTEGER) AS ylo, CAST(max(yhi, ylo + 1) AS INTEGER) AS yhi
  FROM b WHERE EXISTS (SELECT 1 FROM xq_h_roof);
DROP TABLE IF EXISTS temp.xq_h_dec;  -- the decade exponents the axes need (no generate_series: plain SQLite)
CREATE TEMP TABLE xq_h_dec AS
WITH RECURSIVE r(v) AS (SELECT min(xlo, ylo) FROM xq_h_rdim UNION ALL SELECT v + 1 FROM r, xq_h_rdim WHERE v < max(xhi, yhi))
SELECT v FROM r;
DROP TABLE IF EXISTS temp.xq_h_rcol;
CREATE TEMP TABLE xq_h_rcol(name TEXT PRIMARY KEY, color TEXT, ord INTEGER);
INSERT INTO xq_h_rcol VALUES ('memory', '#e15759', 0), ('compute', '#4e79a7', 1), ('unknown', '#bab0ac', 2);
INSERT INTO xq_html
SELECT 45, '<h2>Roofline</h2><div class="card">' ||
  CASE WHEN d.xlo IS NULL
  THEN '<p class="note">No op with FLOP and byte counts (the flops and bytes_accessed stats; GPU profiles usually lack them): no roofline.</p>'
  ELSE printf('<p class="note">Ops of xplane_hlo_stats with FLOPs and bytes (%d of %d ops; ops without FLOPs cannot sit on a log axis): arithmetic intensity against achieved FLOP rate over self time; area = share of device self time. %s</p>',
              (SELECT count(*) FROM xq_h_roof), (SELECT count(*) FROM xplane_hlo_stats WHERE kind = 'op'),
              CASE WHEN d.pf IS NULL THEN 'No single device peak pair: no roof drawn.'
                   ELSE printf('Roof: peak %.4g FLOP/s, %.4g bytes/s; ridge point %.4g FLOP/byte (dashed): left of it an op is memory-bound.', d.pf, d.pb, d.ridge) END) ||
  '<svg data-chart="roofline" data-marks="' || (SELECT count(*) FROM xq_h_roof) ||
  '" data-xscale="log" data-yscale="log" width="960" height="360" viewBox="0 0 960 360" role="img" aria-label="roofline">' ||
  -- decade grid and ticks
  (SELECT group_concat(t, '') FROM (
     SELECT printf('<g class="grid"><line x1="%.2f" x2="%.2f" y1="20" y2="300"/></g><text class="tick tick-x" data-log10="%d" x="%.2f" y="316" text-anchor="middle">1e%d</text>',
                   80 + 840.0 * (v - d.xlo) / (d.xhi - d.xlo), 80 + 840.0 * (v - d.xlo) / (d.xhi - d.xlo), v,
                   80 + 840.0 * (v - d.xlo) / (d.xhi - d.xlo), v) AS t
       FROM xq_h_dec WHERE v BETWEEN d.xlo AND d.xhi)) ||
  (SELECT group_concat(t, '') FROM (
     SELECT printf('<g class="grid"><line x1="80" x2="920" y1="%.2f" y2="%.2f"/></g><text class="tick tick-y" data-log10="%d" x="74" y="%.2f" text-anchor="end">1e%d</text>',
                   300 - 280.0 * (v - d.ylo) / (d.yhi - d.ylo), 300 - 280.0 * (v - d.ylo) / (d.yhi - d.ylo), v,
                   304 - 280.0 * (v - d.ylo) / (d.yhi - d.ylo), v) AS t
       FROM xq_h_dec WHERE v BETWEEN d.ylo AND d.yhi)) ||
  '<g class="axis"><line x1="80" x2="920" y1="300" y2="300"/><line x1="80" x2="80" y1="20" y2="300"/></g>' ||
  -- the roof and the ridge point
  CASE WHEN d.pf IS NULL THEN '' ELSE
    printf('<polyline class="roof" fill="none" stroke="#333" stroke-width="1.5" points="%.2f,%.2f %.2f,%.2f %.2f,%.2f"><title>roof: min(%.4g FLOP/s, FLOP/byte x %.4g bytes/s)</title></polyline>',
           80 + 840.0 * (log10(max(pow(10, d.xlo), pow(10, d.ylo) / d.pb)) - d.xlo) / (d.xhi - d.xlo),
           300 - 280.0 * (log10(max(pow(10, d.xlo), pow(10, d.ylo) / d.pb) * d.pb) - d.ylo) / (d.yhi - d.ylo),
           80 + 840.0 * (log10(d.ridge) - d.xlo) / (d.xhi - d.xlo), 300 - 280.0 * (log10(d.pf) - d.ylo) / (d.yhi - d.ylo),
           920.0, 300 - 280.0 * (log10(d.pf) - d.ylo) / (d.yhi - d.ylo), d.pf, d.pb) ||
    printf('<line class="ridge" x1="%.2f" x2="%.2f" y1="20" y2="300" stroke="#888" stroke-dasharray="4 3"><title>ridge point %.4g FLOP/byte</title></line>',
           80 + 840.0 * (log10(d.ridge) - d.xlo) / (d.xhi - d.xlo), 80 + 840.0 * (log10(d.ridge) - d.xlo) / (d.xhi - d.xlo), d.ridge) END ||
  -- the ops, largest first (small ones stay on top)
  (SELECT group_concat(t, '') FROM (
     SELECT printf('<circle class="mark roof-op %s" data-k="%d" cx="%.3f" cy="%.3f" r="%.2f" fill="%s" fill-opacity="0.7" stroke="#333" stroke-width="0.5"><title>%s (%s)
%.4g FLOP/byte, %.4g FLOP/s; self %.3f ms (%.2f %% of device self time); %s-bound</title></circle>',
                   o.bound_by, o.k, 80 + 840.0 * (log10(o.x) - d.xlo) / (d.xhi - d.xlo),
                   300 - 280.0 * (log10(o.y) - d.ylo) / (d.yhi - d.ylo), 2.5 + 14 * sqrt(coalesce(o.share, 0)),
                   c.color, xplane_html(o.name),
                   xplane_html(coalesce(o.category, '')),
                   o.x, o.y, o.self_ps / 1e9, 100 * coalesce(o.share, 0), o.bound_by) AS t
       FROM xq_h_roof o JOIN xq_h_rcol c ON c.name = o.bound_by ORDER BY o.self_ps DESC, o.k)) ||
  '<text class="axis-title" x="500" y="340" text-anchor="middle">arithmetic intensity (FLOP/byte, log scale)</text>' ||
  '<text class="axis-title" transform="translate(16,160) rotate(-90)" text-anchor="middle">achieved FLOP rate (FLOP/s, log scale)</text>' ||
  (SELECT group_concat(t, '') FROM (
     SELECT printf('<circle cx="%d" cy="9" r="5" fill="%s" fill-opacity="0.7"/><text x="%d" y="13">%s-bound</text>',
                   600 + 120 * ord, color, 608 + 120 * ord, name) AS t
       FROM xq_h_rcol WHERE name IN (SELECT bound_by FROM xq_h_roof) ORDER BY ord)) ||
  '</svg>' END || '</div>'
  FROM (SELECT 1) LEFT JOIN xq_h_rdim d;

