-- semantics.sql: the naming and classification rules of docs/ANALYSIS.md, one
-- hand-checked case per rule (and per edge the reference implementation
-- defines), through the SQL functions that serve the tables too.
-- Self-checking: each row holds the call and the value expected of it, worked
-- out by hand from the rule in the comment above it; the output (and
-- semantics.expected) is one "ok" line per case, or FAIL with both values.
.load @EXT@
.mode list
.headers off
CREATE TEMP TABLE checks(name TEXT, got, want);

-- Canonical name: strip white space and every leading '%', drop ONE trailing ".<digits>".
INSERT INTO temp.checks VALUES
  ('canonical: xplane_canonical_name(''fusion.12'')', xplane_canonical_name('fusion.12'), 'fusion'),
  ('canonical: xplane_canonical_name('' %%copy.3 '')', xplane_canonical_name(' %%copy.3 '), 'copy'),
  ('canonical: xplane_canonical_name(''a.1.2'')', xplane_canonical_name('a.1.2'), 'a.1'),
  ('canonical: xplane_canonical_name(''all-reduce'')', xplane_canonical_name('all-reduce'), 'all-reduce'),
  ('canonical: xplane_canonical_name(''x.'')', xplane_canonical_name('x.'), 'x.'),
  ('canonical: xplane_canonical_name(''.5'')', xplane_canonical_name('.5'), ''),
  ('canonical: xplane_canonical_name(NULL)', xplane_canonical_name(NULL), '');

-- Stall: case-insensitive substring of wait|barrier|dependency-wait|donation holds|semaphore|acquire|idle|blocked|sleep.
INSERT INTO temp.checks VALUES
  ('stall: xplane_is_stall(''AwaitReady'')', xplane_is_stall('AwaitReady'), 1),
  ('stall: xplane_is_stall(''SemaphoreSignal'')', xplane_is_stall('SemaphoreSignal'), 1),
  ('stall: xplane_is_stall(''fusion'')', xplane_is_stall('fusion'), 0),
  ('stall: xplane_is_stall(''Donation Holds'')', xplane_is_stall('Donation Holds'), 1),
  ('stall: xplane_is_stall(''sleeping'')', xplane_is_stall('sleeping'), 1);
-- Communication: lower-cased substring of the collective keywords ("send" matches "sender").
INSERT INTO temp.checks VALUES
  ('comm: xplane_is_communication(''ALL-REDUCE.1'')', xplane_is_communication('ALL-REDUCE.1'), 1),
  ('comm: xplane_is_communication(''ncclDevKernel_AllGather'')', xplane_is_communication('ncclDevKernel_AllGather'), 1),
  ('comm: xplane_is_communication(''psum'')', xplane_is_communication('psum'), 1),
  ('comm: xplane_is_communication(''fusion.3'')', xplane_is_communication('fusion.3'), 0),
  ('comm: xplane_is_communication(''sender'')', xplane_is_communication('sender'), 1);

-- Event category: stall (name) -> host (plane) -> communication (name) -> compute (device plane) -> other.
INSERT INTO temp.checks VALUES
  ('event_category: xplane_event_category(''/host:CPU'', ''all-reduce'')', xplane_event_category('/host:CPU', 'all-reduce'), 'host'),
  ('event_category: xplane_event_category(''/host:CPU'', ''wait_for_x'')', xplane_event_category('/host:CPU', 'wait_for_x'), 'stall'),
  ('event_category: xplane_event_category(''/device:GPU:0'', ''all-reduce'')', xplane_event_category('/device:GPU:0', 'all-reduce'), 'communication'),
  ('event_category: xplane_event_category(''/device:TPU:0'', ''fusion'')', xplane_event_category('/device:TPU:0', 'fusion'), 'compute'),
  ('event_category: xplane_event_category(''Task Environment'', ''x'')', xplane_event_category('Task Environment', 'x'), 'other'),
  ('event_category: xplane_event_category(''/device:GPU:0'', ''all-reduce-wait'')', xplane_event_category('/device:GPU:0', 'all-reduce-wait'), 'stall');
-- Op category: stall -> communication -> compute.
INSERT INTO temp.checks VALUES
  ('op_category: xplane_op_category(''all-gather-start'')', xplane_op_category('all-gather-start'), 'communication'),
  ('op_category: xplane_op_category(''barrier'')', xplane_op_category('barrier'), 'stall'),
  ('op_category: xplane_op_category(''convolution.4'')', xplane_op_category('convolution.4'), 'compute');

