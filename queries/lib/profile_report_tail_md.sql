-- queries/lib/profile_report_tail_md.sql: the findings, regions and gaps
-- sections of queries/profile_report.sql, appended to temp.xq_pmd, then the
-- document itself: temp.xq_profile_report(md). Read after
-- queries/lib/profile_report_device_md.sql.
--
-- Findings: every xplane_findings row with its figure, the denominator the
-- figure is a share of, the suggestion and the evidence. Regions: the named
-- regions the device ops ran under (xplane_op_regions: each op in the
-- deepest window open at its midpoint), with the ops directly in a region
-- and those in it or its sub-regions, as shares of the self time of all
-- device ops (the Top Device Ops base; in-flight `Async XLA Ops` are left
-- out). Gaps: idle time on a device line (a stream) before an op, grouped
-- by the op where work resumed (xplane_gaps), as shares of the summed spans
-- of the device op lines, which hold every gap.
-- findings
DROP TABLE IF EXISTS temp.xq_find;
CREATE TEMP TABLE xq_find AS SELECT * FROM xplane_findings;
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, 0 AS i, 0 AS j, '## Findings' AS line
  UNION ALL SELECT 1, 0, 0, 'No performance killer found by the rules (xplane_findings: recompilation, host-bound steps, '
      || 'transfers, tiny kernels, blocking synchronization, memory-bound hot ops).' WHERE NOT EXISTS (SELECT 1 FROM xq_find)
  UNION ALL
  SELECT 2, r, 0, '### ' || id || ' (' || severity || ')' || coalesce(' on ' || xplane_md_code(plane_name), '')
    FROM (SELECT *, row_number() OVER (ORDER BY rowid) AS r FROM xq_find)
  UNION ALL SELECT 2, r, 1, '- ' || coalesce(xplane_md_code(subject) || ': ', '') || count || coalesce(' of ' || of_total, '') || ' '
         || CASE id WHEN 'recompilation' THEN 'compiles' WHEN 'host_bound' THEN CASE WHEN subject LIKE 'CPU:%'
                 THEN 'idle gaps under host work' ELSE 'steps' END WHEN 'transfers' THEN 'copies'
                 WHEN 'tiny_kernels' THEN CASE WHEN subject LIKE 'CPU:%' THEN 'program runs' ELSE 'kernels' END
                 WHEN 'synchronization' THEN 'calls' ELSE 'runs' END
         || '; ' || CASE id WHEN 'recompilation' THEN 'compile time' WHEN 'host_bound' THEN CASE WHEN subject LIKE 'CPU:%'
                 THEN 'device idle under host work' ELSE 'device idle' END
                 WHEN 'transfers' THEN 'copy time' WHEN 'tiny_kernels' THEN 'launch gap'
                 WHEN 'synchronization' THEN 'device idle after the calls' ELSE 'self time' END
         || ' ' || printf('%.3f', time_ps / 1e9) || ' ms = ' || printf('%.1f', 100.0 * share) || ' % of '
         || CASE id WHEN 'recompilation' THEN 'the profile span'
                 WHEN 'host_bound' THEN CASE WHEN subject LIKE 'CPU:%' THEN 'the device''s wall' ELSE 'those steps'' time' END
                 WHEN 'transfers' THEN 'the ' || coalesce(evidence ->> 'reference', 'step time')
                 WHEN 'tiny_kernels' THEN 'their time + launch gap'
                 WHEN 'synchronization' THEN 'the profile span x devices'
                 ELSE 'all device ops'' self time' END
    FROM (SELECT *, row_number() OVER (ORDER BY rowid) AS r FROM xq_find)
  UNION ALL SELECT 2, r, 2, suggestion FROM (SELECT *, row_number() OVER (ORDER BY rowid) AS r FROM xq_find)
  UNION ALL SELECT 2, r, 3, '- Evidence: ' || xplane_md_code(evidence)
    FROM (SELECT *, row_number() OVER (ORDER BY rowid) AS r FROM xq_find)
  UNION ALL SELECT 2, r, 4, '' FROM (SELECT *, row_number() OVER (ORDER BY rowid) AS r FROM xq_find)
  ORDER BY 1, 2, 3);

-- regions
DROP TABLE IF EXISTS temp.xq_reg;
CREATE TEMP TABLE xq_reg AS
SELECT region_path, depth, count, self_ps FROM xplane_op_regions
 WHERE name NOT IN (SELECT name FROM xplane_ops WHERE line_name = 'Async XLA Ops'
                    EXCEPT SELECT name FROM xq_top);
