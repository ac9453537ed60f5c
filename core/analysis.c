/*
** analysis.c: per-profile derived data: self times, device ops, steps
** (see analysis.h). Everything is built on first use and cached on the
** profile, so a query over xplane_ops costs one pass after the first.
*/
#include "analysis.h"

#include <stdlib.h>
#include <string.h>

#include "semantics.h"
#include "timeline.h"

#include "util.h"

typedef struct analysis {
  int32_t *line_base;   /* per plane: global index of its first line */
  int64_t **line_self;  /* per global line: self times by event index, or NULL */
  xp_op *ops;
  int64_t n_ops;        /* -1 until built */
  xp_step *steps;
  int64_t n_steps;      /* -1 until built */
  xp_scope *scopes;
  int64_t n_scopes;     /* -1 until built */
  void *slot[XP_N_SLOTS];
  void (*slot_free[XP_N_SLOTS])(void *);
  int64_t n_lines;
} analysis;

static void analysis_free(void *a_) {
  analysis *a = a_;
  for (int64_t i = 0; i < a->n_lines; i++) xp_free(a->line_self[i]);
  xp_free(a->line_self);
  xp_free(a->line_base);
  xp_free(a->ops);
  xp_free(a->steps);
  for (int64_t i = 0; i < a->n_scopes; i++) xp_free(a->scopes[i].path);
  xp_free(a->scopes);
  for (int i = 0; i < XP_N_SLOTS; i++)
    if (a->slot[i] && a->slot_free[i]) a->slot_free[i](a->slot[i]);
  xp_free(a);
}

static analysis *get(xp_profile *p) {
  if (p->analysis) return p->analysis;
  analysis *a = xp_malloc(sizeof(*a));
  if (!a) return NULL;
  memset(a, 0, sizeof(*a));
  a->n_ops = a->n_steps = a->n_scopes = -1;
  a->n_lines = p->n_lines;
  a->line_base = xp_malloc(sizeof(int32_t) * (uint64_t)(p->n_planes + 1));
  a->line_self = xp_malloc(sizeof(int64_t *) * (uint64_t)(p->n_lines + 1));
  if (!a->line_base || !a->line_self) {
    analysis_free(a);
    return NULL;
  }
  memset(a->line_self, 0, sizeof(int64_t *) * (size_t)(p->n_lines + 1));
  int32_t base = 0;
  for (int32_t i = 0; i < p->n_planes; i++) {
    a->line_base[i] = base;
    base += p->planes[i].n_lines;
  }
  p->analysis = a;
  p->analysis_free = analysis_free;
  return a;
}

const char *const xp_op_category_names[3] = {"compute", "communication", "stall"};

void **xp_analysis_slot(xp_profile *p, xp_slot slot, void (*free_fn)(void *)) {
  analysis *a = get(p);
  if (!a) return NULL;
  a->slot_free[slot] = free_fn;
  return &a->slot[slot];
}

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

