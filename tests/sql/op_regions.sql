-- op_regions.sql: xplane_op_regions (the summary's device_op_region_aggregates)
-- on a hand-made trace whose answer is worked out below, by hand.
--
-- Trace (JSON, times in us; the extension reads it as an XSpace):
--   host /host:CPU, thread main:    W1 "outer"  tf_op jit(train)/model  [0, 100]   path train=>model, depth 2
--                                   W2 "A::B"                            [10, 30]   path A=>B, depth 2, dur 20
--                                   W5 "x"      tf_op jit(train)/model/layer [50, 60] depth 3
--                                   W4 "plain"                           [0, 1000]  fallback path: no window
--   host thread worker:             W3 "C::D"                            [10, 30]   path C=>D, depth 2, dur 20
--   device /device:GPU:0, "XLA Modules": W6 "jit_step(1)" tf_op jit(step)/outer [88, 200] path step=>outer
--   device "Steps":                 "1" [0, 200]  fallback path ("1"): no window
--   device "Stream #1" (the ops):   op5 all-reduce.3 [0, 4]     mid 2   -> W1 only: train=>model
--                                   op1 fusion.1     [12, 16]   mid 14  -> W1, W2, W3: depth 2 all; W2 and W3
--                                                                          20 us < 100: tie on (depth, dur),
--                                                                          the greater path wins: C=>D
--                                   op4 fusion.1     [20, 24]   mid 22  -> C=>D again
--                                   op6 copy.7       [45, 55]   mid 50  -> W5 opens at 50 (closed
--                                                                          interval): train=>model=>layer
--                                   op2 fusion.2     [50, 70]   mid 60  -> W5 ends at 60: still inside
--                                   op7 fusion.2     [52, 54]   mid 53  -> W5 (op7 nests in op2)
--                                   op3 fusion.1     [90, 130]  mid 110 -> W1 closed at 100; W6: step=>outer
--                                   op8 fusion.9     [300, 310] mid 305 -> no window: not counted
-- Exclusive time on the stream: op6 [45,55] is cut by op2 [50,70] (a partial
-- overlap, not a child): op6 10, op2 20 - 2 (op7) = 18, op7 2.
-- Expected rows (self desc, total desc, path, name):
--   step=>outer          fusion.1     1  total 40  self 40
--   train=>model=>layer  fusion.2     2  total 22  self 20
--   train=>model=>layer  copy.7       1  total 10  self 10
--   C=>D                 fusion.1     2  total  8  self  8  shape 8,128 (op1's and op4's 4 tie: first counted)
--   train=>model         all-reduce.3 1  total  4  self  4  communication
.load @EXT@
.mode list
.separator ' | '
SELECT writefile('@TMP@/op_regions.json', '{"traceEvents": [
 {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "/host:CPU"}},
 {"ph": "M", "name": "thread_name", "pid": 1, "tid": 10, "args": {"name": "main"}},
 {"ph": "M", "name": "thread_name", "pid": 1, "tid": 11, "args": {"name": "worker"}},
 {"ph": "M", "name": "process_name", "pid": 2, "args": {"name": "/device:GPU:0"}},
 {"ph": "M", "name": "thread_name", "pid": 2, "tid": 20, "args": {"name": "Stream #1"}},
 {"ph": "M", "name": "thread_name", "pid": 2, "tid": 21, "args": {"name": "Steps"}},
 {"ph": "M", "name": "thread_name", "pid": 2, "tid": 22, "args": {"name": "XLA Modules"}},
 {"ph": "X", "pid": 1, "tid": 10, "name": "plain", "ts": 0, "dur": 1000},
 {"ph": "X", "pid": 1, "tid": 10, "name": "outer", "ts": 0, "dur": 100, "args": {"tf_op": "jit(train)/model"}},
 {"ph": "X", "pid": 1, "tid": 10, "name": "A::B", "ts": 10, "dur": 20},
 {"ph": "X", "pid": 1, "tid": 10, "name": "x", "ts": 50, "dur": 10, "args": {"tf_op": "jit(train)/model/layer"}},
 {"ph": "X", "pid": 1, "tid": 11, "name": "C::D", "ts": 10, "dur": 20},
 {"ph": "X", "pid": 2, "tid": 21, "name": "1", "ts": 0, "dur": 200},
 {"ph": "X", "pid": 2, "tid": 22, "name": "jit_step(1)", "ts": 88, "dur": 112, "args": {"tf_op": "jit(step)/outer"}},
 {"ph": "X", "pid": 2, "tid": 20, "name": "all-reduce.3", "ts": 0, "dur": 4},
 {"ph": "X", "pid": 2, "tid": 20, "name": "fusion.1", "ts": 12, "dur": 4, "args": {"long_name": "%fusion.1 = f32[8,128]{1,0} fusion(f32[8,128] %p)"}},
 {"ph": "X", "pid": 2, "tid": 20, "name": "fusion.1", "ts": 20, "dur": 4, "args": {"long_name": "%fusion.1 = bf16[4]{0} fusion(bf16[4] %p)"}},
 {"ph": "X", "pid": 2, "tid": 20, "name": "copy.7", "ts": 45, "dur": 10},
 {"ph": "X", "pid": 2, "tid": 20, "name": "fusion.2", "ts": 50, "dur": 20},
 {"ph": "X", "pid": 2, "tid": 20, "name": "fusion.2", "ts": 52, "dur": 2},
 {"ph": "X", "pid": 2, "tid": 20, "name": "fusion.1", "ts": 90, "dur": 40},
 {"ph": "X", "pid": 2, "tid": 20, "name": "fusion.9", "ts": 300, "dur": 10}
]}') > 0 AS written;
SELECT region_path, depth, name, canonical_name, category, count, total_ps, self_ps, shape_signature
  FROM xplane_op_regions('@TMP@/op_regions.json');
-- The hand-derived rows, compared as a set (0 rows missing, 0 extra).
CREATE TEMP TABLE want(region_path, name, count, total_ps, self_ps, shape_signature);
INSERT INTO want VALUES
  ('step=>outer', 'fusion.1', 1, 40000000, 40000000, NULL),
  ('train=>model=>layer', 'fusion.2', 2, 22000000, 20000000, NULL),
  ('train=>model=>layer', 'copy.7', 1, 10000000, 10000000, NULL),
  ('C=>D', 'fusion.1', 2, 8000000, 8000000, '8,128'),
  ('train=>model', 'all-reduce.3', 1, 4000000, 4000000, NULL);
SELECT (SELECT count(*) FROM (SELECT * FROM want EXCEPT SELECT region_path, name, count, total_ps, self_ps,
          shape_signature FROM xplane_op_regions('@TMP@/op_regions.json'))) AS missing,
       (SELECT count(*) FROM (SELECT region_path, name, count, total_ps, self_ps, shape_signature
          FROM xplane_op_regions('@TMP@/op_regions.json') EXCEPT SELECT * FROM want)) AS extra;
-- A profile without region windows has no rows (not an error).
SELECT writefile('@TMP@/no_windows.json', '{"traceEvents": [
 {"ph": "M", "name": "process_name", "pid": 2, "args": {"name": "/device:GPU:0"}},
 {"ph": "M", "name": "thread_name", "pid": 2, "tid": 20, "args": {"name": "Stream #1"}},
 {"ph": "X", "pid": 2, "tid": 20, "name": "fusion.1", "ts": 0, "dur": 4}]}') > 0 AS written;
SELECT count(*) AS rows FROM xplane_op_regions('@TMP@/no_windows.json');
