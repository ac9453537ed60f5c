-- use.sql: xplane_use(path), the connection's default profile.
--
-- Every profile table reads the default path when the query passes none
-- (the canned queries' bodies read `FROM xplane_tracks` this way, as they do
-- over the PerfettoSQL package); a path argument still wins; xplane_use(NULL)
-- forgets the default; a bad path is an error naming it and changes nothing;
-- the function touches connection state, so a database schema cannot call it.
.load @EXT@
.bail off
SELECT xplane_use() IS NULL AS no_default;
SELECT count(*) FROM xplane_planes;
SELECT xplane_use('@TMP@/logs') AS n_files;
SELECT xplane_use() = '@TMP@/logs' AS default_set;
SELECT count(*) AS planes, count(DISTINCT file) AS files, min(path) = '@TMP@/logs' AS path_is_default FROM xplane_planes;
SELECT (SELECT count(*) FROM xplane_events) = (SELECT count(*) FROM xplane_events('@TMP@/logs')) AS same_events;
-- an explicit path wins over the default
SELECT count(DISTINCT file) AS files FROM xplane_planes('@TINY@');
SELECT xplane_use('@TMP@/none.xplane.pb');
SELECT xplane_use() = '@TMP@/logs' AS default_kept;
SELECT xplane_use('@TINY@') AS n_files;
SELECT count(DISTINCT file) AS files FROM xplane_ops;
SELECT xplane_use(NULL) IS NULL AS cleared;
SELECT count(*) FROM xplane_lines;
ATTACH '@TMP@/use_schema.db' AS disk;
CREATE VIEW disk.uv AS SELECT xplane_use('@TINY@') AS n;
DETACH disk;
.open @TMP@/use_schema.db
.load @EXT@
SELECT n FROM uv;
SELECT xplane_use() IS NULL AS still_no_default;
-- xplane_use_only(path): confined for good (SQL someone else writes, the
-- TensorBoard plugin's console). The tables read the path without naming
-- it, or naming it exactly; any other path, xplane_use, a second
-- xplane_use_only, an HLO file by name and xplane_to_perfetto are refused.
.open :memory:
.load @EXT@
SELECT xplane_use_only(1);
SELECT xplane_use_only('@TINY@') AS n_files;
SELECT count(DISTINCT file) AS files FROM xplane_planes;
SELECT count(DISTINCT file) AS files FROM xplane_planes('@TINY@');
SELECT count(*) FROM xplane_planes('@TMP@/logs');
SELECT count(*) FROM xplane_ops WHERE path = '/';
SELECT xplane_use('@TMP@/logs');
SELECT xplane_use(NULL);
SELECT xplane_use() = '@TINY@' AS still_confined;
SELECT xplane_use_only('@TMP@/logs');
SELECT count(*) FROM xplane_hlo_instructions('/etc/passwd');
SELECT count(*) FROM xplane_hlo_instructions(x'');
SELECT xplane_to_perfetto('@TINY@', '@TMP@/out.pftrace');
