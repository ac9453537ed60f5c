/*
** tables_perfetto.c: a profile as trace processor's tables, from the same
** mapping the converter writes, so SQL written for trace processor (the
** PerfettoSQL package tp_plugin/xplane) runs here too. The rows are those of
** tp_plugin's emulation of trace processor's import (pf_import.h, which says
** how ids, nesting, args and flows are numbered), built in memory by the
** first scan of a cursor and kept while the cursor reads the same profile
** (an inner table of a join is scanned again per outer row). `id =` and
** `arg_set_id =` seek (vtab.c's XP_P_ID / XP_P_SET): a slice by id is
** order[id] (its arg_set_id is its id), the args of a set are the slice's
** arg_lo .. arg_lo + n_args, an arg by id is found by binary search over
** the first arg id of each slice, a flow by id is row id. So
**   SELECT ... FROM xplane_pf_slice(P) s JOIN xplane_pf_args(P) a USING (arg_set_id)
** reads each arg once (tests/test_pf_seek.sh).
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
*/
#include <stdlib.h>
#include <string.h>

#include "pf_import.h"
#include "tables.h"

SQLITE_EXTENSION_INIT3

typedef struct pf_state {
  pf_import im;
  int want_args;           /* the table reads args (or flows) */
  /* What im was built from (reuse, below): a retained reference to the
  ** profile, so its address cannot be reused by another while held, and the
  ** identity of the file the source record names. */
  xp_profile *prof;        /* NULL: nothing built */
  char *path, *run, *host;
  int64_t size, mtime_ns;
  int is_json, built_args, flows_linked;
  xp_cvec arg_base;        /* args table: int64_t, the id of slice id's first arg, by id (n + 1) */
  int64_t i, end;          /* current row (slice id for the args), end of the rows to yield */
  int64_t k;               /* current arg within the slice (args table) */
  int one_arg;             /* args table: an id seek, one row */
} pf_state;

static void forget_build(pf_state *st) {
  pf_import_free(&st->im);
  xp_profile_release(st->prof);
  st->prof = NULL;
  xp_free(st->path);
  xp_free(st->run);
  xp_free(st->host);
  xp_cvec_free(&st->arg_base);
  st->path = st->run = st->host = NULL;
  st->built_args = st->flows_linked = 0;
}

static void state_free(xp_cursor *cur) { forget_build(cur->state); }

static int same_text(const char *a, const char *b) { return a && b ? strcmp(a, b) == 0 : a == b; }

/* Import cur->prof as trace processor would, unless the import held is of
** the same profile and file: SQLite scans an inner table again per outer
** row (xFilter on the same cursor), and a seek (id =, arg_set_id =) must
** not pay for an import each time. The retained reference makes pointer
** equality mean the same profile object (the cache hands out a new one when
** the file changed); the file's identity (path, run, host, size, mtime,
** format) is what the source record's args say. */
static int build(xp_cursor *cur) {
  pf_state *st = cur->state;
  const xp_file *f = cur->file;
  if (st->prof == cur->prof && st->built_args >= st->want_args && same_text(st->path, f->path) &&
      same_text(st->run, f->run) && same_text(st->host, f->host) && st->size == f->size &&
      st->mtime_ns == f->mtime_ns && st->is_json == f->is_json)
    return SQLITE_OK;
  forget_build(st);
  char *err = NULL;
  if (!pf_import_build(&st->im, f, cur->prof, st->want_args, &err)) {
    int rc = xp_cursor_error(cur, "%s: %s", f->path, err ? err : "out of memory");
    xp_free(err);
    pf_import_free(&st->im);
    return rc;
  }
  xp_cache_count_pf_import(cur->cache);
  st->path = f->path ? xp_mprintf("%s", f->path) : NULL;
  st->run = f->run ? xp_mprintf("%s", f->run) : NULL;
  st->host = f->host ? xp_mprintf("%s", f->host) : NULL;
  if ((f->path && !st->path) || (f->run && !st->run) || (f->host && !st->host)) {
    forget_build(st);
    return SQLITE_NOMEM;
  }
  st->size = f->size;
  st->mtime_ns = f->mtime_ns;
  st->is_json = f->is_json;
  st->built_args = st->want_args;
  xp_profile_retain(cur->prof);
  st->prof = cur->prof;
  return SQLITE_OK;
}

