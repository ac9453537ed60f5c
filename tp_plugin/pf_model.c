/*
** pf_model.c: XPlane -> Perfetto model records (see pf_model.h for the
** mapping, the lanes and the ordering).
*/
#include "pf_model.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "hlo.h"
#include "json.h"
#include "space.h"

#include "util.h"

/* An open slice: on a lane's stack and on the analysis stack. */
typedef struct pf_open {
  int64_t end_ps, end_ns, ordinal, event_index;
  int32_t line, lane;
} pf_open;

typedef struct pf_lane {
  pf_track t;
  char *name;
  int emitted;
  pf_open *st;
  int n, cap;
} pf_lane;

/* One event of a track, in the order it is handed on. */
typedef struct pf_item {
  xp_event ev;
  int64_t start_ps, end_ps, event_index;
  int32_t line;
  int32_t pos; /* position of the line among the track's lines */
} pf_item;

struct pf_model {
  pf_sink sink;
  int merged;
  uint64_t next_uuid;
  int64_t next_upid, next_utid, ordinal;
  int32_t n_processes;
  int64_t n_tids;
  uint64_t host_ordinal;
  pf_counts counts;
  /* per event */
  xp_statvec sv;
  pf_arg *args;
  int cap_args;
  char *arena;
  size_t cap_arena;
  /* per profile / plane / thread */
  const xp_profile *p;
  const xp_plane *pl;
  int32_t plane_index, pid;
  int64_t upid;
  pf_lane *lanes, *other;
  int n_lanes, cap_lanes, n_other, cap_other;
  pf_open *spec;
  int n_spec, cap_spec;
  uint8_t *line_flags; /* per line of the plane: LINE_* */
  char *thread_name;
  char **errmsg;
};

/* line_flags: the line's facts (first slice) are written; another line of
** its thread has the same name, so its slices carry xplane.line_index */
enum { LINE_DONE = 1, LINE_SHARED = 2 };

/* ---- small helpers ---- */

static int oom(pf_model *m) {
  if (!*m->errmsg) *m->errmsg = xp_mprintf("out of memory");
  return 0;
}

static xp_str meta_name(const xp_event_meta *em) { return em->display_name.n ? em->display_name : em->name; }

/* 1: a timed event (start/end set, on the tables' clock: xp_event_start);
** 0: no start; -1: invalid time. */
static int classify(const xp_line *ln, const xp_event *ev, int64_t *start, int64_t *end) {
  if (!ev->has_offset) return 0;
  *start = xp_event_start(ln, ev);
  if (ev->duration_ps < 0 || *start < 0 || __builtin_add_overflow(*start, ev->duration_ps, end)) return -1;
  return 1;
}

/* (start asc, end desc, line position, event index): the analysis order. */
static int item_cmp(const pf_item *a, const pf_item *b) {
  if (a->start_ps != b->start_ps) return a->start_ps < b->start_ps ? -1 : 1;
  if (a->end_ps != b->end_ps) return a->end_ps > b->end_ps ? -1 : 1;
  if (a->pos != b->pos) return a->pos < b->pos ? -1 : 1;
  return a->event_index < b->event_index ? -1 : a->event_index > b->event_index;
}

static int item_qsort_cmp(const void *a, const void *b) { return item_cmp(a, b); }

/* ---- the events of one track, in order ---- */

typedef struct pf_source {
  pf_model *m;
  const int32_t *lines;
  int n;
  /* streaming merge */
  xp_event_iter *it;
  pf_item *cur;
  uint8_t *live;
  int64_t *next_index;
  /* gathered and sorted */
  pf_item *items;
  int64_t n_items, pos;
  int gathered;
} pf_source;

/* Next timed event of line k (counting the skipped ones); 0 at its end. */
static int line_next(pf_source *s, int k, pf_item *out) {
  pf_model *m = s->m;
  const xp_line *ln = &m->pl->lines[s->lines[k]];
  while (xp_events_next(&s->it[k], &out->ev)) {
    out->event_index = s->next_index[k]++;
    int c = classify(ln, &out->ev, &out->start_ps, &out->end_ps);
    if (c == 0) m->counts.skipped_untimed++;
    if (c < 0) m->counts.skipped_invalid++;
    if (c == 1) {
      out->line = s->lines[k];
      out->pos = k;
      return 1;
    }
  }
  return 0;
}

/* Are the timed events of every line already in the analysis order? */
static int lines_ordered(const pf_model *m, const int32_t *lines, int n) {
  for (int k = 0; k < n; k++) {
    const xp_line *ln = &m->pl->lines[lines[k]];
    xp_event_iter it;
    xp_event ev;
    int64_t ps = 0, pe = 0, s, e;
    int have = 0;
    xp_events_begin(m->p, ln, &it);
    while (xp_events_next(&it, &ev)) {
      if (classify(ln, &ev, &s, &e) != 1) continue;
      if (have && (s < ps || (s == ps && e > pe))) return 0;
      ps = s, pe = e, have = 1;
    }
  }
  return 1;
}

