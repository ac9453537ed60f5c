/*
** util.h: the small utilities every part of xplane-sqlite shares, with no
** SQLite in them: heap allocation, formatted strings, a growable text
** buffer, growable arrays, one open-addressing hash index and a per-key class
** memo.
**
** Use:
**   char *z = xp_mprintf("%s: %lld events", path, n);   ... xp_free(z);
**   xp_buf *b = xp_buf_new(); xp_buf_appendall(b, "x"); char *s = xp_buf_finish(b);
**   if (!xp_grow((void **)&v, &cap, n + 1, sizeof *v)) return OOM;  v[n++] = x;
**   xp_hmap m = {0}; ... see xp_hmap below.
**   xp_cvec v; xp_cvec_init(&v, sizeof(T)); ... an array past one allocation, below.
**   xp_class_memo m; ... a small class remembered per key, below.
**
** Allocation: xp_malloc/xp_realloc refuse requests of XP_ALLOC_MAX bytes or
** more (as sqlite3_malloc64 does) and any request that would overflow; they
** return NULL then, like plain malloc on exhaustion. xp_malloc(0) returns a
** valid 1-byte block, so NULL always means "out of memory".
** Fault injection (tests): with XPLANE_FAIL_ALLOC_ABOVE=<bytes> in the
** environment, every xp_malloc/xp_realloc of more than that many bytes fails
** as if memory ran out (read once, at the first allocation), so tests reach the
** out-of-memory paths of the extension and the tools without exhausting the
** machine (tests/hostile/edges.sh).
**
** Hashing: xp_hash_u64 and xp_hash_bytes mix in a per-process random seed, so
** input built to collide (hash flooding) cannot be prepared in advance; no
** caller depends on slot order (every map keeps its entries in insertion
** order in its own array), so outputs stay deterministic.
*/
#ifndef XPLANE_UTIL_H
#define XPLANE_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Thread-local variables of the library: the initial-exec model keeps them in
** the static TLS block glibc reserves for dlopen'd libraries, instead of
** blocks allocated on first use through __tls_get_addr. Besides being faster,
** that keeps LeakSanitizer's scan of dynamic TLS out of them: with gcc 12's
** libasan it crashed at exit ("Tracer caught signal 11") after the extension
** had allocated dynamic TLS (seen on every run of the exclusive_global summary
** of gpu_mw in the sanitizer run). Few bytes, so the reserve holds them. */
#define XP_THREAD_LOCAL _Thread_local __attribute__((tls_model("initial-exec")))

/* ---- memory ----------------------------------------------------------- */

#define XP_ALLOC_MAX ((uint64_t)0x7fffff00)

void *xp_malloc(uint64_t n);
void *xp_realloc(void *p, uint64_t n);
void xp_free(void *p);
/* Requests of this many bytes or more are refused: XP_ALLOC_MAX, or less
** with XPLANE_FAIL_ALLOC_ABOVE. A caller whose growth failed can tell a
** refused size (the data is too large for one array) from memory running
** out. */
uint64_t xp_alloc_limit(void);
/* printf into a new heap string (glibc printf formats); NULL on OOM. */
char *xp_mprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xp_vmprintf(const char *fmt, va_list ap);
/* A finite decimal number (strtod's syntax) filling all of p[0..n), n < 64:
** 1 and *out set, else 0. */
int xp_parse_double(const char *p, size_t n, double *out);

/* Grow the array *arr of elements of size `elt` so that `need` elements fit
** (capacity doubles, from 8). Returns 1, or 0 on OOM / overflow with *arr
** and *cap unchanged. */
int xp_grow(void **arr, int64_t *cap, int64_t need, size_t elt);
/* After xp_grow(arr, &cap, need, elt) failed: 1 when the size it asked for
** is past what one allocation may hold (xp_alloc_limit: the data is too
** large for one array), 0 when memory ran out. */
int xp_grow_too_large(int64_t cap, int64_t need, size_t elt);
/* The same for arrays whose capacity is an int32_t. */
int xp_grow32(void **arr, int32_t *cap, int32_t need, size_t elt);

/* ---- chunked array ------------------------------------------------------ */

