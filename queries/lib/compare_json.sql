-- queries/lib/compare_json.sql: compare two summary documents.
--
-- Reads temp.xq_before(doc) and temp.xq_after(doc) (queries/lib/compare_build.sql
-- builds them from two profiles, queries/lib/summary_docs.sql reads them from
-- two summary documents) and writes the comparison of the field's reference
-- (`profile_summary compare`) into temp.xq_compare(doc):
--   before_source, after_source, provenance_checks (status pass/warn/fail,
--   messages, both sha256 and run ids), step_time (steady median and p90
--   before/after/delta), step_classes (before/after rows, delta per class
--   name), time_breakdown_share_delta (after - before of the five shares),
--   semantic_family_delta (per family: exclusive, FLOP proxy and time per
--   FLOP before/after with deltas, percents and ratios), regressed_ops and
--   improved_ops (hot ops by exclusive delta, @top_k each).
-- pct(b, a) = (a - b) / b * 100 when b > 0, ratio(b, a) = a / b when b > 0,
-- else null; a delta with a missing side is null. Provenance fails when both
-- files have the same SHA-256 (a trace compared with itself) and warns on the
-- same source path, the same run id or artifact, or a missing hash.
-- Runs on both engines (the documents are all it reads).

DROP TABLE IF EXISTS temp.xq_compare;
CREATE TEMP TABLE xq_compare AS
WITH
b(d) AS (SELECT doc FROM xq_before),
a(d) AS (SELECT doc FROM xq_after),
k(k) AS (SELECT top_k FROM xq_input),
-- provenance, in the reference's order; status: fail > warn > pass
prov_msgs(i, sev, msg) AS (
  SELECT 1, 'fail', 'Before and after summaries point to identical trace content (matching SHA256).' FROM b, a
   WHERE coalesce(b.d ->> '$.trace_provenance.trace_sha256', '') <> ''
     AND b.d ->> '$.trace_provenance.trace_sha256' = a.d ->> '$.trace_provenance.trace_sha256'
  UNION ALL SELECT 2, 'warn', 'Before and after summaries have the same source_path.' FROM b, a
   WHERE b.d ->> '$.source_path' = a.d ->> '$.source_path'
  UNION ALL SELECT 3, 'warn', 'Before and after summaries have the same W&B run_id.' FROM b, a
   WHERE coalesce(b.d ->> '$.run_metadata.run_id', '') <> '' AND b.d ->> '$.run_metadata.run_id' = a.d ->> '$.run_metadata.run_id'
  UNION ALL SELECT 4, 'warn', 'Before and after summaries reference the same W&B artifact.' FROM b, a
   WHERE coalesce(b.d ->> '$.run_metadata.artifact_ref', '') <> ''
     AND b.d ->> '$.run_metadata.artifact_ref' = a.d ->> '$.run_metadata.artifact_ref'
  UNION ALL SELECT 5, 'warn', 'One or both summaries are missing trace SHA256 provenance.' FROM b, a
   WHERE coalesce(b.d ->> '$.trace_provenance.trace_sha256', '') = '' OR coalesce(a.d ->> '$.trace_provenance.trace_sha256', '') = ''),
provenance(obj) AS (
  SELECT json_object(
    'status', CASE WHEN EXISTS (SELECT 1 FROM prov_msgs WHERE sev = 'fail') THEN 'fail'
                   WHEN EXISTS (SELECT 1 FROM prov_msgs) THEN 'warn' ELSE 'pass' END,
    'messages', json((SELECT json_group_array(msg) FROM (SELECT msg FROM prov_msgs ORDER BY i))),
    'before_trace_sha256', b.d ->> '$.trace_provenance.trace_sha256',
    'after_trace_sha256', a.d ->> '$.trace_provenance.trace_sha256',
    'before_run_id', b.d ->> '$.run_metadata.run_id',
    'after_run_id', a.d ->> '$.run_metadata.run_id')
  FROM b, a),
-- step classes
classes(side, name, i, row) AS (
  SELECT 'before', j.value ->> '$.name', j.key, j.value FROM b, json_each(b.d, '$.step_time.classes') j
  UNION ALL SELECT 'after', j.value ->> '$.name', j.key, j.value FROM a, json_each(a.d, '$.step_time.classes') j),
