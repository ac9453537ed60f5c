/*
** fuzz_decoder.c: libFuzzer target for the XSpace decoder core.
**
**   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DXPLANE_FUZZ=ON
**   cmake --build build-fuzz --target xplane_fuzz
**   build-fuzz/tests/fuzz/xplane_fuzz corpus/ -max_len=4194304
** (tests/run_fuzz.sh does all of this with a seed corpus and a time bound.)
**
** Each input goes to xp_profile_from_memory(). A rejected input must come
** back with an error message naming the input. An accepted one is then
** scanned with every scanning API (events of every line, event / plane /
** metadata stats, child ids, both id lookups, every string of the index is
** read byte by byte), which fuzzes profile.h's contract that a validated
** profile is safe to scan; and the scans must agree with the counts and time
** bounds the index recorded, or the target aborts.
**
** Every input is also read as the parameter text of the findings
** (xp_find_params_parse, up to its first NUL): accepted with every value in
** range, or refused with a message. Accepted profiles get their findings
** (findings.h) with sane rows: a known id and severity, count >= 0, a time
** range that is not reversed, a finite share >= 0.
**
** Every input is also given to the HLO decoder (core/hlo.h), which must
** accept it or refuse it with a message; accepted profiles also build the
** xprof tables (op regions, devices, HLO stats with their roofline, kernel
** stats, memory events and peaks) with invariants: every op in exactly one
** HLO op row, no op in two regions, min <= max per kernel.
**
** Inputs with two planes or more are also written to a file and opened with
** xp_profile_open() on XP_MAX_INDEX_THREADS threads: the parallel plane walk
** must give the same index, or the same error, as the one-thread walk.
**
** Inputs that look like a JSON trace (first non-blank byte `{` or `[`, or
** gzip) also go through xp_json_trace_convert(): it must either refuse them
** with a message, or write an XSpace that validates and scans as above.
**
** Every accepted profile then goes through the analysis (analysis.h: self
** times, ops with gaps and payloads, steps, regions; aggregates.h: the
** report aggregates) and the Perfetto mapping (tp_plugin/pf_model.h, source
** record included) into a counting sink: ops have 0 <= self <= dur and a
** gap >= 0 whose payload is an op; every event is a slice, an instant or
** counted as skipped; every BEGIN has its END. Then trace processor's import
** as pf_import.h emulates it (the rows of the xplane_pf_* tables): slice ids
** in (ts, import order), a parent on its slice's track one level up, args
** inside the args table, every flow linking two slices (check_import).
*/
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "aggregates.h"
#include "analysis.h"
#include "discover.h"
#include "findings.h"
#include "hlo.h"
#include "memory.h"
#include "xprof.h"
#include "json_trace.h"
#include "pf_import.h"
#include "pf_model.h"
#include "profile.h"
#include "util.h"

#include "fuzz_common.h"

#define FUZZ_NAME "fuzz-input"

/* Every byte of every string is read, so ASan sees a pointer out of bounds. */
static volatile uint64_t sink;

static void touch(xp_str s) {
  uint64_t h = 0;
  CHECK(s.p != NULL || s.n == 0);
  for (size_t i = 0; i < s.n; i++) h = h * 31 + (uint8_t)s.p[i];
  sink += h;
}

static void touch_stats(const xp_statvec *sv, xp_origin lo, xp_origin hi) {
  for (int i = 0; i < sv->n; i++) {
    const xp_stat *s = &sv->v[i];
    CHECK(s->type >= XP_V_NONE && s->type <= XP_V_REF);
    CHECK(s->origin >= lo && s->origin <= hi);
    touch(s->name);
    if (s->type == XP_V_STR || s->type == XP_V_BYTES || s->type == XP_V_REF) touch(s->s);
    sink += s->num.u + s->ref;
  }
  /* The last stat of a name is what a lookup finds. */
  if (sv->n > 0 && sv->v[sv->n - 1].name.n > 0 && sv->v[sv->n - 1].name.n < 64) {
    char name[64];
    memcpy(name, sv->v[sv->n - 1].name.p, sv->v[sv->n - 1].name.n);
    name[sv->v[sv->n - 1].name.n] = 0;
    if (strlen(name) == sv->v[sv->n - 1].name.n) CHECK(xp_statvec_find(sv, name) != NULL);
  }
}

