/*
** aggregates.c: track aggregates, provenance hints and op-name aggregates
** (see aggregates.h), built once per decode into analysis slots.
*/
#include "aggregates.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "cancel.h"
#include "semantics.h"
#include "util.h"


/* ---- counting distinct strings per (owner, kind): util.h's xp_counter ---- */

typedef xp_counted counted;
typedef xp_counter counter;

static int64_t counter_put(counter *c, int64_t owner, int32_t kind, const char *p, size_t n, int64_t seen) {
  return xp_counter_add(c, owner, kind, p, n, 1, seen);
}

static int counter_add(counter *c, int64_t owner, int32_t kind, const char *p, size_t n, int64_t seen) {
  return counter_put(c, owner, kind, p, n, seen) >= 0;
}

static void counter_free(counter *c, int keep_values) { xp_counter_free(c, keep_values); }

/* Does a beat b as "most frequent, ties to the first seen"? */
static int beats(const counted *a, const counted *b) {
  return !b || a->count > b->count || (a->count == b->count && a->first_seen < b->first_seen);
}

/* The record built in a slot, or NULL while it is not built. */
static void *built(const xp_profile *p, xp_slot slot) {
  const xp_analysis *a = p->analysis;
  return a ? a->slot[slot] : NULL;
}

/* ---- track aggregates and hints ---- */

typedef struct tracks {
  xp_track_agg *aggs;
  int64_t n;
  xp_hint *hints;
  int64_t n_hints;
} tracks;

static int64_t tracks_bytes(const void *t_) {
  const tracks *t = t_;
  int64_t n = (int64_t)sizeof(*t) + t->n_hints * (int64_t)sizeof(xp_hint); /* aggs: the analysis's (counted there) */
  for (int64_t i = 0; i < t->n_hints; i++) n += xp_str_bytes(t->hints[i].value);
  return n;
}

static void tracks_free(void *t_) {
  tracks *t = t_;
  for (int64_t i = 0; i < t->n_hints; i++) xp_free(t->hints[i].value);
  xp_free(t->hints);
  xp_free(t); /* aggs belong to the analysis */
}

/* The track aggregates come from the pass (pass.c), the hints from the
** stats walk (facts.c); the hint values move from the facts. */
static int build_tracks(xp_profile *p, tracks *t, xp_facts *f) {
  const xp_analysis *a = p->analysis;
  t->aggs = a->aggs;
  t->n = a->n_aggs;
  t->hints = xp_malloc(sizeof(xp_hint) * (uint64_t)(f->hints.n + 1));
  if (!t->hints) return 0;
  for (int64_t i = 0; i < f->hints.n; i++) {
    xp_hint *h = &t->hints[t->n_hints++];
    h->kind = f->hints.v[i].kind;
    h->value = f->hints.v[i].value;
    f->hints.v[i].value = NULL;
    h->count = f->hints.v[i].count;
    h->first_seen = f->hints.v[i].first_seen;
  }
  return 1;
}

int64_t xp_built_track_aggs(xp_profile *p, const xp_track_agg **aggs, const xp_hint **hints, int64_t *n_hints) {
  tracks *t = built(p, XP_SLOT_TRACKS);
  if (!t) return -1;
  *aggs = t->aggs;
  *hints = t->hints;
  *n_hints = t->n_hints;
  return t->n;
}

/* ---- op names ---- */

typedef struct op_names {
  xp_op_group *v;
  int64_t n;
  xp_tf_count *tf;
  int64_t n_tf;
} op_names;

static int64_t op_names_bytes(const void *o_) {
  const op_names *o = o_;
  int64_t n = (int64_t)sizeof(*o) + o->n * (int64_t)sizeof(xp_op_group) + o->n_tf * (int64_t)sizeof(xp_tf_count);
  for (int64_t i = 0; i < o->n; i++)
    n += xp_str_bytes(o->v[i].shape_signature) + xp_str_bytes(o->v[i].source_file) + xp_str_bytes(o->v[i].tf_op);
  for (int64_t i = 0; i < o->n_tf; i++) n += xp_str_bytes(o->tf[i].tf_op);
  return n;
}

