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