static void source_free(pf_source *s) {
  xp_free(s->it);
  xp_free(s->cur);
  xp_free(s->live);
  xp_free(s->next_index);
  xp_free(s->items);
  memset(s, 0, sizeof(*s));
}

static int source_open(pf_model *m, const int32_t *lines, int n, pf_source *s) {
  memset(s, 0, sizeof(*s));
  s->m = m;
  s->lines = lines;
  s->n = n;
  s->it = xp_malloc(sizeof(xp_event_iter) * (uint64_t)n);
  s->cur = xp_malloc(sizeof(pf_item) * (uint64_t)n);
  s->live = xp_malloc((uint64_t)n);
  s->next_index = xp_malloc(sizeof(int64_t) * (uint64_t)n);
  if (!s->it || !s->cur || !s->live || !s->next_index) return oom(m);
  for (int k = 0; k < n; k++) {
    xp_events_begin(m->p, &m->pl->lines[lines[k]], &s->it[k]);
    s->next_index[k] = 0;
  }
  if (lines_ordered(m, lines, n)) {
    for (int k = 0; k < n; k++) s->live[k] = (uint8_t)line_next(s, k, &s->cur[k]);
    return 1;
  }
  s->gathered = 1;
  int64_t cap = 0;
  for (int k = 0; k < n; k++) {
    pf_item item;
    while (line_next(s, k, &item)) {
      if (!xp_grow((void **)&s->items, &cap, s->n_items + 1, sizeof(pf_item))) return oom(m);
      s->items[s->n_items++] = item;
    }
  }
  if (s->n_items) qsort(s->items, (size_t)s->n_items, sizeof(pf_item), item_qsort_cmp);
  return 1;
}

static int source_next(pf_source *s, pf_item *out) {
  if (s->gathered) {
    if (s->pos >= s->n_items) return 0;
    *out = s->items[s->pos++];
    return 1;
  }
  int best = -1;
  for (int k = 0; k < s->n; k++)
    if (s->live[k] && (best < 0 || item_cmp(&s->cur[k], &s->cur[best]) < 0)) best = k;
  if (best < 0) return 0;
  *out = s->cur[best];
  s->live[best] = (uint8_t)line_next(s, best, &s->cur[best]);
  return 1;
}

/* ---- args ---- */

static char *arena_reserve(pf_model *m, size_t n) {
  if (n > m->cap_arena) {
    char *a = xp_realloc(m->arena, n);
    if (!a) return NULL;
    m->arena = a;
    m->cap_arena = n;
  }
  return m->arena;
}

static void arg_int(pf_arg *a, const char *name, int64_t v) {
  a->name.p = name;
  a->name.n = strlen(name);
  a->type = PF_A_INT;
  a->v.i = v;
  a->s.p = NULL;
  a->s.n = 0;
}

static void arg_str(pf_arg *a, const char *name, xp_str v) {
  arg_int(a, name, 0);
  a->type = PF_A_STRING;
  a->s = v;
}

static void arg_text(pf_arg *a, const char *name, const char *z) {
  xp_str v = {z, strlen(z)};
  arg_str(a, name, v);
}

/* Append the stats of sv to m->args from index n (room for them reserved),
** named as the stats are (`#<id>` for an unknown id), bytes as lower-case hex
** written into ar (room: 2 bytes per byte + 24 per unnamed stat); returns
** the new count. */
static int stat_args(pf_model *m, const xp_statvec *sv, int n, char *ar) {
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < sv->n; i++) {
    const xp_stat *st = &sv->v[i];
    pf_arg *a = &m->args[n];
    a->s.p = NULL;
    a->s.n = 0;
    switch (st->type) {
      case XP_V_DOUBLE: a->type = PF_A_DOUBLE, a->v.d = st->num.d; break;
      case XP_V_UINT64: a->type = PF_A_UINT, a->v.u = st->num.u; break;
      case XP_V_INT64: a->type = PF_A_INT, a->v.i = st->num.i; break;
      case XP_V_STR:
      case XP_V_REF: a->type = PF_A_STRING, a->s = st->s; break;
      case XP_V_BYTES:
        a->type = PF_A_STRING;
        a->s.p = ar;
        a->s.n = 2 * st->s.n;
        for (size_t k = 0; k < st->s.n; k++) {
          unsigned char c = (unsigned char)st->s.p[k];
          *ar++ = hex[c >> 4];
          *ar++ = hex[c & 15];
        }
        break;
      default: continue; /* a stat without a value */
    }
    if (st->name.n) {
      a->name = st->name;
    } else {
      int k = snprintf(ar, 24, "#%lld", (long long)st->metadata_id);
      a->name.p = ar;
      a->name.n = (size_t)k;
      ar += k;
    }
    n++;
  }
  return n;
}

