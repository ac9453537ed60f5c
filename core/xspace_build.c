/*
** xspace_build.c: an XSpace from events in any order, spooled (see
** xspace_build.h).
*/
#include "xspace_build.h"

#include "profile.h" /* XP_MAX_PLANES, XP_MAX_LINES */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"

/* A protobuf message cannot exceed 2 GiB (profile.h refuses larger ones). */
#define XB_MAX_XSPACE ((uint64_t)0x7fffffff)
/* Memory for remembering string values as interning candidates, at most
** (their bytes plus a map entry each); beyond it new strings stay inline. */
#define XB_INTERN_BUDGET ((size_t)64 << 20)
#define XB_ENTRY_COST (sizeof(map_entry) + 4 * sizeof(int64_t)) /* the entry, its index slots (at most half full, doubling) */
/* Starts within this many ns of 0 are written with line timestamp_ns = 0 (in
** ps they still fit int64); otherwise all lines share the earliest start as
** their timestamp_ns, and the whole trace must fit in this span. */
/* Event times, ends included, must span at most 2^60 ps (~13.3 days): with
** the index's rebasing rule (profile.c) every start and end then stays within
** XP_TIME_LIMIT_PS, so a converted trace always indexes. */
#define XB_REL_LIMIT_NS ((((int64_t)1 << 60) / 1000) - 1)

/* Field tags of schema/xplane.proto (field << 3 | wire type). */
enum {
  T_SPACE_PLANES = 0x0a, T_SPACE_WARNINGS = 0x1a,
  T_PLANE_ID = 0x08, T_PLANE_NAME = 0x12, T_PLANE_LINES = 0x1a, T_PLANE_EMETA = 0x22, T_PLANE_SMETA = 0x2a,
  T_LINE_ID = 0x08, T_LINE_NAME = 0x12, T_LINE_TIMESTAMP_NS = 0x18, T_LINE_EVENTS = 0x22,
  T_EVENT_METADATA_ID = 0x08, T_EVENT_OFFSET_PS = 0x10, T_EVENT_DURATION_PS = 0x18, T_EVENT_STATS = 0x22,
  T_STAT_METADATA_ID = 0x08, T_STAT_DOUBLE = 0x11, T_STAT_UINT64 = 0x18, T_STAT_INT64 = 0x20,
  T_STAT_STR = 0x2a, T_STAT_REF = 0x38,
  T_META_ID = 0x08, T_META_NAME = 0x12, /* XEventMetadata and XStatMetadata */
  T_MAP_KEY = 0x08, T_MAP_VALUE = 0x12
};

/* Kinds of map keys (the first byte of a key). */
enum { K_PLANE = 'P', K_LINE = 'L', K_COUNTER = 'C', K_EVENT_NAME = 'E', K_STAT_STR = 'S' };

/* ---- byte buffers and varints ---------------------------------------- */

int xb_buf_put(xb_buf *b, const void *p, size_t n) {
  if (b->n + n > b->cap) {
    size_t nc = b->cap ? b->cap : 256;
    while (nc < b->n + n) nc *= 2;
    uint8_t *q = xp_realloc(b->p, nc);
    if (!q) return 0;
    b->p = q;
    b->cap = nc;
  }
  if (n) memcpy(b->p + b->n, p, n);
  b->n += n;
  return 1;
}

void xb_buf_free(xb_buf *b) {
  xp_free(b->p);
  memset(b, 0, sizeof(*b));
}

static size_t varint_len(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) { v >>= 7; n++; }
  return n;
}

static size_t put_varint(uint8_t *p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) { p[n++] = (uint8_t)(v | 0x80); v >>= 7; }
  p[n++] = (uint8_t)v;
  return n;
}

static int buf_varint(xb_buf *b, uint64_t v) {
  uint8_t tmp[10];
  return xb_buf_put(b, tmp, put_varint(tmp, v));
}