/* The events of one line: counts and time bounds agree with the index. */
static void scan_line(const xp_profile *p, const xp_plane *pl, const xp_line *ln, xp_statvec *sv) {
  xp_event_iter it;
  xp_event ev;
  int64_t n = 0, timed = 0;
  int64_t min_off = INT64_MAX, max_off = INT64_MIN, max_end = INT64_MIN;
  touch(ln->name);
  touch(ln->display_name);
  xp_events_begin(p, ln, &it);
  while (xp_events_next(&it, &ev)) {
    n++;
    CHECK(!(ev.has_offset && ev.has_occurrences));
    CHECK(ev.msg >= p->base && ev.msg + ev.msg_n <= p->base + p->size);
    if (ev.has_offset) {
      int64_t end = (int64_t)((uint64_t)ev.offset_ps + (uint64_t)ev.duration_ps);
      timed++;
      if (ev.offset_ps < min_off) min_off = ev.offset_ps;
      if (ev.offset_ps > max_off) max_off = ev.offset_ps;
      if (end > max_end) max_end = end;
    }
    const xp_event_meta *em = xp_plane_event_meta(pl, ev.metadata_id);
    if (em) CHECK(em->id == ev.metadata_id);
    CHECK(xp_event_stats(p, pl, &ev, sv));
    touch_stats(sv, XP_ORIGIN_METADATA, XP_ORIGIN_EVENT);
  }
  CHECK(it.r.err == XP_WIRE_OK);
  CHECK(n == ln->n_events);
  CHECK(timed == ln->n_timed);
  CHECK(ln->base_ps == (int64_t)(((uint64_t)ln->timestamp_ns - (uint64_t)p->time_base_ns) * 1000u));
  if (timed) {
    uint64_t base = (uint64_t)ln->base_ps;
    CHECK(ln->min_start_ps == (int64_t)((uint64_t)min_off + base));
    CHECK(ln->max_start_ps == (int64_t)((uint64_t)max_off + base));
    CHECK(ln->max_end_ps == (int64_t)((uint64_t)max_end + base));
  } else {
    CHECK(ln->min_start_ps == INT64_MAX && ln->max_start_ps == INT64_MIN && ln->max_end_ps == INT64_MIN);
  }
}

static void scan_plane(const xp_profile *p, const xp_plane *pl, xp_statvec *sv) {
  int64_t n_events = 0;
  touch(pl->name);
  CHECK(xp_plane_stats(p, pl, sv));
  CHECK(sv->n == pl->n_stats);
  touch_stats(sv, XP_ORIGIN_PLANE, XP_ORIGIN_PLANE);
  for (int32_t i = 0; i < pl->n_lines; i++) {
    scan_line(p, pl, &pl->lines[i], sv);
    n_events += pl->lines[i].n_events;
  }
  CHECK(n_events == pl->n_events);
  for (int32_t i = 0; i < pl->n_emeta; i++) {
    const xp_event_meta *em = &pl->emeta[i];
    CHECK(xp_plane_event_meta(pl, em->id) == em); /* ids are unique once indexed */
    touch(em->name);
    touch(em->display_name);
    touch(em->metadata);
    CHECK(xp_meta_stats(p, pl, em, sv));
    CHECK(sv->n == em->n_stats);
    touch_stats(sv, XP_ORIGIN_METADATA, XP_ORIGIN_METADATA);
    CHECK(em->n_children >= 0);
    if (em->n_children > 0) {
      /* One sentinel past the end: xp_meta_children must stop at n_children. */
      int64_t *kids = malloc(((size_t)em->n_children + 1) * sizeof(int64_t));
      CHECK(kids != NULL);
      kids[em->n_children] = 0x5a5a5a5a;
      xp_meta_children(p, em, kids);
      CHECK(kids[em->n_children] == 0x5a5a5a5a);
      for (int32_t k = 0; k < em->n_children; k++) sink += (uint64_t)kids[k];
      free(kids);
    }
  }
  for (int32_t i = 0; i < pl->n_smeta; i++) {
    const xp_stat_meta *sm = &pl->smeta[i];
    CHECK(xp_plane_stat_meta(pl, sm->id) == sm);
    touch(sm->name);
    touch(sm->description);
  }
}