/* An array of fixed-size elements that can outgrow one allocation: blocks of
** 2^shift elements, shift the largest for which a block's bytes fit in one
** allocation (xp_alloc_limit, read by xp_cvec_init), and an array of the
** block pointers. Element i is at xp_cvec_at(&v, i), O(1). The first block
** grows by doubling (xp_grow's way) until it is a whole block, so a small
** array is one allocation of about its size, laid out as a plain array;
** later blocks are allocated whole (large allocations are mapped pages,
** resident only once written). Pushing never moves the elements of a whole
** block; while the first block grows, pointers into it do move.
**
**   xp_cvec v; xp_cvec_init(&v, sizeof(T));
**   T *x = xp_cvec_push(&v);    // NULL: out of memory, or v.refused
**   T *y = xp_cvec_at(&v, i);   // 0 <= i < v.n
**   xp_cvec_free(&v);           // also fine on a zeroed xp_cvec
*/
typedef struct xp_cvec {
  char **block;
  int64_t n;           /* elements */
  int64_t cap;         /* elements the allocated blocks hold */
  int64_t n_blocks, cap_blocks;
  size_t elt;
  int shift;           /* log2 of the elements per whole block; -1: an element
                       ** is larger than one allocation may hold */
  int refused;         /* the last growth that failed asked for more than one
                       ** allocation may hold (not memory running out) */
} xp_cvec;

void xp_cvec_init(xp_cvec *v, size_t elt);
/* Room for `need` elements in all; 0 on failure (v->refused says which). */
int xp_cvec_reserve(xp_cvec *v, int64_t need);
/* A new last element (uninitialized), NULL on failure. */
void *xp_cvec_push(xp_cvec *v);
/* n elements (any new ones uninitialized); 0 on failure. */
int xp_cvec_resize(xp_cvec *v, int64_t n);
static inline void *xp_cvec_at(const xp_cvec *v, int64_t i) {
  return v->block[i >> v->shift] + (size_t)(i & (((int64_t)1 << v->shift) - 1)) * v->elt;
}
/* Sort the elements by cmp, stably: each block by xp_sort, then merges of
** runs of blocks into a second chunked array of the same shape (as much
** memory again), asking xp_cancelled() every few thousand elements. 1 when
** sorted; 0 when out of memory or cancelled (xp_cancel_stopped() tells),
** the elements then in some order. */
int xp_cvec_sort(xp_cvec *v, int (*cmp)(const void *, const void *));
void xp_cvec_free(xp_cvec *v);

/* ---- class memo ------------------------------------------------------- */

/* A class (0..127) remembered per key 0..n-1, e.g. per event metadata entry of
** a plane, so that a name's class (worked out by substring searches) is worked
** out once per name, not once per event:
**   xp_class_memo m;
**   if (!xp_class_memo_init(&m, pl->n_emeta)) return OOM;
**   int c = xp_class_memo_get(&m, k);
**   if (c < 0) xp_class_memo_set(&m, k, c = classify(name));
**   ... xp_class_memo_free(&m);
** A key outside 0..n-1 is never remembered (get says -1, set does nothing). */
typedef struct {
  uint8_t *v; /* 0: not yet seen, else 0x80 | the class */
  int64_t n;
} xp_class_memo;
int xp_class_memo_init(xp_class_memo *m, int64_t n); /* 1, or 0 out of memory */
static inline int xp_class_memo_get(const xp_class_memo *m, int64_t k) {
  return k >= 0 && k < m->n && m->v[k] ? m->v[k] & 0x7F : -1;
}
static inline void xp_class_memo_set(xp_class_memo *m, int64_t k, int cls) {
  if (k >= 0 && k < m->n) m->v[k] = (uint8_t)(0x80 | (cls & 0x7F));
}
void xp_class_memo_free(xp_class_memo *m);

/* ---- text buffer ------------------------------------------------------ */

/* A growable text buffer with a sticky error: once an append fails (out of
** memory, or the text would pass XP_BUF_MAX bytes) every later append is a
** no-op and xp_buf_errcode says why. */
#define XP_BUF_MAX ((size_t)1000000000) /* SQLite's default SQLITE_MAX_LENGTH */
enum { XP_BUF_OK = 0, XP_BUF_NOMEM = 1, XP_BUF_TOOBIG = 2 };

typedef struct xp_buf {
  char *z;
  size_t n, cap;
  int err;
} xp_buf;

