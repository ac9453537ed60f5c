/*
** pf_import.c: trace processor's import of a converted profile, emulated
** (see pf_import.h).
*/
#include "pf_import.h"

#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "util.h"

/* Make room for `more` elements of `size` bytes in vector `what` (v, n, cap)
** of st; 0 on OOM, noting in st->too_large when the array's next size is
** past what one allocation may hold (xp_grow_too_large): the data is too
** large, memory has not run out. For the arrays that grow with the tracks;
** those that grow with the events are chunked (cpush). */
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

/* A new last element of chunked array v (named `what`), NULL on failure
** (st->too_large set when v refused a size past one allocation: only when
** its array of blocks would be). */
static void *cpush(pf_import *st, xp_cvec *v, const char *what) {
  void *x = xp_cvec_push(v);
  if (!x && v->refused) st->too_large = what;
  return x;
}

/* ---- the pool of text ---- */

static void pool_init(pf_pool *p) {
  memset(p, 0, sizeof(*p));
  uint64_t max = xp_alloc_limit() - 1;
  p->shift = 0;
  while (p->shift < 40 && ((uint64_t)2 << p->shift) <= max) p->shift++;
}

static void pool_free(pf_pool *p) {
  for (int64_t b = 0; b < p->n_blocks; b++) xp_free(p->block[b]);
  xp_free(p->block);
  memset(p, 0, sizeof(*p));
}

/* Room for a string of `len` bytes and its NUL at a new offset; a pointer to
** it with *off set, or NULL on failure (st->too_long / too_large set when
** the size, not memory, is the reason). The caller fills it in. */
static char *pool_room(pf_import *st, size_t len, int64_t *off) {
  pf_pool *p = &st->pool;
  int64_t block = (int64_t)1 << p->shift, need = (int64_t)len + 1;
  if ((uint64_t)len + 1 >= xp_alloc_limit()) {
    st->too_long = (int64_t)len + 1;
    return NULL;
  }
  int64_t at = p->n, b = at >> p->shift, in = at & (block - 1);
  if (in && in + need > block) at = ++b << p->shift, in = 0; /* not across a block's end */
  if (b == 0 && need <= block) { /* block 0 grows by doubling */
    if (p->first_cap < in + need) {
      int64_t nc = p->first_cap ? p->first_cap : 256;
      while (nc < in + need) nc *= 2;
      if (nc > block) nc = block;
      if (!p->block && !(p->block = xp_malloc(sizeof(char *)))) return NULL;
      if (!p->cap_blocks) p->cap_blocks = 1;
      char *z = xp_realloc(p->n_blocks ? p->block[0] : NULL, (uint64_t)nc);
      if (!z) return NULL;
      p->block[0] = z, p->n_blocks = 1, p->first_cap = nc;
    }
  } else if (b >= p->n_blocks) { /* a new block: whole, or the size of a string longer than one */
    if (b >= p->cap_blocks && !xp_grow((void **)&p->block, &p->cap_blocks, b + 1, sizeof(char *))) {
      if (xp_grow_too_large(p->cap_blocks, b + 1, sizeof(char *))) st->too_large = "strings";
      return NULL;
    }
    if (b == 0) p->first_cap = block; /* block 0 holds one long string: never grown */
    char *z = xp_malloc((uint64_t)(need > block ? need : block));
    if (!z) return NULL;
    p->block[p->n_blocks++] = z;
  }
  /* a string longer than a block ends its block: the next starts a new one */
  p->n = need > block ? (b + 1) << p->shift : at + need;
  *off = at;
  return p->block[b] + in;
}

/* Copy prefix + p[0..n) into the pool; its offset, or -1 on failure. */
static int64_t pool_add(pf_import *st, const char *prefix, const char *p, size_t n) {
  size_t k = strlen(prefix);
  int64_t off;
  char *z = pool_room(st, k + n, &off);
  if (!z) return -1;
  memcpy(z, prefix, k);
  if (n) memcpy(z + k, p, n);
  z[k + n] = 0;
  return off;
}

/* ---- interned text ---- */

/* At most this many distinct strings are interned: 2^20 (an index of 16 to
** 32 MB), fewer when one allocation may hold less than 256 bytes per entry
** (XPLANE_FAIL_ALLOC_ABOVE), so the index stays within an eighth of one
** allocation. Past it, a new string is added to the pool each time it
** comes, as before interning, and keys are compared as text. */
static int64_t intern_max(void) {
  uint64_t by_limit = xp_alloc_limit() / 256;
  return by_limit < ((uint64_t)1 << 20) ? (int64_t)by_limit : (int64_t)1 << 20;
}

/* Are the interned strings at intern_max()? */
static int intern_full(const pf_import *st) { return st->n_interned >= intern_max(); }

