-- queries/lib/profile_compare_md.sql: the markdown comparison of two profiles
-- by the device-time model (queries/profile_compare.sql; `xplane compare
-- --format markdown`). Input: temp.xq_compare, xq_before, xq_after
-- (queries/lib/compare_build.sql and compare_json.sql: the header's sources,
-- hashes and provenance), the figures of lib/profile_compare_build.sql and
-- temp.xq_input (warmup_steps, top_k). Output: temp.xq_pmd(seq, line),
-- printed by the caller.
--
-- Sections: the header (sources, SHA256, provenance, the hardware of each side,
-- a warning when it differs), Device Time (all devices of each side:
-- devices, wall, busy, idle, duty cycle, busy by class), Steps (each side's
-- source; its steady steps, every device pooled: count, median, p90, mean;
-- quantiles interpolated at (n - 1) q as the report does), Top Device Op
-- Changes (self time by op name on each side, the ops whose self time changed
-- most). Times in ms; a change is (after - before) / before in % (not a
-- share: it can pass 100 %); shares name their denominator.
DROP TABLE IF EXISTS temp.xq_pmd;
CREATE TEMP TABLE xq_pmd(seq INTEGER PRIMARY KEY, line TEXT NOT NULL);

-- header
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, 0 AS i, '# Profile Comparison' AS line
  UNION ALL SELECT 1, 0, ''
  UNION ALL SELECT 2, 0, 'Times in milliseconds (ms). Device time is docs/ANALYSIS.md section 15; a change is (after - before) / before.'
  UNION ALL SELECT 3, 0, ''
  UNION ALL SELECT 4, 0, '- Before: ' || xplane_md_code(c.doc ->> '$.before_source') || ' (run/host '
      || xplane_md_code(coalesce((SELECT name FROM xq_cname WHERE side = 'b'), 'unknown')) || ', SHA256 `'
      || coalesce(c.doc ->> '$.provenance_checks.before_trace_sha256', 'unknown') || '`)' FROM xq_compare c
  UNION ALL SELECT 5, 0, '- After: ' || xplane_md_code(c.doc ->> '$.after_source') || ' (run/host '
      || xplane_md_code(coalesce((SELECT name FROM xq_cname WHERE side = 'a'), 'unknown')) || ', SHA256 `'
      || coalesce(c.doc ->> '$.provenance_checks.after_trace_sha256', 'unknown') || '`)' FROM xq_compare c
  UNION ALL SELECT 6, 0, '- Provenance: `' || (c.doc ->> '$.provenance_checks.status') || '`' FROM xq_compare c
  UNION ALL SELECT 7, m.key, '  - ' || m.value FROM xq_compare c, json_each(c.doc, '$.provenance_checks.messages') m
  UNION ALL SELECT 8, 0, '- Hardware: before `' || coalesce((SELECT hw FROM xq_chw WHERE side = 'b'), 'no device plane')
      || '`, after `' || coalesce((SELECT hw FROM xq_chw WHERE side = 'a'), 'no device plane') || '`'
  UNION ALL SELECT 9, 0, '  - warning: the two sides ran on different hardware or device counts; their times are not '
      || 'comparable as a change of the program alone'
    WHERE (SELECT hw FROM xq_chw WHERE side = 'b') IS NOT (SELECT hw FROM xq_chw WHERE side = 'a')
  UNION ALL SELECT 10, 0, ''
  ORDER BY 1, 2);