/* The annotations of an event (m->sv holds its effective stats; em is its
** metadata, NULL when unknown). */
static int build_args(pf_model *m, const pf_item *it, const xp_event_meta *em, const pf_open *spec_parent,
                      int *n_out) {
  const xp_statvec *sv = &m->sv;
  if (!xp_grow32((void **)&m->args, &m->cap_args, sv->n + 11, sizeof(pf_arg))) return oom(m);
  size_t need = 1;
  for (int i = 0; i < sv->n; i++) {
    if (sv->v[i].type == XP_V_BYTES) need += 2 * sv->v[i].s.n;
    if (!sv->v[i].name.n) need += 24;
  }
  char *ar = arena_reserve(m, need);
  if (!ar) return oom(m);
  int n = 0;
  uint8_t *lf = &m->line_flags[it->line];
  /* the plane index is the process's (its plane record), the line index
  ** the one of the line with the slice's thread and category (its first
  ** slice); written where those do not give it */
  if (!(*lf & LINE_DONE) || (*lf & LINE_SHARED)) arg_int(&m->args[n++], "xplane.line_index", it->line);
  arg_int(&m->args[n++], "xplane.event_index", it->event_index);
  /* the exact times only where the slice's ts and dur (whole ns) do not
  ** give them: start_ps = ts * 1000, dur_ps = dur * 1000 otherwise */
  if (it->start_ps % 1000 != 0) arg_int(&m->args[n++], "xplane.start_ps", it->start_ps);
  if (it->ev.duration_ps != (it->end_ps / 1000 - it->start_ps / 1000) * 1000)
    arg_int(&m->args[n++], "xplane.dur_ps", it->ev.duration_ps);
  if (spec_parent) {
    arg_int(&m->args[n++], "xplane.parent_line_index", spec_parent->line);
    arg_int(&m->args[n++], "xplane.parent_event_index", spec_parent->event_index);
  }
  if (!em) arg_int(&m->args[n++], "xplane.metadata_id", it->ev.metadata_id);
  if (em && em->display_name.n &&
      (em->name.n != em->display_name.n || memcmp(em->name.p, em->display_name.p, em->name.n) != 0))
    arg_str(&m->args[n++], "xplane.metadata_name", em->name);
  if (!(*lf & LINE_DONE)) {
    const xp_line *ln = &m->pl->lines[it->line];
    *lf |= LINE_DONE;
    arg_int(&m->args[n++], "xplane.line_id", ln->id);
    arg_str(&m->args[n++], "xplane.line_display_name", ln->display_name);
  }
  n = stat_args(m, sv, n, ar);
  *n_out = n;
  return 1;
}

/* ---- emission ---- */

static int emit_track(pf_model *m, pf_lane *ln) {
  if (ln->emitted) return 1;
  ln->emitted = 1;
  m->counts.tracks++;
  return m->sink.track(m->sink.ctx, &ln->t, m->errmsg);
}

static int close_until(pf_model *m, pf_lane *ln, int64_t t_ps) {
  while (ln->n && ln->st[ln->n - 1].end_ps <= t_ps) {
    pf_event e;
    memset(&e, 0, sizeof(e));
    e.type = PF_END;
    e.track = &ln->t;
    e.ts_ns = ln->st[ln->n - 1].end_ns;
    e.parent_ordinal = -1;
    ln->n--;
    if (!m->sink.event(m->sink.ctx, &e, m->errmsg)) return 0;
  }
  return 1;
}

/* Emit a BEGIN (or INSTANT) of item `it` on lane ln and push it there. */
static int place(pf_model *m, pf_lane *ln, const pf_item *it, const pf_open *spec_parent, pf_open *opened) {
  const xp_event_meta *em = xp_plane_event_meta(m->pl, it->ev.metadata_id);
  pf_event e;
  memset(&e, 0, sizeof(e));
  e.type = it->ev.duration_ps ? PF_BEGIN : PF_INSTANT;
  e.track = &ln->t;
  e.start_ps = it->start_ps;
  e.dur_ps = it->ev.duration_ps;
  e.ts_ns = it->start_ps / 1000;
  e.end_ns = it->end_ps / 1000;
  e.has_name = em != NULL;
  if (em) e.name = meta_name(em);
  e.category = m->pl->lines[it->line].name;
  e.ordinal = m->ordinal++;
  e.depth = ln->n;
  e.parent_ordinal = ln->n ? ln->st[ln->n - 1].ordinal : -1;
  if (m->sink.want_args) {
    if (!xp_event_stats(m->p, m->pl, &it->ev, &m->sv)) return oom(m);
    if (!build_args(m, it, em, spec_parent, &e.n_args)) return 0;
    e.args = m->args;
    e.stats = &m->sv;
    const xp_stat *c = xp_statvec_find(&m->sv, "correlation_id");
    uint64_t id = 0;
    if (c && c->type == XP_V_INT64) id = (uint64_t)c->num.i;
    if (c && c->type == XP_V_UINT64) id = c->num.u;
    if (id) {
      e.has_flow = 1;
      e.flow_id = (m->host_ordinal << 48) ^ id;
    }
  }
  if (!emit_track(m, ln)) return 0;
  if (e.type == PF_INSTANT) {
    m->counts.instants++;
    return m->sink.event(m->sink.ctx, &e, m->errmsg);
  }
  m->counts.slices++;
  if (!xp_grow32((void **)&ln->st, &ln->cap, ln->n + 1, sizeof(pf_open))) return oom(m);
  pf_open *o = &ln->st[ln->n++];
  o->end_ps = it->end_ps;
  o->end_ns = e.end_ns;
  o->ordinal = e.ordinal;
  o->event_index = it->event_index;
  o->line = it->line;
  o->lane = ln->t.lane;
  if (opened) *opened = *o;
  return m->sink.event(m->sink.ctx, &e, m->errmsg);
}

