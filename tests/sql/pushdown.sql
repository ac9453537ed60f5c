-- pushdown.sql: the filters vtab.c pushes into a scan (see the plan above
-- xp_best_index) give exactly the rows SQLite's own filtering gives, on the
-- tiny profile (tests/make_tiny_xspace.c) and on a logdir of three copies.
--
-- Part 1 compares each filtered scan (pushed down) with the same WHERE over a
-- TEMP table copy of the unfiltered scan (nothing to push into); both counts
-- in the expected file were worked out by hand from the tiny file's
-- contents. Tiny event starts (ps): line 0: 1005000, 1001000, 1002000;
-- line 1: 2000000, NULL (aggregated), 2000020; /host:CPU: 500000.
.load @EXT@
CREATE TEMP TABLE ev AS SELECT * FROM xplane_events('@TINY@');
CREATE TEMP TABLE dir_ev AS SELECT * FROM xplane_events('@TMP@/logs');
CREATE TEMP TABLE st AS SELECT * FROM xplane_stats('@TINY@');
CREATE TEMP TABLE ln AS SELECT * FROM xplane_lines('@TINY@');
CREATE TEMP TABLE pl AS SELECT * FROM xplane_planes('@TINY@');
CREATE TEMP TABLE em AS SELECT * FROM xplane_event_metadata('@TINY@');
CREATE TEMP TABLE sm AS SELECT * FROM xplane_stat_metadata('@TINY@');
CREATE TEMP TABLE sp AS SELECT * FROM xplane_space('@TMP@/logs');
CREATE TEMP TABLE fi AS SELECT * FROM xplane_files('@TMP@/logs');
SELECT (SELECT count(*) FROM ev) AS ev, (SELECT count(*) FROM dir_ev) AS dir_ev,
       (SELECT count(*) FROM st) AS st, (SELECT count(*) FROM ln) AS ln,
       (SELECT count(*) FROM pl) AS pl, (SELECT count(*) FROM em) AS em,
       (SELECT count(*) FROM sm) AS sm, (SELECT count(*) FROM sp) AS sp,
       (SELECT count(*) FROM fi) AS fi;

SELECT 'xplane_events: start_ps > 1002000' AS filter,
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps > 1002000) AS pushed,
       (SELECT count(*) FROM ev WHERE start_ps > 1002000) AS baseline
UNION ALL SELECT 'xplane_events: start_ps >= 1002000',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps >= 1002000),
       (SELECT count(*) FROM ev WHERE start_ps >= 1002000)
UNION ALL SELECT 'xplane_events: start_ps < 1002000',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps < 1002000),
       (SELECT count(*) FROM ev WHERE start_ps < 1002000)
UNION ALL SELECT 'xplane_events: start_ps <= 1002000',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps <= 1002000),
       (SELECT count(*) FROM ev WHERE start_ps <= 1002000)
UNION ALL SELECT 'xplane_events: start_ps BETWEEN 1001000 AND 1005000',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps BETWEEN 1001000 AND 1005000),
       (SELECT count(*) FROM ev WHERE start_ps BETWEEN 1001000 AND 1005000)
UNION ALL SELECT 'xplane_events: start_ps > 1001999.5',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps > 1001999.5),
       (SELECT count(*) FROM ev WHERE start_ps > 1001999.5)
UNION ALL SELECT 'xplane_events: start_ps >= 1002000.0',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps >= 1002000.0),
       (SELECT count(*) FROM ev WHERE start_ps >= 1002000.0)
UNION ALL SELECT 'xplane_events: start_ps > 1002000.0',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps > 1002000.0),
       (SELECT count(*) FROM ev WHERE start_ps > 1002000.0)
UNION ALL SELECT 'xplane_events: start_ps < 1002000.5',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps < 1002000.5),
       (SELECT count(*) FROM ev WHERE start_ps < 1002000.5)
UNION ALL SELECT 'xplane_events: start_ps < 1002000.0',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps < 1002000.0),
       (SELECT count(*) FROM ev WHERE start_ps < 1002000.0)
UNION ALL SELECT 'xplane_events: start_ps <= 1001999.9',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps <= 1001999.9),
       (SELECT count(*) FROM ev WHERE start_ps <= 1001999.9)
UNION ALL SELECT 'xplane_events: start_ps > ''1002000''',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps > '1002000'),
       (SELECT count(*) FROM ev WHERE start_ps > '1002000')
UNION ALL SELECT 'xplane_events: start_ps > ''abc''',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps > 'abc'),
       (SELECT count(*) FROM ev WHERE start_ps > 'abc')
