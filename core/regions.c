/*
** regions.c: hierarchical regions (named scopes) of the device ops, with the
** redundant unary paths pruned (see analysis.h).
*/
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "cancel.h"
#include "semantics.h"
#include "util.h"

/* The regions by path: entries in first-seen order, indexed by xp_hmap. */
typedef struct scope_map {
  xp_scope *v;
  int64_t n, cap;
  xp_hmap index; /* into v */
} scope_map;

static uint64_t scope_hash_of(const void *ctx, int64_t i) {
  const char *path = ((const scope_map *)ctx)->v[i].path;
  return xp_hash_bytes(0, path, strlen(path));
}

typedef struct scope_key {
  const scope_map *m;
  const char *p;
  size_t n;
} scope_key;

static int scope_eq(const void *ctx, int64_t i) {
  const scope_key *k = ctx;
  const char *q = k->m->v[i].path;
  return strlen(q) == k->n && memcmp(q, k->p, k->n) == 0;
}

/* The index of path p[0..n) in the map, added (with `depth`) when absent and
** `add` is set; -1 when absent, -2 on OOM. */
static int64_t map_get(scope_map *m, const char *p, size_t n, int32_t depth, int add) {
  if (add && !xp_hmap_reserve(&m->index, scope_hash_of, m)) return -2;
  if (!m->index.slot) return -1;
  scope_key key = {m, p, n};
  uint64_t pos = xp_hmap_find(&m->index, xp_hash_bytes(0, p, n), scope_eq, &key);
  if (m->index.slot[pos] >= 0) return m->index.slot[pos];
  if (!add) return -1;
  if (!xp_grow((void **)&m->v, &m->cap, m->n + 1, sizeof(xp_scope))) return -2;
  xp_scope *s = &m->v[m->n];
  memset(s, 0, sizeof(*s));
  s->path = xp_mprintf("%.*s", (int)n, p);
  if (!s->path) return -2;
  s->depth = depth;
  s->parent = -1;
  xp_hmap_put(&m->index, pos, m->n);
  return m->n++;
}

/* Index the entries again after they were reordered or dropped. */
static int map_reindex(scope_map *m) {
  if (!xp_hmap_init(&m->index, m->n)) return 0;
  for (int64_t i = 0; i < m->n; i++) {
    scope_key key = {m, m->v[i].path, strlen(m->v[i].path)};
    xp_hmap_put(&m->index, xp_hmap_find(&m->index, xp_hash_bytes(0, key.p, key.n), scope_eq, &key), i);
  }
  return 1;
}

/* math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6 us = 1 ps) */
static int close_ps(int64_t a, int64_t b) {
  double d = (double)(a > b ? a - b : b - a);
  double m = (double)(a > b ? a : b);
  return d <= 1.0 || d <= 1e-9 * m;
}

static int by_scope_order(const void *x, const void *y) {
  const xp_scope *a = x, *b = y;
  if (a->inclusive_ps != b->inclusive_ps) return a->inclusive_ps > b->inclusive_ps ? -1 : 1;
  if (a->exclusive_ps != b->exclusive_ps) return a->exclusive_ps > b->exclusive_ps ? -1 : 1;
  return strcmp(a->path, b->path);
}

/* The region path of an (op name, tf_op) pair is worked out once per pair
** of addresses (util.h's xp_addrmemo: names and tf_op values repeat the same
** addresses): the memo gives the pair's path, whose `parts` prefixes have
** their scope indices in idx[first ...]. */
typedef struct path_parts {
  int64_t first;
  int32_t parts;
} path_parts;

typedef struct path_memo {
  xp_addrmemo by_addr; /* (name, tf_op) -> index into v */
  path_parts *v;
  int64_t n, cap;
  int64_t *idx;
  int64_t n_idx, cap_idx;
} path_memo;

