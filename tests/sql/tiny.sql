-- tiny.sql: every xplane_* table and every column, on the tiny profile that
-- tests/make_tiny_xspace.c writes (its header lists the contents; the
-- protoc text dump of the file shows the same values). Quote mode shows each
-- value's type: 'text', integers bare, X'..' blobs, NULL.
.load @EXT@
.mode quote

-- xplane_files: a logdir with three profiles, sorted by path; run = the
-- folder, host = the file name without .xplane.pb; size from stat (1088
-- bytes); mtime as set by the runner; status 'ok' and no error (every entry
-- can be read).
SELECT * FROM xplane_files('@TMP@/logs');

-- xplane_space: 4 planes (3 from protobuf-c + the hand-encoded one), 4 lines,
-- 8 events, 3 threads (the GPU plane's two lines; the host plane's lines
-- with id 0 at index 0 and id 1 share the track key 1); the XSpace strings
-- as JSON arrays (quote and newline escaped); profile start/stop from the
-- `Task Environment` plane; the file's sha256 (as `sha256sum` prints it).
SELECT * FROM xplane_space('@TINY@');

-- xplane_planes: plane ids repeat (0, 0) and may be negative (-5); the
-- plane stats of every value type as JSON (uint64 2^64-1 exact, bytes as
-- hex, the ref resolved to the interned string of stat id -100).
SELECT * FROM xplane_planes('@TINY@');

-- xplane_lines: a 64-bit hash line id, display id/name, two timestamps;
-- first_start_ps / last_end_ps over the timed events only (NULL without any).
SELECT * FROM xplane_lines('@TINY@');

-- xplane_event_metadata: negative ids, bytes metadata with non-UTF-8 bytes,
-- stats, child ids packed ([-2,3]) and mixed unpacked/packed ([1,-2,300,4]).
SELECT plane_index, plane_name, id, name, display_name, metadata, stats, child_ids
  FROM xplane_event_metadata('@TINY@');

-- xplane_stat_metadata: in wire order (not sorted); the interned strings
-- (ids 10 and -100, only ever ref targets) are not stat names.
SELECT plane_index, plane_name, id, name, description, is_stat_name
  FROM xplane_stat_metadata('@TINY@');

-- xplane_events: unsorted and overlapping events keep their file order;
-- start_ps = timestamp_ns * 1000 + offset_ps; the aggregated event has NULL
-- times and num_occurrences 3; the last python event (neither offset nor
-- num_occurrences) has NULL times and NULL num_occurrences; the unknown
-- metadata id 999 has NULL names; effective stats: the event's flops 250
-- overrides the metadata's 100. self_ps (docs/ANALYSIS.md, exclusive time): the
-- partly overlapping gemm [1001000,1007000) and fusion [1005000,1008000) are
-- not nested, so each keeps its whole duration; events outside the analysis
-- (no start, duration 0 or unknown metadata) have NULL.
SELECT plane_index, plane_name, plane_id, line_index, line_id, line_name, line_display_name,
       event_index, metadata_id, name, display_name, start_ps, dur_ps, end_ps, offset_ps,
       num_occurrences, self_ps, stats
  FROM xplane_events('@TINY@');

-- xplane_stats: plane scope, then event_metadata scope, then event scope
-- (effective stats, origin says where each came from). uint64 beyond int64 is
-- its exact decimal as text; bytes are a blob; a ref's value is the interned
-- string ('' for the unknown id 555) and ref_id the raw id; the unknown stat
-- id 777 has a NULL name; a stat without a value has type 'none', value NULL.
SELECT plane_index, plane_name, line_index, line_name, event_index, start_ps, scope, origin,
       metadata_id, event_name, stat_id, name, value_type, value, ref_id
  FROM xplane_stats('@TINY@');

-- The shared columns file, run, host and the hidden path of every table.
SELECT 'planes' AS t, file, run, host, path FROM xplane_planes('@TINY@') WHERE plane_index = 3
UNION ALL SELECT 'lines', file, run, host, path FROM xplane_lines('@TINY@') WHERE line_name = 'python'
UNION ALL SELECT 'event_metadata', file, run, host, path FROM xplane_event_metadata('@TINY@') WHERE id = 5
UNION ALL SELECT 'stat_metadata', file, run, host, path FROM xplane_stat_metadata('@TINY@') WHERE id = -100
UNION ALL SELECT 'events', file, run, host, path FROM xplane_events('@TINY@') WHERE metadata_id = 999
UNION ALL SELECT 'stats', file, run, host, path FROM xplane_stats('@TINY@') WHERE stat_id = 777
UNION ALL SELECT 'space', file, run, host, path FROM xplane_space('@TINY@')
UNION ALL SELECT 'files', file, run, host, path FROM xplane_files('@TINY@');

-- The path as a named constraint instead of the argument.
SELECT count(*) AS n FROM xplane_events WHERE path = '@TINY@';

-- Value types as SQLite stores them (not just how they print).
SELECT name, typeof(value) AS type, value FROM xplane_stats('@TINY@')
 WHERE scope = 'plane' AND plane_index = 0;

-- Every JSON column is valid JSON, and JSON keeps numbers as numbers.
SELECT (SELECT count(*) FROM xplane_planes('@TINY@') WHERE json_valid(stats)) AS planes_ok,
       (SELECT count(*) FROM xplane_event_metadata('@TINY@') WHERE json_valid(stats) AND json_valid(child_ids)) AS emeta_ok,
       (SELECT count(*) FROM xplane_events('@TINY@') WHERE json_valid(stats)) AS events_ok,
       (SELECT json_valid(hostnames) + json_valid(errors) + json_valid(warnings) FROM xplane_space('@TINY@')) AS space_ok;
SELECT json_extract(stats, '$.neg') AS neg, json_type(stats, '$.big') AS big_type,
       json_extract(stats, '$.ratio') AS ratio, json_extract(stats, '$.kind') AS kind
  FROM xplane_planes('@TINY@') WHERE plane_index = 0;
SELECT json_extract(warnings, '$[0]') AS w0, json_extract(warnings, '$[1]') = 'line' || char(10) || 'break' AS w1_ok
  FROM xplane_space('@TINY@');
SELECT json_extract(child_ids, '$[1]') AS second_child FROM xplane_event_metadata('@TINY@') WHERE id = 5;