static int buf_tag_varint(xb_buf *b, uint8_t tag, uint64_t v) {
  return xb_buf_put(b, &tag, 1) && buf_varint(b, v);
}

/* Size of a LEN field whose payload is n bytes (tag + length + payload). */
static uint64_t len_field(uint64_t n) { return 1 + varint_len(n) + n; }

/* ---- the builder ------------------------------------------------------ */

typedef struct map_entry {
  uint64_t hash;
  uint64_t key_off; /* into the builder's key arena */
  uint32_t key_n;
  int64_t val;
} map_entry;

typedef struct bline {
  int32_t plane;
  int64_t id;
  xb_buf name;
  uint64_t head, tail; /* spool offsets of the first and last event (0: none) */
  uint64_t bytes;      /* the XLine message size (xb_finish) */
} bline;

typedef struct bplane {
  int64_t id;
  xb_buf name;
  int32_t *lines, n_lines, cap_lines;
  int32_t *emeta, n_emeta, cap_emeta; /* map entries, in id order (id = index + 1) */
  int32_t *smeta, n_smeta, cap_smeta;
  int32_t n_counters;
} bplane;

/* One spooled event; `body_n` encoded bytes (all fields but the offset) follow. */
typedef struct spool_rec {
  uint64_t next;  /* the line's next event (0: none) */
  int64_t ts_ns;
  int32_t ts_ps;  /* -1: no start */
  uint32_t body_n;
} spool_rec;

struct xb_builder {
  char err[256];
  /* key -> value map over a key arena */
  map_entry *entries;
  int64_t n_entries, cap_entries;
  xp_hmap index; /* into entries */
  xb_buf arena, key;
  size_t remembered; /* bytes of string values kept as interning candidates */
  bplane *planes;
  int32_t n_planes, cap_planes;
  bline *lines;
  int32_t n_lines, cap_lines;
  xb_buf warnings; /* each: uint32 length + bytes */
  /* the event spool: a memfd mapped shared */
  int spool_fd;
  uint8_t *spool;
  uint64_t spool_len, spool_cap;
  int has_ts;
  int64_t min_ns, max_ns;
  xb_buf body;
};

static int fail(xb_builder *b, const char *fmt, const char *arg) {
  if (!b->err[0]) snprintf(b->err, sizeof(b->err), fmt, arg ? arg : "");
  return 0;
}

static int oom(xb_builder *b) { return fail(b, "out of memory while converting%s", NULL); }

const char *xb_error(const xb_builder *b) { return b->err[0] ? b->err : "out of memory"; }

/* Room for index n of *arr (util.h's xp_grow32); the builder's error on OOM. */
static int grow_any(xb_builder *b, void **arr, int32_t *cap, int32_t n, size_t sz) {
  return xp_grow32(arr, cap, n + 1, sz) || oom(b);
}

static int grow32(xb_builder *b, int32_t **arr, int32_t *cap, int32_t n) {
  return grow_any(b, (void **)arr, cap, n, sizeof(int32_t));
}

xb_builder *xb_new(void) {
  xb_builder *b = xp_malloc(sizeof(*b));
  if (!b) return NULL;
  memset(b, 0, sizeof(*b));
  b->spool_fd = -1;
  b->spool = MAP_FAILED;
  b->spool_len = 8; /* spool offset 0 means "none" */
  return b;
}

static void drop_spool(xb_builder *b) {
  if (b->spool != MAP_FAILED) munmap(b->spool, b->spool_cap);
  if (b->spool_fd >= 0) close(b->spool_fd);
  b->spool = MAP_FAILED;
  b->spool_fd = -1;
}

void xb_free(xb_builder *b) {
  if (!b) return;
  drop_spool(b);
  for (int32_t i = 0; i < b->n_planes; i++) {
    bplane *pl = &b->planes[i];
    xb_buf_free(&pl->name);
    xp_free(pl->lines);
    xp_free(pl->emeta);
    xp_free(pl->smeta);
  }
  for (int32_t i = 0; i < b->n_lines; i++) xb_buf_free(&b->lines[i].name);
  xp_free(b->planes);
  xp_free(b->lines);
  xp_free(b->entries);
  xp_hmap_free(&b->index);
  xb_buf_free(&b->arena);
  xb_buf_free(&b->key);
  xb_buf_free(&b->warnings);
  xb_buf_free(&b->body);
  xp_free(b);
}

