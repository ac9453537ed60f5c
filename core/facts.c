/*
** facts.c: the stats walk of the report pass: one read of every track's
** events that picks the few stats the reports need, in parallel.
**
** After pass.c has built the ops, the reports (hints, steps, op names, gap
** groups, op regions, hierarchical regions) need a handful of stats per event:
** run_id and the source file of every analysis event (provenance hints),
** correlation_id of every timed host event (kernel launches, for steps from
** host annotations), tf_op and name of the other analysis events (region
** windows), and tf_op, name, long_name, source and correlation_id of every
** op. xp_facts_build reads each track once with one stat pick for all of
** them (xp_stat_pick over the union of those names), on up to p->threads
** threads, and hands the results to the builders in one xp_facts:
**   - hints: a counter of (kind, value) with the first occurrence's position
**     among all analysis events in profile order (plane, line, event), the
**     order the reference counts them in;
**   - launches: each correlation id of a timed host event with its earliest
**     start (a hash table);
**   - step markers of each step source (steps.c picks the first that has any);
**   - windows: region windows (start, duration, path id, depth) and the
**     distinct paths;
**   - per op (in op order): the effective tf_op, long_name, source file and
**     correlation id.
** The per-op strings point into the mapping. The facts are temporary: the
** report pass (report.c) builds every report from them, then frees them.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "cancel.h"
#include "semantics.h"
#include "util.h"

/* The stats picked, by slot. */
static const char *const pick_names[] = {"run_id", "source", "source_file", "file_name",
                                         "correlation_id", "tf_op", "name", "long_name"};
enum { P_RUN_ID = 0, P_SOURCE, P_SOURCE_FILE, P_FILE_NAME, P_CORR, P_TF_OP, P_NAME, P_LONG_NAME, P_N };

/* Line kinds. */
enum { LK_OP = 1, LK_STEPS = 2, LK_MODULES = 4 };

/* The first non-empty text among n picked stats (a priority list). */
static xp_str first_text(const xp_stat *v, int n) {
  xp_str none = {"", 0};
  for (int i = 0; i < n; i++)
    if (xp_stat_as_text(&v[i]).n) return xp_stat_as_text(&v[i]);
  return none;
}

/* run_id as the reference reads it: non-empty text, or an integer (a double
** truncated) as its decimal digits. */
static int run_id_text(const xp_stat *s, char *buf, size_t cap, xp_str *out) {
  switch (s->type) {
    case XP_V_STR: case XP_V_REF: case XP_V_BYTES:
      *out = s->s;
      return s->s.n > 0;
    case XP_V_INT64: snprintf(buf, cap, "%lld", (long long)s->num.i); break;
    case XP_V_UINT64: snprintf(buf, cap, "%llu", (unsigned long long)s->num.u); break;
    case XP_V_DOUBLE:
      if (!(s->num.d > -9.2e18 && s->num.d < 9.2e18)) return 0;
      snprintf(buf, cap, "%lld", (long long)s->num.d);
      break;
    default: return 0;
  }
  out->p = buf;
  out->n = strlen(buf);
  return 1;
}

/* A non-empty string lies in the mapping (a stat value or a stat name). */
static xp_fact_str fact_str(const xp_profile *p, xp_str s) {
  xp_fact_str out = {0, 0};
  if (s.n) out.off = (uint32_t)((const uint8_t *)s.p - p->base), out.n = (uint32_t)s.n;
  return out;
}

static xp_str line_label(const xp_line *ln) { return ln->display_name.n ? ln->display_name : ln->name; }

/* What one thread gathers; joined in task order. */
typedef struct part {
  xp_counter hints;
  /* the last hint of each kind by address in the mapping: most events repeat it */
  const char *last_p[XP_N_HINT_KINDS];
  size_t last_n[XP_N_HINT_KINDS];
  int64_t last_e[XP_N_HINT_KINDS];
  xp_fact_launch *launches;
  int64_t n_launches, cap_launches;
  xp_fact_marker *markers[3];
  int64_t n_markers[3], cap_markers[3];
  xp_fact_window *windows;
  int64_t n_windows, cap_windows;
  xp_counter paths;       /* this thread's window paths; windows hold their index */
  xp_addrmemo memo;       /* (name, tf_op) by address (util.h) -> window kind: 0 none, k + 1: kinds[k] */
  struct { int64_t path; int32_t depth; } *kinds;
  int64_t n_kinds, cap_kinds;
  xp_buf *path, *canon;
  xp_statvec sv;
  xp_stat_pick_ids ids;   /* the stat ids of the plane of the track being read */
} part;

