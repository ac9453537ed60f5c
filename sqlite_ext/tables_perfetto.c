/*
** tables_perfetto.c: a profile as trace processor's tables, from the same
** mapping the converter writes (tp_plugin/pf_model.h), so SQL written for
** trace processor (the PerfettoSQL package tp_plugin/xplane) runs here too.
**
**   CREATE TEMP VIEW slice AS SELECT id, ts, dur, track_id, category, name,
**     depth, parent_id, arg_set_id FROM xplane_pf_slice('host0.xplane.pb');
**   -- likewise thread_track, thread, process, args
**
**   xplane_pf_slice        id, ts, dur, track_id, category, name, depth,
**                          parent_id, arg_set_id
**   xplane_pf_thread_track id, name, utid
**   xplane_pf_thread       utid, tid, name, upid
**   xplane_pf_process      upid, pid, name
**   xplane_pf_args         id, arg_set_id, key, int_value, string_value,
**                          real_value, value_type
**   xplane_pf_flow         id, slice_out, slice_in
**
** Each profile is one trace (ids restart per file; per-host conversion).
** Modelled on trace processor's import: slice ids in the order it inserts
** slices (BEGIN/INSTANT packets sorted by (ts, position in the file));
** depth/parent_id by strict nesting per track (pf_model's lanes); thread
** tracks numbered by first use, and only the used ones; upid/utid 0 are its
** placeholder rows and every process gets a main-thread row (tid = pid, no
** name); the root track of a thread has no name, an overlap lane its own.
** The source record (`xplane.source`, pf_model.h) is a slice too, on a
** global track: it takes a track id like any track but, being no thread's,
** is not in xplane_pf_thread_track (trace processor's thread_track), and
** its args are the file's xplane_files / xplane_space columns.
** Arg keys are `debug.<annotation>`, value_type int/uint/real/string, one
** arg set per slice (arg_set_id = the slice id here; trace processor draws
** arg set ids from its own sequence); arg ids in import order (slice id,
** then the annotation's position). Flows as trace processor's FlowTracker
** links the slices that share a flow id: each to the previous one in
** import order, flow ids in the order of their incoming slice. Rows are
** built per scan, in memory.
*/
#include <stdlib.h>
#include <string.h>

#include "pf_model.h"
#include "tables.h"

SQLITE_EXTENSION_INIT3

typedef struct pfc_slice {
  int64_t ts, dur, parent_ordinal, arg_lo;
  int32_t track, depth, n_args, has_name, has_flow;
  uint64_t flow_id;
  xp_str name, category;
} pfc_slice;

typedef struct pfc_track {
  int64_t id, utid; /* id -1: never used */
  int64_t name;     /* pool offset, -1 = NULL */
  int global;       /* not a thread track (the source record's) */
} pfc_track;

typedef struct pfc_row3 {  /* thread (utid, tid, name, upid) and process (upid, pid, name) */
  int64_t a, b, name, c;   /* name: pool offset, -1 = NULL; c < 0 = NULL */
} pfc_row3;

typedef struct pfc_arg {
  int64_t key, str;        /* pool offsets (str -1 unless string) */
  pf_atype type;
  int64_t i;
  double d;
} pfc_arg;

typedef struct pfc_flow {  /* a flow (slice_in, slice_out), or while building (flow id, slice id) */
  uint64_t a;
  int64_t b;
} pfc_flow;

#define VEC(name, T) \
  typedef struct name { \
    T *v;                 \
    int64_t n, cap;       \
  } name
VEC(slice_vec, pfc_slice);
VEC(track_vec, pfc_track);
VEC(int_vec, int32_t);
VEC(row3_vec, pfc_row3);
VEC(arg_vec, pfc_arg);
VEC(char_vec, char);
VEC(flow_vec, pfc_flow);

