/*
** xspace_stream.c: the streaming XSpace writer (see xspace_stream.h).
*/
#include "xspace_stream.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define XS_BUF_CAP (1u << 20)

void xs_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("xplane_gen: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

static void *xs_alloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) xs_die("out of memory");
  return q;
}

static char *xs_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  return memcpy(xs_alloc(NULL, n), s, n);
}

/* Grow *arr (of *cap elements of size sz) to hold at least `need`. */
static void *grow(void *arr, size_t *cap, size_t need, size_t sz) {
  if (need <= *cap) return arr;
  size_t c = *cap ? *cap * 2 : 16;
  while (c < need) c *= 2;
  *cap = c;
  return xs_alloc(arr, c * sz);
}

/* ---- sinks ---- */

void xs_sink_count(xs_sink *s) {
  memset(s, 0, sizeof(*s));
}

int xs_sink_file(xs_sink *s, FILE *f) {
  memset(s, 0, sizeof(*s));
  s->buf = malloc(XS_BUF_CAP);
  if (!s->buf) return -1;
  s->cap = XS_BUF_CAP;
  s->f = f;
  return 0;
}

static void flush(xs_sink *s) {
  if (s->len && !s->error && fwrite(s->buf, 1, s->len, s->f) != s->len) s->error = errno ? errno : EIO;
  s->len = 0;
}

int xs_sink_close(xs_sink *s) {
  if (s->f) flush(s);
  free(s->buf);
  s->buf = NULL;
  return s->error;
}

/* Room for n more bytes in the buffer of a file sink. */
static void reserve(xs_sink *s, size_t n) {
  if (s->cap - s->len < n) flush(s);
}

static void raw(xs_sink *s, const void *p, size_t n) {
  s->bytes += n;
  if (!s->f) return;
  if (n > s->cap) {
    flush(s);
    if (!s->error && fwrite(p, 1, n, s->f) != n) s->error = errno ? errno : EIO;
    return;
  }
  reserve(s, n);
  memcpy(s->buf + s->len, p, n);
  s->len += n;
}