/* Lane `k` of a family (overlap lanes: other = 0, k >= 1; other lanes: k >= 0),
** created when absent. */
static pf_lane *lane_at(pf_model *m, int other, int k) {
  pf_lane **v = other ? &m->other : &m->lanes;
  int *n = other ? &m->n_other : &m->n_lanes;
  int *cap = other ? &m->cap_other : &m->cap_lanes;
  if (k < *n) return &(*v)[k];
  if (!xp_grow32((void **)v, cap, k + 1, sizeof(pf_lane))) return NULL;
  pf_lane *ln = &(*v)[k];
  memset(ln, 0, sizeof(*ln));
  ln->t = m->lanes[0].t;
  ln->t.uuid = m->next_uuid++;
  ln->t.parent_uuid = m->lanes[0].t.uuid;
  ln->t.lane = other ? -(k + 1) : k;
  ln->t.json_tid = (int32_t)(PF_TID_BASE + m->n_tids++);
  ln->name = xp_mprintf("%s (%s %d)", m->thread_name, other ? "other" : "overlap", other ? k + 1 : k);
  if (!ln->name) return NULL;
  ln->t.name = ln->name;
  (*n)++;
  return ln;
}

/* The lowest lane of a family free at `start` (or, for other lanes, where
** the event nests); a new one when none is. */
static pf_lane *free_lane(pf_model *m, int other, int64_t start, int64_t end) {
  int n = other ? m->n_other : m->n_lanes;
  for (int k = 0; k < n; k++) {
    pf_lane *ln = other ? &m->other[k] : &m->lanes[k];
    if (!close_until(m, ln, start)) return NULL;
    if (!ln->n || (other && ln->st[ln->n - 1].end_ps >= end)) return ln;
  }
  pf_lane *ln = lane_at(m, other, n);
  if (!ln) oom(m);
  return ln;
}

static int handle(pf_model *m, const pf_item *it) {
  if (it->ev.duration_ps == 0) {
    if (!close_until(m, &m->lanes[0], it->start_ps)) return 0;
    return place(m, &m->lanes[0], it, NULL, NULL);
  }
  const xp_event_meta *em;
  xp_str name;
  if (!xp_analysis_event(m->pl, &it->ev, &em, &name)) {
    pf_lane *ln = free_lane(m, 1, it->start_ps, it->end_ps);
    return ln && place(m, ln, it, NULL, NULL);
  }
  while (m->n_spec && m->spec[m->n_spec - 1].end_ps <= it->start_ps) m->n_spec--;
  while (m->n_spec && m->spec[m->n_spec - 1].end_ps < it->end_ps) m->n_spec--;
  pf_open parent;
  int has_parent = m->n_spec > 0, annotate = 0;
  pf_lane *ln = NULL;
  if (has_parent) {
    parent = m->spec[m->n_spec - 1];
    pf_lane *pl = &m->lanes[parent.lane];
    if (!close_until(m, pl, it->start_ps)) return 0;
    if (pl->n && pl->st[pl->n - 1].ordinal == parent.ordinal) ln = pl;
    else annotate = 1;
  }
  if (!ln && !(ln = free_lane(m, 0, it->start_ps, it->end_ps))) return 0;
  if (!xp_grow32((void **)&m->spec, &m->cap_spec, m->n_spec + 1, sizeof(pf_open))) return oom(m);
  return place(m, ln, it, annotate ? &parent : NULL, &m->spec[m->n_spec++]);
}

static void thread_free(pf_model *m) {
  for (int k = 0; k < m->n_lanes; k++) {
    xp_free(m->lanes[k].st);
    xp_free(m->lanes[k].name);
  }
  for (int k = 0; k < m->n_other; k++) {
    xp_free(m->other[k].st);
    xp_free(m->other[k].name);
  }
  m->n_lanes = m->n_other = m->n_spec = 0;
  xp_free(m->thread_name);
  m->thread_name = NULL;
}

typedef struct named_line {
  xp_str name; /* as SQL reads the category: up to a NUL, ill-formed UTF-8 repaired */
  int32_t line;
  int ill_formed; /* name (up to the NUL) is not UTF-8: repaired below */
} named_line;

static int by_line_name(const void *a, const void *b) {
  return xp_str_cmp(((const named_line *)a)->name, ((const named_line *)b)->name);
}

