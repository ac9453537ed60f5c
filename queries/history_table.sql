-- queries/history_table.sql: the regression history that track.sql appends
-- to, as a markdown table (`xplane history`, the default; the reference's
-- JSON summary is queries/history.sql, `xplane history --format json`).
-- sqlite3-only: the history is a SQLite database file (@history).
--
-- Prints the record count with the count of each status, then one row per
-- record of the last @tail (default 20; all when @tail <= 0), oldest first:
-- its number, time, label, status, model (device time: profile_track.sql's
-- record; reference: track.sql's), the steady-state median and p90 step time
-- of each side (ms; the reference's records keep microseconds, the device
-- model's ms) and their change, and why (the record's failures and
-- warnings). A history file without the table (or a new file) has no records. Labels are escaped for the table.
--
-- Parameters: @history (required: the SQLite database file), @tail.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @history perf_history.db" :memory: '.read queries/history_table.sql'
.read queries/lib/history_records.sql

.mode list
.headers off
WITH
n(n, tail) AS (SELECT count(*), coalesce(@tail, 20) FROM xq_records),
r AS (SELECT i, record ->> '$.recorded_at_utc' AS at, record ->> '$.label' AS label, record ->> '$.assessment.status' AS status,
             coalesce(record ->> '$.assessment.model', 'reference') AS model,
             CASE WHEN record ->> '$.assessment.model' = 'device_time' THEN record ->> '$.assessment.comparison.steps.before.median_ms'
                  ELSE (record ->> '$.assessment.comparison.step_time.steady_state_median_before') / 1e3 END AS mb,
             CASE WHEN record ->> '$.assessment.model' = 'device_time' THEN record ->> '$.assessment.comparison.steps.after.median_ms'
                  ELSE (record ->> '$.assessment.comparison.step_time.steady_state_median_after') / 1e3 END AS ma,
             CASE WHEN record ->> '$.assessment.model' = 'device_time' THEN record ->> '$.assessment.comparison.steps.before.p90_ms'
                  ELSE (record ->> '$.assessment.comparison.step_time.steady_state_p90_before') / 1e3 END AS pb,
             CASE WHEN record ->> '$.assessment.model' = 'device_time' THEN record ->> '$.assessment.comparison.steps.after.p90_ms'
                  ELSE (record ->> '$.assessment.comparison.step_time.steady_state_p90_after') / 1e3 END AS pa,
             (SELECT group_concat(value, ' ') FROM (
                SELECT value FROM json_each(record, '$.assessment.failures')
                UNION ALL SELECT value FROM json_each(record, '$.assessment.warnings'))) AS why
        FROM xq_records, n WHERE n.tail <= 0 OR i > n.n - n.tail),
lines(o, i, line) AS (
  SELECT 0, 0, '# Tracking history' UNION ALL SELECT 1, 0, ''
  UNION ALL SELECT 2, 0, '- History: ' || xplane_md_code(CAST(@history AS TEXT))
  UNION ALL SELECT 3, 0, '- Records: ' || (SELECT n FROM n) || coalesce(' (' || (SELECT group_concat(status || ' ' || c, ', ') FROM (
      SELECT record ->> '$.assessment.status' AS status, count(*) AS c FROM xq_records GROUP BY 1
       ORDER BY CASE status WHEN 'pass' THEN 0 WHEN 'warn' THEN 1 ELSE 2 END)) || ')', '')
  UNION ALL SELECT 4, 0, '- Shown: ' || (SELECT count(*) FROM r) || ' most recent, oldest first (--tail N); step times in ms, '
      || 'steady state; a change is (after - before) / before'
  UNION ALL SELECT 5, 0, ''
  UNION ALL SELECT 6, 0, '| # | Recorded at (UTC) | Label | Status | Model | Median before (ms) | Median after (ms) | Median change '
      || '| P90 before (ms) | P90 after (ms) | P90 change | Why |' WHERE EXISTS (SELECT 1 FROM r)
  UNION ALL SELECT 7, 0, '|---:|---|---|---|---|---:|---:|---:|---:|---:|---:|---|' WHERE EXISTS (SELECT 1 FROM r)
  UNION ALL SELECT 8, i, '| ' || i || ' | ' || coalesce(at, 'n/a') || ' | '
      || coalesce(xplane_md_cell(label), 'n/a') || ' | '
      || coalesce(status, 'n/a') || ' | ' || CASE model WHEN 'device_time' THEN 'device time' ELSE 'reference' END || ' | '
      || coalesce(xplane_format(mb, '.3f'), 'n/a') || ' | ' || coalesce(xplane_format(ma, '.3f'), 'n/a') || ' | '
      || coalesce(CASE WHEN mb > 0 THEN CASE WHEN ma >= mb THEN '+' ELSE '' END || xplane_format(100.0 * (ma - mb) / mb, '.2f') || '%' END, 'n/a')
      || ' | ' || coalesce(xplane_format(pb, '.3f'), 'n/a') || ' | ' || coalesce(xplane_format(pa, '.3f'), 'n/a') || ' | '
      || coalesce(CASE WHEN pb > 0 THEN CASE WHEN pa >= pb THEN '+' ELSE '' END || xplane_format(100.0 * (pa - pb) / pb, '.2f') || '%' END, 'n/a')
      || ' | ' || coalesce(xplane_md_cell(why), '') || ' |'
    FROM r)
SELECT group_concat(line, char(10)) FROM (SELECT line FROM lines ORDER BY o, i);
.read queries/lib/cleanup.sql