xp_str xp_stat_text(const xp_statvec *sv, const char *const *names) {
  xp_str none = {"", 0};
  for (; *names; names++) {
    const xp_stat *s = xp_statvec_find(sv, *names);
    if (s && (s->type == XP_V_STR || s->type == XP_V_REF || s->type == XP_V_BYTES) && s->s.n) return s->s;
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

static int starts_with(xp_str s, const char *prefix) {
  size_t n = strlen(prefix);
  return s.n >= n && memcmp(s.p, prefix, n) == 0;
}

int xp_device_op_line(const xp_plane *pl, const xp_line *ln) {
  if (!starts_with(pl->name, "/device:")) return 0;
  return xp_str_eq(ln->name, "XLA Ops") || xp_str_eq(ln->name, "Async XLA Ops") ||
         starts_with(ln->name, "Stream #");
}


/* Events of one track gathered for the interval algorithms. */
typedef struct gathered {
  int64_t n, cap;
  int64_t *start, *dur;
  int32_t *line, *event_index;
  int32_t *emeta;
  const uint8_t **msg;
  uint32_t *msg_n;
} gathered;

static void gathered_free(gathered *g) {
  xp_free(g->start);
  xp_free(g->dur);
  xp_free(g->line);
  xp_free(g->event_index);
  xp_free(g->emeta);
  xp_free(g->msg);
  xp_free(g->msg_n);
  memset(g, 0, sizeof(*g));
}

static int gathered_push(gathered *g) {
  if (g->n < g->cap) return 1;
  int64_t nc = g->cap ? g->cap * 2 : 256;
#define GROW(f)                                                                     \
  do {                                                                              \
    void *q = xp_realloc(g->f, sizeof(*g->f) * (uint64_t)nc);          \
    if (!q) return 0;                                                               \
    g->f = q;                                                                       \
  } while (0)
  GROW(start);
  GROW(dur);
  GROW(line);
  GROW(event_index);
  GROW(emeta);
  GROW(msg);
  GROW(msg_n);
#undef GROW
  g->cap = nc;
  return 1;
}

/* Gather the analysis events of the track of line `first` (all lines of the
** plane with its key); only_ops keeps device-op lines only. */
static int gather_track(const xp_profile *p, int32_t plane, int32_t first, int only_ops, gathered *g) {
  const xp_plane *pl = &p->planes[plane];
  int64_t key = xp_line_track_key(&pl->lines[first], first);
  for (int32_t li = first; li < pl->n_lines; li++) {
    const xp_line *ln = &pl->lines[li];
    if (xp_line_track_key(ln, li) != key) continue;
    if (only_ops && !xp_device_op_line(pl, ln)) continue;
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
  }
  return 1;
}

/* The first line of the plane in the track of line li. */
static int32_t track_first(const xp_plane *pl, int32_t li) {
  int64_t key = xp_line_track_key(&pl->lines[li], li);
  for (int32_t k = 0; k < li; k++)
    if (xp_line_track_key(&pl->lines[k], k) == key) return k;
  return li;
}

/* Compute and store the self times of every line of the track of `line`. */
static int compute_track_self(xp_profile *p, analysis *a, int32_t plane, int32_t line) {
  const xp_plane *pl = &p->planes[plane];
  int32_t first = track_first(pl, line);
  int64_t key = xp_line_track_key(&pl->lines[first], first);
  gathered g;
  memset(&g, 0, sizeof(g));
  int ok = gather_track(p, plane, first, 0, &g);
  int64_t *self = ok ? xp_malloc(sizeof(int64_t) * (uint64_t)(g.n + 1)) : NULL;
  ok = self && xp_exclusive_times(g.n, g.start, g.dur, self);
  for (int32_t li = first; ok && li < pl->n_lines; li++) {
    const xp_line *ln = &pl->lines[li];
    if (xp_line_track_key(ln, li) != key) continue;
    int64_t *arr = xp_malloc(sizeof(int64_t) * (uint64_t)(ln->n_events + 1));
    if (!arr) { ok = 0; break; }
    for (int64_t k = 0; k < ln->n_events; k++) arr[k] = XP_NO_VALUE;
    xp_free(a->line_self[a->line_base[plane] + li]);
    a->line_self[a->line_base[plane] + li] = arr;
  }
  for (int64_t k = 0; ok && k < g.n; k++) a->line_self[a->line_base[plane] + g.line[k]][g.event_index[k]] = self[k];
  xp_free(self);
  gathered_free(&g);
  return ok;
}

const int64_t *xp_line_self_times(xp_profile *p, int32_t plane, int32_t line) {
  analysis *a = get(p);
  if (!a) return NULL;
  int64_t gi = a->line_base[plane] + line;
  if (!a->line_self[gi] && !compute_track_self(p, a, plane, line)) return NULL;
  return a->line_self[gi];
}

/* Append the ops of one device-op track, with self times and gaps. */
static int add_track_ops(xp_profile *p, analysis *a, int32_t plane, int32_t first, int64_t *cap) {
  const xp_plane *pl = &p->planes[plane];
  gathered g;
  memset(&g, 0, sizeof(g));
  int ok = gather_track(p, plane, first, 1, &g);
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
  if (ok && a->n_ops + g.n > *cap) {
    int64_t nc = *cap ? *cap : 1024;
    while (nc < a->n_ops + g.n) nc *= 2;
    xp_op *o = xp_realloc(a->ops, sizeof(xp_op) * (uint64_t)nc);
    if (!o) ok = 0;
    else { a->ops = o; *cap = nc; }
  }
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
  gathered_free(&g);
  return ok;
}

int64_t xp_ops(xp_profile *p, const xp_op **ops) {
  analysis *a = get(p);
  if (!a) return -1;
  if (a->n_ops < 0) {
    int64_t cap = 0;
    a->n_ops = 0;
    for (int32_t pi = 0; pi < p->n_planes; pi++) {
      const xp_plane *pl = &p->planes[pi];
      for (int32_t li = 0; li < pl->n_lines; li++) {
        if (track_first(pl, li) != li) continue; /* each track once, at its first line */
        int has_ops = 0;
        int64_t key = xp_line_track_key(&pl->lines[li], li);
        for (int32_t k = li; k < pl->n_lines && !has_ops; k++)
          has_ops = xp_line_track_key(&pl->lines[k], k) == key && xp_device_op_line(pl, &pl->lines[k]);
        if (has_ops && !add_track_ops(p, a, pi, li, &cap)) {
          xp_free(a->ops);
          a->ops = NULL;
          a->n_ops = -1;
          return -1;
        }
      }
    }
  }
  *ops = a->ops;
  return a->n_ops;
}

/* ---- steps ---------------------------------------------------------- */

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
  if (sv->n == sv->cap) {
    int64_t nc = sv->cap ? sv->cap * 2 : 64;
    xp_step *v = xp_realloc(sv->v, sizeof(xp_step) * (uint64_t)nc);
    if (!v) return 0;
    sv->v = v;
    sv->cap = nc;
  }
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
  return starts_with(pl->name, "/device:") && xp_str_eq(line_label(ln), "Steps");
}

static int steps_event_ok(const xp_profile *p, const xp_plane *pl, const xp_event *ev, xp_str name, xp_statvec *sv,
                          int64_t *number) {
  (void)p; (void)pl; (void)ev; (void)sv;
  return parse_int(name.p, name.n, number);
}

static int host_line_ok(const xp_plane *pl, const xp_line *ln) {
  (void)ln;
  return starts_with(pl->name, "/host:");
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
  return starts_with(pl->name, "/device:") && xp_str_eq(line_label(ln), "XLA Modules");
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
    if (!starts_with(pl->name, "/host:")) continue;
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
        if (n == cap) {
          cap = cap ? cap * 2 : 1024;
          corr *nv = xp_realloc(v, sizeof(corr) * (uint64_t)cap);
          if (!nv) { ok = 0; break; }
          v = nv;
        }
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

static int assign_ops(xp_profile *p, analysis *a, stepvec *st, int source) {
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
static int per_device_rows(const xp_profile *p, analysis *a, stepvec *st) {
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
  analysis *a = get(p);
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

/* ---- hierarchical regions ------------------------------------------- */

typedef struct scope_map {
  xp_scope *v;
  int64_t n, cap;
  int64_t *slot;       /* hash slots: index into v, -1 empty */
  uint64_t mask;
} scope_map;

static uint64_t hash_str(const char *p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
  return h;
}

/* (Re)build the slots at least twice as many as the entries. */
static int map_rehash(scope_map *m) {
  uint64_t cap = m->mask ? (m->mask + 1) * 2 : 1024;
  while (cap < 2 * ((uint64_t)m->n + 1)) cap *= 2;
  int64_t *slot = xp_malloc(sizeof(int64_t) * cap);
  if (!slot) return 0;
  for (uint64_t i = 0; i < cap; i++) slot[i] = -1;
  for (int64_t i = 0; i < m->n; i++) {
    uint64_t h = hash_str(m->v[i].path, strlen(m->v[i].path)) & (cap - 1);
    while (slot[h] >= 0) h = (h + 1) & (cap - 1);
    slot[h] = i;
  }
  xp_free(m->slot);
  m->slot = slot;
  m->mask = cap - 1;
  return 1;
}

/* The index of path p[0..n) in the map, added when absent; -1 on OOM. */
static int64_t map_get(scope_map *m, const char *p, size_t n, int32_t depth, int add) {
  if (!m->mask || (uint64_t)m->n * 2 >= m->mask) {
    if (!add && !m->mask) return -1;
    if (add && !map_rehash(m)) return -2;
  }
  uint64_t h = hash_str(p, n) & m->mask;
  while (m->slot[h] >= 0) {
    const char *q = m->v[m->slot[h]].path;
    if (strlen(q) == n && memcmp(q, p, n) == 0) return m->slot[h];
    h = (h + 1) & m->mask;
  }
  if (!add) return -1;
  if (m->n == m->cap) {
    int64_t nc = m->cap ? m->cap * 2 : 256;
    xp_scope *v = xp_realloc(m->v, sizeof(xp_scope) * (uint64_t)nc);
    if (!v) return -2;
    m->v = v;
    m->cap = nc;
  }
  xp_scope *s = &m->v[m->n];
  memset(s, 0, sizeof(*s));
  s->path = xp_mprintf("%.*s", (int)n, p);
  if (!s->path) return -2;
  s->depth = depth;
  s->parent = -1;
  m->slot[h] = m->n;
  return m->n++;
}

/* math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6 us = 1 ps) */
static int close_ps(int64_t a, int64_t b) {
  double d = (double)(a > b ? a - b : b - a);
  double m = (double)(a > b ? a : b);
  return d <= 1.0 || d <= 1e-9 * m;
}

static int by_scope_order(const void *x, const void *y) {
  const xp_scope *a = x, *b = y;
  if (a->inclusive_ps != b->inclusive_ps) return a->inclusive_ps > b->inclusive_ps ? -1 : 1;
  if (a->exclusive_ps != b->exclusive_ps) return a->exclusive_ps > b->exclusive_ps ? -1 : 1;
  return strcmp(a->path, b->path);
}

/* Memo of the region path of an (op name, tf_op) pair, keyed by where the
** two strings sit in the mapping (interned names and ref values repeat the
** same pointers): the scope indices of the path's prefixes. Only a cache: the
** same strings at other addresses are simply worked out again. */
typedef struct path_memo {
  const char *np, *tp;
  size_t nn, tn;
  int64_t first;   /* into the prefix index list; -1 = empty slot */
  int32_t parts;
} path_memo;

typedef struct memo_table {
  path_memo *slot;
  uint64_t mask, n;
  int64_t *idx;    /* prefix scope indices, `parts` per memo */
  int64_t n_idx, cap_idx;
} memo_table;

static uint64_t memo_hash(const char *np, size_t nn, const char *tp, size_t tn) {
  uint64_t h = (uint64_t)(uintptr_t)np * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)tp * 0xc2b2ae3d27d4eb4fULL;
  h ^= (uint64_t)nn << 32 ^ (uint64_t)tn;
  return h ^ (h >> 29);
}

static path_memo *memo_find(memo_table *t, const char *np, size_t nn, const char *tp, size_t tn, int *found) {
  if (t->n * 2 >= t->mask) {
    uint64_t cap = t->mask ? (t->mask + 1) * 2 : 1024;
    path_memo *slot = xp_malloc(sizeof(path_memo) * cap);
    if (!slot) return NULL;
    for (uint64_t i = 0; i < cap; i++) slot[i].first = -1;
    for (uint64_t i = 0; t->mask && i <= t->mask; i++) {
      if (t->slot[i].first < 0) continue;
      uint64_t h = memo_hash(t->slot[i].np, t->slot[i].nn, t->slot[i].tp, t->slot[i].tn) & (cap - 1);
      while (slot[h].first >= 0) h = (h + 1) & (cap - 1);
      slot[h] = t->slot[i];
    }
    xp_free(t->slot);
    t->slot = slot;
    t->mask = cap - 1;
  }
  uint64_t h = memo_hash(np, nn, tp, tn) & t->mask;
  while (t->slot[h].first >= 0) {
    path_memo *e = &t->slot[h];
    if (e->np == np && e->nn == nn && e->tp == tp && e->tn == tn) {
      *found = 1;
      return e;
    }
    h = (h + 1) & t->mask;
  }
  *found = 0;
  return &t->slot[h];
}

static int build_scopes(xp_profile *p, analysis *a, scope_map *m) {
  xp_statvec sv = {0};
  memo_table memo;
  memset(&memo, 0, sizeof(memo));
  xp_buf *path = xp_buf_new();
  int ok = 1;
  for (int64_t i = 0; ok && i < a->n_ops; i++) {
    const xp_op *o = &a->ops[i];
    if (!xp_op_stats(p, o, &sv)) { ok = 0; break; }
    xp_str tf = xp_op_tf_op(&sv), name = xp_op_name(p, o);
    int found;
    path_memo *e = memo_find(&memo, name.p, name.n, tf.p, tf.n, &found);
    if (!e) { ok = 0; break; }
    if (!found) {
      /* work the path out once: the scope index of each prefix */
      xp_buf_reset(path);
      int parts = xp_scope_path(path, tf.p, tf.n, name.p, name.n, 0);
      const char *z = xp_buf_value(path);
      size_t n = (size_t)xp_buf_length(path), end = 0;
      if (!z) z = "";
      if (memo.n_idx + parts > memo.cap_idx) {
        int64_t nc = memo.cap_idx ? memo.cap_idx * 2 : 1024;
        while (nc < memo.n_idx + parts) nc *= 2;
        int64_t *v = xp_realloc(memo.idx, sizeof(int64_t) * (uint64_t)nc);
        if (!v) { ok = 0; break; }
        memo.idx = v;
        memo.cap_idx = nc;
      }
      for (int32_t d = 1; ok && d <= parts; d++) {
        if (d > 1) end += 2;
        while (end < n && !(end + 1 < n && z[end] == '=' && z[end + 1] == '>')) end++;
        int64_t k = map_get(m, z, end, d, 1);
        if (k < 0) ok = 0;
        else memo.idx[memo.n_idx + d - 1] = k;
      }
      if (!ok) break;
      e->np = name.p;
      e->nn = name.n;
      e->tp = tf.p;
      e->tn = tf.n;
      e->first = memo.n_idx;
      e->parts = parts;
      memo.n_idx += parts;
      memo.n++;
    }
    int64_t self = o->self_ps > 0 ? o->self_ps : 0;
    for (int32_t d = 1; d <= e->parts; d++) {
      xp_scope *sc = &m->v[memo.idx[e->first + d - 1]];
      sc->count++;
      sc->inclusive_ps += self;
      if (d == e->parts) sc->exclusive_ps += self;
    }
  }
  xp_free(memo.slot);
  xp_free(memo.idx);
  xp_free(xp_buf_finish(path));
  xp_statvec_free(&sv);
  return ok;
}

int64_t xp_scopes(xp_profile *p, const xp_scope **scopes) {
  const xp_op *ops;
  analysis *a = get(p);
  if (!a || xp_ops(p, &ops) < 0) return -1;
  if (a->n_scopes < 0) {
    scope_map m;
    memset(&m, 0, sizeof(m));
    int ok = build_scopes(p, a, &m);
    /* children by string: the parent of a=>b=>c is a=>b */
    int64_t *kids = ok ? xp_malloc(sizeof(int64_t) * 2 * (uint64_t)(m.n + 1)) : NULL;
    ok = ok && kids;
    int64_t *only = kids ? kids + m.n + 1 : NULL;
    for (int64_t i = 0; ok && i < m.n; i++) kids[i] = 0, only[i] = -1;
    for (int64_t i = 0; ok && i < m.n; i++) {
      const char *z = m.v[i].path, *last = NULL;
      for (const char *q = strstr(z, "=>"); q; q = strstr(q + 2, "=>")) last = q;
      if (!last) continue;
      int64_t parent = map_get(&m, z, (size_t)(last - z), 0, 0);
      if (parent < 0) continue;
      kids[parent]++;
      only[parent] = i;
    }
    /* drop redundant unary paths (depth > 1, one child of equal inclusive time) */
    int64_t out = 0;
    for (int64_t i = 0; ok && i < m.n; i++) {
      int redundant = m.v[i].depth > 1 && kids[i] == 1 && close_ps(m.v[i].inclusive_ps, m.v[only[i]].inclusive_ps);
      if (redundant) xp_free(m.v[i].path);
      else m.v[out++] = m.v[i];
    }
    if (ok) m.n = out;
    xp_free(kids);
    if (!ok) {
      xp_free(m.slot);
      for (int64_t i = 0; i < m.n; i++) xp_free(m.v[i].path);
      xp_free(m.v);
      return -1;
    }
    if (m.n) qsort(m.v, (size_t)m.n, sizeof(xp_scope), by_scope_order);
    /* parent = the nearest surviving ancestor, by index in the final order */
    xp_free(m.slot);
    m.slot = NULL;
    m.mask = 0;
    ok = map_rehash(&m);
    for (int64_t i = 0; ok && i < m.n; i++) {
      const char *z = m.v[i].path;
      size_t end = strlen(z);
      m.v[i].parent = -1;
      while (m.v[i].parent < 0) {
        while (end > 0 && !(end >= 2 && z[end - 2] == '=' && z[end - 1] == '>')) end--;
        if (end < 2) break;
        end -= 2;
        int64_t k = map_get(&m, z, end, 0, 0);
        if (k >= 0) m.v[i].parent = (int32_t)k;
      }
    }
    xp_free(m.slot);
    if (!ok) {
      for (int64_t i = 0; i < m.n; i++) xp_free(m.v[i].path);
      xp_free(m.v);
      return -1;
    }
    a->scopes = m.v;
    a->n_scopes = m.n;
  }
  *scopes = a->scopes;
  return a->n_scopes;
}
