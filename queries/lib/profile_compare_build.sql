-- queries/lib/profile_compare_build.sql: the figures of a comparison of two
-- profiles by the device-time model, read by its markdown
-- (lib/profile_compare_md.sql) and its JSON (lib/profile_compare_doc.sql), so
-- the two cannot disagree. Input: @before, @after (profiles), temp.xq_input
-- (warmup_steps, top_k). Output, per side 'b' (before) and 'a' (after):
--   xq_cdt   the devices summed: n devices, ops, wall, busy, idle, compute,
--            comm, transfer, other (ps; xplane_device_time)
--   xq_chw   the hardware, "4 x TPU v6 Lite" (xplane_devices)
--   xq_cname the profile's RUN/HOST, as xplane_files names it (a descriptor
--            /dev/fd/N by the file it refers to)
--   xq_cst   every step: step, dur_ps, source (xplane_step_time)
--   xq_csq   the steady steps' statistics, every device pooled: source,
--            n_all, n, p50, p90, mean (ps; quantiles interpolated at
--            (n - 1) q as the report does)
--   xq_cop   self time by op name (as the report's Top Device Ops)
--   xq_cchg  per op name: self time before and after, delta, rank r by |delta|
DROP TABLE IF EXISTS temp.xq_cdt;
CREATE TEMP TABLE xq_cdt AS  -- per side: the devices summed
SELECT 'b' AS side, count(*) AS n, sum(n_ops) AS ops, sum(wall_ps) AS wall, sum(busy_ps) AS busy, sum(idle_ps) AS idle,
       sum(compute_ps) AS compute, sum(communication_ps) AS comm, sum(transfer_ps) AS transfer, sum(other_ps) AS other
  FROM xplane_device_time(@before)
UNION ALL
SELECT 'a', count(*), sum(n_ops), sum(wall_ps), sum(busy_ps), sum(idle_ps), sum(compute_ps), sum(communication_ps),
       sum(transfer_ps), sum(other_ps)
  FROM xplane_device_time(@after);
DROP TABLE IF EXISTS temp.xq_chw;
CREATE TEMP TABLE xq_chw AS  -- per side: the hardware ("4 x TPU v6 Lite"), from the device planes
SELECT side, group_concat(n || ' x ' || t, ', ') AS hw FROM (
  SELECT 'b' AS side, coalesce(device_type, vendor || ' GPU', 'unknown') || coalesce(' (compute capability ' || compute_capability || ')', '') AS t,
         count(*) AS n FROM xplane_devices(@before) GROUP BY 2
  UNION ALL
  SELECT 'a', coalesce(device_type, vendor || ' GPU', 'unknown') || coalesce(' (compute capability ' || compute_capability || ')', ''),
         count(*) FROM xplane_devices(@after) GROUP BY 2
  ORDER BY 1, 2)
 GROUP BY side;
DROP TABLE IF EXISTS temp.xq_cname;
CREATE TEMP TABLE xq_cname AS  -- per side: RUN/HOST of the profile
SELECT 'b' AS side, (SELECT run || '/' || host FROM xplane_files(@before) LIMIT 1) AS name
UNION ALL SELECT 'a', (SELECT run || '/' || host FROM xplane_files(@after) LIMIT 1);
DROP TABLE IF EXISTS temp.xq_cst;
CREATE TEMP TABLE xq_cst AS  -- per side: its steps
SELECT 'b' AS side, step, dur_ps, source FROM xplane_step_time(@before)
UNION ALL SELECT 'a', step, dur_ps, source FROM xplane_step_time(@after);
DROP TABLE IF EXISTS temp.xq_csq;
CREATE TEMP TABLE xq_csq AS  -- per side: the steady steps' statistics, devices pooled
WITH s AS (SELECT side, dur_ps, row_number() OVER (PARTITION BY side ORDER BY dur_ps) - 1 AS r,
                  count(*) OVER (PARTITION BY side) AS n
             FROM xq_cst WHERE step >= (SELECT warmup_steps FROM xq_input)),
     sides(side) AS (VALUES ('b'), ('a'))
SELECT d.side,
       (SELECT group_concat(DISTINCT source) FROM xq_cst c WHERE c.side = d.side) AS source,
       (SELECT count(*) FROM xq_cst c WHERE c.side = d.side) AS n_all,
       (SELECT count(*) FROM s WHERE s.side = d.side) AS n,
       (SELECT sum(CASE WHEN r = CAST((n - 1) * 0.5 AS INTEGER) THEN dur_ps * (1 - ((n - 1) * 0.5 - CAST((n - 1) * 0.5 AS INTEGER)))
                        WHEN r = CAST((n - 1) * 0.5 AS INTEGER) + 1 THEN dur_ps * ((n - 1) * 0.5 - CAST((n - 1) * 0.5 AS INTEGER)) END)
          FROM s WHERE s.side = d.side) AS p50,
       (SELECT sum(CASE WHEN r = CAST((n - 1) * 0.9 AS INTEGER) THEN dur_ps * (1 - ((n - 1) * 0.9 - CAST((n - 1) * 0.9 AS INTEGER)))
                        WHEN r = CAST((n - 1) * 0.9 AS INTEGER) + 1 THEN dur_ps * ((n - 1) * 0.9 - CAST((n - 1) * 0.9 AS INTEGER)) END)
          FROM s WHERE s.side = d.side) AS p90,
       (SELECT avg(dur_ps) FROM s WHERE s.side = d.side) AS mean
  FROM sides d;
DROP TABLE IF EXISTS temp.xq_cop;
CREATE TEMP TABLE xq_cop AS  -- per side: self time by op (as the report's Top Device Ops)
SELECT 'b' AS side, name, count(*) AS n, sum(self_ps) AS self_ps FROM xplane_ops(@before)
 WHERE line_name <> 'Async XLA Ops' GROUP BY name
UNION ALL
SELECT 'a', name, count(*), sum(self_ps) FROM xplane_ops(@after) WHERE line_name <> 'Async XLA Ops' GROUP BY name;
-- the CPU backend (no device plane): the host events with an hlo_op stat, as the report
INSERT INTO xq_cop
SELECT side, name, count(*), sum(self_ps) FROM (
  SELECT 'b' AS side, coalesce(nullif(display_name, ''), name) AS name,
         xplane_self_ps(start_ps, dur_ps) OVER (PARTITION BY plane_index, line_index ORDER BY start_ps, event_index
                                                ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS self_ps
    FROM xplane_events(@before) WHERE plane_name LIKE '/host:%' AND dur_ps > 0 AND stats ->> 'hlo_op' IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM xq_cop WHERE side = 'b')
  UNION ALL
  SELECT 'a', coalesce(nullif(display_name, ''), name),
         xplane_self_ps(start_ps, dur_ps) OVER (PARTITION BY plane_index, line_index ORDER BY start_ps, event_index
                                                ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)
    FROM xplane_events(@after) WHERE plane_name LIKE '/host:%' AND dur_ps > 0 AND stats ->> 'hlo_op' IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM xq_cop WHERE side = 'a'))
 GROUP BY side, name;
DROP TABLE IF EXISTS temp.xq_cchg;
CREATE TEMP TABLE xq_cchg AS
SELECT n.name, b.self_ps AS bps, a.self_ps AS aps, b.n AS bn, a.n AS an,
       coalesce(a.self_ps, 0) - coalesce(b.self_ps, 0) AS delta,
       row_number() OVER (ORDER BY abs(coalesce(a.self_ps, 0) - coalesce(b.self_ps, 0)) DESC, n.name) AS r
  FROM (SELECT DISTINCT name FROM xq_cop) n
  LEFT JOIN xq_cop b ON b.side = 'b' AND b.name = n.name
  LEFT JOIN xq_cop a ON a.side = 'a' AND a.name = n.name;

