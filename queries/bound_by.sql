-- sqlite3-only: the package has the tables it reads (xplane.xprof), but the reals of its JSON print with the SQLite version's own digits (not through xplane_repr yet), so trace processor's bytes differ in the last digits
-- queries/bound_by.sql: "Is this profile memory-bound or compute-bound?"
--
-- Prints {"query_type": "bound_by", "flop_utilization": ..., "by_time": {...},
-- "results": [...]}: the device self time of the ops in each bound-by class
-- (compute, memory, unknown) of the roofline table (xplane_hlo_stats: FLOPs
-- and bytes against the device's ridge point), in microseconds and as shares,
-- and the first @top_k ops by self time with their bound-by, FLOP/s, bytes/s
-- and utilizations (queries/lib/xprof_json.sql, section roofline).
-- Parameters: @profile (required), @top_k (default 10).
--
--   sqlite3 -cmd '.load build/xplane' -cmd ".parameter set @profile host.xplane.pb" :memory: '.read queries/bound_by.sql'
.read queries/lib/checks.sql
.read queries/lib/params.sql
.read queries/lib/input.sql
.read queries/lib/use_profile.sql
.read queries/lib/xprof_json.sql
.mode list
.headers off
SELECT xplane_json_pretty(json_object(
  'query_type', 'bound_by',
  'flop_utilization', x.doc -> '$.flop_utilization',
  'by_time', json((SELECT json_group_object(bound_by, json_object('self_time_us', ps / 1e6, 'share', share))
                FROM (SELECT bound_by, sum(self_ps) AS ps, sum(share_of_device_self) AS share
                        FROM xplane_hlo_stats WHERE kind = 'op' GROUP BY bound_by ORDER BY bound_by))),
  'results', x.doc -> '$.roofline.ops')) AS document
  FROM xq_xprof x;
.read queries/lib/cleanup.sql
