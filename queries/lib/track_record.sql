-- queries/lib/track_record.sql: the record of track.sql and
-- profile_track.sql, in temp.xq_record(recorded_at_utc, label, status,
-- record). Input: temp.xq_track_m (median_pct, p90_pct: the steady median
-- and p90 step-time changes in %; comparison: the comparison document, with
-- its provenance_checks), xq_thresholds (lib/track_thresholds.sql),
-- temp.xq_track_msgs(kind 'warning', i, msg): the query's own warnings,
-- numbered below 100, temp.xq_track_in(model: NULL for the reference's
-- record; metrics: JSON text), xq_before and xq_after (the sides' summaries:
-- their paths and run metadata), @label.
-- Added here, the same for both: the failures (the median regressed by more
-- than median_pct, the p90 by more than p90_pct) and the last warning (the
-- provenance check failed). Status: fail when there is a failure, warn when
-- there is a warning, else pass. The record: {"recorded_at_utc", "label",
-- "before" and "after" ({"source_path", "run_path", "run_id",
-- "artifact_ref"}), "assessment": {"status", ["model"], "failures",
-- "warnings", "metrics", "comparison"}}.
INSERT INTO xq_track_msgs(kind, i, msg)
SELECT 'failure', 1, 'Steady-state median step time regressed by ' || xplane_format(m.median_pct, '.2f') || '% (threshold '
       || xplane_format(t.median_pct, '.2f') || '%).' FROM xq_track_m m, xq_thresholds t WHERE m.median_pct > t.median_pct
UNION ALL
SELECT 'failure', 2, 'Steady-state p90 step time regressed by ' || xplane_format(m.p90_pct, '.2f') || '% (threshold '
       || xplane_format(t.p90_pct, '.2f') || '%).' FROM xq_track_m m, xq_thresholds t WHERE m.p90_pct > t.p90_pct
UNION ALL
SELECT 'warning', 100, 'Provenance check failed: '
       || (SELECT group_concat(value, ' ') FROM json_each(m.comparison, '$.provenance_checks.messages'))
  FROM xq_track_m m WHERE m.comparison ->> '$.provenance_checks.status' = 'fail';
DROP TABLE IF EXISTS temp.xq_record;
CREATE TEMP TABLE xq_record AS
WITH
now(ts) AS (SELECT strftime('%Y-%m-%dT%H:%M:%S', 'now') || CASE WHEN substr(strftime('%f', 'now'), 4) = '000' THEN ''
                   ELSE '.' || substr(strftime('%f', 'now'), 4) || '000' END || 'Z'),
status(s) AS (SELECT CASE WHEN EXISTS (SELECT 1 FROM xq_track_msgs WHERE kind = 'failure') THEN 'fail'
                          WHEN EXISTS (SELECT 1 FROM xq_track_msgs WHERE kind = 'warning') THEN 'warn' ELSE 'pass' END),
assessment(a) AS (
  SELECT json_object(
      'status', (SELECT s FROM status),
      'failures', (SELECT json_group_array(msg) FROM (SELECT msg FROM xq_track_msgs WHERE kind = 'failure' ORDER BY i)),
      'warnings', (SELECT json_group_array(msg) FROM (SELECT msg FROM xq_track_msgs WHERE kind = 'warning' ORDER BY i)),
      'metrics', json(metrics),
      'comparison', json((SELECT comparison FROM xq_track_m)))
    FROM xq_track_in)
SELECT (SELECT ts FROM now) AS recorded_at_utc, CAST(@label AS TEXT) AS label, (SELECT s FROM status) AS status,
  json_object(
    'recorded_at_utc', (SELECT ts FROM now),
    'label', CAST(@label AS TEXT),
    'before', (SELECT json_object('source_path', doc ->> '$.source_path', 'run_path', doc ->> '$.run_metadata.run_path',
                                  'run_id', doc ->> '$.run_metadata.run_id', 'artifact_ref', doc ->> '$.run_metadata.artifact_ref')
                 FROM xq_before),
    'after', (SELECT json_object('source_path', doc ->> '$.source_path', 'run_path', doc ->> '$.run_metadata.run_path',
                                 'run_id', doc ->> '$.run_metadata.run_id', 'artifact_ref', doc ->> '$.run_metadata.artifact_ref')
                FROM xq_after),
    'assessment', json((SELECT CASE WHEN model IS NULL THEN a ELSE json_set(a, '$.model', model) END
                          FROM assessment, xq_track_in))) AS record;