class_rows(side, i, obj) AS (
  SELECT side, i, json_object(
    'name', row ->> '$.name', 'count', row ->> '$.count',
    'fraction_of_steady', json(xplane_repr(row ->> '$.fraction_of_steady')),
    'median_duration', json(xplane_repr(row ->> '$.duration_stats.median')),
    'p90_duration', json(xplane_repr(row ->> '$.duration_stats.p90')),
    'representative_step', row ->> '$.representative_step',
    'representative_duration', json(xplane_repr(row ->> '$.representative_duration')),
    'periodicity', row ->> '$.periodicity')
  FROM classes),
class_delta(name, obj) AS (
  SELECT n.name, json_object(
    'name', n.name,
    'before_count', coalesce(cb.row ->> '$.count', 0), 'after_count', coalesce(ca.row ->> '$.count', 0),
    'before_fraction', json(xplane_repr(coalesce(cb.row ->> '$.fraction_of_steady', 0.0))),
    'after_fraction', json(xplane_repr(coalesce(ca.row ->> '$.fraction_of_steady', 0.0))),
    'median_before', json(xplane_repr(cb.row ->> '$.duration_stats.median')),
    'median_after', json(xplane_repr(ca.row ->> '$.duration_stats.median')),
    'median_delta', json(xplane_repr((ca.row ->> '$.duration_stats.median') - (cb.row ->> '$.duration_stats.median'))),
    'median_regression_pct', json(xplane_repr(
        CASE WHEN (cb.row ->> '$.duration_stats.median') > 0
             THEN ((ca.row ->> '$.duration_stats.median') - (cb.row ->> '$.duration_stats.median'))
                  / (cb.row ->> '$.duration_stats.median') * 100.0 END)))
  FROM (SELECT DISTINCT name FROM classes) n
  LEFT JOIN classes cb ON cb.side = 'before' AND cb.name = n.name
  LEFT JOIN classes ca ON ca.side = 'after' AND ca.name = n.name),
-- semantic families (summaries built here always list them)
families(side, family, row) AS (
  SELECT 'before', j.value ->> '$.family', j.value FROM b, json_each(b.d, '$.semantic_families') j
  UNION ALL SELECT 'after', j.value ->> '$.family', j.value FROM a, json_each(a.d, '$.semantic_families') j),
family_vals AS (
  SELECT n.family,
         coalesce(fb.row ->> '$.exclusive_duration', 0.0) AS eb, coalesce(fa.row ->> '$.exclusive_duration', 0.0) AS ea,
         fb.row ->> '$.flop_proxy_total' AS flb, fa.row ->> '$.flop_proxy_total' AS fla,
         fb.row ->> '$.time_per_flop_proxy' AS tb, fa.row ->> '$.time_per_flop_proxy' AS ta,
         fb.row ->> '$.example_op' AS xb, fa.row ->> '$.example_op' AS xa,
         fb.row ->> '$.dominant_shape_signature' AS sb, fa.row ->> '$.dominant_shape_signature' AS sa
    FROM (SELECT DISTINCT family FROM families) n
    LEFT JOIN families fb ON fb.side = 'before' AND fb.family = n.family
    LEFT JOIN families fa ON fa.side = 'after' AND fa.family = n.family),
family_ratios AS (
  SELECT *, CASE WHEN eb > 0 THEN ea / eb END AS time_ratio, CASE WHEN flb > 0 THEN fla / flb END AS flop_ratio
    FROM family_vals),
family_delta(family, obj) AS (
  SELECT family, json_object(
    'family', family,
    'before_exclusive_duration', json(xplane_repr(eb)), 'after_exclusive_duration', json(xplane_repr(ea)),
    'exclusive_duration_delta', json(xplane_repr(ea - eb)),
    'exclusive_regression_pct', json(xplane_repr(CASE WHEN eb > 0 THEN (ea - eb) / eb * 100.0 END)),
    'before_flop_proxy_total', json(xplane_repr(flb)), 'after_flop_proxy_total', json(xplane_repr(fla)),
    'flop_proxy_ratio', json(xplane_repr(flop_ratio)),
    'before_time_per_flop_proxy', json(xplane_repr(tb)), 'after_time_per_flop_proxy', json(xplane_repr(ta)),
    'time_per_flop_regression_pct', json(xplane_repr(CASE WHEN tb > 0 THEN (ta - tb) / tb * 100.0 END)),
    'time_ratio', json(xplane_repr(time_ratio)), 'work_ratio', json(xplane_repr(flop_ratio)),
    'efficiency_ratio', json(xplane_repr(CASE WHEN time_ratio IS NOT NULL AND flop_ratio <> 0 THEN time_ratio / flop_ratio END)),
    'example_before', xb, 'example_after', xa, 'shape_signature_before', sb, 'shape_signature_after', sa)
  FROM family_ratios),
