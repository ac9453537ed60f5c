-- queries/lib/profile_report_device_md.sql: the roofline, async ops, kernel
-- stats and memory sections of queries/profile_report.sql, appended to
-- temp.xq_pmd (queries/lib/profile_report_md.sql makes it; read this after).
--
-- Roofline: the top device ops by self time (xplane_hlo_stats op rows, the
-- ops of the Top Device Ops table) with their FLOP rate, bandwidth,
-- intensity, bound-by and use of the device's peaks (shares of the Top
-- Device Ops base). Rates divide by the op's time on the TPU device clock where
-- every invocation has one, else by self time, as xprof's hlo_stats does:
-- GFLOP/s (1e9 FLOP/s) and GiB/s (2^30 bytes/s), xprof's units. A rate above
-- the peak is no physical rate: the row prints n/a and says why.
-- Async Ops: each `x-done` paired with the latest `x-start` of the same name
-- (`copy-done.4` with `copy-start.4`) on its device since the done before
-- it (a start or done the profile lost leaves its partner unpaired); the
-- pair's bytes (the start's bytes_accessed) counted once over its time in
-- flight, start begin to done end.
-- Kernel Stats (GPU): xplane_kernel_stats by total time, values outside the
-- hardware's range shown as n/a with the reason. Memory: xplane_memory_peaks.
-- Each section is left out, or says in a line why it is empty.
-- Times in ms as the rest of the report; names as inline code, escaped.

DROP TABLE IF EXISTS temp.xq_roof;
CREATE TEMP TABLE xq_roof AS
SELECT h.*, xplane_md_cell(h.name) AS label,
       row_number() OVER (PARTITION BY h.kind ORDER BY h.self_ps DESC, h.total_ps DESC, h.name) AS r
  FROM xplane_hlo_stats h
 WHERE h.kind = 'op' AND h.name IN (SELECT name FROM xq_top) OR h.kind = 'category';
DROP VIEW IF EXISTS temp.xq_roof_any;
CREATE TEMP VIEW xq_roof_any AS
SELECT EXISTS (SELECT 1 FROM xq_roof WHERE kind = 'op' AND (flops IS NOT NULL OR bytes_accessed IS NOT NULL)) AS yes;
DROP VIEW IF EXISTS temp.xq_roof_cells;
CREATE TEMP VIEW xq_roof_cells AS  -- the rate cells of a row: n/a where unknown or above the peak
SELECT kind, r, label,
       '| ' || label || ' | ' || count || ' | ' || xplane_format(self_ps / 1e9, '.3f') || ' | '
       || coalesce(xplane_format(100.0 * self_ps / nullif((SELECT sum(self_ps) FROM xq_top), 0), '.2f') || '%', 'n/a') || ' | '
       || CASE WHEN rate_note IS NOT NULL THEN 'n/a' ELSE coalesce(xplane_format(flops_per_s / 1e9, '.3f'), 'n/a') END || ' | '
       || CASE WHEN rate_note IS NOT NULL THEN 'n/a' ELSE coalesce(xplane_format(bytes_per_s / 1073741824.0, '.3f'), 'n/a') END || ' | '
       || coalesce(xplane_format(flops_per_byte, '.3f'), 'n/a') || ' | ' || bound_by || ' | '
       || CASE WHEN rate_note IS NOT NULL THEN 'n/a' ELSE coalesce(xplane_format(100.0 * flop_utilization, '.2f') || '%', 'n/a') END || ' | '
       || CASE WHEN rate_note IS NOT NULL THEN 'n/a' ELSE coalesce(xplane_format(100.0 * bw_utilization, '.2f') || '%', 'n/a') END || ' | '
       || CASE rate_clock WHEN 'device' THEN 'device clock' ELSE 'self time' END
       || CASE WHEN rate_note IS NOT NULL THEN '; ' || CASE WHEN rate_note LIKE '%async%' THEN 'async half: see Async Ops'
                                                            ELSE rate_note END ELSE '' END || ' |' AS line
  FROM xq_roof;
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, 0 AS i, '## Roofline' AS line
  UNION ALL SELECT 1, 0, 'No device op carries a `flops` or `bytes_accessed` stat, so no rate is known. XLA writes them on TPU; '
      || 'on GPU xprof takes FLOPs from the HLO module''s cost analysis, which this report does not read.'
    WHERE NOT (SELECT yes FROM xq_roof_any)
  UNION ALL SELECT 1, 0, 'Rates as xprof''s HLO op stats: FLOPs and bytes_accessed over the op''s time (the device clock on TPU, '
      || 'else self time), in GFLOP/s (1e9 FLOP/s) and GiB/s (2^30 bytes/s); use of peak: % of the device''s peak '
      || 'FLOP/s and bandwidth; bound by: intensity (FLOP/byte) against the ridge point '
      || coalesce((SELECT xplane_format(max(ridge_flops_per_byte), '.3f') FROM xq_roof WHERE kind = 'op') || ' FLOP/byte', '(unknown: no peaks)')
      || '. A rate above the peak is no physical rate: n/a, and the row says why. Share: of the self time of all device ops.'
    WHERE (SELECT yes FROM xq_roof_any)
  UNION ALL SELECT 2, 0, '' WHERE (SELECT yes FROM xq_roof_any)
  UNION ALL SELECT 3, 0, '| Op | Count | Self (ms) | Share (% of device op self time) | FLOP rate (GFLOP/s) | Bandwidth (GiB/s) '
      || '| Intensity (FLOP/byte) | Bound by | FLOP use (% of peak) | Bandwidth use (% of peak) | Rate basis |'
    WHERE (SELECT yes FROM xq_roof_any)
  UNION ALL SELECT 4, 0, '|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|' WHERE (SELECT yes FROM xq_roof_any)
  UNION ALL SELECT 5, r, line FROM xq_roof_cells
   WHERE kind = 'op' AND r <= (SELECT top_k FROM xq_input) AND (SELECT yes FROM xq_roof_any)
  UNION ALL SELECT 11, 0, '(by HLO category: xplane_hlo_stats rows of kind `category`, which count in-flight `Async XLA Ops` too)'
    WHERE (SELECT yes FROM xq_roof_any) AND EXISTS (SELECT 1 FROM xq_roof WHERE kind = 'category')
  UNION ALL SELECT 11, 0, ''
  ORDER BY 1, 2)
 WHERE EXISTS (SELECT 1 FROM xq_top);

