-- queries/lib/read_summary_files.sql: @before_summary and @after_summary name files.
-- sqlite3-only: readfile() is the shell's (tp_plugin/tp_query.sh inlines a
-- file given as name=@path instead).
--
-- Replaces the two paths in temp.xq_params by the files' text (NULL when a
-- file cannot be read, which queries/lib/summary_docs.sql then reports).
UPDATE xq_params SET value = CAST(readfile(value) AS TEXT) WHERE name IN ('before_summary', 'after_summary');
