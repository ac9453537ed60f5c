-- sqlite3-only: the package has the tables it reads (xplane.xprof), but the reals of its JSON print with the SQLite version's own digits (not through xplane_repr yet), so trace processor's bytes differ in the last digits
-- queries/top_kernels.sql: "What are the top GPU kernels?"
--
-- Prints {"query_type": "top_kernels", "results": [...]}: the first @top_k
-- kernels of xplane_kernel_stats by total time, with their launch
-- configuration (grid, block, registers, shared memory, occupancy),
-- tensor-core use, op name, count and total / min / max / mean time in
-- microseconds (queries/lib/xprof_json.sql, section kernels). An empty list
-- for a profile without kernel_details (TPU).
-- Parameters: @profile (required), @top_k (default 10).
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile host.xplane.pb" :memory: '.read queries/top_kernels.sql'
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/use_profile.sql
.read queries/lib/xprof_json.sql
.mode list
.headers off
SELECT xplane_json_pretty(json_object('query_type', 'top_kernels', 'results', x.doc -> '$.kernels')) AS document FROM xq_xprof x;
.read queries/lib/cleanup.sql