/* The parts of two indexes of the same bytes that must agree. */
static void check_same_index(const xp_profile *a, const xp_profile *b) {
  CHECK(a->n_planes == b->n_planes && a->n_lines == b->n_lines && a->n_events == b->n_events);
  CHECK(a->n_errors == b->n_errors && a->n_warnings == b->n_warnings && a->n_hostnames == b->n_hostnames);
  CHECK(a->time_base_ns == b->time_base_ns);
  CHECK(a->has_start_time == b->has_start_time && a->profile_start_time_ns == b->profile_start_time_ns);
  CHECK(a->has_stop_time == b->has_stop_time && a->profile_stop_time_ns == b->profile_stop_time_ns);
  for (int32_t i = 0; i < a->n_planes; i++) {
    const xp_plane *x = &a->planes[i], *y = &b->planes[i];
    CHECK(x->id == y->id && x->name.n == y->name.n && x->msg_n == y->msg_n);
    CHECK(x->n_lines == y->n_lines && x->n_events == y->n_events && x->n_stats == y->n_stats);
    CHECK(x->n_emeta == y->n_emeta && x->n_smeta == y->n_smeta);
    for (int32_t k = 0; k < x->n_lines; k++) {
      const xp_line *l = &x->lines[k], *m = &y->lines[k];
      CHECK(l->id == m->id && l->n_events == m->n_events && l->n_timed == m->n_timed);
      CHECK(l->base_ps == m->base_ps && l->min_start_ps == m->min_start_ps);
      CHECK(l->max_start_ps == m->max_start_ps && l->max_end_ps == m->max_end_ps);
    }
    for (int32_t k = 0; k < x->n_emeta; k++)
      CHECK(x->emeta[k].id == y->emeta[k].id && x->emeta[k].n_stats == y->emeta[k].n_stats &&
            x->emeta[k].n_children == y->emeta[k].n_children);
    for (int32_t k = 0; k < x->n_smeta; k++)
      CHECK(x->smeta[k].id == y->smeta[k].id && x->smeta[k].used_as_name == y->smeta[k].used_as_name);
  }
}

/* Write all of data to fd. */
/* The file the parallel walk opens: a `.xplane.pb` name (never taken for a
** JSON trace) alone in a private directory under $TMPDIR, removed at exit. */
static char in_dir[4096], in_path[4200];

static void remove_input(void) {
  unlink(in_path);
  rmdir(in_dir);
}

