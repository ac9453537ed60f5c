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
SELECT xplane_json_pretty(json_object(
  'query_type', 'top_ops',
  'results', json((SELECT json_group_array(json(j.value)) FROM json_each(s.doc, '$.hot_ops') j WHERE j.key < i.top_k)))) AS document
  FROM xq_summary s, xq_input i;
.read queries/lib/cleanup.sql
