/*
** semantics.c: naming and classification rules (see semantics.h).
**
** The rules are those of docs/ANALYSIS.md, with the details of the field's
** reference summarizer where the spec is silent (e.g. all leading '%' are
** stripped, a tf_op of XlaModule defers to the `name` stat). Matching is
** hand-written over bytes: ASCII case folding, and the few regular
** expressions of the reference (word boundaries, shape tokens) as small
** scanners, so no regex engine is needed and every rule is one function.
*/
#include "semantics.h"

#include <ctype.h>
#include <math.h>
#include <string.h>


static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }
static int is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
static int is_word(int c) { return isalnum(c) || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* Case-insensitive: does needle (of length k) occur in p[0..n) at i? */
static int ci_at_n(const char *p, size_t n, size_t i, const char *needle, size_t k) {
  if (i + k > n) return 0;
  for (size_t j = 0; j < k; j++)
    if (lower((unsigned char)p[i + j]) != lower((unsigned char)needle[j])) return 0;
  return 1;
}

static int ci_at(const char *p, size_t n, size_t i, const char *needle) {
  return ci_at_n(p, n, i, needle, strlen(needle));
}

static int ci_contains(const char *p, size_t n, const char *needle) {
  size_t k = strlen(needle);
  int first = lower((unsigned char)needle[0]);
  for (size_t i = 0; i + k <= n; i++)
    if (lower((unsigned char)p[i]) == first && ci_at_n(p, n, i, needle, k)) return 1;
  return 0;
}

static int ci_contains_any(const char *p, size_t n, const char *const *needles) {
  for (; *needles; needles++)
    if (ci_contains(p, n, *needles)) return 1;
  return 0;
}

static const char *const stall_words[] = {"wait", "barrier", "dependency-wait", "donation holds", "semaphore",
                                          "acquire", "idle", "blocked", "sleep", NULL};
static const char *const comm_words[] = {"all-reduce", "all_gather", "all-gather", "reduce-scatter",
                                         "all-to-all", "alltoall", "collective", "collective-permute",
                                         "permute", "psum", "send", "recv", "nccl", "allgather",
                                         "allreduce", "reducescatter", NULL};

int xp_is_stall(const char *p, size_t n) { return ci_contains_any(p, n, stall_words); }
int xp_is_communication(const char *p, size_t n) { return ci_contains_any(p, n, comm_words); }

const char *xp_collective_kind(const char *p, size_t n) {
  static const struct {
    const char *const words[4];
    const char *kind;
  } kinds[] = {
      {{"all-reduce", "allreduce", "psum", NULL}, "all-reduce"},
      {{"all-gather", "all_gather", "allgather", NULL}, "all-gather"},
      {{"reduce-scatter", "reducescatter", NULL}, "reduce-scatter"},
      {{"all-to-all", "alltoall", NULL}, "all-to-all"},
      {{"collective-permute", "permute", NULL}, "collective-permute"},
      {{"async-collective", NULL}, "async-collective"},
      {{"send", "recv", NULL}, "send-recv"},
  };
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
    if (ci_contains_any(p, n, kinds[i].words)) return kinds[i].kind;
  return "other-collective";
}

static int has_prefix(const char *p, size_t n, const char *prefix) {
  size_t k = strlen(prefix);
  return n >= k && memcmp(p, prefix, k) == 0;
}

const char *xp_event_category(const char *plane, size_t plane_n, const char *p, size_t n) {
  if (xp_is_stall(p, n)) return "stall";
  if (has_prefix(plane, plane_n, "/host:")) return "host";
  if (xp_is_communication(p, n)) return "communication";
  if (has_prefix(plane, plane_n, "/device:")) return "compute";
  return "other";
}

const char *xp_op_category(const char *p, size_t n) {
  if (xp_is_stall(p, n)) return "stall";
  if (xp_is_communication(p, n)) return "communication";
  return "compute";
}

/* Trim ASCII white space at both ends. */
static void trim(const char **p, size_t *n) {
  while (*n && is_space((unsigned char)(*p)[0])) (*p)++, (*n)--;
  while (*n && is_space((unsigned char)(*p)[*n - 1])) (*n)--;
}

/* The canonical name as a (pointer, length) view into p. */
static void canonical_view(const char **p, size_t *n) {
  trim(p, n);
  while (*n && (*p)[0] == '%') (*p)++, (*n)--;
  size_t k = *n;
  while (k && is_digit((unsigned char)(*p)[k - 1])) k--;
  if (k < *n && k > 0 && (*p)[k - 1] == '.') *n = k - 1;
}

void xp_canonical_name(xp_buf *out, const char *p, size_t n) {
  canonical_view(&p, &n);
  xp_buf_append(out, p, (int)n);
}

int xp_marker_like_n(const char *p, size_t n) {
  static const char *const names[] = {"iota", "constant", "bitcast", "get-tuple-element",
                                      "parameter", "tuple", "after-all", NULL};
  canonical_view(&p, &n);
  for (int i = 0; names[i]; i++)
    if (strlen(names[i]) == n && ci_at(p, n, 0, names[i])) return 1;
  return ci_at(p, n, 0, "copy-start") || ci_at(p, n, 0, "copy-done");
}

int xp_marker_like(const char *z) { return xp_marker_like_n(z, strlen(z)); }

/* ---- name-scope paths ---- */

static int is_wrapper(const char *p, size_t n) {
  static const char *const words[] = {"jit", "jvp", "transpose", "vmap", "pjit",
                                      "named_call", "remat", "checkpoint", NULL};
  for (int i = 0; words[i]; i++)
    if (strlen(words[i]) == n && memcmp(words[i], p, n) == 0) return 1;
  return 0;
}

/* Strip white space, then ':' characters, from both ends (one pass each). */
static void strip_ws_colon(const char **p, size_t *n) {
  trim(p, n);
  while (*n && (*p)[0] == ':') (*p)++, (*n)--;
  while (*n && (*p)[*n - 1] == ':') (*n)--;
}

/* One tf_op piece: unwrap jit(...) & co., strip, drop a dynamic_donated
** prefix. Sets *n = 0 when the piece vanishes. */
static void canonical_part(const char **p, size_t *n) {
  strip_ws_colon(p, n);
  for (;;) {
    size_t w = 0;
    if (!*n || !(isalpha((unsigned char)(*p)[0]) || (*p)[0] == '_')) break;
    while (w < *n && is_word((unsigned char)(*p)[w])) w++;
    if (w >= *n || (*p)[w] != '(' || (*p)[*n - 1] != ')' || *n - 1 <= w) break;
    if (memchr(*p + w + 1, '\n', *n - w - 2)) break;
    if (!is_wrapper(*p, w)) break;
    const char *inner = *p + w + 1;
    size_t inner_n = *n - w - 2;
    trim(&inner, &inner_n);
    if (!inner_n) { *n = 0; return; }
    *p = inner;
    *n = inner_n;
  }
  if (is_wrapper(*p, *n)) { *n = 0; return; }
  strip_ws_colon(p, n);
  if (*n >= 15 && memcmp(*p, "dynamic_donated", 15) == 0) {
    const char *dot = memchr(*p, '.', *n);
    if (dot && (size_t)(dot - *p) < *n - 1) {
      *n -= (size_t)(dot - *p) + 1;
      *p = dot + 1;
    }
  }
}

/* Is this part runtime noise? (normalized: lower case, runs of other than
** [a-z0-9_] to '_', '_' trimmed) */
static int noise_norm(const char *norm) {
  static const char *const exact[] = {"xla", "xla_ops", "xla_modules", "xla_traceme", "xla_trace_me",
                                      "pallas_call", "shard_map", "call", "command_buffer", "execute",
                                      "launch", "tpu_launch", NULL};
  static const char *const prefix[] = {"pjrt", "xla_", "tpu_", "stream_executor", NULL};
  static const char *const contains[] = {"launch", "execute", "thunk", "runtime", NULL};
  if (!norm[0]) return 1;
  for (int i = 0; exact[i]; i++)
    if (strcmp(norm, exact[i]) == 0) return 1;
  for (int i = 0; prefix[i]; i++)
    if (strncmp(norm, prefix[i], strlen(prefix[i])) == 0) return 1;
  for (int i = 0; contains[i]; i++)
    if (strstr(norm, contains[i])) return 1;
  return 0;
}

static int noise_part(const char *p, size_t n) {
  char small[256];
  trim(&p, &n);
  char *buf = n < sizeof(small) ? small : xp_malloc(n + 1);
  if (!buf) return 0;
  size_t k = 0;
  int in_run = 0;
  for (size_t i = 0; i < n; i++) {
    int c = lower((unsigned char)p[i]);
    if ((c >= 'a' && c <= 'z') || is_digit(c) || c == '_') {
      buf[k++] = (char)c;
      in_run = 0;
    } else if (!in_run) {
      buf[k++] = '_';
      in_run = 1;
    }
  }
  size_t s = 0;
  while (s < k && buf[s] == '_') s++;
  while (k > s && buf[k - 1] == '_') k--;
  buf[k] = 0;
  int noise = noise_norm(buf + s);
  if (buf != small) xp_free(buf);
  return noise;
}

/* Append kept parts of p split on delim; returns the count appended. */
static int split_parts(xp_buf *out, const char *p, size_t n, const char *delim, int from_tf_op,
                       int max_depth, int *total) {
  size_t dl = strlen(delim);
  int kept = 0;
  size_t i = 0;
  while (i <= n) {
    size_t j = i;
    while (j < n && !(j + dl <= n && memcmp(p + j, delim, dl) == 0)) j++;
    const char *part = p + i;
    size_t pn = j - i;
    if (from_tf_op) {
      const char *t = part;
      size_t tn = pn;
      trim(&t, &tn);
      if (tn) canonical_part(&part, &pn);
      else pn = 0;
    } else {
      trim(&part, &pn);
    }
    if (pn && !noise_part(part, pn)) {
      if (!max_depth || *total < max_depth) {
        if (*total) xp_buf_appendall(out, "=>");
        xp_buf_append(out, part, (int)pn);
        (*total)++;
      }
      kept++;
    }
    i = j + dl;
  }
  return kept;
}

int xp_scope_path(xp_buf *out, const char *tf_op, size_t tf_n, const char *name, size_t name_n,
                  int max_depth) {
  int total = 0;
  if (tf_op && tf_n) {
    split_parts(out, tf_op, tf_n, "/", 1, max_depth, &total);
    if (total) return total;
  }
  const char *delim = NULL;
  for (size_t i = 0; i + 1 < name_n && !delim; i++)
    if (name[i] == '=' && name[i + 1] == '>') delim = "=>";
  for (size_t i = 0; i + 1 < name_n && !delim; i++)
    if (name[i] == ':' && name[i + 1] == ':') delim = "::";
  if (delim) {
    split_parts(out, name, name_n, delim, 0, max_depth, &total);
    if (total) return total;
  }
  xp_canonical_name(out, name, name_n);
  return 1;
}

const char *xp_effective_tf_op(const char *tf_op, size_t tf_n, const char *name_stat, size_t name_n,
                               size_t *out_n) {
  const char *p = tf_op;
  size_t n = tf_n;
  trim(&p, &n);
  while (n && p[n - 1] == ':') n--;
  if (n == 9 && memcmp(p, "XlaModule", 9) == 0 && name_stat && name_n) {
    *out_n = name_n;
    return name_stat;
  }
  *out_n = tf_n;
  return tf_op;
}

/* ---- shape signatures ---- */

static const char *const dtypes[] = {"bf16", "f32", "f16", "s32", "u32", "s8", "u8", "pred", NULL};

/* At p[i]: dtype '[' dims ']' with non-empty dims; sets the dims span and
** the match end. */
static int dtype_shape_at(const char *p, size_t n, size_t i, size_t *d0, size_t *d1, size_t *end) {
  for (int k = 0; dtypes[k]; k++) {
    size_t l = strlen(dtypes[k]);
    if (!ci_at(p, n, i, dtypes[k]) || i + l >= n || p[i + l] != '[') continue;
    size_t j = i + l + 1;
    while (j < n && p[j] != ']') j++;
    if (j >= n || j == i + l + 1) continue;
    *d0 = i + l + 1;
    *d1 = j;
    *end = j + 1;
    return 1;
  }
  return 0;
}

/* findall of dtype[dims] tokens in p[0..n) appended normalized, up to max
** (0 = all); returns the count. */
static int append_tokens(xp_buf *out, const char *p, size_t n, int max) {
  int count = 0;
  size_t i = 0;
  while (i < n && (!max || count < max)) {
    size_t d0, d1, end;
    if (!dtype_shape_at(p, n, i, &d0, &d1, &end)) {
      i++;
      continue;
    }
    if (count++) xp_buf_appendchar(out, 1, '|');
    /* normalize: split on ',', strip, drop empty, join with ',' */
    int parts = 0;
    size_t a = d0;
    while (a <= d1) {
      size_t b = a;
      while (b < d1 && p[b] != ',') b++;
      const char *q = p + a;
      size_t qn = b - a;
      trim(&q, &qn);
      if (qn) {
        if (parts++) xp_buf_appendchar(out, 1, ',');
        xp_buf_append(out, q, (int)qn);
      }
      a = b + 1;
    }
    i = end;
  }
  return count;
}

static size_t skip_space(const char *p, size_t n, size_t i) {
  while (i < n && is_space((unsigned char)p[i])) i++;
  return i;
}

static int op_name_char(int c) { return isalnum(c) || c == '_' || c == '.' || c == '-'; }

/* `= ( ... ) opname(`: the leftmost '=' with the shortest tuple body. */
static int output_tuple(const char *p, size_t n, size_t *b0, size_t *b1) {
  for (size_t i = 0; i < n; i++) {
    if (p[i] != '=') continue;
    size_t j = skip_space(p, n, i + 1);
    if (j >= n || p[j] != '(') continue;
    for (size_t k = j + 1; k < n; k++) {
      if (p[k] != ')') continue;
      size_t m = skip_space(p, n, k + 1), w = m;
      while (w < n && op_name_char((unsigned char)p[w])) w++;
      if (w > m && w < n && p[w] == '(') {
        *b0 = j + 1;
        *b1 = k;
        return 1;
      }
    }
  }
  return 0;
}

/* `= word[dims]`: the single output. */
static int output_single(const char *p, size_t n, size_t *b0, size_t *b1) {
  for (size_t i = 0; i < n; i++) {
    if (p[i] != '=') continue;
    size_t j = skip_space(p, n, i + 1), w = j;
    while (w < n && is_word((unsigned char)p[w])) w++;
    if (w == j || w >= n || p[w] != '[') continue;
    size_t k = w + 1;
    while (k < n && p[k] != ']') k++;
    if (k >= n || k == w + 1) continue;
    *b0 = j;
    *b1 = k + 1;
    return 1;
  }
  return 0;
}

void xp_shape_signature(xp_buf *out, const char *p, size_t n) {
  size_t b0, b1;
  if (!n) return;
  if (output_tuple(p, n, &b0, &b1)) append_tokens(out, p + b0, b1 - b0, 0);
  else if (output_single(p, n, &b0, &b1)) append_tokens(out, p + b0, b1 - b0, 0);
  else append_tokens(out, p, n, 8);
}

/* ---- FLOP proxy ---- */

#define MAX_SHAPES 64
#define MAX_DIMS 16

typedef struct shape {
  long double dim[MAX_DIMS];
  int n;
} shape;

/* Parse "d,d,...|d,..." into shapes of the integers each token holds. */
static int parse_shapes(const char *sig, size_t n, shape *shapes) {
  int ns = 0;
  size_t i = 0;
  while (i < n && ns < MAX_SHAPES) {
    size_t j = i;
    while (j < n && sig[j] != '|') j++;
    shape *s = &shapes[ns];
    s->n = 0;
    for (size_t k = i; k < j && s->n < MAX_DIMS;) {
      int neg = 0;
      if (sig[k] == '-' && k + 1 < j && is_digit((unsigned char)sig[k + 1])) neg = 1, k++;
      if (!is_digit((unsigned char)sig[k])) { k++; continue; }
      long double v = 0;
      while (k < j && is_digit((unsigned char)sig[k])) v = v * 10 + (sig[k++] - '0');
      s->dim[s->n++] = neg ? -v : v;
    }
    if (s->n) ns++;
    i = j + 1;
  }
  return ns;
}

double xp_flop_proxy(const char *family, const char *sig, size_t sig_n) {
  shape shapes[MAX_SHAPES];
  int ns = parse_shapes(sig, sig_n, shapes);
  if (!ns) return 0;
  if (strncmp(family, "attention", 9) == 0) {
    long double b = 0, h = 0, s = 0, dmax = 0, dmin = 0;
    int any = 0;
    for (int i = 0; i < ns; i++) {
      if (shapes[i].n < 4) continue;
      any = 1;
      if (shapes[i].dim[0] > b) b = shapes[i].dim[0];
      if (shapes[i].dim[1] > h) h = shapes[i].dim[1];
      if (shapes[i].dim[2] > s) s = shapes[i].dim[2];
      long double d = shapes[i].dim[3];
      if (d > 0) {
        if (d > dmax) dmax = d;
        if (dmin == 0 || d < dmin) dmin = d;
      }
    }
    if (any && b > 0 && h > 0 && s > 0 && dmax > 0) return (double)(2 * b * h * s * s * (dmax + dmin));
  }
  if (strcmp(family, "loss_xent") == 0) {
    long double rows = 0, cols = 0;
    for (int i = 0; i < ns; i++) {
      if (shapes[i].n < 2) continue;
      if (shapes[i].dim[0] > rows) rows = shapes[i].dim[0];
      if (shapes[i].dim[1] > cols) cols = shapes[i].dim[1];
    }
    if (rows > 0 && cols > 0) return (double)(2 * rows * cols);
  }
  long double best = 0;
  for (int i = 0; i < ns; i++) {
    long double prod = 1;
    for (int k = 0; k < shapes[i].n; k++) prod = shapes[i].dim[k] > 0 ? prod * shapes[i].dim[k] : 0;
    if (prod > best) best = prod;
  }
  return (double)best;
}

/* ---- semantic families ---- */

/* `(^|\b)word...`: at i, a word starts (start of text or a non-word before). */
static int word_start(const char *p, size_t i) { return i == 0 || !is_word((unsigned char)p[i - 1]); }

static int match_fusion(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!word_start(p, i)) continue;
    if (ci_at(p, n, i, "fusion.") || ci_at(p, n, i, "exponential_reduce_fusion")) return 1;
  }
  return 0;
}

