/*
** steps.c: the steps of every device, from a `Steps` line, else host `train`
** annotations tied to device ops through correlation ids, else XLA modules (see analysis.h).
*/
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "semantics.h"
#include "util.h"

/* Python int() on text: white space around, an optional sign, digits with
** single '_' between them. */
static int parse_int(const char *p, size_t n, int64_t *out) {
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

/* The reference's int-like stat: integers as is, doubles truncated, text
** parsed as by int(). */
static int int_like(const xp_stat *s, int64_t *out) {
  switch (s->type) {
    case XP_V_INT64: *out = s->num.i; return 1;
    case XP_V_UINT64: *out = (int64_t)s->num.u; return 1;
    case XP_V_DOUBLE:
      if (!(s->num.d > -9.2e18 && s->num.d < 9.2e18)) return 0;
      *out = (int64_t)s->num.d;
      return 1;
    case XP_V_STR:
    case XP_V_REF: return parse_int(s->s.p, s->s.n, out);
    default: return 0;
  }
}

typedef struct stepvec {
  xp_step *v;
  int64_t n, cap;
} stepvec;

static int step_push(stepvec *sv, const xp_step *s) {
  if (!xp_grow((void **)&sv->v, &sv->cap, sv->n + 1, sizeof(xp_step))) return 0;
  sv->v[sv->n++] = *s;
  return 1;
}

static xp_str line_label(const xp_line *ln) { return ln->display_name.n ? ln->display_name : ln->name; }

/* A step source: which lines can hold its markers (checked once per line,
** so the events of every other line are never read) and which analysis
** events of those lines are markers, with their step number. */
typedef struct step_rule {
  int (*line_ok)(const xp_plane *pl, const xp_line *ln);
  int (*event_ok)(const xp_profile *p, const xp_plane *pl, const xp_event *ev, xp_str name, xp_statvec *sv,
                  int64_t *number);
  int source; /* XP_STEP_* */
} step_rule;

static int steps_line_ok(const xp_plane *pl, const xp_line *ln) {
  return xp_str_starts(pl->name, "/device:") && xp_str_eq(line_label(ln), "Steps");
}

static int steps_event_ok(const xp_profile *p, const xp_plane *pl, const xp_event *ev, xp_str name, xp_statvec *sv,
                          int64_t *number) {
  (void)p; (void)pl; (void)ev; (void)sv;
  return parse_int(name.p, name.n, number);
}

static int host_line_ok(const xp_plane *pl, const xp_line *ln) {
  (void)ln;
  return xp_str_starts(pl->name, "/host:");
}

static int train_event_ok(const xp_profile *p, const xp_plane *pl, const xp_event *ev, xp_str name, xp_statvec *sv,
                          int64_t *number) {
  if (!xp_str_eq(name, "train") || !xp_event_stats(p, pl, ev, sv)) return 0;
  static const char *const keys[] = {"step_num", "step"};
  for (int k = 0; k < 2; k++) {
    const xp_stat *s = xp_statvec_find(sv, keys[k]);
    if (s && int_like(s, number)) return 1;
  }
  return 0;
}

static int modules_line_ok(const xp_plane *pl, const xp_line *ln) {
  return xp_str_starts(pl->name, "/device:") && xp_str_eq(line_label(ln), "XLA Modules");
}

static int module_event_ok(const xp_profile *p, const xp_plane *pl, const xp_event *ev, xp_str name, xp_statvec *sv,
                           int64_t *number) {
  (void)p; (void)pl; (void)ev; (void)name; (void)sv;
  *number = -1; /* numbered by position afterwards */
  return 1;
}

/* The sources in order of preference: the first that finds a marker wins. */
static const step_rule step_rules[] = {
    {steps_line_ok, steps_event_ok, XP_STEP_DEVICE_LINE},
    {host_line_ok, train_event_ok, XP_STEP_HOST_ANNOTATION},
    {modules_line_ok, module_event_ok, XP_STEP_MODULE},
};

static int collect_steps(const xp_profile *p, const step_rule *rule, stepvec *out) {
  xp_statvec sv = {0};
  int ok = 1;
  for (int32_t pi = 0; ok && pi < p->n_planes; pi++) {
    const xp_plane *pl = &p->planes[pi];
    for (int32_t li = 0; ok && li < pl->n_lines; li++) {
      const xp_line *ln = &pl->lines[li];
      if (!rule->line_ok(pl, ln)) continue;
      xp_event_iter it;
      xp_event ev;
      xp_events_begin(p, ln, &it);
      while (ok && xp_events_next(&it, &ev)) {
        const xp_event_meta *em;
        xp_str name;
        int64_t number;
        if (!xp_analysis_event(pl, &ev, &em, &name) || !rule->event_ok(p, pl, &ev, name, &sv, &number)) continue;
        xp_step s;
        memset(&s, 0, sizeof(s));
        s.plane = pi;
        s.number = number;
        s.start_ps = xp_event_start(ln, &ev);
        s.dur_ps = ev.duration_ps;
        s.source = rule->source;
        ok = step_push(out, &s);
      }
    }
  }
  xp_statvec_free(&sv);
  return ok;
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

/* Host launch times by correlation_id (sorted pairs for binary search). */
typedef struct corr { int64_t id, t; } corr;

/* By id, then time: a repeated id resolves to its earliest launch. */
static int by_corr(const void *a, const void *b) {
  const corr *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x->t < y->t ? -1 : x->t > y->t;
}

static const char *const correlation_id[] = {"correlation_id"};

static int host_launches(const xp_profile *p, corr **out, int64_t *n_out) {
  corr *v = NULL;
  int64_t n = 0, cap = 0;
  int ok = 1;
  for (int32_t pi = 0; ok && pi < p->n_planes; pi++) {
    const xp_plane *pl = &p->planes[pi];
    if (!xp_str_starts(pl->name, "/host:")) continue;
    xp_stat_pick_ids ids;
    xp_stat_pick_init(pl, correlation_id, 1, &ids);
    for (int32_t li = 0; ok && ids.n && li < pl->n_lines; li++) {
      xp_event_iter it;
      xp_event ev;
      xp_events_begin(p, &pl->lines[li], &it);
      while (ok && xp_events_next(&it, &ev)) {
        if (!ev.has_offset) continue;
        xp_stat s;
        xp_stat_pick(p, pl, &ev, &ids, 1, &s);
        int64_t id;
        if (!int_like(&s, &id)) continue;
        if (!xp_grow((void **)&v, &cap, n + 1, sizeof(corr))) { ok = 0; break; }
        v[n].id = id;
        v[n].t = xp_event_start(&pl->lines[li], &ev);
        n++;
      }
    }
  }
  if (!ok) { xp_free(v); return 0; }
  if (n) qsort(v, (size_t)n, sizeof(corr), by_corr);
  *out = v;
  *n_out = n;
  return 1;
}

static int64_t launch_time(const corr *v, int64_t n, int64_t id, int64_t fallback) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (v[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && v[lo].id == id ? v[lo].t : fallback;
}

/* Credit op o's self time to its step's breakdown. */
static void credit(xp_step *s, const xp_op *o) {
  int64_t self = o->self_ps > 0 ? o->self_ps : 0;
  if (o->category == XP_OP_STALL) s->stall_ps += self;
  else if (o->category == XP_OP_COMMUNICATION) s->communication_ps += self;
  else s->compute_ps += self;
  s->n_ops++;
}

static int assign_ops(xp_profile *p, xp_analysis *a, stepvec *st, int source) {
  corr *launch = NULL;
  int64_t n_launch = 0;
  xp_stat_pick_ids ids;
  int32_t ids_plane = -1;
  if (source == XP_STEP_HOST_ANNOTATION && !host_launches(p, &launch, &n_launch)) return 0;
  int ok = 1;
  for (int64_t i = 0; ok && i < a->n_ops; i++) {
    xp_op *o = &a->ops[i];
    int64_t lo = 0, hi = st->n, t = o->start_ps;
    if (source == XP_STEP_HOST_ANNOTATION) {
      const xp_plane *pl = &p->planes[o->plane];
      if (o->plane != ids_plane) {
        xp_stat_pick_init(pl, correlation_id, 1, &ids);
        ids_plane = o->plane;
      }
      xp_event ev;
      memset(&ev, 0, sizeof(ev));
      ev.msg = o->msg;
      ev.msg_n = o->msg_n;
      ev.metadata_id = pl->emeta[o->emeta].id;
      xp_stat s;
      xp_stat_pick(p, pl, &ev, &ids, 1, &s);
      int64_t id;
      if (int_like(&s, &id)) t = launch_time(launch, n_launch, id, t);
    } else {
      /* markers of the op's own device: the run of st sorted by plane */
      while (lo < hi && st->v[lo].plane < o->plane) lo++;
      hi = lo;
      while (hi < st->n && st->v[hi].plane == o->plane) hi++;
    }
    o->step = containing(st->v, lo, hi, t);
  }
  xp_free(launch);
  return ok;
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
      if (a->ops[i].step >= 0) a->ops[i].step = a->ops[i].step * n_dev + dev[a->ops[i].plane];
    xp_free(st->v);
    st->v = rows;
    st->n *= n_dev;
    st->cap = st->n;
  }
  xp_free(dev);
  xp_free(planes);
  return ok;
}

int64_t xp_steps(xp_profile *p, const xp_step **steps) {
  const xp_op *ops;
  xp_analysis *a = xp_analysis_get(p);
  if (!a || xp_ops(p, &ops) < 0) return -1;
  if (a->n_steps < 0) {
    stepvec st = {0};
    int source = -1, ok = 1;
    for (size_t k = 0; ok && k < sizeof(step_rules) / sizeof(step_rules[0]) && st.n == 0; k++) {
      ok = collect_steps(p, &step_rules[k], &st);
      source = step_rules[k].source;
    }
    if (ok && st.n) {
      qsort(st.v, (size_t)st.n, sizeof(xp_step),
            source == XP_STEP_HOST_ANNOTATION ? by_start_plane : by_plane_start);
      /* module runs are numbered in time order, per device */
      for (int64_t i = 0; source == XP_STEP_MODULE && i < st.n; i++)
        st.v[i].number = i && st.v[i - 1].plane == st.v[i].plane ? st.v[i - 1].number + 1 : 0;
      ok = assign_ops(p, a, &st, source);
    }
    if (ok && source == XP_STEP_HOST_ANNOTATION) ok = per_device_rows(p, a, &st);
    for (int64_t i = 0; ok && i < a->n_ops; i++)
      if (a->ops[i].step >= 0) credit(&st.v[a->ops[i].step], &a->ops[i]);
    if (!ok) {
      xp_free(st.v);
      return -1;
    }
    a->steps = st.v;
    a->n_steps = st.n;
  }
  *steps = a->steps;
  return a->n_steps;
}