/* ---- the map ---------------------------------------------------------- */

static uint64_t entry_hash(const void *ctx, int64_t i) { return ((const xb_builder *)ctx)->entries[i].hash; }

typedef struct entry_key {
  const xb_builder *b;
  uint64_t hash;
} entry_key;

static int entry_eq(const void *ctx, int64_t i) {
  const entry_key *q = ctx;
  const map_entry *e = &q->b->entries[i];
  return e->hash == q->hash && e->key_n == q->b->key.n && memcmp(q->b->arena.p + e->key_off, q->b->key.p, e->key_n) == 0;
}

/* Look up the key in b->key; with `create`, add it (value 0) when absent.
** Returns the entry index, -1 when absent (or on failure: see b->err). */
static int64_t map_find(xb_builder *b, int create, int *created) {
  entry_key q = {b, xp_hash_bytes(0, b->key.p, b->key.n)};
  *created = 0;
  if (!b->index.slot && !create) return -1;
  if (create && !xp_hmap_reserve(&b->index, entry_hash, b)) return oom(b) - 1;
  uint64_t pos = xp_hmap_find(&b->index, q.hash, entry_eq, &q);
  if (b->index.slot[pos] >= 0) return b->index.slot[pos];
  if (!create) return -1;
  if (b->n_entries >= INT32_MAX - 1) {
    fail(b, "too many distinct names, planes or lines%s", NULL);
    return -1;
  }
  if (!xp_grow((void **)&b->entries, &b->cap_entries, b->n_entries + 1, sizeof(map_entry))) return oom(b) - 1;
  map_entry *e = &b->entries[b->n_entries];
  e->hash = q.hash;
  e->key_off = b->arena.n;
  e->key_n = (uint32_t)b->key.n;
  e->val = 0;
  if (!xb_buf_put(&b->arena, b->key.p, b->key.n)) return oom(b) - 1;
  xp_hmap_put(&b->index, pos, b->n_entries);
  *created = 1;
  return b->n_entries++;
}

/* Compose the key [kind][plane][bytes] in b->key. */
static int make_key(xb_builder *b, int kind, int32_t plane, const void *p, size_t n) {
  uint8_t k = (uint8_t)kind;
  b->key.n = 0;
  if (!xb_buf_put(&b->key, &k, 1) || !xb_buf_put(&b->key, &plane, sizeof(plane)) || !xb_buf_put(&b->key, p, n))
    return oom(b);
  return 1;
}

/* The text of an entry's key, after its kind and plane. */
static const uint8_t *entry_text(const xb_builder *b, const map_entry *e, size_t *n) {
  *n = e->key_n - 1 - sizeof(int32_t);
  return b->arena.p + e->key_off + 1 + sizeof(int32_t);
}

/* ---- planes, lines, metadata ----------------------------------------- */

int32_t xb_plane(xb_builder *b, int64_t id) {
  int created;
  if (!make_key(b, K_PLANE, 0, &id, sizeof(id))) return -1;
  int64_t e = map_find(b, 1, &created);
  if (e < 0) return -1;
  if (!created) return (int32_t)b->entries[e].val;
  if (b->n_planes >= XP_MAX_PLANES) {
    fail(b, "more than 1048576 processes (planes: the limit, README \"Limits and safety\")%s", "");
    return -1;
  }
  if (!grow_any(b, (void **)&b->planes, &b->cap_planes, b->n_planes, sizeof(bplane))) return -1;
  bplane *pl = &b->planes[b->n_planes];
  memset(pl, 0, sizeof(*pl));
  pl->id = id;
  b->entries[e].val = b->n_planes;
  return b->n_planes++;
}

