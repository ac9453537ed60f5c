-- queries/lib/findings_json.sql: the findings of xplane_findings as one JSON
-- object of candidates, beside the summary (never inside profile_summary.v1's
-- own optimization_candidates, which stay the reference's).
-- sqlite3-only: xplane_findings is a table of the extension; the PerfettoSQL
-- package has no findings.
--
-- Input: temp.xq_params (@finding_params: thresholds 'name=value,...', schema/
-- TABLES.md; none = the defaults) and the profile chosen by
-- queries/lib/use_profile.sql. Output: temp.xq_findings_doc(doc):
--   {"schema_version": "xplane_findings.v1", "parameters": the text or "",
--    "candidates": [ one per finding, high severity first, then time desc:
--      {"candidate_id": "finding:<id>[:<plane>][:<subject>]", "title": ..., "rationale": ...,
--       "evidence": [strings with units], "suggestions": [the finding's suggestion],
--       "finding": {the xplane_findings row; evidence as an object}} ]}
-- Times in the evidence strings are milliseconds (ps / 1e9), shares percent.
DROP TABLE IF EXISTS temp.xq_findings_doc;
CREATE TEMP TABLE xq_findings_doc AS
WITH w AS (SELECT coalesce(CAST((SELECT value FROM xq_params WHERE name = 'finding_params') AS TEXT), '') AS params),
f AS (
  SELECT f.*,
         CASE f.id WHEN 'recompilation' THEN 'Module compiled ' || f.count || ' times: ' || f.subject
                   WHEN 'host_bound' THEN CASE WHEN f.subject LIKE 'CPU:%' THEN 'Host-bound device ' || f.subject
                                               ELSE 'Host-bound steps on ' || f.plane_name END
                   WHEN 'transfers' THEN f.subject || ' copies on ' || f.plane_name
                   WHEN 'tiny_kernels' THEN CASE WHEN f.subject LIKE 'CPU:%' THEN 'Tiny program runs on ' || f.subject
                                                 ELSE 'Tiny kernels on ' || f.plane_name END
                   WHEN 'synchronization' THEN 'Device idle after ' || f.subject
                   WHEN 'memory_bound' THEN 'Memory-bound hot op: ' || f.subject
                   ELSE f.id END AS title,
         CASE f.id WHEN 'recompilation' THEN 'compile time'
                   WHEN 'host_bound' THEN CASE WHEN f.subject LIKE 'CPU:%' THEN 'device idle under host work'
                                               ELSE 'device idle in those steps' END
                   WHEN 'transfers' THEN 'copy time'
                   WHEN 'tiny_kernels' THEN 'launch gap before them'
                   WHEN 'synchronization' THEN 'device idle after the calls'
                   WHEN 'memory_bound' THEN 'self time'
                   ELSE 'time' END AS time_label
    FROM xplane_findings f, w WHERE f.params = w.params)
SELECT json_object(
  'schema_version', 'xplane_findings.v1',
  'parameters', (SELECT params FROM w),
  'candidates', json((SELECT json_group_array(json(c)) FROM (
     SELECT json_object(
       'candidate_id', 'finding:' || id || coalesce(':' || plane_name, '') || coalesce(':' || subject, ''),
       'title', title,
       'rationale', 'xplane_findings rule ' || id || ' (' || severity || '): ' || time_label || ' '
                    || printf('%.3f ms', time_ps / 1e9) || ', ' || printf('%.1f%%', 100.0 * share) || ' of its reference time.',
       'evidence', json_array('count: ' || count || coalesce(' of ' || of_total, ''),
                              time_label || ': ' || printf('%.3f ms', time_ps / 1e9),
                              'share: ' || printf('%.1f%%', 100.0 * share)),
       'suggestions', json_array(suggestion),
       'finding', json_object('id', id, 'severity', severity, 'plane', plane_name, 'subject', subject,
                              'count', count, 'of_total', of_total, 'time_ps', time_ps, 'share', share,
                              'bytes', bytes, 'start_ps', start_ps, 'end_ps', end_ps,
                              'evidence', json(evidence), 'ops', ops, 'steps', steps)) AS c
       FROM f ORDER BY severity = 'high' DESC, time_ps DESC, id, plane_index, subject)))) AS doc;
