-- queries/lib/profile_report_md.sql: the markdown of queries/profile_report.sql.
--
-- Input: temp.xq_md (the reference report's lines, queries/lib/report_md.sql),
-- temp.xq_input (top_k) and the extension's tables on the profile in use
-- (xplane_use). Output: temp.xq_profile_report(md).
--
-- The head (run metadata, provenance, trace overview) is the reference
-- report's own lines, up to its "## Step Time" heading, under this report's
-- title. The rest reads the device-time model (xplane_device_time, docs/
-- ANALYSIS.md section 15), the tracks, the device ops and the findings.
-- Times in ms ('.3f'; averages '.6f'), shares '.2f%' of the denominator
-- named in the column header; names as inline code with ` and | escaped and
-- line breaks folded to spaces, so a name cannot break a table.
DROP TABLE IF EXISTS temp.xq_pmd;
CREATE TEMP TABLE xq_pmd(seq INTEGER PRIMARY KEY, line TEXT NOT NULL);
DROP VIEW IF EXISTS temp.xq_dt;
CREATE TEMP VIEW xq_dt AS
SELECT *, xplane_md_cell(plane_name || coalesce(' #' || device_ordinal, '')) AS label  -- the device as inline code
  FROM xplane_device_time;

-- title and head
INSERT INTO xq_pmd(line) VALUES ('# Profile Report'), (''),
  ('Times in milliseconds (ms). Every share names its denominator; device time is docs/ANALYSIS.md section 15.'),
  ('');
-- Run Metadata, Trace Provenance, Trace Overview: the reference's lines (lib/report_md.sql),
-- with every value a code span of xplane_md_code (a fact's name too, unless it is plain words) (a run path or host name from someone
-- else's folder cannot break the list or drive a terminal), Artifact falling back to
-- artifact_name, and a run_id set by --metadata printed after Run.
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 1 AS o, 0 AS i, '## Run Metadata' AS line
  UNION ALL SELECT 2, 0, '- Run: ' || xplane_md_code(coalesce(nullif(d ->> '$.run_metadata.run_path', ''), 'unknown')) FROM (SELECT doc AS d FROM xq_summary)
  UNION ALL SELECT 3, 0, '- Run ID: ' || xplane_md_code(d ->> '$.run_metadata.run_id') FROM (SELECT doc AS d FROM xq_summary)
      WHERE nullif(d ->> '$.run_metadata.run_id', '') IS NOT NULL
  UNION ALL SELECT 4, 0, '- Artifact: ' || xplane_md_code(coalesce(nullif(d ->> '$.run_metadata.artifact_ref', ''),
                                                             nullif(d ->> '$.run_metadata.artifact_name', ''), 'unknown')) FROM (SELECT doc AS d FROM xq_summary)
  UNION ALL SELECT 5, 0, '- Hardware: ' || xplane_md_code(coalesce(nullif(d ->> '$.run_metadata.hardware_type', ''), 'unknown')) FROM (SELECT doc AS d FROM xq_summary)
  UNION ALL SELECT 6, 0, '- Topology: ' || xplane_md_code(coalesce(nullif(d ->> '$.run_metadata.mesh_or_topology', ''), 'unknown')) FROM (SELECT doc AS d FROM xq_summary)
  UNION ALL SELECT 7, 0, '- Git SHA: ' || xplane_md_code(coalesce(nullif(d ->> '$.run_metadata.git_sha', ''), 'unknown')) FROM (SELECT doc AS d FROM xq_summary)
  UNION ALL SELECT 8, 1 + f.key, '- ' || CASE WHEN f.value ->> '$.name' GLOB '*[^A-Za-z0-9 ()/_.,-]*' OR f.value ->> '$.name' = ''
                                      THEN xplane_md_code(f.value ->> '$.name') ELSE f.value ->> '$.name' END || ': ' || xplane_md_code(f.value ->> '$.value')
    FROM (SELECT doc AS d FROM xq_summary), json_each(d, '$.run_metadata.facts') f
  UNION ALL SELECT 9, 0, '- Generated At (UTC): ' || xplane_md_code(d ->> '$.generated_at_utc') FROM (SELECT doc AS d FROM xq_summary)
  UNION ALL SELECT 10, 0, '' UNION ALL SELECT 11, 0, '## Trace Provenance'
  UNION ALL SELECT 12, 0, '- Trace SHA256: ' || xplane_md_code(coalesce(nullif(d ->> '$.trace_provenance.trace_sha256', ''), 'unknown')) FROM (SELECT doc AS d FROM xq_summary)
  UNION ALL SELECT 13, 0, '- Observed run_ids: '
      || xplane_md_code(coalesce(nullif((SELECT group_concat(value, ', ') FROM (SELECT value FROM json_each(d, '$.trace_provenance.run_ids')
                                                                                WHERE key < 8 ORDER BY key)), ''), 'unknown')) FROM (SELECT doc AS d FROM xq_summary)
  UNION ALL SELECT 14, 0, '' UNION ALL SELECT 15, 0, '## Trace Overview'
  UNION ALL SELECT 16, 0, '- Complete events: `' || (d ->> '$.trace_overview.num_complete_events') || '`' FROM (SELECT doc AS d FROM xq_summary)
  UNION ALL SELECT 17, 0, '- Total events: `' || (d ->> '$.trace_overview.num_events_total') || '`' FROM (SELECT doc AS d FROM xq_summary)
  UNION ALL SELECT 18, 0, '- Processes: `' || (d ->> '$.trace_overview.num_processes') || '`' FROM (SELECT doc AS d FROM xq_summary)
  UNION ALL SELECT 19, 0, '- Threads: `' || (d ->> '$.trace_overview.num_threads') || '`' FROM (SELECT doc AS d FROM xq_summary)
  UNION ALL SELECT 20, 0, '- Suspected truncation: `'
      || CASE WHEN d ->> '$.trace_overview.suspected_truncation' THEN 'yes' ELSE 'no' END || '`' FROM (SELECT doc AS d FROM xq_summary)
  UNION ALL SELECT 21, 0, '- Quality warnings:' FROM (SELECT doc AS d FROM xq_summary) WHERE json_array_length(d, '$.trace_overview.quality_warnings') > 0
  UNION ALL SELECT 22, j.key, '  - ' || xplane_md_code(j.value) FROM (SELECT doc AS d FROM xq_summary), json_each(d, '$.trace_overview.quality_warnings') j
  UNION ALL SELECT 23, 0, ''
  ORDER BY 1, 2);