-- async ops: x-start with x-done, counted once over start to done
DROP TABLE IF EXISTS temp.xq_half;
CREATE TEMP TABLE xq_half AS  -- the half once, then the name around its '-start' / '-done'
SELECT plane_index, op_id, start_ps, end_ps, bytes_accessed, half,
       replace(name, '-' || half, '') AS key, substr(name, 1, instr(name, '-' || half) - 1) AS kind
  FROM (SELECT o.plane_index, o.op_id, o.name, o.start_ps, o.end_ps, o.bytes_accessed,
               CASE WHEN o.name GLOB '*-start' OR o.name GLOB '*-start.[0-9]*' THEN 'start'
                    WHEN o.name GLOB '*-done' OR o.name GLOB '*-done.[0-9]*' THEN 'done' END AS half
          FROM xplane_ops o WHERE o.line_name <> 'Async XLA Ops')
 WHERE half IS NOT NULL;
CREATE INDEX temp.xq_half_key ON xq_half(plane_index, key, half, start_ps);
DROP TABLE IF EXISTS temp.xq_pair;
CREATE TEMP TABLE xq_pair AS  -- a done with the latest start of its name since the done before it
WITH d AS (SELECT *, lag(start_ps) OVER (PARTITION BY plane_index, key ORDER BY start_ps, op_id) AS prev_ps
             FROM xq_half WHERE half = 'done'),
     m AS (SELECT d.*, (SELECT s.op_id FROM xq_half s
                         WHERE s.plane_index = d.plane_index AND s.key = d.key AND s.half = 'start'
                           AND s.start_ps <= d.start_ps AND (d.prev_ps IS NULL OR s.start_ps > d.prev_ps)
                         ORDER BY s.start_ps DESC, s.op_id DESC LIMIT 1) AS start_id
             FROM d)
SELECT s.plane_index, s.kind, s.key, s.start_ps, m.end_ps, m.end_ps - s.start_ps AS flight_ps,
       coalesce(s.bytes_accessed, m.bytes_accessed) AS bytes
  FROM m JOIN xq_half s ON s.plane_index = m.plane_index AND s.key = m.key AND s.half = 'start' AND s.op_id = m.start_id;
