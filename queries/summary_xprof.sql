-- sqlite3-only: the package has the tables it reads (xplane.xprof), but the reals of its JSON print with the SQLite version's own digits (not through xplane_repr yet), so trace processor's bytes differ in the last digits
-- queries/summary_xprof.sql: the profile_summary.v1 document of summary.sql
-- with one more top-level key, `xprof` (queries/lib/xprof_json.sql: devices,
-- FLOP utilization, roofline, kernels, memory, step overview). Every
-- reference section is the same bytes as summary.sql prints; a consumer of
-- profile_summary.v1 ignores the extra key.
--
-- Parameters: those of summary.sql, plus @top_k rows per xprof list (default 10).
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile run/host.xplane.pb" \
--           :memory: '.read queries/summary_xprof.sql' > summary.json
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/use_profile.sql
.read queries/lib/summary_json.sql
.read queries/lib/xprof_json.sql
.mode list
.headers off
SELECT xplane_json_pretty(json_set(s.doc, '$.xprof', json(x.doc))) AS document FROM xq_summary s, xq_xprof x;
.read queries/lib/cleanup.sql
