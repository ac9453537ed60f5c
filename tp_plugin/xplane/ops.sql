-- xplane.ops: the device ops, one row per op invocation, with the columns
-- and meanings of the extension's xplane_ops table (sqlite_ext/tables_ops.c),
-- so the same queries run on trace processor and on the extension.
--
--   INCLUDE PERFETTO MODULE xplane.ops;
--   SELECT name, count(*), sum(self_ps) / 1e6 AS self_us
--   FROM xplane_ops GROUP BY name ORDER BY 3 DESC LIMIT 10;
--
-- A device op is an analysis event on a device-op line (`XLA Ops`,
-- `Async XLA Ops`, `Stream #...` of a `/device:` plane). Times are exact
-- picoseconds (from the xplane.start_ps / dur_ps annotations); ts and dur
-- are the slice's nanoseconds. self_ps is the analysis exclusive time
-- (xplane.slices); the pre-op gap is computed per track over its device ops
-- ordered by (start, end, line, event): an op that starts after every op
-- before it has ended is a marker and its gap is start - the latest end;
-- its payload is itself unless it is marker-like, else the first
-- non-marker-like op among the next 8 whose chain of ends stays unbroken.
-- The step column comes from xplane.steps, the text columns (long name,
-- tf_op, region path, shape signature, stats) from xplane.op_base.

INCLUDE PERFETTO MODULE xplane.format;
INCLUDE PERFETTO MODULE xplane.rules;
INCLUDE PERFETTO MODULE xplane.slices;
INCLUDE PERFETTO MODULE xplane.op_base;
INCLUDE PERFETTO MODULE xplane.steps;

-- (the payload lookahead finds the ops after a marker by their position
-- in track order, each by binary search; an index costs less than a copy
-- of every op sorted by position: 18 ms against 250-400 ms at 100 MB)
CREATE PERFETTO INDEX _xplane_op_base_track_row ON _xplane_op_base(track_row);

-- The gap markers that are marker-like, with their payload op (the marker
-- when none qualifies); a marker (an op that starts after every op before
-- it on its track has ended: start_ps > prev_max_end) that is not
-- marker-like is its own payload and is not listed (on the generated
-- profiles nearly every op is a marker, and few are marker-like:
-- xplane_gaps groups those from _xplane_op_base by their pair, xplane_ops
-- resolves them itself).
-- The lookahead as the extension walks it (the ops after the marker in
-- turn; an op that starts after the chain of ends, the marker's and those
-- before it, is a second idle period, never bridged; else the first op that
-- is not marker-like is the payload) comes down to the first stop among the
-- next 8 ops of the marker's track, a stop being a marker or an op that is
-- not marker-like: the chain's end before an op is the latest end of every
-- op before it on the track (the ops before the marker all ended before it
-- started), so an op breaks the chain exactly when it is itself a marker.
CREATE PERFETTO TABLE _xplane_op_payload(
  -- A gap marker that is marker-like.
  op_id LONG,
  -- Its payload op.
  payload_op_id LONG,
  -- The gap in ps (> 0).
  gap_ps LONG,
  -- The marker's (tf_op, name) pair (_xplane_op_scope.skey).
  marker_skey LONG,
  -- The payload's pair.
  payload_skey LONG
) AS
WITH
  -- (the offsets of the next 8 positions: 8 equality lookups per marker, as
  -- the index finds an equal value by binary search, not a range)
  ahead(k) AS MATERIALIZED (VALUES (1), (2), (3), (4), (5), (6), (7), (8)),
  -- (the first stop among the next 8 ops of the track, by its position,
  -- each found with _xplane_op_base_track_row)
  pay AS (
    SELECT
      m.op_id, m.start_ps - m.prev_max_end AS gap_ps, m.skey AS marker_skey,
      (
        SELECT min(t.track_row)
        FROM ahead d
        CROSS JOIN _xplane_op_base t ON t.track_row = m.track_row + d.k
        WHERE t.utid = m.utid AND (t.start_ps > t.prev_max_end OR NOT t.marker_like)
      ) AS stop
    -- (an equality on the flag, which trace processor filters itself)
    FROM _xplane_op_base m
    WHERE m.marker_like = 1 AND m.start_ps > m.prev_max_end
  )
SELECT
  p.op_id,
  CASE WHEN s.track_row IS NULL OR s.start_ps > s.prev_max_end THEN p.op_id ELSE s.op_id END AS payload_op_id,
  p.gap_ps,
  p.marker_skey,
  CASE WHEN s.track_row IS NULL OR s.start_ps > s.prev_max_end THEN p.marker_skey ELSE s.skey END AS payload_skey
FROM pay p
LEFT JOIN _xplane_op_base s ON s.track_row = p.stop
ORDER BY p.op_id;

