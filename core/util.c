/*
** util.c: heap, formatted strings, text buffer, growable arrays and the hash
** index shared by every part of xplane-sqlite (see util.h).
*/
#include "util.h"

#include "cancel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* ---- memory ----------------------------------------------------------- */

/* The largest request served (util.h): XP_ALLOC_MAX - 1, or less with
** XPLANE_FAIL_ALLOC_ABOVE; 0 until read. Threads may race to read it first:
** they compute the same value. */
static uint64_t alloc_limit;

static uint64_t read_alloc_limit(void) {
  uint64_t lim = XP_ALLOC_MAX - 1;
  const char *env = getenv("XPLANE_FAIL_ALLOC_ABOVE");
  if (env && *env) {
    char *end = NULL;
    unsigned long long v = strtoull(env, &end, 10);
    if (end && *end == 0 && v < lim) lim = v;
  }
  __atomic_store_n(&alloc_limit, lim + 1, __ATOMIC_RELAXED);
  return lim + 1;
}

uint64_t xp_alloc_limit(void) {
  uint64_t lim = __atomic_load_n(&alloc_limit, __ATOMIC_RELAXED);
  return lim ? lim : read_alloc_limit(); /* the largest allowed + 1 */
}

static int alloc_refused(uint64_t n) { return n >= xp_alloc_limit(); }

void *xp_malloc(uint64_t n) {
  if (alloc_refused(n)) return NULL;
  return malloc(n ? (size_t)n : 1);
}

void *xp_realloc(void *p, uint64_t n) {
  if (alloc_refused(n)) return NULL;
  return realloc(p, n ? (size_t)n : 1);
}

void xp_free(void *p) { free(p); }

char *xp_vmprintf(const char *fmt, va_list ap) {
  char *z = NULL;
  if (vasprintf(&z, fmt, ap) < 0) return NULL;
  return z;
}

char *xp_mprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *z = xp_vmprintf(fmt, ap);
  va_end(ap);
  return z;
}

int xp_parse_double(const char *p, size_t n, double *out) {
  char buf[64];
  if (n == 0 || n >= sizeof(buf)) return 0;
  memcpy(buf, p, n);
  buf[n] = 0;
  char *end;
  double v = strtod(buf, &end);
  if (*end || !isfinite(v)) return 0;
  *out = v;
  return 1;
}

/* The capacity xp_grow asks for to hold `need` (cap doubled, or exactly need
** when doubling would pass XP_ALLOC_MAX); -1 when none fits. */
static int64_t grow_target(int64_t cap, int64_t need, size_t elt) {
  int64_t nc = cap > 0 ? cap : 8;
  while (nc < need) {
    if (nc > INT64_MAX / 2) return -1;
    nc *= 2;
  }
  if (elt && (uint64_t)nc > XP_ALLOC_MAX / elt) {
    nc = need; /* doubling would pass the limit: try the exact size */
    if ((uint64_t)nc > XP_ALLOC_MAX / elt) return -1;
  }
  return nc;
}

int xp_grow_too_large(int64_t cap, int64_t need, size_t elt) {
  if (need <= cap) return 0;
  int64_t nc = grow_target(cap, need, elt);
  return nc < 0 || (elt && (uint64_t)nc >= xp_alloc_limit() / elt);
}

int xp_grow(void **arr, int64_t *cap, int64_t need, size_t elt) {
  if (need <= *cap) return 1;
  int64_t nc = grow_target(*cap, need, elt);
  if (nc < 0) return 0;
  void *p = xp_realloc(*arr, (uint64_t)nc * elt);
  if (!p) return 0;
  *arr = p;
  *cap = nc;
  return 1;
}

int xp_grow32(void **arr, int32_t *cap, int32_t need, size_t elt) {
  int64_t c = *cap;
  if (need <= c) return 1;
  if (!xp_grow(arr, &c, need, elt)) return 0;
  *cap = c > INT32_MAX ? INT32_MAX : (int32_t)c;
  return 1;
}