static int32_t new_line(xb_builder *b, int32_t plane, int64_t id, int64_t e) {
  bplane *pl = &b->planes[plane];
  if (b->n_lines >= XP_MAX_LINES) {
    fail(b, "more than 2097152 threads and counters (lines: the limit, README \"Limits and safety\")%s", "");
    return -1;
  }
  if (!grow_any(b, (void **)&b->lines, &b->cap_lines, b->n_lines, sizeof(bline)) ||
      !grow32(b, &pl->lines, &pl->cap_lines, pl->n_lines))
    return -1;
  bline *ln = &b->lines[b->n_lines];
  memset(ln, 0, sizeof(*ln));
  ln->plane = plane;
  ln->id = id;
  pl->lines[pl->n_lines++] = b->n_lines;
  b->entries[e].val = b->n_lines;
  return b->n_lines++;
}

int32_t xb_line(xb_builder *b, int32_t plane, int64_t id) {
  int created;
  if (!make_key(b, K_LINE, plane, &id, sizeof(id))) return -1;
  int64_t e = map_find(b, 1, &created);
  if (e < 0) return -1;
  return created ? new_line(b, plane, id, e) : (int32_t)b->entries[e].val;
}

int32_t xb_counter_line(xb_builder *b, int32_t plane, const char *name, size_t n) {
  int created;
  if (!make_key(b, K_COUNTER, plane, name, n)) return -1;
  int64_t e = map_find(b, 1, &created);
  if (e < 0) return -1;
  if (!created) return (int32_t)b->entries[e].val;
  int32_t ln = new_line(b, plane, -(int64_t)(b->planes[plane].n_counters + 1), e);
  if (ln < 0) return -1;
  b->planes[plane].n_counters++;
  return xb_line_name(b, ln, name, n) ? ln : -1;
}

int32_t xb_n_lines(const xb_builder *b) { return b->n_lines; }

static int set_name(xb_builder *b, xb_buf *dst, const char *name, size_t n) {
  dst->n = 0;
  return xb_buf_put(dst, name, n) ? 1 : oom(b);
}

int xb_plane_name(xb_builder *b, int32_t plane, const char *name, size_t n) {
  return set_name(b, &b->planes[plane].name, name, n);
}

int xb_line_name(xb_builder *b, int32_t line, const char *name, size_t n) {
  return set_name(b, &b->lines[line].name, name, n);
}

int64_t xb_event_meta(xb_builder *b, int32_t plane, const char *name, size_t n) {
  int created;
  if (!make_key(b, K_EVENT_NAME, plane, name, n)) return -1;
  int64_t e = map_find(b, 1, &created);
  if (e < 0) return -1;
  if (created) {
    bplane *pl = &b->planes[plane];
    if (!grow32(b, &pl->emeta, &pl->cap_emeta, pl->n_emeta)) return -1;
    pl->emeta[pl->n_emeta++] = (int32_t)e;
    b->entries[e].val = pl->n_emeta;
  }
  return b->entries[e].val;
}

/* Give a stat string entry its stat metadata id (if it has none yet). */
static int64_t stat_id_of(xb_builder *b, int32_t plane, int64_t e) {
  if (b->entries[e].val) return b->entries[e].val;
  bplane *pl = &b->planes[plane];
  if (!grow32(b, &pl->smeta, &pl->cap_smeta, pl->n_smeta)) return -1;
  pl->smeta[pl->n_smeta++] = (int32_t)e;
  return b->entries[e].val = pl->n_smeta;
}

/* The stat metadata id of a stat name. */
static int64_t stat_key(xb_builder *b, int32_t plane, const char *key, size_t kn) {
  int created;
  if (!make_key(b, K_STAT_STR, plane, key, kn)) return -1;
  int64_t e = map_find(b, 1, &created);
  return e < 0 ? -1 : stat_id_of(b, plane, e);
}

