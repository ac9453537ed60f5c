-- queries/lib/track_record.sql: the record of track.sql and
-- profile_track.sql, in temp.xq_record(recorded_at_utc, label, status,
-- record). Input: temp.xq_track_msgs(kind 'failure' | 'warning', i, msg) and
-- temp.xq_track_in(model: NULL for the reference's record, metrics and
-- comparison: JSON text), xq_before and xq_after (the sides' summaries: their
-- paths and run metadata), @label. Status: fail when there is a failure, warn
-- when there is a warning, else pass. The record: {"recorded_at_utc",
-- "label", "before" and "after" ({"source_path", "run_path", "run_id",
-- "artifact_ref"}), "assessment": {"status", ["model"], "failures",
-- "warnings", "metrics", "comparison"}}.
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
      'comparison', json(comparison))
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