-- device time: overview
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, 0 AS i, '## Device Time' AS line
  UNION ALL SELECT 1, 0, 'Per device: wall = first op start to last op end; busy = the union of its op intervals '
      || '(derived lines such as `XLA Modules` or `TensorFlow Ops` are not added on top); idle = wall - busy.'
  UNION ALL SELECT 2, 0, ''
  UNION ALL SELECT 3, 0, 'No device ops in this profile: no device time.' WHERE NOT EXISTS (SELECT 1 FROM xq_dt)
  UNION ALL SELECT 4, 0, '| Device | Kind | Ops | Wall (ms) | Busy (ms) | Idle (ms) | Duty cycle (% of wall) |'
    WHERE EXISTS (SELECT 1 FROM xq_dt)
  UNION ALL SELECT 5, 0, '|---|---|---:|---:|---:|---:|---:|' WHERE EXISTS (SELECT 1 FROM xq_dt)
  UNION ALL
  SELECT 6, row_number() OVER (ORDER BY plane_index, device_ordinal),
         '| ' || label || ' | ' || device_kind || ' | ' || n_ops || ' | '
         || xplane_format(wall_ps / 1e9, '.3f') || ' | ' || xplane_format(busy_ps / 1e9, '.3f') || ' | '
         || xplane_format(idle_ps / 1e9, '.3f') || ' | '
         || coalesce(xplane_format(100.0 * duty_cycle, '.2f') || '%', 'n/a') || ' |'
    FROM xq_dt
  UNION ALL
  SELECT 7, 0, '| All devices | | ' || sum(n_ops) || ' | ' || xplane_format(sum(wall_ps) / 1e9, '.3f') || ' | '
         || xplane_format(sum(busy_ps) / 1e9, '.3f') || ' | ' || xplane_format(sum(idle_ps) / 1e9, '.3f') || ' | '
         || coalesce(xplane_format(100.0 * sum(busy_ps) / nullif(sum(wall_ps), 0), '.2f') || '%', 'n/a') || ' |'
    FROM xq_dt HAVING count(*) > 1
  UNION ALL SELECT 8, 0, ''
  ORDER BY 1, 2);