typedef struct pf_state {
  int want_args;
  slice_vec slices;        /* by ordinal */
  track_vec tracks;
  int_vec track_of_uuid;
  row3_vec threads, processes;
  arg_vec args;
  flow_vec flows;          /* xplane_pf_flow: (slice_out, slice_in) by id */
  char_vec pool;
  int64_t *order;          /* slice ordinals by id */
  int64_t *id_of;          /* id by ordinal */
  int64_t *track_rows;     /* the thread tracks' indexes, by track id */
  int64_t n_track_rows;
  int64_t i;               /* current row */
  int64_t k;               /* current arg within the slice (args table) */
  int64_t arg_id;          /* id of the current arg */
} pf_state;

/* Make room for `more` elements of `size` bytes in a vector (v, n, cap). */
static int vec_reserve(void **v, int64_t n, int64_t *cap, int64_t more, size_t size) {
  return xp_grow(v, cap, n + more, size);
}
/* A pointer to a new last element of vector `vec`, NULL on OOM. */
#define PUSH(vec) \
  (vec_reserve((void **)&(vec).v, (vec).n, &(vec).cap, 1, sizeof(*(vec).v)) ? &(vec).v[(vec).n++] : NULL)

/* Copy prefix + p[0..n) into the pool; its offset, or -1 on OOM. */
static int64_t pool_add(pf_state *st, const char *prefix, const char *p, size_t n) {
  size_t k = strlen(prefix);
  int64_t off = st->pool.n;
  if (!vec_reserve((void **)&st->pool.v, st->pool.n, &st->pool.cap, (int64_t)(k + n + 1), 1)) return -1;
  memcpy(st->pool.v + off, prefix, k);
  if (n) memcpy(st->pool.v + off + k, p, n);
  st->pool.v[off + (int64_t)(k + n)] = 0;
  st->pool.n += (int64_t)(k + n + 1);
  return off;
}

static void state_reset(pf_state *st) {
  xp_free(st->slices.v);
  xp_free(st->tracks.v);
  xp_free(st->track_of_uuid.v);
  xp_free(st->threads.v);
  xp_free(st->processes.v);
  xp_free(st->args.v);
  xp_free(st->flows.v);
  xp_free(st->pool.v);
  xp_free(st->order);
  xp_free(st->id_of);
  xp_free(st->track_rows);
  int want = st->want_args;
  memset(st, 0, sizeof(*st));
  st->want_args = want;
}

static void state_free(xp_cursor *cur) { state_reset(cur->state); }

static int nomem(char **errmsg) {
  *errmsg = xp_mprintf("out of memory");
  return 0;
}

static int add_row3(row3_vec *v, pf_state *st, int64_t a, int64_t b, const char *name, int64_t c) {
  pfc_row3 *r = PUSH(*v);
  if (!r) return 0;
  r->a = a, r->b = b, r->c = c;
  r->name = name ? pool_add(st, "", name, strlen(name)) : -1;
  return !name || r->name >= 0;
}

static int on_process(void *ctx, const pf_process *p, char **errmsg) {
  pf_state *st = ctx;
  if (!add_row3(&st->processes, st, p->upid, p->pid, p->name, 0) ||
      !add_row3(&st->threads, st, p->main_utid, p->pid, NULL, p->upid))
    return nomem(errmsg);
  return 1;
}

static int on_track(void *ctx, const pf_track *t, char **errmsg) {
  pf_state *st = ctx;
  if (!t->parent_uuid && !t->global && !add_row3(&st->threads, st, t->utid, t->tid, t->thread_name, t->upid))
    return nomem(errmsg);
  while (st->track_of_uuid.n <= (int64_t)t->uuid) {
    int32_t *x = PUSH(st->track_of_uuid);
    if (!x) return nomem(errmsg);
    *x = -1;
  }
  pfc_track *tr = PUSH(st->tracks);
  if (!tr) return nomem(errmsg);
  st->track_of_uuid.v[t->uuid] = (int32_t)(st->tracks.n - 1);
  tr->id = -1;
  tr->utid = t->utid;
  tr->global = t->global;
  int named = t->parent_uuid || t->global; /* a thread's own track has no name */
  tr->name = named ? pool_add(st, "", t->name, strlen(t->name)) : -1;
  return !named || tr->name >= 0 ? 1 : nomem(errmsg);
}

