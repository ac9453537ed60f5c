/*
** tables_perfetto.c: a profile as trace processor's tables, from the same
** mapping the converter writes, so SQL written for trace processor (the
** PerfettoSQL package tp_plugin/xplane) runs here too. The rows are those of
** tp_plugin's emulation of trace processor's import (pf_import.h, which says
** how ids, nesting, args and flows are numbered), built per scan in memory.
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
  int64_t i;               /* current row */
  int64_t k;               /* current arg within the slice (args table) */
  int64_t arg_id;          /* id of the current arg */
} pf_state;

static void state_free(xp_cursor *cur) { pf_import_free(&((pf_state *)cur->state)->im); }

/* Import cur->prof as trace processor would. */
static int build(xp_cursor *cur) {
  pf_state *st = cur->state;
  char *err = NULL;
  st->i = st->k = st->arg_id = 0;
  if (pf_import_build(&st->im, cur->file, cur->prof, st->want_args, &err)) return SQLITE_OK;
  int rc = xp_cursor_error(cur, "%s: %s", cur->file->path, err ? err : "out of memory");
  xp_free(err);
  return rc;
}

static void result_pool(sqlite3_context *ctx, const pf_state *st, int64_t off) {
  if (off >= 0) sqlite3_result_text(ctx, st->im.pool.v + off, -1, SQLITE_TRANSIENT);
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
  cur->file_eof = st->im.slices.n == 0;
  return rc;
}

static int slice_next(xp_cursor *cur) { return rows_next(cur, ((pf_state *)cur->state)->im.slices.n); }

static int slice_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  pf_state *st = cur->state;
  const pfc_slice *s = &st->im.slices.v[st->im.order[st->i]];
  switch (col) {
    case SL_ID:
    case SL_ARG_SET_ID: sqlite3_result_int64(ctx, st->i); break;
    case SL_TS: sqlite3_result_int64(ctx, s->ts); break;
    case SL_DUR: sqlite3_result_int64(ctx, s->dur); break;
    case SL_TRACK_ID: sqlite3_result_int64(ctx, st->im.tracks.v[s->track].id); break;
    case SL_CATEGORY: xp_result_str(ctx, s->category); break;
    case SL_NAME: if (s->has_name) xp_result_str(ctx, s->name); break;
    case SL_DEPTH: sqlite3_result_int(ctx, s->depth); break;
    case SL_PARENT_ID: if (s->parent_ordinal >= 0) sqlite3_result_int64(ctx, st->im.id_of[s->parent_ordinal]); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(slice_cols, SL_N);
const xp_table xp_table_pf_slice = {
    .name = "xplane_pf_slice",
    .columns = slice_cols,
    .n_columns = SL_N + 1,
    .needs_profile = 1,
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
  cur->file_eof = st->im.n_track_rows == 0;
  return rc;
}

static int thread_track_next(xp_cursor *cur) { return rows_next(cur, ((pf_state *)cur->state)->im.n_track_rows); }

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
  cur->file_eof = st->im.threads.n == 0;
  return rc;
}

static int thread_next(xp_cursor *cur) { return rows_next(cur, ((pf_state *)cur->state)->im.threads.n); }

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
    .next = thread_next,
    .column = thread_column,
    .state_free = state_free,
};

enum { PR_UPID = XP_COL_FIRST_OWN, PR_PID, PR_NAME, PR_N };
static const char *const process_cols[] = {"upid INTEGER", "pid INTEGER", "name TEXT"};

static int process_first(xp_cursor *cur) {
  pf_state *st = cur->state;
  int rc = build(cur);
  cur->file_eof = st->im.processes.n == 0;
  return rc;
}

static int process_next(xp_cursor *cur) { return rows_next(cur, ((pf_state *)cur->state)->im.processes.n); }

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
  while (st->i < st->im.slices.n && st->k >= st->im.slices.v[st->im.order[st->i]].n_args) st->i++, st->k = 0;
  cur->file_eof = st->i >= st->im.slices.n;
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
  const pfc_arg *a = &st->im.args.v[st->im.slices.v[st->im.order[st->i]].arg_lo + st->k];
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

XP_CHECK_COLUMNS(args_cols, AR_N);
const xp_table xp_table_pf_args = {
    .name = "xplane_pf_args",
    .columns = args_cols,
    .n_columns = AR_N + 1,
    .needs_profile = 1,
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
  if (rc == SQLITE_OK && !pf_import_flows(&st->im)) rc = SQLITE_NOMEM;
  cur->file_eof = st->im.flows.n == 0;
  return rc;
}

static int flow_next(xp_cursor *cur) { return rows_next(cur, ((pf_state *)cur->state)->im.flows.n); }

static int flow_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  pf_state *st = cur->state;
  const pfc_flow *f = &st->im.flows.v[st->i];
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
    .state_size = sizeof(pf_state),
    .first = flow_first,
    .next = flow_next,
    .column = flow_column,
    .state_free = state_free,
};
