-- xplane.semantics: the text rules of the analysis (docs/ANALYSIS.md:
-- hierarchical regions, shapes, semantic families, FLOP proxy) as
-- PerfettoSQL functions in plain SQL (recursive CTEs where the C rules of
-- core/semantics.c scan), with the extension's SQL functions' names
-- and results.
--
--   INCLUDE PERFETTO MODULE xplane.semantics;
--   SELECT xplane_scope_path('jit(train_step)/jvp(model)/dense', 'fusion.3');  -- 'train_step=>model=>dense'
--   SELECT xplane_shape_signature('%f = (f32[8,128]{1,0}, bf16[4]) fusion(...)');  -- '8,128|4'
--
-- Text is scanned by character where the C code scans bytes; every
-- delimiter and class is ASCII, so both agree on UTF-8 text. Case folding is
-- ASCII only on both engines. White space is space, tab, LF, CR, FF, VT.

INCLUDE PERFETTO MODULE xplane.rules;

-- Is this piece of a name-scope path runtime noise? Normalized (lower
-- case, runs of characters other than [a-z0-9_] to one `_`, `_` trimmed),
-- it is empty, or one of xla, xla_ops, xla_modules, xla_traceme,
-- xla_trace_me, pallas_call, shard_map, call, command_buffer, execute,
-- launch, tpu_launch, or starts with pjrt, xla_, tpu_, stream_executor, or
-- contains launch, execute, thunk or runtime.
CREATE PERFETTO FUNCTION _xplane_scope_noise(
  -- A path piece.
  piece STRING
)
RETURNS BOOL AS
WITH RECURSIVE
  walk(s, pos, out, in_run) AS (
    SELECT lower(trim($piece, char(32, 9, 10, 13, 12, 11))), 1, '', 0
    UNION ALL
    SELECT
      s,
      pos + 1,
      CASE
        WHEN substr(s, pos, 1) GLOB '[a-z0-9_]' THEN out || substr(s, pos, 1)
        WHEN in_run THEN out
        ELSE out || '_'
      END,
      NOT substr(s, pos, 1) GLOB '[a-z0-9_]'
    FROM walk
    WHERE pos <= length(s)
  ),
  norm(n) AS (SELECT trim(out, '_') FROM walk WHERE pos = length(s) + 1)
SELECT
  n = ''
  OR n IN ('xla', 'xla_ops', 'xla_modules', 'xla_traceme', 'xla_trace_me', 'pallas_call', 'shard_map', 'call',
           'command_buffer', 'execute', 'launch', 'tpu_launch')
  OR n GLOB 'pjrt*' OR n GLOB 'xla_*' OR n GLOB 'tpu_*' OR n GLOB 'stream_executor*'
  OR instr(n, 'launch') > 0 OR instr(n, 'execute') > 0 OR instr(n, 'thunk') > 0 OR instr(n, 'runtime') > 0
FROM norm;

-- One unwrapping step of a name-scope piece: for `w(inner)` where w is a
-- word ([A-Za-z_][A-Za-z0-9_]*) among jit, jvp, transpose, vmap, pjit,
-- named_call, remat, checkpoint and inner has no newline, inner trimmed;
-- else NULL.
CREATE PERFETTO FUNCTION _xplane_unwrap(
  -- A piece, stripped.
  x STRING
)
RETURNS STRING AS
SELECT
  CASE
    WHEN k > 1 AND substr($x, 1, 1) GLOB '[A-Za-z_]' AND NOT substr($x, 1, k - 1) GLOB '*[^A-Za-z0-9_]*'
      AND substr($x, -1) = ')' AND length($x) > k AND instr(inner, char(10)) = 0
      AND substr($x, 1, k - 1) IN ('jit', 'jvp', 'transpose', 'vmap', 'pjit', 'named_call', 'remat', 'checkpoint')
    THEN trim(inner, char(32, 9, 10, 13, 12, 11))
  END
FROM (SELECT k, substr($x, k + 1, length($x) - k - 1) AS inner FROM (SELECT instr($x, '(') AS k));

