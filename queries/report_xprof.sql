-- sqlite3-only: the package has the tables it reads (xplane.xprof), but the reals of its JSON print with the SQLite version's own digits (not through xplane_repr yet), so trace processor's bytes differ in the last digits
-- queries/report_xprof.sql: the markdown report (queries/report.sql, byte for
-- byte) followed by what xprof shows: Device, Roofline (HLO op stats),
-- Kernel Stats, Memory, Step Overview (queries/lib/xprof_md.sql); each of
-- these sections is left out when the profile has no data for it.
--
-- Parameters: those of report.sql.
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile run/host.xplane.pb" \
--           :memory: '.read queries/report_xprof.sql' > report.md
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/use_profile.sql
.read queries/lib/summary_json.sql
.read queries/lib/region_shares.sql
.read queries/lib/report_md.sql
.read queries/lib/xprof_json.sql
.read queries/lib/xprof_md.sql
.mode list
.headers off
SELECT md || coalesce((SELECT md FROM xq_xprof_md), '') AS document FROM xq_report;
.read queries/lib/cleanup.sql