-- device time: busy time by class
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, 0 AS i, '## Device Time Breakdown' AS line
  UNION ALL SELECT 1, 0, 'Busy time by what ran; where ops of several classes overlap, the instant counts once, '
      || 'for the first of compute, transfer, communication, other. The four sum to busy time.'
  UNION ALL SELECT 2, 0, ''
  UNION ALL SELECT 3, 0, '| Class | All devices (ms) | Share (% of busy) | Share (% of wall) |'
  UNION ALL SELECT 4, 0, '|---|---:|---:|---:|'
  UNION ALL
  SELECT 5, c.o, '| ' || c.label || ' | ' || xplane_format(c.ps / 1e9, '.3f') || ' | '
         || CASE WHEN c.o = 5 THEN 'n/a'
                 ELSE coalesce(xplane_format(100.0 * c.ps / nullif(t.busy, 0), '.2f') || '%', 'n/a') END || ' | '
         || coalesce(xplane_format(100.0 * c.ps / nullif(t.wall, 0), '.2f') || '%', 'n/a') || ' |'
    FROM (SELECT sum(busy_ps) AS busy, sum(wall_ps) AS wall FROM xq_dt) t,
         (SELECT 1 AS o, 'Compute' AS label, sum(compute_ps) AS ps FROM xq_dt
          UNION ALL SELECT 2, 'Communication', sum(communication_ps) FROM xq_dt
          UNION ALL SELECT 3, 'Transfer', sum(transfer_ps) FROM xq_dt
          UNION ALL SELECT 4, 'Other', sum(other_ps) FROM xq_dt
          UNION ALL SELECT 5, 'Idle (not busy)', sum(idle_ps) FROM xq_dt) c
  UNION ALL SELECT 6, 0, ''
  UNION ALL SELECT 7, 0, '| Device | Compute (% of busy) | Communication (% of busy) | Transfer (% of busy) | Other (% of busy) |'
    WHERE (SELECT count(*) FROM xq_dt) > 1
  UNION ALL SELECT 8, 0, '|---|---:|---:|---:|---:|' WHERE (SELECT count(*) FROM xq_dt) > 1
  UNION ALL
  SELECT 9, row_number() OVER (ORDER BY plane_index, device_ordinal),
         '| ' || label || ' | '
         || coalesce(xplane_format(100.0 * compute_ps / nullif(busy_ps, 0), '.2f') || '%', 'n/a') || ' | '
         || coalesce(xplane_format(100.0 * communication_ps / nullif(busy_ps, 0), '.2f') || '%', 'n/a') || ' | '
         || coalesce(xplane_format(100.0 * transfer_ps / nullif(busy_ps, 0), '.2f') || '%', 'n/a') || ' | '
         || coalesce(xplane_format(100.0 * other_ps / nullif(busy_ps, 0), '.2f') || '%', 'n/a') || ' |'
    FROM xq_dt WHERE (SELECT count(*) FROM xq_dt) > 1
  UNION ALL SELECT 10, 0, '' WHERE (SELECT count(*) FROM xq_dt) > 1
  ORDER BY 1, 2)
 WHERE EXISTS (SELECT 1 FROM xq_dt);

-- steps: one source (xplane_step_time), each step split like the device
DROP TABLE IF EXISTS temp.xq_st;
CREATE TEMP TABLE xq_st AS
SELECT t.*, d.label, t.step >= (SELECT warmup_steps FROM xq_input) AS steady
  FROM xplane_step_time t JOIN xq_dt d ON d.plane_index = t.plane_index AND d.device_ordinal IS t.device_ordinal;
DROP TABLE IF EXISTS temp.xq_stq;
CREATE TEMP TABLE xq_stq AS  -- per device: the steady steps' statistics (quantiles interpolated at (n - 1) q)
WITH s AS (SELECT label, plane_index, device_ordinal, dur_ps,
                  row_number() OVER (PARTITION BY plane_index, device_ordinal ORDER BY dur_ps) - 1 AS r,
                  count(*) OVER (PARTITION BY plane_index, device_ordinal) AS n
             FROM xq_st WHERE steady),
     q(name, q) AS (VALUES ('p50', 0.5), ('p90', 0.9))