typedef struct ftask {
  xp_track_task trk;      /* the track and its events: the largest tracks go first */
  int64_t op_base;        /* index of the track's first op */
} ftask;

typedef struct fjob {
  xp_profile *p;
  const xp_analysis *a;
  xp_facts *f;
  ftask *tasks;
  int64_t n_tasks;
  /* per plane: its stat ids for the pick (xp_stat_pick_init), kept compact
  ** (a million planes are possible): ids_n of them from ids_at in the pool */
  int64_t *ids_at;
  uint8_t *ids_n;
  int64_t *pool_id;
  int32_t *pool_slot;
  int64_t pool_n, pool_cap;
  uint8_t **kind;         /* per plane: line kinds */
  uint8_t **is_train;     /* per host plane: event metadata named "train" */
  int64_t *seq_base;      /* per global line: analysis events before it, profile order */
  part *parts;            /* per thread (xp_cancel_run_jobs' worker number) */
  int n_parts;
} fjob;

/* The window kind of (name, effective tf_op): 0 none, else k + 1. -1 on OOM. */
static int64_t window_kind(part *w, xp_str name, xp_str eff) {
  xp_addr_key key = {name.p, eff.p, NULL, name.n, eff.n, 0, 0};
  uint64_t pos;
  int64_t kind;
  int found = xp_addrmemo_get(&w->memo, &key, &kind, &pos);
  if (found) return found < 0 ? -1 : kind;
  xp_buf_reset(w->path);
  int parts = xp_scope_path(w->path, eff.p, eff.n, name.p, name.n, 0);
  const char *z = xp_buf_value(w->path);
  size_t zn = (size_t)xp_buf_length(w->path);
  int64_t e = 0;
  int fallback = 1;
  if (parts == 1) { /* one part equal to the canonical name: the fallback path, not a window */
    xp_buf_reset(w->canon);
    xp_canonical_name(w->canon, name.p, name.n);
    const char *cz = xp_buf_value(w->canon);
    size_t cn = (size_t)xp_buf_length(w->canon);
    fallback = cn == zn && (zn == 0 || memcmp(cz, z, zn) == 0);
  } else if (parts > 1) {
    fallback = 0;
  }
  if (xp_buf_errcode(w->path) || xp_buf_errcode(w->canon)) return -1;
  if (!fallback) {
    int64_t k = xp_counter_add(&w->paths, 0, 0, z ? z : "", zn, 1, w->paths.n);
    if (k < 0 || !xp_grow((void **)&w->kinds, &w->cap_kinds, w->n_kinds + 1, sizeof(*w->kinds))) return -1;
    w->kinds[w->n_kinds].path = k;
    w->kinds[w->n_kinds].depth = parts;
    e = ++w->n_kinds;
  }
  return xp_addrmemo_put(&w->memo, pos, &key, e) ? e : -1;
}

static int push_marker(part *w, int rule, int32_t plane, int64_t number, int64_t start, int64_t dur) {
  if (!xp_grow((void **)&w->markers[rule], &w->cap_markers[rule], w->n_markers[rule] + 1, sizeof(xp_fact_marker)))
    return 0;
  xp_fact_marker *m = &w->markers[rule][w->n_markers[rule]++];
  m->plane = plane;
  m->number = number;
  m->start_ps = start;
  m->dur_ps = dur;
  return 1;
}