/* The rows [lo, end) of a table of n rows whose key is the row number (a
** slice's id and arg_set_id, a flow's id), narrowed by the pushed-down
** `id =` / `arg_set_id =` (when the table has that column). */
static void key_range(const xp_cursor *cur, int64_t n, int by_set, int64_t *lo, int64_t *end) {
  *lo = 0;
  *end = n;
  const xp_filter *f = &cur->f;
  int64_t want = -1;
  int has = 0;
  if (f->has_id) want = f->id, has = 1;
  if (by_set && f->has_set_id) {
    if (has && want != f->set_id) { *end = 0; return; }
    want = f->set_id, has = 1;
  }
  if (!has) return;
  if (want < 0 || want >= n) *end = 0;
  else *lo = want, *end = want + 1;
}

/* Build (or reuse) the import, then position on the first of its rows
** [0, n) that the pushed-down keys allow (by_set: arg_set_id is the row
** number too); n is read after the build. */
static int keyed_first(xp_cursor *cur, int64_t (*n_rows)(const pf_import *), int by_set) {
  pf_state *st = cur->state;
  int rc = build(cur);
  if (rc != SQLITE_OK) return rc;
  key_range(cur, n_rows(&st->im), by_set, &st->i, &st->end);
  cur->file_eof = st->i >= st->end;
  return SQLITE_OK;
}

static int64_t n_slices(const pf_import *im) { return im->slices.n; }
static int64_t n_track_rows(const pf_import *im) { return im->n_track_rows; }
static int64_t n_threads(const pf_import *im) { return im->threads.n; }
static int64_t n_processes(const pf_import *im) { return im->processes.n; }

static void result_pool(sqlite3_context *ctx, const pf_state *st, int64_t off) {
  if (off >= 0) sqlite3_result_text(ctx, pf_pool_at(&st->im.pool, off), -1, SQLITE_TRANSIENT);
}

static int rows_next(xp_cursor *cur) {
  pf_state *st = cur->state;
  cur->file_eof = ++st->i >= st->end;
  return SQLITE_OK;
}

/* ---- xplane_pf_slice ---- */

enum { SL_ID = XP_COL_FIRST_OWN, SL_TS, SL_DUR, SL_TRACK_ID, SL_CATEGORY, SL_NAME, SL_DEPTH, SL_PARENT_ID,
       SL_ARG_SET_ID, SL_N };
static const char *const slice_cols[] = {"id INTEGER", "ts INTEGER", "dur INTEGER", "track_id INTEGER",
                                         "category TEXT", "name TEXT", "depth INTEGER", "parent_id INTEGER",
                                         "arg_set_id INTEGER"};

static int slice_first(xp_cursor *cur) { return keyed_first(cur, n_slices, 1); }

