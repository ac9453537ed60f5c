-- queries/lib/report_md.sql: the markdown root-cause report of a summary document.
--
-- Input: temp.xq_summary(doc) (queries/lib/summary_json.sql), temp.xq_input.top_k
-- (rows per table) and the view of queries/lib/region_shares.sql (read it first). Output: temp.xq_report(md), the report
-- as the field's reference writes it (`profile_summary report --output`):
-- sections in order, numbers '.3f', percents '.2f%', FLOP rates '.3e',
-- missing values 'n/a', inline code with ` and | escaped. Everything is read
-- back from the JSON document, so the report cannot disagree with it.
-- (Inline code is '`' || replace(replace(x, '`', '\`'), '|', '\|') || '`'.)
-- The lines go to temp.xq_md in order (rowid), then are joined with "\n" and
-- right-stripped; printing the value adds the final newline.

DROP TABLE IF EXISTS temp.xq_md;
CREATE TEMP TABLE xq_md(seq INTEGER PRIMARY KEY, line TEXT NOT NULL);
DROP VIEW IF EXISTS temp.xq_doc;
CREATE TEMP VIEW xq_doc AS SELECT doc AS d, (SELECT top_k FROM xq_input) AS k FROM xq_summary;

-- header, run metadata, provenance, overview
INSERT INTO xq_md(line)
SELECT line FROM (
  SELECT 1 AS o, 0 AS i, '# Profile Report (' || (d ->> '$.schema_version') || ')' AS line FROM xq_doc
  UNION ALL SELECT 2, 0, '' UNION ALL SELECT 3, 0, '## Run Metadata'
  UNION ALL SELECT 4, 0, '- Run: `' || coalesce(nullif(d ->> '$.run_metadata.run_path', ''), 'unknown') || '`' FROM xq_doc
  UNION ALL SELECT 5, 0, '- Artifact: `' || coalesce(nullif(d ->> '$.run_metadata.artifact_ref', ''), 'unknown') || '`' FROM xq_doc
  UNION ALL SELECT 6, 0, '- Hardware: `' || coalesce(nullif(d ->> '$.run_metadata.hardware_type', ''), 'unknown') || '`' FROM xq_doc
  UNION ALL SELECT 7, 0, '- Topology: `' || coalesce(nullif(d ->> '$.run_metadata.mesh_or_topology', ''), 'unknown') || '`' FROM xq_doc
  UNION ALL SELECT 8, 0, '- Git SHA: `' || coalesce(nullif(d ->> '$.run_metadata.git_sha', ''), 'unknown') || '`' FROM xq_doc
  UNION ALL SELECT 8, 1 + f.key, '- ' || (f.value ->> '$.name') || ': `'
      || replace(replace(f.value ->> '$.value', '`', '\`'), '|', '\|') || '`'
    FROM xq_doc, json_each(d, '$.run_metadata.facts') f   -- only documents that run_metadata.sql completed
  UNION ALL SELECT 9, 0, '- Generated At (UTC): `' || (d ->> '$.generated_at_utc') || '`' FROM xq_doc
  UNION ALL SELECT 10, 0, '' UNION ALL SELECT 11, 0, '## Trace Provenance'
  UNION ALL SELECT 12, 0, '- Trace SHA256: `' || coalesce(nullif(d ->> '$.trace_provenance.trace_sha256', ''), 'unknown') || '`' FROM xq_doc
  UNION ALL SELECT 13, 0, '- Observed run_ids: `'
      || coalesce(nullif((SELECT group_concat(value, ', ') FROM (SELECT value FROM json_each(d, '$.trace_provenance.run_ids')
                                                                  WHERE key < 8 ORDER BY key)), ''), 'unknown') || '`' FROM xq_doc
  UNION ALL SELECT 14, 0, '' UNION ALL SELECT 15, 0, '## Trace Overview'
  UNION ALL SELECT 16, 0, '- Complete events: `' || (d ->> '$.trace_overview.num_complete_events') || '`' FROM xq_doc
  UNION ALL SELECT 17, 0, '- Total events: `' || (d ->> '$.trace_overview.num_events_total') || '`' FROM xq_doc
  UNION ALL SELECT 18, 0, '- Processes: `' || (d ->> '$.trace_overview.num_processes') || '`' FROM xq_doc
  UNION ALL SELECT 19, 0, '- Threads: `' || (d ->> '$.trace_overview.num_threads') || '`' FROM xq_doc
  UNION ALL SELECT 20, 0, '- Suspected truncation: `'
      || CASE WHEN d ->> '$.trace_overview.suspected_truncation' THEN 'yes' ELSE 'no' END || '`' FROM xq_doc
  UNION ALL SELECT 21, 0, '- Quality warnings:' FROM xq_doc WHERE json_array_length(d, '$.trace_overview.quality_warnings') > 0
  UNION ALL SELECT 22, j.key, '  - ' || j.value FROM xq_doc, json_each(d, '$.trace_overview.quality_warnings') j
  UNION ALL SELECT 23, 0, ''
  ORDER BY 1, 2);

