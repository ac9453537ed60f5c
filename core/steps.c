/*
** steps.c: the steps of every device, from a `Steps` line, else host `train`
** annotations tied to device ops through correlation ids, else XLA modules
** (see analysis.h); the markers and launches come from the stats walk
** (facts.c).
*/
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "cancel.h"
#include "semantics.h"
#include "util.h"

typedef struct stepvec {
  xp_step *v;
  int64_t n, cap;
} stepvec;

static int step_push(stepvec *sv, const xp_step *s) {
  if (!xp_grow((void **)&sv->v, &sv->cap, sv->n + 1, sizeof(xp_step))) return 0;
  sv->v[sv->n++] = *s;
  return 1;
}

static int by_plane_start(const void *a, const void *b) {
  const xp_step *x = a, *y = b;
  if (x->plane != y->plane) return x->plane < y->plane ? -1 : 1;
  if (x->start_ps != y->start_ps) return x->start_ps < y->start_ps ? -1 : 1;
  if (x->dur_ps != y->dur_ps) return x->dur_ps < y->dur_ps ? -1 : 1;
  return x->number < y->number ? -1 : x->number > y->number;
}

/* Host annotations may sit on several host planes: one time order for all. */
static int by_start_plane(const void *a, const void *b) {
  const xp_step *x = a, *y = b;
  if (x->start_ps != y->start_ps) return x->start_ps < y->start_ps ? -1 : 1;
  if (x->plane != y->plane) return x->plane < y->plane ? -1 : 1;
  if (x->dur_ps != y->dur_ps) return x->dur_ps < y->dur_ps ? -1 : 1;
  return x->number < y->number ? -1 : x->number > y->number;
}

/* The step of [lo, hi) among steps sorted by start that contains t, or -1. */
static int64_t containing(const xp_step *s, int64_t lo, int64_t hi, int64_t t) {
  int64_t found = -1;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (s[mid].start_ps <= t) found = mid, lo = mid + 1;
    else hi = mid;
  }
  return found >= 0 && t < s[found].start_ps + s[found].dur_ps ? found : -1;
}

/* Credit op o's self time to its step's breakdown. */
static void credit(xp_step *s, const xp_op *o) {
  int64_t self = o->self_ps > 0 ? o->self_ps : 0;
  if (o->category == XP_OP_STALL) s->stall_ps += self;
  else if (o->category == XP_OP_COMMUNICATION) s->communication_ps += self;
  else s->compute_ps += self;
  s->n_ops++;
}

/* The step of every op: the marker of its own device that contains its
** start, or for host annotations the one that contains its kernel's launch
** (its correlation id's earliest host event; its own start when none). */
static int assign_ops(xp_analysis *a, stepvec *st, int source, const xp_facts *f) {
  int64_t lo = 0, hi = 0;
  int32_t run_plane = -1;
  for (int64_t i = 0; i < a->n_ops; i++) {
    if ((i & 4095) == 4095 && xp_cancelled()) return 0; /* long loops stop on an interrupt (cancel.h) */
    xp_op *o = &a->ops[i];
    int64_t t = o->start_ps;
    if (source == XP_STEP_HOST_ANNOTATION) {
      if (f->has_corr[i]) t = xp_facts_launch_time(f, f->corr[i], t);
      o->step = (int32_t)containing(st->v, 0, st->n, t);
      continue;
    }
    /* markers of the op's own device: the run of st sorted by plane (ops
    ** come plane by plane, so the run is found once per plane) */
    if (o->plane != run_plane) {
      lo = 0;
      while (lo < st->n && st->v[lo].plane < o->plane) lo++;
      hi = lo;
      while (hi < st->n && st->v[hi].plane == o->plane) hi++;
      run_plane = o->plane;
    }
    o->step = (int32_t)containing(st->v, lo, hi, t);
  }
  return 1;
}