typedef struct intern_probe {
  const pf_import *st;
  const char *p;
  size_t n;
} intern_probe;

static int interned_eq(const void *ctx, int64_t e) {
  const intern_probe *k = ctx;
  const struct pf_interned *x = &k->st->interned[e];
  return (size_t)x->len == k->n && (k->n == 0 || memcmp(pf_pool_at(&k->st->pool, x->off), k->p, k->n) == 0);
}

static uint64_t interned_hash(const void *ctx, int64_t e) {
  const pf_import *st = ctx;
  return xp_hash_bytes(0, pf_pool_at(&st->pool, st->interned[e].off), (size_t)st->interned[e].len);
}

/* The pool offset of text p[0..n), added once for up to intern_max()
** distinct texts (keys repeat on every slice, string values often); -1 on
** failure. */
static int64_t pool_intern(pf_import *st, const char *p, size_t n) {
  int full = intern_full(st); /* then a text is looked up, not added */
  if (full && !st->n_interned) return pool_add(st, "", p, n); /* a limit under 256 bytes: no index */
  if (!full && !xp_hmap_reserve(&st->intern_index, interned_hash, st)) return -1;
  intern_probe k = {st, p, n};
  uint64_t pos = xp_hmap_find(&st->intern_index, xp_hash_bytes(0, p, n), interned_eq, &k);
  if (st->intern_index.slot[pos] >= 0) return st->interned[st->intern_index.slot[pos]].off;
  if (full) return pool_add(st, "", p, n);
  if (!xp_grow((void **)&st->interned, &st->cap_interned, st->n_interned + 1, sizeof(*st->interned))) return -1;
  int64_t off = pool_add(st, "", p, n);
  if (off < 0) return -1;
  st->interned[st->n_interned] = (struct pf_interned){off, (int64_t)n};
  xp_hmap_put(&st->intern_index, pos, st->n_interned++);
  return off;
}

/* Trace processor's key for a debug annotation (pf_key_char), interned. */
static int64_t pool_add_key(pf_import *st, const char *p, size_t n) {
  if ((uint64_t)n + 7 >= xp_alloc_limit()) {
    st->too_long = (int64_t)n + 7;
    return -1;
  }
  if (!xp_grow((void **)&st->scratch, &st->cap_scratch, (int64_t)n + 6, 1)) return -1;
  memcpy(st->scratch, "debug.", 6);
  for (size_t i = 0; i < n; i++) st->scratch[6 + i] = pf_key_char(p[i]);
  return pool_intern(st, st->scratch, n + 6);
}

static void init_arrays(pf_import *st) {
  xp_cvec_init(&st->slices, sizeof(pfc_slice));
  xp_cvec_init(&st->args, sizeof(pfc_arg));
  xp_cvec_init(&st->flows, sizeof(pfc_flow));
  xp_cvec_init(&st->ends, sizeof(pfc_end));
  xp_cvec_init(&st->order, sizeof(int64_t));
  xp_cvec_init(&st->id_of, sizeof(int64_t));
  pool_init(&st->pool);
}

void pf_import_free(pf_import *st) {
  xp_cvec_free(&st->slices);
  xp_free(st->tracks.v);
  xp_free(st->track_of_uuid.v);
  xp_free(st->threads.v);
  xp_free(st->processes.v);
  xp_cvec_free(&st->args);
  xp_cvec_free(&st->flows);
  pool_free(&st->pool);
  xp_cvec_free(&st->ends);
  xp_cvec_free(&st->order);
  xp_cvec_free(&st->id_of);
  xp_free(st->track_rows);
  xp_free(st->interned);
  xp_hmap_free(&st->intern_index);
  xp_free(st->scratch);
  memset(st, 0, sizeof(*st));
}