static void op_names_free(void *o_) {
  op_names *o = o_;
  for (int64_t i = 0; i < o->n; i++) {
    xp_free(o->v[i].shape_signature);
    xp_free(o->v[i].source_file);
    xp_free(o->v[i].tf_op);
  }
  for (int64_t i = 0; i < o->n_tf; i++) xp_free(o->tf[i].tf_op);
  xp_free(o->tf);
  xp_free(o->v);
  xp_free(o);
}

enum { K_SHAPE = 0, K_SOURCE, K_TF_OP, K_NAME };

/* The FLOP proxy of one invocation: family from the op's canonical name. */
static double op_flop_proxy(xp_str name, const char *sig, size_t sig_n) {
  xp_buf *canon = xp_buf_new();
  xp_canonical_name(canon, name.p, name.n);
  const char *z = xp_buf_value(canon);
  const char *family = xp_semantic_family(z ? z : "", (size_t)xp_buf_length(canon));
  xp_free(xp_buf_finish(canon));
  return xp_flop_proxy(family, sig, sig_n);
}

static char *dup_value(const counted *c) { return c ? xp_mprintf("%s", c->value) : NULL; }

/* Counter entries are also found by where their value sits in the mapping
** (util.h's xp_addrmemo, keyed by the value's address and owner * 4 + kind):
** op names, long names, sources and tf_ops repeat the same addresses, so most
** ops skip hashing the text (and working the shape signature out). */
static xp_addr_key value_key(int64_t owner, int32_t kind, xp_str v) {
  xp_addr_key k = {v.p, NULL, NULL, v.n, 0, 0, owner * 4 + kind};
  return k;
}

/* Count value v of (owner, kind) at op i through the memo; the entry, -1 on OOM. */
static int64_t count_value(counter *c, xp_addrmemo *m, int64_t owner, int32_t kind, xp_str v, int64_t i) {
  uint64_t pos;
  int64_t e;
  xp_addr_key k = value_key(owner, kind, v);
  int found = xp_addrmemo_get(m, &k, &e, &pos);
  if (found < 0) return -1;
  if (found) {
    c->v[e].count++; /* ops come in order: the first occurrence stays */
    return e;
  }
  e = counter_put(c, owner, kind, v.p, v.n, i);
  if (e < 0 || !xp_addrmemo_put(m, pos, &k, e)) return -1;
  return e;
}

