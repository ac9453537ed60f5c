-- queries/history.sql: summarize the regression history that track.sql appends to.
-- sqlite3-only: the history is a SQLite database file (@history).
--
-- Prints, as the field's reference `profile_summary history` does (keys
-- sorted, indent 2): {"history_path": @history, "num_records",
-- "status_counts": {status: n}, "top_failures" and "top_warnings": the 10
-- most frequent messages [{"message", "count"}] (ties: first seen),
-- "latest_record": the last record or null, "recent_records": the last
-- @tail records (default 20; none when @tail <= 0)}. Records are in append
-- order. A history file without the table (or a new file) has no records.
--
-- Parameters: @history (required: the SQLite database file), @tail.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @history perf_history.db" :memory: '.read queries/history.sql'
.read queries/lib/history_records.sql

.mode list
.headers off
WITH
n(n, tail) AS (SELECT count(*), coalesce(@tail, 20) FROM xq_records),
messages(kind, i, j, msg) AS (
  SELECT 'failures', r.i, CAST(f.key AS INTEGER), f.value FROM xq_records r, json_each(r.record, '$.assessment.failures') f
  UNION ALL
  SELECT 'warnings', r.i, CAST(w.key AS INTEGER), w.value FROM xq_records r, json_each(r.record, '$.assessment.warnings') w),
ranked AS (
  SELECT kind, msg, count(*) AS n, row_number() OVER (PARTITION BY kind ORDER BY count(*) DESC, min(i * 1000000 + j)) AS rank
    FROM messages GROUP BY kind, msg)
SELECT xplane_json_pretty(json_object(
  'history_path', CAST(@history AS TEXT),
  'num_records', (SELECT n FROM n),
  'status_counts', (SELECT json_group_object(status, c) FROM (
      SELECT r.record ->> '$.assessment.status' AS status, count(*) AS c, min(i) AS first
        FROM xq_records r WHERE json_type(r.record, '$.assessment.status') = 'text'
       GROUP BY 1 ORDER BY first)),
  'top_failures', (SELECT json_group_array(json_object('message', msg, 'count', n))
                     FROM (SELECT * FROM ranked WHERE kind = 'failures' AND rank <= 10 ORDER BY rank)),
  'top_warnings', (SELECT json_group_array(json_object('message', msg, 'count', n))
                     FROM (SELECT * FROM ranked WHERE kind = 'warnings' AND rank <= 10 ORDER BY rank)),
  'latest_record', json((SELECT record FROM xq_records ORDER BY i DESC LIMIT 1)),
  'recent_records', (SELECT json_group_array(json(record)) FROM (
      SELECT record FROM xq_records, n WHERE n.tail > 0 AND i > n.n - n.tail ORDER BY i)))) AS document;
.read queries/lib/cleanup.sql