static int build_scopes(xp_profile *p, xp_analysis *a, scope_map *m, const xp_facts *f) {
  path_memo memo;
  memset(&memo, 0, sizeof(memo));
  xp_buf *path = xp_buf_new();
  int ok = 1;
  for (int64_t i = 0; ok && i < a->n_ops; i++) {
    if ((i & 4095) == 4095 && xp_cancelled()) { ok = 0; break; } /* long loops stop on an interrupt (cancel.h) */
    const xp_op *o = &a->ops[i];
    xp_str tf = xp_fact_text(p, f->tf_op[i]), name = xp_op_name(p, o);
    xp_addr_key key = {name.p, tf.p, NULL, name.n, tf.n, 0, 0};
    uint64_t pos;
    int64_t e;
    int found = xp_addrmemo_get(&memo.by_addr, &key, &e, &pos);
    if (found < 0) { ok = 0; break; }
    if (!found) {
      /* work the path out once: the scope index of each prefix */
      xp_buf_reset(path);
      int parts = xp_scope_path(path, tf.p, tf.n, name.p, name.n, 0);
      const char *z = xp_buf_value(path);
      size_t n = (size_t)xp_buf_length(path), end = 0;
      if (!z) z = "";
      if (!xp_grow((void **)&memo.idx, &memo.cap_idx, memo.n_idx + parts, sizeof(int64_t))) { ok = 0; break; }
      for (int32_t d = 1; ok && d <= parts; d++) {
        if (d > 1) end += 2;
        while (end < n && !(end + 1 < n && z[end] == '=' && z[end + 1] == '>')) end++;
        int64_t k = map_get(m, z, end, d, 1);
        if (k < 0) ok = 0;
        else memo.idx[memo.n_idx + d - 1] = k;
      }
      if (!ok) break;
      if (!xp_grow((void **)&memo.v, &memo.cap, memo.n + 1, sizeof(path_parts)) ||
          !xp_addrmemo_put(&memo.by_addr, pos, &key, memo.n)) { ok = 0; break; }
      memo.v[memo.n].first = memo.n_idx;
      memo.v[memo.n].parts = parts;
      memo.n_idx += parts;
      e = memo.n++;
    }
    int64_t self = o->self_ps > 0 ? o->self_ps : 0;
    const path_parts *pp = &memo.v[e];
    for (int32_t d = 1; d <= pp->parts; d++) {
      xp_scope *sc = &m->v[memo.idx[pp->first + d - 1]];
      sc->count++;
      sc->inclusive_ps += self;
      if (d == pp->parts) sc->exclusive_ps += self;
    }
  }
  xp_addrmemo_free(&memo.by_addr);
  xp_free(memo.v);
  xp_free(memo.idx);
  xp_free(xp_buf_finish(path));
  return ok;
}

int xp_scopes_build(xp_profile *p, const xp_facts *f) {
  xp_analysis *a = p->analysis;
  if (a->n_scopes < 0) {
    scope_map m;
    memset(&m, 0, sizeof(m));
    int ok = build_scopes(p, a, &m, f);
    /* children by string: the parent of a=>b=>c is a=>b */
    int64_t *kids = ok ? xp_malloc(sizeof(int64_t) * 2 * (uint64_t)(m.n + 1)) : NULL;
    ok = ok && kids;
    int64_t *only = kids ? kids + m.n + 1 : NULL;
    for (int64_t i = 0; ok && i < m.n; i++) kids[i] = 0, only[i] = -1;
    for (int64_t i = 0; ok && i < m.n; i++) {
      const char *z = m.v[i].path, *last = NULL;
      for (const char *q = strstr(z, "=>"); q; q = strstr(q + 2, "=>")) last = q;
      if (!last) continue;
      int64_t parent = map_get(&m, z, (size_t)(last - z), 0, 0);
      if (parent < 0) continue;
      kids[parent]++;
      only[parent] = i;
    }
    /* drop redundant unary paths (depth > 1, one child of equal inclusive time) */
    int64_t out = 0;
    for (int64_t i = 0; ok && i < m.n; i++) {
      int redundant = m.v[i].depth > 1 && kids[i] == 1 && close_ps(m.v[i].inclusive_ps, m.v[only[i]].inclusive_ps);
      if (redundant) xp_free(m.v[i].path);
      else m.v[out++] = m.v[i];
    }
    if (ok) m.n = out;
    xp_free(kids);
    if (!ok) {
      xp_hmap_free(&m.index);
      for (int64_t i = 0; i < m.n; i++) xp_free(m.v[i].path);
      xp_free(m.v);
      return 0;
    }
    if (m.n) qsort(m.v, (size_t)m.n, sizeof(xp_scope), by_scope_order);
    /* parent = the nearest surviving ancestor, by index in the final order */
    ok = map_reindex(&m);
    for (int64_t i = 0; ok && i < m.n; i++) {
      const char *z = m.v[i].path;
      size_t end = strlen(z);
      m.v[i].parent = -1;
      while (m.v[i].parent < 0) {
        while (end > 0 && !(end >= 2 && z[end - 2] == '=' && z[end - 1] == '>')) end--;
        if (end < 2) break;
        end -= 2;
        int64_t k = map_get(&m, z, end, 0, 0);
        if (k >= 0) m.v[i].parent = (int32_t)k;
      }
    }
    xp_hmap_free(&m.index);
    if (!ok) {
      for (int64_t i = 0; i < m.n; i++) xp_free(m.v[i].path);
      xp_free(m.v);
      return 0;
    }
    a->scopes = m.v;
    a->n_scopes = m.n;
  }
  return 1;
}
