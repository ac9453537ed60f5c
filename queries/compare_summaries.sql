-- queries/compare_summaries.sql: compare two summary documents printed earlier.
--
-- The comparison of compare.sql (the field's reference `profile_summary
-- compare`, which also compares two summary files), from two
-- profile_summary.v1 documents instead of two profiles: summaries kept from
-- earlier runs, or printed by trace processor (tp_plugin/tp_query.sh
-- queries/summary.sql) for traces that cannot be opened together. On the
-- same two profiles it prints exactly what compare.sql prints.
--
-- Parameters: @before_summary and @after_summary (required: the two JSON
-- files), @top_k ops per list (default 10), @format json | markdown.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @before_summary base.json" \
--           -cmd ".parameter set @after_summary new.json" :memory: '.read queries/compare_summaries.sql'
--   tp_plugin/tp_query.sh queries/compare_summaries.sql before_summary=@base.json after_summary=@new.json
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/read_summary_files.sql
.read queries/lib/input.sql
.read queries/lib/summary_docs.sql
.read queries/lib/compare_json.sql
.read queries/lib/compare_print.sql
.read queries/lib/cleanup.sql