static int build_op_names(xp_profile *p, op_names *out, const xp_facts *f) {
  const xp_op *ops = ((const xp_analysis *)p->analysis)->ops;
  int64_t n_ops = f->n_ops;
  counter names, values;
  xp_addrmemo memo;
  memset(&memo, 0, sizeof(memo));
  memset(&names, 0, sizeof(names));
  memset(&values, 0, sizeof(values));
  xp_buf *sig = xp_buf_new();
  int64_t *of_op = xp_malloc(sizeof(int64_t) * (uint64_t)(n_ops + 1));
  int ok = of_op != NULL;
  /* name of each op -> its index in `names` (counted under owner -1) */
  for (int64_t i = 0; ok && i < n_ops; i++) {
    if ((i & 4095) == 4095 && xp_cancelled()) { ok = 0; break; } /* long loops stop on an interrupt (cancel.h) */
    of_op[i] = count_value(&names, &memo, -1, K_NAME, xp_op_name(p, &ops[i]), i);
    ok = of_op[i] >= 0;
  }
  out->v = ok ? xp_malloc(sizeof(xp_op_group) * (uint64_t)(names.n + 1)) : NULL;
  ok = ok && out->v;
  if (ok) {
    memset(out->v, 0, sizeof(xp_op_group) * (size_t)names.n);
    out->n = names.n;
  }
  for (int64_t i = 0; ok && i < n_ops; i++) {
    if ((i & 4095) == 4095 && xp_cancelled()) { ok = 0; break; } /* long loops stop on an interrupt (cancel.h) */
    const xp_op *o = &ops[i];
    xp_op_group *g = &out->v[of_op[i]];
    if (!g->count) {
      g->name = xp_op_name(p, o);
      g->first_op = i;
    }
    g->count++;
    g->total_ps = xp_add_sat(g->total_ps, o->dur_ps);
    g->self_ps = xp_add_sat(g->self_ps, o->self_ps > 0 ? o->self_ps : 0);
    xp_str ln = xp_op_long_name(p, o, xp_fact_text(p, f->long_name[i])), src = xp_fact_text(p, f->source[i]),
           tf = xp_fact_text(p, f->tf_op[i]);
    /* the shape signature's entry (-2: none), memoized by the long name's address */
    uint64_t pos;
    int64_t k;
    xp_addr_key key = value_key(of_op[i], K_SHAPE, ln);
    int found = xp_addrmemo_get(&memo, &key, &k, &pos);
    if (found < 0) { ok = 0; break; }
    if (found && k >= 0) {
      values.v[k].count++;
    } else if (!found) {
      xp_buf_reset(sig);
      xp_shape_signature(sig, ln.p, ln.n);
      if (xp_buf_errcode(sig)) { ok = 0; break; }
      k = xp_buf_length(sig) ? counter_put(&values, of_op[i], K_SHAPE, xp_buf_value(sig), (size_t)xp_buf_length(sig), i)
                             : -2;
      if (k == -1 || !xp_addrmemo_put(&memo, pos, &key, k)) { ok = 0; break; }
    }
    if (k >= 0) {
      /* the proxy of each distinct signature once; summed per op, in op
      ** order, as the reference sums per event */
      counted *c = &values.v[k];
      if (c->aux < 0) c->aux = op_flop_proxy(g->name, c->value, c->n);
      if (c->aux > 0) {
        g->flop_proxy_sum += c->aux;
        g->flop_proxy_count++;
      }
    }
    if (ok && src.n) ok = count_value(&values, &memo, of_op[i], K_SOURCE, src, i) >= 0;
    if (ok && tf.n) ok = count_value(&values, &memo, of_op[i], K_TF_OP, tf, i) >= 0;
  }
  xp_addrmemo_free(&memo);
  /* modes, and the FLOP proxy over every signature seen (family by name) */
  const counted **best = ok ? xp_malloc(sizeof(counted *) * 3 * (uint64_t)(out->n + 1)) : NULL;
  ok = ok && best;
  for (int64_t i = 0; ok && i < 3 * out->n; i++) best[i] = NULL;
  for (int64_t i = 0; ok && i < values.n; i++) {
    const counted *c = &values.v[i];
    const counted **b = &best[c->owner * 3 + c->kind];
    if (beats(c, *b)) *b = c;
  }
  for (int64_t i = 0; ok && i < out->n; i++) {
    out->v[i].shape_signature = dup_value(best[i * 3 + K_SHAPE]);
    out->v[i].source_file = dup_value(best[i * 3 + K_SOURCE]);
    out->v[i].tf_op = dup_value(best[i * 3 + K_TF_OP]);
  }
  /* every (name, tf_op) pair with its count, in first-seen order */
  int64_t n_tf = 0;
  for (int64_t i = 0; ok && i < values.n; i++) n_tf += values.v[i].kind == K_TF_OP;
  out->tf = ok ? xp_malloc(sizeof(xp_tf_count) * (uint64_t)(n_tf + 1)) : NULL;
  ok = ok && out->tf;
  for (int64_t i = 0; ok && i < values.n; i++) {
    const counted *c = &values.v[i];
    if (c->kind != K_TF_OP) continue;
    xp_tf_count *t = &out->tf[out->n_tf];
    t->name = out->v[c->owner].name;
    t->tf_op = dup_value(c);
    t->count = c->count;
    t->first_op = c->first_seen;
    if (!t->tf_op) { ok = 0; break; }
    out->n_tf++;
  }
  xp_free(best);
  xp_free(of_op);
  xp_free(xp_buf_finish(sig));
  counter_free(&names, 0);
  counter_free(&values, 0);
  return ok;
}