/* ---- text buffer ------------------------------------------------------ */

static xp_buf nomem_buf = {NULL, 0, 0, XP_BUF_NOMEM};

xp_buf *xp_buf_new(void) {
  xp_buf *b = calloc(1, sizeof(*b));
  return b ? b : &nomem_buf;
}

/* Room for n more bytes and a NUL; 0 (and the error set) when there is none. */
static int reserve(xp_buf *b, size_t n) {
  if (b->err) return 0;
  if (n > XP_BUF_MAX || b->n > XP_BUF_MAX - n) {
    b->err = XP_BUF_TOOBIG;
    return 0;
  }
  size_t need = b->n + n + 1;
  if (need <= b->cap) return 1;
  size_t nc = b->cap ? b->cap : 64;
  while (nc < need) nc *= 2;
  char *z = xp_realloc(b->z, nc);
  if (!z) {
    b->err = XP_BUF_NOMEM;
    return 0;
  }
  b->z = z;
  b->cap = nc;
  return 1;
}

void xp_buf_append(xp_buf *b, const char *p, size_t n) {
  if (!n || !reserve(b, n)) return;
  memcpy(b->z + b->n, p, n);
  b->n += n;
  b->z[b->n] = 0;
}

void xp_buf_appendall(xp_buf *b, const char *z) { xp_buf_append(b, z, strlen(z)); }

void xp_buf_appendchar(xp_buf *b, size_t n, char c) {
  if (!n || !reserve(b, n)) return;
  memset(b->z + b->n, c, n);
  b->n += n;
  b->z[b->n] = 0;
}

void xp_buf_appendf(xp_buf *b, const char *fmt, ...) {
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof(small), fmt, ap);
  va_end(ap);
  if (n < 0) {
    if (!b->err) b->err = XP_BUF_NOMEM;
    return;
  }
  if ((size_t)n < sizeof(small)) {
    xp_buf_append(b, small, (size_t)n);
    return;
  }
  if (!reserve(b, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(b->z + b->n, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)n;
}

void xp_buf_append_g17(xp_buf *b, double d) {
  char t[48];
  int n = snprintf(t, sizeof(t), "%.17g", d);
  if (n <= 0 || (size_t)n >= sizeof(t)) return;
  if (!isfinite(d) || strchr(t, '.')) {
    xp_buf_append(b, t, (size_t)n);
    return;
  }
  /* No decimal point: put ".0" before the exponent, or at the end. */
  char *e = strchr(t, 'e');
  size_t mant = e ? (size_t)(e - t) : (size_t)n;
  xp_buf_append(b, t, mant);
  xp_buf_append(b, ".0", 2);
  if (e) xp_buf_append(b, e, (size_t)n - mant);
}

void xp_buf_reset(xp_buf *b) {
  if (b == &nomem_buf) return;
  b->n = 0;
  b->err = 0;
  if (b->z) b->z[0] = 0;
}

size_t xp_buf_length(const xp_buf *b) { return b->err ? 0 : b->n; }

const char *xp_buf_value(const xp_buf *b) { return b->z && !b->err ? b->z : ""; }

int xp_buf_errcode(const xp_buf *b) { return b->err; }

char *xp_buf_finish(xp_buf *b) {
  if (b == &nomem_buf) return NULL;
  char *z = b->err || !b->n ? NULL : b->z;
  if (!z) free(b->z);
  free(b);
  return z;
}

void xp_buf_free(xp_buf *b) { free(xp_buf_finish(b)); }

/* ---- UTF-8 ------------------------------------------------------------ */

int xp_utf8_next(const unsigned char *p, size_t n, uint32_t *cp) {
  unsigned c = p[0], lo = 0x80, hi = 0xbf;
  int need;
  uint32_t v;
  if (c < 0x80) { *cp = c; return 1; }
  if (c >= 0xc2 && c <= 0xdf) { need = 1; v = c & 0x1f; }
  else if (c >= 0xe0 && c <= 0xef) { need = 2; v = c & 0x0f; if (c == 0xe0) lo = 0xa0; else if (c == 0xed) hi = 0x9f; }
  else if (c >= 0xf0 && c <= 0xf4) { need = 3; v = c & 0x07; if (c == 0xf0) lo = 0x90; else if (c == 0xf4) hi = 0x8f; }
  else { *cp = 0xfffd; return -1; } /* 80-c1, f5-ff never start a character */
  int i = 1;
  for (; i <= need && (size_t)i < n; i++) {
    unsigned b = p[i];
    if (b < lo || b > hi) break;
    v = v << 6 | (b & 0x3f);
    lo = 0x80, hi = 0xbf; /* only the second byte has narrower ranges */
  }
  if (i <= need) { *cp = 0xfffd; return -i; }
  *cp = v;
  return i;
}

size_t xp_utf8_valid_prefix(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  while (i < n) {
    /* ASCII eight bytes at a time (most names are ASCII) */
    uint64_t word;
    while (i + 8 <= n && (memcpy(&word, p + i, 8), (word & 0x8080808080808080ULL) == 0)) i += 8;
    if (i >= n) break;
    if (p[i] < 0x80) {
      i++;
      continue;
    }
    uint32_t cp;
    int k = xp_utf8_next(p + i, n - i, &cp);
    if (k < 0) return i;
    i += (size_t)k;
  }
  return n;
}

size_t xp_utf8_repair(char *out, const char *s, size_t n) {
  size_t i = xp_utf8_valid_prefix(s, n), o = i;
  if (i) memcpy(out, s, i);
  while (i < n) {
    uint32_t cp;
    int k = xp_utf8_next((const unsigned char *)s + i, n - i, &cp);
    if (k > 0) {
      memcpy(out + o, s + i, (size_t)k);
      o += (size_t)k;
      i += (size_t)k;
    } else {
      memcpy(out + o, "\xef\xbf\xbd", 3);
      o += 3;
      i += (size_t)-k;
    }
  }
  return o;
}

/* ---- hashing ---------------------------------------------------------- */

uint64_t xp_hash_seed_value = 0x243f6a8885a308d3ULL;

__attribute__((constructor)) static void seed_hashes(void) {
  uint64_t s = 0;
  if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s)) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    s = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)&s ^ (uint64_t)ts.tv_sec;
  }
  xp_hash_seed_value ^= s;
}

