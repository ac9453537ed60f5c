/*
** tables_summary.c: small cached aggregates the reports are built from.
**
**   SELECT category, sum(self_ps) FROM xplane_tracks('run/')
**    WHERE coalesce(nullif(line_display_name, ''), line_name) <> 'Steps' GROUP BY category;
**   SELECT * FROM xplane_op_names('host0.xplane.pb') ORDER BY self_ps DESC LIMIT 25;
**   SELECT value, count FROM xplane_hints('host0.xplane.pb') WHERE kind = 'run_id';
**
** xplane_tracks: one row per line and event category (compute,
** communication, host, stall, other) with the count, duration and exclusive
** time of its analysis events and their first start / last end.
** xplane_op_names: one row per device-op name: count, total and exclusive
** time, the most frequent shape signature, source file and tf_op (ties to the
** first seen), and the FLOP proxy summed over the invocations that have one
** (family from the name).
** xplane_hints: how often each run_id and source-file value occurs over all
** analysis events, and the order of first appearance.
** All three are computed once per decode (core/pass.c, core/facts.c,
** core/aggregates.c).
*/
#include "aggregates.h"
#include "semantics.h"
#include "result.h"
#include "tables.h"

SQLITE_EXTENSION_INIT3

typedef struct agg_state {
  const void *rows;
  int64_t n, i;
} agg_state;

/* Step to the next row at or after i that passes the plane/line filters. */
static void seek_track(xp_cursor *cur, agg_state *st) {
  const xp_track_agg *t = st->rows;
  while (st->i < st->n) {
    const xp_plane *pl = &cur->prof->planes[t[st->i].plane];
    if (xp_filter_plane(cur, t[st->i].plane, pl) && xp_filter_line(cur, t[st->i].line, &pl->lines[t[st->i].line]))
      break;
    st->i++;
  }
  cur->file_eof = st->i >= st->n;
}

static int prepare_tracks(xp_profile *p) {
  const xp_track_agg *rows;
  const xp_hint *hints;
  int64_t n_hints;
  return xp_track_aggs(p, &rows, &hints, &n_hints) >= 0;
}

static int prepare_op_names(xp_profile *p) {
  const xp_op_group *rows;
  return xp_op_groups(p, &rows) >= 0;
}

/* ---- xplane_tracks ---- */

enum {
  TR_PLANE_INDEX = XP_COL_FIRST_OWN, TR_PLANE_NAME, TR_LINE_INDEX, TR_LINE_ID, TR_LINE_NAME,
  TR_LINE_DISPLAY_NAME, TR_CATEGORY, TR_N_EVENTS, TR_DUR_PS, TR_SELF_PS, TR_FIRST_START_PS,
  TR_LAST_END_PS, TR_N
};
static const char *const tracks_cols[] = {
    "plane_index INTEGER", "plane_name TEXT", "line_index INTEGER", "line_id INTEGER", "line_name TEXT",
    "line_display_name TEXT", "category TEXT", "n_events INTEGER", "dur_ps INTEGER", "self_ps INTEGER",
    "first_start_ps INTEGER", "last_end_ps INTEGER"};

static int tracks_first(xp_cursor *cur) {
  agg_state *st = cur->state;
  const xp_track_agg *rows;
  const xp_hint *hints;
  int64_t n_hints;
  st->n = xp_track_aggs(cur->prof, &rows, &hints, &n_hints);
  if (st->n < 0) return SQLITE_NOMEM;
  st->rows = rows;
  st->i = 0;
  seek_track(cur, st);
  return SQLITE_OK;
}

static int tracks_next(xp_cursor *cur) {
  agg_state *st = cur->state;
  st->i++;
  seek_track(cur, st);
  return SQLITE_OK;
}