/* Flags LINE_SHARED on the lines of one thread whose name (their slices'
** category) reads in SQL as another of its lines' does: the trace's text
** stops at a NUL byte and has ill-formed UTF-8 repaired (U+FFFD), so "a"
** 0xff and "a" U+FFFD are alike, as are "b" NUL "x" and "b" NUL "y". */
static int mark_shared(pf_model *m, const int32_t *lines, int n) {
  if (n < 2) return 1;
  named_line *v = xp_malloc(sizeof(named_line) * (uint64_t)n);
  if (!v) return oom(m);
  size_t room = 0; /* for the repairs: 3 bytes per byte of an ill-formed name at most */
  for (int k = 0; k < n; k++) {
    xp_str nm = m->pl->lines[lines[k]].name;
    const char *z = nm.n ? memchr(nm.p, 0, nm.n) : NULL;
    if (z) nm.n = (size_t)(z - nm.p);
    v[k].ill_formed = xp_utf8_valid_prefix(nm.p, nm.n) != nm.n;
    if (v[k].ill_formed) room += 3 * nm.n;
    v[k].name = nm, v[k].line = lines[k];
  }
  char *fix = room ? xp_malloc(room) : NULL, *f = fix;
  if (room && !fix) {
    xp_free(v);
    return oom(m);
  }
  for (int k = 0; room && k < n; k++)
    if (v[k].ill_formed) { /* the repaired text, in fix */
      size_t r = xp_utf8_repair(f, v[k].name.p, v[k].name.n);
      v[k].name.p = f, v[k].name.n = r;
      f += r;
    }
  qsort(v, (size_t)n, sizeof(named_line), by_line_name);
  for (int k = 1; k < n; k++)
    if (by_line_name(&v[k - 1], &v[k]) == 0) {
      m->line_flags[v[k - 1].line] |= LINE_SHARED;
      m->line_flags[v[k].line] |= LINE_SHARED;
    }
  xp_free(v);
  xp_free(fix);
  return 1;
}

/* One thread: the lines `lines[0..n)` of the current plane (one track key). */
static int emit_thread(pf_model *m, const int32_t *lines, int n) {
  if (!mark_shared(m, lines, n)) return 0;
  const xp_line *first = &m->pl->lines[lines[0]];
  xp_str label = first->display_name.n ? first->display_name : first->name;
  m->thread_name = label.n ? xp_mprintf("%.*s", (int)label.n, label.p) : xp_mprintf("xline:%d", lines[0]);
  if (!m->thread_name || m->n_tids >= INT32_MAX - PF_TID_BASE || !xp_grow32((void **)&m->lanes, &m->cap_lanes, 1, sizeof(pf_lane)))
    return oom(m);
  pf_lane *ln = &m->lanes[0];
  memset(ln, 0, sizeof(*ln));
  m->n_lanes = 1;
  ln->t.uuid = m->next_uuid++;
  ln->t.upid = m->upid;
  ln->t.utid = m->next_utid++;
  ln->t.pid = m->pid;
  ln->t.tid = ln->t.json_tid = (int32_t)(PF_TID_BASE + m->n_tids++);
  ln->t.plane_index = m->plane_index;
  ln->t.line_index = lines[0];
  ln->t.name = ln->t.thread_name = m->thread_name;
  m->counts.threads++;
  if (!emit_track(m, ln)) return 0;
  pf_source src;
  pf_item it;
  int ok = source_open(m, lines, n, &src);
  while (ok && source_next(&src, &it)) ok = handle(m, &it);
  for (int k = 0; ok && k < m->n_lanes; k++) ok = close_until(m, &m->lanes[k], INT64_MAX);
  for (int k = 0; ok && k < m->n_other; k++) ok = close_until(m, &m->other[k], INT64_MAX);
  source_free(&src);
  return ok;
}

/* A name as the trace shows it (takes `name`, returns a xp_malloc'd
** string, NULL when out of memory): merged mode prefixes `[<host>] `, a `]`
** in the host written `)` so that the prefix stays parseable. */
static char *trace_name(const pf_model *m, const char *host, char *name) {
  if (!name || !m->merged) return name;
  char *h = xp_mprintf("[%s] %s", host, name);
  for (char *c = h ? h + 1 : NULL; c && *c && c - h <= (ptrdiff_t)strlen(host); c++)
    if (*c == ']') *c = ')';
  xp_free(name);
  return h;
}