-- steady-state step time and step classes
INSERT INTO xq_md(line)
SELECT line FROM (
  SELECT 1 AS o, 0 AS i, '## Step Time (Steady State)' AS line
  UNION ALL SELECT 2, 0, '- Steps counted: `' || (d ->> '$.step_time.steady_state_steps.count') || '`' FROM xq_doc
  UNION ALL SELECT 3, 0, '- Median: `' || coalesce(xplane_format(d ->> '$.step_time.steady_state_steps.median', '.3f'), 'n/a') || '`' FROM xq_doc
  UNION ALL SELECT 4, 0, '- P90: `' || coalesce(xplane_format(d ->> '$.step_time.steady_state_steps.p90', '.3f'), 'n/a') || '`' FROM xq_doc
  UNION ALL SELECT 5, 0, '- Mean: `' || coalesce(xplane_format(d ->> '$.step_time.steady_state_steps.mean', '.3f'), 'n/a') || '`' FROM xq_doc
  UNION ALL SELECT 6, 0, ''
  UNION ALL SELECT 7, 0, '## Step Classes' FROM xq_doc WHERE json_array_length(d, '$.step_time.classes') > 0
  UNION ALL SELECT 8, 0, '| Class | Count | Fraction | Median | P90 | Representative Step | Periodicity |'
      FROM xq_doc WHERE json_array_length(d, '$.step_time.classes') > 0
  UNION ALL SELECT 9, 0, '|---|---:|---:|---:|---:|---:|---:|' FROM xq_doc WHERE json_array_length(d, '$.step_time.classes') > 0
  UNION ALL
  SELECT 10, j.key, '| `' || (j.value ->> '$.name') || '` | ' || (j.value ->> '$.count') || ' | '
         || coalesce(xplane_format((j.value ->> '$.fraction_of_steady') * 100, '.2f') || '%', 'n/a') || ' | '
         || coalesce(xplane_format(j.value ->> '$.duration_stats.median', '.3f'), 'n/a') || ' | '
         || coalesce(xplane_format(j.value ->> '$.duration_stats.p90', '.3f'), 'n/a') || ' | '
         || coalesce(j.value ->> '$.representative_step', 'n/a') || ' | '
         || coalesce(j.value ->> '$.periodicity', 'n/a') || ' |'
    FROM xq_doc, json_each(d, '$.step_time.classes') j
  UNION ALL SELECT 11, 0, '' FROM xq_doc WHERE json_array_length(d, '$.step_time.classes') > 0
  ORDER BY 1, 2);

-- time breakdown
INSERT INTO xq_md(line)
SELECT line FROM (
  SELECT 1 AS o, '## Time Breakdown (`' || (d ->> '$.time_breakdown.duration_basis') || '`)' AS line FROM xq_doc
  UNION ALL SELECT 2, '| Category | Duration | Share |'
  UNION ALL SELECT 3, '|---|---:|---:|'
  UNION ALL
  SELECT 4 + c.o, '| ' || c.label || ' | '
         || coalesce(xplane_format(json_extract(d, '$.time_breakdown.' || c.key || '.total_duration'), '.3f'), 'n/a') || ' | '
         || coalesce(xplane_format(json_extract(d, '$.time_breakdown.' || c.key || '.share_of_total') * 100, '.2f') || '%', 'n/a')
         || ' |'
    FROM xq_doc,
         (SELECT 0 AS o, 'compute' AS key, 'Compute' AS label UNION ALL SELECT 1, 'communication', 'Communication'
          UNION ALL SELECT 2, 'host', 'Host' UNION ALL SELECT 3, 'stall', 'Stall' UNION ALL SELECT 4, 'other', 'Other') c
  UNION ALL SELECT 9, ''
  ORDER BY 1);

-- hierarchical regions, shares from queries/lib/region_shares.sql
INSERT INTO xq_md(line)
SELECT line FROM (
  SELECT -2 AS i, '## Hierarchical Regions' AS line
  UNION ALL SELECT -1, '| Region Path | Depth | Count | Inclusive | Inclusive % | Exclusive | Exclusive % |'
  UNION ALL SELECT 0, '|---|---:|---:|---:|---:|---:|---:|'
  UNION ALL
  SELECT i + 1, '| `' || path || '` | ' || depth || ' | ' || n || ' | ' || xplane_format(incl, '.3f') || ' | '
         || xplane_format(incl_share * 100, '.2f') || '% | ' || xplane_format(excl, '.3f') || ' | '
         || xplane_format(excl_share * 100, '.2f') || '% |'
    FROM xq_region_shares WHERE i < (SELECT k FROM xq_doc)
  UNION ALL SELECT 1e9, ''
  ORDER BY 1);