/* One XStat: [metadata_id][value tag][value] wrapped as XEvent.stats; a
** LEN value (is_len) gets its length before its bytes. */
static int put_stat(xb_builder *b, xb_buf *out, int64_t key_id, uint8_t tag, const void *v, size_t vn, int is_len) {
  uint8_t hdr[24];
  size_t hn = 0;
  if (key_id < 0) return 0;
  hdr[hn++] = T_STAT_METADATA_ID;
  hn += put_varint(hdr + hn, (uint64_t)key_id);
  hdr[hn++] = tag;
  if (is_len) hn += put_varint(hdr + hn, vn);
  uint8_t t = T_EVENT_STATS;
  if (!xb_buf_put(out, &t, 1) || !buf_varint(out, hn + vn) || !xb_buf_put(out, hdr, hn) || !xb_buf_put(out, v, vn))
    return oom(b);
  return 1;
}

static int put_varint_stat(xb_builder *b, xb_buf *out, int64_t key_id, uint8_t tag, uint64_t v) {
  uint8_t tmp[10];
  return put_stat(b, out, key_id, tag, tmp, put_varint(tmp, v), 0);
}

int xb_stat_int(xb_builder *b, int32_t plane, xb_buf *out, const char *key, size_t kn, int64_t v) {
  return put_varint_stat(b, out, stat_key(b, plane, key, kn), T_STAT_INT64, (uint64_t)v);
}

int xb_stat_uint(xb_builder *b, int32_t plane, xb_buf *out, const char *key, size_t kn, uint64_t v) {
  return put_varint_stat(b, out, stat_key(b, plane, key, kn), T_STAT_UINT64, v);
}

int xb_stat_double(xb_builder *b, int32_t plane, xb_buf *out, const char *key, size_t kn, double v) {
  uint64_t u;
  uint8_t tmp[8];
  memcpy(&u, &v, 8);
  for (int i = 0; i < 8; i++) tmp[i] = (uint8_t)(u >> (8 * i));
  return put_stat(b, out, stat_key(b, plane, key, kn), T_STAT_DOUBLE, tmp, 8, 0);
}

int xb_stat_str(xb_builder *b, int32_t plane, xb_buf *out, const char *key, size_t kn,
                const char *s, size_t sn) {
  int64_t key_id = stat_key(b, plane, key, kn);
  int created;
  if (key_id < 0 || !make_key(b, K_STAT_STR, plane, s, sn)) return 0;
  int64_t e = map_find(b, 0, &created);
  if (e >= 0) { /* seen before in this plane: intern it */
    int64_t id = stat_id_of(b, plane, e);
    return id >= 0 && put_varint_stat(b, out, key_id, T_STAT_REF, (uint64_t)id);
  }
  if (b->remembered + sn + XB_ENTRY_COST <= XB_INTERN_BUDGET) {
    if (map_find(b, 1, &created) < 0) return 0;
    b->remembered += sn + XB_ENTRY_COST;
  }
  return put_stat(b, out, key_id, T_STAT_STR, s, sn, 1);
}

int xb_warning(xb_builder *b, const char *text, size_t n) {
  uint32_t len = (uint32_t)n;
  if (!xb_buf_put(&b->warnings, &len, sizeof(len)) || !xb_buf_put(&b->warnings, text, n)) return oom(b);
  return 1;
}

/* ---- the spool -------------------------------------------------------- */