/* Count one hint value; a value at the address of the kind's last one (not
** the caller's buffer `buf`) skips the hashing. 0 on OOM. */
static int count_hint(part *w, int kind, xp_str v, const char *buf, int64_t seq) {
  if (v.p != buf && v.p == w->last_p[kind] && v.n == w->last_n[kind]) {
    xp_counted *e = &w->hints.v[w->last_e[kind]];
    e->count++;
    if (seq < e->first_seen) e->first_seen = seq;
    return 1;
  }
  int64_t e = xp_counter_add(&w->hints, 0, kind, v.p, v.n, 1, seq);
  if (e < 0) return 0;
  w->last_p[kind] = v.p == buf ? NULL : v.p;
  w->last_n[kind] = v.n;
  w->last_e[kind] = e;
  return 1;
}

/* One event of the walk (or one op read back from the ops). */
typedef struct evt {
  xp_event ev;
  const xp_event_meta *em;
  xp_str name;
  int analysis, launch;
  int64_t start;
} evt;

/* What one event adds to the facts; `op` is its op index (-1: not an op). */
static int take_event(fjob *j, part *w, const ftask *t, int32_t li, const evt *e, int64_t seq, int64_t op) {
  const xp_profile *p = j->p;
  const xp_plane *pl = &p->planes[t->trk.plane];
  const uint8_t *kind = j->kind[t->trk.plane], *train = j->is_train[t->trk.plane];
  xp_facts *f = j->f;
  xp_stat v[P_N];
  xp_stat_pick_em(p, pl, e->analysis ? e->em : NULL, &e->ev, &w->ids, P_N, v); /* e->em is set for analysis events */
  int64_t corr = 0;
  int has_corr = xp_stat_int_like(&v[P_CORR], &corr);
  if (e->launch && has_corr) {
    if (!xp_grow((void **)&w->launches, &w->cap_launches, w->n_launches + 1, sizeof(xp_fact_launch))) return 0;
    w->launches[w->n_launches].id = corr;
    w->launches[w->n_launches].t = e->start;
    w->n_launches++;
  }
  if (!e->analysis) return 1;
  /* provenance hints: run_id, then the source by priority */
  char buf[32];
  xp_str hv;
  if (run_id_text(&v[P_RUN_ID], buf, sizeof(buf), &hv) && !count_hint(w, XP_HINT_RUN_ID, hv, buf, seq)) return 0;
  hv = first_text(&v[P_SOURCE], 3);
  if (hv.n && !count_hint(w, XP_HINT_SOURCE_FILE, hv, buf, seq)) return 0;
  xp_str tf = xp_stat_as_text(&v[P_TF_OP]), nm = xp_stat_as_text(&v[P_NAME]), eff;
  eff.p = xp_effective_tf_op(tf.p, tf.n, nm.p, nm.n, &eff.n);
  if (op >= 0) {
    f->tf_op[op] = fact_str(p, eff);
    f->long_name[op] = fact_str(p, xp_stat_as_text(&v[P_LONG_NAME]));
    f->source[op] = fact_str(p, hv);
    f->corr[op] = corr;
    f->has_corr[op] = (uint8_t)has_corr;
  } else {
    int64_t k = window_kind(w, e->name, eff);
    if (k < 0) return 0;
    if (k > 0) {
      if (!xp_grow((void **)&w->windows, &w->cap_windows, w->n_windows + 1, sizeof(xp_fact_window))) return 0;
      xp_fact_window *win = &w->windows[w->n_windows++];
      win->start = e->start;
      win->dur = e->ev.duration_ps;
      win->end = (int64_t)((uint64_t)e->start + (uint64_t)e->ev.duration_ps);
      win->path = w->kinds[k - 1].path; /* this part's path index until joined */
      win->depth = w->kinds[k - 1].depth;
      win->rank = 0;
    }
  }
  /* step markers of the three sources (steps.c) */
  int64_t number;
  if ((kind[li] & LK_STEPS) && xp_parse_int(e->name.p, e->name.n, &number) &&
      !push_marker(w, 0, t->trk.plane, number, e->start, e->ev.duration_ps))
    return 0;
  if (train && train[e->em - pl->emeta] && xp_event_stats(p, pl, &e->ev, &w->sv)) {
    static const char *const keys[] = {"step_num", "step"};
    for (int k = 0; k < 2; k++) {
      const xp_stat *st = xp_statvec_find(&w->sv, keys[k]);
      if (st && xp_stat_int_like(st, &number)) {
        if (!push_marker(w, 1, t->trk.plane, number, e->start, e->ev.duration_ps)) return 0;
        break;
      }
    }
  }
  if ((kind[li] & LK_MODULES) && !push_marker(w, 2, t->trk.plane, -1, e->start, e->ev.duration_ps)) return 0;
  return 1;
}

