-- queries/gap_before_op.sql: "What is the gap before op X?"
--
-- With @op set: {"query_type": "pre_op_gap", "target": X, "match": the first
-- pre-op gap whose name, payload_op or marker_op equals X (case-insensitive;
-- failing that, contains it) or null, "context": the gap region contexts of
-- op X (exact op name, failing that containing it; first @top_k), "top_gaps":
-- the first @top_k gaps}. Without @op: {"query_type": "pre_op_gap",
-- "top_gaps": [...]}. Gap entries have the keys of the summary's
-- gap_before_ops, contexts those of gap_region_contexts; microseconds.
-- Parameters: @profile (required), @op, @top_k (default 10), and those of summary.sql.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile host.xplane.pb" \
--           -cmd ".parameter set @op fusion.3" :memory: '.read queries/gap_before_op.sql'
.read queries/lib/answer.sql
.read queries/lib/ask_gap_before_op.sql
.read queries/lib/cleanup.sql
