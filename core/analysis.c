/*
** analysis.c: the per-profile analysis record and its slots, which events enter the
** analysis, the accessors of a device op, and the threads and order (heaviest
** track first) of the walks that run tracks in parallel; the parts are built on
** first use by pass.c, tracks.c, steps.c and regions.c and cached on the
** profile, so a query over xplane_ops costs one pass after the first (see
** analysis.h).
*/
#include "analysis.h"

#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "semantics.h"
#include "util.h"

static void analysis_free(void *a_) {
  xp_analysis *a = a_;
  for (int64_t i = 0; i < a->n_lines; i++) xp_free(a->line_self[i]);
  xp_free(a->line_self);
  xp_free(a->line_base);
  xp_free(a->trk_first);
  xp_free(a->trk_next);
  xp_free(a->ops);
  xp_free(a->aggs);
  xp_free(a->steps);
  for (int64_t i = 0; i < a->n_scopes; i++) xp_free(a->scopes[i].path);
  xp_free(a->scopes);
  for (int i = 0; i < XP_N_SLOTS; i++)
    if (a->slot[i] && a->slot_free[i]) a->slot_free[i](a->slot[i]);
  xp_free(a);
}

/* Heap bytes of the derived data (for the cache's budget): the arrays of
** self times, ops, steps and scopes, and the slots that say their size. */
static int64_t analysis_bytes(const void *a_) {
  const xp_analysis *a = a_;
  int64_t n = (int64_t)sizeof(*a) + a->n_lines * (int64_t)sizeof(int64_t *) + a->self_bytes;
  for (int i = 0; i < XP_N_SLOTS; i++)
    if (a->slot[i] && a->slot_bytes[i]) n += a->slot_bytes[i](a->slot[i]);
  if (a->n_ops > 0) n += a->n_ops * (int64_t)sizeof(xp_op);
  n += a->n_aggs * (int64_t)sizeof(struct xp_track_agg);
  if (a->n_steps > 0) n += a->n_steps * (int64_t)sizeof(xp_step);
  for (int64_t i = 0; i < a->n_scopes; i++)
    n += (int64_t)sizeof(xp_scope) + (a->scopes[i].path ? (int64_t)strlen(a->scopes[i].path) : 0);
  return n;
}

xp_analysis *xp_analysis_get(xp_profile *p) {
  if (p->changed) return NULL; /* its file changed, or a scan of it was interrupted (profile.h) */
  if (p->analysis) return p->analysis;
  xp_analysis *a = xp_malloc(sizeof(*a));
  if (!a) return NULL;
  memset(a, 0, sizeof(*a));
  a->n_ops = a->n_steps = a->n_scopes = -1;
  a->n_lines = p->n_lines;
  a->line_base = xp_malloc(sizeof(int32_t) * (uint64_t)(p->n_planes + 1));
  a->line_self = xp_malloc(sizeof(int64_t *) * (uint64_t)(p->n_lines + 1));
  a->trk_first = xp_malloc(sizeof(int32_t) * (uint64_t)(p->n_lines + 1));
  a->trk_next = xp_malloc(sizeof(int32_t) * (uint64_t)(p->n_lines + 1));
  if (!a->line_base || !a->line_self || !a->trk_first || !a->trk_next) {
    analysis_free(a);
    return NULL;
  }
  memset(a->line_self, 0, sizeof(int64_t *) * (size_t)(p->n_lines + 1));
  int32_t base = 0, max_lines = 0;
  for (int32_t i = 0; i < p->n_planes; i++) {
    a->line_base[i] = base;
    base += p->planes[i].n_lines;
    if (p->planes[i].n_lines > max_lines) max_lines = p->planes[i].n_lines;
  }
  /* track links: one sort per plane (xp_plane_tracks) */
  int32_t *lines = xp_malloc(sizeof(int32_t) * ((uint64_t)max_lines + 1));
  int32_t *starts = xp_malloc(sizeof(int32_t) * ((uint64_t)max_lines + 1));
  int ok = lines && starts;
  for (int32_t i = 0; ok && i < p->n_planes; i++) {
    int32_t n_tracks = xp_plane_tracks(&p->planes[i], lines, starts);
    if (n_tracks < 0) { ok = 0; break; }
    int32_t *first = a->trk_first + a->line_base[i], *next = a->trk_next + a->line_base[i];
    for (int32_t t = 0; t < n_tracks; t++)
      for (int32_t k = starts[t]; k < starts[t + 1]; k++) {
        first[lines[k]] = lines[starts[t]];
        next[lines[k]] = k + 1 < starts[t + 1] ? lines[k + 1] : -1;
      }
  }
  xp_free(lines);
  xp_free(starts);
  if (!ok) {
    analysis_free(a);
    return NULL;
  }
  p->analysis = a;
  p->analysis_free = analysis_free;
  p->analysis_bytes = analysis_bytes;
  return a;
}

_Static_assert(sizeof(xp_op) == 72, "xp_op: 72 bytes (analysis.h)");

int xp_analysis_threads(const xp_profile *p, int64_t n_tasks) {
  int64_t t = p->threads < 1 ? 1 : p->threads > XP_MAX_INDEX_THREADS ? XP_MAX_INDEX_THREADS : p->threads;
  if (t > n_tasks) t = n_tasks > 0 ? n_tasks : 1;
  return (int)t;
}

static int by_weight(const void *x, const void *y) {
  const xp_track_task *a = x, *b = y;
  if (a->weight != b->weight) return a->weight > b->weight ? -1 : 1;
  if (a->plane != b->plane) return a->plane < b->plane ? -1 : 1;
  return a->first < b->first ? -1 : a->first > b->first;
}