static int match_copy(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!word_start(p, i) || !ci_at(p, n, i, "copy")) continue;
    size_t e = i + 4;
    if (e == n || p[e] == '.' || p[e] == '-' || (e + 1 == n && p[e] == '\n')) return 1;
  }
  return 0;
}

const char *xp_semantic_family(const char *p, size_t n) {
  static const struct {
    const char *family;
    const char *const words[8];
  } rules[] = {
      {"optimizer_muon", {"muon", "newton_schulz", "zeropower", "orthogonalize", NULL}},
      {"optimizer_adam", {"adamh", "adam", "update_first_moment", "update_second_moment", NULL}},
      {"optimizer_apply", {"optimizer_update", "apply_updates", "apply_qb_betas", NULL}},
      {"moe", {"moe", "ragged", "expert", NULL}},
      {"attention_splash", {"splash_mha", "splash_attention", NULL}},
      {"attention_flash", {"flash_attention", "fused_attention", "fa4_cute", NULL}},
      {"attention_dense", {"causalselfattention", "apply_rotary_embedding", NULL}},
      {"dense_mlp", {"densemlp", NULL}},
      /* The reference's third alternative, jit\\(silu\\), is a raw-string
      ** regex that only matches the literal text `jit\silu\`. */
      {"norm_gating", {"rmsnorm", "gatednorm", "jit\\silu\\", NULL}},
      {"loss_xent", {"linear_softmax_cross_entropy_loss", "softmax_cross_entropy", "xent", NULL}},
  };
  for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
    if (ci_contains_any(p, n, rules[i].words)) return rules[i].family;
  if (match_fusion(p, n)) return "fusion";
  if (match_copy(p, n)) return "copy";
  if (ci_contains(p, n, "convert_element_type")) return "convert";
  static const char *const coll[] = {"all-reduce", "all_gather", "all-gather", "reduce-scatter",
                                     "all-to-all", "alltoall", "collective", "nccl", "allgather",
                                     "allreduce", "reducescatter", NULL};
  if (ci_contains_any(p, n, coll)) return "collective";
  return "other";
}
