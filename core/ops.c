/*
** ops.c: the device ops of a profile with their self time, pre-op gap and
** gap payload, built once from the device-op tracks (see analysis.h).
*/
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "semantics.h"
#include "timeline.h"
#include "util.h"

/* Append the ops of one device-op track, with self times and gaps. */
static int add_track_ops(xp_profile *p, xp_analysis *a, int32_t plane, int32_t first, int64_t *cap) {
  const xp_plane *pl = &p->planes[plane];
  xp_gathered g;
  memset(&g, 0, sizeof(g));
  int ok = xp_gather_track(p, xp_analysis_get(p), plane, first, 1, &g);
  uint8_t *marker = ok ? xp_malloc((uint64_t)g.n + 1) : NULL;
  int64_t *gap = ok ? xp_malloc(sizeof(int64_t) * (uint64_t)(g.n + 1)) : NULL;
  int64_t *payload = ok ? xp_malloc(sizeof(int64_t) * (uint64_t)(g.n + 1)) : NULL;
  /* name rules, once per event metadata: bit 0x80 = known, 0x40 = marker-like, low bits = category */
  uint8_t *rules = ok ? xp_malloc((uint64_t)pl->n_emeta + 1) : NULL;
  ok = marker && gap && payload && rules;
  if (rules) memset(rules, 0, (size_t)pl->n_emeta + 1);
  for (int64_t k = 0; ok && k < g.n; k++) {
    uint8_t *r = &rules[g.emeta[k]];
    if (!*r) {
      const xp_event_meta *em = &pl->emeta[g.emeta[k]];
      xp_str name = em->display_name.n ? em->display_name : em->name;
      const char *cat = xp_op_category(name.p, name.n);
      int c = XP_OP_COMPUTE;
      while (c < XP_OP_STALL && strcmp(cat, xp_op_category_names[c]) != 0) c++;
      *r = (uint8_t)(0x80 | (xp_marker_like_n(name.p, name.n) ? 0x40 : 0) | c);
    }
    marker[k] = (*r & 0x40) != 0;
  }
  ok = ok && xp_pre_op_gaps(g.n, g.start, g.dur, marker, gap, payload);
  ok = ok && xp_grow((void **)&a->ops, cap, a->n_ops + g.n, sizeof(xp_op));
  int64_t base = a->n_ops;
  for (int64_t k = 0; ok && k < g.n; k++) {
    const int64_t *self = xp_line_self_times(p, plane, g.line[k]);
    if (!self) { ok = 0; break; }
    xp_op *o = &a->ops[base + k];
    o->start_ps = g.start[k];
    o->dur_ps = g.dur[k];
    o->self_ps = self[g.event_index[k]];
    o->gap_ps = gap[k];
    o->payload = payload[k] >= 0 ? base + payload[k] : -1;
    o->step = -1;
    o->msg = g.msg[k];
    o->msg_n = g.msg_n[k];
    o->plane = plane;
    o->line = g.line[k];
    o->event_index = g.event_index[k];
    o->emeta = g.emeta[k];
    o->category = rules[g.emeta[k]] & 0x3f;
  }
  if (ok) a->n_ops += g.n;
  xp_free(rules);
  xp_free(marker);
  xp_free(gap);
  xp_free(payload);
  xp_gathered_free(&g);
  return ok;
}

int64_t xp_ops(xp_profile *p, const xp_op **ops) {
  xp_analysis *a = xp_analysis_get(p);
  if (!a) return -1;
  if (a->n_ops < 0) {
    int64_t cap = 0;
    a->n_ops = 0;
    for (int32_t pi = 0; pi < p->n_planes; pi++) {
      const xp_plane *pl = &p->planes[pi];
      for (int32_t li = 0; li < pl->n_lines; li++) {
        if (xp_track_first(a, pi, li) != li) continue; /* each track once, at its first line */
        int has_ops = 0;
        for (int32_t k = li; k >= 0 && !has_ops; k = xp_track_next(a, pi, k))
          has_ops = xp_device_op_line(pl, &pl->lines[k]);
        if (has_ops && !add_track_ops(p, a, pi, li, &cap)) {
          xp_free(a->ops);
          a->ops = NULL;
          a->n_ops = -1;
          return -1;
        }
      }
    }
  }
  if (p->changed) { /* changed or interrupted while built: the ops may be partial */
    xp_free(a->ops);
    a->ops = NULL;
    a->n_ops = -1;
    return -1;
  }
  *ops = a->ops;
  return a->n_ops;
}