/* Read one track: lines that are only device-op lines from the ops (their
** analysis events are exactly the ops, in order: no second walk of their
** bytes), every other line by walking its events. */
static int run_ftask(fjob *j, part *w, const ftask *t) {
  const xp_profile *p = j->p;
  w->ids.n = j->ids_n[t->trk.plane];
  for (int k = 0; k < w->ids.n; k++) {
    w->ids.id[k] = j->pool_id[j->ids_at[t->trk.plane] + k];
    w->ids.slot[k] = j->pool_slot[j->ids_at[t->trk.plane] + k];
  }
  const xp_plane *pl = &p->planes[t->trk.plane];
  const uint8_t *kind = j->kind[t->trk.plane];
  const xp_op *ops = j->a->ops;
  int host = xp_str_starts(pl->name, "/host:");
  int64_t op = t->op_base;
  evt e;
  for (int32_t li = t->trk.first; li >= 0; li = xp_track_next(j->a, t->trk.plane, li)) {
    const xp_line *ln = &pl->lines[li];
    int64_t seq = j->seq_base[j->a->line_base[t->trk.plane] + li];
    if (kind[li] == LK_OP && !host) {
      for (; op < j->f->n_ops && ops[op].plane == t->trk.plane && ops[op].line == li; op++) {
        if ((op & 4095) == 0 && xp_cancelled()) {
          ((xp_profile *)p)->changed = p->changed ? p->changed : XP_CHANGED_INTERRUPTED;
          return 1;
        }
        const xp_op *o = &ops[op];
        memset(&e, 0, sizeof(e));
        e.ev.msg = o->msg;
        e.ev.msg_n = o->msg_n;
        e.em = &pl->emeta[o->emeta];
        e.ev.metadata_id = e.em->id;
        e.ev.has_offset = 1;
        e.ev.duration_ps = o->dur_ps;
        e.name = e.em->display_name.n ? e.em->display_name : e.em->name;
        e.analysis = 1;
        e.start = o->start_ps;
        if (!take_event(j, w, t, li, &e, ++seq, op)) return 0;
      }
      continue;
    }
    xp_event_iter it;
    xp_events_begin(p, ln, &it);
    while (xp_events_next(&it, &e.ev)) {
      e.analysis = xp_analysis_event(pl, &e.ev, &e.em, &e.name);
      e.launch = host && e.ev.has_offset;
      if (!e.analysis && !e.launch) continue;
      e.start = xp_event_start(ln, &e.ev);
      /* the ops of a track follow its events in this order (pass.c) */
      int64_t is_op = e.analysis && (kind[li] & LK_OP) ? op++ : -1;
      if (!take_event(j, w, t, li, &e, e.analysis ? ++seq : seq, is_op)) return 0;
    }
  }
  return 1;
}

/* Task k on the thread numbered `worker`, into that thread's part. */
static int ftask_job(void *ctx, int64_t k, int worker) {
  fjob *j = ctx;
  part *w = &j->parts[worker];
  if (!w->path && !(w->path = xp_buf_new())) return 0;
  if (!w->canon && !(w->canon = xp_buf_new())) return 0;
  return !j->p->changed && run_ftask(j, w, &j->tasks[k]);
}

static void part_free(part *w) {
  xp_counter_free(&w->hints, 0);
  xp_counter_free(&w->paths, 0);
  xp_free(w->launches);
  for (int r = 0; r < 3; r++) xp_free(w->markers[r]);
  xp_free(w->windows);
  xp_addrmemo_free(&w->memo);
  xp_free(w->kinds);
  if (w->path) xp_free(xp_buf_finish(w->path));
  if (w->canon) xp_free(xp_buf_finish(w->canon));
  xp_statvec_free(&w->sv);
}

