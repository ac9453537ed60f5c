/*
** analysis_internal.h: what the analysis files of core/ share (not for
** the bindings: they use analysis.h).
**
**   analysis.c  the per-profile analysis record, its slots, event selection,
**               the op accessors, and the threads and order of the walks
**               that run tracks in parallel
**   tracks.c    a track's analysis events gathered, and a line's self times
**   pass.c      the one walk per track: the device ops with self time,
**               pre-op gap and payload, and the track aggregates
**   facts.c     the stats walk of the report pass
**   report.c    the report pass (steps.c, regions.c, aggregates.c build from
**               the facts) and its readers
**   steps.c     steps from a Steps line, host annotations or XLA modules
**   regions.c   hierarchical regions (named scopes)
*/
#ifndef XPLANE_ANALYSIS_INTERNAL_H
#define XPLANE_ANALYSIS_INTERNAL_H

#include "analysis.h"

/* The analysis of one profile, built piece by piece on first use and kept
** on the profile (xp_profile.analysis) until it is released. */
typedef struct xp_analysis xp_analysis;
struct xp_analysis {
  int32_t *line_base;   /* per plane: global index of its first line */
  int64_t **line_self;  /* per global line: self times by event index, or NULL */
  xp_op *ops;
  int64_t n_ops;        /* -1 until built (pass.c) */
  struct xp_track_agg *aggs; /* per (plane, line, category) with events, in that order (pass.c) */
  int64_t n_aggs;
  xp_step *steps;
  int64_t n_steps;      /* -1 until built */
  xp_scope *scopes;
  int64_t n_scopes;     /* -1 until built */
  void *slot[XP_N_SLOTS];
  void (*slot_free[XP_N_SLOTS])(void *);
  int64_t (*slot_bytes[XP_N_SLOTS])(const void *); /* NULL: not counted */
  int64_t n_lines;
  int64_t self_bytes;   /* bytes of the line_self arrays built (the cache's budget) */
  /* Tracks (xp_plane_tracks), per global line: the plane's first line of its
  ** track, and the next line of the track (-1 after the last), so that a
  ** track's lines are walked without scanning the plane: linear in lines. */
  int32_t *trk_first, *trk_next;
};


/* The profile's analysis record, created on first use; NULL on OOM. */
xp_analysis *xp_analysis_get(xp_profile *p);

/* Events of one track gathered for the interval algorithms (tracks.c). */
typedef struct xp_gathered {
  int64_t n, cap;
  int64_t *start, *dur;
  int32_t *line, *event_index;
  int32_t *emeta;
  const uint8_t **msg;
  uint32_t *msg_n;
} xp_gathered;

/* Gather the analysis events of the track of line `first` (all lines of the
** plane with its key). 0 on OOM. */
int xp_gather_track(const xp_profile *p, const xp_analysis *a, int32_t plane, int32_t first, xp_gathered *g);
void xp_gathered_free(xp_gathered *g);
/* Threads for n_tasks tracks: p->threads, at most XP_MAX_INDEX_THREADS and
** n_tasks, at least 1. */
int xp_analysis_threads(const xp_profile *p, int64_t n_tasks);
/* A track as a task of the walks that run tracks in parallel (pass.c,
** facts.c): the first member of their task structs. */
typedef struct xp_track_task {
  int32_t plane, first;  /* the track: its plane and first line */
  int64_t weight;        /* its events (all its lines) */
} xp_track_task;
/* Sort n tasks of elt bytes each, each beginning with an xp_track_task,
** heaviest first, ties in profile order (plane, then first line): the order
** xp_cancel_run_jobs hands them out in, so the largest tracks start first. */
void xp_track_tasks_heaviest_first(void *tasks, int64_t n, size_t elt);
/* Build the ops and the track aggregates (pass.c) once; 0 on OOM, a changed
** file or an interrupt (nothing is kept then). */
int xp_analysis_pass(xp_profile *p);
/* The first line of the plane in the track of line li, and the line after li
** in its track (-1: li is the last). O(1). */
static inline int32_t xp_track_first(const xp_analysis *a, int32_t plane, int32_t li) {
  return a->trk_first[a->line_base[plane] + li];
}
static inline int32_t xp_track_next(const xp_analysis *a, int32_t plane, int32_t li) {
  return a->trk_next[a->line_base[plane] + li];
}

/* ---- the report pass (facts.c, then the builders) ---- */

/* Python int() on text (white space around, a sign, digits with single '_'
** between them), and the reference's int-like stat: integers as is, doubles
** truncated, text parsed as by int(). 1 when a value was read. */
int xp_parse_int(const char *p, size_t n, int64_t *out);
int xp_stat_int_like(const xp_stat *s, int64_t *out);

typedef struct xp_fact_launch { int64_t id, t; } xp_fact_launch;
typedef struct xp_fact_marker {
  int32_t plane;
  int64_t number, start_ps, dur_ps;
} xp_fact_marker;
/* A region window: an interval with its path's id, rank and depth. */
typedef struct xp_fact_window {
  int64_t start, end, dur;
  int64_t path;      /* into xp_facts.paths */
  int64_t rank;      /* the path's position in byte order */
  int32_t depth;
} xp_fact_window;

/* A string of the mapping as its offset from p->base and its length (8
** bytes instead of 16: the XSpace is below 2 GiB); empty when n == 0. */
typedef struct xp_fact_str { uint32_t off, n; } xp_fact_str;
static inline xp_str xp_fact_text(const xp_profile *p, xp_fact_str s) {
  xp_str out = {"", 0};
  if (s.n) out.p = (const char *)p->base + s.off, out.n = s.n;
  return out;
}

/* What the stats walk gathers for the reports (facts.c). */
typedef struct xp_facts {
  int64_t n_ops;
  xp_fact_str *tf_op, *long_name, *source; /* per op: effective tf_op, long_name stat text, source file */
  int64_t *corr;                      /* per op: correlation_id when has_corr */
  uint8_t *has_corr;
  xp_counter hints;                   /* kind XP_HINT_*, in first-occurrence order (no index) */
  /* Timed host events with a correlation id: id -> the earliest start
  ** (xp_facts_launch_time), in t_dense[id - id_min] when the ids fill their
  ** range, else an open-addressing table of (id, t) pairs in launches. */
  xp_fact_launch *launches;
  int64_t *t_dense, id_min;
  uint64_t launch_cap;
  int64_t n_launches;
  xp_fact_marker *markers[3];         /* step markers: Steps lines, host "train" annotations, XLA Modules */
  int64_t n_markers[3];
  xp_fact_window *windows;
  int64_t n_windows;
  char **paths;                       /* distinct window paths */
  int64_t n_paths;
} xp_facts;

int xp_facts_build(xp_profile *p, xp_facts *f);
/* The earliest launch time of correlation id `id`, or `fallback`. */
int64_t xp_facts_launch_time(const xp_facts *f, int64_t id, int64_t fallback);
void xp_facts_free(xp_facts *f);
void xp_facts_free_launches(xp_facts *f); /* the launch table alone */

/* Builders of the report pass, each from the facts (0 on OOM): the steps
** (which also set each op's step), the scopes, and the xp_aggregates_n()
** aggregates (aggregates.c), k = 0 .. n - 1. None reads what another
** writes, so report.c runs them on several threads. */
int xp_steps_build(xp_profile *p, const xp_facts *f);
int xp_scopes_build(xp_profile *p, const xp_facts *f);
int xp_aggregates_n(void);
int xp_aggregate_build(xp_profile *p, xp_facts *f, int k);
/* Build every report that is not built yet, from one stats walk (report.c). */
int xp_report_pass(xp_profile *p);

#endif