static int spool_reserve(xb_builder *b, uint64_t need) {
  if (b->spool_len + need > XB_MAX_XSPACE)
    return fail(b, "the events converted so far pass 2 GiB, the most an XSpace can hold (stopped while "
                   "reading%s)", "");
  if (b->spool_len + need <= b->spool_cap) return 1;
  uint64_t nc = b->spool_cap ? b->spool_cap : (uint64_t)64 << 20;
  while (nc < b->spool_len + need) nc *= 2;
  if (b->spool_fd < 0) {
    b->spool_fd = memfd_create("xplane-json-spool", MFD_CLOEXEC);
    if (b->spool_fd < 0) return fail(b, "cannot create the conversion spool (memfd_create: %s)", strerror(errno));
  }
  if (ftruncate(b->spool_fd, (off_t)nc) != 0)
    return fail(b, "cannot grow the conversion spool: %s", strerror(errno));
  void *m = b->spool == MAP_FAILED ? mmap(NULL, nc, PROT_READ | PROT_WRITE, MAP_SHARED, b->spool_fd, 0)
                                   : mremap(b->spool, b->spool_cap, nc, MREMAP_MAYMOVE);
  if (m == MAP_FAILED) return fail(b, "cannot map the conversion spool: %s", strerror(errno));
  b->spool = m;
  b->spool_cap = nc;
  return 1;
}

int xb_event(xb_builder *b, int32_t line, int64_t meta_id, const xb_time *start, int64_t dur_ps,
             const uint8_t *stats, size_t n) {
  xb_buf *body = &b->body;
  body->n = 0;
  if (!buf_tag_varint(body, T_EVENT_METADATA_ID, (uint64_t)meta_id) ||
      (dur_ps && !buf_tag_varint(body, T_EVENT_DURATION_PS, (uint64_t)dur_ps)) || !xb_buf_put(body, stats, n))
    return oom(b);
  if (body->n > XB_MAX_XSPACE) return fail(b, "an event is larger than 2 GiB%s", NULL);
  uint64_t size = (sizeof(spool_rec) + body->n + 7) & ~(uint64_t)7;
  if (!spool_reserve(b, size)) return 0;
  uint64_t off = b->spool_len;
  spool_rec r = {0, 0, -1, (uint32_t)body->n};
  if (start) {
    r.ts_ns = start->ns;
    r.ts_ps = start->ps;
    if (!b->has_ts || start->ns < b->min_ns) b->min_ns = start->ns;
    /* max_ns: the latest end, in ns rounded up (dur_ps is within +-2^61) */
    int64_t end_ns = xp_add_sat(start->ns, (dur_ps > 0 ? dur_ps + 999 : 0) / 1000 + (start->ps > 0));
    if (!b->has_ts || end_ns > b->max_ns) b->max_ns = end_ns;
    b->has_ts = 1;
  }
  memcpy(b->spool + off, &r, sizeof(r));
  memcpy(b->spool + off + sizeof(r), body->p, body->n);
  b->spool_len += size;
  bline *ln = &b->lines[line];
  if (ln->tail) memcpy(b->spool + ln->tail, &off, sizeof(off)); /* the previous event's `next` */
  else ln->head = off;
  ln->tail = off;
  return 1;
}

/* ---- serialization ---------------------------------------------------- */

/* A buffered writer into the output memfd. */
typedef struct out_w {
  int fd;
  uint8_t buf[1 << 16];
  size_t n;
  int err;
} out_w;

static void out_flush(out_w *w) {
  size_t off = 0;
  while (!w->err && off < w->n) {
    ssize_t k = write(w->fd, w->buf + off, w->n - off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) w->err = k < 0 ? errno : EIO;
    else off += (size_t)k;
  }
  w->n = 0;
}

static void out_put(out_w *w, const void *p, size_t n) {
  const uint8_t *q = p;
  while (n) {
    if (w->n == sizeof(w->buf)) out_flush(w);
    size_t k = sizeof(w->buf) - w->n < n ? sizeof(w->buf) - w->n : n;
    memcpy(w->buf + w->n, q, k);
    w->n += k;
    q += k;
    n -= k;
  }
}

static void out_varint(out_w *w, uint64_t v) {
  uint8_t tmp[10];
  out_put(w, tmp, put_varint(tmp, v));
}

static void out_tag_len(out_w *w, uint8_t tag, uint64_t n) {
  out_put(w, &tag, 1);
  out_varint(w, n);
}

static void out_tag_varint(out_w *w, uint8_t tag, uint64_t v) {
  out_put(w, &tag, 1);
  out_varint(w, v);
}

