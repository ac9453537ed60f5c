-- tools/tp_floor.sql: the least work the requirements of the xplane
-- package's summary (tp_plugin/xplane) need in trace processor; tools/bench.sh
-- runs it on each converted profile (BENCH_PARTS=tp, columns cpu_floor and
-- floor_ratio).
--
--   trace_processor_shell -q tools/tp_floor.sql host.pftrace
--
-- Each statement below does once, over the whole trace, the least work that
-- one requirement of the summary needs, and nothing connects them: no name
-- rule, no join, no table of every slice (the lines and the children's sums
-- group the slice table itself; the ops read their own annotations):
--
--   f_key      which of the per-row keys occur in the trace (one scan of the
--              args): a key no arg has is not looked up per row;
--   f_child    the children's durations summed per parent (exclusive time);
--   f_line     the slices counted and summed per thread, line name and name
--              (the tracks' sums);
--   f_op       the ops with their XEvent index, exact times and stats;
--   f_track    the ops of each track in time order with the running maximum
--              of their ends (the pre-op gap);
--   f_step     one window over the ops in time order (the step of an op);
--   f_payload  the next 8 ops of each op on its track (the gap's payload);
--   f_name     the ops summed per name and tf_op, with the first of each.
--
-- Left out, though the summary needs them: the name rules (category,
-- canonical name, region path, shape), the regions, the host launch of each
-- op, the step markers, the gaps' grouping, the summary's own statements,
-- and every join that carries a value from one result to the next (an op's
-- exclusive time, launch and step marker; the exclusive time of the tracks).
-- So a package that meets the summary's requirements costs more than this
-- file, and the ratio of this file's CPU (less trace processor's load) to
-- the extension's whole summary, floor_ratio, is below what any PerfettoSQL
-- package could reach on trace processor. The ops are the named slices with
-- a duration on the device-op lines (`XLA Ops`, `Async XLA Ops`, `Stream
-- #...`), picked by their category (the line name): on the eight real
-- profiles exactly the extension's xplane_ops (tests/test_trace_processor.sh).

CREATE PERFETTO TABLE f_key AS
SELECT
  coalesce(max(key = 'debug.xplane_start_ps'), 0) AS start_ps,
  coalesce(max(key = 'debug.xplane_dur_ps'), 0) AS dur_ps,
  coalesce(max(key = 'debug.source'), 0) AS source,
  coalesce(max(key = 'debug.long_name'), 0) AS long_name,
  coalesce(max(key = 'debug.tf_op'), 0) AS tf_op,
  coalesce(max(key = 'debug.correlation_id'), 0) AS correlation_id
FROM (
  SELECT DISTINCT key FROM args
  WHERE key IN ('debug.xplane_start_ps', 'debug.xplane_dur_ps', 'debug.source', 'debug.long_name', 'debug.tf_op',
                'debug.correlation_id')
);

CREATE PERFETTO TABLE f_child AS
SELECT
  parent_id,
  sum(coalesce(CASE WHEN (SELECT dur_ps FROM f_key) THEN extract_arg(arg_set_id, 'debug.xplane_dur_ps') END,
               dur * 1000)) AS child_ps
FROM slice
WHERE parent_id IS NOT NULL
GROUP BY parent_id;

CREATE PERFETTO TABLE f_line AS
SELECT
  track_id, category, name, count(*) AS n,
  sum(coalesce(CASE WHEN (SELECT dur_ps FROM f_key) THEN extract_arg(arg_set_id, 'debug.xplane_dur_ps') END,
               dur * 1000)) AS total_ps
FROM slice
WHERE arg_set_id IS NOT NULL
GROUP BY track_id, category, name;

CREATE PERFETTO TABLE f_op_track AS
SELECT DISTINCT track_id FROM slice WHERE category GLOB 'Stream #*' OR category IN ('XLA Ops', 'Async XLA Ops');

CREATE PERFETTO TABLE f_op AS
SELECT
  id, track_id, name, arg_set_id,
  extract_arg(arg_set_id, 'debug.xplane_event_index') AS event_index,
  coalesce(CASE WHEN (SELECT start_ps FROM f_key) THEN extract_arg(arg_set_id, 'debug.xplane_start_ps') END,
           ts * 1000) AS start_ps,
  coalesce(CASE WHEN (SELECT dur_ps FROM f_key) THEN extract_arg(arg_set_id, 'debug.xplane_dur_ps') END,
           dur * 1000) AS dur_ps,
  CASE WHEN (SELECT source FROM f_key) THEN extract_arg(arg_set_id, 'debug.source') END AS source,
  CASE WHEN (SELECT long_name FROM f_key) THEN extract_arg(arg_set_id, 'debug.long_name') END AS long_name,
  CASE WHEN (SELECT tf_op FROM f_key) THEN extract_arg(arg_set_id, 'debug.tf_op') END AS tf_op,
  CASE WHEN (SELECT correlation_id FROM f_key) THEN extract_arg(arg_set_id, 'debug.correlation_id') END
    AS correlation_id
FROM slice
WHERE track_id IN (SELECT track_id FROM f_op_track) AND name != '' AND (dur > 0 OR dur_ps > 0)
ORDER BY id;

CREATE PERFETTO TABLE f_track AS
SELECT
  id, track_id, event_index,
  row_number() OVER w AS rn,
  max(start_ps + dur_ps) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_max_end
FROM f_op
WINDOW w AS (PARTITION BY track_id ORDER BY start_ps, dur_ps, event_index);

CREATE PERFETTO TABLE f_step AS
SELECT id, max(rn) OVER (ORDER BY prev_max_end ROWS UNBOUNDED PRECEDING) AS r FROM f_track;

CREATE PERFETTO TABLE f_payload AS
SELECT
  id,
  min(CASE WHEN prev_max_end < 0 THEN rn END)
    OVER (PARTITION BY track_id ORDER BY rn ROWS BETWEEN 1 FOLLOWING AND 8 FOLLOWING) AS payload
FROM f_track;

CREATE PERFETTO TABLE f_name AS
SELECT name, tf_op, count(*) AS n, sum(dur_ps) AS total_ps, min(track_id << 32 | event_index) AS first
FROM f_op
GROUP BY name, tf_op;

SELECT (SELECT count(*) FROM f_child) AS parents, (SELECT count(*) FROM f_op) AS ops;
