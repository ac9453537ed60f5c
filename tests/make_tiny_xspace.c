/*
** make_tiny_xspace.c: write a tiny XSpace profile that uses every field and
** every oneof case of schema/xplane.proto, for the SQL tests (tests/sql/tiny.sql).
**
**   make_tiny_xspace OUT.xplane.pb
**
** The first part of the file is one XSpace serialized by protobuf-c (the
** generated xplane.pb-c.h). protobuf-c always writes `repeated int64 child_id`
** packed (proto3), so a last plane, whose event metadata lists its child ids
** unpacked, packed and unpacked again in one message, is hand-encoded with the
** raw writer below and appended: concatenated protobuf messages merge, so
** the appended bytes (`XSpace.planes` field 1 holding one XPlane) add a fourth
** plane. `protoc --decode=tensorflow.profiler.XSpace -I schema xplane.proto`
** prints the whole file, including that plane.
**
** Contents (each value is what tests/sql/tiny.expected checks):
**   XSpace: hostnames ["tiny-host"], errors ["collector: 1 event dropped"],
**           warnings ["clock \"skew\"", "line\nbreak"]
**   plane 0 `/device:GPU:0` id 0: stats of every value type (double 2.5, uint64
**     2^64-1 and 7, int64 -42, str, bytes 00 ff fe 41, ref to the interned
**     string id -100); event metadata with negative ids, a display name, bytes
**     metadata, stats and packed child ids; line 0 with a 64-bit hash id
**     (0xAAAAAAAAAAAAAAAA), display id/name, unsorted and partially
**     overlapping events, an instant event with an unknown metadata id and a
**     stat with an unknown stat id; line 1 with another timestamp_ns, an event
**     whose flops stat overrides its metadata's flops, an aggregated event
**     (num_occurrences), and a ref to an unknown stat id.
**   plane 1 `/host:CPU` id 0 (a duplicate plane id): a `python` line with an
**     event holding a stat without a value (oneof value not set) and an event
**     with neither offset nor num_occurrences (oneof data not set); a line
**     without events.
**   plane 2 `Task Environment` id 2: profile_start_time / profile_stop_time.
**   plane 3 `/device:CUSTOM:raw` id -5 (hand-encoded): child ids unpacked.
**
** A short-lived writer: messages are allocated and left to the process exit.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xplane.pb-c.h"

typedef Tensorflow__Profiler__XStat XStat;
typedef Tensorflow__Profiler__XEvent XEvent;
typedef Tensorflow__Profiler__XLine XLine;
typedef Tensorflow__Profiler__XPlane XPlane;
typedef Tensorflow__Profiler__XEventMetadata XEventMetadata;
typedef Tensorflow__Profiler__XStatMetadata XStatMetadata;
typedef Tensorflow__Profiler__XPlane__EventMetadataEntry EMetaEntry;
typedef Tensorflow__Profiler__XPlane__StatMetadataEntry SMetaEntry;

static void *xalloc(size_t n) {
  void *p = calloc(1, n ? n : 1);
  if (!p) {
    fprintf(stderr, "make_tiny_xspace: out of memory\n");
    exit(1);
  }
  return p;
}

/* ---- message builders ------------------------------------------------ */

static XStat *stat_new(int64_t id, Tensorflow__Profiler__XStat__ValueCase vc) {
  XStat *s = xalloc(sizeof(*s));
  tensorflow__profiler__xstat__init(s);
  s->metadata_id = id;
  s->value_case = vc;
  return s;
}
static XStat *stat_double(int64_t id, double v) {
  XStat *s = stat_new(id, TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE);
  s->double_value = v;
  return s;
}
static XStat *stat_uint64(int64_t id, uint64_t v) {
  XStat *s = stat_new(id, TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE);
  s->uint64_value = v;
  return s;
}
static XStat *stat_int64(int64_t id, int64_t v) {
  XStat *s = stat_new(id, TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE);
  s->int64_value = v;
  return s;
}
static XStat *stat_str(int64_t id, const char *v) {
  XStat *s = stat_new(id, TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE);
  s->str_value = (char *)v;
  return s;
}
static XStat *stat_bytes(int64_t id, const uint8_t *v, size_t n) {
  XStat *s = stat_new(id, TENSORFLOW__PROFILER__XSTAT__VALUE_BYTES_VALUE);
  s->bytes_value.data = (uint8_t *)v;
  s->bytes_value.len = n;
  return s;
}
static XStat *stat_ref(int64_t id, uint64_t ref) {
  XStat *s = stat_new(id, TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE);
  s->ref_value = ref;
  return s;
}