static void out_str_field(out_w *w, uint8_t tag, const void *p, size_t n) {
  if (!n) return;
  out_tag_len(w, tag, n);
  out_put(w, p, n);
}

static uint64_t str_field_len(size_t n) { return n ? len_field(n) : 0; }
static uint64_t varint_field_len(uint64_t v) { return v ? 1 + varint_len(v) : 0; }

/* The offset of a spooled event from the common line timestamp. */
static uint64_t event_offset(const spool_rec *r, int64_t base_ns) {
  return (uint64_t)(r->ts_ns - base_ns) * 1000u + (uint64_t)r->ts_ps;
}

static uint64_t event_len(const spool_rec *r, int64_t base_ns) {
  return (r->ts_ps >= 0 ? 1 + varint_len(event_offset(r, base_ns)) : 0) + r->body_n;
}

static uint64_t line_len(const xb_builder *b, const bline *ln, int64_t base_ns) {
  uint64_t n = varint_field_len((uint64_t)ln->id) + str_field_len(ln->name.n) + varint_field_len((uint64_t)base_ns);
  for (uint64_t off = ln->head; off; ) {
    spool_rec r;
    memcpy(&r, b->spool + off, sizeof(r));
    n += len_field(event_len(&r, base_ns));
    off = r.next;
  }
  return n;
}

static void write_line(out_w *w, const xb_builder *b, const bline *ln, int64_t base_ns) {
  out_tag_len(w, T_PLANE_LINES, ln->bytes);
  if (ln->id) out_tag_varint(w, T_LINE_ID, (uint64_t)ln->id);
  out_str_field(w, T_LINE_NAME, ln->name.p, ln->name.n);
  if (base_ns) out_tag_varint(w, T_LINE_TIMESTAMP_NS, (uint64_t)base_ns);
  for (uint64_t off = ln->head; off; ) {
    spool_rec r;
    memcpy(&r, b->spool + off, sizeof(r));
    out_tag_len(w, T_LINE_EVENTS, event_len(&r, base_ns));
    if (r.ts_ps >= 0) out_tag_varint(w, T_EVENT_OFFSET_PS, event_offset(&r, base_ns));
    out_put(w, b->spool + off + sizeof(r), r.body_n);
    off = r.next;
  }
}

/* A metadata map entry {key: id, value: {id, name}}: the value's size. */
static uint64_t meta_value_len(int64_t id, size_t name_n) {
  return varint_field_len((uint64_t)id) + str_field_len(name_n);
}

static uint64_t meta_entry_len(int64_t id, size_t name_n) {
  return varint_field_len((uint64_t)id) + len_field(meta_value_len(id, name_n));
}

static uint64_t metas_len(const xb_builder *b, const int32_t *v, int32_t n) {
  uint64_t total = 0;
  for (int32_t i = 0; i < n; i++) {
    size_t tn;
    entry_text(b, &b->entries[v[i]], &tn);
    total += len_field(meta_entry_len(i + 1, tn));
  }
  return total;
}

static void write_metas(out_w *w, const xb_builder *b, uint8_t tag, const int32_t *v, int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    size_t tn;
    const uint8_t *t = entry_text(b, &b->entries[v[i]], &tn);
    out_tag_len(w, tag, meta_entry_len(i + 1, tn));
    out_tag_varint(w, T_MAP_KEY, (uint64_t)(i + 1));
    out_tag_len(w, T_MAP_VALUE, meta_value_len(i + 1, tn));
    out_tag_varint(w, T_META_ID, (uint64_t)(i + 1));
    out_str_field(w, T_META_NAME, t, tn);
  }
}

static uint64_t plane_len(xb_builder *b, const bplane *pl, int64_t base_ns) {
  uint64_t n = varint_field_len((uint64_t)pl->id) + str_field_len(pl->name.n);
  for (int32_t k = 0; k < pl->n_lines; k++) {
    bline *ln = &b->lines[pl->lines[k]];
    ln->bytes = line_len(b, ln, base_ns);
    n += len_field(ln->bytes);
  }
  return n + metas_len(b, pl->emeta, pl->n_emeta) + metas_len(b, pl->smeta, pl->n_smeta);
}