/* ---- id map ----------------------------------------------------------- */

static void idmap_place(xp_idmap *m, int64_t key, int32_t val) {
  uint32_t h = (uint32_t)xp_hash_u64((uint64_t)key) & m->mask;
  while (m->vals[h] >= 0 && m->keys[h] != key) h = (h + 1) & m->mask;
  if (m->vals[h] < 0) m->n++;
  m->keys[h] = key;
  m->vals[h] = val;
}

int xp_idmap_reserve(xp_idmap *m, uint32_t n) {
  if (m->vals && (uint64_t)n * 2 <= m->mask) return 1;
  /* At most half full; small maps stay small (a plane of one name: 4 slots,
  ** 48 bytes), as a profile can hold a million of them. */
  uint64_t cap = 4;
  while (cap < (uint64_t)n * 2 + 2) cap *= 2;
  if (cap > UINT32_MAX) return 0;
  int64_t *keys = xp_malloc(sizeof(int64_t) * cap);
  int32_t *vals = xp_malloc(sizeof(int32_t) * cap);
  if (!keys || !vals) {
    xp_free(keys);
    xp_free(vals);
    return 0;
  }
  memset(vals, 0xff, sizeof(int32_t) * cap);
  xp_idmap old = *m;
  m->keys = keys;
  m->vals = vals;
  m->mask = (uint32_t)(cap - 1);
  m->n = 0;
  for (uint64_t i = 0; old.vals && i <= old.mask; i++)
    if (old.vals[i] >= 0) idmap_place(m, old.keys[i], old.vals[i]);
  xp_idmap_free(&old);
  return 1;
}

