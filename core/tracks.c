/*
** tracks.c: the analysis events of one track, gathered, and their exclusive
** (self) times, computed one track at a time on first use (see analysis.h).
*/
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "timeline.h"
#include "util.h"

void xp_gathered_free(xp_gathered *g) {
  xp_free(g->start);
  xp_free(g->dur);
  xp_free(g->line);
  xp_free(g->event_index);
  xp_free(g->emeta);
  xp_free(g->msg);
  xp_free(g->msg_n);
  memset(g, 0, sizeof(*g));
}

/* Room for one more event in each array of g (util.h's xp_grow, its limits
** included; the first growth makes room for 256); 0 on OOM. g->cap is the
** least capacity reached. */
static int gathered_push(xp_gathered *g) {
  if (g->n < g->cap) return 1;
  int64_t need = g->n < 256 ? 256 : g->n + 1;
  int64_t least = INT64_MAX;
#define GROW(f)                                                                 \
  do {                                                                          \
    int64_t c = g->cap;                                                         \
    if (!xp_grow((void **)&g->f, &c, need, sizeof(*g->f))) return 0;            \
    if (c < least) least = c;                                                   \
  } while (0)
  GROW(start);
  GROW(dur);
  GROW(line);
  GROW(event_index);
  GROW(emeta);
  GROW(msg);
  GROW(msg_n);
#undef GROW
  g->cap = least;
  return 1;
}

/* Gather the analysis events of the track of line `first` (all lines of the
** plane with its key). */
int xp_gather_track(const xp_profile *p, const xp_analysis *a, int32_t plane, int32_t first, xp_gathered *g) {
  const xp_plane *pl = &p->planes[plane];
  for (int32_t li = first; li >= 0; li = xp_track_next(a, plane, li)) {
    const xp_line *ln = &pl->lines[li];
    xp_event_iter it;
    xp_event ev;
    int32_t idx = -1;
    xp_events_begin(p, ln, &it);
    while (xp_events_next(&it, &ev)) {
      const xp_event_meta *em;
      xp_str name;
      idx++;
      if (!xp_analysis_event(pl, &ev, &em, &name)) continue;
      if (!gathered_push(g)) return 0;
      g->start[g->n] = xp_event_start(ln, &ev);
      g->dur[g->n] = ev.duration_ps;
      g->line[g->n] = li;
      g->event_index[g->n] = idx;
      g->emeta[g->n] = (int32_t)(em - pl->emeta);
      g->msg[g->n] = ev.msg;
      g->msg_n[g->n] = (uint32_t)ev.msg_n;
      g->n++;
    }
    if (p->changed) return 0; /* an interrupted walk (cancel.h) or changed bytes: the rest would be for nothing */
  }
  return 1;
}

/* Compute and store the self times of every line of the track of `line`. */
static int compute_track_self(xp_profile *p, xp_analysis *a, int32_t plane, int32_t line) {
  const xp_plane *pl = &p->planes[plane];
  int32_t first = xp_track_first(a, plane, line);
  xp_gathered g;
  memset(&g, 0, sizeof(g));
  int ok = xp_gather_track(p, a, plane, first, &g);
  int64_t *self = ok ? xp_malloc(sizeof(int64_t) * (uint64_t)(g.n + 1)) : NULL;
  ok = self && xp_exclusive_times(g.n, g.start, g.dur, self);
  for (int32_t li = first; ok && li >= 0; li = xp_track_next(a, plane, li)) {
    const xp_line *ln = &pl->lines[li];
    int64_t *arr = xp_malloc(sizeof(int64_t) * (uint64_t)(ln->n_events + 1));
    if (!arr) { ok = 0; break; }
    if (!a->line_self[a->line_base[plane] + li]) a->self_bytes += (int64_t)sizeof(int64_t) * (ln->n_events + 1);
    for (int64_t k = 0; k < ln->n_events; k++) arr[k] = XP_NO_VALUE;
    xp_free(a->line_self[a->line_base[plane] + li]);
    a->line_self[a->line_base[plane] + li] = arr;
  }
  for (int64_t k = 0; ok && k < g.n; k++) a->line_self[a->line_base[plane] + g.line[k]][g.event_index[k]] = self[k];
  xp_free(self);
  xp_gathered_free(&g);
  return ok;
}

const int64_t *xp_line_self_times(xp_profile *p, int32_t plane, int32_t line) {
  xp_analysis *a = xp_analysis_get(p);
  if (!a) return NULL;
  int64_t gi = a->line_base[plane] + line;
  if (!a->line_self[gi] && !compute_track_self(p, a, plane, line)) return NULL;
  return a->line_self[gi];
}
