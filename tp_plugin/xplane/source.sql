-- xplane.source: the XPlane files a trace was converted from, as the
-- extension's tables xplane_files and xplane_space show them.
--
--   INCLUDE PERFETTO MODULE xplane.source;
--   SELECT host, n_events, n_threads, sha256 FROM xplane_space;
--
-- xplane2perfetto (tp_plugin/pf_model.h) writes one record per profile it
-- converts (a merged trace: one per host): an instant slice named
-- `xplane.source`, category `xplane`, on a global track `xplane source`
-- (`[<host>] xplane source` when merged), at the profile's earliest slice,
-- whose annotations `xplane.source.<column>` (stored by trace processor as
-- args `debug.xplane_source_<column>`: it turns '.' into '_') hold the file's row of
-- xplane_files and xplane_space (a NULL column is left out, so it reads
-- back as NULL). One row per record here, in the order of the files' paths
-- (the extension's order). xplane_files.mtime is derived from mtime_ns as
-- the extension formats it; xplane_files.source_format is the record's
-- file_source_format (what the file looks like), xplane_space.source_format
-- its source_format (what was read: they differ when a JSON trace was read
-- in place of an unreadable XPlane); size and mtime_ns are one value for
-- both tables (the extension only reuses a profile whose size and mtime are
-- the file's). The converted events carry none of these args, and the
-- other modules (xplane.slices) never take the record for an event.

-- The source records, one row per record, args pivoted to columns.
CREATE PERFETTO TABLE _xplane_source(
  -- The record's slice.
  slice_id JOINID(slice.id),
  -- The profile's path as the converter found it.
  file STRING,
  -- The directory holding it.
  run STRING,
  -- Its file name without the profile suffix.
  host STRING,
  -- Bytes of the file.
  size LONG,
  -- Modification time, ns since the epoch.
  mtime_ns LONG,
  -- xplane_files.source_format: what the file looks like.
  file_source_format STRING,
  -- Planes.
  n_planes LONG,
  -- Lines.
  n_lines LONG,
  -- Every event of the file, the ones the converter skips included.
  n_events LONG,
  -- Threads: distinct (plane, line id, or line index + 1 for id 0).
  n_threads LONG,
  -- JSON array of the XSpace hostnames.
  hostnames STRING,
  -- JSON array of the XSpace errors.
  errors STRING,
  -- JSON array of the XSpace warnings.
  warnings STRING,
  -- Profile start from the `Task Environment` plane, ns; NULL when absent.
  profile_start_time_ns LONG,
  -- Profile stop, ns; NULL when absent.
  profile_stop_time_ns LONG,
  -- Subtracted from epoch-based line timestamps, ns (usually 0).
  time_base_ns LONG,
  -- SHA-256 of the file read, hex.
  sha256 STRING,
  -- What was read: xplane_pb or perfetto_trace_json.
  source_format STRING,
  -- The file read.
  source_file STRING,
  -- JSON traces: entries of traceEvents; NULL for an XPlane.
  trace_events LONG,
  -- `us` for an XPlane, else the JSON trace's displayTimeUnit.
  display_time_unit STRING
) AS
SELECT
  s.id AS slice_id,
  max(CASE WHEN a.key = 'debug.xplane_source_file' THEN a.string_value END) AS file,
  max(CASE WHEN a.key = 'debug.xplane_source_run' THEN a.string_value END) AS run,
  max(CASE WHEN a.key = 'debug.xplane_source_host' THEN a.string_value END) AS host,
  max(CASE WHEN a.key = 'debug.xplane_source_size' THEN a.int_value END) AS size,
  max(CASE WHEN a.key = 'debug.xplane_source_mtime_ns' THEN a.int_value END) AS mtime_ns,
  max(CASE WHEN a.key = 'debug.xplane_source_file_source_format' THEN a.string_value END) AS file_source_format,
  max(CASE WHEN a.key = 'debug.xplane_source_n_planes' THEN a.int_value END) AS n_planes,
  max(CASE WHEN a.key = 'debug.xplane_source_n_lines' THEN a.int_value END) AS n_lines,
  max(CASE WHEN a.key = 'debug.xplane_source_n_events' THEN a.int_value END) AS n_events,
  max(CASE WHEN a.key = 'debug.xplane_source_n_threads' THEN a.int_value END) AS n_threads,
  max(CASE WHEN a.key = 'debug.xplane_source_hostnames' THEN a.string_value END) AS hostnames,
  max(CASE WHEN a.key = 'debug.xplane_source_errors' THEN a.string_value END) AS errors,
  max(CASE WHEN a.key = 'debug.xplane_source_warnings' THEN a.string_value END) AS warnings,
  max(CASE WHEN a.key = 'debug.xplane_source_profile_start_time_ns' THEN a.int_value END) AS profile_start_time_ns,
  max(CASE WHEN a.key = 'debug.xplane_source_profile_stop_time_ns' THEN a.int_value END) AS profile_stop_time_ns,
  max(CASE WHEN a.key = 'debug.xplane_source_time_base_ns' THEN a.int_value END) AS time_base_ns,
  max(CASE WHEN a.key = 'debug.xplane_source_sha256' THEN a.string_value END) AS sha256,
  max(CASE WHEN a.key = 'debug.xplane_source_source_format' THEN a.string_value END) AS source_format,
  max(CASE WHEN a.key = 'debug.xplane_source_source_file' THEN a.string_value END) AS source_file,
  max(CASE WHEN a.key = 'debug.xplane_source_trace_events' THEN a.int_value END) AS trace_events,
  max(CASE WHEN a.key = 'debug.xplane_source_display_time_unit' THEN a.string_value END) AS display_time_unit
FROM slice s
JOIN args a USING (arg_set_id)
WHERE s.category = 'xplane' AND s.name = 'xplane.source' AND a.key GLOB 'debug.xplane_source_*'
GROUP BY s.id;

-- The profiles the trace was converted from: the extension's xplane_files
-- (without its hidden path column).
CREATE PERFETTO VIEW xplane_files(
  -- The profile's path as found.
  file STRING,
  -- The directory holding it.
  run STRING,
  -- Its file name without the profile suffix.
  host STRING,
  -- Bytes.
  size LONG,
  -- Modification time, ns since the epoch.
  mtime_ns LONG,
  -- The same, ISO 8601 UTC to the second (`%Y-%m-%dT%H:%M:%SZ`).
  mtime STRING,
  -- xplane_pb or perfetto_trace_json, by the file's name, else its first
  -- bytes.
  source_format STRING,
  -- 'ok': a converted profile was read ('error' entries of the extension's
  -- xplane_files are never converted).
  status STRING,
  -- Why the entry cannot be read: always NULL here.
  error STRING
) AS
SELECT
  file,
  run,
  host,
  size,
  mtime_ns,
  strftime('%Y-%m-%dT%H:%M:%SZ', mtime_ns / 1000000000, 'unixepoch') AS mtime,
  file_source_format AS source_format,
  'ok' AS status,
  NULL AS error
FROM _xplane_source
ORDER BY file, slice_id;

-- Each profile's XSpace: the extension's xplane_space (without its hidden
-- path column).
CREATE PERFETTO VIEW xplane_space(
  -- The profile's path as found.
  file STRING,
  -- The directory holding it.
  run STRING,
  -- Its file name without the profile suffix.
  host STRING,
  -- Planes of the file.
  n_planes LONG,
  -- Lines of the file.
  n_lines LONG,
  -- Every event of the file (timed or not, converted or skipped).
  n_events LONG,
  -- Threads: distinct (plane, line id, or line index + 1 for id 0), the
  -- converter's threads.
  n_threads LONG,
  -- JSON array of the XSpace hostnames.
  hostnames STRING,
  -- JSON array of the XSpace errors.
  errors STRING,
  -- JSON array of the XSpace warnings.
  warnings STRING,
  -- Profile start from the `Task Environment` plane, ns; NULL when absent.
  profile_start_time_ns LONG,
  -- Profile stop, ns; NULL when absent.
  profile_stop_time_ns LONG,
  -- Subtracted from every line's timestamp_ns (0 unless epoch-based).
  time_base_ns LONG,
  -- Bytes of the file.
  size LONG,
  -- SHA-256 of the file read, hex.
  sha256 STRING,
  -- What was read: xplane_pb or perfetto_trace_json.
  source_format STRING,
  -- The file actually read.
  source_file STRING,
  -- JSON traces: the number of traceEvents entries; NULL for an XPlane.
  trace_events LONG,
  -- `us` for an XPlane, else the trace's displayTimeUnit.
  display_time_unit STRING
) AS
SELECT
  file,
  run,
  host,
  n_planes,
  n_lines,
  n_events,
  n_threads,
  hostnames,
  errors,
  warnings,
  profile_start_time_ns,
  profile_stop_time_ns,
  time_base_ns,
  size,
  sha256,
  source_format,
  source_file,
  trace_events,
  display_time_unit
FROM _xplane_source
ORDER BY file, slice_id;