-- The device ops: every column of the extension's xplane_ops, plus ts, dur,
-- slice_id and utid. A view (a table's column has one type; here a numeric
-- stat keeps its own), computed when read: the joins are on op_id and
-- arg_set_id, the sorted columns of the private tables, which trace
-- processor looks up without a scan, and a column costs only where a query
-- reads it (no table of the summary reads the stats, the costliest).
--
-- The stats only this view shows (hlo_category, hlo_module and the numeric
-- ones: program_id, flops, bytes_accessed, device_offset_ps,
-- device_duration_ps, correlation_id) are each the op's one arg of that key
-- (trace processor keeps one per key), looked up when read; a numeric one
-- as _xplane_num gives it.
--
-- stats: the effective stats of the op as a JSON object in the extension's
-- format (every `debug.<stat>` arg in order; integers, uint64 as exact
-- decimals, reals with 17 significant digits or null, strings escaped),
-- from the op's own args (a lookup by arg_set_id). Strings are escaped by
-- SQLite's json_quote (a function call per arg costs more than the rest
-- together), which writes what xplane_json_string does except for U+0008
-- and U+000C (json_quote: `\b`, `\f`; the extension: `\u0008`, `\u000c`):
-- a string holding one goes through xplane_json_string. Checked on SQLite
-- 3.40 (the shim) and trace processor's 3.54 for every character up to
-- U+012C. The args are joined in their order (arg id) by group_concat over
-- a subquery ordered by id (3.40 has no ORDER BY inside an aggregate);
-- test_perfetto.sh and test_trace_processor.sh compare every stats object
-- with the extension's.
CREATE PERFETTO VIEW xplane_ops(
  -- XPlane index of the device plane.
  plane_index LONG,
  -- Device plane name.
  plane_name STRING,
  -- XLine index of the op.
  line_index LONG,
  -- Raw XLine name.
  line_name STRING,
  -- XEvent index within its line.
  event_index LONG,
  -- Op number: plane, track, line, event order (as the extension).
  op_id LONG,
  -- Op name (display name, else name).
  name STRING,
  -- Canonical name (xplane_canonical_name).
  canonical_name STRING,
  -- The long_name stat, else the metadata name where it differs from name
  -- (TPU: the HLO text).
  long_name STRING,
  -- stall, communication or compute.
  category STRING,
  -- Collective kind of a communication op, else NULL.
  collective_kind STRING,
  -- hlo_category stat.
  hlo_category STRING,
  -- hlo_module stat.
  hlo_module STRING,
  -- program_id stat, in the stat's own type: an integer, a real, or a uint64 over
  -- 2^63 - 1 as decimal text (as in the extension; NULL when absent).
  program_id LONG,
  -- The name stack: the tf_op stat (one of `XlaModule` defers to the name
  -- stat).
  tf_op STRING,
  -- Region path (xplane_scope_path(tf_op, name)).
  scope_path STRING,
  -- source, source_file or file_name stat.
  source_file STRING,
  -- Shape signature of the long name (xplane_shape_signature).
  shape_signature STRING,
  -- flops stat, in the stat's own type: an integer, a real, or a uint64 over
  -- 2^63 - 1 as decimal text (as in the extension; NULL when absent).
  flops DOUBLE,
  -- bytes_accessed stat, in the stat's own type: an integer, a real, or a uint64 over
  -- 2^63 - 1 as decimal text (as in the extension; NULL when absent).
  bytes_accessed DOUBLE,
  -- Exact start in ps.
  start_ps LONG,
  -- Exact duration in ps.
  dur_ps LONG,
  -- Exact end in ps.
  end_ps LONG,
  -- Exclusive time in ps.
  self_ps LONG,
  -- Idle time before this op on its track when it is a gap marker, else 0.
  gap_before_ps LONG,
  -- For a marker: op_id of the op where work resumes.
  gap_payload_op_id LONG,
  -- For a marker: name of that op.
  gap_payload_name STRING,
  -- device_offset_ps stat (TPU device clock).
  device_offset_ps LONG,
  -- device_duration_ps stat, in the stat's own type: an integer, a real, or a uint64 over
  -- 2^63 - 1 as decimal text (as in the extension; NULL when absent).
  device_duration_ps LONG,
  -- correlation_id stat, in the stat's own type: an integer, a real, or a uint64 over
  -- 2^63 - 1 as decimal text (as in the extension; NULL when absent).
  correlation_id LONG,
  -- The step the op belongs to (xplane_steps.step), NULL when none.
  step LONG,
  -- Effective stats as a JSON object.
  stats STRING,
  -- Start in ns.
  ts TIMESTAMP,
  -- Duration in ns.
  dur DURATION,
  -- The op's slice.
  slice_id JOINID(slice.id),
  -- Its thread (XPlane track).
  utid JOINID(thread.id)
) AS
WITH
  -- (a MATERIALIZED copy: SQLite indexes it for the lookup per op)
  line AS MATERIALIZED (SELECT upid, line_index, plane_name, line_name FROM _xplane_event_line)
