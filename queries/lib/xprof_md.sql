-- queries/lib/xprof_md.sql: the xprof sections of the report, in markdown,
-- from temp.xq_xprof(doc) (queries/lib/xprof_json.sql; read it first).
-- Output: temp.xq_xprof_md(md). Sections, each left out when the profile has
-- no data for it: Device (type, peaks, achieved FLOP utilization), Roofline
-- (HLO op stats: top ops by self time with FLOP/s, bytes/s, intensity and
-- bound-by; then the categories), Kernel Stats (top kernels with launch
-- configuration), Memory (peak per allocator and when), Step Overview (step
-- time split and the input-bound verdict). Numbers '.3f', rates '.3e',
-- percents '.2f%', missing values 'n/a', as the rest of the report.
DROP TABLE IF EXISTS temp.xq_xmd;
CREATE TEMP TABLE xq_xmd(seq INTEGER PRIMARY KEY, line TEXT NOT NULL);
DROP VIEW IF EXISTS temp.xq_xdoc;
CREATE TEMP VIEW xq_xdoc AS SELECT doc AS d FROM xq_xprof;


INSERT INTO xq_xmd(line)
SELECT line FROM (
  SELECT 1 AS o, 0 AS i, '' AS line FROM xq_xdoc WHERE json_array_length(d, '$.devices') > 0
  UNION ALL SELECT 2, 0, '## Device' FROM xq_xdoc WHERE json_array_length(d, '$.devices') > 0
  UNION ALL SELECT 3, CAST(j.key AS INT),
      '- `' || (j.value ->> '$.plane_name') || '`: ' || coalesce(j.value ->> '$.device_type', j.value ->> '$.vendor', 'unknown type')
      || coalesce(', compute capability ' || (j.value ->> '$.compute_capability'), '')
      || coalesce(', ' || (j.value ->> '$.core_count') || ' cores', '')
      || coalesce(', clock ' || xplane_format((j.value ->> '$.clock_rate_hz') / 1e9, '.3f') || ' GHz', '')
      || coalesce(', memory ' || xplane_format((j.value ->> '$.memory_size_bytes') / 1e9, '.3f') || ' GB', '')
      || ', peak ' || coalesce(xplane_format(j.value ->> '$.peak_flops_per_s', '.3e') || ' FLOP/s', 'FLOP/s n/a')
      || ', ' || coalesce(xplane_format(j.value ->> '$.peak_bw_bytes_per_s', '.3e') || ' bytes/s', 'bytes/s n/a')
      || coalesce(', ridge ' || xplane_format(j.value ->> '$.ridge_flops_per_byte', '.3f') || ' FLOP/byte', '')
    FROM xq_xdoc, json_each(d, '$.devices') j
  UNION ALL SELECT 4, 0, '- Achieved FLOP utilization: `'
      || coalesce(xplane_format(d ->> '$.flop_utilization', '.2%'), 'n/a') || '`'
    FROM xq_xdoc WHERE json_array_length(d, '$.devices') > 0
  -- roofline: only when some op has FLOPs or bytes
  UNION ALL SELECT 10, 0, '' FROM xq_xdoc WHERE EXISTS (SELECT 1 FROM json_each(d, '$.roofline.ops') j
      WHERE j.value ->> '$.flops' IS NOT NULL OR j.value ->> '$.bytes_accessed' IS NOT NULL)
  UNION ALL SELECT 11, 0, '## Roofline (HLO Op Stats)' FROM xq_xdoc WHERE EXISTS (SELECT 1 FROM json_each(d, '$.roofline.ops') j
      WHERE j.value ->> '$.flops' IS NOT NULL OR j.value ->> '$.bytes_accessed' IS NOT NULL)
  UNION ALL SELECT 12, 0, '| op | category | count | self (us) | share | FLOP/s | bytes/s | FLOP/byte | bound by | FLOP util | BW util |'
    FROM xq_xdoc WHERE EXISTS (SELECT 1 FROM json_each(d, '$.roofline.ops') j
      WHERE j.value ->> '$.flops' IS NOT NULL OR j.value ->> '$.bytes_accessed' IS NOT NULL)
  UNION ALL SELECT 13, 0, '|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|'
    FROM xq_xdoc WHERE EXISTS (SELECT 1 FROM json_each(d, '$.roofline.ops') j
      WHERE j.value ->> '$.flops' IS NOT NULL OR j.value ->> '$.bytes_accessed' IS NOT NULL)
  UNION ALL SELECT 14, CAST(j.key AS INT),
      '| ' || xplane_md_cell(j.value ->> '$.name') || ' | '
      || coalesce(j.value ->> '$.category', 'n/a') || ' | ' || (j.value ->> '$.count') || ' | '
      || xplane_format(j.value ->> '$.self_time_us', '.3f') || ' | '
      || coalesce(xplane_format(j.value ->> '$.share_of_device_self', '.2%'), 'n/a') || ' | '
      || coalesce(xplane_format(j.value ->> '$.flops_per_s', '.3e'), 'n/a') || ' | '
      || coalesce(xplane_format(j.value ->> '$.bytes_per_s', '.3e'), 'n/a') || ' | '
      || coalesce(xplane_format(j.value ->> '$.flops_per_byte', '.3f'), 'n/a') || ' | '
      || (j.value ->> '$.bound_by') || ' | '
      || coalesce(xplane_format(j.value ->> '$.flop_utilization', '.2%'), 'n/a') || ' | '
      || coalesce(xplane_format(j.value ->> '$.bw_utilization', '.2%'), 'n/a') || ' |'
    FROM xq_xdoc, json_each(d, '$.roofline.ops') j WHERE EXISTS (SELECT 1 FROM json_each(d, '$.roofline.ops') x
      WHERE x.value ->> '$.flops' IS NOT NULL OR x.value ->> '$.bytes_accessed' IS NOT NULL)
  -- kernels
  UNION ALL SELECT 20, 0, '' FROM xq_xdoc WHERE json_array_length(d, '$.kernels') > 0
  UNION ALL SELECT 21, 0, '## Kernel Stats' FROM xq_xdoc WHERE json_array_length(d, '$.kernels') > 0
  UNION ALL SELECT 22, 0, '| kernel | grid | block | regs | shared (bytes) | occupancy | tensor core | op | count | total (us) | mean (us) |'
    FROM xq_xdoc WHERE json_array_length(d, '$.kernels') > 0
  UNION ALL SELECT 23, 0, '|---|---|---|---:|---:|---:|---|---|---:|---:|---:|' FROM xq_xdoc WHERE json_array_length(d, '$.kernels') > 0
  UNION ALL SELECT 24, CAST(j.key AS INT),
      '| ' || xplane_md_cell(substr(j.value ->> '$.name', 1, 80)) || ' | '
      || (j.value ->> '$.grid[0]') || ',' || (j.value ->> '$.grid[1]') || ',' || (j.value ->> '$.grid[2]') || ' | '
      || (j.value ->> '$.block[0]') || ',' || (j.value ->> '$.block[1]') || ',' || (j.value ->> '$.block[2]') || ' | '
      || coalesce(j.value ->> '$.registers_per_thread', 'n/a') || ' | '
      || CASE WHEN coalesce(j.value ->> '$.static_shmem_bytes', j.value ->> '$.dynamic_shmem_bytes',
                            j.value ->> '$.shared_mem_bytes') IS NULL THEN 'n/a'
              ELSE CAST(coalesce(j.value ->> '$.static_shmem_bytes', 0) + coalesce(j.value ->> '$.dynamic_shmem_bytes', 0)
                        + coalesce(j.value ->> '$.shared_mem_bytes', 0) AS TEXT) END || ' | '
      || coalesce(xplane_format((j.value ->> '$.occupancy_pct') / 100.0, '.2%'), 'n/a') || ' | '
      || CASE WHEN j.value ->> '$.uses_tensor_core' THEN 'yes' ELSE 'no' END
      || CASE WHEN j.value ->> '$.op_tensor_core_eligible' THEN ' (op eligible)' ELSE '' END || ' | '
      || coalesce(xplane_md_cell(substr(j.value ->> '$.op_name', 1, 60)), 'n/a') || ' | '
      || (j.value ->> '$.count') || ' | ' || xplane_format(j.value ->> '$.total_time_us', '.3f') || ' | '
      || xplane_format(j.value ->> '$.mean_time_us', '.3f') || ' |'
    FROM xq_xdoc, json_each(d, '$.kernels') j
  -- memory
  UNION ALL SELECT 30, 0, '' FROM xq_xdoc WHERE json_array_length(d, '$.memory') > 0
  UNION ALL SELECT 31, 0, '## Memory' FROM xq_xdoc WHERE json_array_length(d, '$.memory') > 0
  UNION ALL SELECT 32, CAST(j.key AS INT),
      '- ' || xplane_md_code(j.value ->> '$.allocator') || ': peak `' || xplane_format(CAST(j.value ->> '$.peak_in_use_bytes' AS REAL), ',d')
      || '` bytes at `' || xplane_format(j.value ->> '$.peak_time_us', '.3f') || '` us'
      || coalesce(' (allocator-reported peak `' || xplane_format(CAST(j.value ->> '$.reported_peak_bytes' AS REAL), ',d') || '` bytes)', '')
      || ', ' || (j.value ->> '$.allocations') || ' allocations, ' || (j.value ->> '$.deallocations') || ' deallocations'
      || CASE WHEN json_array_length(j.value, '$.ops_at_peak') > 0
              THEN '; running at the peak: ' || (SELECT group_concat(xplane_md_code(value), ', ')
                                                   FROM json_each(j.value, '$.ops_at_peak'))
              ELSE '' END
    FROM xq_xdoc, json_each(d, '$.memory') j
  -- step overview
  UNION ALL SELECT 40, 0, '' FROM xq_xdoc WHERE d ->> '$.step_overview' IS NOT NULL
  UNION ALL SELECT 41, 0, '## Step Overview' FROM xq_xdoc WHERE d ->> '$.step_overview' IS NOT NULL
  UNION ALL SELECT 42, 0, '- Input-bound: `' || (d ->> '$.step_overview.input_bound') || '` (steady input wait `'
      || coalesce(xplane_format((d ->> '$.step_overview.steady_input_percent') / 100.0, '.2%'), 'n/a') || '` of step time)'
    FROM xq_xdoc WHERE d ->> '$.step_overview' IS NOT NULL
  UNION ALL SELECT 42.5, 0, '' FROM xq_xdoc WHERE d ->> '$.step_overview' IS NOT NULL
  UNION ALL SELECT 43, 0, '| step | step time (us) | compute (us) | collectives (us) | input wait (us) | idle (us) |'
    FROM xq_xdoc WHERE d ->> '$.step_overview' IS NOT NULL
  UNION ALL SELECT 44, 0, '|---:|---:|---:|---:|---:|---:|' FROM xq_xdoc WHERE d ->> '$.step_overview' IS NOT NULL
  UNION ALL SELECT 45, CAST(j.key AS INT),
      '| ' || (j.value ->> '$.step') || ' | ' || xplane_format(j.value ->> '$.step_time_us', '.3f') || ' | '
      || xplane_format(j.value ->> '$.compute_us', '.3f') || ' | ' || xplane_format(j.value ->> '$.collectives_us', '.3f')
      || ' | ' || xplane_format(j.value ->> '$.input_wait_us', '.3f') || ' | ' || xplane_format(j.value ->> '$.idle_us', '.3f') || ' |'
    FROM xq_xdoc, json_each(d, '$.step_overview.steps') j
  ORDER BY 1, 2);

DROP TABLE IF EXISTS temp.xq_xprof_md;
CREATE TEMP TABLE xq_xprof_md AS SELECT group_concat(line, char(10)) AS md FROM (SELECT line FROM xq_xmd ORDER BY seq);
