-- package_cases_query.sql: the package's tables on package_cases.json, as
-- checked by hand into package_cases.txt (tests/test_perfetto.sh), e.g.:
-- - steps from `train` annotations (step_num 0, "1_0" -> 10, "abc" with
--   step 12 -> 12, 3.7 -> 3, "x" -> none, duplicate step_num keys: the last,
--   "x", so step 13; "1__0" is not an integer: step 14), one row per device
--   with ops (GPU:0, GPU:1; TPU:0 has none);
-- - an op belongs to the step of its launch (the host event with its
--   correlation_id): fusion.1 op 1 runs at 105 us but was launched at 20 us:
--   step 0; kernel_a runs at 12 us, launched at 150 us: step 10; the instant
--   launch at 290 us puts semaphore-wait.4 in step 12; dot.5 (no launch)
--   by its own start 302 us: step 3; ops after 400 us: none;
-- - idle = step - compute - communication - stall, at least 0 (step 0 of
--   GPU:0 has 140 us of ops in 100 us: 0);
-- - regions: XlaModule defers to the name stat (step=>psum), the last of two
--   tf_op stats (b=>second), a part holding `=>` (f=>a=>b, exclusive at 3
--   parts), r=>a pruned at 1 ps from its only child, the all-noise name
--   xla=>launch falling back to its canonical name (region xla);
-- - op names: the most frequent signature of fusion.1 (8,128|4, 2 of 3),
--   FLOP proxy 2 * 1024 + 64 = 2112; hints with first_seen positions.
INCLUDE PERFETTO MODULE xplane.ops;
INCLUDE PERFETTO MODULE xplane.scopes;
INCLUDE PERFETTO MODULE xplane.aggregates;
SELECT 'step', plane_name, step, start_ps, dur_ps, n_ops, compute_ps, communication_ps, stall_ps, idle_ps
FROM xplane_steps ORDER BY step, plane_name;
SELECT 'op', op_id, name, step, tf_op, scope_path, shape_signature, long_name FROM xplane_ops ORDER BY op_id;
SELECT 'scope', * FROM xplane_scopes;
SELECT 'hint', * FROM xplane_hints;
SELECT 'op_name', name, count, shape_signature, source_file, tf_op, flop_proxy_sum, flop_proxy_count, first_op_id
FROM xplane_op_names;