static int on_event(void *ctx, const pf_event *e, char **errmsg) {
  pf_state *st = ctx;
  if (e->type == PF_END) return 1;
  pfc_slice *s = PUSH(st->slices);
  if (!s) return nomem(errmsg);
  s->ts = e->ts_ns;
  s->dur = e->type == PF_BEGIN ? e->end_ns - e->ts_ns : 0;
  s->parent_ordinal = e->parent_ordinal;
  s->track = st->track_of_uuid.v[e->track->uuid];
  s->depth = e->depth;
  s->has_name = e->has_name;
  s->has_flow = e->has_flow;
  s->flow_id = e->flow_id;
  s->name = e->name;
  s->category = e->category;
  s->arg_lo = st->args.n;
  s->n_args = e->n_args;
  for (int i = 0; i < e->n_args; i++) {
    const pf_arg *a = &e->args[i];
    pfc_arg *r = PUSH(st->args);
    if (!r) return nomem(errmsg);
    r->type = a->type;
    r->i = a->type == PF_A_UINT ? (int64_t)a->v.u : a->v.i;
    r->d = a->v.d;
    r->key = pool_add(st, "debug.", a->name.p, a->name.n);
    r->str = a->type == PF_A_STRING ? pool_add(st, "", a->s.p, a->s.n) : -1;
    if (r->key < 0 || (a->type == PF_A_STRING && r->str < 0)) return nomem(errmsg);
  }
  return 1;
}

/* qsort has no context argument: sort (ts, ordinal) pairs. */
typedef struct ts_ord {
  int64_t ts, ordinal;
} ts_ord;

static int by_ts_ordinal(const void *a, const void *b) {
  const ts_ord *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal;
}

/* Run the model over cur->prof and number everything as trace processor. */
static int build(xp_cursor *cur) {
  pf_state *st = cur->state;
  state_reset(st);
  pf_sink sink = {st, on_process, on_track, on_event, st->want_args};
  pf_model *m = pf_model_new(&sink, 0);
  char *err = NULL;
  /* upid/utid 0: trace processor's placeholders */
  int ok = m && add_row3(&st->processes, st, 0, 0, NULL, 0) &&
           add_row3(&st->threads, st, 0, 0, NULL, -1) && pf_model_add(m, cur->file, cur->prof, &err);
  pf_model_free(m);
  if (!ok) {
    int rc = xp_cursor_error(cur, "%s: %s", cur->file->path, err ? err : "out of memory");
    xp_free(err);
    return rc;
  }
  int64_t n = st->slices.n;
  st->order = xp_malloc(sizeof(int64_t) * (uint64_t)(n + 1));
  st->id_of = xp_malloc(sizeof(int64_t) * (uint64_t)(n + 1));
  st->track_rows = xp_malloc(sizeof(int64_t) * (uint64_t)(st->tracks.n + 1));
  ts_ord *keys = xp_malloc(sizeof(ts_ord) * (uint64_t)(n + 1));
  if (!st->order || !st->id_of || !st->track_rows || !keys) {
    xp_free(keys);
    return SQLITE_NOMEM;
  }
  for (int64_t i = 0; i < n; i++) keys[i].ts = st->slices.v[i].ts, keys[i].ordinal = i;
  if (n) qsort(keys, (size_t)n, sizeof(ts_ord), by_ts_ordinal);
  for (int64_t i = 0; i < n; i++) st->order[i] = keys[i].ordinal;
  xp_free(keys);
  int64_t n_ids = 0; /* every used track takes an id; thread tracks are listed */
  for (int64_t id = 0; id < n; id++) {
    st->id_of[st->order[id]] = id;
    pfc_track *t = &st->tracks.v[st->slices.v[st->order[id]].track];
    if (t->id < 0) {
      t->id = n_ids++;
      if (!t->global) st->track_rows[st->n_track_rows++] = st->slices.v[st->order[id]].track;
    }
  }
  return SQLITE_OK;
}