int xp_idmap_put(xp_idmap *m, int64_t key, int32_t val) {
  if (!xp_idmap_reserve(m, m->n + 1)) return 0;
  idmap_place(m, key, val);
  return 1;
}

void xp_idmap_free(xp_idmap *m) {
  xp_free(m->keys);
  xp_free(m->vals);
  m->keys = NULL;
  m->vals = NULL;
  m->mask = m->n = 0;
}

/* ---- hash index ------------------------------------------------------- */

static int alloc_slots(xp_hmap *m, uint64_t cap) {
  if (cap > XP_ALLOC_MAX / sizeof(int64_t)) return 0;
  int64_t *slot = xp_malloc(sizeof(int64_t) * cap);
  if (!slot) return 0;
  memset(slot, 0xff, sizeof(int64_t) * cap); /* -1 everywhere */
  xp_free(m->slot);
  m->slot = slot;
  m->mask = cap - 1;
  return 1;
}

int xp_hmap_init(xp_hmap *m, int64_t n) {
  uint64_t cap = 16;
  while (cap < 2 * (uint64_t)(n + 1)) cap *= 2;
  m->n = 0;
  return alloc_slots(m, cap);
}

int xp_hmap_reserve(xp_hmap *m, xp_hmap_hash_fn hash_of, const void *ctx) {
  if (m->slot && (uint64_t)(m->n + 1) * 2 <= m->mask) return 1;
  uint64_t cap = m->slot ? (m->mask + 1) * 2 : 256;
  int64_t *old = m->slot;
  uint64_t old_cap = m->slot ? m->mask + 1 : 0;
  m->slot = NULL;
  if (!alloc_slots(m, cap)) {
    m->slot = old;
    return 0;
  }
  for (uint64_t i = 0; i < old_cap; i++) {
    if (old[i] < 0) continue;
    uint64_t h = hash_of(ctx, old[i]) & m->mask;
    while (m->slot[h] >= 0) h = (h + 1) & m->mask;
    m->slot[h] = old[i];
  }
  xp_free(old);
  return 1;
}

void xp_hmap_free(xp_hmap *m) {
  xp_free(m->slot);
  m->slot = NULL;
  m->mask = 0;
  m->n = 0;
}

/* ---- counter of distinct strings ----------------------------------------- */

static uint64_t counted_key_hash(int64_t owner, int32_t kind, const char *p, size_t n) {
  return xp_hash_bytes((uint64_t)owner * 0x9e3779b97f4a7c15ULL ^ (uint64_t)kind, p, n);
}

static uint64_t counted_hash(const void *ctx, int64_t i) {
  const xp_counted *e = &((const xp_counter *)ctx)->v[i];
  return counted_key_hash(e->owner, e->kind, e->value, e->n);
}

typedef struct counted_key {
  const xp_counter *c;
  int64_t owner;
  int32_t kind;
  const char *p;
  size_t n;
} counted_key;

static int counted_eq(const void *ctx, int64_t i) {
  const counted_key *k = ctx;
  const xp_counted *e = &k->c->v[i];
  return e->owner == k->owner && e->kind == k->kind && e->n == k->n && (k->n == 0 || memcmp(e->value, k->p, k->n) == 0);
}

int64_t xp_counter_add(xp_counter *c, int64_t owner, int32_t kind, const char *p, size_t n, int64_t count,
                       int64_t seen) {
  if (!xp_hmap_reserve(&c->index, counted_hash, c)) return -1;
  counted_key key = {c, owner, kind, p, n};
  uint64_t pos = xp_hmap_find(&c->index, counted_key_hash(owner, kind, p, n), counted_eq, &key);
  if (c->index.slot[pos] >= 0) {
    xp_counted *e = &c->v[c->index.slot[pos]];
    e->count += count;
    if (seen < e->first_seen) e->first_seen = seen;
    return c->index.slot[pos];
  }
  if (!xp_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(xp_counted))) return -1;
  xp_counted *e = &c->v[c->n];
  e->value = xp_malloc(n + 1);
  if (!e->value) return -1;
  if (n) memcpy(e->value, p, n);
  e->value[n] = 0;
  e->n = n;
  e->owner = owner;
  e->kind = kind;
  e->count = count;
  e->first_seen = seen;
  e->aux = -1;
  xp_hmap_put(&c->index, pos, c->n);
  return c->n++;
}