void xs_varint(xs_sink *s, uint64_t v) {
  unsigned char b[10];
  size_t n = 0;
  while (v >= 0x80) {
    b[n++] = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  b[n++] = (unsigned char)v;
  raw(s, b, n);
}

enum { WT_VARINT = 0, WT_LEN = 2 };

static void tag(xs_sink *s, uint32_t field, int wire_type) {
  xs_varint(s, ((uint64_t)field << 3) | (uint64_t)wire_type);
}

void xs_len_field(xs_sink *s, uint32_t field, uint64_t len) {
  tag(s, field, WT_LEN);
  xs_varint(s, len);
}

void xs_int64_field(xs_sink *s, uint32_t field, int64_t v) {
  if (!v) return;
  tag(s, field, WT_VARINT);
  xs_varint(s, (uint64_t)v);
}

void xs_string_field(xs_sink *s, uint32_t field, const char *str) {
  size_t n = str ? strlen(str) : 0;
  if (!n) return;
  xs_len_field(s, field, n);
  raw(s, str, n);
}

void xs_message_field(xs_sink *s, uint32_t field, const ProtobufCMessage *m) {
  size_t n = protobuf_c_message_get_packed_size(m);
  xs_len_field(s, field, n);
  if (!s->f) {
    s->bytes += n;
    return;
  }
  if (n > s->cap) { /* larger than the buffer: pack aside */
    unsigned char *tmp = xs_alloc(NULL, n);
    protobuf_c_message_pack(m, tmp);
    raw(s, tmp, n);
    free(tmp);
    return;
  }
  reserve(s, n);
  protobuf_c_message_pack(m, s->buf + s->len);
  s->len += n;
  s->bytes += n;
}

void xs_event(xs_sink *s, const xs_ev *ev) {
  xs_message_field(s, 4, &ev->base);
  s->events++;
}

/* ---- stats ---- */

static void stat_init(xs_stat *st, int64_t id) {
  *st = (xs_stat)TENSORFLOW__PROFILER__XSTAT__INIT;
  st->metadata_id = id;
}

void xs_stat_int(xs_stat *st, int64_t id, int64_t v) {
  stat_init(st, id);
  st->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE;
  st->int64_value = v;
}

void xs_stat_uint(xs_stat *st, int64_t id, uint64_t v) {
  stat_init(st, id);
  st->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE;
  st->uint64_value = v;
}

void xs_stat_double(xs_stat *st, int64_t id, double v) {
  stat_init(st, id);
  st->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE;
  st->double_value = v;
}

void xs_stat_ref(xs_stat *st, int64_t id, int64_t ref) {
  stat_init(st, id);
  st->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE;
  st->ref_value = (uint64_t)ref;
}

void xs_stat_str(xs_stat *st, int64_t id, const char *v) {
  stat_init(st, id);
  st->value_case = TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE;
  st->str_value = (char *)v;
}

/* ---- planes ---- */

typedef struct stat_list {
  xs_stat *v;
  size_t n, cap;
} stat_list;

typedef struct meta_entry {
  int64_t id;
  char *name, *display_name;
  stat_list stats;
} meta_entry;

typedef struct numbered_range {
  int64_t first_id, count, first_number;
} numbered_range;

typedef struct line_entry {
  int64_t id, timestamp_ns;
  char *name;
  int kind, arg;
} line_entry;

struct xs_plane {
  int64_t id;
  char *name;
  char **strs;          /* stat_metadata: id = index + 1 */
  size_t n_strs, cap_strs;
  xp_hmap index;        /* util.h: over strs (id = index + 1) */
  meta_entry *metas;
  size_t n_metas, cap_metas;
  numbered_range *ranges;
  size_t n_ranges, cap_ranges;
  int64_t next_meta_id;
  stat_list stats;
  line_entry *lines;
  size_t n_lines, cap_lines;
  char **owned;         /* copies made by xs_meta_str / xs_plane_str */
  size_t n_owned, cap_owned;
};

xs_plane *xs_plane_new(int64_t id, const char *name) {
  xs_plane *p = xs_alloc(NULL, sizeof(*p));
  memset(p, 0, sizeof(*p));
  p->id = id;
  p->name = xs_strdup(name);
  p->next_meta_id = 1;
  return p;
}

void xs_plane_free(xs_plane *p) {
  if (!p) return;
  for (size_t i = 0; i < p->n_strs; i++) free(p->strs[i]);
  for (size_t i = 0; i < p->n_metas; i++) {
    free(p->metas[i].name);
    free(p->metas[i].display_name);
    free(p->metas[i].stats.v);
  }
  for (size_t i = 0; i < p->n_lines; i++) free(p->lines[i].name);
  for (size_t i = 0; i < p->n_owned; i++) free(p->owned[i]);
  free(p->strs);
  xp_hmap_free(&p->index);
  free(p->metas);
  free(p->ranges);
  free(p->stats.v);
  free(p->lines);
  free(p->owned);
  free(p->name);
  free(p);
}

static uint64_t str_hash_of(const void *ctx, int64_t i) {
  const char *z = ((const xs_plane *)ctx)->strs[i];
  return xp_hash_bytes(0, z, strlen(z));
}

typedef struct str_key {
  const xs_plane *p;
  const char *s;
} str_key;

static int str_eq(const void *ctx, int64_t i) {
  const str_key *k = ctx;
  return strcmp(k->p->strs[i], k->s) == 0;
}

int64_t xs_intern(xs_plane *p, const char *s) {
  if (!xp_hmap_reserve(&p->index, str_hash_of, p)) xs_die("out of memory");
  str_key key = {p, s};
  uint64_t pos = xp_hmap_find(&p->index, xp_hash_bytes(0, s, strlen(s)), str_eq, &key);
  if (p->index.slot[pos] >= 0) return p->index.slot[pos] + 1;
  p->strs = grow(p->strs, &p->cap_strs, p->n_strs + 1, sizeof(char *));
  p->strs[p->n_strs] = xs_strdup(s);
  xp_hmap_put(&p->index, pos, (int64_t)p->n_strs);
  return (int64_t)++p->n_strs;
}

int64_t xs_event_meta(xs_plane *p, const char *name, const char *display_name) {
  p->metas = grow(p->metas, &p->cap_metas, p->n_metas + 1, sizeof(meta_entry));
  meta_entry *m = &p->metas[p->n_metas++];
  memset(m, 0, sizeof(*m));
  m->id = p->next_meta_id++;
  m->name = xs_strdup(name);
  m->display_name = display_name ? xs_strdup(display_name) : NULL;
  return m->id;
}

int64_t xs_event_meta_numbered(xs_plane *p, int64_t count, int64_t first_number) {
  p->ranges = grow(p->ranges, &p->cap_ranges, p->n_ranges + 1, sizeof(numbered_range));
  numbered_range *r = &p->ranges[p->n_ranges++];
  r->first_id = p->next_meta_id;
  r->count = count;
  r->first_number = first_number;
  p->next_meta_id += count;
  return r->first_id;
}

static xs_stat *stat_add(stat_list *l) {
  l->v = grow(l->v, &l->cap, l->n + 1, sizeof(xs_stat));
  xs_stat *st = &l->v[l->n++];
  stat_init(st, 0);
  return st;
}

xs_stat *xs_meta_stat(xs_plane *p, int64_t meta) {
  for (size_t i = p->n_metas; i-- > 0;)
    if (p->metas[i].id == meta) return stat_add(&p->metas[i].stats);
  xs_die("internal error: no event metadata %lld on plane %s", (long long)meta, p->name);
}

xs_stat *xs_plane_stat(xs_plane *p) {
  return stat_add(&p->stats);
}

static const char *own(xs_plane *p, const char *v) {
  p->owned = grow(p->owned, &p->cap_owned, p->n_owned + 1, sizeof(char *));
  return p->owned[p->n_owned++] = xs_strdup(v);
}

void xs_meta_str(xs_plane *p, int64_t meta, int64_t stat_id, const char *v) {
  xs_stat_str(xs_meta_stat(p, meta), stat_id, own(p, v));
}

void xs_plane_str(xs_plane *p, int64_t stat_id, const char *v) {
  xs_stat_str(xs_plane_stat(p), stat_id, own(p, v));
}

size_t xs_add_line(xs_plane *p, int64_t id, const char *name, int64_t timestamp_ns, int kind,
                   int arg) {
  p->lines = grow(p->lines, &p->cap_lines, p->n_lines + 1, sizeof(line_entry));
  line_entry *l = &p->lines[p->n_lines];
  l->id = id;
  l->name = xs_strdup(name);
  l->timestamp_ns = timestamp_ns;
  l->kind = kind;
  l->arg = arg;
  return p->n_lines++;
}

int xs_line_kind(const xs_plane *p, size_t line) {
  return p->lines[line].kind;
}

int xs_line_arg(const xs_plane *p, size_t line) {
  return p->lines[line].arg;
}

int64_t xs_line_timestamp_ns(const xs_plane *p, size_t line) {
  return p->lines[line].timestamp_ns;
}

/* ---- writing a plane ---- */

/* A stat list as protobuf-c wants it: an array of pointers (caller frees). */
static xs_stat **stat_ptrs(const stat_list *l) {
  xs_stat **v = xs_alloc(NULL, l->n * sizeof(xs_stat *));
  for (size_t i = 0; i < l->n; i++) v[i] = &l->v[i];
  return v;
}

static void write_event_meta(xs_sink *s, int64_t id, const char *name, const char *display,
                             const stat_list *stats) {
  Tensorflow__Profiler__XEventMetadata m = TENSORFLOW__PROFILER__XEVENT_METADATA__INIT;
  Tensorflow__Profiler__XPlane__EventMetadataEntry e =
      TENSORFLOW__PROFILER__XPLANE__EVENT_METADATA_ENTRY__INIT;
  m.id = id;
  m.name = (char *)name;
  if (display) m.display_name = (char *)display;
  xs_stat **ptrs = NULL;
  if (stats && stats->n) {
    ptrs = stat_ptrs(stats);
    m.stats = ptrs;
    m.n_stats = stats->n;
  }
  e.key = id;
  e.value = &m;
  xs_message_field(s, 4, &e.base);
  free(ptrs);
}

static void write_line_body(xs_sink *s, const xs_plane *p, size_t i, xs_emit_fn emit, void *ctx) {
  const line_entry *l = &p->lines[i];
  xs_int64_field(s, 1, l->id);
  xs_string_field(s, 2, l->name);
  xs_int64_field(s, 3, l->timestamp_ns);
  emit(ctx, p, i, s); /* field 4, events */
}

/* The XPlane message body. With emit == NULL the sink must count: each line
** then contributes its known size (sizes[i]) without being run again. */
static void write_plane_body(xs_sink *s, const xs_plane *p, const uint64_t *sizes,
                             xs_emit_fn emit, void *ctx) {
  xs_int64_field(s, 1, p->id);
  xs_string_field(s, 2, p->name);
  for (size_t i = 0; i < p->n_lines; i++) {
    xs_len_field(s, 3, sizes[i]);
    if (!emit) {
      s->bytes += sizes[i];
      continue;
    }
    uint64_t at = s->bytes;
    write_line_body(s, p, i, emit, ctx);
    if (s->bytes - at != sizes[i])
      xs_die("internal error: line %s of plane %s changed size between passes (%llu, %llu)",
             p->lines[i].name, p->name, (unsigned long long)sizes[i],
             (unsigned long long)(s->bytes - at));
  }
  for (size_t i = 0; i < p->n_metas; i++)
    write_event_meta(s, p->metas[i].id, p->metas[i].name, p->metas[i].display_name,
                     &p->metas[i].stats);
  for (size_t r = 0; r < p->n_ranges; r++) {
    for (int64_t k = 0; k < p->ranges[r].count; k++) {
      char num[24];
      snprintf(num, sizeof(num), "%lld", (long long)(p->ranges[r].first_number + k));
      write_event_meta(s, p->ranges[r].first_id + k, num, NULL, NULL);
    }
  }
  for (size_t i = 0; i < p->n_strs; i++) {
    Tensorflow__Profiler__XStatMetadata m = TENSORFLOW__PROFILER__XSTAT_METADATA__INIT;
    Tensorflow__Profiler__XPlane__StatMetadataEntry e =
        TENSORFLOW__PROFILER__XPLANE__STAT_METADATA_ENTRY__INIT;
    m.id = e.key = (int64_t)i + 1;
    m.name = p->strs[i];
    e.value = &m;
    xs_message_field(s, 5, &e.base);
  }
  for (size_t i = 0; i < p->stats.n; i++) xs_message_field(s, 6, &p->stats.v[i].base);
}

void xs_write_plane(xs_sink *out, const xs_plane *p, xs_emit_fn emit, void *ctx,
                    xs_counts *counts) {
  uint64_t *sizes = xs_alloc(NULL, (p->n_lines ? p->n_lines : 1) * sizeof(uint64_t));
  for (size_t i = 0; i < p->n_lines; i++) {
    xs_sink c;
    xs_sink_count(&c);
    write_line_body(&c, p, i, emit, ctx);
    sizes[i] = c.bytes;
  }
  xs_sink body;
  xs_sink_count(&body);
  write_plane_body(&body, p, sizes, NULL, NULL);
  uint64_t events0 = out->events;
  xs_len_field(out, 1, body.bytes);
  write_plane_body(out, p, sizes, emit, ctx);
  counts->planes++;
  counts->lines += p->n_lines;
  counts->events += out->events - events0;
  free(sizes);
}

void xs_print_json_string(const char *s) {
  putchar('"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}
