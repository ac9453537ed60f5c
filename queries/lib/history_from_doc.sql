-- queries/lib/history_from_doc.sql: append a printed track record to the
-- tracking history: @record is the document track.sql or profile_track.sql
-- printed, @history the database. The xplane command runs those queries with
-- no @history and appends with this file only once the record is written
-- (stdout flushed, or the -o file in place), so a record that could not be
-- printed is never in the history.
DROP TABLE IF EXISTS temp.xq_record;
CREATE TEMP TABLE xq_record AS
SELECT @record ->> '$.recorded_at_utc' AS recorded_at_utc, @record ->> '$.label' AS label,
       @record ->> '$.assessment.status' AS status, @record AS record;
.read queries/lib/history_append.sql
.read queries/lib/cleanup.sql