static int emit_plane(pf_model *m, int32_t pi, const char *host) {
  const xp_plane *pl = &m->p->planes[pi];
  m->pl = pl;
  m->plane_index = pi;
  if (m->n_processes >= PF_TID_BASE - 1) {
    *m->errmsg = xp_mprintf("more than %d planes in one trace", PF_TID_BASE - 1);
    return 0;
  }
  pf_process pr;
  memset(&pr, 0, sizeof(pr));
  pr.uuid = m->next_uuid++;
  pr.pid = m->pid = ++m->n_processes;
  pr.upid = m->upid = m->next_upid++;
  pr.main_utid = m->next_utid++;
  pr.plane_index = pi;
  char *name = trace_name(m, host, pl->name.n ? xp_mprintf("%.*s", (int)pl->name.n, pl->name.p)
                                              : xp_mprintf("xplane:%d", pi));
  if (!name) return oom(m);
  pr.name = name;
  m->counts.processes++;
  int ok = m->sink.process(m->sink.ctx, &pr, m->errmsg);
  xp_free(name);
  if (!ok) return 0;
  /* one thread per track (xp_plane_tracks: the lines sharing a key) */
  int32_t *lines = xp_malloc(sizeof(int32_t) * ((uint64_t)pl->n_lines + 1));
  int32_t *starts = xp_malloc(sizeof(int32_t) * ((uint64_t)pl->n_lines + 1));
  xp_free(m->line_flags);
  m->line_flags = xp_malloc((uint64_t)pl->n_lines + 1);
  int32_t n_tracks = lines && starts && m->line_flags ? xp_plane_tracks(pl, lines, starts) : -1;
  if (n_tracks < 0) ok = oom(m);
  else memset(m->line_flags, 0, (size_t)pl->n_lines + 1);
  for (int32_t t = 0; ok && t < n_tracks; t++) {
    ok = emit_thread(m, lines + starts[t], starts[t + 1] - starts[t]);
    thread_free(m);
  }
  xp_free(lines);
  xp_free(starts);
  return ok;
}

/* ---- the source record ---- */

typedef struct line_bound {
  int64_t lo; /* no converted start of the line is below it */
  const xp_line *ln;
} line_bound;

static int by_bound(const void *a, const void *b) {
  int64_t x = ((const line_bound *)a)->lo, y = ((const line_bound *)b)->lo;
  return x < y ? -1 : x > y;
}

/* *out = the earliest start (ps) of an event the model converts (classify()
** == 1), INT64_MAX when none; returns 0 when out of memory. The index bounds each
** line (its earliest start, when no start of the line wraps around int64):
** lines are read in the order of their bounds, each only until an event
** converted at its bound (usually its first), and none once the best start
** found is at most the next bound. */
static int earliest_start(const xp_profile *p, int64_t *out) {
  int64_t n = 0, k = 0, best = INT64_MAX;
  for (int32_t i = 0; i < p->n_planes; i++) n += p->planes[i].n_lines;
  line_bound *b = xp_malloc(sizeof(line_bound) * ((uint64_t)n + 1));
  if (!b) return 0;
  for (int32_t i = 0; i < p->n_planes; i++)
    for (int32_t j = 0; j < p->planes[i].n_lines; j++) {
      const xp_line *ln = &p->planes[i].lines[j];
      if (!ln->n_timed) continue;
      int64_t lo_off = (int64_t)((uint64_t)ln->min_start_ps - (uint64_t)ln->base_ps);
      int64_t hi_off = (int64_t)((uint64_t)ln->max_start_ps - (uint64_t)ln->base_ps), x;
      int wraps = __builtin_add_overflow(lo_off, ln->base_ps, &x) || __builtin_add_overflow(hi_off, ln->base_ps, &x);
      b[k].lo = wraps ? INT64_MIN : ln->min_start_ps;
      b[k++].ln = ln;
    }
  if (k) qsort(b, (size_t)k, sizeof(line_bound), by_bound);
  for (int64_t i = 0; i < k && b[i].lo < best; i++) {
    xp_event_iter it;
    xp_event ev;
    int64_t start, end;
    xp_events_begin(p, b[i].ln, &it);
    while (xp_events_next(&it, &ev)) {
      if (classify(b[i].ln, &ev, &start, &end) != 1) continue;
      if (start < best) best = start;
      if (start <= b[i].lo) break;
    }
  }
  xp_free(b);
  *out = best;
  return 1;
}

/* The rows of xplane_hlo_op_paths for the profile (the HloProto files beside
** it, core/hlo.h) as a JSON array [{"name", "kernel", "tf_op_path",
** "votes"}], in the table's order, into *out (xp_free it); *out NULL when
** there are none. 0 on a bad HloProto (the message in m->errmsg) or OOM. */
static int hlo_op_paths_json(pf_model *m, const xp_file *f, xp_profile *p, char **out) {
  *out = NULL;
  xp_hlo_kernel_path *map = NULL;
  int64_t n_map = 0;
  xp_hlo_op_path *rows = NULL;
  char *err = NULL;
  int64_t n = xp_hlo_op_paths(p, f->path, &map, &n_map, &rows, &err);
  int ok = 1;
  if (n < 0) {
    if (err) *m->errmsg = xp_mprintf("%s: %s", f->path, err);
    else oom(m);
    ok = 0;
  } else if (n > 0) {
    xp_buf *b = xp_buf_new();
    xp_buf_appendall(b, "[");
    for (int64_t i = 0; i < n; i++) {
      xp_buf_appendall(b, i ? ",{\"name\":" : "{\"name\":");
      xp_json_string(b, rows[i].name.p, rows[i].name.n);
      xp_buf_appendall(b, ",\"kernel\":");
      xp_json_string(b, rows[i].kernel, strlen(rows[i].kernel));
      xp_buf_appendall(b, ",\"tf_op_path\":");
      xp_json_string(b, rows[i].path, strlen(rows[i].path));
      xp_buf_appendf(b, ",\"votes\":%lld}", (long long)rows[i].votes);
    }
    xp_buf_appendall(b, "]");
    if (!(*out = xp_buf_finish(b))) ok = oom(m);
  }
  xp_free(err);
  xp_free(rows);
  xp_hlo_kernel_paths_free(map, n_map);
  return ok;
}