void xp_counter_free(xp_counter *c, int keep_values) {
  for (int64_t i = 0; !keep_values && i < c->n; i++) xp_free(c->v[i].value);
  xp_free(c->v);
  xp_hmap_free(&c->index);
  memset(c, 0, sizeof(*c));
}

/* ---- sorting that can be stopped ---------------------------------------- */

/* Bottom-up merge sort: runs of XP_SORT_RUN elements sorted in place by
** insertion (stable: an element moves only past greater ones), then runs of
** width w in `from` merged pairwise into `to`, the roles swapping after each
** width; the sorted result is copied back when it ends in the scratch
** buffer. Polls every 4096 elements moved. The first runs save the four
** narrowest merge passes (a third faster on a million 24-byte records). */
#define XP_SORT_RUN 16
#define XP_SORT_ELT_MAX 64 /* larger elements skip the insertion runs */
static int insertion_runs(char *a, int64_t n, size_t size, int (*cmp)(const void *, const void *)) {
  unsigned char held[XP_SORT_ELT_MAX];
  for (int64_t lo = 0; lo < n; lo += XP_SORT_RUN) {
    if ((lo & 4095) == 0 && lo && xp_cancelled()) return 0;
    int64_t hi = lo + XP_SORT_RUN < n ? lo + XP_SORT_RUN : n;
    for (int64_t i = lo + 1; i < hi; i++) {
      int64_t j = i;
      while (j > lo && cmp(a + (size_t)(j - 1) * size, a + (size_t)i * size) > 0) j--;
      if (j == i) continue;
      memcpy(held, a + (size_t)i * size, size);
      memmove(a + (size_t)(j + 1) * size, a + (size_t)j * size, (size_t)(i - j) * size);
      memcpy(a + (size_t)j * size, held, size);
    }
  }
  return 1;
}

int xp_sort(void *base, int64_t n, size_t size, int (*cmp)(const void *, const void *)) {
  if (n < 2) return 1;
  if ((uint64_t)n > XP_ALLOC_MAX / size) return 0;
  char *tmp = xp_malloc((uint64_t)n * size);
  if (!tmp) return 0;
  char *from = base, *to = tmp;
  int64_t moved = 0, w = 1;
  if (size <= XP_SORT_ELT_MAX) {
    w = XP_SORT_RUN;
    if (!insertion_runs(base, n, size, cmp)) {
      xp_free(tmp);
      return 0;
    }
  }
  for (; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        if (cmp(from + (size_t)j * size, from + (size_t)i * size) < 0) {
          memcpy(to + (size_t)k * size, from + (size_t)j * size, size);
          j++;
        } else {
          memcpy(to + (size_t)k * size, from + (size_t)i * size, size);
          i++;
        }
        k++;
      }
      if (i < mid) memcpy(to + (size_t)k * size, from + (size_t)i * size, (size_t)(mid - i) * size);
      if (j < hi) memcpy(to + (size_t)k * size, from + (size_t)j * size, (size_t)(hi - j) * size);
      moved += hi - lo;
      if (moved >= 4096) {
        moved = 0;
        if (xp_cancelled()) {
          if (from != (char *)base) memcpy(base, from, (size_t)n * size);
          xp_free(tmp);
          return 0;
        }
      }
    }
    char *t = from;
    from = to;
    to = t;
  }
  if (from != (char *)base) memcpy(base, from, (size_t)n * size);
  xp_free(tmp);
  return 1;
}

/* ---- chunked array ------------------------------------------------------ */