int64_t xp_built_op_groups(xp_profile *p, const xp_op_group **names) {
  op_names *o = built(p, XP_SLOT_OP_NAMES);
  if (!o) return -1;
  *names = o->v;
  return o->n;
}

int64_t xp_built_op_tf_ops(xp_profile *p, const xp_tf_count **rows) {
  op_names *o = built(p, XP_SLOT_OP_NAMES);
  if (!o) return -1;
  *rows = o->tf;
  return o->n_tf;
}

/* ---- gap groups ---- */

typedef struct gaps {
  xp_gap_group *v;
  int64_t n;
} gaps;

static int64_t gaps_bytes(const void *g_) {
  const gaps *g = g_;
  return (int64_t)sizeof(*g) + g->n * (int64_t)sizeof(xp_gap_group);
}

static void gaps_free(void *g_) {
  gaps *g = g_;
  xp_free(g->v);
  xp_free(g);
}

/* An unambiguous key of the three strings: each preceded by its length. */
static void put_part(xp_buf *k, xp_str s) {
  uint32_t n = (uint32_t)s.n;
  xp_buf_append(k, (const char *)&n, sizeof(n));
  if (s.n) xp_buf_append(k, s.p, (int)s.n);
}

static int build_gaps(xp_profile *p, gaps *out, const xp_facts *f) {
  const xp_op *ops = ((const xp_analysis *)p->analysis)->ops;
  int64_t n_ops = f->n_ops;
  counter keys;
  xp_addrmemo seen; /* (payload, marker, tf_op) by address -> group */
  memset(&seen, 0, sizeof(seen));
  memset(&keys, 0, sizeof(keys));
  xp_buf *k = xp_buf_new();
  int64_t cap = 0;
  int ok = 1;
  for (int64_t i = 0; ok && i < n_ops; i++) {
    if ((i & 4095) == 4095 && xp_cancelled()) { ok = 0; break; } /* long loops stop on an interrupt (cancel.h) */
    const xp_op *m = &ops[i];
    if (m->gap_ps <= 0 || m->payload < 0) continue;
    const xp_op *pay = &ops[m->payload];
    xp_str pn = xp_op_name(p, pay), mn = xp_op_name(p, m), tf = xp_fact_text(p, f->tf_op[m->payload]);
    uint64_t pos;
    int64_t e;
    xp_addr_key key = {pn.p, mn.p, tf.p, pn.n, mn.n, tf.n, 0};
    int found = xp_addrmemo_get(&seen, &key, &e, &pos);
    if (found < 0) { ok = 0; break; }
    if (!found) { /* these addresses are new: find the group by content */
      xp_buf_reset(k);
      put_part(k, pn);
      put_part(k, mn);
      put_part(k, tf);
      const char *kz = xp_buf_value(k);
      e = counter_put(&keys, 0, 0, kz ? kz : "", (size_t)xp_buf_length(k), i);
      if (e < 0 || !xp_addrmemo_put(&seen, pos, &key, e)) { ok = 0; break; }
    }
    if (e == out->n) { /* a new group */
      if (!xp_grow((void **)&out->v, &cap, out->n + 1, sizeof(xp_gap_group))) { ok = 0; break; }
      xp_gap_group *g = &out->v[out->n++];
      memset(g, 0, sizeof(*g));
      g->payload = pn;
      g->marker = mn;
      g->tf_op = tf;
      g->first_op = i;
    }
    xp_gap_group *g = &out->v[e];
    g->count++;
    g->total_ps += m->gap_ps;
    if (m->gap_ps > g->max_ps) g->max_ps = m->gap_ps;
  }
  xp_free(xp_buf_finish(k));
  counter_free(&keys, 0);
  xp_addrmemo_free(&seen);
  return ok;
}

