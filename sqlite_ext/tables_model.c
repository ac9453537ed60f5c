/*
** tables_model.c: the structure of a profile, one table per message kind.
**
**   SELECT * FROM xplane_planes('run/');           -- XPlane (stats as JSON)
**   SELECT * FROM xplane_lines('run/');            -- XLine, with event counts
**   SELECT * FROM xplane_event_metadata('run/');   -- the event dictionary
**   SELECT * FROM xplane_stat_metadata('run/');    -- the stat dictionary
**
** Planes are keyed by plane_index (their position: plane ids repeat), lines
** by (plane_index, line_index). All read the index built at open: no event is
** decoded here, except the stats JSON of planes and event metadata.
*/
#include "json.h"
#include "result.h"
#include "tables.h"

SQLITE_EXTENSION_INIT3

/* Cursor state shared by the four tables: a position, an item index within
** the plane (metadata tables), and a reusable stat list. */
typedef struct model_state {
  xp_pos pos;
  int32_t item;
  xp_statvec sv;
} model_state;

static void model_state_free(xp_cursor *cur) {
  model_state *st = cur->state;
  xp_statvec_free(&st->sv);
}

static const xp_plane *cur_plane(const xp_cursor *cur) {
  const model_state *st = cur->state;
  return &cur->prof->planes[st->pos.plane];
}

static void result_plane_name(sqlite3_context *ctx, const xp_plane *pl) { xp_result_str(ctx, pl->name); }

/* ---- xplane_planes ---- */

enum {
  P_PLANE_INDEX = XP_COL_FIRST_OWN, P_PLANE_ID, P_PLANE_NAME, P_N_LINES, P_N_EVENTS,
  P_N_EVENT_METADATA, P_N_STAT_METADATA, P_STATS, P_N
};
static const char *const planes_cols[] = {
    "plane_index INTEGER", "plane_id INTEGER", "plane_name TEXT", "n_lines INTEGER",
    "n_events INTEGER", "n_event_metadata INTEGER", "n_stat_metadata INTEGER", "stats TEXT"};

static int planes_first(xp_cursor *cur) {
  model_state *st = cur->state;
  st->pos.plane = 0;
  cur->file_eof = !xp_seek_plane(cur, &st->pos);
  return SQLITE_OK;
}

static int planes_next(xp_cursor *cur) {
  model_state *st = cur->state;
  st->pos.plane++;
  cur->file_eof = !xp_seek_plane(cur, &st->pos);
  return SQLITE_OK;
}