/* Open the same bytes as a file with the parallel plane walk; compare with
** the one-thread result `one` (NULL with error `one_err` if it was refused). */
static void check_parallel(const uint8_t *data, size_t size, const xp_profile *one, const char *one_err) {
  char *err = NULL;
  if (!in_dir[0]) {
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(in_dir, sizeof(in_dir), "%s/xplane-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(n > 0 && (size_t)n < sizeof(in_dir));
    CHECK(mkdtemp(in_dir) != NULL);
    snprintf(in_path, sizeof(in_path), "%s/input.xplane.pb", in_dir);
    atexit(remove_input);
  }
  int fd = open(in_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  CHECK(fd >= 0);
  write_all(fd, data, size);
  CHECK(close(fd) == 0);
  xp_profile *par = xp_profile_open(in_path, XP_MAX_INDEX_THREADS, &err);
  if (!one) {
    /* The same problem, whatever the name: compare past "<name>: ". */
    size_t skip = strlen(FUZZ_NAME ": "), n = strlen(in_path);
    CHECK(par == NULL && err != NULL);
    CHECK(strncmp(err, in_path, n) == 0 && strcmp(err + n + 2, one_err + skip) == 0);
  } else {
    CHECK(par != NULL && err == NULL);
    check_same_index(one, par);
    xp_profile_release(par);
  }
  xp_free(err);
}

/* How many XSpace.planes fields the input starts with (stops at anything
** else): only those inputs take the parallel path. */
static int count_planes(const uint8_t *p, size_t n) {
  xp_wire r;
  xp_field f;
  int planes = 0;
  xp_wire_init(&r, p, p, n);
  while (planes < 2 && xp_wire_next(&r, &f)) planes += f.num == 1 && f.wt == XP_WT_LEN;
  return planes;
}

/* Every scanning API over every plane of a validated profile. */
static void scan_profile(const xp_profile *p) {
  xp_statvec sv = {0};
  int64_t n_lines = 0, n_events = 0;
  for (int32_t i = 0; i < p->n_planes; i++) {
    scan_plane(p, &p->planes[i], &sv);
    n_lines += p->planes[i].n_lines;
    n_events += p->planes[i].n_events;
  }
  CHECK(n_lines == p->n_lines);
  CHECK(n_events == p->n_events);
  for (int32_t i = 0; i < p->n_errors; i++) touch(p->errors[i]);
  for (int32_t i = 0; i < p->n_warnings; i++) touch(p->warnings[i]);
  for (int32_t i = 0; i < p->n_hostnames; i++) touch(p->hostnames[i]);
  xp_statvec_free(&sv);
}

/* ---- analysis and the Perfetto mapping ---- */

typedef struct pf_tally {
  int64_t begins, ends, instants, sources, plane_records, args;
} pf_tally;

static int tally_process(void *ctx, const pf_process *pr, char **errmsg) {
  (void)ctx, (void)errmsg;
  CHECK(pr->name != NULL);
  return 1;
}

static int tally_track(void *ctx, const pf_track *t, char **errmsg) {
  (void)ctx, (void)errmsg;
  CHECK(t->name != NULL);
  return 1;
}

static int tally_event(void *ctx, const pf_event *e, char **errmsg) {
  pf_tally *t = ctx;
  (void)errmsg;
  if (e->type == PF_BEGIN) {
    CHECK(e->end_ns >= e->ts_ns);
    t->begins++;
  } else if (e->type == PF_END) {
    t->ends++;
  } else if (e->track->global) {
    /* The converter's records: one xplane.source per profile, one
    ** xplane.plane per plane, all on the source's global track. */
    if (e->name.n == 13 && memcmp(e->name.p, "xplane.source", 13) == 0) t->sources++;
    else if (e->name.n == 12 && memcmp(e->name.p, "xplane.plane", 12) == 0) t->plane_records++;
    else CHECK(!"an instant on a global track that is no converter record");
  } else {
    t->instants++;
  }
  for (int i = 0; i < e->n_args; i++) {
    touch(e->args[i].name);
    if (e->args[i].type == PF_A_STRING) touch(e->args[i].s);
    t->args++;
  }
  return 1;
}

/* Trace processor's import as pf_import emulates it (the rows of the
** extension's xplane_pf_* tables): every written event, the source record and
** the plane records become slices, numbered 0..n-1 by (ts, import order);
** id and ordinal map both ways; a slice's parent is on its track, one level
** up, and starts no later; every arg of a slice is inside the args table;
** each flow links two distinct slices, the later one coming in. */
static void check_import(xp_profile *p, const xp_file *f, int64_t n_written) {
  pf_import im;
  memset(&im, 0, sizeof(im));
  char *err = NULL;
  int ok = pf_import_build(&im, f, p, 1, &err);
  if (!ok) fprintf(stderr, "pf_import_build: %s\n", err ? err : "?");
  CHECK(ok);
  CHECK(im.slices.n == n_written + 1 + p->n_planes);
  int64_t prev_ts = INT64_MIN, n_args = 0;
  for (int64_t id = 0; id < im.slices.n; id++) {
    const pfc_slice *s = pf_slice_by_id(&im, id);
    CHECK(s->ts >= prev_ts);
    prev_ts = s->ts;
    CHECK(s->dur >= 0 && s->depth >= 0 && s->n_args >= 0 && s->arg_lo >= 0);
    CHECK(s->track >= 0 && s->track < im.tracks.n && im.tracks.v[s->track].id >= 0);
    CHECK(s->arg_lo + s->n_args <= im.args.n);
    n_args += s->n_args;
    if (s->parent_ordinal >= 0) {
      const pfc_slice *par = pf_slice(&im, s->parent_ordinal);
      CHECK(par->track == s->track && par->depth == s->depth - 1 && par->ts <= s->ts);
      CHECK(pf_id_of(&im, s->parent_ordinal) < id);
    } else {
      CHECK(s->depth == 0);
    }
  }
  CHECK(n_args == im.args.n);
  for (int64_t ord = 0; ord < im.slices.n; ord++) {
    int64_t id = pf_id_of(&im, ord);
    CHECK(id >= 0 && id < im.slices.n && pf_slice_by_id(&im, id) == pf_slice(&im, ord));
  }
  for (int64_t i = 0; i < im.args.n; i++) {
    const char *key = pf_pool_at(&im.pool, pfc_arg_key(pf_arg_at(&im, i)));
    touch((xp_str){key, strlen(key)});
    if (pfc_arg_str(pf_arg_at(&im, i)) >= 0) {
      const char *v = pf_pool_at(&im.pool, pfc_arg_str(pf_arg_at(&im, i)));
      touch((xp_str){v, strlen(v)});
    }
  }
  ok = pf_import_flows(&im, &err);
  if (!ok) fprintf(stderr, "pf_import_flows: %s\n", err ? err : "?");
  CHECK(ok);
  for (int64_t i = 0; i < im.flows.n; i++) {
    const pfc_flow *fl = pf_flow(&im, i);
    CHECK((int64_t)fl->a > fl->b && fl->b >= 0 && (int64_t)fl->a < im.slices.n);
    CHECK(i == 0 || pf_flow(&im, i - 1)->a < fl->a);
  }
  pf_import_free(&im);
}

static void analyze_profile(xp_profile *p) {
  p->threads = 2; /* the parallel walks of the analysis (pass.c, facts.c), as a connection runs them */
  const xp_op *ops;
  int64_t n_ops = xp_ops(p, &ops);
  CHECK(n_ops >= 0);
  for (int64_t i = 0; i < n_ops; i++) {
    CHECK(ops[i].self_ps >= 0 && ops[i].self_ps <= ops[i].dur_ps);
    CHECK(ops[i].gap_ps >= 0);
    CHECK(ops[i].payload >= -1 && ops[i].payload < n_ops);
    CHECK((ops[i].gap_ps > 0) == (ops[i].payload >= 0));
  }
  const xp_step *steps;
  CHECK(xp_steps(p, &steps) >= 0);
  const xp_scope *scopes;
  CHECK(xp_scopes(p, &scopes) >= 0);
  const xp_track_agg *aggs;
  const xp_hint *hints;
  int64_t n_hints;
  CHECK(xp_track_aggs(p, &aggs, &hints, &n_hints) >= 0);
  const xp_op_group *names;
  CHECK(xp_op_groups(p, &names) >= 0);
  const xp_tf_count *tf;
  CHECK(xp_op_tf_ops(p, &tf) >= 0);
  const xp_gap_group *gaps;
  CHECK(xp_gap_groups(p, &gaps) >= 0);
  /* xprof-style tables: each op counted at most once, shares and counts in bounds */
  const xp_op_region *regions;
  int64_t n_windows, n_regions = xp_op_regions(p, &regions, &n_windows);
  CHECK(n_regions >= 0);
  int64_t counted = 0;
  for (int64_t i = 0; i < n_regions; i++) {
    CHECK(regions[i].count > 0 && regions[i].self_ps <= regions[i].total_ps);
    counted += regions[i].count;
  }
  CHECK(counted <= n_ops && (n_windows > 0 || n_regions == 0));
  const xp_device *devices;
  CHECK(xp_devices(p, &devices) >= 0);
  const xp_hlo_stat *hlo;
  int64_t base, n_hlo = xp_hlo_stats(p, &hlo, &base);
  CHECK(n_hlo >= 0);
  int64_t hlo_ops = 0;
  for (int64_t i = 0; i < n_hlo; i++) {
    xp_roofline r;
    xp_roofline_of(&hlo[i], &r);
    CHECK(r.bound_by != NULL);
    if (hlo[i].kind == XP_HLO_OP) hlo_ops += hlo[i].count;
  }
  CHECK(hlo_ops == n_ops);
  const xp_kernel_stat *kernels;
  int64_t n_kernels = xp_kernel_stats(p, &kernels);
  CHECK(n_kernels >= 0);
  for (int64_t i = 0; i < n_kernels; i++) CHECK(kernels[i].min_ps <= kernels[i].max_ps && kernels[i].count > 0);
  const xp_mem_event *mem;
  CHECK(xp_mem_events(p, &mem) >= 0);
  const xp_mem_peak *peaks;
  int64_t n_peaks = xp_mem_peaks(p, &peaks);
  CHECK(n_peaks >= 0);
  for (int64_t i = 0; i < n_peaks; i++) CHECK(peaks[i].ops_at_peak != NULL && peaks[i].peak_event >= 0);
  xp_finding *fnd;
  int64_t n_fnd = xp_findings(p, NULL, &fnd);
  CHECK(n_fnd >= 0);
  for (int64_t i = 0; i < n_fnd; i++) {
    const xp_finding *f = &fnd[i];
    CHECK(f->id && f->severity && f->suggestion && f->evidence && f->count >= 0);
    CHECK(f->start_ps <= f->end_ps && f->share >= 0 && f->share == f->share && f->share < 1e300);
  }
  xp_findings_free(fnd, n_fnd);

  pf_tally t = {0};
  pf_sink sk = {.ctx = &t, .process = tally_process, .track = tally_track, .event = tally_event, .want_args = 1};
  pf_model *m = pf_model_new(&sk, 0);
  CHECK(m != NULL);
  char *err = NULL;
  xp_file f = {.path = FUZZ_NAME, .run = "run", .host = "fuzz", .size = (int64_t)p->size};
  int ok = pf_model_add(m, &f, p, &err);
  if (!ok) fprintf(stderr, "pf_model_add: %s\n", err ? err : "?");
  CHECK(ok);
  const pf_counts *c = pf_model_counts(m);
  CHECK(t.begins == t.ends && t.begins == c->slices && t.instants == c->instants && t.sources == 1);
  CHECK(t.plane_records == p->n_planes);
  CHECK(c->slices + c->instants + c->skipped_untimed + c->skipped_invalid == p->n_events);
  int64_t n_written = c->slices + c->instants;
  pf_model_free(m);
  check_import(p, &f, n_written);
}

/* Bytes the profile reader would take for a JSON trace (see json_trace.h). */
static int looks_like_json(const uint8_t *p, size_t n) {
  if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) return 1;
  for (size_t i = 0; i < n && i < 64; i++) {
    if (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t') continue;
    return p[i] == '{' || p[i] == '[';
  }
  return 0;
}

/* The JSON trace converter: a refusal with a message, or a valid XSpace. */
static void fuzz_json_trace(const uint8_t *data, size_t size) {
  xp_json_trace t;
  char *err = NULL;
  int fd = memfd_create("xplane-fuzz-json", MFD_CLOEXEC);
  CHECK(fd >= 0);
  write_all(fd, data, size);
  CHECK(lseek(fd, 0, SEEK_SET) == 0);
  int ok = xp_json_trace_convert(fd, "fuzz note", &t, &err);
  close(fd);
  if (!ok) {
    CHECK(err != NULL && err[0] != 0);
    xp_free(err);
    return;
  }
  CHECK(err == NULL && t.fd >= 0 && t.size > 0);
  void *m = mmap(NULL, (size_t)t.size, PROT_READ, MAP_SHARED, t.fd, 0);
  close(t.fd);
  CHECK(m != MAP_FAILED);
  xp_profile *p = xp_profile_from_memory(FUZZ_NAME, m, (size_t)t.size, &err);
  if (!p) fprintf(stderr, "converted JSON trace refused: %s\n", err);
  CHECK(p != NULL);
  CHECK(p->n_warnings >= 1 && xp_str_eq(p->warnings[0], "fuzz note"));
  scan_profile(p);
  xp_profile_release(p);
  munmap(m, (size_t)t.size);
  xp_free(t.display_time_unit);
}

/* The HLO decoder on the same bytes: accepted or refused with a message. */
static void fuzz_hlo(const uint8_t *data, size_t size) {
  xp_hlo *h = NULL;
  char *err = NULL;
  if (xp_hlo_decode(data, size, &h, &err)) {
    for (int64_t i = 0; i < h->n; i++) CHECK(h->rows[i].name != NULL && h->rows[i].called != NULL);
    xp_hlo_free(h);
  } else {
    xp_free(err);
  }
}

/* The same bytes as the findings' parameter text (up to the first NUL). */
static void fuzz_find_params(const uint8_t *data, size_t size) {
  char *text = xp_malloc(size + 1);
  CHECK(text != NULL);
  memcpy(text, data, size);
  text[size] = 0;
  xp_find_params fp;
  xp_find_params_default(&fp);
  char *err = xp_find_params_parse(&fp, text);
  if (err) {
    CHECK(err[0] != 0);
    xp_free(err);
  } else {
    CHECK(fp.recompile_min >= 1 && fp.tiny_min >= 1 && fp.tiny_ps > 0 && fp.sync_idle_ps >= 0);
    CHECK(fp.tiny_ps <= 1000000000000000LL && fp.sync_idle_ps <= 1000000000000000LL);
    double sh[] = {fp.compile_share, fp.idle_share, fp.host_busy_share, fp.transfer_share, fp.tiny_share,
                   fp.hot_op_share};
    for (int k = 0; k < 6; k++) CHECK(sh[k] >= 0 && sh[k] <= 1);
  }
  xp_free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_find_params(data, size);
  fuzz_hlo(data, size);
  char *err = NULL;
  if (looks_like_json(data, size)) fuzz_json_trace(data, size);
  xp_profile *p = xp_profile_from_memory(FUZZ_NAME, data, size, &err);
  int parallel = size > 0 && count_planes(data, size) >= 2;
  if (!p) {
    CHECK(err != NULL);
    CHECK(strncmp(err, FUZZ_NAME ": ", strlen(FUZZ_NAME ": ")) == 0);
    CHECK(strlen(err) > strlen(FUZZ_NAME ": "));
    if (parallel) check_parallel(data, size, NULL, err);
    xp_free(err);
    return 0;
  }
  CHECK(err == NULL);
  if (parallel) check_parallel(data, size, p, NULL);
  scan_profile(p);
  analyze_profile(p);
  xp_profile_release(p);
  return 0;
}
