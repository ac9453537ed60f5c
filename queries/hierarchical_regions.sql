-- queries/hierarchical_regions.sql: "Show the hierarchical regions."
--
-- Prints {"query_type": "hierarchical_regions", "results": [...]}: the first
-- @top_k (default 10) named-scope regions of the summary (path, depth, count,
-- inclusive_duration, exclusive_duration in microseconds) with
-- inclusive_share_of_total and exclusive_share_of_total, relative to the
-- region's depth-1 root (queries/lib/region_shares.sql).
-- Parameters: @profile (required), @top_k, and those of summary.sql.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile host.xplane.pb" :memory: '.read queries/hierarchical_regions.sql'
.read queries/lib/answer.sql
.read queries/lib/ask_hierarchical_regions.sql
.read queries/lib/cleanup.sql