static int slice_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  pf_state *st = cur->state;
  const pfc_slice *s = pf_slice_by_id(&st->im, st->i);
  switch (col) {
    case SL_ID:
    case SL_ARG_SET_ID: sqlite3_result_int64(ctx, st->i); break;
    case SL_TS: sqlite3_result_int64(ctx, s->ts); break;
    case SL_DUR: sqlite3_result_int64(ctx, s->dur); break;
    case SL_TRACK_ID: sqlite3_result_int64(ctx, st->im.tracks.v[s->track].id); break;
    case SL_CATEGORY: xp_result_str(ctx, s->category); break;
    case SL_NAME: if (s->has_name) xp_result_str(ctx, s->name); break;
    case SL_DEPTH: sqlite3_result_int(ctx, s->depth); break;
    case SL_PARENT_ID: if (s->parent_ordinal >= 0) sqlite3_result_int64(ctx, pf_id_of(&st->im, s->parent_ordinal)); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(slice_cols, SL_N);
const xp_table xp_table_pf_slice = {
    .name = "xplane_pf_slice",
    .columns = slice_cols,
    .n_columns = SL_N + 1,
    .needs_profile = 1,
    .push = {.id = SL_ID, .set_id = SL_ARG_SET_ID},
    .state_size = sizeof(pf_state),
    .first = slice_first,
    .next = rows_next,
    .column = slice_column,
    .state_free = state_free,
};

/* ---- xplane_pf_thread_track ---- */

enum { TT_ID = XP_COL_FIRST_OWN, TT_NAME, TT_UTID, TT_N };
static const char *const thread_track_cols[] = {"id INTEGER", "name TEXT", "utid INTEGER"};

static int thread_track_first(xp_cursor *cur) { return keyed_first(cur, n_track_rows, 0); }

static int thread_track_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  pf_state *st = cur->state;
  const pfc_track *t = &st->im.tracks.v[st->im.track_rows[st->i]];
  switch (col) {
    case TT_ID: sqlite3_result_int64(ctx, t->id); break;
    case TT_NAME: result_pool(ctx, st, t->name); break;
    case TT_UTID: sqlite3_result_int64(ctx, t->utid); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(thread_track_cols, TT_N);
const xp_table xp_table_pf_thread_track = {
    .name = "xplane_pf_thread_track",
    .columns = thread_track_cols,
    .n_columns = TT_N + 1,
    .needs_profile = 1,
    .state_size = sizeof(pf_state),
    .first = thread_track_first,
    .next = rows_next,
    .column = thread_track_column,
    .state_free = state_free,
};

/* ---- xplane_pf_thread and xplane_pf_process ---- */

enum { TH_UTID = XP_COL_FIRST_OWN, TH_TID, TH_NAME, TH_UPID, TH_N };
static const char *const thread_cols[] = {"utid INTEGER", "tid INTEGER", "name TEXT", "upid INTEGER"};

static int thread_first(xp_cursor *cur) { return keyed_first(cur, n_threads, 0); }

static int thread_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  pf_state *st = cur->state;
  const pfc_row3 *r = &st->im.threads.v[st->i];
  switch (col) {
    case TH_UTID: sqlite3_result_int64(ctx, r->a); break;
    case TH_TID: sqlite3_result_int64(ctx, r->b); break;
    case TH_NAME: result_pool(ctx, st, r->name); break;
    case TH_UPID: if (r->c >= 0) sqlite3_result_int64(ctx, r->c); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(thread_cols, TH_N);
const xp_table xp_table_pf_thread = {
    .name = "xplane_pf_thread",
    .columns = thread_cols,
    .n_columns = TH_N + 1,
    .needs_profile = 1,
    .state_size = sizeof(pf_state),
    .first = thread_first,
    .next = rows_next,
    .column = thread_column,
    .state_free = state_free,
};

enum { PR_UPID = XP_COL_FIRST_OWN, PR_PID, PR_NAME, PR_N };
static const char *const process_cols[] = {"upid INTEGER", "pid INTEGER", "name TEXT"};

static int process_first(xp_cursor *cur) { return keyed_first(cur, n_processes, 0); }

static int process_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  pf_state *st = cur->state;
  const pfc_row3 *r = &st->im.processes.v[st->i];
  switch (col) {
    case PR_UPID: sqlite3_result_int64(ctx, r->a); break;
    case PR_PID: sqlite3_result_int64(ctx, r->b); break;
    case PR_NAME: result_pool(ctx, st, r->name); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(process_cols, PR_N);
const xp_table xp_table_pf_process = {
    .name = "xplane_pf_process",
    .columns = process_cols,
    .n_columns = PR_N + 1,
    .needs_profile = 1,
    .state_size = sizeof(pf_state),
    .first = process_first,
    .next = rows_next,
    .column = process_column,
    .state_free = state_free,
};

/* ---- xplane_pf_args ---- */

enum { AR_ID = XP_COL_FIRST_OWN, AR_ARG_SET_ID, AR_KEY, AR_INT, AR_STRING, AR_REAL, AR_VALUE_TYPE, AR_N };
static const char *const args_cols[] = {"id INTEGER", "arg_set_id INTEGER", "key TEXT", "int_value INTEGER",
                                        "string_value TEXT", "real_value REAL", "value_type TEXT"};

static int64_t *arg_base(const pf_state *st, int64_t id) { return xp_cvec_at(&st->arg_base, id); }

/* The arg ids, in import order (slice id, then position): slice id's first
** arg is arg_base[id]; arg_base[n] is the number of args. */
static int arg_ids(pf_state *st) {
  if (st->arg_base.n) return 1;
  int64_t n = st->im.slices.n;
  xp_cvec_init(&st->arg_base, sizeof(int64_t));
  if (!xp_cvec_resize(&st->arg_base, n + 1)) {
    xp_cvec_free(&st->arg_base);
    return 0;
  }
  int64_t a = 0;
  for (int64_t id = 0; id < n; id++) {
    *arg_base(st, id) = a;
    a += pf_slice_by_id(&st->im, id)->n_args;
  }
  *arg_base(st, n) = a;
  return 1;
}

/* Rows: the args of slice id i, k-th of them; skip slices without args. */
static void args_seek(xp_cursor *cur) {
  pf_state *st = cur->state;
  while (st->i < st->end && st->k >= pf_slice_by_id(&st->im, st->i)->n_args) st->i++, st->k = 0;
  cur->file_eof = st->i >= st->end;
}

/* All args, or those of one set (arg_set_id = : the slice's arg_lo ..
** arg_lo + n_args), or the one arg of an id (id = : the slice whose range
** of arg ids holds it, found by binary search in arg_base). */
static int args_first(xp_cursor *cur) {
  pf_state *st = cur->state;
  st->want_args = 1;
  int rc = build(cur);
  if (rc != SQLITE_OK) return rc;
  if (!arg_ids(st)) return SQLITE_NOMEM;
  int64_t n = st->im.slices.n;
  st->k = 0;
  st->one_arg = 0;
  /* arg_set_id = the slice id */
  st->i = 0;
  st->end = n;
  if (cur->f.has_set_id) {
    if (cur->f.set_id >= 0 && cur->f.set_id < n) st->i = cur->f.set_id, st->end = cur->f.set_id + 1;
    else st->end = 0;
  }
  if (cur->f.has_id) {
    int64_t id = cur->f.id;
    if (id < 0 || id >= *arg_base(st, n)) {
      st->end = 0;
    } else {
      int64_t lo = 0, hi = n - 1; /* the last slice whose first arg id is <= id */
      while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (*arg_base(st, mid) <= id) lo = mid;
        else hi = mid - 1;
      }
      if (lo < st->i || lo >= st->end) {
        st->end = 0;
      } else {
        st->i = lo;
        st->end = lo + 1;
        st->k = id - *arg_base(st, lo);
        st->one_arg = 1;
      }
    }
  }
  args_seek(cur);
  return SQLITE_OK;
}

static int args_next(xp_cursor *cur) {
  pf_state *st = cur->state;
  if (st->one_arg) {
    cur->file_eof = 1;
    return SQLITE_OK;
  }
  st->k++;
  args_seek(cur);
  return SQLITE_OK;
}

static int args_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  static const char *const types[] = {"int", "uint", "real", "string"};
  pf_state *st = cur->state;
  const pfc_arg *a = pf_arg_at(&st->im, pf_slice_by_id(&st->im, st->i)->arg_lo + st->k);
  pf_atype type = pfc_arg_type(a);
  switch (col) {
    case AR_ID: sqlite3_result_int64(ctx, *arg_base(st, st->i) + st->k); break;
    case AR_ARG_SET_ID: sqlite3_result_int64(ctx, st->i); break;
    case AR_KEY: result_pool(ctx, st, pfc_arg_key(a)); break;
    case AR_INT: if (type == PF_A_INT || type == PF_A_UINT) sqlite3_result_int64(ctx, pfc_arg_int(a)); break;
    case AR_STRING: result_pool(ctx, st, pfc_arg_str(a)); break;
    case AR_REAL: if (type == PF_A_DOUBLE) sqlite3_result_double(ctx, pfc_arg_real(a)); break;
    case AR_VALUE_TYPE: sqlite3_result_text(ctx, types[type], -1, SQLITE_STATIC); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(args_cols, AR_N);
const xp_table xp_table_pf_args = {
    .name = "xplane_pf_args",
    .columns = args_cols,
    .n_columns = AR_N + 1,
    .needs_profile = 1,
    .push = {.id = AR_ID, .set_id = AR_ARG_SET_ID},
    .state_size = sizeof(pf_state),
    .first = args_first,
    .next = args_next,
    .column = args_column,
    .state_free = state_free,
};

/* ---- xplane_pf_flow ---- */

enum { FL_ID = XP_COL_FIRST_OWN, FL_SLICE_OUT, FL_SLICE_IN, FL_N };
static const char *const flow_cols[] = {"id INTEGER", "slice_out INTEGER", "slice_in INTEGER"};

static int flow_first(xp_cursor *cur) {
  pf_state *st = cur->state;
  st->want_args = 1; /* flow ids come with the stats */
  int rc = build(cur);
  if (rc != SQLITE_OK) return rc;
  if (!st->flows_linked) {
    char *err = NULL;
    if (!pf_import_flows(&st->im, &err)) {
      rc = xp_cursor_error(cur, "%s: %s", cur->file->path, err ? err : "out of memory");
      xp_free(err);
      return rc;
    }
    st->flows_linked = 1;
  }
  key_range(cur, st->im.flows.n, 0, &st->i, &st->end);
  cur->file_eof = st->i >= st->end;
  return SQLITE_OK;
}

static int flow_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  pf_state *st = cur->state;
  const pfc_flow *f = pf_flow(&st->im, st->i);
  switch (col) {
    case FL_ID: sqlite3_result_int64(ctx, st->i); break;
    case FL_SLICE_OUT: sqlite3_result_int64(ctx, f->b); break;
    case FL_SLICE_IN: sqlite3_result_int64(ctx, (int64_t)f->a); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(flow_cols, FL_N);
const xp_table xp_table_pf_flow = {
    .name = "xplane_pf_flow",
    .columns = flow_cols,
    .n_columns = FL_N + 1,
    .needs_profile = 1,
    .push = {.id = FL_ID},
    .state_size = sizeof(pf_state),
    .first = flow_first,
    .next = rows_next,
    .column = flow_column,
    .state_free = state_free,
};