/* A NULL-terminated list of stats, copied into a heap array. */
static XStat **stat_list(size_t *n, XStat *const *list) {
  size_t k = 0;
  while (list[k]) k++;
  XStat **v = xalloc(k * sizeof(*v));
  memcpy(v, list, k * sizeof(*v));
  *n = k;
  return v;
}
#define STATS(n, ...) stat_list(n, (XStat *const[]){__VA_ARGS__, NULL})

/* An event with neither offset_ps nor num_occurrences (oneof data not set). */
static XEvent *event_new(int64_t mid, int64_t dur_ps) {
  XEvent *e = xalloc(sizeof(*e));
  tensorflow__profiler__xevent__init(e);
  e->metadata_id = mid;
  e->duration_ps = dur_ps;
  return e;
}

static XEvent *event_at(int64_t mid, int64_t offset_ps, int64_t dur_ps) {
  XEvent *e = event_new(mid, dur_ps);
  e->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS;
  e->offset_ps = offset_ps;
  return e;
}

static XEvent *event_aggregated(int64_t mid, int64_t occurrences, int64_t dur_ps) {
  XEvent *e = event_new(mid, dur_ps);
  e->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES;
  e->num_occurrences = occurrences;
  return e;
}

static XLine *line_new(int64_t id, const char *name, int64_t timestamp_ns, size_t n_events) {
  XLine *l = xalloc(sizeof(*l));
  tensorflow__profiler__xline__init(l);
  l->id = id;
  l->name = (char *)name;
  l->timestamp_ns = timestamp_ns;
  l->n_events = n_events;
  l->events = xalloc(n_events * sizeof(XEvent *));
  return l;
}

static XPlane *plane_new(int64_t id, const char *name, size_t n_lines, size_t n_emeta, size_t n_smeta) {
  XPlane *p = xalloc(sizeof(*p));
  tensorflow__profiler__xplane__init(p);
  p->id = id;
  p->name = (char *)name;
  p->n_lines = n_lines;
  p->lines = xalloc(n_lines * sizeof(XLine *));
  p->n_event_metadata = n_emeta;
  p->event_metadata = xalloc(n_emeta * sizeof(EMetaEntry *));
  p->n_stat_metadata = n_smeta;
  p->stat_metadata = xalloc(n_smeta * sizeof(SMetaEntry *));
  return p;
}

static SMetaEntry *smeta(int64_t id, const char *name, const char *description) {
  XStatMetadata *m = xalloc(sizeof(*m));
  tensorflow__profiler__xstat_metadata__init(m);
  m->id = id;
  m->name = (char *)name;
  if (description) m->description = (char *)description;
  SMetaEntry *e = xalloc(sizeof(*e));
  tensorflow__profiler__xplane__stat_metadata_entry__init(e);
  e->key = id;
  e->value = m;
  return e;
}

static EMetaEntry *emeta(int64_t id, const char *name, const char *display_name) {
  XEventMetadata *m = xalloc(sizeof(*m));
  tensorflow__profiler__xevent_metadata__init(m);
  m->id = id;
  m->name = (char *)name;
  if (display_name) m->display_name = (char *)display_name;
  EMetaEntry *e = xalloc(sizeof(*e));
  tensorflow__profiler__xplane__event_metadata_entry__init(e);
  e->key = id;
  e->value = m;
  return e;
}

/* ---- the protobuf-c part --------------------------------------------- */

/* Stat ids of plane 0. */
enum { S_RATIO = 1, S_BIG, S_NEG, S_LABEL, S_BLOB, S_KIND, S_HLO_CATEGORY, S_FLOPS, S_KERNEL_DETAILS,
       S_INTERNED_DETAILS = 10, S_COUNT = 11, S_INTERNED_KIND = -100, S_UNKNOWN = 777,
       S_UNKNOWN_REF = 555 };

