/*
** pass.c: the one walk per track that the analysis is built from.
**
** xp_ops() (and the track aggregates, xp_track_agg) come from one pass over
** the profile: every track (the lines of a plane that share an id) is read
** once, and that one read yields, for the track's analysis events,
**   - their exclusive (self) times (timeline.h),
**   - per (line, event category) the count, duration, self time, first start
**     and last end (xp_track_agg),
**   - for the events of device-op lines: the device ops with self time,
**     pre-op gap, gap payload and op category.
** What depends on an event's metadata only (is its name empty, its event
** category, its op category, is it marker-like) is worked out once per
** metadata entry before the walk (emeta_facts), not per event.
**
** Tracks are independent: they are handed to up to p->threads threads (largest
** first, xp_cancel_run_jobs) and their results joined in profile order
** (plane, then the track's first line), so the ops and aggregates are the same
** bytes whatever the thread count. Workers adopt the query's cancellation
** (cancel.h): the event iterator stops on an interrupt and marks the profile,
** and then nothing built here is kept.
**
** Memory: each op is an xp_op (analysis.h), written by its track straight
** into its region of the one ops array (no second copy when joining); self
** times of events that are not ops are not kept (xp_line_self_times,
** tracks.c, works a line's out on demand for xplane_events). While a track
** is worked on, its gathered events take about 100 bytes each, in buffers
** each worker keeps for its next track (struct scratch).
*/
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "cancel.h"
#include "semantics.h"
#include "timeline.h"
#include "util.h"

/* Facts of one event metadata entry (one byte): */
enum {
  EM_KNOWN = 0x80,   /* computed */
  EM_NAMED = 0x40,   /* display_name, else name, is non-empty: its events can enter the analysis */
  EM_MARKER = 0x20,  /* the op name is marker-like (xp_marker_like_n) */
  EM_OPCAT = 0x18,   /* XP_OP_* << 3 */
  EM_CAT = 0x07      /* XP_CAT_* (the event category on its plane) */
};

static int category_index(const char *name) {
  for (int i = 0; i < XP_N_CATS; i++)
    if (strcmp(name, xp_category_names[i]) == 0) return i;
  return XP_CAT_OTHER;
}

/* The facts of every event metadata entry of a plane, or NULL on OOM. */
static uint8_t *emeta_facts(const xp_plane *pl) {
  uint8_t *f = xp_malloc((uint64_t)pl->n_emeta + 1);
  if (!f) return NULL;
  for (int32_t k = 0; k < pl->n_emeta; k++) {
    const xp_event_meta *em = &pl->emeta[k];
    xp_str name = em->display_name.n ? em->display_name : em->name;
    uint8_t b = EM_KNOWN;
    if (name.n) {
      b |= EM_NAMED;
      b |= (uint8_t)category_index(xp_event_category(pl->name.p, pl->name.n, name.p, name.n));
      const char *oc = xp_op_category(name.p, name.n);
      int c = XP_OP_COMPUTE;
      while (c < XP_OP_STALL && strcmp(oc, xp_op_category_names[c]) != 0) c++;
      b |= (uint8_t)(c << 3);
      if (xp_marker_like_n(name.p, name.n)) b |= EM_MARKER;
    }
    f[k] = b;
  }
  return f;
}

/* One track's work and results. */
typedef struct task {
  xp_track_task trk;     /* the track and its events: the largest tracks go first */
  int has_ops;           /* one of its lines is a device-op line */
  int64_t op_room;       /* events of its device-op lines: at most that many ops */
  xp_op *ops;            /* its region of a->ops (op_room entries); payload is an index into these */
  int64_t n_ops;
  xp_track_agg *aggs;
  int64_t n_aggs;
} task;

typedef struct scratch scratch;

typedef struct pass {
  xp_profile *p;
  xp_analysis *a;
  uint8_t **facts;       /* per plane, NULL when it has no events */
  uint8_t **op_line;     /* per plane: is line i a device-op line (planes with events) */
  task *tasks;
  int64_t n_tasks;
  scratch *scratch;      /* per thread */
} pass;