UNION ALL SELECT 'xplane_events: start_ps > NULL',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps > NULL),
       (SELECT count(*) FROM ev WHERE start_ps > NULL)
UNION ALL SELECT 'xplane_events: start_ps > 9e18',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps > 9e18),
       (SELECT count(*) FROM ev WHERE start_ps > 9e18)
UNION ALL SELECT 'xplane_events: start_ps > -1e19',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps > -1e19),
       (SELECT count(*) FROM ev WHERE start_ps > -1e19)
UNION ALL SELECT 'xplane_events: start_ps < 9223372036854775807',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps < 9223372036854775807),
       (SELECT count(*) FROM ev WHERE start_ps < 9223372036854775807)
UNION ALL SELECT 'xplane_events: start_ps > 9223372036854775807',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps > 9223372036854775807),
       (SELECT count(*) FROM ev WHERE start_ps > 9223372036854775807)
UNION ALL SELECT 'xplane_events: start_ps >= -9223372036854775808',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps >= -9223372036854775808),
       (SELECT count(*) FROM ev WHERE start_ps >= -9223372036854775808)
UNION ALL SELECT 'xplane_events: start_ps > 1002000 AND start_ps < 2000020',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps > 1002000 AND start_ps < 2000020),
       (SELECT count(*) FROM ev WHERE start_ps > 1002000 AND start_ps < 2000020)
UNION ALL SELECT 'xplane_events: start_ps >= 2000000 AND start_ps <= 2000000',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps >= 2000000 AND start_ps <= 2000000),
       (SELECT count(*) FROM ev WHERE start_ps >= 2000000 AND start_ps <= 2000000)
UNION ALL SELECT 'xplane_events: start_ps > 1005000 AND start_ps < 1005001',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE start_ps > 1005000 AND start_ps < 1005001),
       (SELECT count(*) FROM ev WHERE start_ps > 1005000 AND start_ps < 1005001)
UNION ALL SELECT 'xplane_events: plane_index = 1',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE plane_index = 1),
       (SELECT count(*) FROM ev WHERE plane_index = 1)
UNION ALL SELECT 'xplane_events: plane_index = ''1''',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE plane_index = '1'),
       (SELECT count(*) FROM ev WHERE plane_index = '1')
UNION ALL SELECT 'xplane_events: plane_index = 1.0',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE plane_index = 1.0),
       (SELECT count(*) FROM ev WHERE plane_index = 1.0)
UNION ALL SELECT 'xplane_events: plane_index = 1.5',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE plane_index = 1.5),
       (SELECT count(*) FROM ev WHERE plane_index = 1.5)
UNION ALL SELECT 'xplane_events: plane_index = 99',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE plane_index = 99),
       (SELECT count(*) FROM ev WHERE plane_index = 99)
UNION ALL SELECT 'xplane_events: plane_index IN (0, 1)',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE plane_index IN (0, 1)),
       (SELECT count(*) FROM ev WHERE plane_index IN (0, 1))
UNION ALL SELECT 'xplane_events: plane_name = ''/host:CPU''',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE plane_name = '/host:CPU'),
       (SELECT count(*) FROM ev WHERE plane_name = '/host:CPU')
UNION ALL SELECT 'xplane_events: plane_name = ''/HOST:CPU''',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE plane_name = '/HOST:CPU'),
       (SELECT count(*) FROM ev WHERE plane_name = '/HOST:CPU')
UNION ALL SELECT 'xplane_events: plane_name = ''/HOST:CPU'' COLLATE NOCASE',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE plane_name = '/HOST:CPU' COLLATE NOCASE),
       (SELECT count(*) FROM ev WHERE plane_name = '/HOST:CPU' COLLATE NOCASE)
UNION ALL SELECT 'xplane_events: plane_name IN (''/host:CPU'', ''Task Environment'')',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE plane_name IN ('/host:CPU', 'Task Environment')),
       (SELECT count(*) FROM ev WHERE plane_name IN ('/host:CPU', 'Task Environment'))
UNION ALL SELECT 'xplane_events: line_index = 0',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE line_index = 0),
       (SELECT count(*) FROM ev WHERE line_index = 0)
UNION ALL SELECT 'xplane_events: line_index = 1',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE line_index = 1),
       (SELECT count(*) FROM ev WHERE line_index = 1)
UNION ALL SELECT 'xplane_events: line_name = ''Stream #2(Kernel)''',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE line_name = 'Stream #2(Kernel)'),
       (SELECT count(*) FROM ev WHERE line_name = 'Stream #2(Kernel)')