static XPlane *gpu_plane(void) {
  static const uint8_t blob[] = {0x00, 0xff, 0xfe, 0x41};
  static const uint8_t hlo_bytes[] = {0x0a, 0x02, 0x80, 0xff};
  static int64_t children[] = {-2, 3};
  XPlane *p = plane_new(0, "/device:GPU:0", 2, 3, 12);
  p->stat_metadata[0] = smeta(S_RATIO, "ratio", "a double stat");
  p->stat_metadata[1] = smeta(S_BIG, "big", NULL);
  p->stat_metadata[2] = smeta(S_NEG, "neg", NULL);
  p->stat_metadata[3] = smeta(S_LABEL, "label", NULL);
  p->stat_metadata[4] = smeta(S_BLOB, "blob", NULL);
  p->stat_metadata[5] = smeta(S_KIND, "kind", NULL);
  p->stat_metadata[6] = smeta(S_HLO_CATEGORY, "hlo_category", NULL);
  p->stat_metadata[7] = smeta(S_FLOPS, "flops", NULL);
  p->stat_metadata[8] = smeta(S_KERNEL_DETAILS, "kernel_details", NULL);
  p->stat_metadata[9] = smeta(S_INTERNED_DETAILS, "regs:32 grid:1,1,1", NULL);
  p->stat_metadata[10] = smeta(S_COUNT, "count", NULL);
  p->stat_metadata[11] = smeta(S_INTERNED_KIND, "interned kind", NULL);
  p->stats = STATS(&p->n_stats, stat_double(S_RATIO, 2.5), stat_uint64(S_BIG, UINT64_MAX),
                   stat_uint64(S_COUNT, 7), stat_int64(S_NEG, -42), stat_str(S_LABEL, "GPU zero"),
                   stat_bytes(S_BLOB, blob, sizeof(blob)),
                   stat_ref(S_KIND, (uint64_t)(int64_t)S_INTERNED_KIND));

  EMetaEntry *fusion = emeta(-1, "%fusion.1 = f32[8]{0} fusion(f32[8]{0} %p0), kind=kLoop", "fusion.1");
  fusion->value->metadata.data = (uint8_t *)hlo_bytes;
  fusion->value->metadata.len = sizeof(hlo_bytes);
  fusion->value->stats = STATS(&fusion->value->n_stats, stat_str(S_HLO_CATEGORY, "loop fusion"),
                               stat_int64(S_FLOPS, 100));
  fusion->value->child_id = children;
  fusion->value->n_child_id = 2;
  p->event_metadata[0] = fusion;
  p->event_metadata[1] = emeta(-2, "gemm", NULL);
  p->event_metadata[2] = emeta(3, "memcpy", "MemcpyH2D");

  /* Line 0: events out of order; [1000,7000) and [5000,8000) partly overlap. */
  XLine *l0 = line_new((int64_t)0xAAAAAAAAAAAAAAAAull, "Stream #1(Kernel)", 1000, 3);
  l0->display_id = 1;
  l0->display_name = "Stream 1";
  l0->duration_ps = 9000;
  l0->events[0] = event_at(-1, 5000, 3000);
  l0->events[0]->stats = STATS(&l0->events[0]->n_stats, stat_ref(S_KERNEL_DETAILS, S_INTERNED_DETAILS));
  l0->events[1] = event_at(-2, 1000, 6000);
  l0->events[2] = event_at(999, 2000, 0); /* unknown metadata id, instant */
  l0->events[2]->stats = STATS(&l0->events[2]->n_stats, stat_int64(S_UNKNOWN, 5));
  p->lines[0] = l0;

  XLine *l1 = line_new(2, "Stream #2(Kernel)", 2000, 3);
  l1->events[0] = event_at(-1, 0, 10);
  l1->events[0]->stats = STATS(&l1->events[0]->n_stats, stat_int64(S_FLOPS, 250));
  l1->events[1] = event_aggregated(3, 3, 40);
  l1->events[2] = event_at(-2, 20, 5);
  l1->events[2]->stats = STATS(&l1->events[2]->n_stats, stat_ref(S_KERNEL_DETAILS, S_UNKNOWN_REF));
  p->lines[1] = l1;
  return p;
}

static XPlane *host_plane(void) {
  XPlane *p = plane_new(0, "/host:CPU", 2, 1, 2);
  p->stat_metadata[0] = smeta(1, "step_num", NULL);
  p->stat_metadata[1] = smeta(2, "empty", NULL);
  p->event_metadata[0] = emeta(1, "train", NULL);
  XLine *py = line_new(0, "python", 500, 2);
  py->events[0] = event_at(1, 0, 100);
  py->events[0]->stats = STATS(&py->events[0]->n_stats, stat_int64(1, 3),
                               stat_new(2, TENSORFLOW__PROFILER__XSTAT__VALUE__NOT_SET));
  py->events[1] = event_new(1, 50);
  p->lines[0] = py;
  p->lines[1] = line_new(1, "idle thread", 0, 0);
  return p;
}

