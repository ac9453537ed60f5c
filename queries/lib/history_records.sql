-- queries/lib/history_records.sql: the records of the regression history
-- @history (the SQLite file track.sql appends to) into temp.xq_records(i,
-- record), in append order (i from 1); a file without the table (or a new
-- file) gets the table and has no records. Read by queries/history.sql and
-- queries/history_table.sql.
.read queries/lib/checks.sql
INSERT INTO xq_fail SELECT 'history-unset' WHERE @history IS NULL OR @history = '';
ATTACH @history AS xq_history;
CREATE TABLE IF NOT EXISTS xq_history.regression_history(
  id INTEGER PRIMARY KEY, recorded_at_utc TEXT NOT NULL, label TEXT, status TEXT NOT NULL, record TEXT NOT NULL);
DROP TABLE IF EXISTS temp.xq_records;
CREATE TEMP TABLE xq_records AS
SELECT row_number() OVER (ORDER BY id) AS i, record FROM xq_history.regression_history;
DETACH xq_history;