static int tracks_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  agg_state *st = cur->state;
  const xp_track_agg *t = (const xp_track_agg *)st->rows + st->i;
  const xp_plane *pl = &cur->prof->planes[t->plane];
  const xp_line *ln = &pl->lines[t->line];
  switch (col) {
    case TR_PLANE_INDEX: sqlite3_result_int64(ctx, t->plane); break;
    case TR_PLANE_NAME: xp_result_str(ctx, pl->name); break;
    case TR_LINE_INDEX: sqlite3_result_int64(ctx, t->line); break;
    case TR_LINE_ID: sqlite3_result_int64(ctx, ln->id); break;
    case TR_LINE_NAME: xp_result_str(ctx, ln->name); break;
    case TR_LINE_DISPLAY_NAME: xp_result_str(ctx, ln->display_name); break;
    case TR_CATEGORY: sqlite3_result_text(ctx, xp_category_names[t->category], -1, SQLITE_STATIC); break;
    case TR_N_EVENTS: sqlite3_result_int64(ctx, t->n_events); break;
    case TR_DUR_PS: sqlite3_result_int64(ctx, t->dur_ps); break;
    case TR_SELF_PS: sqlite3_result_int64(ctx, t->self_ps); break;
    case TR_FIRST_START_PS: sqlite3_result_int64(ctx, t->first_start_ps); break;
    case TR_LAST_END_PS: sqlite3_result_int64(ctx, t->last_end_ps); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(tracks_cols, TR_N);
const xp_table xp_table_tracks = {
    .name = "xplane_tracks",
    .columns = tracks_cols,
    .n_columns = TR_N + 1,
    .needs_profile = 1,
    .push = {.plane_index = TR_PLANE_INDEX, .plane_name = TR_PLANE_NAME,
             .line_index = TR_LINE_INDEX, .line_name = TR_LINE_NAME},
    .state_size = sizeof(agg_state),
    .first = tracks_first,
    .next = tracks_next,
    .column = tracks_column,
    .prepare = prepare_tracks,
};

/* ---- xplane_hints ---- */

enum { H_KIND = XP_COL_FIRST_OWN, H_VALUE, H_COUNT, H_FIRST_SEEN, H_N };
static const char *const hints_cols[] = {"kind TEXT", "value TEXT", "count INTEGER", "first_seen INTEGER"};

static int hints_first(xp_cursor *cur) {
  agg_state *st = cur->state;
  const xp_track_agg *rows;
  const xp_hint *hints;
  if (xp_track_aggs(cur->prof, &rows, &hints, &st->n) < 0) return SQLITE_NOMEM;
  st->rows = hints;
  st->i = 0;
  cur->file_eof = st->n == 0;
  return SQLITE_OK;
}

static int rows_next(xp_cursor *cur) {
  agg_state *st = cur->state;
  cur->file_eof = ++st->i >= st->n;
  return SQLITE_OK;
}

static int hints_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  static const char *const kinds[] = {"run_id", "source_file"};
  agg_state *st = cur->state;
  const xp_hint *h = (const xp_hint *)st->rows + st->i;
  switch (col) {
    case H_KIND: sqlite3_result_text(ctx, kinds[h->kind], -1, SQLITE_STATIC); break;
    case H_VALUE: sqlite3_result_text(ctx, h->value, -1, SQLITE_TRANSIENT); break;
    case H_COUNT: sqlite3_result_int64(ctx, h->count); break;
    case H_FIRST_SEEN: sqlite3_result_int64(ctx, h->first_seen); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(hints_cols, H_N);
const xp_table xp_table_hints = {
    .name = "xplane_hints",
    .columns = hints_cols,
    .n_columns = H_N + 1,
    .needs_profile = 1,
    .state_size = sizeof(agg_state),
    .first = hints_first,
    .next = rows_next,
    .column = hints_column,
    .prepare = prepare_tracks,
};

/* ---- xplane_op_names ---- */

enum {
  N_NAME = XP_COL_FIRST_OWN, N_CANONICAL_NAME, N_CATEGORY, N_COUNT, N_TOTAL_PS, N_SELF_PS,
  N_SHAPE_SIGNATURE, N_SOURCE_FILE, N_TF_OP, N_FLOP_PROXY_SUM, N_FLOP_PROXY_COUNT, N_FIRST_OP_ID, N_N
};
static const char *const op_names_cols[] = {
    "name TEXT", "canonical_name TEXT", "category TEXT", "count INTEGER", "total_ps INTEGER",
    "self_ps INTEGER", "shape_signature TEXT", "source_file TEXT", "tf_op TEXT", "flop_proxy_sum REAL",
    "flop_proxy_count INTEGER", "first_op_id INTEGER"};

static int op_names_first(xp_cursor *cur) {
  agg_state *st = cur->state;
  const xp_op_group *rows;
  st->n = xp_op_groups(cur->prof, &rows);
  if (st->n < 0) return SQLITE_NOMEM;
  st->rows = rows;
  st->i = 0;
  cur->file_eof = st->n == 0;
  return SQLITE_OK;
}

static void result_opt(sqlite3_context *ctx, const char *z) {
  if (z) sqlite3_result_text(ctx, z, -1, SQLITE_TRANSIENT);
}

static int op_names_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  agg_state *st = cur->state;
  const xp_op_group *g = (const xp_op_group *)st->rows + st->i;
  switch (col) {
    case N_NAME: xp_result_str(ctx, g->name); break;
    case N_CANONICAL_NAME: {
      xp_buf *s = xp_buf_new();
      xp_canonical_name(s, g->name.p, g->name.n);
      xp_cursor_result_buf(cur, ctx, col, s, XP_EMPTY_IS_TEXT);
      break;
    }
    case N_CATEGORY: sqlite3_result_text(ctx, xp_op_category(g->name.p, g->name.n), -1, SQLITE_STATIC); break;
    case N_COUNT: sqlite3_result_int64(ctx, g->count); break;
    case N_TOTAL_PS: sqlite3_result_int64(ctx, g->total_ps); break;
    case N_SELF_PS: sqlite3_result_int64(ctx, g->self_ps); break;
    case N_SHAPE_SIGNATURE: result_opt(ctx, g->shape_signature); break;
    case N_SOURCE_FILE: result_opt(ctx, g->source_file); break;
    case N_TF_OP: result_opt(ctx, g->tf_op); break;
    case N_FLOP_PROXY_SUM: if (g->flop_proxy_count) sqlite3_result_double(ctx, g->flop_proxy_sum); break;
    case N_FLOP_PROXY_COUNT: sqlite3_result_int64(ctx, g->flop_proxy_count); break;
    case N_FIRST_OP_ID: sqlite3_result_int64(ctx, g->first_op); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(op_names_cols, N_N);
const xp_table xp_table_op_names = {
    .name = "xplane_op_names",
    .columns = op_names_cols,
    .n_columns = N_N + 1,
    .needs_profile = 1,
    .state_size = sizeof(agg_state),
    .first = op_names_first,
    .next = rows_next,
    .column = op_names_column,
    .prepare = prepare_op_names,
};

/* ---- xplane_op_tf_ops: how often each op name runs with each tf_op ---- */

enum { TF_NAME = XP_COL_FIRST_OWN, TF_TF_OP, TF_COUNT, TF_FIRST_OP_ID, TF_N };
static const char *const op_tf_ops_cols[] = {"name TEXT", "tf_op TEXT", "count INTEGER", "first_op_id INTEGER"};

static int op_tf_ops_first(xp_cursor *cur) {
  agg_state *st = cur->state;
  const xp_tf_count *rows;
  st->n = xp_op_tf_ops(cur->prof, &rows);
  if (st->n < 0) return SQLITE_NOMEM;
  st->rows = rows;
  st->i = 0;
  cur->file_eof = st->n == 0;
  return SQLITE_OK;
}

static int op_tf_ops_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  agg_state *st = cur->state;
  const xp_tf_count *t = (const xp_tf_count *)st->rows + st->i;
  switch (col) {
    case TF_NAME: xp_result_str(ctx, t->name); break;
    case TF_TF_OP: sqlite3_result_text(ctx, t->tf_op, -1, SQLITE_TRANSIENT); break;
    case TF_COUNT: sqlite3_result_int64(ctx, t->count); break;
    case TF_FIRST_OP_ID: sqlite3_result_int64(ctx, t->first_op); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(op_tf_ops_cols, TF_N);
const xp_table xp_table_op_tf_ops = {
    .name = "xplane_op_tf_ops",
    .columns = op_tf_ops_cols,
    .n_columns = TF_N + 1,
    .needs_profile = 1,
    .state_size = sizeof(agg_state),
    .first = op_tf_ops_first,
    .next = rows_next,
    .column = op_tf_ops_column,
    .prepare = prepare_op_names,
};

/* ---- xplane_gaps: pre-op gaps by payload, marker and payload tf_op ---- */

enum { G_PAYLOAD, G_MARKER, G_TF_OP, G_COUNT, G_TOTAL_PS, G_MAX_PS, G_FIRST_MARKER_ID, G_N0 };
enum { G_BASE = XP_COL_FIRST_OWN, G_N = XP_COL_FIRST_OWN + G_N0 };
static const char *const gaps_cols[] = {"payload_name TEXT", "marker_name TEXT", "payload_tf_op TEXT",
                                        "count INTEGER", "total_ps INTEGER", "max_ps INTEGER",
                                        "first_marker_id INTEGER"};

static int prepare_gaps(xp_profile *p) {
  const xp_gap_group *rows;
  return xp_gap_groups(p, &rows) >= 0;
}

static int gaps_first(xp_cursor *cur) {
  agg_state *st = cur->state;
  const xp_gap_group *rows;
  st->n = xp_gap_groups(cur->prof, &rows);
  if (st->n < 0) return SQLITE_NOMEM;
  st->rows = rows;
  st->i = 0;
  cur->file_eof = st->n == 0;
  return SQLITE_OK;
}

static int gaps_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  agg_state *st = cur->state;
  const xp_gap_group *g = (const xp_gap_group *)st->rows + st->i;
  switch (col - G_BASE) {
    case G_PAYLOAD: xp_result_str(ctx, g->payload); break;
    case G_MARKER: xp_result_str(ctx, g->marker); break;
    case G_TF_OP: if (g->tf_op.n) xp_result_str(ctx, g->tf_op); break;
    case G_COUNT: sqlite3_result_int64(ctx, g->count); break;
    case G_TOTAL_PS: sqlite3_result_int64(ctx, g->total_ps); break;
    case G_MAX_PS: sqlite3_result_int64(ctx, g->max_ps); break;
    case G_FIRST_MARKER_ID: sqlite3_result_int64(ctx, g->first_op); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(gaps_cols, G_N);
const xp_table xp_table_gaps = {
    .name = "xplane_gaps",
    .columns = gaps_cols,
    .n_columns = G_N + 1,
    .needs_profile = 1,
    .state_size = sizeof(agg_state),
    .first = gaps_first,
    .next = rows_next,
    .column = gaps_column,
    .prepare = prepare_gaps,
};

/* ---- xplane_op_regions: device ops by the region window they ran under ---- */

enum { R_PATH, R_DEPTH, R_NAME, R_CANONICAL, R_CATEGORY, R_COUNT, R_TOTAL_PS, R_SELF_PS, R_SHAPE,
       R_FIRST_OP_ID, R_N0 };
enum { R_BASE = XP_COL_FIRST_OWN, R_N = XP_COL_FIRST_OWN + R_N0 };
static const char *const op_regions_cols[] = {"region_path TEXT", "depth INTEGER", "name TEXT",
                                              "canonical_name TEXT", "category TEXT", "count INTEGER",
                                              "total_ps INTEGER", "self_ps INTEGER", "shape_signature TEXT",
                                              "first_op_id INTEGER"};

static int prepare_op_regions(xp_profile *p) {
  const xp_op_region *rows;
  return xp_op_regions(p, &rows, NULL) >= 0;
}

static int op_regions_first(xp_cursor *cur) {
  agg_state *st = cur->state;
  const xp_op_region *rows;
  st->n = xp_op_regions(cur->prof, &rows, NULL);
  if (st->n < 0) return SQLITE_NOMEM;
  st->rows = rows;
  st->i = 0;
  cur->file_eof = st->n == 0;
  return SQLITE_OK;
}

static int op_regions_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  agg_state *st = cur->state;
  const xp_op_region *r = (const xp_op_region *)st->rows + st->i;
  switch (col - R_BASE) {
    case R_PATH: sqlite3_result_text(ctx, r->path, -1, SQLITE_TRANSIENT); break;
    case R_DEPTH: sqlite3_result_int(ctx, r->depth); break;
    case R_NAME: xp_result_str(ctx, r->name); break;
    case R_CANONICAL: {
      xp_buf *s = xp_buf_new();
      xp_canonical_name(s, r->name.p, r->name.n);
      xp_cursor_result_buf(cur, ctx, col, s, XP_EMPTY_IS_TEXT);
      break;
    }
    case R_CATEGORY: sqlite3_result_text(ctx, xp_op_category(r->name.p, r->name.n), -1, SQLITE_STATIC); break;
    case R_COUNT: sqlite3_result_int64(ctx, r->count); break;
    case R_TOTAL_PS: sqlite3_result_int64(ctx, r->total_ps); break;
    case R_SELF_PS: sqlite3_result_int64(ctx, r->self_ps); break;
    case R_SHAPE: if (r->shape_signature) sqlite3_result_text(ctx, r->shape_signature, -1, SQLITE_TRANSIENT); break;
    case R_FIRST_OP_ID: sqlite3_result_int64(ctx, r->first_op); break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_op_regions = {
    .name = "xplane_op_regions",
    .columns = op_regions_cols,
    .n_columns = R_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .state_size = sizeof(agg_state),
    .first = op_regions_first,
    .next = rows_next,
    .column = op_regions_column,
    .prepare = prepare_op_regions,
};