-- device time
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, '## Device Time' AS line
  UNION ALL SELECT 1, 'All devices of each side summed (wall: each device''s first op start to last op end; busy: the union of its '
      || 'op intervals; idle = wall - busy). Busy splits into compute, communication, transfer and other, which sum to busy.'
  UNION ALL SELECT 2, ''
  UNION ALL SELECT 3, '| Figure | Before | After | Delta | Change (% of before) |'
  UNION ALL SELECT 4, '|---|---:|---:|---:|---:|'
  UNION ALL SELECT 5 + o, '| ' || label || ' | ' || coalesce(fb, 'n/a') || ' | ' || coalesce(fa, 'n/a') || ' | '
      || coalesce(fd, 'n/a') || ' | ' || coalesce(fc, 'n/a') || ' |'
    FROM (
      SELECT o, label,
             CASE WHEN unit = 'n' THEN CAST(bv AS TEXT) ELSE xplane_format(bv / 1e9, '.3f') END AS fb,
             CASE WHEN unit = 'n' THEN CAST(av AS TEXT) ELSE xplane_format(av / 1e9, '.3f') END AS fa,
             CASE WHEN unit = 'n' THEN CASE WHEN av >= bv THEN '+' ELSE '' END || (av - bv)
                  ELSE CASE WHEN av >= bv THEN '+' ELSE '' END || xplane_format((av - bv) / 1e9, '.3f') END AS fd,
             CASE WHEN bv > 0 THEN CASE WHEN av >= bv THEN '+' ELSE '' END || xplane_format(100.0 * (av - bv) / bv, '.2f') || '%' END AS fc
        FROM (SELECT 0 AS o, 'Devices' AS label, 'n' AS unit, b.n AS bv, a.n AS av FROM xq_cdt b, xq_cdt a WHERE b.side = 'b' AND a.side = 'a'
              UNION ALL SELECT 1, 'Ops', 'n', b.ops, a.ops FROM xq_cdt b, xq_cdt a WHERE b.side = 'b' AND a.side = 'a'
              UNION ALL SELECT 2, 'Wall (ms)', 'ps', b.wall, a.wall FROM xq_cdt b, xq_cdt a WHERE b.side = 'b' AND a.side = 'a'
              UNION ALL SELECT 3, 'Busy (ms)', 'ps', b.busy, a.busy FROM xq_cdt b, xq_cdt a WHERE b.side = 'b' AND a.side = 'a'
              UNION ALL SELECT 4, 'Idle (ms)', 'ps', b.idle, a.idle FROM xq_cdt b, xq_cdt a WHERE b.side = 'b' AND a.side = 'a'
              UNION ALL SELECT 5, 'Compute (ms)', 'ps', b.compute, a.compute FROM xq_cdt b, xq_cdt a WHERE b.side = 'b' AND a.side = 'a'
              UNION ALL SELECT 6, 'Communication (ms)', 'ps', b.comm, a.comm FROM xq_cdt b, xq_cdt a WHERE b.side = 'b' AND a.side = 'a'
              UNION ALL SELECT 7, 'Transfer (ms)', 'ps', b.transfer, a.transfer FROM xq_cdt b, xq_cdt a WHERE b.side = 'b' AND a.side = 'a'
              UNION ALL SELECT 8, 'Other (ms)', 'ps', b.other, a.other FROM xq_cdt b, xq_cdt a WHERE b.side = 'b' AND a.side = 'a'))
  UNION ALL SELECT 20, '| Duty cycle (% of wall) | '
      || coalesce(xplane_format(100.0 * b.busy / nullif(b.wall, 0), '.2f') || '%', 'n/a') || ' | '
      || coalesce(xplane_format(100.0 * a.busy / nullif(a.wall, 0), '.2f') || '%', 'n/a') || ' | '
      || coalesce(CASE WHEN 1.0 * a.busy / a.wall >= 1.0 * b.busy / b.wall THEN '+' ELSE '' END
                  || xplane_format(100.0 * a.busy / nullif(a.wall, 0) - 100.0 * b.busy / nullif(b.wall, 0), '.2f') || ' pp', 'n/a')
      || ' | n/a |'
    FROM xq_cdt b, xq_cdt a WHERE b.side = 'b' AND a.side = 'a'
  UNION ALL SELECT 21, ''
  ORDER BY 1);