SELECT
  b.plane_index,
  l.plane_name,
  b.line_index,
  l.line_name,
  b.event_index,
  b.op_id,
  b.name,
  b.canonical_name,
  b.long_name,
  b.category,
  CASE WHEN xplane_is_communication(b.name) THEN xplane_collective_kind(b.name) END AS collective_kind,
  (SELECT a.string_value FROM args a WHERE a.arg_set_id = b.arg_set_id AND a.key = 'debug.hlo_category'
     AND a.value_type = 'string' AND a.string_value != '') AS hlo_category,
  (SELECT a.string_value FROM args a WHERE a.arg_set_id = b.arg_set_id AND a.key = 'debug.hlo_module'
     AND a.value_type = 'string' AND a.string_value != '') AS hlo_module,
  (SELECT _xplane_num(a.value_type, a.int_value, a.real_value) FROM args a
   WHERE a.arg_set_id = b.arg_set_id AND a.key = 'debug.program_id') AS program_id,
  b.tf_op,
  b.scope_path,
  b.source_file,
  b.shape_signature,
  (SELECT _xplane_num(a.value_type, a.int_value, a.real_value) FROM args a
   WHERE a.arg_set_id = b.arg_set_id AND a.key = 'debug.flops') AS flops,
  (SELECT _xplane_num(a.value_type, a.int_value, a.real_value) FROM args a
   WHERE a.arg_set_id = b.arg_set_id AND a.key = 'debug.bytes_accessed') AS bytes_accessed,
  b.start_ps,
  b.dur_ps,
  b.start_ps + b.dur_ps AS end_ps,
  b.self_ps,
  CASE WHEN b.start_ps > b.prev_max_end THEN b.start_ps - b.prev_max_end ELSE 0 END AS gap_before_ps,
  -- (a marker that is not marker-like is its own payload)
  CASE WHEN b.start_ps > b.prev_max_end THEN coalesce(p.payload_op_id, b.op_id) END AS gap_payload_op_id,
  CASE WHEN b.start_ps > b.prev_max_end THEN CASE WHEN p.op_id IS NULL THEN b.name ELSE ps.name END END
    AS gap_payload_name,
  (SELECT _xplane_num(a.value_type, a.int_value, a.real_value) FROM args a
   WHERE a.arg_set_id = b.arg_set_id AND a.key = 'debug.device_offset_ps') AS device_offset_ps,
  (SELECT _xplane_num(a.value_type, a.int_value, a.real_value) FROM args a
   WHERE a.arg_set_id = b.arg_set_id AND a.key = 'debug.device_duration_ps') AS device_duration_ps,
  (SELECT _xplane_num(a.value_type, a.int_value, a.real_value) FROM args a
   WHERE a.arg_set_id = b.arg_set_id AND a.key = 'debug.correlation_id') AS correlation_id,
  -- (the step number is the marker's: a lookup by mid, _xplane_step_marker's
  -- sorted column)
  (SELECT sm.number FROM _xplane_step_marker sm WHERE sm.mid = os.mid) AS step,
  (
    SELECT '{' || coalesce(group_concat(kv, ','), '') || '}'
    FROM (
      SELECT
        '"' || replace(replace(substr(a.key, 7), '\', '\\'), '"', '\"') || '":' ||
          CASE a.value_type
            WHEN 'int' THEN a.int_value
            WHEN 'uint' THEN xplane_uint64(a.int_value)
            WHEN 'real' THEN
              CASE WHEN a.real_value IS NULL OR abs(a.real_value) > 1.7976931348623157e308 THEN 'null'
                   ELSE _xplane_g17(a.real_value) END
            ELSE
              CASE
                WHEN a.string_value IS NULL THEN NULL
                WHEN instr(a.string_value, char(8)) > 0 OR instr(a.string_value, char(12)) > 0
                  THEN xplane_json_string(a.string_value)
                ELSE json_quote(a.string_value)
              END
          END AS kv
      FROM args a
      WHERE a.arg_set_id = b.arg_set_id
        AND a.key GLOB 'debug.*'
        AND a.key NOT IN ('debug.xplane_plane_index', 'debug.xplane_line_index', 'debug.xplane_event_index',
                          'debug.xplane_start_ps', 'debug.xplane_dur_ps', 'debug.xplane_parent_line_index',
                          'debug.xplane_parent_event_index', 'debug.xplane_metadata_id',
                          'debug.xplane_metadata_name', 'debug.xplane_line_id', 'debug.xplane_line_display_name')
      ORDER BY a.id
    )
  ) AS stats,
  s.ts,
  s.dur,
  b.id AS slice_id,
  b.utid
-- (every column of an op from _xplane_op_info; the payload op's name by
-- its (tf_op, name) pair)
FROM _xplane_op_info b
JOIN slice s ON s.id = b.id
LEFT JOIN line l ON l.upid = b.upid AND l.line_index = b.line_index
LEFT JOIN _xplane_op_payload p USING (op_id)
LEFT JOIN _xplane_op_base pb ON pb.op_id = p.payload_op_id
LEFT JOIN _xplane_op_scope ps ON ps.skey = pb.skey
LEFT JOIN _xplane_op_step os USING (op_id)
ORDER BY b.op_id;
