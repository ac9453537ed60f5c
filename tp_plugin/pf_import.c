/*
** pf_import.c: trace processor's import of a converted profile, emulated
** (see pf_import.h).
*/
#include "pf_import.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Make room for `more` elements of `size` bytes in vector `what` (v, n, cap)
** of st; 0 on OOM, noting in st->too_large when the array's next size is
** past what one allocation may hold (xp_grow_too_large): the data is too
** large, memory has not run out. */
static int vec_reserve(pf_import *st, const char *what, void **v, int64_t n, int64_t *cap, int64_t more,
                       size_t size) {
  if (xp_grow(v, cap, n + more, size)) return 1;
  if (xp_grow_too_large(*cap, n + more, size)) st->too_large = what;
  return 0;
}
/* A pointer to a new last element of vector `vec` (named `what`) of st, NULL
** on OOM. */
#define PUSH(st, vec, what) \
  (vec_reserve(st, what, (void **)&(vec).v, (vec).n, &(vec).cap, 1, sizeof(*(vec).v)) ? &(vec).v[(vec).n++] : NULL)

/* Copy prefix + p[0..n) into the pool; its offset, or -1 on OOM. */
static int64_t pool_add(pf_import *st, const char *prefix, const char *p, size_t n) {
  size_t k = strlen(prefix);
  int64_t off = st->pool.n;
  if (!vec_reserve(st, "strings", (void **)&st->pool.v, st->pool.n, &st->pool.cap, (int64_t)(k + n + 1), 1))
    return -1;
  memcpy(st->pool.v + off, prefix, k);
  if (n) memcpy(st->pool.v + off + k, p, n);
  st->pool.v[off + (int64_t)(k + n)] = 0;
  st->pool.n += (int64_t)(k + n + 1);
  return off;
}

/* Trace processor's key for a debug annotation: '.', '[' and ']' become '_'
** (checked on trace_processor_shell v58.2 by tests/test_trace_processor.sh). */
static int64_t pool_add_key(pf_import *st, const char *p, size_t n) {
  int64_t off = pool_add(st, "debug.", p, n);
  if (off < 0) return off;
  for (char *c = st->pool.v + off + 6; *c; c++)
    if (*c == '.' || *c == '[' || *c == ']') *c = '_';
  return off;
}

void pf_import_free(pf_import *st) {
  xp_free(st->slices.v);
  xp_free(st->tracks.v);
  xp_free(st->track_of_uuid.v);
  xp_free(st->threads.v);
  xp_free(st->processes.v);
  xp_free(st->args.v);
  xp_free(st->flows.v);
  xp_free(st->pool.v);
  xp_free(st->ends.v);
  xp_free(st->order);
  xp_free(st->id_of);
  xp_free(st->track_rows);
  memset(st, 0, sizeof(*st));
}

static int nomem(const pf_import *st, char **errmsg) {
  if (st->too_large)
    *errmsg = xp_mprintf("too large for the Perfetto-model tables: its %s need more than %llu bytes in one array "
                         "(the limit of one allocation); xplane2perfetto converts it for trace processor",
                         st->too_large, (unsigned long long)xp_alloc_limit() - 1);
  else
    *errmsg = xp_mprintf("out of memory");
  return 0;
}

static int add_row3(row3_vec *v, pf_import *st, int64_t a, int64_t b, const char *name, int64_t c) {
  pfc_row3 *r = PUSH(st, *v, "threads and processes");
  if (!r) return 0;
  r->a = a, r->b = b, r->c = c;
  r->name = name ? pool_add(st, "", name, strlen(name)) : -1;
  return !name || r->name >= 0;
}

static int on_process(void *ctx, const pf_process *p, char **errmsg) {
  pf_import *st = ctx;
  if (!add_row3(&st->processes, st, p->upid, p->pid, p->name, 0) ||
      !add_row3(&st->threads, st, p->main_utid, p->pid, NULL, p->upid))
    return nomem(st, errmsg);
  return 1;
}

static int on_track(void *ctx, const pf_track *t, char **errmsg) {
  pf_import *st = ctx;
  if (!t->parent_uuid && !t->global && !add_row3(&st->threads, st, t->utid, t->tid, t->thread_name, t->upid))
    return nomem(st, errmsg);
  while (st->track_of_uuid.n <= (int64_t)t->uuid) {
    int32_t *x = PUSH(st, st->track_of_uuid, "tracks");
    if (!x) return nomem(st, errmsg);
    *x = -1;
  }
  pfc_track *tr = PUSH(st, st->tracks, "tracks");
  if (!tr) return nomem(st, errmsg);
  st->track_of_uuid.v[t->uuid] = (int32_t)(st->tracks.n - 1);
  tr->id = -1;
  tr->utid = t->utid;
  tr->global = t->global;
  int named = t->parent_uuid || t->global; /* a thread's own track has no name */
  tr->name = named ? pool_add(st, "", t->name, strlen(t->name)) : -1;
  return !named || tr->name >= 0 ? 1 : nomem(st, errmsg);
}

