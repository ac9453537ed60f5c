-- queries/lib/input.sql: the summary settings, from the shell's parameters.
--
-- Fills temp.xq_input, the one-row table queries/lib/summary_json.sql reads:
--   profile         @profile         a .xplane.pb file or a directory holding one
--   warmup_steps    @warmup_steps    steps numbered below this are warmup (default 5)
--   hot_op_limit    @hot_op_limit    hot ops kept in the summary (default 25)
--   breakdown_mode  @breakdown_mode  exclusive_per_track (default) or exclusive_global
--   top_k           @top_k           rows per list in reports and answers (default 10)
-- Default idiom: a parameter that was never set binds as NULL in the sqlite3
-- shell (even with no temp.sqlite_parameters table at all), so
-- coalesce(@x, default) is the default. Set one with
--   sqlite3 -cmd ".parameter set @warmup_steps 3" ...
-- Callers that summarize another profile (compare.sql) UPDATE xq_input.profile
-- before reading summary_json.sql.
DROP TABLE IF EXISTS temp.xq_input;
CREATE TEMP TABLE xq_input AS
SELECT CAST(@profile AS TEXT) AS profile,
       coalesce(@warmup_steps, 5) AS warmup_steps,
       coalesce(@hot_op_limit, 25) AS hot_op_limit,
       coalesce(@breakdown_mode, 'exclusive_per_track') AS breakdown_mode,
       coalesce(@top_k, 10) AS top_k;
INSERT INTO xq_fail SELECT 'bad-number' FROM xq_input
 WHERE typeof(warmup_steps) <> 'integer' OR typeof(hot_op_limit) <> 'integer' OR typeof(top_k) <> 'integer'
    OR hot_op_limit < 0 OR top_k < 0;
INSERT INTO xq_fail SELECT 'breakdown-mode' FROM xq_input
 WHERE breakdown_mode NOT IN ('exclusive_per_track', 'exclusive_global');