/* The timestamp_ns of every line: 0 when all starts fit, else the earliest. */
static int choose_base(xb_builder *b, int64_t *base_ns) {
  *base_ns = 0;
  if (!b->has_ts || (b->min_ns >= -XB_REL_LIMIT_NS && b->max_ns <= XB_REL_LIMIT_NS)) return 1;
  if ((uint64_t)b->max_ns - (uint64_t)b->min_ns > (uint64_t)XB_REL_LIMIT_NS)
    return fail(b, "event times span more than 13 days (2^60 ps, ends included)%s: too far apart for one trace "
                   "(README \"Limits and safety\")", NULL);
  *base_ns = b->min_ns;
  return 1;
}

int xb_finish(xb_builder *b, int *fd, int64_t *size) {
  int64_t base_ns;
  uint64_t total = 0;
  *fd = -1;
  *size = 0;
  if (b->err[0] || !choose_base(b, &base_ns)) return 0;
  uint64_t *plane_bytes = xp_malloc(sizeof(uint64_t) * (uint64_t)(b->n_planes + 1));
  if (!plane_bytes) return oom(b);
  for (int32_t i = 0; i < b->n_planes; i++) {
    plane_bytes[i] = plane_len(b, &b->planes[i], base_ns);
    total += len_field(plane_bytes[i]);
  }
  for (size_t off = 0; off < b->warnings.n; ) {
    uint32_t len;
    memcpy(&len, b->warnings.p + off, sizeof(len));
    total += len_field(len);
    off += sizeof(len) + len;
  }
  out_w *w = NULL;
  if (total > XB_MAX_XSPACE) {
    char n[32];
    snprintf(n, sizeof(n), "%llu", (unsigned long long)total);
    fail(b, "the converted XSpace would be %s bytes, over the 2 GiB limit of a protobuf message", n);
  } else if ((w = xp_malloc(sizeof(*w))) == NULL) {
    oom(b);
  } else {
    w->n = 0;
    w->err = 0;
    w->fd = memfd_create("xplane-json-xspace", MFD_CLOEXEC);
    if (w->fd < 0) fail(b, "cannot create the converted XSpace (memfd_create: %s)", strerror(errno));
  }
  if (!b->err[0]) {
    for (int32_t i = 0; i < b->n_planes; i++) {
      const bplane *pl = &b->planes[i];
      out_tag_len(w, T_SPACE_PLANES, plane_bytes[i]);
      if (pl->id) out_tag_varint(w, T_PLANE_ID, (uint64_t)pl->id);
      out_str_field(w, T_PLANE_NAME, pl->name.p, pl->name.n);
      for (int32_t k = 0; k < pl->n_lines; k++) write_line(w, b, &b->lines[pl->lines[k]], base_ns);
      write_metas(w, b, T_PLANE_EMETA, pl->emeta, pl->n_emeta);
      write_metas(w, b, T_PLANE_SMETA, pl->smeta, pl->n_smeta);
    }
    for (size_t off = 0; off < b->warnings.n; ) {
      uint32_t len;
      memcpy(&len, b->warnings.p + off, sizeof(len));
      out_tag_len(w, T_SPACE_WARNINGS, len);
      out_put(w, b->warnings.p + off + sizeof(len), len);
      off += sizeof(len) + len;
    }
    out_flush(w);
    if (w->err) fail(b, "cannot write the converted XSpace: %s", strerror(w->err));
  }
  xp_free(plane_bytes);
  drop_spool(b);
  if (b->err[0]) {
    if (w && w->fd >= 0) close(w->fd);
    xp_free(w);
    return 0;
  }
  *fd = w->fd;
  *size = (int64_t)total;
  xp_free(w);
  return 1;
}
