-- sqlite3-only: the package has the tables it reads (xplane.xprof), but the reals of its JSON print with the SQLite version's own digits (not through xplane_repr yet), so trace processor's bytes differ in the last digits
-- queries/peak_memory.sql: "What is the peak memory, and when?"
--
-- Prints {"query_type": "peak_memory", "results": [...]}: per allocator (by
-- peak, largest first) the peak bytes in use, when (microseconds, line
-- clock), the allocator's own reported peak, allocation counts and the device
-- ops running at that moment (queries/lib/xprof_json.sql, section memory).
-- An empty list for a profile without memory events.
-- Parameters: @profile (required).
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile host.xplane.pb" :memory: '.read queries/peak_memory.sql'
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/use_profile.sql
.read queries/lib/xprof_json.sql
.mode list
.headers off
SELECT xplane_json_pretty(json_object('query_type', 'peak_memory', 'results', x.doc -> '$.memory')) AS document FROM xq_xprof x;
.read queries/lib/cleanup.sql