/* The aggregates of one track's lines, from its gathered events. */
static int track_aggs(task *t, const xp_gathered *g, const int64_t *self, const uint8_t *facts) {
  /* rows per (line, category), found by a small open table: a track has few lines */
  int64_t cap = 0;
  for (int64_t k = 0; k < g->n; k++) {
    if ((k & 4095) == 4095 && xp_cancelled()) return 0; /* long loops stop on an interrupt (cancel.h) */
    int32_t line = g->line[k];
    int c = facts[g->emeta[k]] & EM_CAT;
    xp_track_agg *r = NULL;
    /* events of one line come together (gathered line by line): look back first */
    for (int64_t i = t->n_aggs - 1; i >= 0 && t->aggs[i].line == line; i--)
      if (t->aggs[i].category == c) { r = &t->aggs[i]; break; }
    if (!r) {
      if (!xp_grow((void **)&t->aggs, &cap, t->n_aggs + 1, sizeof(xp_track_agg))) return 0;
      r = &t->aggs[t->n_aggs++];
      r->plane = t->trk.plane;
      r->line = line;
      r->category = c;
      r->n_events = r->dur_ps = r->self_ps = 0;
      r->first_start_ps = INT64_MAX;
      r->last_end_ps = INT64_MIN;
    }
    /* the index bounds each start and end (profile.h XP_TIME_LIMIT_PS); sums saturate */
    int64_t start = g->start[k], end = start + g->dur[k];
    r->n_events++;
    r->dur_ps = xp_add_sat(r->dur_ps, g->dur[k]);
    r->self_ps = xp_add_sat(r->self_ps, self[k] > 0 ? self[k] : 0);
    if (start < r->first_start_ps) r->first_start_ps = start;
    if (end > r->last_end_ps) r->last_end_ps = end;
  }
  return 1;
}

/* A worker's buffers, kept from one track to the next: a track's arrays are
** tens of megabytes on a large profile, and memory freed and allocated again
** that large comes back from the kernel as fresh pages to fault in and zero
** (a fifth of the cold summary's CPU time on a 1 GB profile before they were
** kept). */
struct scratch {
  xp_gathered g;                        /* the track's gathered events */
  int64_t cap;                          /* entries of each array below */
  int64_t *self, *start, *dur, *gap, *payload;
  uint8_t *marker;
};

/* Room for n entries (and one more) in each array of s (util.h's xp_grow,
** its limits included); 0 on OOM. s->cap is the least capacity reached. */
static int scratch_fit(scratch *s, int64_t n) {
  int64_t least = INT64_MAX;
#define FIT(f)                                                                  \
  do {                                                                          \
    int64_t c = s->cap;                                                         \
    if (!xp_grow((void **)&s->f, &c, n + 1, sizeof(*s->f))) return 0;           \
    if (c < least) least = c;                                                   \
  } while (0)
  FIT(self);
  FIT(start);
  FIT(dur);
  FIT(gap);
  FIT(payload);
  FIT(marker);
#undef FIT
  s->cap = least;
  return 1;
}

static void scratch_free(scratch *s) {
  xp_gathered_free(&s->g);
  xp_free(s->self);
  xp_free(s->start);
  xp_free(s->dur);
  xp_free(s->gap);
  xp_free(s->payload);
  xp_free(s->marker);
}

/* The ops of one track: its events on device-op lines, in gathered order. */
static int track_ops(const pass *ps, task *t, scratch *s, const uint8_t *facts) {
  const xp_gathered *g = &s->g;
  const uint8_t *is_op_line = ps->op_line[t->trk.plane];
  int64_t n = 0;
  for (int64_t k = 0; k < g->n; k++) n += is_op_line[g->line[k]];
  if (n > t->op_room) return 0;
  /* a track of op lines only (the usual case) uses the gathered times as they are */
  int all = n == g->n;
  int64_t *start = all ? g->start : s->start, *dur = all ? g->dur : s->dur;
  for (int64_t k = 0, j = 0; k < g->n; k++) {
    /* each op written here is fresh memory: on a track of millions, page faults
    ** alone take a third of a second, so this loop polls too */
    if ((k & 4095) == 4095 && xp_cancelled()) return 0;
    if (!is_op_line[g->line[k]]) continue;
    if (!all) {
      start[j] = g->start[k];
      dur[j] = g->dur[k];
    }
    s->marker[j] = (facts[g->emeta[k]] & EM_MARKER) != 0;
    xp_op *o = &t->ops[j++];
    o->start_ps = g->start[k];
    o->dur_ps = g->dur[k];
    o->self_ps = s->self[k];
    o->step = -1;
    o->msg = g->msg[k];
    o->msg_n = g->msg_n[k];
    o->plane = t->trk.plane;
    o->line = g->line[k];
    o->event_index = g->event_index[k];
    o->emeta = g->emeta[k];
    o->category = (uint8_t)((facts[g->emeta[k]] & EM_OPCAT) >> 3);
  }
  if (!xp_pre_op_gaps(n, start, dur, s->marker, s->gap, s->payload)) return 0;
  for (int64_t j = 0; j < n; j++) {
    if ((j & 4095) == 4095 && xp_cancelled()) return 0;
    t->ops[j].gap_ps = s->gap[j];
    t->ops[j].payload = (int32_t)s->payload[j]; /* track-local until joined */
  }
  t->n_ops = n;
  return 1;
}

