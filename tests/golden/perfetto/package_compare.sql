-- package_compare.sql: the PerfettoSQL package (tp_plugin/xplane) against
-- the extension, on one profile (run by tests/test_perfetto.sh through
-- tests/perfetto_sql_shim with @PROFILE@ replaced). Prints the op row counts,
-- then every op row and every breakdown row found on one side only (none
-- expected). Numeric stats are compared as text: a uint64 over 2^63 - 1 is
-- exact decimal text on both. The extension's side is read first: the
-- package's functions take the names of the extension's rule functions.
CREATE TEMP TABLE native AS
SELECT op_id, plane_index, line_index, event_index, name, canonical_name, category, collective_kind,
       start_ps, dur_ps, end_ps, self_ps, gap_before_ps, gap_payload_op_id, gap_payload_name, hlo_category,
       hlo_module, program_id || '' AS program_id, flops || '' AS flops, bytes_accessed || '' AS bytes_accessed,
       correlation_id || '' AS correlation_id, source_file,
       start_ps / 1000 AS ts, (start_ps + dur_ps) / 1000 - start_ps / 1000 AS dur
FROM xplane_ops(@PROFILE@);
-- breakdown (exclusive_per_track): the extension's per-line category sums
CREATE TEMP TABLE native_breakdown AS
SELECT category, sum(self_ps) AS self_ps FROM xplane_tracks(@PROFILE@)
WHERE coalesce(nullif(line_display_name, ''), nullif(line_name, ''), 'xline:' || line_index) <> 'Steps'
GROUP BY category;
INCLUDE PERFETTO MODULE xplane.ops;
INCLUDE PERFETTO MODULE xplane.breakdown;
CREATE TEMP TABLE package AS
SELECT op_id, plane_index, line_index, event_index, name, canonical_name, category, collective_kind,
       start_ps, dur_ps, end_ps, self_ps, gap_before_ps, gap_payload_op_id, gap_payload_name, hlo_category,
       hlo_module, program_id || '' AS program_id, flops || '' AS flops, bytes_accessed || '' AS bytes_accessed,
       correlation_id || '' AS correlation_id, source_file, ts, dur
FROM xplane_ops;
SELECT 'rows', (SELECT count(*) FROM native), (SELECT count(*) FROM package);
SELECT 'only native', * FROM (SELECT * FROM native EXCEPT SELECT * FROM package);
SELECT 'only package', * FROM (SELECT * FROM package EXCEPT SELECT * FROM native);
SELECT 'breakdown only native', * FROM (SELECT * FROM native_breakdown WHERE self_ps > 0
  EXCEPT SELECT category, self_ps FROM xplane_breakdown);
SELECT 'breakdown only package', * FROM (SELECT category, self_ps FROM xplane_breakdown WHERE self_ps > 0
  EXCEPT SELECT * FROM native_breakdown);
