-- queries/lib/input.sql: the settings of a query, from temp.xq_params.
--
-- Fills temp.xq_input, the one-row table the query bodies read:
--   profile         @profile         a .xplane.pb file or a directory holding one
--                                    (sqlite3 shell; trace processor reads its trace)
--   warmup_steps    @warmup_steps    steps numbered below this are warmup (default 5)
--   hot_op_limit    @hot_op_limit    hot ops kept in the summary (default 25)
--   breakdown_mode  @breakdown_mode  exclusive_per_track (default) or exclusive_global
--   top_k           @top_k           rows per list in reports and answers (default 10)
--   op              @op              the target op of a question (default none)
--   format          @format          json (default) or markdown: compare's output
--   before_summary, after_summary     compare_summaries' two documents (their text)
-- temp.xq_params(name, value) holds what was set (queries/lib/params.sql in
-- the sqlite3 shell, tp_plugin/tp_query.sh's arguments for trace processor);
-- a name not set takes the default; a name no query reads (a misspelling
-- such as @topk) stops the script. Callers that summarize another profile
-- (compare.sql) UPDATE xq_input.profile before reading summary_json.sql.
DROP TABLE IF EXISTS temp.xq_input;
CREATE TEMP TABLE xq_input AS
SELECT CAST(max(CASE WHEN name = 'profile' THEN value END) AS TEXT) AS profile,
       coalesce(max(CASE WHEN name = 'warmup_steps' THEN value END), 5) AS warmup_steps,
       coalesce(max(CASE WHEN name = 'hot_op_limit' THEN value END), 25) AS hot_op_limit,
       coalesce(max(CASE WHEN name = 'breakdown_mode' THEN value END), 'exclusive_per_track') AS breakdown_mode,
       coalesce(max(CASE WHEN name = 'top_k' THEN value END), 10) AS top_k,
       CAST(max(CASE WHEN name = 'op' THEN value END) AS TEXT) AS op,
       coalesce(max(CASE WHEN name = 'format' THEN value END), 'json') AS format,
       CAST(max(CASE WHEN name = 'before_summary' THEN value END) AS TEXT) AS before_summary,
       CAST(max(CASE WHEN name = 'after_summary' THEN value END) AS TEXT) AS after_summary
  FROM xq_params;
INSERT INTO xq_fail SELECT 'unknown-parameter' FROM xq_params
 WHERE name NOT IN ('profile', 'summary', 'warmup_steps', 'hot_op_limit', 'breakdown_mode', 'top_k', 'op', 'format',
                    'before', 'after', 'before_summary', 'after_summary', 'label', 'history', 'tail', 'logdir', 'top_n', 'finding', 'finding_params',
                    'max_step_median_regression_pct', 'max_step_p90_regression_pct',
                    'max_communication_share_regression_abs', 'max_stall_share_regression_abs',
                    'max_idle_share_regression_abs')
 LIMIT 1;
INSERT INTO xq_fail SELECT 'bad-number' FROM xq_input
 WHERE typeof(warmup_steps) <> 'integer' OR typeof(hot_op_limit) <> 'integer' OR typeof(top_k) <> 'integer'
    OR hot_op_limit < 0 OR top_k < 0;
INSERT INTO xq_fail SELECT 'breakdown-mode' FROM xq_input
 WHERE breakdown_mode NOT IN ('exclusive_per_track', 'exclusive_global');
INSERT INTO xq_fail SELECT 'format' FROM xq_input WHERE format NOT IN ('json', 'markdown');