UNION ALL SELECT 'xplane_events: line_name = ''stream #2(kernel)'' COLLATE NOCASE',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE line_name = 'stream #2(kernel)' COLLATE NOCASE),
       (SELECT count(*) FROM ev WHERE line_name = 'stream #2(kernel)' COLLATE NOCASE)
UNION ALL SELECT 'xplane_events: line_name IN (''python'', ''Stream #2(Kernel)'')',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE line_name IN ('python', 'Stream #2(Kernel)')),
       (SELECT count(*) FROM ev WHERE line_name IN ('python', 'Stream #2(Kernel)'))
UNION ALL SELECT 'xplane_events: plane_index = 0 AND line_index = 1 AND start_ps > 2000000',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE plane_index = 0 AND line_index = 1 AND start_ps > 2000000),
       (SELECT count(*) FROM ev WHERE plane_index = 0 AND line_index = 1 AND start_ps > 2000000)
UNION ALL SELECT 'xplane_events: plane_index = 1 OR start_ps > 2000000',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE plane_index = 1 OR start_ps > 2000000),
       (SELECT count(*) FROM ev WHERE plane_index = 1 OR start_ps > 2000000)
UNION ALL SELECT 'xplane_events: plane_name = ''/device:GPU:0'' AND line_name = ''python''',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE plane_name = '/device:GPU:0' AND line_name = 'python'),
       (SELECT count(*) FROM ev WHERE plane_name = '/device:GPU:0' AND line_name = 'python')
UNION ALL SELECT 'xplane_events: plane_index = 0 AND start_ps IS NULL',
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE plane_index = 0 AND start_ps IS NULL),
       (SELECT count(*) FROM ev WHERE plane_index = 0 AND start_ps IS NULL)
UNION ALL SELECT 'xplane_events: host = ''tiny''',
       (SELECT count(*) FROM xplane_events('@TMP@/logs') WHERE host = 'tiny'),
       (SELECT count(*) FROM dir_ev WHERE host = 'tiny')
UNION ALL SELECT 'xplane_events: host = ''worker-1''',
       (SELECT count(*) FROM xplane_events('@TMP@/logs') WHERE host = 'worker-1'),
       (SELECT count(*) FROM dir_ev WHERE host = 'worker-1')
UNION ALL SELECT 'xplane_events: host = ''TINY''',
       (SELECT count(*) FROM xplane_events('@TMP@/logs') WHERE host = 'TINY'),
       (SELECT count(*) FROM dir_ev WHERE host = 'TINY')
UNION ALL SELECT 'xplane_events: host = ''TINY'' COLLATE NOCASE',
       (SELECT count(*) FROM xplane_events('@TMP@/logs') WHERE host = 'TINY' COLLATE NOCASE),
       (SELECT count(*) FROM dir_ev WHERE host = 'TINY' COLLATE NOCASE)
UNION ALL SELECT 'xplane_events: file = ''@TMP@/logs/plugins/profile/run_b/tiny.xplane.pb''',
       (SELECT count(*) FROM xplane_events('@TMP@/logs') WHERE file = '@TMP@/logs/plugins/profile/run_b/tiny.xplane.pb'),
       (SELECT count(*) FROM dir_ev WHERE file = '@TMP@/logs/plugins/profile/run_b/tiny.xplane.pb')
UNION ALL SELECT 'xplane_events: file = ''@TMP@/logs/plugins/profile/run_b/nope.xplane.pb''',
       (SELECT count(*) FROM xplane_events('@TMP@/logs') WHERE file = '@TMP@/logs/plugins/profile/run_b/nope.xplane.pb'),
       (SELECT count(*) FROM dir_ev WHERE file = '@TMP@/logs/plugins/profile/run_b/nope.xplane.pb')
UNION ALL SELECT 'xplane_events: run = ''run_b''',
       (SELECT count(*) FROM xplane_events('@TMP@/logs') WHERE run = 'run_b'),
       (SELECT count(*) FROM dir_ev WHERE run = 'run_b')
UNION ALL SELECT 'xplane_events: host IN (''tiny'', ''worker-1'')',
       (SELECT count(*) FROM xplane_events('@TMP@/logs') WHERE host IN ('tiny', 'worker-1')),
       (SELECT count(*) FROM dir_ev WHERE host IN ('tiny', 'worker-1'))
