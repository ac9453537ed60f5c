/*
** make_perfetto_fixture.c: write the small XSpace that tests/test_perfetto.sh
** converts and checks against tests/golden/perfetto/fixture.textproto.
**
**   make_perfetto_fixture OUT.xplane.pb
**
** Every case of the Perfetto mapping (tp_plugin/pf_model.h) once:
**   plane 0 `/host:CPU`: line `python3` (ts 1000 ns): a launch at 500 ps for
**     2000 ps (sub-ns times) with correlation_id 7 (uint64), a ref stat, a
**     bytes stat and a stat of an unknown stat id; an instant (duration 0);
**     an aggregated event (num_occurrences: skipped).
**   plane 1 `/device:GPU:0`, lines 0 `XLA Ops` and 1 `Async XLA Ops` share
**     id 5 (one thread, merged by time). Line 0 (ts 2000 ns), offsets in ps:
**       X fusion [0,100000)  P convolution [10500,50000)
**       U unknown metadata [20000,25000)  E all-reduce [30250,80000): partial
**       overlap with P, spec parent X -> overlap lane 1, annotated parent X
**       F copy-start [35000,45000): spec parent E -> lane 1 under E
**       empty name [40000,41000) -> other lane  G add [60000,70000) under E
**       H multiply [90000,95000) under X  a negative duration (skipped)
**       an instant at 100000 (X has ended: depth 0)
**     line 1: kernel [95000,97000) under X, kernel [150000,170000) with
**       correlation_id 7 (flow from the launch).
**     line 2 `Stream #1` (id 0: key 3, display name `Stream 1 (compute)`):
**       events out of order (the sorted path).
**     line 3: no name (thread `xline:3`).
**   plane 2: no name (process `xplane:2`), no lines.
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
    fprintf(stderr, "make_perfetto_fixture: out of memory\n");
    exit(1);
  }
  return p;
}

static XStat *stat(int64_t id, Tensorflow__Profiler__XStat__ValueCase vc) {
  XStat *s = xalloc(sizeof(*s));
  tensorflow__profiler__xstat__init(s);
  s->metadata_id = id;
  s->value_case = vc;
  return s;
}

/* Events are appended to the line given. */
static XEvent *event(XLine *ln, int64_t mid, int64_t offset_ps, int64_t dur_ps) {
  XEvent *e = xalloc(sizeof(*e));
  tensorflow__profiler__xevent__init(e);
  e->metadata_id = mid;
  e->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS;
  e->offset_ps = offset_ps;
  e->duration_ps = dur_ps;
  ln->events = realloc(ln->events, sizeof(XEvent *) * (ln->n_events + 1));
  ln->events[ln->n_events++] = e;
  return e;
}

static void event_stat(XEvent *e, XStat *s) {
  e->stats = realloc(e->stats, sizeof(XStat *) * (e->n_stats + 1));
  e->stats[e->n_stats++] = s;
}

static XLine *line(XPlane *pl, int64_t id, const char *name, const char *display, int64_t ts_ns) {
  XLine *ln = xalloc(sizeof(*ln));
  tensorflow__profiler__xline__init(ln);
  ln->id = id;
  ln->name = (char *)name;
  ln->display_name = (char *)display;
  ln->timestamp_ns = ts_ns;
  pl->lines = realloc(pl->lines, sizeof(XLine *) * (pl->n_lines + 1));
  pl->lines[pl->n_lines++] = ln;
  return ln;
}

static XEventMetadata *emeta(XPlane *pl, int64_t id, const char *name, const char *display) {
  EMetaEntry *en = xalloc(sizeof(*en));
  tensorflow__profiler__xplane__event_metadata_entry__init(en);
  XEventMetadata *m = xalloc(sizeof(*m));
  tensorflow__profiler__xevent_metadata__init(m);
  m->id = id;
  m->name = (char *)name;
  m->display_name = (char *)display;
  en->key = id;
  en->value = m;
  pl->event_metadata = realloc(pl->event_metadata, sizeof(EMetaEntry *) * (pl->n_event_metadata + 1));
  pl->event_metadata[pl->n_event_metadata++] = en;
  return m;
}

static void smeta(XPlane *pl, int64_t id, const char *name) {
  SMetaEntry *en = xalloc(sizeof(*en));
  tensorflow__profiler__xplane__stat_metadata_entry__init(en);
  XStatMetadata *m = xalloc(sizeof(*m));
  tensorflow__profiler__xstat_metadata__init(m);
  m->id = id;
  m->name = (char *)name;
  en->key = id;
  en->value = m;
  pl->stat_metadata = realloc(pl->stat_metadata, sizeof(SMetaEntry *) * (pl->n_stat_metadata + 1));
  pl->stat_metadata[pl->n_stat_metadata++] = en;
}