-- top ops (by exclusive time), semantic families, collectives, pre-op gaps
INSERT INTO xq_md(line)
SELECT line FROM (
  SELECT 0 AS s, -2 AS i, '## Top Ops' AS line
  UNION ALL SELECT 0, -1, '| Op | Canonical | Category | Count | Exclusive | Avg | Shape Signature |'
  UNION ALL SELECT 0, 0, '|---|---|---|---:|---:|---:|---|'
  UNION ALL
  SELECT 0, j.key + 1, '| ' || '`' || replace(replace(j.value ->> '$.name', '`', '\`'), '|', '\|') || '`' || ' | ' || '`' || replace(replace(j.value ->> '$.canonical_name', '`', '\`'), '|', '\|') || '`' || ' | '
         || (j.value ->> '$.category') || ' | ' || (j.value ->> '$.count') || ' | '
         || xplane_format(j.value ->> '$.exclusive_duration', '.3f') || ' | '
         || xplane_format(j.value ->> '$.avg_duration', '.3f') || ' | '
         || '`' || replace(replace(coalesce(nullif(j.value ->> '$.shape_signature', ''), 'n/a'), '`', '\`'), '|', '\|') || '`' || ' |'
    FROM xq_doc, json_each(d, '$.hot_ops') j WHERE j.key < k
  UNION ALL SELECT 0, 1e9, ''
  UNION ALL SELECT 1, -3, '## Semantic Families'
  UNION ALL SELECT 1, -2, '_Note: FLOP proxy metrics are relative scaling heuristics from trace shapes, not hardware MFU._'
  UNION ALL SELECT 1, -1, '| Family | Count | Exclusive | Share | Avg Exclusive | FLOP Proxy Total | FLOP Proxy/s | Example Op |'
  UNION ALL SELECT 1, 0, '|---|---:|---:|---:|---:|---:|---:|---|'
  UNION ALL
  SELECT 1, j.key + 1, '| `' || (j.value ->> '$.family') || '` | ' || (j.value ->> '$.count') || ' | '
         || xplane_format(j.value ->> '$.exclusive_duration', '.3f') || ' | '
         || xplane_format((j.value ->> '$.share_of_total') * 100, '.2f') || '% | '
         || xplane_format(j.value ->> '$.avg_exclusive_duration', '.3f') || ' | '
         || coalesce(xplane_format(j.value ->> '$.flop_proxy_total', '.3f'), 'n/a') || ' | '
         || coalesce(xplane_format(CASE WHEN (j.value ->> '$.time_per_flop_proxy') > 0
                                        THEN 1.0 / (j.value ->> '$.time_per_flop_proxy') END, '.3e'), 'n/a') || ' | `'
         || coalesce(nullif(j.value ->> '$.example_op', ''), 'n/a') || '` |'
    FROM xq_doc, json_each(d, '$.semantic_families') j WHERE j.key < k
  UNION ALL SELECT 1, 1e9, ''
  UNION ALL SELECT 2, -2, '## Communication Collectives'
  UNION ALL SELECT 2, -1, '| Collective | Count | Exclusive | Avg |'
  UNION ALL SELECT 2, 0, '|---|---:|---:|---:|'
  UNION ALL
  SELECT 2, j.key + 1, '| ' || (j.value ->> '$.collective') || ' | ' || (j.value ->> '$.count') || ' | '
         || xplane_format(j.value ->> '$.total_duration', '.3f') || ' | ' || xplane_format(j.value ->> '$.avg_duration', '.3f') || ' |'
    FROM xq_doc, json_each(d, '$.communication_ops') j WHERE j.key < k
  UNION ALL SELECT 2, 1e9, ''
  UNION ALL SELECT 3, -2, '## Pre-Op Gaps'
  UNION ALL SELECT 3, -1, '| Payload Op | Marker Op | Count | Total Gap | Max Gap | Avg Gap |'
  UNION ALL SELECT 3, 0, '|---|---|---:|---:|---:|---:|'
  UNION ALL
  SELECT 3, j.key + 1,
         '| ' || '`' || replace(replace(coalesce(nullif(j.value ->> '$.payload_op', ''), j.value ->> '$.name'), '`', '\`'), '|', '\|') || '`' || ' | '
         || '`' || replace(replace(coalesce(nullif(j.value ->> '$.marker_op', ''), nullif(j.value ->> '$.payload_op', ''), j.value ->> '$.name'), '`', '\`'), '|', '\|') || '`'
         || ' | ' || (j.value ->> '$.count') || ' | '
         || xplane_format(j.value ->> '$.total_gap_duration', '.3f') || ' | '
         || xplane_format(j.value ->> '$.max_gap_duration', '.3f') || ' | '
         || xplane_format(j.value ->> '$.avg_gap_duration', '.3f') || ' |'
    FROM xq_doc, json_each(d, '$.gap_before_ops') j WHERE j.key < k
  UNION ALL SELECT 3, 1e9, ''
  ORDER BY 1, 2);