static int nomem(const pf_import *st, char **errmsg) {
  if (st->too_long)
    *errmsg = xp_mprintf("too large for the Perfetto-model tables: one of its strings needs %lld bytes, more than "
                         "one allocation may hold (%llu bytes); xplane2perfetto converts it for trace processor",
                         (long long)st->too_long, (unsigned long long)xp_alloc_limit() - 1);
  else if (st->too_large)
    *errmsg = xp_mprintf("too large for the Perfetto-model tables: its %s need more than %llu bytes in one array "
                         "(the limit of one allocation); xplane2perfetto converts it for trace processor",
                         st->too_large, (unsigned long long)xp_alloc_limit() - 1);
  else if (xp_cancel_stopped())
    *errmsg = xp_mprintf("%s", XP_CANCELLED_TEXT);
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

/* The args of the slice being imported (from args[lo]) and a key: the
** context of the key index below. */
typedef struct arg_keys {
  const pf_import *st;
  int64_t lo;
  const char *key;
} arg_keys;

static int arg_key_eq(const void *ctx, int64_t entry) {
  const arg_keys *k = ctx;
  return strcmp(pf_pool_at(&k->st->pool, pfc_arg_key(pf_arg_at(k->st, k->lo + entry))), k->key) == 0;
}

/* Past this many args on one slice, a repeated key is found by a hash index
** instead of comparing with every arg before it. */
#define ARG_SCAN_MAX 16

static int on_event(void *ctx, const pf_event *e, char **errmsg) {
  pf_import *st = ctx;
  int64_t pos = st->n_events++;
  if (e->type == PF_END) {
    pfc_end *x = cpush(st, &st->ends, "slices");
    if (!x) return nomem(st, errmsg);
    x->ts = e->ts_ns, x->pos = pos, x->track = st->track_of_uuid.v[e->track->uuid];
    return 1;
  }
  pfc_slice *s = cpush(st, &st->slices, "slices");
  if (!s) return nomem(st, errmsg);
  s->pos = pos;
  s->instant = e->type == PF_INSTANT;
  s->ts = e->ts_ns;
  s->dur = e->type == PF_BEGIN ? e->end_ns - e->ts_ns : 0;
  s->parent_ordinal = e->parent_ordinal;
  s->track = st->track_of_uuid.v[e->track->uuid];
  s->depth = e->depth;
  s->has_name = (uint8_t)(e->has_name != 0);
  s->has_flow = (uint8_t)(e->has_flow != 0);
  s->flow_id = e->flow_id;
  s->name = e->name;
  s->category = e->category;
  s->arg_lo = st->args.n;
  /* A key given again on the slice (after the '_' rewriting) replaces the
  ** value of its first arg, which keeps its place: trace processor keeps one
  ** arg per key, the last value, at the first one's position (checked on
  ** trace_processor_shell v58.2 by tests/test_trace_processor.sh). Keys are
  ** interned (pool_intern), so equal keys have one offset -- unless the
  ** interned strings are at their maximum: then the texts are compared. */
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
    keys.key = pf_pool_at(&st->pool, key);
    int64_t same = -1;
    uint64_t hpos = 0;
    if (index.mask) {
      hpos = xp_hmap_find(&index, xp_hash_bytes(0, keys.key, strlen(keys.key)), arg_key_eq, &keys);
      same = index.slot[hpos] >= 0 ? lo + index.slot[hpos] : -1;
    } else {
      int by_text = intern_full(st);
      for (int64_t j = lo; j < st->args.n && same < 0; j++) {
        int64_t kj = pfc_arg_key(pf_arg_at(st, j));
        if (kj == key || (by_text && strcmp(pf_pool_at(&st->pool, kj), keys.key) == 0)) same = j;
      }
    }
    pfc_arg *r;
    if (same >= 0) {
      r = xp_cvec_at(&st->args, same);
      key = pfc_arg_key(r);
    } else {
      r = cpush(st, &st->args, "args");
      if (!r) {
        xp_hmap_free(&index);
        return nomem(st, errmsg);
      }
      if (index.mask) xp_hmap_put(&index, hpos, st->args.n - 1 - lo);
    }
    int64_t v = 0;
    switch (a->type) {
      case PF_A_UINT: v = (int64_t)a->v.u; break;
      case PF_A_INT: v = a->v.i; break;
      case PF_A_DOUBLE: memcpy(&v, &a->v.d, sizeof v); break;
      case PF_A_STRING:
        if ((v = pool_intern(st, a->s.p, a->s.n)) < 0) {
          xp_hmap_free(&index);
          return nomem(st, errmsg);
        }
        break;
    }
    r->key_type = (uint64_t)key << 8 | (uint64_t)a->type;
    r->v = v;
  }
  xp_hmap_free(&index);
  s->n_args = (int32_t)(st->args.n - lo);
  return 1;
}

/* Slices sorted by (ts, ordinal). */
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

/* Every few thousand slices of the loops over all slices: stop when the
** query was interrupted. */
#define STOPPED(i) (((i) & 4095) == 4095 && xp_cancelled())

