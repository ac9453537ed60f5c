/*
** make_rule_fixtures.c: write one small XSpace profile per analysis rule, for
** the canned-query tests (tests/test_queries.sh checks each by hand).
**
**   make_rule_fixtures OUT_DIR      -> OUT_DIR/<case>.xplane.pb
**
** Times below are microseconds from the line's base time (every line has
** timestamp_ns 1000); the files hold picoseconds. Device ops live on the
** `XLA Ops` line of plane `/device:GPU:0`; no op nests in another, so an op's
** exclusive time is its duration.
**
**   gap_marker_payload  fusion.1 [0,10) | idle 5 | constant.2 [15,16) iota.3 [16,17)
**                       dot.4 [17,27) | idle 3 | copy-start.5 [30,31) | idle 2 |
**                       fusion.6 [33,40) | idle 2 | bitcast.7 [42,43) tuple.8 [43,44) |
**                       idle 1 | dot.4 [45,51) with tf_op jit(train_step)/layer_0/dense.
**                       Markers: constant.2 -> payload dot.4 (iota.3 is marker-like
**                       too); copy-start.5 stops at the next idle period (payload
**                       itself); bitcast.7 finds only marker-like ops before the
**                       next idle period (itself); fusion.6, dot.4 are their own.
**   pruned_regions      fusion.1 10 jit(train_step)/jvp(model)/layer_0/attn/dot_general
**                       fusion.2 6  jit(train_step)/jvp(model)/layer_0/mlp
**                       fusion.3 4  jit(train_step)/transpose(jvp(model))/layer_0/mlp
**                       fusion.4 2  jit(train_step)/shard_map/pallas_call/XlaLaunch
**                       fusion.5 3  jit(eval_step)/head
**                       fusion.6 5  jit(eval_step)/head/softmax
**                       back to back from 0.
**   steps_light_heavy   two devices with a `Steps` line: steps 0-4 last 50 (warmup),
**                       steps 7, 11, 15 last 30 (heavy), the other steps up to 16
**                       last 10, except step 16: 10 on GPU:0 and 14 on GPU:1 (mean 12).
**   steps_typical       no Steps line; host `/host:CPU` line `python` has `train`
**                       events with step_num 0..7 lasting 100 (0-4), 20, 22, 24.
**   comm_heavy          all-reduce.1..4 then fusion.1..16, 5 each, back to back.
**   stall_heavy         semaphore-wait.1..5 then fusion.1..15, 5 each, back to back.
**   single_hot_op       custom-call.1 50, then fusion.1..10 5 each.
**   pre_op_gap          fusion.1..20 5 each; an idle gap of 1500 before fusion.11.
**   no_dominant         fusion.1..20 5 each, back to back.
**   track_base          steps 0-9 on a `Steps` line, 100 each; ops fusion.1 60, dot.2 40.
**   track_same          as track_base, but ops fusion.1 55, dot.2 45 (same step times).
**   track_slow          as track_base, but steps last 110 (a 10 % regression).
**   steps_edges         the edges of an op's step: `Steps` 0 [10,110), 1 [110,160),
**                       2 [210,270), 3 [210,240) (same start as 2), 4 [310,410),
**                       5 [360,390) (inside 4); ops of 1 at 5, 10, 109, 110, 160,
**                       180, 210, 250, 370, 395 and 600. The markers are sorted by
**                       start, duration, number (core/steps.c), so 3 comes before 2;
**                       an op's marker is the last in that order to start at or
**                       before it, and only while that marker lasts. The ops' steps,
**                       in order: none (before every step), 0, 0, 1 (a step's start
**                       is its), none (step 1's end is not), none, 2 (2 and 3 start
**                       together: 2 is the longer, last in the order), 2 (3 has
**                       ended, 2 lasts), 5, none (5, the last to start, has ended;
**                       4 still lasts), none. Step 2 has 2 ops, 3 none.
**
** A short-lived writer: messages are allocated and left to the process exit.
*/
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"

#define PS_PER_US INT64_C(1000000)

/* ---- builders (on the shared fixture builder, tests/fixture/fixture.h) ---- */

static XPlane *plane_add(XSpace *s, const char *name) { return fx_plane(s, (int64_t)s->n_planes, name); }

static XLine *line_add(XPlane *p, int64_t id, const char *name) { return fx_line(p, id, name, NULL, 1000); }