xp_buf *xp_buf_new(void); /* never NULL: OOM gives a shared buffer in the NOMEM state */
void xp_buf_append(xp_buf *b, const char *p, size_t n);
void xp_buf_appendall(xp_buf *b, const char *z);
void xp_buf_appendchar(xp_buf *b, size_t n, char c); /* n copies of c */
void xp_buf_appendf(xp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A double as SQLite's printf("%!.17g") writes it: 17 significant digits,
** always a decimal point with a digit after it ("1.0", "1.0e+20"). */
void xp_buf_append_g17(xp_buf *b, double d);
void xp_buf_reset(xp_buf *b);               /* empty, error cleared */
size_t xp_buf_length(const xp_buf *b);
const char *xp_buf_value(const xp_buf *b);  /* NUL-terminated; "" when empty */
int xp_buf_errcode(const xp_buf *b);        /* XP_BUF_OK / _NOMEM / _TOOBIG */
/* Free b and return its text (caller frees with xp_free). NULL when the
** buffer failed (see xp_buf_errcode before finishing) -- and, as with
** sqlite3_str_finish, when it is empty. */
char *xp_buf_finish(xp_buf *b);
void xp_buf_free(xp_buf *b);

/* ---- UTF-8 ------------------------------------------------------------ */

/* Decode the character at p (n > 0 bytes left) by the well-formed byte
** sequences of Unicode's table 3-7 (no overlong forms, no surrogates, nothing
** past U+10FFFF). Returns its length (1-4) with *cp set, or, for an ill-formed
** sequence, minus the length of its maximal subpart (1-3 bytes: the bytes one
** U+FFFD replaces, Unicode's recommended practice, as Python's
** bytes.decode('utf-8', 'replace') does) with *cp = 0xFFFD. */
int xp_utf8_next(const unsigned char *p, size_t n, uint32_t *cp);
/* The length of the longest well-formed prefix of p[0..n) (n: all of it is
** UTF-8), by xp_utf8_next. */
size_t xp_utf8_valid_prefix(const char *p, size_t n);
/* Copy p[0..n) to out as valid UTF-8: well-formed text as it is, one U+FFFD
** (EF BF BD) for each maximal subpart of an ill-formed sequence
** (xp_utf8_next; the rule of the JSON outputs, core/json.c). out has room
** for 3 * n bytes (each replaced byte becomes at most 3); returns the bytes
** written (no NUL added). Protobuf `string` fields (tp_plugin's writer) use
** it. */
size_t xp_utf8_repair(char *out, const char *p, size_t n);

/* ---- hashing ---------------------------------------------------------- */

/* Set once, from getrandom(), when the library is loaded. */
extern uint64_t xp_hash_seed_value;
static inline uint64_t xp_hash_seed(void) { return xp_hash_seed_value; }
/* Seeded mix of a 64-bit key (ids, pointers). */
static inline uint64_t xp_hash_u64(uint64_t k) {
  uint64_t x = k ^ xp_hash_seed();
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  return x;
}
/* Seeded hash of bytes, a word at a time, finished with xp_hash_u64. `h0`
** chains several parts (pass 0 for the first). */
static inline uint64_t xp_hash_bytes(uint64_t h0, const void *p, size_t n) {
  const unsigned char *s = (const unsigned char *)p;
  uint64_t h = xp_hash_seed() ^ h0 ^ (n * 0xff51afd7ed558ccdULL);
  while (n >= 8) {
    uint64_t w;
    __builtin_memcpy(&w, s, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
    s += 8;
    n -= 8;
  }
  uint64_t w = 0;
  if (n) __builtin_memcpy(&w, s, n);
  return xp_hash_u64(h ^ w);
}

/* ---- id map ----------------------------------------------------------- */

/* An open-addressing map from int64 ids to int32 values (metadata ids to
** array indexes, sets of ids), keys stored inline, at most half full. */
typedef struct xp_idmap {
  int64_t *keys;
  int32_t *vals; /* -1 = empty slot */
  uint32_t mask, n;
} xp_idmap;

/* Set key -> val (val >= 0), replacing an earlier value; 0 on OOM. */
int xp_idmap_put(xp_idmap *m, int64_t key, int32_t val);
/* Room for n keys in all without growing; 0 on OOM. */
int xp_idmap_reserve(xp_idmap *m, uint32_t n);
static inline int32_t xp_idmap_get(const xp_idmap *m, int64_t key) {
  if (!m->vals) return -1;
  uint32_t h = (uint32_t)xp_hash_u64((uint64_t)key) & m->mask;
  while (m->vals[h] >= 0) {
    if (m->keys[h] == key) return m->vals[h];
    h = (h + 1) & m->mask;
  }
  return -1;
}
void xp_idmap_free(xp_idmap *m);

/* ---- hash index ------------------------------------------------------- */

/* Open-addressing slots holding indexes into the caller's own entry array
** (-1 = empty), kept at most half full. The caller owns keys and hashes:
**
**   uint64_t h = hash of the key;
**   if (!xp_hmap_reserve(&m, hash_of_entry, ctx)) return OOM;  // before an insert
**   uint64_t pos = xp_hmap_find(&m, h, same_key, ctx_with_key);
**   if (m.slot[pos] >= 0) found entry m.slot[pos];
**   else { append the entry at index i; xp_hmap_put(&m, pos, i); }
*/
typedef struct xp_hmap {
  int64_t *slot;
  uint64_t mask; /* capacity - 1; 0 before the first reserve */
  int64_t n;
} xp_hmap;

typedef uint64_t (*xp_hmap_hash_fn)(const void *ctx, int64_t entry);
typedef int (*xp_hmap_eq_fn)(const void *ctx, int64_t entry);

/* Room for one more entry (rehashing every entry with hash_of); 0 on OOM. */
int xp_hmap_reserve(xp_hmap *m, xp_hmap_hash_fn hash_of, const void *ctx);
/* Room for n entries in all, sized once (for maps built in one go). */
int xp_hmap_init(xp_hmap *m, int64_t n);
/* The slot of the entry for which eq() holds, or the empty slot where it
** goes. The map must have been reserved or initialized. */
static inline uint64_t xp_hmap_find(const xp_hmap *m, uint64_t h, xp_hmap_eq_fn eq, const void *ctx) {
  uint64_t i = h & m->mask;
  while (m->slot[i] >= 0 && !eq(ctx, m->slot[i])) i = (i + 1) & m->mask;
  return i;
}
static inline void xp_hmap_put(xp_hmap *m, uint64_t pos, int64_t entry) {
  m->slot[pos] = entry;
  m->n++;
}
void xp_hmap_free(xp_hmap *m);

/* ---- counter of distinct strings ----------------------------------------- */

/* Occurrences of distinct byte strings per (owner, kind), e.g. the values of
** a stat per op name: entries in first-inserted order, each with its count
** and the smallest `seen` (an order key: the first occurrence) given for it.
** Values are copied (NUL-terminated). aux is the caller's (-1 when added). */
typedef struct xp_counted {
  int64_t owner;
  int32_t kind;
  char *value;
  size_t n;
  int64_t count;
  int64_t first_seen;
  double aux;
} xp_counted;

typedef struct xp_counter {
  xp_counted *v;
  int64_t n, cap;
  xp_hmap index; /* into v */
} xp_counter;

/* Add `count` occurrences of p[0..n) for (owner, kind) first seen at `seen`;
** returns the entry's index, -1 on OOM. */
int64_t xp_counter_add(xp_counter *c, int64_t owner, int32_t kind, const char *p, size_t n, int64_t count,
                       int64_t seen);
/* Free the counter; keep_values: the values were handed on, do not free them. */
void xp_counter_free(xp_counter *c, int keep_values);

/* ---- memo by address ------------------------------------------------------- */

/* A cache keyed by WHERE up to three strings sit (address and length, never
** their bytes) plus an integer: names and interned values of a profile repeat
** the same addresses in the mapping, so a hit skips hashing and comparing
** their text. Only a cache: the same text at another address is a miss, and
** the caller works it out again (by content). Values are the caller's int64. */
typedef struct xp_addr_key {
  const void *a, *b, *c;  /* NULL when unused */
  size_t an, bn, cn;
  int64_t d;
} xp_addr_key;

/* At most this many entries: values that sit at a new address every time
** (text stats written inline in each event) would otherwise grow the memo
** by one entry per event; past it, misses are simply not remembered. */
#define XP_ADDRMEMO_MAX ((int64_t)1 << 16)

typedef struct xp_addrmemo {
  struct xp_addrmemo_entry *v;
  int64_t n, cap;
  xp_hmap index;
  int64_t recent[64]; /* 1 + the entry last found or added, by the key hash's low bits; 0 none */
} xp_addrmemo;

/* 1: found, *val set; 0: absent, *pos is where xp_addrmemo_put goes; -1: OOM. */
int xp_addrmemo_get(xp_addrmemo *m, const xp_addr_key *k, int64_t *val, uint64_t *pos);
/* Add k -> val at pos (from the last get, no insert between; a no-op once
** the memo holds XP_ADDRMEMO_MAX entries); 0 on OOM. */
int xp_addrmemo_put(xp_addrmemo *m, uint64_t pos, const xp_addr_key *k, int64_t val);
void xp_addrmemo_free(xp_addrmemo *m);

/* ---- sorting that can be stopped ---------------------------------------- */

/* Sort n elements of `size` bytes at base by cmp (stable: a merge sort with
** an n-element scratch buffer), asking xp_cancelled() (cancel.h) every few
** thousand elements moved. Returns 1 when sorted; 0 when out of memory or
** cancelled (xp_cancel_stopped() tells which), the array then holding the
** same elements in some order. For the sorts after a scan that can run for
** long over a hostile file; small sorts keep qsort. */
int xp_sort(void *base, int64_t n, size_t size, int (*cmp)(const void *, const void *));

/* ---- saturating int64 arithmetic ---------------------------------------- */

/* a + b and a - b clamped to [INT64_MIN, INT64_MAX] instead of overflowing
** (sums of picoseconds; README "Limits and safety"). */
static inline int64_t xp_add_sat(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}
static inline int64_t xp_sub_sat(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? INT64_MAX : INT64_MIN;
  return r;
}

#endif