void xp_facts_free_launches(xp_facts *f) {
  xp_free(f->launches);
  xp_free(f->t_dense);
  f->launches = NULL;
  f->t_dense = NULL;
  f->launch_cap = 0;
  f->n_launches = 0;
}

void xp_facts_free(xp_facts *f) {
  xp_free(f->tf_op);
  xp_free(f->long_name);
  xp_free(f->source);
  xp_free(f->corr);
  xp_free(f->has_corr);
  xp_facts_free_launches(f);
  for (int r = 0; r < 3; r++) xp_free(f->markers[r]);
  xp_free(f->windows);
  for (int64_t i = 0; i < f->n_paths; i++) xp_free(f->paths[i]);
  xp_free(f->paths);
  xp_counter_free(&f->hints, 0);
  memset(f, 0, sizeof(*f));
}

typedef struct path_ref {
  const char *z;
  int64_t id;
} path_ref;
static int by_path_text(const void *x, const void *y) { return strcmp(((const path_ref *)x)->z, ((const path_ref *)y)->z); }

static int by_first_seen(const void *x, const void *y) {
  const xp_counted *a = x, *b = y;
  if (a->first_seen != b->first_seen) return a->first_seen < b->first_seen ? -1 : 1;
  return a->kind < b->kind ? -1 : a->kind > b->kind;
}

/* The launch table, id -> earliest start, in one of two layouts:
** - dense, when the ids fill their range well (CUPTI and XLA number launches
**   consecutively): t_dense[id - id_min], INT64_MIN where no launch; ops look
**   their ids up in about the order they were launched, so the reads stay
**   near each other in memory;
** - otherwise open addressing over (id, t) pairs stored inline (one cache
**   miss per insert or lookup), about 0.7 full, the slot reduced from the
**   seeded hash by a multiply (util.h: crafted ids cannot be prepared to
**   collide).
** Launch times lie within +-XP_TIME_LIMIT_PS, so INT64_MIN marks "none". */
static uint64_t launch_slot(const xp_facts *f, int64_t id) {
  return (uint64_t)(((unsigned __int128)xp_hash_u64((uint64_t)id) * f->launch_cap) >> 64);
}

static void launch_put(xp_facts *f, const xp_fact_launch *l) {
  if (f->t_dense) {
    int64_t *t = &f->t_dense[(uint64_t)l->id - (uint64_t)f->id_min];
    if (*t == INT64_MIN) f->n_launches++;
    if (*t == INT64_MIN || l->t < *t) *t = l->t;
    return;
  }
  uint64_t h = launch_slot(f, l->id);
  while (f->launches[h].t != INT64_MIN && f->launches[h].id != l->id) h = h + 1 == f->launch_cap ? 0 : h + 1;
  if (f->launches[h].t == INT64_MIN) f->n_launches++;
  if (f->launches[h].t == INT64_MIN || l->t < f->launches[h].t) f->launches[h] = *l;
}

int64_t xp_facts_launch_time(const xp_facts *f, int64_t id, int64_t fallback) {
  if (f->t_dense) {
    if (id < f->id_min || (uint64_t)id - (uint64_t)f->id_min >= f->launch_cap) return fallback;
    int64_t t = f->t_dense[(uint64_t)id - (uint64_t)f->id_min];
    return t == INT64_MIN ? fallback : t;
  }
  if (!f->launch_cap) return fallback;
  uint64_t h = launch_slot(f, id);
  while (f->launches[h].t != INT64_MIN) {
    if (f->launches[h].id == id) return f->launches[h].t;
    h = h + 1 == f->launch_cap ? 0 : h + 1;
  }
  return fallback;
}

