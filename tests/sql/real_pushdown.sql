-- real_pushdown.sql: on the directory of real profiles, each filter the
-- extension pushes down (plane, line, start_ps bounds with > >= < <= BETWEEN
-- and float bounds, file and host) returns the same rows as SQLite filtering
-- an unfiltered scan: `pushed` counts the filtered scan, `baseline` the same
-- WHERE over a MATERIALIZED CTE of every event (no push-down reaches it:
-- tests/sql/pushdown.sql shows its plan). The expected counts were computed
-- from `protoc --decode` dumps of the files by an independent script.
-- 1373002000 is the start of the gemm file's first GPU:0 kernel and
-- 5439011744500 that of the TPU file's first XLA Op, so the bounds fall
-- exactly on events.
.load @EXT@
WITH everything AS MATERIALIZED (
  SELECT host, file, plane_index, plane_name, line_index, line_name, start_ps
    FROM xplane_events('@DATA@'))
SELECT 'plane_name = ''/device:GPU:0''' AS filter,
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE plane_name = '/device:GPU:0') AS pushed,
       (SELECT count(*) FROM everything WHERE plane_name = '/device:GPU:0') AS baseline
UNION ALL SELECT 'plane_index = 1',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE plane_index = 1),
       (SELECT count(*) FROM everything WHERE plane_index = 1)
UNION ALL SELECT 'line_name = ''XLA Ops''',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE line_name = 'XLA Ops'),
       (SELECT count(*) FROM everything WHERE line_name = 'XLA Ops')
UNION ALL SELECT 'line_index = 0',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE line_index = 0),
       (SELECT count(*) FROM everything WHERE line_index = 0)
UNION ALL SELECT 'start_ps > 1373002000',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE start_ps > 1373002000),
       (SELECT count(*) FROM everything WHERE start_ps > 1373002000)
UNION ALL SELECT 'start_ps >= 1373002000',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE start_ps >= 1373002000),
       (SELECT count(*) FROM everything WHERE start_ps >= 1373002000)
UNION ALL SELECT 'start_ps < 1373002000',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE start_ps < 1373002000),
       (SELECT count(*) FROM everything WHERE start_ps < 1373002000)
UNION ALL SELECT 'start_ps <= 1373002000',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE start_ps <= 1373002000),
       (SELECT count(*) FROM everything WHERE start_ps <= 1373002000)
UNION ALL SELECT 'start_ps BETWEEN 1e12 AND 2e12',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE start_ps BETWEEN 1e12 AND 2e12),
       (SELECT count(*) FROM everything WHERE start_ps BETWEEN 1e12 AND 2e12)
UNION ALL SELECT 'start_ps > 5439011744500.5',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE start_ps > 5439011744500.5),
       (SELECT count(*) FROM everything WHERE start_ps > 5439011744500.5)
UNION ALL SELECT 'start_ps >= 5439011744500.0',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE start_ps >= 5439011744500.0),
       (SELECT count(*) FROM everything WHERE start_ps >= 5439011744500.0)
UNION ALL SELECT 'start_ps < 5439011744500.0',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE start_ps < 5439011744500.0),
       (SELECT count(*) FROM everything WHERE start_ps < 5439011744500.0)
UNION ALL SELECT 'host = ''tracelens_jax08_gemm''',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE host = 'tracelens_jax08_gemm'),
       (SELECT count(*) FROM everything WHERE host = 'tracelens_jax08_gemm')
UNION ALL SELECT 'file = ''@DATA@/gpu_mw.xplane.pb''',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE file = '@DATA@/gpu_mw.xplane.pb'),
       (SELECT count(*) FROM everything WHERE file = '@DATA@/gpu_mw.xplane.pb')
UNION ALL SELECT 'host = ''xprof_tpu_inference_2'' AND line_name = ''XLA Ops'' AND start_ps BETWEEN 5439011744500 AND 7495498089000',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE host = 'xprof_tpu_inference_2' AND line_name = 'XLA Ops' AND start_ps BETWEEN 5439011744500 AND 7495498089000),
       (SELECT count(*) FROM everything WHERE host = 'xprof_tpu_inference_2' AND line_name = 'XLA Ops' AND start_ps BETWEEN 5439011744500 AND 7495498089000)
UNION ALL SELECT 'plane_name = ''/device:TPU:0'' AND line_index = 1 AND start_ps < 5439011744500',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE plane_name = '/device:TPU:0' AND line_index = 1 AND start_ps < 5439011744500),
       (SELECT count(*) FROM everything WHERE plane_name = '/device:TPU:0' AND line_index = 1 AND start_ps < 5439011744500)
UNION ALL SELECT 'plane_name = ''/device:TPU:0'' AND line_index = 1 AND start_ps <= 5439011744500',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE plane_name = '/device:TPU:0' AND line_index = 1 AND start_ps <= 5439011744500),
       (SELECT count(*) FROM everything WHERE plane_name = '/device:TPU:0' AND line_index = 1 AND start_ps <= 5439011744500)
UNION ALL SELECT 'plane_index = 1 AND line_name = ''Stream #16(Kernel)''',
       (SELECT count(*) FROM xplane_events('@DATA@') WHERE plane_index = 1 AND line_name = 'Stream #16(Kernel)'),
       (SELECT count(*) FROM everything WHERE plane_index = 1 AND line_name = 'Stream #16(Kernel)');