/* The args of the slice being imported (from args.v[lo]) and a key: the
** context of the key index below. */
typedef struct arg_keys {
  const pf_import *st;
  int64_t lo;
  const char *key;
} arg_keys;

static int arg_key_eq(const void *ctx, int64_t entry) {
  const arg_keys *k = ctx;
  return strcmp(k->st->pool.v + k->st->args.v[k->lo + entry].key, k->key) == 0;
}

/* Past this many args on one slice, a repeated key is found by a hash index
** instead of comparing with every arg before it. */
#define ARG_SCAN_MAX 16

static int on_event(void *ctx, const pf_event *e, char **errmsg) {
  pf_import *st = ctx;
  int64_t pos = st->n_events++;
  if (e->type == PF_END) {
    pfc_end *x = PUSH(st, st->ends, "slices");
    if (!x) return nomem(st, errmsg);
    x->ts = e->ts_ns, x->pos = pos, x->track = st->track_of_uuid.v[e->track->uuid];
    return 1;
  }
  pfc_slice *s = PUSH(st, st->slices, "slices");
  if (!s) return nomem(st, errmsg);
  s->pos = pos;
  s->instant = e->type == PF_INSTANT;
  s->ts = e->ts_ns;
  s->dur = e->type == PF_BEGIN ? e->end_ns - e->ts_ns : 0;
  s->parent_ordinal = e->parent_ordinal;
  s->track = st->track_of_uuid.v[e->track->uuid];
  s->depth = e->depth;
  s->has_name = e->has_name;
  s->has_flow = e->has_flow;
  s->flow_id = e->flow_id;
  s->name = e->name;
  s->category = e->category;
  s->arg_lo = st->args.n;
  /* A key given again on the slice (after the '_' rewriting) replaces the
  ** value of its first arg, which keeps its place: trace processor keeps one
  ** arg per key, the last value, at the first one's position (checked on
  ** trace_processor_shell v58.2 by tests/test_trace_processor.sh). */
  int64_t lo = st->args.n;
  xp_hmap index = {0};
  arg_keys keys = {st, lo, NULL};
  if (e->n_args > ARG_SCAN_MAX && !xp_hmap_init(&index, e->n_args)) return nomem(st, errmsg);
  for (int i = 0; i < e->n_args; i++) {
    const pf_arg *a = &e->args[i];
    int64_t key = pool_add_key(st, a->name.p, a->name.n);
    if (key < 0) {
      xp_hmap_free(&index);
      return nomem(st, errmsg);
    }
    keys.key = st->pool.v + key;
    int64_t same = -1;
    uint64_t pos = 0;
    if (index.mask) {
      pos = xp_hmap_find(&index, xp_hash_bytes(0, keys.key, strlen(keys.key)), arg_key_eq, &keys);
      same = index.slot[pos] >= 0 ? lo + index.slot[pos] : -1;
    } else {
      for (int64_t j = lo; j < st->args.n && same < 0; j++)
        if (strcmp(st->pool.v + st->args.v[j].key, keys.key) == 0) same = j;
    }
    pfc_arg *r;
    if (same >= 0) {
      st->pool.n = key; /* the key is already in the pool */
      r = &st->args.v[same];
    } else {
      r = PUSH(st, st->args, "args");
      if (!r) {
        xp_hmap_free(&index);
        return nomem(st, errmsg);
      }
      r->key = key;
      if (index.mask) xp_hmap_put(&index, pos, st->args.n - 1 - lo);
    }
    r->type = a->type;
    r->i = a->type == PF_A_UINT ? (int64_t)a->v.u : a->v.i;
    r->d = a->v.d;
    r->str = a->type == PF_A_STRING ? pool_add(st, "", a->s.p, a->s.n) : -1;
    if (a->type == PF_A_STRING && r->str < 0) {
      xp_hmap_free(&index);
      return nomem(st, errmsg);
    }
  }
  xp_hmap_free(&index);
  s->n_args = (int32_t)(st->args.n - lo);
  return 1;
}

/* qsort has no context argument: sort (ts, ordinal) pairs. */
typedef struct ts_ord {
  int64_t ts, ordinal;
} ts_ord;

static int by_ts_ordinal(const void *a, const void *b) {
  const ts_ord *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal;
}