/* Room for nl launches with ids in [lo, hi]: dense when the range is at most
** 3 slots per launch (8 bytes a slot: no more memory than the table's 16
** bytes at 0.7 full), else the table. 0 on OOM. */
static int launch_alloc(xp_facts *f, int64_t nl, int64_t lo, int64_t hi) {
  if (nl && hi >= lo && (uint64_t)hi - (uint64_t)lo < (uint64_t)nl * 3) {
    f->id_min = lo;
    f->launch_cap = (uint64_t)hi - (uint64_t)lo + 1;
    f->t_dense = xp_malloc(sizeof(int64_t) * f->launch_cap);
    if (!f->t_dense) return 0;
    for (uint64_t i = 0; i < f->launch_cap; i++) f->t_dense[i] = INT64_MIN;
    return 1;
  }
  f->launch_cap = nl ? (uint64_t)nl + (uint64_t)nl * 3 / 7 + 1 : 0;
  f->launches = xp_malloc(sizeof(xp_fact_launch) * (f->launch_cap + 1));
  if (!f->launches) return 0;
  for (uint64_t i = 0; i < f->launch_cap; i++) f->launches[i].t = INT64_MIN;
  return 1;
}

/* Join the parts: hints summed (ordered by first occurrence), lists
** concatenated, window paths made one list with byte-order ranks. */
static int join_parts(fjob *j) {
  xp_facts *f = j->f;
  xp_counter hints = {0}, paths = {0};
  int ok = 1;
  int64_t nl = 0, nw = 0, nm[3] = {0, 0, 0};
  for (int i = 0; i < j->n_parts; i++) {
    nl += j->parts[i].n_launches;
    nw += j->parts[i].n_windows;
    for (int r = 0; r < 3; r++) nm[r] += j->parts[i].n_markers[r];
  }
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (int i = 0; i < j->n_parts; i++)
    for (int64_t k = 0; k < j->parts[i].n_launches; k++) {
      if (j->parts[i].launches[k].id < lo) lo = j->parts[i].launches[k].id;
      if (j->parts[i].launches[k].id > hi) hi = j->parts[i].launches[k].id;
    }
  int room = launch_alloc(f, nl, lo, hi);
  f->windows = xp_malloc(sizeof(xp_fact_window) * (uint64_t)(nw + 1));
  for (int r = 0; r < 3; r++) f->markers[r] = xp_malloc(sizeof(xp_fact_marker) * (uint64_t)(nm[r] + 1));
  ok = room && f->windows && f->markers[0] && f->markers[1] && f->markers[2];
  for (int i = 0; ok && i < j->n_parts; i++) {
    part *w = &j->parts[i];
    for (int64_t k = 0; ok && k < w->hints.n; k++) {
      const xp_counted *c = &w->hints.v[k];
      ok = xp_counter_add(&hints, c->owner, c->kind, c->value, c->n, c->count, c->first_seen) >= 0;
    }
    /* this part's path index -> the joined one */
    int64_t *remap = ok ? xp_malloc(sizeof(int64_t) * (uint64_t)(w->paths.n + 1)) : NULL;
    ok = ok && remap;
    for (int64_t k = 0; ok && k < w->paths.n; k++) {
      remap[k] = xp_counter_add(&paths, 0, 0, w->paths.v[k].value, w->paths.v[k].n, 1, paths.n);
      ok = remap[k] >= 0;
    }
    for (int64_t k = 0; ok && k < w->n_windows; k++) {
      if ((k & 4095) == 4095 && xp_cancelled()) { ok = 0; break; }
      f->windows[f->n_windows] = w->windows[k];
      f->windows[f->n_windows++].path = remap[w->windows[k].path];
    }
    xp_free(remap);
    if (!ok) break;
    for (int64_t k = 0; ok && k < w->n_launches; k++) {
      if ((k & 4095) == 4095 && xp_cancelled()) ok = 0; /* long loops stop on an interrupt (cancel.h) */
      else launch_put(f, &w->launches[k]);
    }
    if (!ok) break; /* part_free frees the rest */
    xp_free(w->launches); /* in the table: free as we go, so the peak holds one copy */
    w->launches = NULL;
    w->n_launches = 0;
    for (int r = 0; r < 3; r++) {
      if (w->n_markers[r])
        memcpy(f->markers[r] + f->n_markers[r], w->markers[r], sizeof(xp_fact_marker) * (size_t)w->n_markers[r]);
      f->n_markers[r] += w->n_markers[r];
    }
  }
  /* hints in the order of their first occurrence (run_id before source at one event) */
  if (ok && hints.n) qsort(hints.v, (size_t)hints.n, sizeof(xp_counted), by_first_seen);
  xp_hmap_free(&hints.index); /* the order changed: the entries stay, the index goes */
  f->hints = hints;
  /* the paths, owned by the facts, and their byte-order ranks */
  path_ref *order = ok ? xp_malloc(sizeof(path_ref) * (uint64_t)(paths.n + 1)) : NULL;
  int64_t *rank = ok ? xp_malloc(sizeof(int64_t) * (uint64_t)(paths.n + 1)) : NULL;
  f->paths = ok ? xp_malloc(sizeof(char *) * (uint64_t)(paths.n + 1)) : NULL;
  ok = ok && order && rank && f->paths;
  if (ok) {
    for (int64_t i = 0; i < paths.n; i++) {
      f->paths[i] = paths.v[i].value;
      order[i].z = paths.v[i].value;
      order[i].id = i;
    }
    f->n_paths = paths.n;
    if (paths.n) qsort(order, (size_t)paths.n, sizeof(path_ref), by_path_text);
    for (int64_t i = 0; i < paths.n; i++) rank[order[i].id] = i;
    for (int64_t i = 0; i < f->n_windows; i++) f->windows[i].rank = rank[f->windows[i].path];
  }
  xp_counter_free(&paths, ok); /* on success the values moved to f->paths */
  xp_free(order);
  xp_free(rank);
  return ok;
}

