-- queries/lib/checks.sql: the error messages of the canned queries, in one place.
--
-- Read by every query file before its work. SQLite 3.40 has no way to raise a
-- computed error message outside a trigger (RAISE() takes a literal), so each
-- check is a code inserted into temp.xq_fail; the trigger for that code aborts
-- the statement with its message, and `.bail on` stops the script there
-- (exit status 1, message on stderr). A check reads:
--   INSERT INTO xq_fail SELECT 'profile-unset' WHERE @profile IS NULL;
.bail on
CREATE TEMP TABLE IF NOT EXISTS xq_fail(code TEXT NOT NULL);
CREATE TEMP TRIGGER IF NOT EXISTS xq_fail_profile_unset BEFORE INSERT ON xq_fail
  WHEN NEW.code = 'profile-unset'
BEGIN SELECT RAISE(ABORT, 'xplane queries: set @profile to an .xplane.pb file or a profile directory (.parameter set @profile PATH)'); END;
CREATE TEMP TRIGGER IF NOT EXISTS xq_fail_no_file BEFORE INSERT ON xq_fail
  WHEN NEW.code = 'no-profile-file'
BEGIN SELECT RAISE(ABORT, 'xplane queries: no profile: @profile names no .xplane.pb file; in trace processor: the trace has no xplane.source record with debug.xplane_source_* args (it was not written by xplane2perfetto, or it is a Chrome JSON trace, whose args trace processor files as args.*): convert the profile with `xplane2perfetto -o HOST.pftrace HOST.xplane.pb` and load HOST.pftrace'); END;
CREATE TEMP TRIGGER IF NOT EXISTS xq_fail_many_files BEFORE INSERT ON xq_fail
  WHEN NEW.code = 'many-profile-files'
BEGIN SELECT RAISE(ABORT, 'xplane queries: more than one profile (one .xplane.pb per host): pass one file (trace processor: a trace converted per host, not --merge)'); END;
CREATE TEMP TRIGGER IF NOT EXISTS xq_fail_breakdown_mode BEFORE INSERT ON xq_fail
  WHEN NEW.code = 'breakdown-mode'
BEGIN SELECT RAISE(ABORT, 'xplane queries: @breakdown_mode must be exclusive_per_track or exclusive_global'); END;
CREATE TEMP TRIGGER IF NOT EXISTS xq_fail_format BEFORE INSERT ON xq_fail
  WHEN NEW.code = 'format'
BEGIN SELECT RAISE(ABORT, 'xplane queries: @format must be json or markdown'); END;
CREATE TEMP TRIGGER IF NOT EXISTS xq_fail_summaries BEFORE INSERT ON xq_fail
  WHEN NEW.code = 'summaries'
BEGIN SELECT RAISE(ABORT, 'xplane queries: set @before_summary and @after_summary to two profile_summary.v1 documents (summary.sql output)'); END;
CREATE TEMP TRIGGER IF NOT EXISTS xq_fail_unknown_parameter BEFORE INSERT ON xq_fail
  WHEN NEW.code = 'unknown-parameter'
BEGIN SELECT RAISE(ABORT, 'xplane queries: unknown parameter (misspelled?); the parameters are @profile @summary @warmup_steps @hot_op_limit @breakdown_mode @top_k @op @format @before @after @before_summary @after_summary @label @history @tail @logdir @top_n @finding @finding_params and the @max_* thresholds of track.sql and profile_track.sql (queries/README.md)'); END;
CREATE TEMP TRIGGER IF NOT EXISTS xq_fail_summary_file BEFORE INSERT ON xq_fail
  WHEN NEW.code = 'summary-file'
BEGIN SELECT RAISE(ABORT, 'xplane queries: @summary must name a readable profile_summary.v1 JSON file (summary.sql output)'); END;
CREATE TEMP TRIGGER IF NOT EXISTS xq_fail_bad_number BEFORE INSERT ON xq_fail
  WHEN NEW.code = 'bad-number'
BEGIN SELECT RAISE(ABORT, 'xplane queries: @warmup_steps, @hot_op_limit and @top_k must be integers >= 0'); END;
CREATE TEMP TRIGGER IF NOT EXISTS xq_fail_compare_unset BEFORE INSERT ON xq_fail
  WHEN NEW.code = 'compare-unset'
BEGIN SELECT RAISE(ABORT, 'xplane queries: set @before and @after to two profiles (.xplane.pb files or profile directories)'); END;
CREATE TEMP TRIGGER IF NOT EXISTS xq_fail_threshold BEFORE INSERT ON xq_fail
  WHEN NEW.code = 'bad-threshold'
BEGIN SELECT RAISE(ABORT, 'xplane queries: the @max_* thresholds must be numbers'); END;
CREATE TEMP TRIGGER IF NOT EXISTS xq_fail_history_unset BEFORE INSERT ON xq_fail
  WHEN NEW.code = 'history-unset'
BEGIN SELECT RAISE(ABORT, 'xplane queries: set @history to the SQLite database file of the tracking history'); END;
CREATE TEMP TRIGGER IF NOT EXISTS xq_fail_logdir_unset BEFORE INSERT ON xq_fail
  WHEN NEW.code = 'logdir-unset'
BEGIN SELECT RAISE(ABORT, 'xplane queries: set @logdir to a TensorBoard logdir (or run directory)'); END;
CREATE TEMP TRIGGER IF NOT EXISTS xq_fail_runs_missing BEFORE INSERT ON xq_fail
  WHEN NEW.code = 'runs-missing'
BEGIN SELECT RAISE(ABORT, 'xplane queries: import the run metadata first: .import --csv RUNS.csv runs (needs a column named run)'); END;
CREATE TEMP TRIGGER IF NOT EXISTS xq_fail_finding BEFORE INSERT ON xq_fail
  WHEN NEW.code = 'bad-finding'
BEGIN SELECT RAISE(ABORT, 'xplane queries: @finding must be recompilation, host_bound, transfers, tiny_kernels, synchronization or memory_bound'); END;