SELECT d.label, d.plane_index, d.device_ordinal,
       (SELECT count(*) FROM xq_st a WHERE a.plane_index = d.plane_index AND a.device_ordinal IS d.device_ordinal) AS n_all,
       (SELECT count(*) FROM xq_st a WHERE a.plane_index = d.plane_index AND a.device_ordinal IS d.device_ordinal
           AND NOT a.steady) AS n_warm,
       (SELECT max(n) FROM s WHERE s.plane_index = d.plane_index AND s.device_ordinal IS d.device_ordinal) AS n,
       (SELECT sum(CASE WHEN r = CAST((n - 1) * 0.5 AS INTEGER) THEN dur_ps * (1 - ((n - 1) * 0.5 - CAST((n - 1) * 0.5 AS INTEGER)))
                        WHEN r = CAST((n - 1) * 0.5 AS INTEGER) + 1 THEN dur_ps * ((n - 1) * 0.5 - CAST((n - 1) * 0.5 AS INTEGER)) END)
          FROM s WHERE s.plane_index = d.plane_index AND s.device_ordinal IS d.device_ordinal) AS p50,
       (SELECT sum(CASE WHEN r = CAST((n - 1) * 0.9 AS INTEGER) THEN dur_ps * (1 - ((n - 1) * 0.9 - CAST((n - 1) * 0.9 AS INTEGER)))
                        WHEN r = CAST((n - 1) * 0.9 AS INTEGER) + 1 THEN dur_ps * ((n - 1) * 0.9 - CAST((n - 1) * 0.9 AS INTEGER)) END)
          FROM s WHERE s.plane_index = d.plane_index AND s.device_ordinal IS d.device_ordinal) AS p90,
       (SELECT avg(dur_ps) FROM s WHERE s.plane_index = d.plane_index AND s.device_ordinal IS d.device_ordinal) AS mean,
       (SELECT min(dur_ps) FROM s WHERE s.plane_index = d.plane_index AND s.device_ordinal IS d.device_ordinal) AS lo,
       (SELECT max(dur_ps) FROM s WHERE s.plane_index = d.plane_index AND s.device_ordinal IS d.device_ordinal) AS hi,
       (SELECT sum(dur_ps) FROM xq_st a WHERE a.plane_index = d.plane_index AND a.device_ordinal IS d.device_ordinal AND a.steady) AS dur,
       (SELECT sum(compute_ps) FROM xq_st a WHERE a.plane_index = d.plane_index AND a.device_ordinal IS d.device_ordinal AND a.steady) AS compute,
       (SELECT sum(communication_ps) FROM xq_st a WHERE a.plane_index = d.plane_index AND a.device_ordinal IS d.device_ordinal AND a.steady) AS comm,
       (SELECT sum(transfer_ps) FROM xq_st a WHERE a.plane_index = d.plane_index AND a.device_ordinal IS d.device_ordinal AND a.steady) AS transfer,
       (SELECT sum(other_ps) FROM xq_st a WHERE a.plane_index = d.plane_index AND a.device_ordinal IS d.device_ordinal AND a.steady) AS other,
       (SELECT sum(idle_ps) FROM xq_st a WHERE a.plane_index = d.plane_index AND a.device_ordinal IS d.device_ordinal AND a.steady) AS idle
  FROM xq_dt d WHERE EXISTS (SELECT 1 FROM xq_st a WHERE a.plane_index = d.plane_index AND a.device_ordinal IS d.device_ordinal);
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, 0 AS i, '## Steps' AS line
  UNION ALL SELECT 1, 0, 'No steps: the profile has no `Steps` line, no StepTraceAnnotation and no XLA module run.'
    WHERE NOT EXISTS (SELECT 1 FROM xq_st)
  UNION ALL SELECT 1, 0, 'Source: ' || CASE (SELECT min(source) FROM xq_st)
      WHEN 'steps_line' THEN 'the devices'' `Steps` line'
      WHEN 'host_annotation' THEN 'host StepTraceAnnotation events (named `train`, with a `step_num` or `step` stat)'
      ELSE 'XLA module runs (the profile has no step marker), numbered per device' END
      || '. Steps numbered below ' || (SELECT warmup_steps FROM xq_input) || ' are warm-up, left out of the statistics. '
      || 'Each step''s time splits as the device''s: the parts and idle sum to the step time.'
      || CASE WHEN (SELECT min(source) FROM xq_st) = 'host_annotation'
                   AND EXISTS (SELECT 1 FROM xq_dt WHERE device_kind = 'cpu')
              THEN ' On the CPU backend the host dispatches ahead of the devices: a step''s window is the host''s '
                   || 'annotation and need not hold that step''s own device work, so the split describes the window '
                   || '(docs/ANALYSIS.md, section 15).' ELSE '' END
    WHERE EXISTS (SELECT 1 FROM xq_st)
  UNION ALL SELECT 2, 0, '' WHERE EXISTS (SELECT 1 FROM xq_st)
  UNION ALL SELECT 3, 0, '| Device | Steps | Warm-up excluded | Steady steps | Median (ms) | P90 (ms) | Mean (ms) | Min (ms) | Max (ms) |'
    WHERE EXISTS (SELECT 1 FROM xq_st)
  UNION ALL SELECT 4, 0, '|---|---:|---:|---:|---:|---:|---:|---:|---:|' WHERE EXISTS (SELECT 1 FROM xq_st)
  UNION ALL
  SELECT 5, row_number() OVER (ORDER BY plane_index, device_ordinal),
         '| ' || label || ' | ' || n_all || ' | ' || n_warm || ' | ' || coalesce(n, 0) || ' | '
         || coalesce(xplane_format(p50 / 1e9, '.3f'), 'n/a') || ' | ' || coalesce(xplane_format(p90 / 1e9, '.3f'), 'n/a') || ' | '
         || coalesce(xplane_format(mean / 1e9, '.3f'), 'n/a') || ' | ' || coalesce(xplane_format(lo / 1e9, '.3f'), 'n/a') || ' | '
         || coalesce(xplane_format(hi / 1e9, '.3f'), 'n/a') || ' |'
    FROM xq_stq
  UNION ALL SELECT 6, 0, '' WHERE EXISTS (SELECT 1 FROM xq_st)
  UNION ALL SELECT 7, 0, '| Device | Compute (% of step time) | Communication (% of step time) | Transfer (% of step time) | '
      || 'Other (% of step time) | Idle (% of step time) |' WHERE EXISTS (SELECT 1 FROM xq_stq WHERE dur > 0)
  UNION ALL SELECT 8, 0, '|---|---:|---:|---:|---:|---:|' WHERE EXISTS (SELECT 1 FROM xq_stq WHERE dur > 0)
  UNION ALL
  SELECT 9, row_number() OVER (ORDER BY plane_index, device_ordinal),
         '| ' || label || ' | ' || xplane_format(100.0 * compute / dur, '.2f') || '% | '
         || xplane_format(100.0 * comm / dur, '.2f') || '% | ' || xplane_format(100.0 * transfer / dur, '.2f') || '% | '
         || xplane_format(100.0 * other / dur, '.2f') || '% | ' || xplane_format(100.0 * idle / dur, '.2f') || '% |'
    FROM xq_stq WHERE dur > 0
  UNION ALL SELECT 10, 0, '(over the steady steps)' WHERE EXISTS (SELECT 1 FROM xq_stq WHERE dur > 0)
  UNION ALL SELECT 10, 1, 'No steady steps: every step is warm-up (below ' || (SELECT warmup_steps FROM xq_input) || ').'
    WHERE EXISTS (SELECT 1 FROM xq_st) AND NOT EXISTS (SELECT 1 FROM xq_stq WHERE dur > 0)
  UNION ALL SELECT 11, 0, ''
  ORDER BY 1, 2);