UNION ALL SELECT 'xplane_events: host = ''worker-1'' AND start_ps >= 1002000',
       (SELECT count(*) FROM xplane_events('@TMP@/logs') WHERE host = 'worker-1' AND start_ps >= 1002000),
       (SELECT count(*) FROM dir_ev WHERE host = 'worker-1' AND start_ps >= 1002000)
UNION ALL SELECT 'xplane_stats: line_index = 0',
       (SELECT count(*) FROM xplane_stats('@TINY@') WHERE line_index = 0),
       (SELECT count(*) FROM st WHERE line_index = 0)
UNION ALL SELECT 'xplane_stats: line_name = ''Stream #2(Kernel)''',
       (SELECT count(*) FROM xplane_stats('@TINY@') WHERE line_name = 'Stream #2(Kernel)'),
       (SELECT count(*) FROM st WHERE line_name = 'Stream #2(Kernel)')
UNION ALL SELECT 'xplane_stats: start_ps > 1002000',
       (SELECT count(*) FROM xplane_stats('@TINY@') WHERE start_ps > 1002000),
       (SELECT count(*) FROM st WHERE start_ps > 1002000)
UNION ALL SELECT 'xplane_stats: start_ps <= 1002000',
       (SELECT count(*) FROM xplane_stats('@TINY@') WHERE start_ps <= 1002000),
       (SELECT count(*) FROM st WHERE start_ps <= 1002000)
UNION ALL SELECT 'xplane_stats: plane_name = ''Task Environment''',
       (SELECT count(*) FROM xplane_stats('@TINY@') WHERE plane_name = 'Task Environment'),
       (SELECT count(*) FROM st WHERE plane_name = 'Task Environment')
UNION ALL SELECT 'xplane_stats: plane_index = 0',
       (SELECT count(*) FROM xplane_stats('@TINY@') WHERE plane_index = 0),
       (SELECT count(*) FROM st WHERE plane_index = 0)
UNION ALL SELECT 'xplane_stats: plane_index = 0 AND scope = ''event''',
       (SELECT count(*) FROM xplane_stats('@TINY@') WHERE plane_index = 0 AND scope = 'event'),
       (SELECT count(*) FROM st WHERE plane_index = 0 AND scope = 'event')
UNION ALL SELECT 'xplane_stats: line_index IS NULL',
       (SELECT count(*) FROM xplane_stats('@TINY@') WHERE line_index IS NULL),
       (SELECT count(*) FROM st WHERE line_index IS NULL)
UNION ALL SELECT 'xplane_lines: plane_name = ''/host:CPU''',
       (SELECT count(*) FROM xplane_lines('@TINY@') WHERE plane_name = '/host:CPU'),
       (SELECT count(*) FROM ln WHERE plane_name = '/host:CPU')
UNION ALL SELECT 'xplane_lines: line_index = 1',
       (SELECT count(*) FROM xplane_lines('@TINY@') WHERE line_index = 1),
       (SELECT count(*) FROM ln WHERE line_index = 1)
UNION ALL SELECT 'xplane_lines: line_name = ''idle thread''',
       (SELECT count(*) FROM xplane_lines('@TINY@') WHERE line_name = 'idle thread'),
       (SELECT count(*) FROM ln WHERE line_name = 'idle thread')
UNION ALL SELECT 'xplane_planes: plane_index = 3',
       (SELECT count(*) FROM xplane_planes('@TINY@') WHERE plane_index = 3),
       (SELECT count(*) FROM pl WHERE plane_index = 3)
UNION ALL SELECT 'xplane_planes: plane_name = ''Task Environment''',
       (SELECT count(*) FROM xplane_planes('@TINY@') WHERE plane_name = 'Task Environment'),
       (SELECT count(*) FROM pl WHERE plane_name = 'Task Environment')
UNION ALL SELECT 'xplane_event_metadata: plane_index = 0',
       (SELECT count(*) FROM xplane_event_metadata('@TINY@') WHERE plane_index = 0),
       (SELECT count(*) FROM em WHERE plane_index = 0)
UNION ALL SELECT 'xplane_stat_metadata: plane_name = ''/device:GPU:0''',
       (SELECT count(*) FROM xplane_stat_metadata('@TINY@') WHERE plane_name = '/device:GPU:0'),
       (SELECT count(*) FROM sm WHERE plane_name = '/device:GPU:0')
UNION ALL SELECT 'xplane_space: host = ''tiny''',
       (SELECT count(*) FROM xplane_space('@TMP@/logs') WHERE host = 'tiny'),
       (SELECT count(*) FROM sp WHERE host = 'tiny')