static int run_task(pass *ps, task *t, scratch *s) {
  s->g.n = 0;
  int ok = xp_gather_track(ps->p, ps->a, t->trk.plane, t->trk.first, &s->g);
  ok = ok && scratch_fit(s, s->g.n);
  ok = ok && xp_exclusive_times(s->g.n, s->g.start, s->g.dur, s->self);
  const uint8_t *facts = ps->facts[t->trk.plane];
  ok = ok && track_aggs(t, &s->g, s->self, facts);
  if (ok && t->n_aggs) { /* to size: a profile may hold a million small tracks */
    xp_track_agg *fit = xp_realloc(t->aggs, sizeof(xp_track_agg) * (uint64_t)t->n_aggs);
    if (fit) t->aggs = fit;
  }
  return ok && (!t->has_ops || track_ops(ps, t, s, facts));
}

/* Task k on the thread numbered `worker` (xp_cancel_run_jobs). */
static int task_job(void *ctx, int64_t k, int worker) {
  pass *ps = ctx;
  return !ps->p->changed && run_task(ps, &ps->tasks[k], &ps->scratch[worker]);
}

/* The join's order: profile order. */
static int by_profile_order(const void *x, const void *y) {
  const xp_track_task *a = &((const task *)x)->trk, *b = &((const task *)y)->trk;
  if (a->plane != b->plane) return a->plane < b->plane ? -1 : 1;
  return a->first < b->first ? -1 : a->first > b->first;
}

static int by_line_category(const void *x, const void *y) {
  const xp_track_agg *a = x, *b = y;
  if (a->plane != b->plane) return a->plane < b->plane ? -1 : 1;
  if (a->line != b->line) return a->line < b->line ? -1 : 1;
  return a->category < b->category ? -1 : a->category > b->category;
}

/* Join the tasks' results (in profile order): each track wrote its ops into
** its own region of a->ops, sized by the events of its op lines (an upper
** bound, reached when all are analysis events); close the holes by moving
** the regions down, then give the rest back. No second copy of the ops. */
static int join(pass *ps) {
  xp_analysis *a = ps->a;
  int64_t n_aggs = 0;
  for (int64_t k = 0; k < ps->n_tasks; k++) n_aggs += ps->tasks[k].n_aggs;
  a->aggs = xp_malloc(sizeof(xp_track_agg) * (uint64_t)(n_aggs + 1));
  if (!a->aggs) return 0;
  int64_t base = 0, at = 0;
  for (int64_t k = 0; k < ps->n_tasks; k++) {
    task *t = &ps->tasks[k];
    if (t->n_ops && t->ops != a->ops + base) memmove(a->ops + base, t->ops, sizeof(xp_op) * (size_t)t->n_ops);
    for (int64_t j = 0; j < t->n_ops; j++)
      if (a->ops[base + j].payload >= 0) a->ops[base + j].payload += (int32_t)base;
    base += t->n_ops;
    if (t->n_aggs) memcpy(a->aggs + at, t->aggs, sizeof(xp_track_agg) * (size_t)t->n_aggs);
    at += t->n_aggs;
  }
  if (at) qsort(a->aggs, (size_t)at, sizeof(xp_track_agg), by_line_category);
  xp_op *fit = xp_realloc(a->ops, sizeof(xp_op) * (uint64_t)(base + 1));
  if (fit) a->ops = fit;
  a->n_ops = base;
  a->n_aggs = at;
  return 1;
}

static void pass_free(pass *ps) {
  for (int32_t i = 0; ps->facts && i < ps->p->n_planes; i++) {
    xp_free(ps->facts[i]);
    xp_free(ps->op_line[i]);
  }
  xp_free(ps->facts); /* op_line shares its block */
  for (int64_t k = 0; ps->tasks && k < ps->n_tasks; k++) xp_free(ps->tasks[k].aggs);
  xp_free(ps->tasks);
}

