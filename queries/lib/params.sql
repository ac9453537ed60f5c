-- queries/lib/params.sql: the sqlite3 shell's parameters as temp.xq_params.
-- sqlite3-only: the binding of the shell's `.parameter set @name value`.
--
-- Every query file reads its settings from temp.xq_params(name, value)
-- (queries/lib/input.sql), so the same SQL runs where there are no bound
-- parameters: for trace processor, tp_plugin/tp_query.sh writes xq_params
-- from its name=value arguments instead of reading this file. Names are
-- stored without the `@`.
.parameter init
DROP TABLE IF EXISTS temp.xq_params;
CREATE TEMP TABLE xq_params AS SELECT substr(key, 2) AS name, value FROM temp.sqlite_parameters;