static int by_ts_pos(const void *a, const void *b) {
  const pfc_end *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Nest an instant in the instant before it on its track when both have one
** ts and no BEGIN or END of the track came between them (import order). */
static int nest_instants(pf_import *st) {
  int64_t *open = xp_malloc(sizeof(int64_t) * (uint64_t)(st->tracks.n + 1));
  if (!open) return 0;
  for (int64_t t = 0; t < st->tracks.n; t++) open[t] = -1;
  if (st->ends.n) qsort(st->ends.v, (size_t)st->ends.n, sizeof(pfc_end), by_ts_pos);
  int64_t j = 0;
  for (int64_t id = 0; id < st->slices.n; id++) {
    pfc_slice *s = &st->slices.v[st->order[id]];
    for (; j < st->ends.n && (st->ends.v[j].ts < s->ts || (st->ends.v[j].ts == s->ts && st->ends.v[j].pos < s->pos));
         j++)
      open[st->ends.v[j].track] = -1;
    if (!s->instant) {
      open[s->track] = -1;
      continue;
    }
    const pfc_slice *o = open[s->track] >= 0 ? &st->slices.v[open[s->track]] : NULL;
    if (o && o->ts == s->ts) s->parent_ordinal = open[s->track], s->depth = o->depth + 1;
    open[s->track] = st->order[id];
  }
  xp_free(open);
  return 1;
}

/* Run the model over the profile and number everything as trace processor. */
int pf_import_build(pf_import *st, const xp_file *f, xp_profile *p, int want_args, char **errmsg) {
  pf_import_free(st);
  *errmsg = NULL;
  pf_sink sink = {st, on_process, on_track, on_event, want_args};
  pf_model *m = pf_model_new(&sink, 0);
  /* upid/utid 0: trace processor's placeholders */
  int ok = m && add_row3(&st->processes, st, 0, 0, NULL, 0) &&
           add_row3(&st->threads, st, 0, 0, NULL, -1) && pf_model_add(m, f, p, errmsg);
  pf_model_free(m);
  if (!ok) return 0;
  int64_t n = st->slices.n;
  st->order = xp_malloc(sizeof(int64_t) * (uint64_t)(n + 1));
  st->id_of = xp_malloc(sizeof(int64_t) * (uint64_t)(n + 1));
  st->track_rows = xp_malloc(sizeof(int64_t) * (uint64_t)(st->tracks.n + 1));
  ts_ord *keys = xp_malloc(sizeof(ts_ord) * (uint64_t)(n + 1));
  if (!st->order || !st->id_of || !st->track_rows || !keys) {
    xp_free(keys);
    return 0;
  }
  for (int64_t i = 0; i < n; i++) keys[i].ts = st->slices.v[i].ts, keys[i].ordinal = i;
  if (n) qsort(keys, (size_t)n, sizeof(ts_ord), by_ts_ordinal);
  for (int64_t i = 0; i < n; i++) st->order[i] = keys[i].ordinal;
  xp_free(keys);
  if (!nest_instants(st)) return 0;
  int64_t n_ids = 0; /* every used track takes an id; thread tracks are listed */
  for (int64_t id = 0; id < n; id++) {
    st->id_of[st->order[id]] = id;
    pfc_track *t = &st->tracks.v[st->slices.v[st->order[id]].track];
    if (t->id < 0) {
      t->id = n_ids++;
      if (!t->global) st->track_rows[st->n_track_rows++] = st->slices.v[st->order[id]].track;
    }
  }
  return 1;
}

static int by_a_b(const void *x, const void *y) {
  const pfc_flow *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  return p->b < q->b ? -1 : p->b > q->b;
}

/* The flows: the slices of each flow id in id order, each linked to the
** previous one, ordered by their incoming slice (a slice has at most one
** flow id, so each slice comes in at most once). */
int pf_import_flows(pf_import *st) {
  flow_vec tagged = {0};
  for (int64_t id = 0; id < st->slices.n; id++) {
    const pfc_slice *s = &st->slices.v[st->order[id]];
    pfc_flow *f = s->has_flow ? PUSH(st, tagged, "flows") : NULL;
    if (s->has_flow && !f) {
      xp_free(tagged.v);
      return 0;
    }
    if (f) f->a = s->flow_id, f->b = id;
  }
  if (tagged.n) qsort(tagged.v, (size_t)tagged.n, sizeof(pfc_flow), by_a_b);
  int ok = 1;
  for (int64_t i = 1; ok && i < tagged.n; i++) {
    if (tagged.v[i].a != tagged.v[i - 1].a) continue;
    pfc_flow *f = PUSH(st, st->flows, "flows");
    if (!f) ok = 0;
    else f->a = (uint64_t)tagged.v[i].b, f->b = tagged.v[i - 1].b; /* (in, out): sorted by in */
  }
  xp_free(tagged.v);
  if (ok && st->flows.n) qsort(st->flows.v, (size_t)st->flows.n, sizeof(pfc_flow), by_a_b);
  return ok;
}
