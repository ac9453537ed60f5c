-- queries/gap_context.sql: "Show the gap context (region) for op X."
--
-- Prints {"query_type": "gap_region_context", "target": X or null,
-- "results": [gap region contexts]}: the contexts of op X (exact op name,
-- case-insensitive; failing that, names containing X), or the first ones
-- when @op is not set; at most @top_k (default 10). Each has op_name,
-- region_path (the payload's name-scope path cut to 4 parts; copy ops as
-- copy(<path>)), count, total_gap_duration, avg_gap_duration (microseconds).
-- Parameters: @profile (required), @op, @top_k, and those of summary.sql.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile host.xplane.pb" \
--           -cmd ".parameter set @op copy.1" :memory: '.read queries/gap_context.sql'
.read queries/lib/answer.sql
.read queries/lib/ask_gap_context.sql
.read queries/lib/cleanup.sql