static XPlane *plane(Tensorflow__Profiler__XSpace *sp, int64_t id, const char *name) {
  XPlane *pl = xalloc(sizeof(*pl));
  tensorflow__profiler__xplane__init(pl);
  pl->id = id;
  pl->name = (char *)name;
  sp->planes = realloc(sp->planes, sizeof(XPlane *) * (sp->n_planes + 1));
  sp->planes[sp->n_planes++] = pl;
  return pl;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_perfetto_fixture OUT.xplane.pb\n");
    return 2;
  }
  Tensorflow__Profiler__XSpace sp = TENSORFLOW__PROFILER__XSPACE__INIT;
  static const uint8_t blob[] = {0x00, 0xff, 0x41};

  XPlane *host = plane(&sp, 0, "/host:CPU");
  smeta(host, 1, "correlation_id");
  smeta(host, 2, "blob");
  smeta(host, 3, "kind");
  smeta(host, 4, "launch");
  emeta(host, 1, "cuLaunchKernel", "");
  emeta(host, 2, "marker", "");
  emeta(host, 3, "aggregated", "");
  XLine *py = line(host, 100, "python3", "", 1000);
  XEvent *launch = event(py, 1, 500, 2000);
  XStat *s = stat(1, TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE);
  s->uint64_value = 7;
  event_stat(launch, s);
  s = stat(3, TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE);
  s->ref_value = 4;
  event_stat(launch, s);
  s = stat(2, TENSORFLOW__PROFILER__XSTAT__VALUE_BYTES_VALUE);
  s->bytes_value.data = (uint8_t *)blob;
  s->bytes_value.len = sizeof(blob);
  event_stat(launch, s);
  s = stat(42, TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE);
  s->int64_value = -1;
  event_stat(launch, s);
  event(py, 2, 5000000, 0);
  XEvent *agg = event(py, 3, 0, 1000);
  agg->data_case = TENSORFLOW__PROFILER__XEVENT__DATA_NUM_OCCURRENCES;
  agg->num_occurrences = 3;

  XPlane *gpu = plane(&sp, 1, "/device:GPU:0");
  smeta(gpu, 1, "correlation_id");
  smeta(gpu, 2, "flops");
  smeta(gpu, 3, "tf_op");
  XEventMetadata *fusion = emeta(gpu, 1, "fusion.1", "%fusion.12");
  fusion->stats = xalloc(sizeof(XStat *) * 2);
  fusion->stats[0] = stat(2, TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE);
  fusion->stats[0]->double_value = 2.5;
  fusion->stats[1] = stat(3, TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE);
  fusion->stats[1]->str_value = "jit(step)/dense";
  fusion->n_stats = 2;
  emeta(gpu, 2, "convolution.2", "");
  emeta(gpu, 3, "all-reduce.3", "");
  emeta(gpu, 4, "copy-start.4", "");
  emeta(gpu, 5, "add.5", "");
  emeta(gpu, 6, "multiply.6", "");
  emeta(gpu, 7, "kernel", "");
  emeta(gpu, 8, "", "");
  XLine *ops = line(gpu, 5, "XLA Ops", "", 2000);
  event(ops, 1, 0, 100000);          /* X */
  event(ops, 2, 10500, 39500);       /* P */
  event(ops, 99, 20000, 5000);       /* U: unknown metadata */
  event(ops, 3, 30250, 49750);       /* E */
  event(ops, 4, 35000, 10000);       /* F */
  event(ops, 8, 40000, 1000);        /* empty name */
  event(ops, 5, 60000, 10000);       /* G */
  event(ops, 6, 90000, 5000);        /* H */
  event(ops, 6, 92000, -5);          /* negative duration */
  event(ops, 5, 100000, 0);          /* instant */
  XLine *async = line(gpu, 5, "Async XLA Ops", "", 2000);
  event(async, 7, 95000, 2000);
  XEvent *k = event(async, 7, 150000, 20000);
  s = stat(1, TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE);
  s->int64_value = 7;
  event_stat(k, s);
  XLine *stream = line(gpu, 0, "Stream #1", "Stream 1 (compute)", 2000);
  event(stream, 7, 5000, 1000);
  event(stream, 7, 1000, 2000);
  event(stream, 5, 1000, 1000);
  XLine *anon = line(gpu, 7, "", "", 2000);
  event(anon, 5, 0, 1000);

  plane(&sp, 2, "");

  size_t n = tensorflow__profiler__xspace__get_packed_size(&sp);
  uint8_t *buf = xalloc(n);
  tensorflow__profiler__xspace__pack(&sp, buf);
  FILE *f = fopen(argv[1], "wb");
  if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0) {
    fprintf(stderr, "make_perfetto_fixture: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