-- gap context, region first: all contexts summed by region; the three
-- payload ops with the most gaps in the region (ties: list order)
INSERT INTO xq_md(line)
WITH ctx AS (
  SELECT CAST(j.key AS INTEGER) AS i, j.value ->> '$.op_name' AS op, j.value ->> '$.region_path' AS region,
         j.value ->> '$.count' AS n, j.value ->> '$.total_gap_duration' AS total
    FROM xq_doc, json_each(d, '$.gap_region_contexts') j),
by_region AS (
  SELECT region, sum(n) AS n, (SELECT sum(total) FROM (SELECT total FROM ctx c2 WHERE c2.region = c.region ORDER BY i)) AS total
    FROM ctx c GROUP BY region),
payloads AS (
  SELECT region, op, row_number() OVER (PARTITION BY region ORDER BY sum(n) DESC, min(i)) AS pick
    FROM ctx GROUP BY region, op),
rows AS (
  SELECT b.*, row_number() OVER (ORDER BY b.total DESC, b.region) AS rank,
         (SELECT group_concat(op, ', ') FROM (SELECT op FROM payloads p WHERE p.region = b.region AND pick <= 3 ORDER BY pick)) AS top
    FROM by_region b)
SELECT line FROM (
  SELECT -2 AS i, '## Gap Context (Region-First)' AS line
  UNION ALL SELECT -1, '| Region Path | Count | Total Gap | Avg Gap | Top Payload Ops |'
  UNION ALL SELECT 0, '|---|---:|---:|---:|---|'
  UNION ALL
  SELECT rank, '| ' || '`' || replace(replace(region, '`', '\`'), '|', '\|') || '`' || ' | ' || n || ' | ' || xplane_format(total, '.3f') || ' | '
         || xplane_format(CASE WHEN n > 0 THEN total / n ELSE 0.0 END, '.3f') || ' | '
         || '`' || replace(replace(coalesce(nullif(top, ''), 'n/a'), '`', '\`'), '|', '\|') || '`' || ' |'
    FROM rows WHERE rank <= (SELECT k FROM xq_doc)
  UNION ALL SELECT 1e9, ''
  ORDER BY 1);

-- optimization candidates
INSERT INTO xq_md(line)
SELECT line FROM (
  SELECT -1 AS c, 0 AS o, 0 AS i, '## Optimization Candidates' AS line
  UNION ALL SELECT c.key, 0, 0, '### ' || (c.value ->> '$.title') FROM xq_doc, json_each(d, '$.optimization_candidates') c
  UNION ALL SELECT c.key, 1, 0, c.value ->> '$.rationale' FROM xq_doc, json_each(d, '$.optimization_candidates') c
  UNION ALL SELECT c.key, 2, 0, '' FROM xq_doc, json_each(d, '$.optimization_candidates') c
  UNION ALL SELECT c.key, 3, 0, 'Evidence:' FROM xq_doc, json_each(d, '$.optimization_candidates') c
  UNION ALL SELECT c.key, 4, e.key, '- ' || e.value
    FROM xq_doc, json_each(d, '$.optimization_candidates') c, json_each(c.value, '$.evidence') e
  UNION ALL SELECT c.key, 5, 0, '' FROM xq_doc, json_each(d, '$.optimization_candidates') c
  UNION ALL SELECT c.key, 6, 0, 'Suggestions:' FROM xq_doc, json_each(d, '$.optimization_candidates') c
  UNION ALL SELECT c.key, 7, s.key, '- ' || s.value
    FROM xq_doc, json_each(d, '$.optimization_candidates') c, json_each(c.value, '$.suggestions') s
  UNION ALL SELECT c.key, 8, 0, '' FROM xq_doc, json_each(d, '$.optimization_candidates') c
  ORDER BY 1, 2, 3);

DROP TABLE IF EXISTS temp.xq_report;
CREATE TEMP TABLE xq_report AS
SELECT rtrim(group_concat(line, char(10)), ' ' || char(9, 10, 11, 12, 13)) AS md
  FROM (SELECT line FROM xq_md ORDER BY seq);