/* The id of the plane's event metadata named `name`, added on first use. */
static int64_t event_meta(XPlane *p, const char *name) {
  for (size_t i = 0; i < p->n_event_metadata; i++)
    if (strcmp(p->event_metadata[i]->value->name, name) == 0) return p->event_metadata[i]->key;
  return fx_emeta(p, (int64_t)p->n_event_metadata + 1, name, NULL)->id;
}

/* The id of the plane's stat metadata named `name`, added on first use. */
static int64_t stat_meta(XPlane *p, const char *name) {
  for (size_t i = 0; i < p->n_stat_metadata; i++)
    if (strcmp(p->stat_metadata[i]->value->name, name) == 0) return p->stat_metadata[i]->key;
  return fx_smeta(p, (int64_t)p->n_stat_metadata + 1, name, NULL)->id;
}

/* An event [start_us, start_us + dur_us) named `name` on line l of plane p. */
static XEvent *event_add(XPlane *p, XLine *l, const char *name, int64_t start_us, int64_t dur_us) {
  return fx_event(l, event_meta(p, name), start_us * PS_PER_US, dur_us * PS_PER_US);
}

static void stat_str(XPlane *p, XEvent *e, const char *name, const char *value) {
  fx_event_stat(e, fx_stat_str(stat_meta(p, name), value));
}

static void stat_int(XPlane *p, XEvent *e, const char *name, int64_t value) {
  fx_event_stat(e, fx_stat_int(stat_meta(p, name), value));
}

/* The plane /device:GPU:0 with an `XLA Ops` line. */
static XLine *ops_line(XSpace *s, XPlane **plane) {
  *plane = plane_add(s, "/device:GPU:0");
  return line_add(*plane, 1, "XLA Ops");
}

/* `count` ops prefix.<first>.. of dur_us each, back to back from *t. */
static void op_run(XPlane *p, XLine *l, const char *prefix, int first, int count, int64_t dur_us, int64_t *t) {
  char name[64];
  for (int i = 0; i < count; i++) {
    snprintf(name, sizeof(name), "%s.%d", prefix, first + i);
    event_add(p, l, name, *t, dur_us);
    *t += dur_us;
  }
}

static const char *out_dir;

static void write_space(const char *name, const XSpace *s) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s.xplane.pb", out_dir, name);
  fx_write(s, path, NULL, 0);
}

/* ---- the cases --------------------------------------------------------- */

static void gap_marker_payload(void) {
  XSpace *s = fx_space();
  XPlane *p;
  XLine *l = ops_line(s, &p);
  event_add(p, l, "fusion.1", 0, 10);
  event_add(p, l, "constant.2", 15, 1);
  event_add(p, l, "iota.3", 16, 1);
  event_add(p, l, "dot.4", 17, 10);
  event_add(p, l, "copy-start.5", 30, 1);
  event_add(p, l, "fusion.6", 33, 7);
  event_add(p, l, "bitcast.7", 42, 1);
  event_add(p, l, "tuple.8", 43, 1);
  stat_str(p, event_add(p, l, "dot.4", 45, 6), "tf_op", "jit(train_step)/layer_0/dense");
  write_space("gap_marker_payload", s);
}

static void pruned_regions(void) {
  static const struct { const char *name; int64_t dur; const char *tf_op; } ops[] = {
      {"fusion.1", 10, "jit(train_step)/jvp(model)/layer_0/attn/dot_general"},
      {"fusion.2", 6, "jit(train_step)/jvp(model)/layer_0/mlp"},
      {"fusion.3", 4, "jit(train_step)/transpose(jvp(model))/layer_0/mlp"},
      {"fusion.4", 2, "jit(train_step)/shard_map/pallas_call/XlaLaunch"},
      {"fusion.5", 3, "jit(eval_step)/head"},
      {"fusion.6", 5, "jit(eval_step)/head/softmax"},
  };
  XSpace *s = fx_space();
  XPlane *p;
  XLine *l = ops_line(s, &p);
  int64_t t = 0;
  for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
    stat_str(p, event_add(p, l, ops[i].name, t, ops[i].dur), "tf_op", ops[i].tf_op);
    t += ops[i].dur;
  }
  write_space("pruned_regions", s);
}