/* The annotations of the source record: the file's xplane_files and
** xplane_space columns (NULL ones left out), and the profile's HLO-proto
** rewrite (hlo_op_paths, when it has one). */
static int source_args(pf_model *m, const xp_file *f, const xp_space *s, const char *hlo_op_paths, int *n_out) {
  if (!xp_grow32((void **)&m->args, &m->cap_args, 24, sizeof(pf_arg))) return oom(m);
  pf_arg *a = m->args;
  int n = 0;
  arg_text(&a[n++], "xplane.source.file", f->path);
  arg_text(&a[n++], "xplane.source.run", f->run);
  arg_text(&a[n++], "xplane.source.host", f->host);
  arg_int(&a[n++], "xplane.source.size", f->size);
  arg_int(&a[n++], "xplane.source.mtime_ns", f->mtime_ns);
  arg_text(&a[n++], "xplane.source.file_source_format",
           xp_source_format_name(f->is_json ? XP_SOURCE_TRACE_JSON : XP_SOURCE_XPLANE_PB));
  arg_int(&a[n++], "xplane.source.n_planes", s->n_planes);
  arg_int(&a[n++], "xplane.source.n_lines", s->n_lines);
  arg_int(&a[n++], "xplane.source.n_events", s->n_events);
  arg_int(&a[n++], "xplane.source.n_threads", s->n_threads);
  arg_text(&a[n++], "xplane.source.hostnames", s->hostnames);
  arg_text(&a[n++], "xplane.source.errors", s->errors);
  arg_text(&a[n++], "xplane.source.warnings", s->warnings);
  if (s->has_start_time) arg_int(&a[n++], "xplane.source.profile_start_time_ns", s->profile_start_time_ns);
  if (s->has_stop_time) arg_int(&a[n++], "xplane.source.profile_stop_time_ns", s->profile_stop_time_ns);
  arg_int(&a[n++], "xplane.source.time_base_ns", s->time_base_ns);
  arg_text(&a[n++], "xplane.source.sha256", s->sha256);
  arg_text(&a[n++], "xplane.source.source_format", s->source_format);
  arg_text(&a[n++], "xplane.source.source_file", s->source_file);
  if (s->has_trace_events) arg_int(&a[n++], "xplane.source.trace_events", s->trace_events);
  if (s->display_time_unit) arg_text(&a[n++], "xplane.source.display_time_unit", s->display_time_unit);
  if (hlo_op_paths) arg_text(&a[n++], "xplane.source.hlo_op_paths", hlo_op_paths);
  *n_out = n;
  return 1;
}

/* A record instant of the converter (category `xplane`) named `name` on
** track t at start_ps, numbered next; its args are the caller's. */
static void record_instant(pf_model *m, pf_event *e, const pf_track *t, int64_t start_ps, const char *name) {
  static const char category[] = "xplane";
  memset(e, 0, sizeof(*e));
  e->type = PF_INSTANT;
  e->track = t;
  e->ts_ns = e->end_ns = start_ps / 1000;
  e->start_ps = start_ps;
  e->has_name = 1;
  e->name.p = name;
  e->name.n = strlen(name);
  e->category.p = category;
  e->category.n = sizeof(category) - 1;
  e->ordinal = m->ordinal++;
  e->parent_ordinal = -1;
}

/* Whether trace processor stores a stat called `name` under the key
** debug.<want> (pf_key_char: `tf.op` arrives as debug.tf_op too). */
static int stored_as(xp_str name, const char *want) {
  size_t n = strlen(want);
  if (name.n != n) return 0;
  for (size_t i = 0; i < n; i++)
    if (pf_key_char(name.p[i]) != want[i]) return 0;
  return 1;
}

/* Whether some event of the plane may carry a stat that trace processor
** stores as debug.tf_op or debug.name: the plane's stat metadata names one
** (an event's stats, its own and its metadata's, are named by that
** metadata; an id it lacks is written `#<id>`). */
static int plane_has_tf_op_or_name(const xp_plane *pl) {
  for (int32_t i = 0; i < pl->n_smeta; i++)
    if (stored_as(pl->smeta[i].name, "tf_op") || stored_as(pl->smeta[i].name, "name")) return 1;
  return 0;
}