-- steps
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, '## Steps' AS line
  UNION ALL SELECT 1, 'Source: before ' || coalesce((SELECT CASE source WHEN 'steps_line' THEN 'the devices'' `Steps` line'
        WHEN 'host_annotation' THEN 'host StepTraceAnnotation events' WHEN 'module' THEN 'XLA module runs' ELSE source END
        FROM xq_csq WHERE side = 'b'), 'none') || ', after '
      || coalesce((SELECT CASE source WHEN 'steps_line' THEN 'the devices'' `Steps` line'
        WHEN 'host_annotation' THEN 'host StepTraceAnnotation events' WHEN 'module' THEN 'XLA module runs' ELSE source END
        FROM xq_csq WHERE side = 'a'), 'none')
      || '. Steps numbered below ' || (SELECT warmup_steps FROM xq_input) || ' are warm-up, left out; the steady steps of '
      || 'every device are pooled.'
      || CASE WHEN (SELECT source FROM xq_csq WHERE side = 'b') IS NOT (SELECT source FROM xq_csq WHERE side = 'a')
              THEN ' The two sides count steps differently: compare their step times with care.' ELSE '' END
  UNION ALL SELECT 2, ''
  UNION ALL SELECT 3, '| Figure | Before | After | Delta | Change (% of before) |'
  UNION ALL SELECT 4, '|---|---:|---:|---:|---:|'
  UNION ALL SELECT 5, '| Steps (all devices) | ' || b.n_all || ' | ' || a.n_all || ' | ' || CASE WHEN a.n_all >= b.n_all THEN '+' ELSE '' END
      || (a.n_all - b.n_all) || ' | n/a |' FROM xq_csq b, xq_csq a WHERE b.side = 'b' AND a.side = 'a'
  UNION ALL SELECT 6, '| Steady steps (all devices) | ' || b.n || ' | ' || a.n || ' | ' || CASE WHEN a.n >= b.n THEN '+' ELSE '' END
      || (a.n - b.n) || ' | n/a |' FROM xq_csq b, xq_csq a WHERE b.side = 'b' AND a.side = 'a'
  UNION ALL SELECT 7 + o, '| ' || label || ' | ' || coalesce(xplane_format(bv / 1e9, '.3f'), 'n/a') || ' | '
      || coalesce(xplane_format(av / 1e9, '.3f'), 'n/a') || ' | '
      || coalesce(CASE WHEN av >= bv THEN '+' ELSE '' END || xplane_format((av - bv) / 1e9, '.3f'), 'n/a') || ' | '
      || coalesce(CASE WHEN bv > 0 THEN CASE WHEN av >= bv THEN '+' ELSE '' END || xplane_format(100.0 * (av - bv) / bv, '.2f') || '%' END, 'n/a')
      || ' |'
    FROM (SELECT 0 AS o, 'Median step (ms)' AS label, b.p50 AS bv, a.p50 AS av FROM xq_csq b, xq_csq a WHERE b.side = 'b' AND a.side = 'a'
          UNION ALL SELECT 1, 'P90 step (ms)', b.p90, a.p90 FROM xq_csq b, xq_csq a WHERE b.side = 'b' AND a.side = 'a'
          UNION ALL SELECT 2, 'Mean step (ms)', b.mean, a.mean FROM xq_csq b, xq_csq a WHERE b.side = 'b' AND a.side = 'a')
  UNION ALL SELECT 20, ''
  ORDER BY 1);

-- top op changes
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, 0 AS i, '## Top Device Op Changes' AS line
  UNION ALL SELECT 1, 0, 'Self time by op name (the report''s Top Device Ops) on each side; the ' || (SELECT top_k FROM xq_input)
      || ' ops whose self time changed most. Shares: of the self time of all device ops of that side (before '
      || xplane_format(coalesce((SELECT sum(self_ps) FROM xq_cop WHERE side = 'b'), 0) / 1e9, '.3f') || ' ms, after '
      || xplane_format(coalesce((SELECT sum(self_ps) FROM xq_cop WHERE side = 'a'), 0) / 1e9, '.3f') || ' ms).'
  UNION ALL SELECT 2, 0, ''
  UNION ALL SELECT 3, 0, '| Op | Count before | Count after | Self before (ms) | Self after (ms) | Delta (ms) | Change (% of before) '
      || '| Share before (% of device op self time) | Share after (% of device op self time) |'
  UNION ALL SELECT 4, 0, '|---|---:|---:|---:|---:|---:|---:|---:|---:|'
  UNION ALL SELECT 5, r, '| ' || xplane_md_cell(name) || ' | '
      || coalesce(bn, 0) || ' | ' || coalesce(an, 0) || ' | '
      || xplane_format(coalesce(bps, 0) / 1e9, '.3f') || ' | ' || xplane_format(coalesce(aps, 0) / 1e9, '.3f') || ' | '
      || CASE WHEN delta >= 0 THEN '+' ELSE '' END || xplane_format(delta / 1e9, '.3f') || ' | '
      || coalesce(CASE WHEN bps > 0 THEN CASE WHEN delta >= 0 THEN '+' ELSE '' END || xplane_format(100.0 * delta / bps, '.2f') || '%' END,
                  'n/a (new)') || ' | '
      || coalesce(xplane_format(100.0 * bps / nullif((SELECT sum(self_ps) FROM xq_cop WHERE side = 'b'), 0), '.2f') || '%', 'n/a') || ' | '
      || coalesce(xplane_format(100.0 * aps / nullif((SELECT sum(self_ps) FROM xq_cop WHERE side = 'a'), 0), '.2f') || '%', 'n/a') || ' |'
    FROM xq_cchg WHERE r <= (SELECT top_k FROM xq_input)
  UNION ALL SELECT 6, 0, ''
  ORDER BY 1, 2)
 WHERE EXISTS (SELECT 1 FROM xq_cchg);