/* Nest an instant in the instant before it on its track when both have one
** ts and no BEGIN or END of the track came between them (import order). 0
** on out of memory or interrupt. */
static int nest_instants(pf_import *st) {
  int64_t *open = xp_malloc(sizeof(int64_t) * (uint64_t)(st->tracks.n + 1));
  if (!open) return 0;
  for (int64_t t = 0; t < st->tracks.n; t++) open[t] = -1;
  if (!xp_cvec_sort(&st->ends, by_ts_pos)) {
    xp_free(open);
    return 0;
  }
  int64_t j = 0, n = st->slices.n, n_ends = st->ends.n;
  for (int64_t id = 0; id < n; id++) {
    if (STOPPED(id)) {
      xp_free(open);
      return 0;
    }
    int64_t ord = *(const int64_t *)xp_cvec_at(&st->order, id);
    pfc_slice *s = pf_slice(st, ord);
    for (; j < n_ends; j++) {
      const pfc_end *e = xp_cvec_at(&st->ends, j);
      if (!(e->ts < s->ts || (e->ts == s->ts && e->pos < s->pos))) break;
      open[e->track] = -1;
    }
    if (!s->instant) {
      open[s->track] = -1;
      continue;
    }
    const pfc_slice *o = open[s->track] >= 0 ? pf_slice(st, open[s->track]) : NULL;
    if (o && o->ts == s->ts) s->parent_ordinal = open[s->track], s->depth = o->depth + 1;
    open[s->track] = ord;
  }
  xp_free(open);
  return 1;
}

/* Run the model over the profile and number everything as trace processor. */
int pf_import_build(pf_import *st, const xp_file *f, xp_profile *p, int want_args, char **errmsg) {
  pf_import_free(st);
  init_arrays(st);
  *errmsg = NULL;
  pf_sink sink = {st, on_process, on_track, on_event, want_args};
  pf_model *m = pf_model_new(&sink, 0);
  /* upid/utid 0: trace processor's placeholders */
  int ok = m && add_row3(&st->processes, st, 0, 0, NULL, 0) &&
           add_row3(&st->threads, st, 0, 0, NULL, -1) && pf_model_add(m, f, p, errmsg);
  pf_model_free(m);
  if (!ok) return 0;
  int64_t n = st->slices.n;
  xp_cvec keys;
  xp_cvec_init(&keys, sizeof(ts_ord));
  st->track_rows = xp_malloc(sizeof(int64_t) * (uint64_t)(st->tracks.n + 1));
  if (!st->track_rows || !xp_cvec_resize(&st->order, n) || !xp_cvec_resize(&st->id_of, n) ||
      !xp_cvec_resize(&keys, n)) {
    if (st->order.refused || st->id_of.refused || keys.refused) st->too_large = "slices";
    xp_cvec_free(&keys);
    return nomem(st, errmsg);
  }
  for (int64_t i = 0; i < n; i++) {
    ts_ord *k = xp_cvec_at(&keys, i);
    k->ts = pf_slice(st, i)->ts, k->ordinal = i;
  }
  if (!xp_cvec_sort(&keys, by_ts_ordinal)) {
    xp_cvec_free(&keys);
    return nomem(st, errmsg);
  }
  for (int64_t i = 0; i < n; i++)
    *(int64_t *)xp_cvec_at(&st->order, i) = ((const ts_ord *)xp_cvec_at(&keys, i))->ordinal;
  xp_cvec_free(&keys);
  if (!nest_instants(st)) return nomem(st, errmsg);
  int64_t n_ids = 0; /* every used track takes an id; thread tracks are listed */
  for (int64_t id = 0; id < n; id++) {
    if (STOPPED(id)) return nomem(st, errmsg);
    int64_t ord = *(const int64_t *)xp_cvec_at(&st->order, id);
    *(int64_t *)xp_cvec_at(&st->id_of, ord) = id;
    int32_t track = pf_slice(st, ord)->track;
    pfc_track *t = &st->tracks.v[track];
    if (t->id < 0) {
      t->id = n_ids++;
      if (!t->global) st->track_rows[st->n_track_rows++] = track;
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
int pf_import_flows(pf_import *st, char **errmsg) {
  *errmsg = NULL;
  st->flows.n = 0; /* again after a failure */
  xp_cvec tagged;
  xp_cvec_init(&tagged, sizeof(pfc_flow));
  int ok = 1;
  for (int64_t id = 0; ok && id < st->slices.n; id++) {
    if (STOPPED(id)) ok = 0;
    const pfc_slice *s = ok ? pf_slice_by_id(st, id) : NULL;
    if (!s || !s->has_flow) continue;
    pfc_flow *f = cpush(st, &tagged, "flows");
    if (!f) ok = 0;
    else f->a = s->flow_id, f->b = id;
  }
  ok = ok && xp_cvec_sort(&tagged, by_a_b);
  for (int64_t i = 1; ok && i < tagged.n; i++) {
    const pfc_flow *x = xp_cvec_at(&tagged, i), *prev = xp_cvec_at(&tagged, i - 1);
    if (x->a != prev->a) continue;
    pfc_flow *f = cpush(st, &st->flows, "flows");
    if (!f) ok = 0;
    else f->a = (uint64_t)x->b, f->b = prev->b; /* (in, out): sorted by in */
  }
  xp_cvec_free(&tagged);
  return ok && xp_cvec_sort(&st->flows, by_a_b) ? 1 : nomem(st, errmsg);
}