UNION ALL SELECT 'xplane_files: file = ''@TMP@/logs/plugins/profile/run_b/worker-1.xplane.pb''',
       (SELECT count(*) FROM xplane_files('@TMP@/logs') WHERE file = '@TMP@/logs/plugins/profile/run_b/worker-1.xplane.pb'),
       (SELECT count(*) FROM fi WHERE file = '@TMP@/logs/plugins/profile/run_b/worker-1.xplane.pb');

-- Part 2: the plans. `INDEX idxNum:idxStr`: idxNum has one bit per pushed
-- constraint (1 path, 2 file, 4 host, 8 plane_index, 16 plane_name,
-- 32 line_index, 64 line_name, 128 start_ps lower bound, 256 upper bound,
-- 512 the lower bound is strict (>), 1024 the upper bound is strict (<));
-- idxStr is the hex mask of the columns the query reads (bit = column
-- position; xplane_events: 0 file, 2 host, 3 plane_index, 4 plane_name,
-- 6 line_index, 8 line_name, 12 name, 14 start_ps, 21 the hidden path).
EXPLAIN QUERY PLAN SELECT count(*) FROM xplane_events('@TINY@');
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@') WHERE file = 'x';
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@') WHERE host = 'x';
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@') WHERE plane_index = 0;
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@') WHERE plane_name = 'x';
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@') WHERE line_index = 0;
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@') WHERE line_name = 'x';
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@') WHERE start_ps >= 5;
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@') WHERE start_ps > 5;
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@') WHERE start_ps <= 5;
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@') WHERE start_ps < 5;
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@') WHERE start_ps BETWEEN 1 AND 2;
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@')
 WHERE file = 'x' AND host = 'x' AND plane_index = 0 AND plane_name = 'x' AND line_index = 0
   AND line_name = 'x' AND start_ps > 1 AND start_ps < 2;
-- Not pushed: another collation, LIKE, equality on start_ps.
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@') WHERE plane_name = 'x' COLLATE NOCASE;
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@') WHERE plane_name LIKE 'x';
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@') WHERE start_ps = 5;
-- The rowid comes as column -1, like a column the table lacks: not pushed.
EXPLAIN QUERY PLAN SELECT size FROM xplane_files('@TMP@/logs') WHERE rowid = 1;
EXPLAIN QUERY PLAN SELECT n_events FROM xplane_lines('@TINY@') WHERE rowid > 1;
-- IN reaches xBestIndex as equality (one xFilter per value).
EXPLAIN QUERY PLAN SELECT name FROM xplane_events('@TINY@') WHERE plane_index IN (0, 1);
-- The other tables (column positions differ: see each table's declaration).
EXPLAIN QUERY PLAN SELECT n_events FROM xplane_lines('@TINY@')
 WHERE plane_name = 'x' AND line_name = 'y' AND line_index = 0 AND plane_index = 0;
EXPLAIN QUERY PLAN SELECT n_events FROM xplane_planes('@TINY@') WHERE plane_name = 'x' AND plane_index = 1;
EXPLAIN QUERY PLAN SELECT value FROM xplane_stats('@TINY@')
 WHERE plane_index = 0 AND line_name = 'x' AND start_ps BETWEEN 1 AND 2;
EXPLAIN QUERY PLAN SELECT size FROM xplane_files('@TMP@/logs') WHERE host = 'tiny' AND file = 'x';
EXPLAIN QUERY PLAN SELECT name FROM xplane_event_metadata('@TINY@') WHERE plane_name = 'x' AND id = 5;
EXPLAIN QUERY PLAN SELECT name FROM xplane_stat_metadata('@TINY@') WHERE plane_index = 0;
EXPLAIN QUERY PLAN SELECT n_events FROM xplane_space('@TMP@/logs') WHERE host = 'tiny';
-- A path taken from another table: the planner must scan that table first,
-- whichever order the query names them in.
EXPLAIN QUERY PLAN SELECT count(*) FROM xplane_files('@TMP@/logs') f, xplane_events(f.file) e;
EXPLAIN QUERY PLAN SELECT count(*) FROM xplane_events(f.file) e, xplane_files('@TMP@/logs') f;
SELECT f.host, count(*) AS n FROM xplane_events(f.file) e, xplane_files('@TMP@/logs') f
 GROUP BY f.file ORDER BY f.file;
-- A MATERIALIZED CTE is a baseline too: nothing is pushed into it.
EXPLAIN QUERY PLAN WITH a AS MATERIALIZED (SELECT start_ps FROM xplane_events('@TINY@'))
SELECT count(*) FROM a WHERE start_ps > 5;