static XPlane *task_environment_plane(void) {
  XPlane *p = plane_new(2, "Task Environment", 0, 0, 2);
  p->stat_metadata[0] = smeta(1, "profile_start_time", NULL);
  p->stat_metadata[1] = smeta(2, "profile_stop_time", NULL);
  p->stats = STATS(&p->n_stats, stat_uint64(1, 1700000000000000000ull),
                   stat_uint64(2, 1700000000500000000ull));
  return p;
}

/* ---- the hand-encoded part: a raw protobuf writer --------------------- */

typedef struct buf {
  uint8_t *p;
  size_t n, cap;
} buf;

static void put_bytes(buf *b, const void *p, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2;
    b->p = realloc(b->p, b->cap);
    if (!b->p) {
      fprintf(stderr, "make_tiny_xspace: out of memory\n");
      exit(1);
    }
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
}

static void put_varint(buf *b, uint64_t v) {
  uint8_t tmp[10];
  size_t k = 0;
  do {
    tmp[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  put_bytes(b, tmp, k);
}

/* Field `num`: a varint (wire type 0), or a length-delimited payload (2). */
static void put_varint_field(buf *b, uint32_t num, uint64_t v) {
  put_varint(b, (uint64_t)num << 3);
  put_varint(b, v);
}

static void put_len_field(buf *b, uint32_t num, const void *p, size_t n) {
  put_varint(b, (uint64_t)num << 3 | 2);
  put_varint(b, n);
  put_bytes(b, p, n);
}

/* XSpace{ planes: XPlane{ id: -5, name: "/device:CUSTOM:raw", event_metadata
** { key: 5, value: { id: 5, name: "parent", child_id: 1 (unpacked),
** child_id: [-2, 300] (packed), child_id: 4 (unpacked) } } } }. */
static buf raw_plane(void) {
  buf packed = {0}, em = {0}, entry = {0}, plane = {0}, space = {0};
  put_varint(&packed, (uint64_t)(int64_t)-2);
  put_varint(&packed, 300);
  put_varint_field(&em, 1, 5);
  put_len_field(&em, 2, "parent", 6);
  put_varint_field(&em, 6, 1);
  put_len_field(&em, 6, packed.p, packed.n);
  put_varint_field(&em, 6, 4);
  put_varint_field(&entry, 1, 5);
  put_len_field(&entry, 2, em.p, em.n);
  put_varint_field(&plane, 1, (uint64_t)(int64_t)-5);
  put_len_field(&plane, 2, "/device:CUSTOM:raw", strlen("/device:CUSTOM:raw"));
  put_len_field(&plane, 4, entry.p, entry.n);
  put_len_field(&space, 1, plane.p, plane.n);
  free(packed.p);
  free(em.p);
  free(entry.p);
  free(plane.p);
  return space;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_tiny_xspace OUT.xplane.pb\n");
    return 2;
  }
  static char *hostnames[] = {"tiny-host"};
  static char *errors[] = {"collector: 1 event dropped"};
  static char *warnings[] = {"clock \"skew\"", "line\nbreak"};
  XPlane *planes[] = {gpu_plane(), host_plane(), task_environment_plane()};
  Tensorflow__Profiler__XSpace space = TENSORFLOW__PROFILER__XSPACE__INIT;
  space.planes = planes;
  space.n_planes = sizeof(planes) / sizeof(planes[0]);
  space.hostnames = hostnames;
  space.n_hostnames = 1;
  space.errors = errors;
  space.n_errors = 1;
  space.warnings = warnings;
  space.n_warnings = 2;

  buf out = {0};
  size_t n = tensorflow__profiler__xspace__get_packed_size(&space);
  out.p = xalloc(n);
  out.cap = n;
  out.n = tensorflow__profiler__xspace__pack(&space, out.p);
  buf raw = raw_plane();
  put_bytes(&out, raw.p, raw.n);
  free(raw.p);

  FILE *f = fopen(argv[1], "wb");
  if (!f || fwrite(out.p, 1, out.n, f) != out.n || fclose(f) != 0) {
    fprintf(stderr, "make_tiny_xspace: cannot write %s\n", argv[1]);
    return 1;
  }
  free(out.p);
  return 0;
}