DROP TABLE IF EXISTS temp.xq_async;
CREATE TEMP TABLE xq_async AS
SELECT p.kind, count(*) AS n, count(p.bytes) AS n_bytes, sum(p.bytes) AS bytes, sum(p.flight_ps) AS flight_ps,
       max(p.flight_ps) AS max_ps,
       (SELECT count(*) FROM xq_half h WHERE h.kind = p.kind) - 2 * count(*) AS unpaired,
       (SELECT min(v.peak_bw_bytes_per_s) FROM xplane_devices v WHERE v.plane_index IN (SELECT plane_index FROM xq_pair q WHERE q.kind = p.kind))
         AS peak_lo,
       (SELECT max(v.peak_bw_bytes_per_s) FROM xplane_devices v WHERE v.plane_index IN (SELECT plane_index FROM xq_pair q WHERE q.kind = p.kind))
         AS peak_hi,
       (SELECT count(*) FROM xq_pair q WHERE q.kind = p.kind
           AND NOT EXISTS (SELECT 1 FROM xplane_devices v WHERE v.plane_index = q.plane_index AND v.peak_bw_bytes_per_s > 0)) AS no_peak
  FROM xq_pair p GROUP BY p.kind;
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, 0 AS i, '## Async Ops' AS line
  UNION ALL SELECT 1, 0, 'Each `x-done` is paired with the latest `x-start` of the same name on its device since the done '
      || 'before it (`copy-done.4` with `copy-start.4`); a half whose partner the profile lost stays unpaired. A pair''s bytes (the start''s `bytes_accessed`) are counted once, over its time in '
      || 'flight: start begin to done end. Bandwidth: the pairs'' bytes over their summed flight time, GiB/s (2^30 bytes/s); '
      || 'use: % of the device''s peak bandwidth. Pairs in flight at once each count their own time.'
  UNION ALL SELECT 2, 0, ''
  UNION ALL SELECT 3, 0, '| Kind | Pairs | Unpaired halves | Bytes (GiB, once per pair) | In flight (ms, summed) | Mean in flight (ms) '
      || '| Longest (ms) | Bandwidth (GiB/s) | Bandwidth use (% of peak) |'
  UNION ALL SELECT 4, 0, '|---|---:|---:|---:|---:|---:|---:|---:|---:|'
  UNION ALL SELECT 5, row_number() OVER (ORDER BY flight_ps DESC, kind),
      '| ' || xplane_md_cell(kind) || ' | ' || n || ' | ' || unpaired || ' | '
      || CASE WHEN n_bytes = n THEN xplane_format(bytes / 1073741824.0, '.3f') ELSE 'n/a' END || ' | '
      || xplane_format(flight_ps / 1e9, '.3f') || ' | ' || xplane_format(flight_ps / 1e9 / n, '.6f') || ' | '
      || xplane_format(max_ps / 1e9, '.3f') || ' | '
      || CASE WHEN n_bytes = n AND flight_ps > 0 THEN xplane_format(bytes * 1e12 / flight_ps / 1073741824.0, '.3f') ELSE 'n/a' END || ' | '
      || CASE WHEN n_bytes <> n OR flight_ps <= 0 THEN 'n/a'
              WHEN no_peak > 0 OR peak_lo IS NULL OR peak_lo <> peak_hi THEN 'n/a (peak unknown)'
              WHEN bytes * 1e12 / flight_ps > peak_lo THEN 'n/a (above the peak: bytes_accessed counts more than one memory)'
              ELSE xplane_format(100.0 * bytes * 1e12 / flight_ps / peak_lo, '.2f') || '%' END || ' |'
    FROM xq_async
  UNION ALL SELECT 6, 0, ''
  ORDER BY 1, 2)
 WHERE EXISTS (SELECT 1 FROM xq_async);