static int planes_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  model_state *st = cur->state;
  const xp_plane *pl = cur_plane(cur);
  switch (col) {
    case P_PLANE_INDEX: sqlite3_result_int64(ctx, st->pos.plane); break;
    case P_PLANE_ID: sqlite3_result_int64(ctx, pl->id); break;
    case P_PLANE_NAME: result_plane_name(ctx, pl); break;
    case P_N_LINES: sqlite3_result_int64(ctx, pl->n_lines); break;
    case P_N_EVENTS: sqlite3_result_int64(ctx, pl->n_events); break;
    case P_N_EVENT_METADATA: sqlite3_result_int64(ctx, pl->n_emeta); break;
    case P_N_STAT_METADATA: sqlite3_result_int64(ctx, pl->n_smeta); break;
    case P_STATS: {
      if (!xp_plane_stats(cur->prof, pl, &st->sv)) return SQLITE_NOMEM;
      xp_buf *s = xp_buf_new();
      xp_json_stats(s, &st->sv);
      xp_cursor_result_buf(cur, ctx, col, s, XP_EMPTY_IS_TEXT);
      break;
    }
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(planes_cols, P_N);
const xp_table xp_table_planes = {
    .name = "xplane_planes",
    .columns = planes_cols,
    .n_columns = P_N + 1,
    .needs_profile = 1,
    .push = {.plane_index = P_PLANE_INDEX, .plane_name = P_PLANE_NAME},
    .state_size = sizeof(model_state),
    .first = planes_first,
    .next = planes_next,
    .column = planes_column,
    .state_free = model_state_free,
};

/* ---- xplane_lines ---- */

enum {
  L_PLANE_INDEX = XP_COL_FIRST_OWN, L_PLANE_NAME, L_LINE_INDEX, L_LINE_ID, L_DISPLAY_ID,
  L_LINE_NAME, L_DISPLAY_NAME, L_TIMESTAMP_NS, L_DURATION_PS, L_N_EVENTS, L_N_TIMED,
  L_FIRST_START_PS, L_LAST_END_PS, L_N
};
static const char *const lines_cols[] = {
    "plane_index INTEGER", "plane_name TEXT", "line_index INTEGER", "line_id INTEGER",
    "display_id INTEGER", "line_name TEXT", "display_name TEXT", "timestamp_ns INTEGER",
    "duration_ps INTEGER", "n_events INTEGER", "n_timed_events INTEGER", "first_start_ps INTEGER",
    "last_end_ps INTEGER"};

static int lines_first(xp_cursor *cur) {
  model_state *st = cur->state;
  st->pos.plane = st->pos.line = 0;
  cur->file_eof = !xp_seek_line(cur, &st->pos, 0);
  return SQLITE_OK;
}

static int lines_next(xp_cursor *cur) {
  model_state *st = cur->state;
  st->pos.line++;
  cur->file_eof = !xp_seek_line(cur, &st->pos, 0);
  return SQLITE_OK;
}

static int lines_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  model_state *st = cur->state;
  const xp_plane *pl = cur_plane(cur);
  const xp_line *ln = &pl->lines[st->pos.line];
  switch (col) {
    case L_PLANE_INDEX: sqlite3_result_int64(ctx, st->pos.plane); break;
    case L_PLANE_NAME: result_plane_name(ctx, pl); break;
    case L_LINE_INDEX: sqlite3_result_int64(ctx, st->pos.line); break;
    case L_LINE_ID: sqlite3_result_int64(ctx, ln->id); break;
    case L_DISPLAY_ID: sqlite3_result_int64(ctx, ln->display_id); break;
    case L_LINE_NAME: xp_result_str(ctx, ln->name); break;
    case L_DISPLAY_NAME: xp_result_str(ctx, ln->display_name); break;
    case L_TIMESTAMP_NS: sqlite3_result_int64(ctx, ln->timestamp_ns); break;
    case L_DURATION_PS: sqlite3_result_int64(ctx, ln->duration_ps); break;
    case L_N_EVENTS: sqlite3_result_int64(ctx, ln->n_events); break;
    case L_N_TIMED: sqlite3_result_int64(ctx, ln->n_timed); break;
    case L_FIRST_START_PS: if (ln->n_timed) sqlite3_result_int64(ctx, ln->min_start_ps); break;
    case L_LAST_END_PS: if (ln->n_timed) sqlite3_result_int64(ctx, ln->max_end_ps); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(lines_cols, L_N);
const xp_table xp_table_lines = {
    .name = "xplane_lines",
    .columns = lines_cols,
    .n_columns = L_N + 1,
    .needs_profile = 1,
    .push = {.plane_index = L_PLANE_INDEX, .plane_name = L_PLANE_NAME,
             .line_index = L_LINE_INDEX, .line_name = L_LINE_NAME},
    .state_size = sizeof(model_state),
    .first = lines_first,
    .next = lines_next,
    .column = lines_column,
    .state_free = model_state_free,
};

/* ---- the two metadata dictionaries: one row per map entry, per plane ---- */

static int32_t n_items(const xp_cursor *cur, const xp_plane *pl) {
  return cur->t == &xp_table_event_metadata ? pl->n_emeta : pl->n_smeta;
}

/* Move to the next (plane, item) at or after the current one. */
static void seek_item(xp_cursor *cur) {
  model_state *st = cur->state;
  while (xp_seek_plane(cur, &st->pos)) {
    if (st->item < n_items(cur, cur_plane(cur))) return;
    st->pos.plane++;
    st->item = 0;
  }
  cur->file_eof = 1;
}

static int meta_first(xp_cursor *cur) {
  model_state *st = cur->state;
  st->pos.plane = 0;
  st->item = 0;
  seek_item(cur);
  return SQLITE_OK;
}

static int meta_next(xp_cursor *cur) {
  model_state *st = cur->state;
  st->item++;
  seek_item(cur);
  return SQLITE_OK;
}

enum {
  EM_PLANE_INDEX = XP_COL_FIRST_OWN, EM_PLANE_NAME, EM_ID, EM_NAME, EM_DISPLAY_NAME, EM_METADATA,
  EM_STATS, EM_CHILD_IDS, EM_N
};
static const char *const emeta_cols[] = {
    "plane_index INTEGER", "plane_name TEXT", "id INTEGER", "name TEXT", "display_name TEXT",
    "metadata BLOB", "stats TEXT", "child_ids TEXT"};

static int emeta_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  model_state *st = cur->state;
  const xp_plane *pl = cur_plane(cur);
  const xp_event_meta *em = &pl->emeta[st->item];
  switch (col) {
    case EM_PLANE_INDEX: sqlite3_result_int64(ctx, st->pos.plane); break;
    case EM_PLANE_NAME: result_plane_name(ctx, pl); break;
    case EM_ID: sqlite3_result_int64(ctx, em->id); break;
    case EM_NAME: xp_result_str(ctx, em->name); break;
    case EM_DISPLAY_NAME: xp_result_str(ctx, em->display_name); break;
    case EM_METADATA: sqlite3_result_blob64(ctx, em->metadata.p ? em->metadata.p : "", em->metadata.n, SQLITE_TRANSIENT); break;
    case EM_STATS: {
      if (!xp_meta_stats(cur->prof, pl, em, &st->sv)) return SQLITE_NOMEM;
      xp_buf *s = xp_buf_new();
      xp_json_stats(s, &st->sv);
      xp_cursor_result_buf(cur, ctx, col, s, XP_EMPTY_IS_TEXT);
      break;
    }
    case EM_CHILD_IDS: {
      int64_t *kids = sqlite3_malloc64(sizeof(int64_t) * (sqlite3_uint64)(em->n_children + 1));
      if (!kids) return SQLITE_NOMEM;
      xp_meta_children(cur->prof, em, kids);
      xp_buf *s = xp_buf_new();
      xp_json_i64_array(s, kids, em->n_children);
      sqlite3_free(kids);
      xp_cursor_result_buf(cur, ctx, col, s, XP_EMPTY_IS_TEXT);
      break;
    }
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(emeta_cols, EM_N);
const xp_table xp_table_event_metadata = {
    .name = "xplane_event_metadata",
    .columns = emeta_cols,
    .n_columns = EM_N + 1,
    .needs_profile = 1,
    .push = {.plane_index = EM_PLANE_INDEX, .plane_name = EM_PLANE_NAME},
    .state_size = sizeof(model_state),
    .first = meta_first,
    .next = meta_next,
    .column = emeta_column,
    .state_free = model_state_free,
};

enum {
  SM_PLANE_INDEX = XP_COL_FIRST_OWN, SM_PLANE_NAME, SM_ID, SM_NAME, SM_DESCRIPTION, SM_IS_STAT_NAME,
  SM_N
};
static const char *const smeta_cols[] = {"plane_index INTEGER", "plane_name TEXT", "id INTEGER",
                                         "name TEXT", "description TEXT", "is_stat_name INTEGER"};

static int smeta_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  model_state *st = cur->state;
  const xp_plane *pl = cur_plane(cur);
  const xp_stat_meta *sm = &pl->smeta[st->item];
  switch (col) {
    case SM_PLANE_INDEX: sqlite3_result_int64(ctx, st->pos.plane); break;
    case SM_PLANE_NAME: result_plane_name(ctx, pl); break;
    case SM_ID: sqlite3_result_int64(ctx, sm->id); break;
    case SM_NAME: xp_result_str(ctx, sm->name); break;
    case SM_DESCRIPTION: xp_result_str(ctx, sm->description); break;
    case SM_IS_STAT_NAME: sqlite3_result_int(ctx, sm->used_as_name); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(smeta_cols, SM_N);
const xp_table xp_table_stat_metadata = {
    .name = "xplane_stat_metadata",
    .columns = smeta_cols,
    .n_columns = SM_N + 1,
    .needs_profile = 1,
    .push = {.plane_index = SM_PLANE_INDEX, .plane_name = SM_PLANE_NAME},
    .state_size = sizeof(model_state),
    .first = meta_first,
    .next = meta_next,
    .column = smeta_column,
    .state_free = model_state_free,
};