void xp_cvec_init(xp_cvec *v, size_t elt) {
  memset(v, 0, sizeof(*v));
  v->elt = elt ? elt : 1;
  uint64_t per = (xp_alloc_limit() - 1) / v->elt; /* elements one allocation holds */
  v->shift = -1;
  while (per > 1 && v->shift < 40) per >>= 1, v->shift++;
  if (per == 1) v->shift++;
}

/* Bytes of a whole block. */
static uint64_t cvec_block_bytes(const xp_cvec *v) { return ((uint64_t)1 << v->shift) * v->elt; }

int xp_cvec_reserve(xp_cvec *v, int64_t need) {
  v->refused = 0;
  if (need <= v->cap) return 1;
  if (v->shift < 0) {
    v->refused = 1;
    return 0;
  }
  int64_t per = (int64_t)1 << v->shift;
  if (v->n_blocks <= 1 && v->cap < per) { /* the first block grows by doubling, up to a whole block */
    int64_t nc = v->cap > 0 ? v->cap : 8;
    while (nc < need && nc < per) nc *= 2;
    if (nc > per) nc = per;
    if (!v->block) {
      if (!(v->block = xp_malloc(sizeof(char *)))) return 0;
      v->cap_blocks = 1;
    }
    char *b = xp_realloc(v->n_blocks ? v->block[0] : NULL, (uint64_t)nc * v->elt);
    if (!b) return 0; /* nc * elt fits in one allocation: memory ran out */
    v->block[0] = b;
    v->n_blocks = 1;
    v->cap = nc;
  }
  while (v->cap < need) {
    if (v->n_blocks == v->cap_blocks) {
      if (!xp_grow((void **)&v->block, &v->cap_blocks, v->n_blocks + 1, sizeof(char *))) {
        v->refused = xp_grow_too_large(v->cap_blocks, v->n_blocks + 1, sizeof(char *));
        return 0;
      }
    }
    char *b = xp_malloc(cvec_block_bytes(v));
    if (!b) return 0;
    v->block[v->n_blocks++] = b;
    v->cap += per;
  }
  return 1;
}

void *xp_cvec_push(xp_cvec *v) {
  if (v->n == v->cap && !xp_cvec_reserve(v, v->n + 1)) return NULL;
  return xp_cvec_at(v, v->n++);
}

int xp_cvec_resize(xp_cvec *v, int64_t n) {
  if (!xp_cvec_reserve(v, n)) return 0;
  v->n = n;
  return 1;
}

int xp_class_memo_init(xp_class_memo *m, int64_t n) {
  m->n = n > 0 ? n : 0;
  m->v = xp_malloc((uint64_t)m->n);
  if (!m->v) return m->n = 0, 0;
  memset(m->v, 0, (size_t)m->n);
  return 1;
}

void xp_class_memo_free(xp_class_memo *m) {
  xp_free(m->v);
  m->v = NULL;
  m->n = 0;
}

void xp_cvec_free(xp_cvec *v) {
  for (int64_t b = 0; b < v->n_blocks; b++) xp_free(v->block[b]);
  xp_free(v->block);
  size_t elt = v->elt;
  int shift = v->shift;
  memset(v, 0, sizeof(*v));
  v->elt = elt, v->shift = shift; /* still usable, empty */
}