void xp_track_tasks_heaviest_first(void *tasks, int64_t n, size_t elt) {
  if (n > 1) qsort(tasks, (size_t)n, elt, by_weight);
}

const char *const xp_op_category_names[3] = {"compute", "communication", "stall"};
const char *const xp_category_names[XP_N_CATS] = {"compute", "communication", "host", "stall", "other"};

void **xp_analysis_slot(xp_profile *p, xp_slot slot, void (*free_fn)(void *)) {
  return xp_analysis_slot_sized(p, slot, free_fn, NULL);
}

void **xp_analysis_slot_sized(xp_profile *p, xp_slot slot, void (*free_fn)(void *),
                              int64_t (*bytes_fn)(const void *)) {
  xp_analysis *a = xp_analysis_get(p);
  if (!a) return NULL;
  a->slot_free[slot] = free_fn;
  if (bytes_fn) a->slot_bytes[slot] = bytes_fn;
  return &a->slot[slot];
}

int64_t xp_str_bytes(const char *s) { return s ? (int64_t)strlen(s) + 1 : 0; }

int xp_analysis_event(const xp_plane *pl, const xp_event *ev, const xp_event_meta **em_out, xp_str *name) {
  if (!ev->has_offset || ev->duration_ps <= 0) return 0;
  const xp_event_meta *em = xp_plane_event_meta(pl, ev->metadata_id);
  if (!em) return 0;
  *name = em->display_name.n ? em->display_name : em->name;
  *em_out = em;
  return name->n > 0;
}

xp_str xp_op_name(const xp_profile *p, const xp_op *o) {
  const xp_event_meta *em = &p->planes[o->plane].emeta[o->emeta];
  return em->display_name.n ? em->display_name : em->name;
}

int xp_op_stats(const xp_profile *p, const xp_op *o, xp_statvec *sv) {
  const xp_plane *pl = &p->planes[o->plane];
  xp_event ev;
  memset(&ev, 0, sizeof(ev));
  ev.msg = o->msg;
  ev.msg_n = o->msg_n;
  ev.metadata_id = pl->emeta[o->emeta].id;
  return xp_event_stats(p, pl, &ev, sv);
}

xp_str xp_stat_as_text(const xp_stat *s) {
  xp_str none = {"", 0};
  return (s->type == XP_V_STR || s->type == XP_V_REF || s->type == XP_V_BYTES) && s->s.n ? s->s : none;
}

xp_str xp_stat_text(const xp_statvec *sv, const char *const *names) {
  xp_str none = {"", 0};
  for (; *names; names++) {
    const xp_stat *s = xp_statvec_find(sv, *names);
    if (s && xp_stat_as_text(s).n) return s->s;
  }
  return none;
}

xp_str xp_op_long_name(const xp_profile *p, const xp_op *o, xp_str ln) {
  xp_str name = xp_op_name(p, o);
  const xp_event_meta *em = &p->planes[o->plane].emeta[o->emeta];
  if (ln.n) return ln;
  if (em->name.n != name.n || memcmp(em->name.p, name.p, name.n) != 0) return em->name;
  return ln;
}

xp_str xp_op_source_file(const xp_statvec *sv) {
  static const char *const source[] = {"source", "source_file", "file_name", NULL};
  return xp_stat_text(sv, source);
}

xp_str xp_op_tf_op(const xp_statvec *sv) {
  static const char *const tf_op[] = {"tf_op", NULL};
  static const char *const name[] = {"name", NULL};
  xp_str tf = xp_stat_text(sv, tf_op), nm = xp_stat_text(sv, name);
  xp_str out;
  out.p = xp_effective_tf_op(tf.p, tf.n, nm.p, nm.n, &out.n);
  return out;
}

int xp_device_op_line(const xp_plane *pl, const xp_line *ln) {
  if (!xp_str_starts(pl->name, "/device:")) return 0;
  return xp_str_eq(ln->name, "XLA Ops") || xp_str_eq(ln->name, "Async XLA Ops") ||
         xp_str_starts(ln->name, "Stream #");
}

int xp_parse_int(const char *p, size_t n, int64_t *out) {
  size_t i = 0;
  while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r')) i++;
  while (n > i && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\n' || p[n - 1] == '\r')) n--;
  int neg = 0;
  if (i < n && (p[i] == '+' || p[i] == '-')) neg = p[i++] == '-';
  if (i >= n || p[i] < '0' || p[i] > '9') return 0;
  uint64_t v = 0;
  for (; i < n; i++) {
    if (p[i] == '_' && i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '9' && p[i - 1] != '_') continue;
    if (p[i] < '0' || p[i] > '9') return 0;
    if (v > (uint64_t)INT64_MAX / 10) return 0;
    v = v * 10 + (uint64_t)(p[i] - '0');
  }
  if (v > (uint64_t)INT64_MAX) return 0;
  *out = neg ? -(int64_t)v : (int64_t)v;
  return 1;
}

int xp_stat_int_like(const xp_stat *s, int64_t *out) {
  switch (s->type) {
    case XP_V_INT64: *out = s->num.i; return 1;
    case XP_V_UINT64: *out = (int64_t)s->num.u; return 1;
    case XP_V_DOUBLE:
      if (!(s->num.d > -9.2e18 && s->num.d < 9.2e18)) return 0;
      *out = (int64_t)s->num.d;
      return 1;
    case XP_V_STR:
    case XP_V_REF: return xp_parse_int(s->s.p, s->s.n, out);
    default: return 0;
  }
}