/* Host annotations are one step of every device: expand each into one row
** per device plane that has ops (annotation-major), re-pointing the ops. */
static int per_device_rows(const xp_profile *p, xp_analysis *a, stepvec *st) {
  int32_t *dev = xp_malloc(sizeof(int32_t) * (uint64_t)(p->n_planes + 1));
  int32_t *planes = xp_malloc(sizeof(int32_t) * (uint64_t)(p->n_planes + 1));
  int ok = dev && planes;
  int32_t n_dev = 0;
  for (int32_t i = 0; ok && i < p->n_planes; i++) dev[i] = -1;
  for (int64_t i = 0; ok && i < a->n_ops; i++) dev[a->ops[i].plane] = 0;
  for (int32_t i = 0; ok && i < p->n_planes; i++)
    if (dev[i] == 0) planes[n_dev] = i, dev[i] = n_dev++;
  xp_step *rows = ok && n_dev ? xp_malloc(sizeof(xp_step) * (uint64_t)(st->n * n_dev)) : NULL;
  if (ok && n_dev && !rows) ok = 0;
  if (ok && n_dev) {
    for (int64_t k = 0; k < st->n; k++)
      for (int32_t d = 0; d < n_dev; d++) {
        rows[k * n_dev + d] = st->v[k];
        rows[k * n_dev + d].plane = planes[d];
      }
    for (int64_t i = 0; i < a->n_ops; i++)
      if (a->ops[i].step >= 0) a->ops[i].step = a->ops[i].step * n_dev + dev[a->ops[i].plane]; /* < rows allocated */
    xp_free(st->v);
    st->v = rows;
    st->n *= n_dev;
    st->cap = st->n;
  }
  xp_free(dev);
  xp_free(planes);
  return ok;
}

/* The step sources in order of preference: the first with a marker wins. */
static const int step_sources[3] = {XP_STEP_DEVICE_LINE, XP_STEP_HOST_ANNOTATION, XP_STEP_MODULE};

int xp_steps_build(xp_profile *p, const xp_facts *f) {
  xp_analysis *a = p->analysis;
  if (a->n_steps >= 0) return 1;
  stepvec st = {0};
  int source = -1, ok = 1;
  for (int r = 0; r < 3 && st.n == 0; r++) {
    source = step_sources[r];
    for (int64_t k = 0; ok && k < f->n_markers[r]; k++) {
      xp_step s;
      memset(&s, 0, sizeof(s));
      s.plane = f->markers[r][k].plane;
      s.number = f->markers[r][k].number;
      s.start_ps = f->markers[r][k].start_ps;
      s.dur_ps = f->markers[r][k].dur_ps;
      s.source = source;
      ok = step_push(&st, &s);
    }
  }
  if (ok && st.n) {
    qsort(st.v, (size_t)st.n, sizeof(xp_step), source == XP_STEP_HOST_ANNOTATION ? by_start_plane : by_plane_start);
    /* module runs are numbered in time order, per device */
    for (int64_t i = 0; source == XP_STEP_MODULE && i < st.n; i++)
      st.v[i].number = i && st.v[i - 1].plane == st.v[i].plane ? st.v[i - 1].number + 1 : 0;
    ok = assign_ops(a, &st, source, f);
  }
  if (ok && st.n && source == XP_STEP_HOST_ANNOTATION) ok = per_device_rows(p, a, &st);
  for (int64_t i = 0; ok && i < a->n_ops; i++) {
    if ((i & 4095) == 4095 && xp_cancelled()) ok = 0; /* long loops stop on an interrupt (cancel.h) */
    else if (a->ops[i].step >= 0) credit(&st.v[a->ops[i].step], &a->ops[i]);
  }
  if (!ok) {
    xp_free(st.v);
    if (xp_cancel_stopped()) {
      /* interrupted: the profile is dropped from the cache (profile.h
      ** XP_CHANGED_INTERRUPTED), so the ops' steps need no reset, a walk of
      ** every op that took 100 ms on a 1 GB profile before the error */
      p->changed = p->changed ? p->changed : XP_CHANGED_INTERRUPTED;
      return 0;
    }
    for (int64_t i = 0; i < a->n_ops; i++) a->ops[i].step = -1;
    return 0;
  }
  a->steps = st.v;
  a->n_steps = st.n;
  return 1;
}

