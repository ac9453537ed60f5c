-- queries/lib/profile_compare_doc.sql: the JSON comparison of two profiles by
-- the device-time model (`xplane compare --format json` on two profiles; the
-- `comparison` of `xplane track`'s record). Input: temp.xq_compare (the
-- provenance checks, lib/compare_json.sql) and the figures of
-- lib/profile_compare_build.sql, the same ones the markdown prints. Output:
-- temp.xq_pcdoc(doc), the document "xplane_compare.v1":
--   schema_version, units, model ("device_time"), before_source,
--   after_source (the paths read), before_name, after_name (RUN/HOST, as
--   xplane_files names them: a descriptor /dev/fd/N by the file it refers
--   to), provenance_checks (as the reference's comparison),
--   hardware {before, after, differs},
--   device_time {before, after}: devices, ops, wall_ms, busy_ms, idle_ms,
--     compute_ms, communication_ms, transfer_ms, other_ms (all devices of the
--     side summed), duty_cycle (busy / wall), communication_share and
--     idle_share (of wall);
--   steps {warmup_steps, same_source, before, after}: source, count (all
--     devices), steady_count, median_ms, p90_ms, mean_ms (steady steps, every
--     device pooled), and median_change_pct, p90_change_pct
--     ((after - before) / before * 100; null without a steady step on a side);
--   op_changes: the @top_k ops whose self time changed most: name,
--     count_before, count_after, self_before_ms, self_after_ms, delta_ms.
-- Times are the model's picoseconds / 1e9, converted here and nowhere before.
DROP TABLE IF EXISTS temp.xq_pcdoc;
CREATE TEMP TABLE xq_pcdoc AS
WITH
dt(side, obj) AS (
  SELECT side, json_object('devices', n, 'ops', coalesce(ops, 0), 'wall_ms', wall / 1e9, 'busy_ms', busy / 1e9,
                           'idle_ms', idle / 1e9, 'compute_ms', compute / 1e9, 'communication_ms', comm / 1e9,
                           'transfer_ms', transfer / 1e9, 'other_ms', other / 1e9,
                           'duty_cycle', 1.0 * busy / nullif(wall, 0),
                           'communication_share', 1.0 * comm / nullif(wall, 0),
                           'idle_share', 1.0 * idle / nullif(wall, 0))
    FROM xq_cdt),
st(side, obj) AS (
  SELECT side, json_object('source', source, 'count', n_all, 'steady_count', n,
                           'median_ms', p50 / 1e9, 'p90_ms', p90 / 1e9, 'mean_ms', mean / 1e9)
    FROM xq_csq),
ch AS (
  SELECT CASE WHEN b.p50 > 0 THEN (a.p50 - b.p50) / b.p50 * 100.0 END AS median_pct,
         CASE WHEN b.p90 > 0 THEN (a.p90 - b.p90) / b.p90 * 100.0 END AS p90_pct,
         b.source IS a.source AS same_source
    FROM xq_csq b, xq_csq a WHERE b.side = 'b' AND a.side = 'a')
SELECT json_object(
  'schema_version', 'xplane_compare.v1',
  'units', 'ms; shares and the duty cycle are fractions of the side''s device wall time (all devices summed)',
  'model', 'device_time',
  'before_source', c.doc ->> '$.before_source',
  'after_source', c.doc ->> '$.after_source',
  'before_name', (SELECT name FROM xq_cname WHERE side = 'b'),
  'after_name', (SELECT name FROM xq_cname WHERE side = 'a'),
  'provenance_checks', json(c.doc -> '$.provenance_checks'),
  'hardware', json_object('before', (SELECT hw FROM xq_chw WHERE side = 'b'), 'after', (SELECT hw FROM xq_chw WHERE side = 'a'),
                          'differs', json(CASE WHEN (SELECT hw FROM xq_chw WHERE side = 'b') IS NOT (SELECT hw FROM xq_chw WHERE side = 'a')
                                               THEN 'true' ELSE 'false' END)),
  'device_time', json_object('before', json((SELECT obj FROM dt WHERE side = 'b')), 'after', json((SELECT obj FROM dt WHERE side = 'a'))),
  'steps', json_object('warmup_steps', (SELECT warmup_steps FROM xq_input),
                       'same_source', json(CASE WHEN ch.same_source THEN 'true' ELSE 'false' END),
                       'before', json((SELECT obj FROM st WHERE side = 'b')), 'after', json((SELECT obj FROM st WHERE side = 'a')),
                       'median_change_pct', ch.median_pct, 'p90_change_pct', ch.p90_pct),
  'op_changes', json((SELECT json_group_array(json_object('name', name, 'count_before', coalesce(bn, 0), 'count_after', coalesce(an, 0),
                                                          'self_before_ms', coalesce(bps, 0) / 1e9, 'self_after_ms', coalesce(aps, 0) / 1e9,
                                                          'delta_ms', delta / 1e9))
                        FROM (SELECT * FROM xq_cchg WHERE r <= (SELECT top_k FROM xq_input) ORDER BY r)))) AS doc
  FROM xq_compare c, ch;