DROP TABLE IF EXISTS temp.xq_regp;
CREATE TEMP TABLE xq_regp AS
SELECT p.region_path, min(p.depth) AS depth, sum(p.count) AS n, sum(p.self_ps) AS self_ps,
       (SELECT sum(c.self_ps) FROM xq_reg c WHERE c.region_path = p.region_path
           OR substr(c.region_path, 1, length(p.region_path) + 2) = p.region_path || '=>') AS incl_ps
  FROM xq_reg p GROUP BY p.region_path;
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, 0 AS i, '## Regions' AS line
  UNION ALL SELECT 1, 0, 'The named regions (name scopes, host annotations) the device ops ran under: each op counts in the '
      || 'deepest region open at its midpoint; ops under no region are not counted. Directly: the ops of the region itself; '
      || 'inclusive: with its sub-regions (`=>` separates the levels). Shares: of the self time of all device ops, '
      || xplane_format((SELECT sum(self_ps) FROM xq_top) / 1e9, '.3f') || ' ms; the regions hold '
      || xplane_format(100.0 * (SELECT sum(self_ps) FROM xq_reg) / nullif((SELECT sum(self_ps) FROM xq_top), 0), '.2f')
      || ' % of it.'
  UNION ALL SELECT 2, 0, ''
  UNION ALL SELECT 3, 0, '| Region | Depth | Ops | Directly (ms) | Directly (% of device op self time) | Inclusive (ms) '
      || '| Inclusive (% of device op self time) |'
  UNION ALL SELECT 4, 0, '|---|---:|---:|---:|---:|---:|---:|'
  UNION ALL SELECT 5, r,
      '| ' || xplane_md_cell(region_path) || ' | ' || depth || ' | ' || n || ' | '
      || xplane_format(self_ps / 1e9, '.3f') || ' | '
      || coalesce(xplane_format(100.0 * self_ps / nullif((SELECT sum(self_ps) FROM xq_top), 0), '.2f') || '%', 'n/a') || ' | '
      || xplane_format(incl_ps / 1e9, '.3f') || ' | '
      || coalesce(xplane_format(100.0 * incl_ps / nullif((SELECT sum(self_ps) FROM xq_top), 0), '.2f') || '%', 'n/a') || ' |'
    FROM (SELECT *, row_number() OVER (ORDER BY incl_ps DESC, region_path) AS r FROM xq_regp)
   WHERE r <= (SELECT top_k FROM xq_input)
  UNION ALL SELECT 6, 0, '(' || (SELECT count(*) FROM xq_regp) || ' regions; the ' || min((SELECT top_k FROM xq_input),
      (SELECT count(*) FROM xq_regp)) || ' with the most inclusive time shown)'
  UNION ALL SELECT 7, 0, ''
  ORDER BY 1, 2)
 WHERE EXISTS (SELECT 1 FROM xq_regp);

-- gaps
DROP TABLE IF EXISTS temp.xq_gap;
CREATE TEMP TABLE xq_gap AS
SELECT *, row_number() OVER (ORDER BY total_ps DESC, payload_name, marker_name) AS r FROM xplane_gaps WHERE total_ps >= 1000000;
DROP TABLE IF EXISTS temp.xq_lines;
CREATE TEMP TABLE xq_lines AS
SELECT plane_index, line_index, max(end_ps) - min(start_ps) AS span_ps FROM xplane_ops GROUP BY plane_index, line_index;
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, 0 AS i, '## Gaps' AS line
  UNION ALL SELECT 1, 0, 'Idle time on a device line (a stream or the XLA ops line) before an op, by the op where work resumed '
      || '(payload) and the first op after the idle time (marker); groups of at least 1 us in total. A gap is idle for its own line: on a device with several '
      || 'streams another may be busy, so gaps are not device idle time (Device Time is). Share: of the summed spans of the '
      || (SELECT count(*) FROM xq_lines) || ' device op lines, ' || xplane_format((SELECT sum(span_ps) FROM xq_lines) / 1e9, '.3f')
      || ' ms, which hold every gap; the gaps are ' || xplane_format(100.0 * (SELECT sum(total_ps) FROM xq_gap)
      / nullif((SELECT sum(span_ps) FROM xq_lines), 0), '.2f') || ' % of it.'
  UNION ALL SELECT 2, 0, ''
  UNION ALL SELECT 3, 0, '| Payload | Marker | Payload tf_op | Gaps | Idle (ms) | Share (% of device line span) | Longest (ms) |'
  UNION ALL SELECT 4, 0, '|---|---|---|---:|---:|---:|---:|'
  UNION ALL SELECT 5, r,
      '| ' || xplane_md_cell(payload_name) || ' | '
      || xplane_md_cell(marker_name) || ' | '
      || coalesce(xplane_md_cell(substr(payload_tf_op, 1, 80)), 'n/a') || ' | '
      || count || ' | ' || xplane_format(total_ps / 1e9, '.3f') || ' | '
      || coalesce(xplane_format(100.0 * total_ps / nullif((SELECT sum(span_ps) FROM xq_lines), 0), '.2f') || '%', 'n/a') || ' | '
      || xplane_format(max_ps / 1e9, '.3f') || ' |'
    FROM xq_gap WHERE r <= (SELECT top_k FROM xq_input)
  UNION ALL SELECT 6, 0, ''
  ORDER BY 1, 2)
 WHERE EXISTS (SELECT 1 FROM xq_gap);

DROP TABLE IF EXISTS temp.xq_profile_report;
CREATE TEMP TABLE xq_profile_report AS
SELECT rtrim(group_concat(line, char(10)), ' ' || char(9, 10, 11, 12, 13)) AS md
  FROM (SELECT line FROM xq_pmd ORDER BY seq);