static void steps_light_heavy(void) {
  XSpace *s = fx_space();
  for (int dev = 0; dev < 2; dev++) {
    char plane_name[32], step[16];
    snprintf(plane_name, sizeof(plane_name), "/device:GPU:%d", dev);
    XPlane *p = plane_add(s, plane_name);
    XLine *l = line_add(p, 1, "Steps");
    int64_t t = 0;
    for (int k = 0; k <= 16; k++) {
      int64_t dur = k < 5 ? 50 : (k == 7 || k == 11 || k == 15) ? 30 : (k == 16 && dev == 1) ? 14 : 10;
      snprintf(step, sizeof(step), "%d", k);
      event_add(p, l, step, t, dur);
      t += dur;
    }
  }
  write_space("steps_light_heavy", s);
}

static void steps_typical(void) {
  static const int64_t durs[] = {100, 100, 100, 100, 100, 20, 22, 24};
  XSpace *s = fx_space();
  XPlane *p = plane_add(s, "/host:CPU");
  XLine *l = line_add(p, 1, "python");
  int64_t t = 0;
  for (int k = 0; k < 8; k++) {
    stat_int(p, event_add(p, l, "train", t, durs[k]), "step_num", k);
    t += durs[k];
  }
  write_space("steps_typical", s);
}

static void ops_case(const char *name, const char *first_prefix, int first_count, int64_t first_dur,
                     int fusion_count) {
  XSpace *s = fx_space();
  XPlane *p;
  XLine *l = ops_line(s, &p);
  int64_t t = 0;
  if (first_prefix) op_run(p, l, first_prefix, 1, first_count, first_dur, &t);
  op_run(p, l, "fusion", 1, fusion_count, 5, &t);
  write_space(name, s);
}

static void pre_op_gap(void) {
  XSpace *s = fx_space();
  XPlane *p;
  XLine *l = ops_line(s, &p);
  int64_t t = 0;
  op_run(p, l, "fusion", 1, 10, 5, &t);
  t += 1500;
  op_run(p, l, "fusion", 11, 10, 5, &t);
  write_space("pre_op_gap", s);
}

static void steps_edges(void) {
  XSpace *s = fx_space();
  XPlane *p = plane_add(s, "/device:GPU:0");
  XLine *steps = line_add(p, 1, "Steps");
  XLine *ops = line_add(p, 2, "XLA Ops");
  static const struct { const char *name; int64_t start, dur; } step[] = {
      {"0", 10, 100}, {"1", 110, 50}, {"2", 210, 60}, {"3", 210, 30}, {"4", 310, 100}, {"5", 360, 30},
  };
  for (size_t k = 0; k < sizeof(step) / sizeof(step[0]); k++) event_add(p, steps, step[k].name, step[k].start, step[k].dur);
  static const int64_t at[] = {5, 10, 109, 110, 160, 180, 210, 250, 370, 395, 600};
  char name[32];
  for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
    snprintf(name, sizeof(name), "fusion.%zu", k + 1);
    event_add(p, ops, name, at[k], 1);
  }
  write_space("steps_edges", s);
}

static void track_case(const char *name, int64_t step_us, int64_t fusion_us, int64_t dot_us) {
  XSpace *s = fx_space();
  XPlane *p = plane_add(s, "/device:GPU:0");
  XLine *steps = line_add(p, 1, "Steps");
  XLine *ops = line_add(p, 2, "XLA Ops");
  char step[16];
  for (int k = 0; k < 10; k++) {
    snprintf(step, sizeof(step), "%d", k);
    event_add(p, steps, step, k * step_us, step_us);
  }
  event_add(p, ops, "fusion.1", 0, fusion_us);
  event_add(p, ops, "dot.2", fusion_us, dot_us);
  write_space(name, s);
}

int main(int argc, char **argv) {
  fx_program("make_rule_fixtures");
  if (argc != 2) {
    fprintf(stderr, "usage: make_rule_fixtures OUT_DIR\n");
    return 2;
  }
  out_dir = argv[1];
  gap_marker_payload();
  pruned_regions();
  steps_light_heavy();
  steps_typical();
  ops_case("comm_heavy", "all-reduce", 4, 5, 16);
  ops_case("stall_heavy", "semaphore-wait", 5, 5, 15);
  ops_case("single_hot_op", "custom-call", 1, 50, 10);
  pre_op_gap();
  ops_case("no_dominant", NULL, 0, 0, 20);
  track_case("track_base", 100, 60, 40);
  track_case("track_same", 100, 55, 45);
  track_case("track_slow", 110, 60, 40);
  steps_edges();
  return 0;
}
