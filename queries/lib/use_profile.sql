-- queries/lib/use_profile.sql: point the extension's tables at the profile.
-- sqlite3-only: in trace processor the tables read the loaded trace.
--
-- xplane_use(xq_input.profile) makes the profile the path of every table
-- call that passes none, so queries/lib/summary_json.sql reads
-- `FROM xplane_tracks` exactly as it does over the PerfettoSQL package. An
-- unset profile stops the script (queries/lib/checks.sql); a missing one
-- stops it with xplane_use's error naming the path.
INSERT INTO xq_fail SELECT 'profile-unset' FROM xq_input WHERE profile IS NULL OR profile = '';
DROP TABLE IF EXISTS temp.xq_use;
CREATE TEMP TABLE xq_use AS SELECT xplane_use(profile) AS n_files FROM xq_input;