-- Collective kind: first match on the lower-cased name.
INSERT INTO temp.checks VALUES
  ('kind: xplane_collective_kind(''AllReduce'')', xplane_collective_kind('AllReduce'), 'all-reduce'),
  ('kind: xplane_collective_kind(''psum_scatter'')', xplane_collective_kind('psum_scatter'), 'all-reduce'),
  ('kind: xplane_collective_kind(''all_gather'')', xplane_collective_kind('all_gather'), 'all-gather'),
  ('kind: xplane_collective_kind(''reduce-scatter.2'')', xplane_collective_kind('reduce-scatter.2'), 'reduce-scatter'),
  ('kind: xplane_collective_kind(''all-to-all'')', xplane_collective_kind('all-to-all'), 'all-to-all'),
  ('kind: xplane_collective_kind(''collective-permute-done'')', xplane_collective_kind('collective-permute-done'), 'collective-permute'),
  ('kind: xplane_collective_kind(''async-collective-start'')', xplane_collective_kind('async-collective-start'), 'async-collective'),
  ('kind: xplane_collective_kind(''recv-done'')', xplane_collective_kind('recv-done'), 'send-recv'),
  ('kind: xplane_collective_kind(''ncclKernel'')', xplane_collective_kind('ncclKernel'), 'other-collective');

-- Marker-like (pre-op gap markers): canonical name in the set, or copy-start / copy-done prefixes.
INSERT INTO temp.checks VALUES
  ('marker: xplane_marker_like(''iota.3'')', xplane_marker_like('iota.3'), 1),
  ('marker: xplane_marker_like(''%constant.12'')', xplane_marker_like('%constant.12'), 1),
  ('marker: xplane_marker_like(''get-tuple-element.7'')', xplane_marker_like('get-tuple-element.7'), 1),
  ('marker: xplane_marker_like(''copy-start.2'')', xplane_marker_like('copy-start.2'), 1),
  ('marker: xplane_marker_like(''copy-done'')', xplane_marker_like('copy-done'), 1),
  ('marker: xplane_marker_like(''copy.1'')', xplane_marker_like('copy.1'), 0),
  ('marker: xplane_marker_like(''fusion.1'')', xplane_marker_like('fusion.1'), 0),
  ('marker: xplane_marker_like(''IOTA'')', xplane_marker_like('IOTA'), 1);

-- Scope path from tf_op: split on '/', unwrap jit(...) & co., drop runtime noise.
INSERT INTO temp.checks VALUES
  ('scope: xplane_scope_path(''jit(train_step)/jvp(model)/layer_0/attn/dot_general'', ''dot.1'')', xplane_scope_path('jit(train_step)/jvp(model)/layer_0/attn/dot_general', 'dot.1'), 'train_step=>model=>layer_0=>attn=>dot_general');
INSERT INTO temp.checks VALUES
  ('scope: xplane_scope_path(''jit(_train_step)/shard_map/apply_rotary_embedding/pallas_call'', ''x'')', xplane_scope_path('jit(_train_step)/shard_map/apply_rotary_embedding/pallas_call', 'x'), '_train_step=>apply_rotary_embedding');
INSERT INTO temp.checks VALUES
  ('scope: xplane_scope_path(''jit(f)/transpose(jvp(model))/mlp/:dot:'', ''x'')', xplane_scope_path('jit(f)/transpose(jvp(model))/mlp/:dot:', 'x'), 'f=>model=>mlp=>dot');
INSERT INTO temp.checks VALUES
  ('scope: xplane_scope_path(''dynamic_donated[1][0].model.params.w_k:'', ''copy.564'')', xplane_scope_path('dynamic_donated[1][0].model.params.w_k:', 'copy.564'), 'model.params.w_k');
INSERT INTO temp.checks VALUES
  ('scope: xplane_scope_path(''jit()/xla_ops/PjRt_Execute/TPU_launch/thunk_run/a'', ''x'')', xplane_scope_path('jit()/xla_ops/PjRt_Execute/TPU_launch/thunk_run/a', 'x'), 'a');
INSERT INTO temp.checks VALUES
  ('scope: xplane_scope_path(''remat(checkpoint(layer_1))/foo(bar)'', ''x'')', xplane_scope_path('remat(checkpoint(layer_1))/foo(bar)', 'x'), 'layer_1=>foo(bar)');