-- One tf_op piece made a path part: white space then `:` stripped at both
-- ends; unwrapped (_xplane_unwrap) while that applies (an empty inner: the
-- piece vanishes); a bare wrapper word vanishes; stripped again; a piece
-- starting with `dynamic_donated` loses everything up to its first `.`
-- (unless that is its last character). Returns '' for a vanished piece.
CREATE PERFETTO FUNCTION _xplane_scope_part(
  -- A tf_op piece (between `/`).
  piece STRING
)
RETURNS STRING AS
WITH RECURSIVE
  unwrap(x, live) AS (
    SELECT trim(trim($piece, char(32, 9, 10, 13, 12, 11)), ':'), 1
    UNION ALL
    SELECT coalesce(_xplane_unwrap(x), x), coalesce(_xplane_unwrap(x), '') != ''
    FROM unwrap
    WHERE live
  ),
  last(x) AS (
    SELECT
      CASE
        WHEN x IN ('jit', 'jvp', 'transpose', 'vmap', 'pjit', 'named_call', 'remat', 'checkpoint') THEN ''
        ELSE trim(trim(x, char(32, 9, 10, 13, 12, 11)), ':')
      END
    FROM unwrap
    WHERE NOT live
  )
SELECT
  CASE
    WHEN substr(x, 1, 15) = 'dynamic_donated' AND instr(x, '.') > 0 AND instr(x, '.') < length(x)
    THEN substr(x, instr(x, '.') + 1)
    ELSE x
  END
FROM last;

-- The region path of an op with its number of parts, as `<parts>:<path>`
-- (xplane.scopes needs the count: a part may itself contain `=>`).
CREATE PERFETTO FUNCTION _xplane_scope_d(
  -- The op's effective tf_op (xplane_effective_tf_op), NULL if none.
  tf_op STRING,
  -- The op name.
  name STRING,
  -- Keep the first max_depth parts only; 0 (or less): all of them.
  max_depth LONG
)
RETURNS STRING AS
WITH RECURSIVE
  src(kind, s, delim) AS (
    SELECT 0, $tf_op, '/' WHERE coalesce($tf_op, '') != ''
    UNION ALL
    SELECT 1, $name, CASE WHEN instr($name, '=>') > 0 THEN '=>' ELSE '::' END
    WHERE instr($name, '=>') > 0 OR instr($name, '::') > 0
  ),
  split(kind, delim, idx, rest, piece, more) AS (
    SELECT kind, delim, 0, s, NULL, 1 FROM src
    UNION ALL
    SELECT
      kind,
      delim,
      idx + 1,
      CASE WHEN instr(rest, delim) > 0 THEN substr(rest, instr(rest, delim) + length(delim)) END,
      CASE WHEN instr(rest, delim) > 0 THEN substr(rest, 1, instr(rest, delim) - 1) ELSE rest END,
      instr(rest, delim) > 0
    FROM split
    WHERE more
  ),
  part(kind, idx, x) AS (
    SELECT
      kind,
      idx,
      CASE WHEN kind = 0 THEN _xplane_scope_part(piece) ELSE trim(piece, char(32, 9, 10, 13, 12, 11)) END
    FROM split
    WHERE idx > 0 AND trim(piece, char(32, 9, 10, 13, 12, 11)) != ''
  ),
  kept(kind, idx, x) AS (
    SELECT kind, idx, x FROM part WHERE x != '' AND NOT _xplane_scope_noise(x)
  ),
  chosen(kind, idx, x) AS (
    SELECT kind, idx, x
    FROM (SELECT *, row_number() OVER (ORDER BY idx) AS k FROM kept WHERE kind = (SELECT min(kind) FROM kept))
    WHERE $max_depth <= 0 OR k <= $max_depth
  )
