-- queries/lib/track_thresholds.sql: the thresholds of track.sql and
-- profile_track.sql, in temp.xq_thresholds: median_pct
-- (@max_step_median_regression_pct, default 5.0), p90_pct
-- (@max_step_p90_regression_pct, 10.0), comm_abs
-- (@max_communication_share_regression_abs, 0.05), stall_abs
-- (@max_stall_share_regression_abs, 0.05: the reference's) and idle_abs
-- (@max_idle_share_regression_abs, 0.05: the device-time model's). A
-- threshold that is not a number stops the script.
DROP TABLE IF EXISTS temp.xq_thresholds;
CREATE TEMP TABLE xq_thresholds AS
SELECT coalesce(@max_step_median_regression_pct, 5.0) AS median_pct,
       coalesce(@max_step_p90_regression_pct, 10.0) AS p90_pct,
       coalesce(@max_communication_share_regression_abs, 0.05) AS comm_abs,
       coalesce(@max_stall_share_regression_abs, 0.05) AS stall_abs,
       coalesce(@max_idle_share_regression_abs, 0.05) AS idle_abs;
INSERT INTO xq_fail SELECT 'bad-threshold' FROM xq_thresholds
 WHERE typeof(median_pct) NOT IN ('integer', 'real') OR typeof(p90_pct) NOT IN ('integer', 'real')
    OR typeof(comm_abs) NOT IN ('integer', 'real') OR typeof(stall_abs) NOT IN ('integer', 'real')
    OR typeof(idle_abs) NOT IN ('integer', 'real');
