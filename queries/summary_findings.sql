-- sqlite3-only: reads xplane_findings, which the PerfettoSQL package does not define
-- queries/summary_findings.sql: the profile_summary.v1 document of summary.sql
-- with one more top-level key, `xplane_findings` (queries/lib/findings_json.sql:
-- the detected performance killers as candidates). Every reference section,
-- optimization_candidates included, is the same bytes as summary.sql prints;
-- a consumer of profile_summary.v1 ignores the extra key.
--
-- Parameters: those of summary.sql, plus @finding_params (thresholds
-- 'name=value,...', schema/TABLES.md xplane_findings; default: none).
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile run/host.xplane.pb" \
--           :memory: '.read queries/summary_findings.sql' > summary.json
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/use_profile.sql
.read queries/lib/summary_json.sql
.read queries/lib/findings_json.sql
.mode list
.headers off
SELECT xplane_json_pretty(json_set(s.doc, '$.xplane_findings', json(f.doc))) FROM xq_summary s, xq_findings_doc f;
.read queries/lib/cleanup.sql