-- host threads: beside the devices, never inside
DROP TABLE IF EXISTS temp.xq_host;
CREATE TEMP TABLE xq_host AS
SELECT plane_name, coalesce(nullif(line_display_name, ''), line_name) AS thread, n_events, self_ps,
       last_end_ps - first_start_ps AS span_ps
  FROM xplane_tracks WHERE plane_name LIKE '/host:%' AND self_ps > 0;
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, 0 AS i, '## Host Threads' AS line
  UNION ALL SELECT 1, 0, 'Host time is reported beside the devices, never inside their time. Self time: the '
      || 'thread''s exclusive event time; span: its first event start to its last event end.'
  UNION ALL SELECT 2, 0, ''
  UNION ALL SELECT 3, 0, '| Thread | Plane | Events | Self time (ms) | Span (ms) |'
  UNION ALL SELECT 4, 0, '|---|---|---:|---:|---:|'
  UNION ALL
  SELECT 5, r, '| ' || xplane_md_cell(thread) || ' | '
         || xplane_md_cell(plane_name) || ' | ' || n_events || ' | '
         || xplane_format(self_ps / 1e9, '.3f') || ' | ' || xplane_format(span_ps / 1e9, '.3f') || ' |'
    FROM (SELECT *, row_number() OVER (ORDER BY self_ps DESC, plane_name, thread) AS r FROM xq_host)
   WHERE r <= (SELECT top_k FROM xq_input)
  UNION ALL SELECT 6, 0, '(' || (SELECT count(*) FROM xq_host) || ' host threads with events; the '
      || min((SELECT top_k FROM xq_input), (SELECT count(*) FROM xq_host)) || ' with the most self time shown)'
  UNION ALL SELECT 7, 0, ''
  ORDER BY 1, 2)
 WHERE EXISTS (SELECT 1 FROM xq_host);