-- hot ops: exclusive before/after (0 when not listed on one side)
ops(side, name, excl) AS (
  SELECT 'before', j.value ->> '$.name', j.value ->> '$.exclusive_duration' FROM b, json_each(b.d, '$.hot_ops') j
  UNION ALL SELECT 'after', j.value ->> '$.name', j.value ->> '$.exclusive_duration' FROM a, json_each(a.d, '$.hot_ops') j),
op_delta AS (
  SELECT n.name, coalesce(ob.excl, 0.0) AS eb, coalesce(oa.excl, 0.0) AS ea, coalesce(oa.excl, 0.0) - coalesce(ob.excl, 0.0) AS delta
    FROM (SELECT DISTINCT name FROM ops) n
    LEFT JOIN ops ob ON ob.side = 'before' AND ob.name = n.name
    LEFT JOIN ops oa ON oa.side = 'after' AND oa.name = n.name)
SELECT json_object(
  'before_source', b.d ->> '$.source_path',
  'after_source', a.d ->> '$.source_path',
  'provenance_checks', json((SELECT obj FROM provenance)),
  'step_time', json_object(
    'steady_state_median_before', json(xplane_repr(b.d ->> '$.step_time.steady_state_steps.median')),
    'steady_state_median_after', json(xplane_repr(a.d ->> '$.step_time.steady_state_steps.median')),
    'steady_state_median_delta', json(xplane_repr((a.d ->> '$.step_time.steady_state_steps.median')
                                                  - (b.d ->> '$.step_time.steady_state_steps.median'))),
    'steady_state_p90_before', json(xplane_repr(b.d ->> '$.step_time.steady_state_steps.p90')),
    'steady_state_p90_after', json(xplane_repr(a.d ->> '$.step_time.steady_state_steps.p90')),
    'steady_state_p90_delta', json(xplane_repr((a.d ->> '$.step_time.steady_state_steps.p90')
                                               - (b.d ->> '$.step_time.steady_state_steps.p90')))),
  'step_classes', json_object(
    'before', json((SELECT json_group_array(json(obj)) FROM (SELECT obj FROM class_rows WHERE side = 'before' ORDER BY i))),
    'after', json((SELECT json_group_array(json(obj)) FROM (SELECT obj FROM class_rows WHERE side = 'after' ORDER BY i))),
    'delta', json((SELECT json_group_array(json(obj)) FROM (SELECT obj FROM class_delta ORDER BY name)))),
  'time_breakdown_share_delta', json_object(
    'compute', json(xplane_repr((a.d ->> '$.time_breakdown.compute.share_of_total') - (b.d ->> '$.time_breakdown.compute.share_of_total'))),
    'communication', json(xplane_repr((a.d ->> '$.time_breakdown.communication.share_of_total')
                                      - (b.d ->> '$.time_breakdown.communication.share_of_total'))),
    'host', json(xplane_repr((a.d ->> '$.time_breakdown.host.share_of_total') - (b.d ->> '$.time_breakdown.host.share_of_total'))),
    'stall', json(xplane_repr((a.d ->> '$.time_breakdown.stall.share_of_total') - (b.d ->> '$.time_breakdown.stall.share_of_total'))),
    'other', json(xplane_repr((a.d ->> '$.time_breakdown.other.share_of_total') - (b.d ->> '$.time_breakdown.other.share_of_total')))),
  'semantic_family_delta', json((SELECT json_group_array(json(obj)) FROM (SELECT obj FROM family_delta ORDER BY family))),
  'regressed_ops', json((SELECT json_group_array(json_object('name', name, 'before', json(xplane_repr(eb)), 'after', json(xplane_repr(ea)),
                                                        'delta', json(xplane_repr(delta))))
                      FROM (SELECT * FROM op_delta WHERE delta > 0 ORDER BY delta DESC, name LIMIT (SELECT k FROM k)))),
  'improved_ops', json((SELECT json_group_array(json_object('name', name, 'before', json(xplane_repr(eb)), 'after', json(xplane_repr(ea)),
                                                       'delta', json(xplane_repr(delta))))
                     FROM (SELECT * FROM op_delta WHERE delta < 0 ORDER BY delta, name LIMIT (SELECT k FROM k))))
) AS doc
FROM b, a;
