-- queries/runs_join.sql: profiles of a logdir joined with run metadata from a CSV.
-- sqlite3-only: it reads a logdir of profiles and a CSV imported with .import.
--
-- Prints two markdown tables:
--   Runs: every row of the imported `runs` table (its own columns, whatever
--     the CSV has) with, for the run of that name under @logdir: hosts
--     (profile files), steady_steps (distinct step numbers >= @warmup_steps,
--     from device `Steps` markers or host `train` annotations), step_ms (their
--     mean duration, each step's duration averaged over devices and hosts)
--     and device_ms (device-op busy time: the sum of self times); NULL where
--     the logdir has no such run.
--   Top ops across runs: for every run of the logdir, its @top_n ops
--     (default 3) by self time: op name, count, self_ms, share of the run's
--     device self time, with the run's CSV columns alongside (NULL for a run
--     the CSV does not list).
-- The join key is the run name: the directory holding the .xplane.pb files
-- (`<logdir>/plugins/profile/<run>/<host>.xplane.pb`), as xplane_files names it.
--
-- Parameters: @logdir (required), @warmup_steps (default 5), @top_n.
-- Import the metadata first (a CSV with a header row and a column `run`):
--   sqlite3 -cmd '.load build/xplane' -cmd '.import --csv queries/example_runs.csv runs' \
--           -cmd ".parameter set @logdir logs/" :memory: '.read queries/runs_join.sql'
.read queries/lib/checks.sql
INSERT INTO xq_fail SELECT 'logdir-unset' WHERE @logdir IS NULL OR @logdir = '';
INSERT INTO xq_fail SELECT 'runs-missing' WHERE NOT EXISTS (SELECT 1 FROM pragma_table_info('runs') WHERE name = 'run');

-- step time per run: a step's duration is the mean over its markers
DROP TABLE IF EXISTS temp.xq_run_steps;
CREATE TEMP TABLE xq_run_steps AS
SELECT run, step, CAST(sum(dur_ps) AS REAL) / count(*) AS dur_ps
  FROM xplane_steps(@logdir)
 WHERE source IN ('steps_line', 'host_annotation') AND step >= coalesce(@warmup_steps, 5)
 GROUP BY run, step;
-- device ops per run and name, read once
DROP TABLE IF EXISTS temp.xq_run_ops;
CREATE TEMP TABLE xq_run_ops AS
SELECT run, name, count(*) AS n, sum(self_ps) AS self_ps FROM xplane_ops(@logdir) GROUP BY run, name;
DROP TABLE IF EXISTS temp.xq_run_stats;
CREATE TEMP TABLE xq_run_stats AS
SELECT f.run, count(*) AS hosts,
       (SELECT count(*) FROM xq_run_steps s WHERE s.run = f.run) AS steady_steps,
       (SELECT round(avg(dur_ps) / 1e9, 3) FROM xq_run_steps s WHERE s.run = f.run) AS step_ms,
       (SELECT round(sum(self_ps) / 1e9, 3) FROM xq_run_ops o WHERE o.run = f.run) AS device_ms
  FROM xplane_files(@logdir) f GROUP BY f.run;

.mode markdown --wrap 0
.headers on
.print '## Runs'
SELECT * FROM runs LEFT JOIN xq_run_stats USING (run) ORDER BY run;
.print ''
.print '## Top ops across runs'
WITH ranked AS (
  SELECT run, row_number() OVER (PARTITION BY run ORDER BY self_ps DESC, name) AS rank, name AS op, n AS count,
         round(self_ps / 1e9, 3) AS self_ms,
         printf('%.2f%%', 100.0 * self_ps / sum(self_ps) OVER (PARTITION BY run)) AS share
    FROM xq_run_ops)
SELECT * FROM ranked LEFT JOIN runs USING (run)
 WHERE rank <= coalesce(@top_n, 3)
 ORDER BY run, rank;
.read queries/lib/cleanup.sql