-- top device ops by self time (busy-line ops: Async XLA Ops in flight are not busy)
DROP TABLE IF EXISTS temp.xq_top;
CREATE TEMP TABLE xq_top AS
SELECT name, xplane_device_class(min(line_name), name) AS class, xplane_op_family(min(line_name), name) AS family, count(*) AS n, sum(self_ps) AS self_ps,
       sum(dur_ps) AS total_ps
  FROM xplane_ops WHERE line_name <> 'Async XLA Ops' GROUP BY name;
-- the CPU backend (no device plane): its ops are the host events with an hlo_op stat, as
-- xplane_device_time counts them; self time among them, per thread
INSERT INTO xq_top
SELECT name, xplane_device_class('', name), xplane_op_family('', name), count(*), sum(self_ps), sum(dur_ps)
  FROM (SELECT coalesce(nullif(display_name, ''), name) AS name, dur_ps,
               xplane_self_ps(start_ps, dur_ps) OVER (PARTITION BY plane_index, line_index ORDER BY start_ps, event_index
                                                     ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)
                 AS self_ps
          FROM xplane_events WHERE plane_name LIKE '/host:%' AND dur_ps > 0 AND stats ->> 'hlo_op' IS NOT NULL)
 WHERE NOT EXISTS (SELECT 1 FROM xq_top) AND EXISTS (SELECT 1 FROM xq_dt WHERE device_kind = 'cpu')
 GROUP BY name;
INSERT INTO xq_pmd(line)
SELECT line FROM (
  SELECT 0 AS o, 0 AS i, '## Top Device Ops' AS line
  UNION ALL SELECT 1, 0, CASE WHEN NOT EXISTS (SELECT 1 FROM xplane_ops) THEN 'The CPU backend: the ops are the host events '
      || 'with an `hlo_op` stat, as Device Time counts them. ' ELSE '' END
      || 'By self time (an op''s time less its nested ops''). Share: of the self time of all device ops, '
      || xplane_format((SELECT sum(self_ps) FROM xq_top) / 1e9, '.3f') || ' ms.'
  UNION ALL SELECT 2, 0, ''
  UNION ALL SELECT 3, 0, '| Op | Class | Family | Count | Self (ms) | Share (% of device op self time) | Avg self (ms) | Total (ms) |'
  UNION ALL SELECT 4, 0, '|---|---|---|---:|---:|---:|---:|---:|'
  UNION ALL
  SELECT 5, r, '| ' || xplane_md_cell(name) || ' | ' || class || ' | ' || family || ' | '
         || n || ' | ' || xplane_format(self_ps / 1e9, '.3f') || ' | '
         || coalesce(xplane_format(100.0 * self_ps / nullif((SELECT sum(self_ps) FROM xq_top), 0), '.2f') || '%', 'n/a')
         || ' | ' || xplane_format(self_ps / 1e9 / n, '.6f') || ' | ' || xplane_format(total_ps / 1e9, '.3f') || ' |'
    FROM (SELECT *, row_number() OVER (ORDER BY self_ps DESC, total_ps DESC, name) AS r FROM xq_top)
   WHERE r <= (SELECT top_k FROM xq_input)
  UNION ALL SELECT 6, 0, ''
  ORDER BY 1, 2)
 WHERE EXISTS (SELECT 1 FROM xq_top);