int64_t xp_built_gap_groups(xp_profile *p, const xp_gap_group **rows) {
  gaps *g = built(p, XP_SLOT_GAPS);
  if (!g) return -1;
  *rows = g->v;
  return g->n;
}

/* ---- op regions (device_op_region_aggregates) ---- */

typedef struct op_regions {
  xp_op_region *v;
  int64_t n;
  int64_t n_windows;
  char **paths;      /* the distinct window paths (owned) */
  int64_t n_paths;
} op_regions;

static int64_t op_regions_bytes(const void *r_) {
  const op_regions *r = r_;
  int64_t n = (int64_t)sizeof(*r) + r->n * (int64_t)sizeof(xp_op_region) + r->n_paths * (int64_t)sizeof(char *);
  for (int64_t i = 0; i < r->n; i++) n += xp_str_bytes(r->v[i].shape_signature);
  for (int64_t i = 0; i < r->n_paths; i++) n += xp_str_bytes(r->paths[i]);
  return n;
}

static void op_regions_free(void *r_) {
  op_regions *r = r_;
  for (int64_t i = 0; i < r->n; i++) xp_free(r->v[i].shape_signature);
  for (int64_t i = 0; i < r->n_paths; i++) xp_free(r->paths[i]);
  xp_free(r->paths);
  xp_free(r->v);
  xp_free(r);
}

typedef xp_fact_window region_window; /* facts.c */

/* A point of the sweep: time doubled (so midpoints stay integers), and the
** window or op it belongs to. */
typedef struct sweep_point {
  __int128 t2;
  int64_t i;
} sweep_point;