int xp_facts_build(xp_profile *p, xp_facts *f) {
  memset(f, 0, sizeof(*f));
  const xp_op *ops;
  int64_t n_ops = xp_ops(p, &ops);
  if (n_ops < 0) return 0;
  const xp_analysis *a = p->analysis;
  fjob j;
  memset(&j, 0, sizeof(j));
  j.p = p;
  j.a = a;
  j.f = f;
  int ok = 1;
  f->n_ops = n_ops;
  f->tf_op = xp_malloc(sizeof(xp_fact_str) * (uint64_t)(n_ops + 1));
  f->long_name = xp_malloc(sizeof(xp_fact_str) * (uint64_t)(n_ops + 1));
  f->source = xp_malloc(sizeof(xp_fact_str) * (uint64_t)(n_ops + 1));
  f->corr = xp_malloc(sizeof(int64_t) * (uint64_t)(n_ops + 1));
  f->has_corr = xp_malloc((uint64_t)n_ops + 1);
  j.tasks = xp_malloc(sizeof(ftask) * (uint64_t)(p->n_lines + 1));
  j.ids_at = xp_malloc(sizeof(int64_t) * (uint64_t)(p->n_planes + 1));
  j.ids_n = xp_malloc((uint64_t)p->n_planes + 1);
  j.kind = xp_malloc(sizeof(uint8_t *) * 2 * (uint64_t)(p->n_planes + 1));
  j.seq_base = xp_malloc(sizeof(int64_t) * (uint64_t)(p->n_lines + 1));
  ok = f->tf_op && f->long_name && f->source && f->corr && f->has_corr && j.tasks && j.ids_at && j.ids_n && j.kind && j.seq_base;
  if (j.kind) {
    memset(j.kind, 0, sizeof(uint8_t *) * 2 * (size_t)(p->n_planes + 1));
    j.is_train = j.kind + p->n_planes + 1;
  }
  /* analysis events before each line, in profile order: the hints' order key */
  if (ok) {
    int64_t at = 0, total = 0;
    for (int32_t pi = 0; pi < p->n_planes; pi++)
      for (int32_t li = 0; li < p->planes[pi].n_lines; li++) {
        int64_t gi = a->line_base[pi] + li;
        j.seq_base[gi] = total;
        for (; at < a->n_aggs && a->aggs[at].plane == pi && a->aggs[at].line == li; at++) total += a->aggs[at].n_events;
      }
  }
  /* per plane: the stat ids, the line kinds, "train" metadata of host planes;
  ** tasks: the tracks with events, with the index of their first op */
  int64_t op_at = 0;
  for (int32_t pi = 0; ok && pi < p->n_planes; pi++) {
    const xp_plane *pl = &p->planes[pi];
    if (pl->n_events == 0) continue;
    xp_stat_pick_ids ids;
    xp_stat_pick_init(pl, pick_names, P_N, &ids);
    int64_t cap = j.pool_cap;
    if (!xp_grow((void **)&j.pool_id, &cap, j.pool_n + ids.n + 1, sizeof(int64_t)) ||
        !xp_grow((void **)&j.pool_slot, &j.pool_cap, j.pool_n + ids.n + 1, sizeof(int32_t))) { ok = 0; break; }
    j.ids_at[pi] = j.pool_n;
    j.ids_n[pi] = (uint8_t)ids.n;
    for (int k = 0; k < ids.n; k++, j.pool_n++) {
      j.pool_id[j.pool_n] = ids.id[k];
      j.pool_slot[j.pool_n] = ids.slot[k];
    }
    int device = xp_str_starts(pl->name, "/device:");
    if (!(j.kind[pi] = xp_malloc((uint64_t)pl->n_lines + 1))) { ok = 0; break; }
    for (int32_t li = 0; li < pl->n_lines; li++) {
      const xp_line *ln = &pl->lines[li];
      j.kind[pi][li] = (uint8_t)((xp_device_op_line(pl, ln) ? LK_OP : 0) |
                                 (device && xp_str_eq(line_label(ln), "Steps") ? LK_STEPS : 0) |
                                 (device && xp_str_eq(line_label(ln), "XLA Modules") ? LK_MODULES : 0));
    }
    if (xp_str_starts(pl->name, "/host:")) {
      if (!(j.is_train[pi] = xp_malloc((uint64_t)pl->n_emeta + 1))) { ok = 0; break; }
      for (int32_t k = 0; k < pl->n_emeta; k++) {
        const xp_event_meta *em = &pl->emeta[k];
        j.is_train[pi][k] = (uint8_t)xp_str_eq(em->display_name.n ? em->display_name : em->name, "train");
      }
    }
    for (int32_t li = 0; li < pl->n_lines; li++) {
      if (xp_track_first(a, pi, li) != li) continue;
      ftask *t = &j.tasks[j.n_tasks];
      t->trk.plane = pi;
      t->trk.first = li;
      t->op_base = op_at;
      t->trk.weight = 0;
      for (int32_t k = li; k >= 0; k = xp_track_next(a, pi, k)) t->trk.weight += pl->lines[k].n_events;
      /* the track's ops are next in op order (pass.c joins tracks in this order) */
      while (op_at < n_ops && ops[op_at].plane == pi && xp_track_first(a, pi, ops[op_at].line) == li) op_at++;
      if (t->trk.weight) j.n_tasks++;
    }
  }
  if (ok && op_at != n_ops) ok = 0; /* cannot happen: the ops are in track order */
  if (ok) {
    xp_track_tasks_heaviest_first(j.tasks, j.n_tasks, sizeof(ftask));
    int threads = xp_analysis_threads(p, j.n_tasks);
    j.parts = xp_malloc(sizeof(part) * (uint64_t)threads);
    ok = j.parts != NULL;
    if (ok) {
      memset(j.parts, 0, sizeof(part) * (size_t)threads);
      j.n_parts = threads;
      ok = xp_cancel_run_jobs(threads, j.n_tasks, ftask_job, &j) && !p->changed;
      ok = ok && join_parts(&j);
      for (int i = 0; i < j.n_parts; i++) part_free(&j.parts[i]);
    }
  }
  for (int32_t pi = 0; j.kind && pi < p->n_planes; pi++) {
    xp_free(j.kind[pi]);
    xp_free(j.is_train[pi]);
  }
  xp_free(j.kind);
  xp_free(j.parts);
  xp_free(j.tasks);
  xp_free(j.ids_at);
  xp_free(j.ids_n);
  xp_free(j.pool_id);
  xp_free(j.pool_slot);
  xp_free(j.seq_base);
  if (!ok) xp_facts_free(f);
  return ok;
}