SELECT
  coalesce(
    (SELECT count(*) || ':' || max(p)
     FROM (SELECT group_concat(x, '=>') OVER (ORDER BY idx ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS p
           FROM chosen)
     HAVING count(*) > 0),
    '1:' || xplane_canonical_name(coalesce($name, ''))
  );

-- _xplane_scope_d with every part.
CREATE PERFETTO FUNCTION _xplane_scope(
  -- The op's effective tf_op (xplane_effective_tf_op), NULL if none.
  tf_op STRING,
  -- The op name.
  name STRING
)
RETURNS STRING AS
SELECT _xplane_scope_d($tf_op, $name, 0);

-- The region path of an op: its parts joined with `=>`. Parts come from
-- the tf_op split on `/` (each piece through the wrapper and noise rules);
-- without a usable tf_op, from the name split on `=>` (checked first) or
-- `::` (pieces trimmed, noise dropped); failing that, the single part is
-- the canonical name (the "fallback").
CREATE PERFETTO FUNCTION xplane_scope_path(
  -- The op's effective tf_op (xplane_effective_tf_op), NULL if none.
  tf_op STRING,
  -- The op name.
  name STRING
)
RETURNS STRING AS
SELECT substr(s, instr(s, ':') + 1) FROM (SELECT _xplane_scope($tf_op, $name) AS s);

-- The first max_depth parts of the region path (all of them when
-- max_depth <= 0), as the extension's xplane_scope_path(tf_op, name, d).
CREATE PERFETTO FUNCTION xplane_scope_path(
  -- The op's effective tf_op (xplane_effective_tf_op), NULL if none.
  tf_op STRING,
  -- The op name.
  name STRING,
  -- How many parts to keep (0: all).
  max_depth LONG
)
RETURNS STRING AS
SELECT substr(s, instr(s, ':') + 1) FROM (SELECT _xplane_scope_d($tf_op, $name, $max_depth) AS s);

-- The dims of a shape token normalized: split on `,`, each trimmed, empty
-- ones dropped, joined with `,` ('' when none is left).
CREATE PERFETTO FUNCTION _xplane_dims(
  -- The text between `[` and `]`.
  dims STRING
)
RETURNS STRING AS
WITH RECURSIVE
  split(idx, rest, piece, more) AS (
    SELECT 0, $dims, NULL, 1
    UNION ALL
    SELECT
      idx + 1,
      CASE WHEN instr(rest, ',') > 0 THEN substr(rest, instr(rest, ',') + 1) END,
      CASE WHEN instr(rest, ',') > 0 THEN substr(rest, 1, instr(rest, ',') - 1) ELSE rest END,
      instr(rest, ',') > 0
    FROM split
    WHERE more
  ),
  kept(idx, t) AS (
    SELECT idx, trim(piece, char(32, 9, 10, 13, 12, 11)) FROM split
    WHERE idx > 0 AND trim(piece, char(32, 9, 10, 13, 12, 11)) != ''
  )
SELECT
  coalesce(
    (SELECT max(p) FROM (SELECT group_concat(t, ',') OVER (ORDER BY idx ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS p FROM kept)),
    ''
  );

-- Does the shape scan take the token whose `[` is at q? It starts at or
-- after pos (a dtype of 4, 3 or 2 characters ends at q), its `]` comes at
-- least two characters later, and fewer than max_tokens were taken.
CREATE PERFETTO FUNCTION _xplane_shape_take(
  -- Where the scan stands.
  pos LONG,
  -- Tokens taken so far.
  n LONG,
  -- The most tokens to take.
  max_tokens LONG,
  -- Position of the `[`.
  q LONG,
  -- Offset of the first `]` after it (0: none).
  rb LONG,
  -- A 4-character dtype ends before q.
  m4 BOOL,
  -- A 3-character one.
  m3 BOOL,
  -- A 2-character one.
  m2 BOOL
)
RETURNS BOOL AS
SELECT
  $rb > 1 AND $n < $max_tokens
  AND (($m4 AND $q - 4 >= $pos) OR ($m3 AND $q - 3 >= $pos) OR ($m2 AND $q - 2 >= $pos));

-- The shape signature of a long (HLO) name: the dtype[dims] tokens
-- (dtype bf16, f32, f16, s32, u32, s8, u8 or pred, any case; dims non-empty,
-- up to the first `]`) of the output tuple `= ( ... ) op(` (the leftmost `=`
-- with the shortest such tuple), else of the single output `= word[dims]`,
-- else the first 8 anywhere; each token's dims normalized (_xplane_dims),
-- tokens joined with `|`. NULL when there is none.
CREATE PERFETTO FUNCTION xplane_shape_signature(
  -- A long name.
  long_name STRING
)
RETURNS STRING AS
WITH RECURSIVE
  src(s) AS (SELECT coalesce($long_name, '')),
  -- positions of `=`, `)` in s
  eq(pos) AS (
    SELECT instr(s, '=') FROM src WHERE instr(s, '=') > 0
    UNION ALL
    SELECT pos + instr(substr(s, pos + 1), '=') FROM eq, src WHERE instr(substr(s, pos + 1), '=') > 0
  ),
  cl(pos) AS (
    SELECT instr(s, ')') FROM src WHERE instr(s, ')') > 0
    UNION ALL
    SELECT pos + instr(substr(s, pos + 1), ')') FROM cl, src WHERE instr(substr(s, pos + 1), ')') > 0
  ),
  -- a `)` followed (after white space) by an op name [A-Za-z0-9_.-]+ and `(`
  tuple_end(pos) AS (
    SELECT pos FROM (
      SELECT pos, ltrim(substr(s, pos + 1), char(32, 9, 10, 13, 12, 11)) AS t FROM cl, src
    )
    WHERE instr(t, '(') > 1 AND NOT substr(t, 1, instr(t, '(') - 1) GLOB '*[^A-Za-z0-9_.-]*'
  ),
  -- `=` followed (after white space) by `(` at position j
  tuple_start(eq, j) AS (
    SELECT pos, pos + length(a) - length(t) + 1 FROM (
      SELECT pos, substr(s, pos + 1) AS a, ltrim(substr(s, pos + 1), char(32, 9, 10, 13, 12, 11)) AS t FROM eq, src
    )
    WHERE substr(t, 1, 1) = '('
  ),
  tuple(body) AS (
    SELECT substr(s, j + 1, k - j - 1) FROM (
      SELECT ts.j, (SELECT min(te.pos) FROM tuple_end te WHERE te.pos > ts.j) AS k
      FROM tuple_start ts
      WHERE EXISTS (SELECT 1 FROM tuple_end te WHERE te.pos > ts.j)
      ORDER BY ts.eq
      LIMIT 1
    ), src
  ),
  -- `= word[dims]`: the span from the word to its `]`
  single(span) AS (
    SELECT substr(t, 1, u + instr(substr(t, u + 1), ']')) FROM (
      SELECT pos, t, instr(t, '[') AS u FROM (
        SELECT pos, ltrim(substr(s, pos + 1), char(32, 9, 10, 13, 12, 11)) AS t FROM eq, src
      )
    )
    WHERE u > 1 AND NOT substr(t, 1, u - 1) GLOB '*[^A-Za-z0-9_]*' AND instr(substr(t, u + 1), ']') > 1
    ORDER BY pos
    LIMIT 1
  ),
  region(r, max_tokens) AS MATERIALIZED (
    SELECT
      coalesce((SELECT body FROM tuple), (SELECT span FROM single), s),
      CASE WHEN EXISTS (SELECT 1 FROM tuple) OR EXISTS (SELECT 1 FROM single) THEN 1000000000 ELSE 8 END
    FROM src
  ),
  -- every `[` of the region, numbered, with the dtype that ends there
  -- (4, 3 or 2 characters), the offset of the first `]` after it and the
  -- text between the two
  brk(rn, q) AS (
    SELECT 1, instr(r, '[') FROM region WHERE instr(r, '[') > 0
    UNION ALL
    SELECT rn + 1, q + instr(substr(r, q + 1), '[') FROM brk, region WHERE instr(substr(r, q + 1), '[') > 0
  ),
  brk_info(rn, q, m4, m3, m2, rb, dims) AS MATERIALIZED (
    SELECT
      rn,
      q,
      q > 4 AND lower(substr(r, q - 4, 4)) IN ('bf16', 'pred'),
      q > 3 AND lower(substr(r, q - 3, 3)) IN ('f32', 'f16', 's32', 'u32'),
      q > 2 AND lower(substr(r, q - 2, 2)) IN ('s8', 'u8'),
      instr(substr(r, q + 1), ']'),
      substr(r, q + 1, instr(substr(r, q + 1), ']') - 1)
    FROM brk, region
  ),
  -- the scan over the `[`s (_xplane_shape_take: a token starts at or after
  -- pos, the end of the previous token, and has dims); n tokens so far,
  -- acc their dims normalized (_xplane_dims, called only for dims with
  -- white space or an empty piece: the others are their own normal form).
  -- region and brk_info are MATERIALIZED: a CTE that the step joins is
  -- otherwise flattened into it and derived again at every step (170 calls
  -- on the TPU profile's long names: 35 -> 6 ms).
  scan(rn, pos, n, acc) AS (
    SELECT 0, 1, 0, ''
    UNION ALL
    SELECT
      b.rn,
      CASE
        WHEN _xplane_shape_take(s.pos, s.n, g.max_tokens, b.q, b.rb, b.m4, b.m3, b.m2) THEN b.q + b.rb + 1
        ELSE s.pos
      END,
      s.n + _xplane_shape_take(s.pos, s.n, g.max_tokens, b.q, b.rb, b.m4, b.m3, b.m2),
      CASE
        WHEN NOT _xplane_shape_take(s.pos, s.n, g.max_tokens, b.q, b.rb, b.m4, b.m3, b.m2) THEN s.acc
        ELSE
          CASE WHEN s.n > 0 THEN s.acc || '|' ELSE '' END
          || CASE
               WHEN b.dims NOT GLOB '*[' || char(32, 9, 10, 13, 12, 11) || ']*' AND b.dims NOT GLOB ',*'
                    AND b.dims NOT GLOB '*,' AND instr(b.dims, ',,') = 0
                 THEN b.dims
               ELSE _xplane_dims(b.dims)
             END
      END
    FROM scan s JOIN brk_info b ON b.rn = s.rn + 1 JOIN region g
  )
SELECT nullif((SELECT acc FROM scan ORDER BY rn DESC LIMIT 1), '');

-- The semantic family of a text (a canonical name, or "canonical path"):
-- the first rule that matches, case-insensitively: optimizer_muon,
-- optimizer_adam, optimizer_apply, moe, attention_splash, attention_flash,
-- attention_dense, dense_mlp, norm_gating, loss_xent (keywords anywhere),
-- fusion (a word starting `fusion.` or `exponential_reduce_fusion`), copy
-- (the word `copy` at the end, before `.` or `-`, or before a final
-- newline), convert (convert_element_type), collective, else other.
CREATE PERFETTO FUNCTION xplane_semantic_family(
  -- A text.
  s STRING
)
RETURNS STRING AS
SELECT
  CASE
    WHEN instr(l, 'muon') OR instr(l, 'newton_schulz') OR instr(l, 'zeropower') OR instr(l, 'orthogonalize')
      THEN 'optimizer_muon'
    WHEN instr(l, 'adamh') OR instr(l, 'adam') OR instr(l, 'update_first_moment') OR instr(l, 'update_second_moment')
      THEN 'optimizer_adam'
    WHEN instr(l, 'optimizer_update') OR instr(l, 'apply_updates') OR instr(l, 'apply_qb_betas') THEN 'optimizer_apply'
    WHEN instr(l, 'moe') OR instr(l, 'ragged') OR instr(l, 'expert') THEN 'moe'
    WHEN instr(l, 'splash_mha') OR instr(l, 'splash_attention') THEN 'attention_splash'
    WHEN instr(l, 'flash_attention') OR instr(l, 'fused_attention') OR instr(l, 'fa4_cute') THEN 'attention_flash'
    WHEN instr(l, 'causalselfattention') OR instr(l, 'apply_rotary_embedding') THEN 'attention_dense'
    WHEN instr(l, 'densemlp') THEN 'dense_mlp'
    -- (the reference's jit\(silu\) is a raw-string regex: the literal text jit\silu\)
    WHEN instr(l, 'rmsnorm') OR instr(l, 'gatednorm') OR instr(l, 'jit\silu\') THEN 'norm_gating'
    WHEN instr(l, 'linear_softmax_cross_entropy_loss') OR instr(l, 'softmax_cross_entropy') OR instr(l, 'xent')
      THEN 'loss_xent'
    WHEN w GLOB '*[^a-z0-9_]fusion.*' OR w GLOB '*[^a-z0-9_]exponential_reduce_fusion*' THEN 'fusion'
    WHEN w GLOB '*[^a-z0-9_]copy' OR w GLOB '*[^a-z0-9_]copy.*' OR w GLOB '*[^a-z0-9_]copy-*'
      OR w GLOB '*[^a-z0-9_]copy' || char(10) THEN 'copy'
    WHEN instr(l, 'convert_element_type') THEN 'convert'
    WHEN instr(l, 'all-reduce') OR instr(l, 'all_gather') OR instr(l, 'all-gather') OR instr(l, 'reduce-scatter')
      OR instr(l, 'all-to-all') OR instr(l, 'alltoall') OR instr(l, 'collective') OR instr(l, 'nccl')
      OR instr(l, 'allgather') OR instr(l, 'allreduce') OR instr(l, 'reducescatter') THEN 'collective'
    ELSE 'other'
  END
FROM (SELECT lower(coalesce($s, '')) AS l, ' ' || lower(coalesce($s, '')) AS w);

-- The value of the digit run that ends before position pos of a shape
-- token (run: its digits), negative when a `-` comes right before it.
CREATE PERFETTO FUNCTION _xplane_dim_value(
  -- The token.
  t STRING,
  -- The position after the run.
  pos LONG,
  -- The run's digits.
  run STRING
)
RETURNS LONG AS
SELECT
  CASE WHEN $pos - length($run) > 1 AND substr($t, $pos - length($run) - 1, 1) = '-' THEN -1 ELSE 1 END
  * CAST($run AS INT);

-- The FLOP proxy per invocation of an op of a family with a shape
-- signature: the signature's shapes (tokens between `|`, the integers in
-- each, a `-` right before digits making one negative; the first 16 of a
-- shape, the first 64 shapes that have any); attention families: 2*b*h*s*s
-- *(d_max + d_min) from the rank-4 shapes (b, h, s the largest first three
-- dims, d the positive fourth ones); loss_xent: 2*rows*cols from the rank-2+
-- shapes; else (or when those give nothing) the largest shape's element
-- count (0 when a dim is not positive). NULL when it is 0. Integer
-- arithmetic (exact up to 2^63; the C rule uses long double, so results
-- beyond that, or dims beyond int64, may differ in the last digits).
CREATE PERFETTO FUNCTION xplane_flop_proxy(
  -- A semantic family.
  family STRING,
  -- A shape signature.
  sig STRING
)
RETURNS DOUBLE AS
WITH RECURSIVE
  tok(idx, rest, t, more) AS (
    SELECT 0, coalesce($sig, ''), NULL, 1
    UNION ALL
    SELECT
      idx + 1,
      CASE WHEN instr(rest, '|') > 0 THEN substr(rest, instr(rest, '|') + 1) END,
      CASE WHEN instr(rest, '|') > 0 THEN substr(rest, 1, instr(rest, '|') - 1) ELSE rest END,
      instr(rest, '|') > 0
    FROM tok
    WHERE more
  ),
  -- the characters of each token; a dim is complete where a digit run
  -- ends: nd dims so far (at most 16 kept), d0..d3 the first four, prod the
  -- product (0 once a dim is not positive)
  walk(idx, t, pos, run, nd, d0, d1, d2, d3, prod) AS (
    SELECT idx, t, 1, '', 0, NULL, NULL, NULL, NULL, 1 FROM tok WHERE idx > 0
    UNION ALL
    SELECT
      idx,
      t,
      pos + 1,
      CASE WHEN substr(t, pos, 1) GLOB '[0-9]' THEN run || substr(t, pos, 1) ELSE '' END,
      nd + ((run != '' AND NOT substr(t, pos, 1) GLOB '[0-9]') AND nd < 16),
      CASE WHEN (run != '' AND NOT substr(t, pos, 1) GLOB '[0-9]') AND nd = 0 THEN _xplane_dim_value(t, pos, run) ELSE d0 END,
      CASE WHEN (run != '' AND NOT substr(t, pos, 1) GLOB '[0-9]') AND nd = 1 THEN _xplane_dim_value(t, pos, run) ELSE d1 END,
      CASE WHEN (run != '' AND NOT substr(t, pos, 1) GLOB '[0-9]') AND nd = 2 THEN _xplane_dim_value(t, pos, run) ELSE d2 END,
      CASE WHEN (run != '' AND NOT substr(t, pos, 1) GLOB '[0-9]') AND nd = 3 THEN _xplane_dim_value(t, pos, run) ELSE d3 END,
      CASE
        WHEN NOT ((run != '' AND NOT substr(t, pos, 1) GLOB '[0-9]') AND nd < 16) THEN prod
        WHEN _xplane_dim_value(t, pos, run) > 0 THEN prod * _xplane_dim_value(t, pos, run)
        ELSE 0
      END
    FROM walk
    WHERE pos <= length(t) + 1
  ),
  shape(idx, n, d0, d1, d2, d3, prod) AS (
    SELECT idx, nd, d0, d1, d2, d3, prod FROM walk
    WHERE pos = length(t) + 2 AND nd > 0
    ORDER BY idx
    LIMIT 64
  ),
  attention(v) AS (
    SELECT 2 * b * h * s * s * (dmax + dmin) FROM (
      SELECT
        count(*) AS n, max(0, max(d0)) AS b, max(0, max(d1)) AS h, max(0, max(d2)) AS s,
        max(CASE WHEN d3 > 0 THEN d3 END) AS dmax, min(CASE WHEN d3 > 0 THEN d3 END) AS dmin
      FROM shape WHERE n >= 4
    )
    WHERE $family GLOB 'attention*' AND n > 0 AND b > 0 AND h > 0 AND s > 0 AND dmax > 0
  ),
  xent(v) AS (
    SELECT 2 * r * c FROM (SELECT max(0, max(d0)) AS r, max(0, max(d1)) AS c FROM shape WHERE n >= 2)
    WHERE $family = 'loss_xent' AND r > 0 AND c > 0
  )
SELECT
  nullif(CAST(coalesce((SELECT v FROM attention), (SELECT v FROM xent), (SELECT max(0, max(prod)) FROM shape), 0) AS REAL), 0.0);