static int by_sweep_point(const void *x, const void *y) {
  const sweep_point *a = x, *b = y;
  if (a->t2 != b->t2) return a->t2 < b->t2 ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

/* Does window a beat window b: greater depth, then shorter, then greater path. */
static int window_beats(const region_window *a, const region_window *b) {
  if (a->depth != b->depth) return a->depth > b->depth;
  if (a->dur != b->dur) return a->dur < b->dur;
  return a->rank > b->rank;
}

/* Max-heap of window indices (best window on top), lazily pruned. */
static void heap_up(int64_t *h, int64_t k, const region_window *w) {
  while (k > 0) {
    int64_t parent = (k - 1) / 2;
    if (!window_beats(&w[h[k]], &w[h[parent]])) break;
    int64_t t = h[k]; h[k] = h[parent]; h[parent] = t;
    k = parent;
  }
}
static void heap_down(int64_t *h, int64_t n, const region_window *w) {
  int64_t k = 0;
  for (;;) {
    int64_t l = 2 * k + 1, r = l + 1, best = k;
    if (l < n && window_beats(&w[h[l]], &w[h[best]])) best = l;
    if (r < n && window_beats(&w[h[r]], &w[h[best]])) best = r;
    if (best == k) break;
    int64_t t = h[k]; h[k] = h[best]; h[best] = t;
    k = best;
  }
}

static int op_region_order(const void *x, const void *y) {
  const xp_op_region *a = x, *b = y;
  if (a->self_ps != b->self_ps) return a->self_ps > b->self_ps ? -1 : 1;
  if (a->total_ps != b->total_ps) return a->total_ps > b->total_ps ? -1 : 1;
  int c = strcmp(a->path, b->path);
  if (c) return c;
  size_t n = a->name.n < b->name.n ? a->name.n : b->name.n;
  c = n ? memcmp(a->name.p, b->name.p, n) : 0;
  if (c) return c;
  return a->name.n < b->name.n ? -1 : a->name.n > b->name.n;
}

/* The windows and their paths come from the facts; the paths move to out. */
static int build_op_regions(xp_profile *p, op_regions *out, xp_facts *f) {
  const xp_op *ops = ((const xp_analysis *)p->analysis)->ops;
  int64_t n_ops = f->n_ops;
  const region_window *w = f->windows;
  int64_t nw = f->n_windows;
  out->paths = f->paths;
  out->n_paths = f->n_paths;
  f->paths = NULL;
  f->n_paths = 0;
  out->n_windows = nw;
  if (nw == 0 || n_ops == 0) return 1;
  /* the three kinds of points, each sorted by (time, index); at equal times
  ** starts come before midpoints, midpoints before ends */
  sweep_point *starts = xp_malloc(sizeof(sweep_point) * (uint64_t)nw);
  sweep_point *ends = xp_malloc(sizeof(sweep_point) * (uint64_t)nw);
  sweep_point *mids = xp_malloc(sizeof(sweep_point) * (uint64_t)n_ops);
  int64_t *heap = xp_malloc(sizeof(int64_t) * (uint64_t)nw);
  uint8_t *open = xp_malloc((uint64_t)nw);
  int ok = starts && ends && mids && heap && open;
  for (int64_t i = 0; ok && i < nw; i++) {
    starts[i].t2 = (__int128)w[i].start * 2;
    ends[i].t2 = (__int128)w[i].end * 2;
    starts[i].i = ends[i].i = i;
    open[i] = 0;
  }
  for (int64_t i = 0; ok && i < n_ops; i++) {
    if ((i & 4095) == 4095 && xp_cancelled()) { ok = 0; break; } /* long loops stop on an interrupt (cancel.h) */
    mids[i].t2 = (__int128)ops[i].start_ps * 2 + ops[i].dur_ps;
    mids[i].i = i;
  }
  if (ok) {
    qsort(starts, (size_t)nw, sizeof(sweep_point), by_sweep_point);
    qsort(ends, (size_t)nw, sizeof(sweep_point), by_sweep_point);
    qsort(mids, (size_t)n_ops, sizeof(sweep_point), by_sweep_point);
  }
  counter groups, shapes; /* groups: (path, op name); shapes: (group, signature) */
  memset(&groups, 0, sizeof(groups));
  memset(&shapes, 0, sizeof(shapes));
  xp_buf *sig = xp_buf_new();
  int64_t cap = 0, hn = 0, si = 0, ei = 0, seq = 0;
  for (int64_t mi = 0; ok && mi < n_ops; mi++) {
    if ((mi & 4095) == 4095 && xp_cancelled()) { ok = 0; break; } /* long loops stop on an interrupt (cancel.h) */
    __int128 t = mids[mi].t2;
    while (si < nw && starts[si].t2 <= t) {
      int64_t k = starts[si++].i;
      open[k] = 1;
      heap[hn++] = k;
      heap_up(heap, hn - 1, w);
    }
    while (ei < nw && ends[ei].t2 < t) open[ends[ei++].i] = 0;
    while (hn && !open[heap[0]]) {
      heap[0] = heap[--hn];
      heap_down(heap, hn, w);
    }
    if (!hn) continue;
    const region_window *best = &w[heap[0]];
    const xp_op *o = &ops[mids[mi].i];
    xp_str name = xp_op_name(p, o);
    seq++;
    int64_t g = counter_put(&groups, best->path, 0, name.p, name.n, seq);
    if (g < 0) { ok = 0; break; }
    if (g == out->n) {
      if (!xp_grow((void **)&out->v, &cap, out->n + 1, sizeof(xp_op_region))) { ok = 0; break; }
      xp_op_region *r = &out->v[out->n++];
      memset(r, 0, sizeof(*r));
      r->path = out->paths[best->path];
      r->depth = best->depth;
      r->name = name;
      r->first_op = mids[mi].i;
    }
    xp_op_region *r = &out->v[g];
    r->count++;
    r->total_ps += o->dur_ps;
    r->self_ps += o->self_ps > 0 ? o->self_ps : 0;
    xp_str ln = xp_op_long_name(p, o, xp_fact_text(p, f->long_name[mids[mi].i]));
    xp_buf_reset(sig);
    xp_shape_signature(sig, ln.p, ln.n);
    if (xp_buf_errcode(sig)) { ok = 0; break; }
    if (xp_buf_length(sig))
      ok = counter_add(&shapes, g, 0, xp_buf_value(sig), (size_t)xp_buf_length(sig), seq);
  }
  /* the most frequent signature of each group (ties: first counted) */
  const counted **best = ok ? xp_malloc(sizeof(counted *) * (uint64_t)(out->n + 1)) : NULL;
  ok = ok && best;
  for (int64_t i = 0; ok && i < out->n; i++) best[i] = NULL;
  for (int64_t i = 0; ok && i < shapes.n; i++)
    if (beats(&shapes.v[i], best[shapes.v[i].owner])) best[shapes.v[i].owner] = &shapes.v[i];
  for (int64_t i = 0; ok && i < out->n; i++) {
    if (best[i] && !(out->v[i].shape_signature = dup_value(best[i]))) ok = 0;
  }
  if (ok && out->n) qsort(out->v, (size_t)out->n, sizeof(xp_op_region), op_region_order);
  xp_free(best);
  xp_free(xp_buf_finish(sig));
  counter_free(&groups, 0);
  counter_free(&shapes, 0);
  xp_free(starts);
  xp_free(ends);
  xp_free(mids);
  xp_free(heap);
  xp_free(open);
  return ok;
}

int64_t xp_built_op_regions(xp_profile *p, const xp_op_region **rows, int64_t *n_windows) {
  op_regions *r = built(p, XP_SLOT_OP_REGIONS);
  if (!r) return -1;
  *rows = r->v;
  if (n_windows) *n_windows = r->n_windows;
  return r->n;
}

/* ---- the report pass's aggregates ---- */

/* The builders of the aggregates' slots, each from the facts into a zeroed
** record of `size` bytes. */
static int make_tracks(xp_profile *p, void *out, xp_facts *f) { return build_tracks(p, out, f); }
static int make_op_names(xp_profile *p, void *out, xp_facts *f) { return build_op_names(p, out, f); }
static int make_gaps(xp_profile *p, void *out, xp_facts *f) { return build_gaps(p, out, f); }
static int make_op_regions(xp_profile *p, void *out, xp_facts *f) { return build_op_regions(p, out, f); }

static const struct {
  xp_slot slot;
  size_t size;
  void (*free_fn)(void *);
  int64_t (*bytes_fn)(const void *); /* heap bytes held, for the cache's budget (analysis.h) */
  int (*build)(xp_profile *, void *, xp_facts *);
} builders[] = {
    {XP_SLOT_TRACKS, sizeof(tracks), tracks_free, tracks_bytes, make_tracks},
    {XP_SLOT_OP_NAMES, sizeof(op_names), op_names_free, op_names_bytes, make_op_names},
    {XP_SLOT_GAPS, sizeof(gaps), gaps_free, gaps_bytes, make_gaps},
    {XP_SLOT_OP_REGIONS, sizeof(op_regions), op_regions_free, op_regions_bytes, make_op_regions},
};

int xp_aggregates_n(void) { return (int)(sizeof(builders) / sizeof(builders[0])); }

/* Build aggregate k from the facts unless its slot holds it. Builders touch
** only their own slot (and build_tracks the facts' hints), so different k
** may run at once. */
int xp_aggregate_build(xp_profile *p, xp_facts *f, int k) {
  void **slot = xp_analysis_slot_sized(p, builders[k].slot, builders[k].free_fn, builders[k].bytes_fn);
  if (!slot) return 0;
  if (*slot) return 1;
  void *r = xp_malloc(builders[k].size);
  if (!r) return 0;
  memset(r, 0, builders[k].size);
  if (!builders[k].build(p, r, f)) {
    builders[k].free_fn(r);
    return 0;
  }
  *slot = r;
  return 1;
}