/* The plane records: one instant `xplane.plane` per plane, on the source
** record's track at its time, annotated with xplane.plane.plane_index,
** xplane.plane.plane_id, xplane.plane.plane_name, xplane.plane.pid (the pid
** of the plane's process: emit_plane numbers them in plane order after the
** earlier profiles' ones), xplane.plane.tf_op_or_name_stat
** (plane_has_tf_op_or_name) and every plane stat under its own name (as
** events carry theirs). */
static int emit_plane_records(pf_model *m, xp_profile *p, const pf_track *t, int64_t start_ps) {
  static const char name[] = "xplane.plane";
  xp_statvec sv = {0};
  int ok = 1;
  for (int32_t pi = 0; ok && pi < p->n_planes; pi++) {
    const xp_plane *pl = &p->planes[pi];
    sv.n = 0;
    if (!xp_plane_stats(p, pl, &sv)) {
      ok = oom(m);
      break;
    }
    pf_event e;
    record_instant(m, &e, t, start_ps, name);
    if (m->sink.want_args) {
      if (!xp_grow32((void **)&m->args, &m->cap_args, sv.n + 5, sizeof(pf_arg))) {
        ok = oom(m);
        break;
      }
      size_t need = 1;
      for (int i = 0; i < sv.n; i++) {
        if (sv.v[i].type == XP_V_BYTES) need += 2 * sv.v[i].s.n;
        if (!sv.v[i].name.n) need += 24;
      }
      char *ar = arena_reserve(m, need);
      if (!ar) {
        ok = oom(m);
        break;
      }
      int n = 0;
      arg_int(&m->args[n++], "xplane.plane.plane_index", pi);
      arg_int(&m->args[n++], "xplane.plane.plane_id", pl->id);
      arg_str(&m->args[n++], "xplane.plane.plane_name", pl->name);
      arg_int(&m->args[n++], "xplane.plane.pid", (int64_t)m->n_processes + pi + 1);
      arg_int(&m->args[n++], "xplane.plane.tf_op_or_name_stat", plane_has_tf_op_or_name(pl));
      e.n_args = stat_args(m, &sv, n, ar);
      e.args = m->args;
    }
    m->counts.plane_records++;
    ok = m->sink.event(m->sink.ctx, &e, m->errmsg);
  }
  xp_statvec_free(&sv);
  return ok;
}

/* The profile's provenance: an instant `xplane.source` on a global track of
** its own, at the earliest converted slice, then its plane records. */
static int emit_source(pf_model *m, const xp_file *f, xp_profile *p) {
  static const char name[] = "xplane.source";
  int64_t start;
  if (!earliest_start(p, &start)) return oom(m);
  if (start == INT64_MAX) start = 0;
  pf_track t;
  memset(&t, 0, sizeof(t));
  t.uuid = m->next_uuid++;
  t.global = 1;
  t.upid = t.utid = -1;
  t.plane_index = t.line_index = -1;
  char *track_name = trace_name(m, f->host, xp_mprintf("xplane source"));
  if (!track_name) return oom(m);
  t.name = track_name;
  pf_event e;
  record_instant(m, &e, &t, start, name);
  xp_space s;
  memset(&s, 0, sizeof(s));
  int ok = 1;
  char *paths = NULL;
  if (m->sink.want_args) {
    ok = xp_space_get(p, 1, &s, m->errmsg) && hlo_op_paths_json(m, f, p, &paths) &&
         source_args(m, f, &s, paths, &e.n_args);
    e.args = m->args;
  }
  m->counts.sources++;
  ok = ok && m->sink.track(m->sink.ctx, &t, m->errmsg) && m->sink.event(m->sink.ctx, &e, m->errmsg);
  ok = ok && emit_plane_records(m, p, &t, start);
  xp_free(paths);
  xp_space_free(&s);
  xp_free(track_name);
  return ok;
}

pf_model *pf_model_new(const pf_sink *sink, int merged) {
  pf_model *m = xp_malloc(sizeof(*m));
  if (!m) return NULL;
  memset(m, 0, sizeof(*m));
  m->sink = *sink;
  m->merged = merged;
  m->next_uuid = 1;
  m->next_upid = 1; /* upid/utid 0: trace processor's placeholders */
  m->next_utid = 1;
  return m;
}

int pf_model_add(pf_model *m, const xp_file *f, xp_profile *p, char **errmsg) {
  *errmsg = NULL;
  m->errmsg = errmsg;
  m->p = p;
  int ok = emit_source(m, f, p);
  for (int32_t pi = 0; ok && pi < p->n_planes; pi++) ok = emit_plane(m, pi, f->host);
  thread_free(m);
  m->host_ordinal++;
  if (!ok && !*errmsg) *errmsg = xp_mprintf("out of memory");
  return ok;
}

const pf_counts *pf_model_counts(const pf_model *m) { return &m->counts; }

void pf_model_free(pf_model *m) {
  if (!m) return;
  thread_free(m);
  xp_free(m->lanes);
  xp_free(m->other);
  xp_free(m->spec);
  xp_free(m->line_flags);
  xp_free(m->args);
  xp_free(m->arena);
  xp_statvec_free(&m->sv);
  xp_free(m);
}
