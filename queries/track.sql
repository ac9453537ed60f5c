-- queries/track.sql: pass / warn / fail regression assessment of @after against @before.
-- sqlite3-only: it reads two profiles, and trace processor holds one trace.
--
-- Compares the two profiles (queries/lib/compare_json.sql) and applies the
-- field's reference thresholds (`profile_summary track`):
--   fail  the steady-state median step time regressed by more than
--         @max_step_median_regression_pct percent (default 5.0), or the p90 by
--         more than @max_step_p90_regression_pct (default 10.0);
--   warn  the communication share grew by more than
--         @max_communication_share_regression_abs (default 0.05), or the stall
--         share by more than @max_stall_share_regression_abs (default 0.05);
--         A verdict is given only for what was checked, so it is warn too
--         when the step-time thresholds could not be checked (no steady-state
--         step on a side: every step warm-up, or no step source), and when the
--         provenance check fails (e.g. the same trace twice);
--   pass  otherwise.
-- Prints the record {"recorded_at_utc", "label" (@label), "before" and "after"
-- ({"source_path", "run_path", "run_id", "artifact_ref"}), "assessment":
-- {"status", "failures", "warnings", "metrics", "comparison"}} (keys sorted,
-- indent 2) and appends it to the table regression_history of the SQLite
-- database @history (created if needed; history.sql summarizes it). Without
-- @history the record is only printed.
--
-- Parameters: @before, @after (required), @label, @history, the four @max_*
-- thresholds, @top_k (ops per list, default 10), and @warmup_steps,
-- @hot_op_limit, @breakdown_mode for both summaries.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @before base.xplane.pb" \
--           -cmd ".parameter set @after new.xplane.pb" -cmd ".parameter set @label nightly-42" \
--           -cmd ".parameter set @history perf_history.db" :memory: '.read queries/track.sql'
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/track_thresholds.sql
.read queries/lib/compare_build.sql
.read queries/lib/compare_json.sql

DROP TABLE IF EXISTS temp.xq_track_m;
CREATE TEMP TABLE xq_track_m AS  -- the metrics, and the comparison they come from
WITH c(c) AS (SELECT doc FROM xq_compare)
SELECT c AS comparison,
       CASE WHEN (c ->> '$.step_time.steady_state_median_before') > 0
              THEN ((c ->> '$.step_time.steady_state_median_after') - (c ->> '$.step_time.steady_state_median_before'))
                   / (c ->> '$.step_time.steady_state_median_before') * 100.0 END AS median_pct,
       CASE WHEN (c ->> '$.step_time.steady_state_p90_before') > 0
              THEN ((c ->> '$.step_time.steady_state_p90_after') - (c ->> '$.step_time.steady_state_p90_before'))
                   / (c ->> '$.step_time.steady_state_p90_before') * 100.0 END AS p90_pct,
       c ->> '$.time_breakdown_share_delta.communication' AS comm_delta,
       c ->> '$.time_breakdown_share_delta.stall' AS stall_delta
    FROM c;
DROP TABLE IF EXISTS temp.xq_track_msgs;
CREATE TEMP TABLE xq_track_msgs AS
WITH
c(c) AS (SELECT comparison FROM xq_track_m),
m AS (SELECT * FROM xq_track_m),
warnings(i, msg) AS (
  SELECT 1, 'Communication share increased by ' || xplane_format(m.comm_delta, '.4f') || ' (threshold '
            || xplane_format(t.comm_abs, '.4f') || ').' FROM m, xq_thresholds t WHERE m.comm_delta > t.comm_abs
  UNION ALL
  SELECT 2, 'Stall share increased by ' || xplane_format(m.stall_delta, '.4f') || ' (threshold '
            || xplane_format(t.stall_abs, '.4f') || ').' FROM m, xq_thresholds t WHERE m.stall_delta > t.stall_abs
  UNION ALL
  SELECT 3, 'Step time not checked: ' || CASE
              WHEN c ->> '$.step_time.steady_state_median_before' IS NULL AND c ->> '$.step_time.steady_state_median_after' IS NULL
                THEN 'neither side has a'
              WHEN c ->> '$.step_time.steady_state_median_before' IS NULL THEN 'the before side has no'
              ELSE 'the after side has no' END
            || ' steady-state step (a step numbered ' || (SELECT warmup_steps FROM xq_input) || ' or more).'
    FROM c, m WHERE m.median_pct IS NULL)
SELECT 'warning' AS kind, i, msg FROM warnings;
DROP TABLE IF EXISTS temp.xq_track_in;
CREATE TEMP TABLE xq_track_in AS
SELECT NULL AS model,
       json_object('steady_state_median_regression_pct', json(xplane_repr(median_pct)),
                   'steady_state_p90_regression_pct', json(xplane_repr(p90_pct)),
                   'communication_share_delta', json(xplane_repr(comm_delta)),
                   'stall_share_delta', json(xplane_repr(stall_delta))) AS metrics
  FROM xq_track_m;
.read queries/lib/track_record.sql

.read queries/lib/history_append.sql

.mode list
.headers off
SELECT xplane_json_pretty(record) AS document FROM xq_record;
.read queries/lib/cleanup.sql