/* Build a->ops and a->aggs, once. 0 on OOM, on a changed file or when interrupted. */
int xp_analysis_pass(xp_profile *p) {
  xp_analysis *a = xp_analysis_get(p);
  if (!a) return 0;
  if (a->n_ops >= 0) return 1;
  pass ps;
  memset(&ps, 0, sizeof(ps));
  ps.p = p;
  ps.a = a;
  int ok = 1;
  ps.facts = xp_malloc(sizeof(uint8_t *) * 2 * (uint64_t)(p->n_planes + 1));
  ps.tasks = xp_malloc(sizeof(task) * (uint64_t)(p->n_lines + 1));
  if (!ps.facts || !ps.tasks) {
    xp_free(ps.facts);
    xp_free(ps.tasks);
    return 0;
  }
  memset(ps.facts, 0, sizeof(uint8_t *) * 2 * (size_t)(p->n_planes + 1));
  ps.op_line = ps.facts + p->n_planes + 1;
  for (int32_t pi = 0; ok && pi < p->n_planes; pi++) {
    const xp_plane *pl = &p->planes[pi];
    if (pl->n_events == 0) continue;
    ps.facts[pi] = emeta_facts(pl);
    ps.op_line[pi] = xp_malloc((uint64_t)pl->n_lines + 1);
    if (!ps.facts[pi] || !ps.op_line[pi]) { ok = 0; break; }
    for (int32_t li = 0; li < pl->n_lines; li++) ps.op_line[pi][li] = (uint8_t)xp_device_op_line(pl, &pl->lines[li]);
    for (int32_t li = 0; ok && li < pl->n_lines; li++) {
      if (xp_track_first(a, pi, li) != li) continue; /* each track once, at its first line */
      task *t = &ps.tasks[ps.n_tasks];
      memset(t, 0, sizeof(*t));
      t->trk.plane = pi;
      t->trk.first = li;
      for (int32_t k = li; k >= 0; k = xp_track_next(a, pi, k)) {
        t->trk.weight += pl->lines[k].n_events;
        t->has_ops |= ps.op_line[pi][k];
        if (ps.op_line[pi][k]) t->op_room += pl->lines[k].n_events;
      }
      if (t->trk.weight) ps.n_tasks++; /* a track without events adds nothing */
    }
  }
  /* the ops' regions, in profile order (the tasks are in that order here) */
  int64_t room = 0;
  for (int64_t k = 0; ok && k < ps.n_tasks; k++) room += ps.tasks[k].op_room;
  if (ok && !(a->ops = xp_malloc(sizeof(xp_op) * (uint64_t)(room + 1)))) ok = 0;
  for (int64_t k = 0, at = 0; ok && k < ps.n_tasks; k++) {
    ps.tasks[k].ops = a->ops + at;
    at += ps.tasks[k].op_room;
  }
  if (ok) {
    xp_track_tasks_heaviest_first(ps.tasks, ps.n_tasks, sizeof(task));
    int threads = xp_analysis_threads(p, ps.n_tasks);
    ps.scratch = xp_malloc(sizeof(scratch) * (uint64_t)threads);
    ok = ps.scratch != NULL;
    if (ok) {
      memset(ps.scratch, 0, sizeof(scratch) * (size_t)threads);
      ok = xp_cancel_run_jobs(threads, ps.n_tasks, task_job, &ps) && !p->changed;
      for (int w = 0; w < threads; w++) scratch_free(&ps.scratch[w]);
      xp_free(ps.scratch);
    }
  }
  if (ok && ps.n_tasks > 1) qsort(ps.tasks, (size_t)ps.n_tasks, sizeof(task), by_profile_order);
  if (ok && !join(&ps)) ok = 0;
  pass_free(&ps);
  if (!ok) {
    xp_free(a->ops);
    xp_free(a->aggs);
    a->ops = NULL;
    a->aggs = NULL;
    a->n_ops = -1;
    a->n_aggs = 0;
  }
  return ok;
}

int64_t xp_ops(xp_profile *p, const xp_op **ops) {
  if (!xp_analysis_pass(p)) return -1;
  *ops = p->analysis ? ((xp_analysis *)p->analysis)->ops : NULL;
  return ((xp_analysis *)p->analysis)->n_ops;
}
