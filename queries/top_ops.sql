-- queries/top_ops.sql: "What are the top ops by exclusive time?"
--
-- Prints {"query_type": "top_ops", "results": [hot op, ...]}: the first @top_k
-- (default 10) hot ops of the summary, each with the 11 keys of the summary's
-- hot_ops (name, canonical_name, category, count, exclusive_duration,
-- total_duration, avg_duration, shape_signature, source_file, tf_op_path,
-- flop_proxy_per_invocation), durations in microseconds.
-- Parameters: @profile (required), @top_k, and those of summary.sql.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile host.xplane.pb" :memory: '.read queries/top_ops.sql'
.read queries/lib/answer.sql
.read queries/lib/ask_top_ops.sql
.read queries/lib/cleanup.sql
