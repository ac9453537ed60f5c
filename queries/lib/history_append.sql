-- queries/lib/history_append.sql: append temp.xq_record(recorded_at_utc,
-- label, status, record) to the tracking history @history (track.sql and
-- profile_track.sql). Without @history the row goes to an in-memory database
-- and is dropped with it.
-- The history: one row per assessment, the record kept whole as JSON.
ATTACH coalesce(@history, ':memory:') AS xq_history;
CREATE TABLE IF NOT EXISTS xq_history.regression_history(
  id INTEGER PRIMARY KEY,          -- append order
  recorded_at_utc TEXT NOT NULL,
  label TEXT,
  status TEXT NOT NULL,            -- pass | warn | fail
  record TEXT NOT NULL             -- the record track.sql printed (compact JSON)
);
-- the record compact, its keys in the printed order (sorted): the same bytes
-- whether the query appends it or the xplane command does (history_from_doc.sql)
INSERT INTO xq_history.regression_history(recorded_at_utc, label, status, record)
SELECT recorded_at_utc, label, status, json(xplane_json_pretty(record)) FROM xq_record;
DETACH xq_history;