static void result_pool(sqlite3_context *ctx, const pf_state *st, int64_t off) {
  if (off >= 0) sqlite3_result_text(ctx, st->pool.v + off, -1, SQLITE_TRANSIENT);
}

static int rows_next(xp_cursor *cur, int64_t n) {
  pf_state *st = cur->state;
  cur->file_eof = ++st->i >= n;
  return SQLITE_OK;
}

/* ---- xplane_pf_slice ---- */

enum { SL_ID = XP_COL_FIRST_OWN, SL_TS, SL_DUR, SL_TRACK_ID, SL_CATEGORY, SL_NAME, SL_DEPTH, SL_PARENT_ID,
       SL_ARG_SET_ID, SL_N };
static const char *const slice_cols[] = {"id INTEGER", "ts INTEGER", "dur INTEGER", "track_id INTEGER",
                                         "category TEXT", "name TEXT", "depth INTEGER", "parent_id INTEGER",
                                         "arg_set_id INTEGER"};

static int slice_first(xp_cursor *cur) {
  pf_state *st = cur->state;
  int rc = build(cur);
  cur->file_eof = st->slices.n == 0;
  return rc;
}

static int slice_next(xp_cursor *cur) { return rows_next(cur, ((pf_state *)cur->state)->slices.n); }

static int slice_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  pf_state *st = cur->state;
  const pfc_slice *s = &st->slices.v[st->order[st->i]];
  switch (col) {
    case SL_ID:
    case SL_ARG_SET_ID: sqlite3_result_int64(ctx, st->i); break;
    case SL_TS: sqlite3_result_int64(ctx, s->ts); break;
    case SL_DUR: sqlite3_result_int64(ctx, s->dur); break;
    case SL_TRACK_ID: sqlite3_result_int64(ctx, st->tracks.v[s->track].id); break;
    case SL_CATEGORY: xp_result_str(ctx, s->category); break;
    case SL_NAME: if (s->has_name) xp_result_str(ctx, s->name); break;
    case SL_DEPTH: sqlite3_result_int(ctx, s->depth); break;
    case SL_PARENT_ID: if (s->parent_ordinal >= 0) sqlite3_result_int64(ctx, st->id_of[s->parent_ordinal]); break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_pf_slice = {
    .name = "xplane_pf_slice",
    .columns = slice_cols,
    .n_columns = SL_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .state_size = sizeof(pf_state),
    .first = slice_first,
    .next = slice_next,
    .column = slice_column,
    .state_free = state_free,
};

/* ---- xplane_pf_thread_track ---- */

enum { TT_ID = XP_COL_FIRST_OWN, TT_NAME, TT_UTID, TT_N };
static const char *const thread_track_cols[] = {"id INTEGER", "name TEXT", "utid INTEGER"};

static int thread_track_first(xp_cursor *cur) {
  pf_state *st = cur->state;
  int rc = build(cur);
  cur->file_eof = st->n_track_rows == 0;
  return rc;
}

static int thread_track_next(xp_cursor *cur) { return rows_next(cur, ((pf_state *)cur->state)->n_track_rows); }

static int thread_track_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  pf_state *st = cur->state;
  const pfc_track *t = &st->tracks.v[st->track_rows[st->i]];
  switch (col) {
    case TT_ID: sqlite3_result_int64(ctx, t->id); break;
    case TT_NAME: result_pool(ctx, st, t->name); break;
    case TT_UTID: sqlite3_result_int64(ctx, t->utid); break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_pf_thread_track = {
    .name = "xplane_pf_thread_track",
    .columns = thread_track_cols,
    .n_columns = TT_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .state_size = sizeof(pf_state),
    .first = thread_track_first,
    .next = thread_track_next,
    .column = thread_track_column,
    .state_free = state_free,
};

/* ---- xplane_pf_thread and xplane_pf_process ---- */

enum { TH_UTID = XP_COL_FIRST_OWN, TH_TID, TH_NAME, TH_UPID, TH_N };
static const char *const thread_cols[] = {"utid INTEGER", "tid INTEGER", "name TEXT", "upid INTEGER"};

static int thread_first(xp_cursor *cur) {
  pf_state *st = cur->state;
  int rc = build(cur);
  cur->file_eof = st->threads.n == 0;
  return rc;
}

static int thread_next(xp_cursor *cur) { return rows_next(cur, ((pf_state *)cur->state)->threads.n); }

static int thread_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  pf_state *st = cur->state;
  const pfc_row3 *r = &st->threads.v[st->i];
  switch (col) {
    case TH_UTID: sqlite3_result_int64(ctx, r->a); break;
    case TH_TID: sqlite3_result_int64(ctx, r->b); break;
    case TH_NAME: result_pool(ctx, st, r->name); break;
    case TH_UPID: if (r->c >= 0) sqlite3_result_int64(ctx, r->c); break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_pf_thread = {
    .name = "xplane_pf_thread",
    .columns = thread_cols,
    .n_columns = TH_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .state_size = sizeof(pf_state),
    .first = thread_first,
    .next = thread_next,
    .column = thread_column,
    .state_free = state_free,
};

enum { PR_UPID = XP_COL_FIRST_OWN, PR_PID, PR_NAME, PR_N };
static const char *const process_cols[] = {"upid INTEGER", "pid INTEGER", "name TEXT"};

static int process_first(xp_cursor *cur) {
  pf_state *st = cur->state;
  int rc = build(cur);
  cur->file_eof = st->processes.n == 0;
  return rc;
}

static int process_next(xp_cursor *cur) { return rows_next(cur, ((pf_state *)cur->state)->processes.n); }

static int process_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  pf_state *st = cur->state;
  const pfc_row3 *r = &st->processes.v[st->i];
  switch (col) {
    case PR_UPID: sqlite3_result_int64(ctx, r->a); break;
    case PR_PID: sqlite3_result_int64(ctx, r->b); break;
    case PR_NAME: result_pool(ctx, st, r->name); break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_pf_process = {
    .name = "xplane_pf_process",
    .columns = process_cols,
    .n_columns = PR_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .state_size = sizeof(pf_state),
    .first = process_first,
    .next = process_next,
    .column = process_column,
    .state_free = state_free,
};

/* ---- xplane_pf_args ---- */

enum { AR_ID = XP_COL_FIRST_OWN, AR_ARG_SET_ID, AR_KEY, AR_INT, AR_STRING, AR_REAL, AR_VALUE_TYPE, AR_N };
static const char *const args_cols[] = {"id INTEGER", "arg_set_id INTEGER", "key TEXT", "int_value INTEGER",
                                        "string_value TEXT", "real_value REAL", "value_type TEXT"};

/* Rows: the args of slice id i, k-th of them; skip slices without args. */
static void args_seek(xp_cursor *cur) {
  pf_state *st = cur->state;
  while (st->i < st->slices.n && st->k >= st->slices.v[st->order[st->i]].n_args) st->i++, st->k = 0;
  cur->file_eof = st->i >= st->slices.n;
}

static int args_first(xp_cursor *cur) {
  pf_state *st = cur->state;
  st->want_args = 1;
  int rc = build(cur);
  args_seek(cur);
  return rc;
}

static int args_next(xp_cursor *cur) {
  ((pf_state *)cur->state)->k++;
  ((pf_state *)cur->state)->arg_id++;
  args_seek(cur);
  return SQLITE_OK;
}

static int args_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  static const char *const types[] = {"int", "uint", "real", "string"};
  pf_state *st = cur->state;
  const pfc_arg *a = &st->args.v[st->slices.v[st->order[st->i]].arg_lo + st->k];
  switch (col) {
    case AR_ID: sqlite3_result_int64(ctx, st->arg_id); break;
    case AR_ARG_SET_ID: sqlite3_result_int64(ctx, st->i); break;
    case AR_KEY: result_pool(ctx, st, a->key); break;
    case AR_INT: if (a->type == PF_A_INT || a->type == PF_A_UINT) sqlite3_result_int64(ctx, a->i); break;
    case AR_STRING: result_pool(ctx, st, a->str); break;
    case AR_REAL: if (a->type == PF_A_DOUBLE) sqlite3_result_double(ctx, a->d); break;
    case AR_VALUE_TYPE: sqlite3_result_text(ctx, types[a->type], -1, SQLITE_STATIC); break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_pf_args = {
    .name = "xplane_pf_args",
    .columns = args_cols,
    .n_columns = AR_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .state_size = sizeof(pf_state),
    .first = args_first,
    .next = args_next,
    .column = args_column,
    .state_free = state_free,
};

/* ---- xplane_pf_flow ---- */

enum { FL_ID = XP_COL_FIRST_OWN, FL_SLICE_OUT, FL_SLICE_IN, FL_N };
static const char *const flow_cols[] = {"id INTEGER", "slice_out INTEGER", "slice_in INTEGER"};

static int by_a_b(const void *x, const void *y) {
  const pfc_flow *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  return p->b < q->b ? -1 : p->b > q->b;
}

/* The flows: the slices of each flow id in id order, each linked to the
** previous one, ordered by their incoming slice (a slice has at most one
** flow id, so each slice comes in at most once). */
static int build_flows(pf_state *st) {
  flow_vec tagged = {0};
  for (int64_t id = 0; id < st->slices.n; id++) {
    const pfc_slice *s = &st->slices.v[st->order[id]];
    pfc_flow *f = s->has_flow ? PUSH(tagged) : NULL;
    if (s->has_flow && !f) {
      xp_free(tagged.v);
      return SQLITE_NOMEM;
    }
    if (f) f->a = s->flow_id, f->b = id;
  }
  if (tagged.n) qsort(tagged.v, (size_t)tagged.n, sizeof(pfc_flow), by_a_b);
  int rc = SQLITE_OK;
  for (int64_t i = 1; rc == SQLITE_OK && i < tagged.n; i++) {
    if (tagged.v[i].a != tagged.v[i - 1].a) continue;
    pfc_flow *f = PUSH(st->flows);
    if (!f) rc = SQLITE_NOMEM;
    else f->a = (uint64_t)tagged.v[i].b, f->b = tagged.v[i - 1].b; /* (in, out): sorted by in */
  }
  xp_free(tagged.v);
  if (rc == SQLITE_OK && st->flows.n) qsort(st->flows.v, (size_t)st->flows.n, sizeof(pfc_flow), by_a_b);
  return rc;
}

static int flow_first(xp_cursor *cur) {
  pf_state *st = cur->state;
  st->want_args = 1; /* flow ids come with the stats */
  int rc = build(cur);
  if (rc == SQLITE_OK) rc = build_flows(st);
  cur->file_eof = st->flows.n == 0;
  return rc;
}

static int flow_next(xp_cursor *cur) { return rows_next(cur, ((pf_state *)cur->state)->flows.n); }

static int flow_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  pf_state *st = cur->state;
  const pfc_flow *f = &st->flows.v[st->i];
  switch (col) {
    case FL_ID: sqlite3_result_int64(ctx, st->i); break;
    case FL_SLICE_OUT: sqlite3_result_int64(ctx, f->b); break;
    case FL_SLICE_IN: sqlite3_result_int64(ctx, (int64_t)f->a); break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_pf_flow = {
    .name = "xplane_pf_flow",
    .columns = flow_cols,
    .n_columns = FL_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .state_size = sizeof(pf_state),
    .first = flow_first,
    .next = flow_next,
    .column = flow_column,
    .state_free = state_free,
};