-- no usable tf_op: the name split on "=>" (first) or "::", else the canonical name (the fallback).
INSERT INTO temp.checks VALUES
  ('scope: xplane_scope_path('''', ''train_step=>forward=>matmul'')', xplane_scope_path('', 'train_step=>forward=>matmul'), 'train_step=>forward=>matmul'),
  ('scope: xplane_scope_path(NULL, ''ns::op::x'')', xplane_scope_path(NULL, 'ns::op::x'), 'ns=>op=>x'),
  ('scope: xplane_scope_path(''jit/xla'', ''fusion.12'')', xplane_scope_path('jit/xla', 'fusion.12'), 'fusion');
INSERT INTO temp.checks VALUES
  ('scope_depth: xplane_scope_path(''a/b/c/d/e'', ''x'', 2)', xplane_scope_path('a/b/c/d/e', 'x', 2), 'a=>b'),
  ('scope_depth: xplane_scope_path(''a/b/c/d/e'', ''x'', 0)', xplane_scope_path('a/b/c/d/e', 'x', 0), 'a=>b=>c=>d=>e');

-- Shape signature: output tuple `= (...) op(`, else the single output `= t[..]`, else the first 8 anywhere.
INSERT INTO temp.checks VALUES
  ('shape: xplane_shape_signature(''%fusion.1 = (bf16[8,128]{1,0}, f32[4]{0}) fusion(f32[2,2] %p), kind=kLoop'')', xplane_shape_signature('%fusion.1 = (bf16[8,128]{1,0}, f32[4]{0}) fusion(f32[2,2] %p), kind=kLoop'), '8,128|4');
INSERT INTO temp.checks VALUES
  ('shape: xplane_shape_signature(''%dot.3 = f32[ 64, 32 ]{1,0} dot(f32[64,16] %a, f32[16,32] %b)'')', xplane_shape_signature('%dot.3 = f32[ 64, 32 ]{1,0} dot(f32[64,16] %a, f32[16,32] %b)'), '64,32');
INSERT INTO temp.checks VALUES
  ('shape: xplane_shape_signature(''kernel on s8[3] and PRED[2,2] and f64[9]'')', xplane_shape_signature('kernel on s8[3] and PRED[2,2] and f64[9]'), '3|2,2');
INSERT INTO temp.checks VALUES
  ('shape: coalesce(xplane_shape_signature(''%t = (f64[2]) tuple(f64[2] %a)''), ''NULL'')', coalesce(xplane_shape_signature('%t = (f64[2]) tuple(f64[2] %a)'), 'NULL'), 'NULL'),
  ('shape: coalesce(xplane_shape_signature(''no shapes''), ''NULL'')', coalesce(xplane_shape_signature('no shapes'), 'NULL'), 'NULL'),
  ('shape: coalesce(xplane_shape_signature(''f32[]''), ''NULL'')', coalesce(xplane_shape_signature('f32[]'), 'NULL'), 'NULL');

-- FLOP proxy: attention 2*b*h*s*s*(d_qk+d_v) from rank-4 shapes; xent 2*rows*cols; else the largest element count.
INSERT INTO temp.checks VALUES
  ('flops: xplane_flop_proxy(''attention_flash'', ''2,8,128,64|2,8,128,32'')', xplane_flop_proxy('attention_flash', '2,8,128,64|2,8,128,32'), 50331648.0),
  ('flops: xplane_flop_proxy(''loss_xent'', ''16,1000|16'')', xplane_flop_proxy('loss_xent', '16,1000|16'), 32000.0),
  ('flops: xplane_flop_proxy(''other'', ''8,128|4,4,4'')', xplane_flop_proxy('other', '8,128|4,4,4'), 1024.0),
  ('flops: coalesce(xplane_flop_proxy(''other'', ''0,5''), ''NULL'')', coalesce(xplane_flop_proxy('other', '0,5'), 'NULL'), 'NULL'),
  ('flops: xplane_flop_proxy(''attention_dense'', ''8,128'')', xplane_flop_proxy('attention_dense', '8,128'), 1024.0);

-- Semantic family: first matching rule, case-insensitive, on the canonical name (+ path).
INSERT INTO temp.checks VALUES
  ('family: xplane_semantic_family(''newton_schulz_step'')', xplane_semantic_family('newton_schulz_step'), 'optimizer_muon'),
  ('family: xplane_semantic_family(''adamw_update'')', xplane_semantic_family('adamw_update'), 'optimizer_adam'),
  ('family: xplane_semantic_family(''ragged-all-to-all'')', xplane_semantic_family('ragged-all-to-all'), 'moe'),
  ('family: xplane_semantic_family(''splash_mha_fwd'')', xplane_semantic_family('splash_mha_fwd'), 'attention_splash'),
  ('family: xplane_semantic_family(''x flash_attention'')', xplane_semantic_family('x flash_attention'), 'attention_flash'),
  ('family: xplane_semantic_family(''CausalSelfAttention'')', xplane_semantic_family('CausalSelfAttention'), 'attention_dense'),
  ('family: xplane_semantic_family(''densemlp'')', xplane_semantic_family('densemlp'), 'dense_mlp'),
  ('family: xplane_semantic_family(''rmsnorm'')', xplane_semantic_family('rmsnorm'), 'norm_gating'),
  ('family: xplane_semantic_family(''softmax_cross_entropy'')', xplane_semantic_family('softmax_cross_entropy'), 'loss_xent'),
  ('family: xplane_semantic_family(''fusion.1'')', xplane_semantic_family('fusion.1'), 'fusion'),
  ('family: xplane_semantic_family(''fusion'')', xplane_semantic_family('fusion'), 'other'),
  ('family: xplane_semantic_family(''loop_fusion.3'')', xplane_semantic_family('loop_fusion.3'), 'other'),
  ('family: xplane_semantic_family(''copy'')', xplane_semantic_family('copy'), 'copy'),
  ('family: xplane_semantic_family(''copy-start'')', xplane_semantic_family('copy-start'), 'copy'),
  ('family: xplane_semantic_family(''copy train=>x'')', xplane_semantic_family('copy train=>x'), 'other'),
  ('family: xplane_semantic_family(''convert_element_type'')', xplane_semantic_family('convert_element_type'), 'convert'),
  ('family: xplane_semantic_family(''all-gather'')', xplane_semantic_family('all-gather'), 'collective'),
  ('family: xplane_semantic_family(''dot'')', xplane_semantic_family('dot'), 'other'),
  ('family: xplane_semantic_family(''jit(silu)'')', xplane_semantic_family('jit(silu)'), 'other'),
  ('family: xplane_semantic_family(''jit\silu\'')', xplane_semantic_family('jit\silu\'), 'norm_gating'),
  ('op family: xplane_op_family(''Stream #1'', ''Cijk_Ailk_Bljk_BBS_BH_MT256x224x64.kd'')', xplane_op_family('Stream #1', 'Cijk_Ailk_Bljk_BBS_BH_MT256x224x64.kd'), 'matmul'),
  ('op family: xplane_op_family('''', ''gemm_fusion_dot_general_1.kd'')', xplane_op_family('', 'gemm_fusion_dot_general_1.kd'), 'matmul'),
  ('op family: xplane_op_family('''', ''sm80_xmma_gemm_bf16bf16_bf16f32'')', xplane_op_family('', 'sm80_xmma_gemm_bf16bf16_bf16f32'), 'matmul'),
  ('op family: xplane_op_family('''', ''dot.3'')', xplane_op_family('', 'dot.3'), 'matmul'),
  ('op family: xplane_op_family('''', ''convert_add_fusion'')', xplane_op_family('', 'convert_add_fusion'), 'fusion'),
  ('op family: xplane_op_family('''', ''convolution.3'')', xplane_op_family('', 'convolution.3'), 'convolution'),
  ('op family: xplane_op_family('''', ''igemm_fwd_gtcx_nhwc_fp16'')', xplane_op_family('', 'igemm_fwd_gtcx_nhwc_fp16'), 'convolution'),
  ('op family: xplane_op_family('''', ''MemcpyHtoD'')', xplane_op_family('', 'MemcpyHtoD'), 'transfer'),
  ('op family: xplane_op_family(''Memcpy stream'', ''kernel_x'')', xplane_op_family('Memcpy stream', 'kernel_x'), 'transfer'),
  ('op family: xplane_op_family(''XLA Ops'', ''copy-start.1'')', xplane_op_family('XLA Ops', 'copy-start.1'), 'transfer'),
  ('op family: xplane_op_family('''', ''all-reduce.4'')', xplane_op_family('', 'all-reduce.4'), 'collective'),
  ('op family: xplane_op_family('''', ''flash_fwd_kernel'')', xplane_op_family('', 'flash_fwd_kernel'), 'attention'),
  ('op family: xplane_op_family('''', ''wrapped_broadcast.kd'')', xplane_op_family('', 'wrapped_broadcast.kd'), 'fusion'),
  ('op family: xplane_op_family('''', ''__amd_rocclr_copyBuffer.kd'')', xplane_op_family('', '__amd_rocclr_copyBuffer.kd'), 'transfer'),
  ('op family: xplane_op_family('''', ''custom-call.2'')', xplane_op_family('', 'custom-call.2'), 'other'),
  ('op family: xplane_op_family('''', ''Im3d2Col.kd'')', xplane_op_family('', 'Im3d2Col.kd'), 'convolution');

SELECT CASE WHEN got IS want THEN 'ok   ' ELSE 'FAIL ' END || name ||
       CASE WHEN got IS want THEN '' ELSE ' -> ' || quote(got) || ', expected ' || quote(want) END
  FROM temp.checks ORDER BY rowid;