-- kernel stats (GPU)
DROP TABLE IF EXISTS temp.xq_kern;
CREATE TEMP TABLE xq_kern AS
SELECT *, row_number() OVER (ORDER BY total_ps DESC, name, grid_x, grid_y, grid_z, block_x, block_y, block_z) AS r,
       (SELECT sum(total_ps) FROM xplane_kernel_stats) AS all_ps
  FROM xplane_kernel_stats;
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, 0 AS i, '## Kernel Stats' AS line
  UNION ALL SELECT 1, 0, 'GPU kernels by launch configuration, by total time (xprof''s kernel_stats). Share: of the time of all '
      || (SELECT count(*) FROM xq_kern) || ' kernel rows, ' || xplane_format((SELECT max(all_ps) FROM xq_kern) / 1e9, '.3f')
      || ' ms. Values outside the hardware''s range are n/a, with the reason in Note; names are cut at 80 characters.'
  UNION ALL SELECT 2, 0, ''
  UNION ALL SELECT 3, 0, '| Kernel | Op | Count | Total (ms) | Share (% of kernel time) | Mean (ms) | Grid | Block '
      || '| Registers per thread | Shared memory (bytes per block) | Occupancy (%) | Tensor core | Note |'
  UNION ALL SELECT 4, 0, '|---|---|---:|---:|---:|---:|---|---|---:|---:|---:|---|---|'
  UNION ALL SELECT 5, r,
      '| ' || xplane_md_cell(substr(name, 1, 80) || CASE WHEN length(name) > 80 THEN '...' ELSE '' END) || ' | '
      || coalesce(xplane_md_cell(substr(op_name, 1, 60)), 'n/a') || ' | '
      || count || ' | ' || xplane_format(total_ps / 1e9, '.3f') || ' | '
      || coalesce(xplane_format(100.0 * total_ps / nullif(all_ps, 0), '.2f') || '%', 'n/a') || ' | '
      || xplane_format(mean_ps / 1e9, '.6f') || ' | ' || grid_x || ',' || grid_y || ',' || grid_z || ' | '
      || block_x || ',' || block_y || ',' || block_z || ' | '
      || CASE WHEN registers_per_thread IS NULL OR details_note LIKE '%regs %' THEN 'n/a' ELSE registers_per_thread END || ' | '
      || CASE WHEN coalesce(static_shmem_bytes, dynamic_shmem_bytes, shared_mem_bytes) IS NULL OR details_note LIKE '%shared%'
              THEN 'n/a' ELSE coalesce(static_shmem_bytes, 0) + coalesce(dynamic_shmem_bytes, 0) + coalesce(shared_mem_bytes, 0) END || ' | '
      || CASE WHEN occupancy_pct IS NULL OR details_note LIKE '%occ_pct%' THEN 'n/a' ELSE xplane_format(occupancy_pct, '.2f') END || ' | '
      || CASE WHEN uses_tensor_core THEN 'yes' ELSE 'no' END || CASE WHEN op_tensor_core_eligible AND NOT uses_tensor_core
              THEN ' (op eligible)' ELSE '' END || ' | '
      || coalesce(xplane_md_cell(details_note), '') || ' |'
    FROM xq_kern WHERE r <= (SELECT top_k FROM xq_input)
  UNION ALL SELECT 6, 0, ''
  ORDER BY 1, 2)
 WHERE EXISTS (SELECT 1 FROM xq_kern);

-- memory
DROP TABLE IF EXISTS temp.xq_mem;
CREATE TEMP TABLE xq_mem AS SELECT * FROM xplane_memory_peaks;
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, 0 AS i, '## Memory' AS line
  UNION ALL SELECT 1, 0, 'Per allocator (xplane_memory_peaks): the most bytes in use that its events show, when first reached '
      || '(ms after the allocator''s first event), and the device ops running then. GiB = 2^30 bytes. The allocator''s own '
      || 'peak may predate the profile.'
  UNION ALL SELECT 2, 0, ''
  UNION ALL SELECT 3, 0, '| Allocator | Peak in use (GiB) | At (ms after its first event) | Allocator-reported peak (GiB) '
      || '| In use at the end (GiB) | Allocations | Deallocations | Ops running at the peak |'
  UNION ALL SELECT 4, 0, '|---|---:|---:|---:|---:|---:|---:|---|'
  UNION ALL SELECT 5, row_number() OVER (ORDER BY peak_in_use_bytes DESC, allocator),
      '| ' || xplane_md_cell(allocator) || ' | '
      || xplane_format(peak_in_use_bytes / 1073741824.0, '.3f') || ' | '
      || xplane_format((peak_time_ps - first_time_ps) / 1e9, '.3f') || ' | '
      || coalesce(xplane_format(reported_peak_bytes / 1073741824.0, '.3f'), 'n/a') || ' | '
      || xplane_format(final_in_use_bytes / 1073741824.0, '.3f') || ' | ' || n_allocations || ' | ' || n_deallocations || ' | '
      || CASE WHEN n_ops_at_peak = 0 THEN 'none'
              ELSE n_ops_at_peak || ': ' || (SELECT group_concat(xplane_md_cell(substr(value, 1, 60)), ', ')
                                              FROM (SELECT value FROM json_each(ops_at_peak) LIMIT 3))
                   || CASE WHEN json_array_length(ops_at_peak) > 3 THEN ', ...' ELSE '' END END || ' |'
    FROM xq_mem WHERE true
  UNION ALL SELECT 6, 0, ''
  ORDER BY 1, 2)
 WHERE EXISTS (SELECT 1 FROM xq_mem);