int xp_cvec_sort(xp_cvec *v, int (*cmp)(const void *, const void *)) {
  int64_t n = v->n, per = v->shift >= 0 ? (int64_t)1 << v->shift : 1;
  for (int64_t lo = 0; lo < n; lo += per) /* each block, in place */
    if (!xp_sort(xp_cvec_at(v, lo), n - lo < per ? n - lo : per, v->elt, cmp)) return 0;
  if (n <= per) return 1;
  xp_cvec tmp;
  xp_cvec_init(&tmp, v->elt);
  tmp.shift = v->shift; /* the same shape: a swap of the two is a swap of block arrays */
  if (!xp_cvec_resize(&tmp, n)) {
    xp_cvec_free(&tmp);
    return 0;
  }
  xp_cvec *from = v, *to = &tmp;
  size_t elt = v->elt;
  int64_t moved = 0;
  for (int64_t w = per; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t i = lo, j = mid, k = lo;
      while (k < hi) {
        const void *src;
        if (j >= hi || (i < mid && cmp(xp_cvec_at(from, j), xp_cvec_at(from, i)) >= 0)) src = xp_cvec_at(from, i++);
        else src = xp_cvec_at(from, j++);
        memcpy(xp_cvec_at(to, k++), src, elt);
        if (++moved == 4096) {
          moved = 0;
          if (xp_cancelled()) {
            if (from != v) { /* v's elements are in tmp: hand v the blocks that hold them */
              xp_cvec t = *v;
              *v = tmp;
              tmp = t;
            }
            xp_cvec_free(&tmp);
            return 0;
          }
        }
      }
    }
    xp_cvec *t = from;
    from = to;
    to = t;
  }
  if (from != v) { /* the sorted elements are in tmp's blocks: swap them into v */
    xp_cvec t = *v;
    *v = tmp;
    tmp = t;
  }
  xp_cvec_free(&tmp);
  return 1;
}

/* ---- memo by address ------------------------------------------------------- */

struct xp_addrmemo_entry {
  xp_addr_key k;
  int64_t val;
};

static uint64_t addr_key_hash(const xp_addr_key *k) {
  return xp_hash_u64((uint64_t)(uintptr_t)k->a * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)k->b * 0xc2b2ae3d27d4eb4fULL ^
                     (uint64_t)(uintptr_t)k->c * 0x165667b19e3779f9ULL ^ (uint64_t)k->an << 42 ^ (uint64_t)k->bn << 21 ^
                     (uint64_t)k->cn ^ (uint64_t)k->d * 0xff51afd7ed558ccdULL);
}

static uint64_t addr_entry_hash(const void *ctx, int64_t i) { return addr_key_hash(&((const xp_addrmemo *)ctx)->v[i].k); }

typedef struct addr_probe {
  const xp_addrmemo *m;
  const xp_addr_key *k;
} addr_probe;

static int same_addr_key(const xp_addr_key *x, const xp_addr_key *k);

static int addr_eq(const void *ctx, int64_t i) {
  const addr_probe *q = ctx;
  return same_addr_key(&q->m->v[i].k, q->k);
}

static int same_addr_key(const xp_addr_key *x, const xp_addr_key *k) {
  return x->a == k->a && x->b == k->b && x->c == k->c && x->an == k->an && x->bn == k->bn && x->cn == k->cn &&
         x->d == k->d;
}

int xp_addrmemo_get(xp_addrmemo *m, const xp_addr_key *k, int64_t *val, uint64_t *pos) {
  uint64_t h = addr_key_hash(k);
  int64_t r = m->recent[h & 63];
  if (r && same_addr_key(&m->v[r - 1].k, k)) { /* most lookups repeat a recent key */
    *val = m->v[r - 1].val;
    return 1;
  }
  if (!xp_hmap_reserve(&m->index, addr_entry_hash, m)) return -1;
  addr_probe q = {m, k};
  *pos = xp_hmap_find(&m->index, h, addr_eq, &q);
  if (m->index.slot[*pos] < 0) return 0;
  m->recent[h & 63] = m->index.slot[*pos] + 1;
  *val = m->v[m->index.slot[*pos]].val;
  return 1;
}

int xp_addrmemo_put(xp_addrmemo *m, uint64_t pos, const xp_addr_key *k, int64_t val) {
  if (m->n >= XP_ADDRMEMO_MAX) return 1;
  if (!xp_grow((void **)&m->v, &m->cap, m->n + 1, sizeof(struct xp_addrmemo_entry))) return 0;
  m->v[m->n].k = *k;
  m->v[m->n].val = val;
  m->recent[addr_key_hash(k) & 63] = m->n + 1;
  xp_hmap_put(&m->index, pos, m->n++);
  return 1;
}

void xp_addrmemo_free(xp_addrmemo *m) {
  xp_free(m->v);
  xp_hmap_free(&m->index);
  memset(m, 0, sizeof(*m));
}
