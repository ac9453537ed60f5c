-- queries/profile_track.sql: pass / warn / fail regression assessment of
-- @after against @before by the device-time model: `xplane track` on two
-- profiles. sqlite3-only: it reads two profiles.
--
-- It reads the comparison of queries/profile_compare.sql (the same figures:
-- lib/profile_compare_build.sql) and applies the thresholds:
--   fail  the steady-state median step time regressed by more than
--         @max_step_median_regression_pct percent (default 5.0), or the p90 by
--         more than @max_step_p90_regression_pct (default 10.0). The steps
--         are xplane_step_time's (the one step source: docs/ANALYSIS.md),
--         steady steps of every device pooled, as the report and compare;
--   warn  the communication share grew by more than
--         @max_communication_share_regression_abs (default 0.05), or the
--         idle share by more than @max_idle_share_regression_abs (default
--         0.05), both fractions of the side's device wall time (all devices
--         summed). A verdict is given only for what was checked, so it is warn
--         too when the step time could not be checked (no steady-state step on
--         a side, or the two sides count steps from different sources), when
--         the two sides ran on different hardware or device counts, and when
--         the provenance check fails (e.g. the same trace twice);
--   pass  otherwise.
-- Prints the record {"recorded_at_utc", "label" (@label), "before" and
-- "after" ({"source_path", "run_path", "run_id", "artifact_ref"}),
-- "assessment": {"status", "model" ("device_time"), "failures", "warnings",
-- "metrics", "comparison" (the xplane_compare.v1 document)}} (keys sorted,
-- indent 2) and appends it to regression_history in @history, as track.sql
-- does (history.sql and history_table.sql read both kinds of record).
--
-- The reference summarizer's assessment (its steps and time-breakdown
-- shares, whose stall share counts host threads) is queries/track.sql
-- (`xplane track --format reference`).
--
-- Parameters: @before, @after (required), @label, @history, the thresholds
-- above, @top_k (ops per list, default 10), @warmup_steps, and @hot_op_limit,
-- @breakdown_mode for the provenance's summaries.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @before base.xplane.pb" \
--           -cmd ".parameter set @after new.xplane.pb" -cmd ".parameter set @label nightly-42" \
--           -cmd ".parameter set @history perf_history.db" :memory: '.read queries/profile_track.sql'
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/track_thresholds.sql
.read queries/lib/compare_build.sql
.read queries/lib/compare_json.sql
.read queries/lib/profile_compare_build.sql
.read queries/lib/profile_compare_doc.sql

DROP TABLE IF EXISTS temp.xq_track_m;
CREATE TEMP TABLE xq_track_m AS  -- the metrics, and the comparison they come from
WITH c(c) AS (SELECT doc FROM xq_pcdoc)
SELECT c AS comparison,
       CASE WHEN c ->> '$.steps.same_source' THEN c ->> '$.steps.median_change_pct' END AS median_pct,
       CASE WHEN c ->> '$.steps.same_source' THEN c ->> '$.steps.p90_change_pct' END AS p90_pct,
       (c ->> '$.device_time.after.communication_share') - (c ->> '$.device_time.before.communication_share') AS comm_delta,
       (c ->> '$.device_time.after.idle_share') - (c ->> '$.device_time.before.idle_share') AS idle_delta
    FROM c;
DROP TABLE IF EXISTS temp.xq_track_msgs;
CREATE TEMP TABLE xq_track_msgs AS
WITH
c(c) AS (SELECT comparison FROM xq_track_m),
m AS (SELECT * FROM xq_track_m),
warnings(i, msg) AS (
  SELECT 1, 'Communication share (of device wall time) increased by ' || xplane_format(m.comm_delta, '.4f') || ' (threshold '
            || xplane_format(t.comm_abs, '.4f') || ').' FROM m, xq_thresholds t WHERE m.comm_delta > t.comm_abs
  UNION ALL
  SELECT 2, 'Device idle share (of device wall time) increased by ' || xplane_format(m.idle_delta, '.4f') || ' (threshold '
            || xplane_format(t.idle_abs, '.4f') || ').' FROM m, xq_thresholds t WHERE m.idle_delta > t.idle_abs
  UNION ALL
  SELECT 3, 'Step time not checked: ' || CASE
              WHEN NOT (c ->> '$.steps.same_source')
                THEN 'the two sides count steps from different sources (before '
                     || coalesce(c ->> '$.steps.before.source', 'none') || ', after ' || coalesce(c ->> '$.steps.after.source', 'none') || ').'
              ELSE CASE WHEN c ->> '$.steps.before.median_ms' IS NULL AND c ->> '$.steps.after.median_ms' IS NULL THEN 'neither side has a'
                        WHEN c ->> '$.steps.before.median_ms' IS NULL THEN 'the before side has no'
                        ELSE 'the after side has no' END
                   || ' steady-state step (a step numbered ' || (c ->> '$.steps.warmup_steps') || ' or more).' END
    FROM c, m WHERE m.median_pct IS NULL
  UNION ALL
  SELECT 4, 'Hardware differs: before ' || coalesce(c ->> '$.hardware.before', 'no device plane') || ', after '
            || coalesce(c ->> '$.hardware.after', 'no device plane') || '; the times are not comparable as a change of the program alone.'
    FROM c WHERE c ->> '$.hardware.differs')
SELECT 'warning' AS kind, i, msg FROM warnings;
DROP TABLE IF EXISTS temp.xq_track_in;
CREATE TEMP TABLE xq_track_in AS
SELECT 'device_time' AS model,
       json_object('steady_state_median_regression_pct', median_pct, 'steady_state_p90_regression_pct', p90_pct,
                   'communication_share_delta', comm_delta, 'idle_share_delta', idle_delta) AS metrics
  FROM xq_track_m;
.read queries/lib/track_record.sql

.read queries/lib/history_append.sql

.mode list
.headers off
SELECT xplane_json_pretty(record) AS document FROM xq_record;
.read queries/lib/cleanup.sql
