-- semantics.sql: the naming and classification rules of shared/spec/analysis.md,
-- one hand-checked case per rule (and per edge the reference implementation
-- defines), through the SQL functions that serve the tables too.
.load @EXT@
.mode list
.headers off
.separator ' | '

-- Canonical name: strip white space and every leading '%', drop ONE trailing ".<digits>".
SELECT 'canonical', xplane_canonical_name('fusion.12'), xplane_canonical_name('  %%copy.3 '),
       xplane_canonical_name('a.1.2'), xplane_canonical_name('all-reduce'), xplane_canonical_name('x.'),
       xplane_canonical_name('.5'), xplane_canonical_name(NULL);

-- Stall: case-insensitive substring of wait|barrier|dependency-wait|donation holds|semaphore|acquire|idle|blocked|sleep.
SELECT 'stall', xplane_is_stall('AwaitReady'), xplane_is_stall('SemaphoreSignal'), xplane_is_stall('fusion'),
       xplane_is_stall('Donation Holds'), xplane_is_stall('sleeping');
-- Communication: lower-cased substring of the collective keywords ("send" matches "sender").
SELECT 'comm', xplane_is_communication('ALL-REDUCE.1'), xplane_is_communication('ncclDevKernel_AllGather'),
       xplane_is_communication('psum'), xplane_is_communication('fusion.3'), xplane_is_communication('sender');

-- Event category: stall (name) -> host (plane) -> communication (name) -> compute (device plane) -> other.
SELECT 'event_category', xplane_event_category('/host:CPU', 'all-reduce'),
       xplane_event_category('/host:CPU', 'wait_for_x'), xplane_event_category('/device:GPU:0', 'all-reduce'),
       xplane_event_category('/device:TPU:0', 'fusion'), xplane_event_category('Task Environment', 'x'),
       xplane_event_category('/device:GPU:0', 'all-reduce-wait');
-- Op category: stall -> communication -> compute.
SELECT 'op_category', xplane_op_category('all-gather-start'), xplane_op_category('barrier'),
       xplane_op_category('convolution.4');

-- Collective kind: first match on the lower-cased name.
SELECT 'kind', xplane_collective_kind('AllReduce'), xplane_collective_kind('psum_scatter'),
       xplane_collective_kind('all_gather'), xplane_collective_kind('reduce-scatter.2'),
       xplane_collective_kind('all-to-all'), xplane_collective_kind('collective-permute-done'),
       xplane_collective_kind('async-collective-start'), xplane_collective_kind('recv-done'),
       xplane_collective_kind('ncclKernel');

-- Marker-like (pre-op gap markers): canonical name in the set, or copy-start / copy-done prefixes.
SELECT 'marker', xplane_marker_like('iota.3'), xplane_marker_like('%constant.12'),
       xplane_marker_like('get-tuple-element.7'), xplane_marker_like('copy-start.2'),
       xplane_marker_like('copy-done'), xplane_marker_like('copy.1'), xplane_marker_like('fusion.1'),
       xplane_marker_like('IOTA');

-- Scope path from tf_op: split on '/', unwrap jit(...) & co., drop runtime noise.
SELECT 'scope', xplane_scope_path('jit(train_step)/jvp(model)/layer_0/attn/dot_general', 'dot.1');
SELECT 'scope', xplane_scope_path('jit(_train_step)/shard_map/apply_rotary_embedding/pallas_call', 'x');
SELECT 'scope', xplane_scope_path('jit(f)/transpose(jvp(model))/mlp/:dot:', 'x');
SELECT 'scope', xplane_scope_path('dynamic_donated[1][0].model.params.w_k:', 'copy.564');
SELECT 'scope', xplane_scope_path('jit()/xla_ops/PjRt_Execute/TPU_launch/thunk_run/a', 'x');
SELECT 'scope', xplane_scope_path('remat(checkpoint(layer_1))/foo(bar)', 'x');
-- no usable tf_op: the name split on "=>" (first) or "::", else the canonical name (the fallback).
SELECT 'scope', xplane_scope_path('', 'train_step=>forward=>matmul'), xplane_scope_path(NULL, 'ns::op::x'),
       xplane_scope_path('jit/xla', 'fusion.12');
SELECT 'scope_depth', xplane_scope_path('a/b/c/d/e', 'x', 2), xplane_scope_path('a/b/c/d/e', 'x', 0);

-- Shape signature: output tuple `= (...) op(`, else the single output `= t[..]`, else the first 8 anywhere.
SELECT 'shape', xplane_shape_signature('%fusion.1 = (bf16[8,128]{1,0}, f32[4]{0}) fusion(f32[2,2] %p), kind=kLoop');
SELECT 'shape', xplane_shape_signature('%dot.3 = f32[ 64, 32 ]{1,0} dot(f32[64,16] %a, f32[16,32] %b)');
SELECT 'shape', xplane_shape_signature('kernel on s8[3] and PRED[2,2] and f64[9]');
SELECT 'shape', coalesce(xplane_shape_signature('%t = (f64[2]) tuple(f64[2] %a)'), 'NULL'),
       coalesce(xplane_shape_signature('no shapes'), 'NULL'), coalesce(xplane_shape_signature('f32[]'), 'NULL');

-- FLOP proxy: attention 2*b*h*s*s*(d_qk+d_v) from rank-4 shapes; xent 2*rows*cols; else the largest element count.
SELECT 'flops', xplane_flop_proxy('attention_flash', '2,8,128,64|2,8,128,32'),
       xplane_flop_proxy('loss_xent', '16,1000|16'), xplane_flop_proxy('other', '8,128|4,4,4'),
       coalesce(xplane_flop_proxy('other', '0,5'), 'NULL'), xplane_flop_proxy('attention_dense', '8,128');

-- Semantic family: first matching rule, case-insensitive, on the canonical name (+ path).
SELECT 'family', xplane_semantic_family('newton_schulz_step'), xplane_semantic_family('adamw_update'),
       xplane_semantic_family('ragged-all-to-all'), xplane_semantic_family('splash_mha_fwd'),
       xplane_semantic_family('x flash_attention'), xplane_semantic_family('CausalSelfAttention'),
       xplane_semantic_family('densemlp'), xplane_semantic_family('rmsnorm'),
       xplane_semantic_family('softmax_cross_entropy'), xplane_semantic_family('fusion.1'),
       xplane_semantic_family('fusion'), xplane_semantic_family('loop_fusion.3'),
       xplane_semantic_family('copy'), xplane_semantic_family('copy-start'),
       xplane_semantic_family('copy train=>x'), xplane_semantic_family('convert_element_type'),
       xplane_semantic_family('all-gather'), xplane_semantic_family('dot'),
       xplane_semantic_family('jit(silu)'), xplane_semantic_family('jit\silu\');
