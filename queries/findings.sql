-- queries/findings.sql: "Which classic performance killers does this profile
-- have?" (recompilation, host-bound steps, transfers, tiny kernels,
-- synchronization, memory-bound hot ops), or one of them with @finding.
--
-- Prints {"query_type": "findings", "finding": @finding or null, "results":
-- [...]}: the rows of xplane_findings(@profile, @finding_params) (rules,
-- parameters and default thresholds in schema/TABLES.md), ordered by severity (high first), then time. Each
-- result has id, severity, plane (name or null), subject, count, of_total,
-- time_ps and time_ms (the same time), share, bytes, start_ps, end_ps,
-- evidence (the rule's numbers, as an object), ops, steps, suggestion. An
-- empty list means none was found.
-- Parameters: @profile (required); @finding (optional): recompilation,
-- host_bound, transfers, tiny_kernels, synchronization or memory_bound;
-- @finding_params (optional): thresholds, 'name=value,...' (a bad one stops
-- with the extension's message naming it).
--
--   sqlite3 -cmd '.load build/xplane' -cmd '.parameter set @profile host.xplane.pb' -cmd '.parameter set @finding transfers' :memory: '.read queries/findings.sql'
--   sqlite3 -cmd '.load build/xplane' -cmd '.parameter set @profile host.xplane.pb' -cmd '.parameter set @finding memory_bound' -cmd ".parameter set @finding_params 'hot_op_share=0.01'" :memory: '.read queries/findings.sql'
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/use_profile.sql
DROP TABLE IF EXISTS temp.xq_finding;
CREATE TEMP TABLE xq_finding AS
  SELECT nullif(CAST((SELECT value FROM xq_params WHERE name = 'finding') AS TEXT), '') AS id,
         coalesce(CAST((SELECT value FROM xq_params WHERE name = 'finding_params') AS TEXT), '') AS params;
INSERT INTO xq_fail SELECT 'bad-finding' FROM xq_finding
 WHERE id IS NOT NULL AND id NOT IN (SELECT value FROM json_each(xplane_finding_rules()));
.mode list
.headers off
SELECT xplane_json_pretty(json_object(
  'query_type', 'findings',
  'finding', (SELECT id FROM xq_finding),
  'results', (SELECT json_group_array(json(r)) FROM (
     SELECT json_object('id', f.id, 'severity', f.severity, 'plane', f.plane_name, 'subject', f.subject,
                        'count', f.count, 'of_total', f.of_total, 'time_ps', f.time_ps,
                        'time_ms', f.time_ps / 1e9, 'share', f.share, 'bytes', f.bytes,
                        'start_ps', f.start_ps, 'end_ps', f.end_ps, 'evidence', json(f.evidence),
                        'ops', f.ops, 'steps', f.steps, 'suggestion', f.suggestion) AS r
       FROM xplane_findings f, xq_finding w
      WHERE f.params = w.params AND (w.id IS NULL OR f.id = w.id)
      ORDER BY f.severity = 'high' DESC, f.time_ps DESC, f.id, f.plane_index, f.subject))));
.read queries/lib/cleanup.sql
