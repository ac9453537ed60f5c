-- rule_cases.sql: hand-written inputs for the rule functions, one case per
-- branch of the C rules (sqlite_ext/semantics.c) that the real profiles may
-- not reach. tests/golden/perfetto/package_compare.sql evaluates them with
-- the extension's functions and the package's and compares the outputs.

-- xplane_scope_path(tf_op, name): wrappers, noise, dynamic_donated, the
-- name fallbacks.
CREATE TEMP TABLE rule_scope_case(tf_op, name);
INSERT INTO rule_scope_case VALUES
  ('jit(train_step)/jvp(model)/layer_0/attn/dot_general', 'fusion.1'),
  ('jit(train_step)/transpose(jvp(model))/layer_0/mlp', 'fusion.3'),
  ('jit(train_step)/shard_map/pallas_call/XlaLaunch', 'fusion.4'),
  ('  jit( f )  /  :scope: / ', 'n.1'),
  ('jit()/a', 'n'),
  ('jit/vmap/b', 'n'),
  ('jit (f)/_jit(x)/foo(bar)', 'n'),
  (':jit(x):/jit(y)::/checkpoint(remat(named_call(h)))', 'n'),
  ('jit(a' || char(10) || 'b)/c', 'n'),
  ('jit(jit(g))', 'n'),
  ('dynamic_donated.foo/dynamic_donated_args.x.y/dynamic_donated./dynamic_donatedx', 'n'),
  ('XLA Ops/xla_modules/pjrt_client/Stream Executor/TPU_launch/thunk-x/my runtime/execute', 'a=>b=>c'),
  ('xla-ops/ XLA  TraceMe /Xla_Trace_Me/command-buffer/__call__/--/Shard Map', 'ns::op:: x '),
  ('', 'a=>  =>b'),
  (NULL, 'ns::op::x'),
  (NULL, 'a::b=>c'),
  (NULL, 'xla=>launch'),
  (NULL, '%fusion.12'),
  (NULL, '  add.3  '),
  (NULL, ''),
  (NULL, '=>'),
  ('///', 'name.5'),
  ('jit(f)/a=>b/c', 'n'),
  ('2x/__/-/' || char(195, 188) || '/' || char(220) || 'nicode', 'n'),
  ('x / y', 'n'),
  ('vmap(jvp(transpose(pjit(z))))', 'n');

-- xplane_shape_signature(long_name): tuple, single output, anywhere.
CREATE TEMP TABLE rule_shape_case(long_name);
INSERT INTO rule_shape_case VALUES
  ('%fusion = (f32[8,128]{1,0}, bf16[4]) fusion(f32[2] %p), kind=kLoop'),
  ('%x = f32[8,128]{1,0} add(f32[8,128] %a, f32[8,128] %b)'),
  ('ROOT %t = (s32[], u8[3,4]) tuple(s32[] %a, u8[3,4] %b)'),
  ('%y = token[] after-all()'),
  ('%z = foo[1,2] bar(bf16[3])'),
  ('no equals f32[1] F32[2] Bf16[3] pred[4] u32[5] s8[6] u8[7] f16[8] s32[9] f32[10]'),
  ('a = ( f32[ 1 , , 2 ] ) op.x-y(z)'),
  ('a = (f32[1]) (f32[2]) op(z)'),
  ('x = (f32[1]'),
  ('bf16[8]f32[4] xbf16[2] f32[1'),
  ('f32[]f32[3] bf16[]'),
  ('f32[a[b] s8[ ]'),
  ('= f32[2] = (f32[3]) op('),
  ('=' || char(9) || '(pred[2,' || char(10) || '3]) ' || char(9) || 'op_1(x)'),
  ('%u = (f32[7], ' || char(195, 188) || ' bf16[9]) f(x)'),
  ('');

-- xplane_semantic_family(text): every family and the word rules.
CREATE TEMP TABLE rule_family_case(s);
INSERT INTO rule_family_case VALUES
  ('muon_update'), ('AdamW'), ('optimizer_update'), ('Expert'), ('splash_attention'), ('fa4_cute'),
  ('CausalSelfAttention'), ('densemlp'), ('RMSNorm'), ('jit\silu\'), ('xent'), ('fusion.3'), ('my_fusion.3'),
  ('x.fusion.2'), ('exponential_reduce_fusion'), ('copy'), ('copy.1'), ('copy-start'), ('xcopy'), ('copy_x'),
  ('copy' || char(10)), ('copy' || char(10) || 'x'), ('a copy'), ('convert_element_type'), ('all-reduce'),
  ('NCCL'), ('other'), ('');

-- xplane_flop_proxy(family, signature) (each with every family of
-- package_compare.sql): ranks, signs, caps, overflow.
CREATE TEMP TABLE rule_flop_case(sig);
INSERT INTO rule_flop_case VALUES
  ('8,128|4'), ('2,16,1024,64|2,16,1024,64|2,16,1024,128'), ('2,8,128,64|2,8,128,32|3'), ('-3,4'), ('0,5|7'),
  ('8,128,<=9'), ('1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17'), ('|'), (''), ('abc'), ('4096,4096|4096,4096'),
  ('1000000,1000000,1000000'), ('100000,100000,100000,100000'), ('5--3'), ('-1,-2,-3,-4|1,2,3,-4'),
  ('1,2|3,4|5,6|7,8|9,10|11,12|13,14|15,16|17,18|19,20|21,22|23,24|25,26|27,28|29,30|31,32|33,34|35,36|37,38|'
   || '39,40|41,42|43,44|45,46|47,48|49,50|51,52|53,54|55,56|57,58|59,60|61,62|63,64|65,66|67,68|69,70|71,72|'
   || '73,74|75,76|77,78|79,80|81,82|83,84|85,86|87,88|89,90|91,92|93,94|95,96|97,98|99,100|101,102|103,104|'
   || '105,106|107,108|109,110|111,112|113,114|115,116|117,118|119,120|121,122|123,124|125,126|127,128|'
   || '129,130|131,132|1000,1000');
