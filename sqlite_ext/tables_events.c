/*
** tables_events.c: events and their stats, streamed from the mapping.
**
**   SELECT name, start_ps, dur_ps FROM xplane_events('host.xplane.pb')
**    WHERE plane_name = '/device:GPU:0' AND start_ps BETWEEN 1e9 AND 2e9;
**   SELECT name, value_type, value FROM xplane_stats('host.xplane.pb')
**    WHERE scope = 'event' AND line_name = 'XLA Ops';
**
** Nothing here is materialized: each scan re-walks the bytes of the lines
** that pass the pushed-down filters (vtab.c), reads each event's fields in
** place, and builds names, stats and JSON only for the columns the query
** reads. Time columns are picoseconds: start_ps = line timestamp_ns * 1000 +
** offset_ps. Aggregated events (num_occurrences, no offset) have NULL times.
** self_ps is the exclusive time of analysis events (analysis.h), NULL for the
** others; it is computed once per track on first use and cached.
*/
#include <string.h>

#include "analysis.h"
#include "json.h"
#include "result.h"
#include "tables.h"

SQLITE_EXTENSION_INIT3

/* ---- the event walk both tables share ---- */

typedef struct ev_walk {
  xp_pos pos;
  int line_open;
  xp_event_iter it;
  xp_event ev;
  int64_t event_index;
} ev_walk;

static int ranged(const xp_cursor *cur) {
  return cur->f.start_lo != INT64_MIN || cur->f.start_hi != INT64_MAX;
}

static const xp_plane *walk_plane(const xp_cursor *cur, const ev_walk *w) {
  return &cur->prof->planes[w->pos.plane];
}

static const xp_line *walk_line(const xp_cursor *cur, const ev_walk *w) {
  return &walk_plane(cur, w)->lines[w->pos.line];
}

static void walk_begin(ev_walk *w) {
  memset(w, 0, sizeof(*w));
}

/* Advance to the next event that passes the filters; 0 when none is left. */
static int walk_next(const xp_cursor *cur, ev_walk *w) {
  int range = ranged(cur);
  for (;;) {
    if (!w->line_open) {
      if (!xp_seek_line(cur, &w->pos, range)) return 0;
      xp_events_begin(cur->prof, walk_line(cur, w), &w->it);
      w->event_index = -1;
      w->line_open = 1;
    }
    if (xp_events_next(&w->it, &w->ev)) {
      w->event_index++;
      if (range && (!w->ev.has_offset || !xp_filter_start(cur, xp_event_start(walk_line(cur, w), &w->ev))))
        continue;
      return 1;
    }
    w->line_open = 0;
    w->pos.line++;
  }
}

static void result_name(sqlite3_context *ctx, const xp_plane *pl, const xp_event *ev, int display) {
  const xp_event_meta *em = xp_plane_event_meta(pl, ev->metadata_id);
  if (em) xp_result_str(ctx, display ? em->display_name : em->name);
}

/* ---- xplane_events ---- */

enum {
  E_PLANE_INDEX = XP_COL_FIRST_OWN, E_PLANE_NAME, E_PLANE_ID, E_LINE_INDEX, E_LINE_ID, E_LINE_NAME,
  E_LINE_DISPLAY_NAME, E_EVENT_INDEX, E_METADATA_ID, E_NAME, E_DISPLAY_NAME, E_START_PS, E_DUR_PS,
  E_END_PS, E_OFFSET_PS, E_NUM_OCCURRENCES, E_SELF_PS, E_STATS, E_N
};
static const char *const events_cols[] = {
    "plane_index INTEGER", "plane_name TEXT", "plane_id INTEGER", "line_index INTEGER",
    "line_id INTEGER", "line_name TEXT", "line_display_name TEXT", "event_index INTEGER",
    "metadata_id INTEGER", "name TEXT", "display_name TEXT", "start_ps INTEGER", "dur_ps INTEGER",
    "end_ps INTEGER", "offset_ps INTEGER", "num_occurrences INTEGER", "self_ps INTEGER", "stats TEXT"};

typedef struct events_state {
  ev_walk w;
  xp_statvec sv;
} events_state;

static void events_state_free(xp_cursor *cur) {
  events_state *st = cur->state;
  xp_statvec_free(&st->sv);
}

static int events_first(xp_cursor *cur) {
  events_state *st = cur->state;
  walk_begin(&st->w);
  cur->file_eof = !walk_next(cur, &st->w);
  return SQLITE_OK;
}

static int events_next(xp_cursor *cur) {
  events_state *st = cur->state;
  cur->file_eof = !walk_next(cur, &st->w);
  return SQLITE_OK;
}

static int events_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  events_state *st = cur->state;
  const xp_plane *pl = walk_plane(cur, &st->w);
  const xp_line *ln = walk_line(cur, &st->w);
  const xp_event *ev = &st->w.ev;
  switch (col) {
    case E_PLANE_INDEX: sqlite3_result_int64(ctx, st->w.pos.plane); break;
    case E_PLANE_NAME: xp_result_str(ctx, pl->name); break;
    case E_PLANE_ID: sqlite3_result_int64(ctx, pl->id); break;
    case E_LINE_INDEX: sqlite3_result_int64(ctx, st->w.pos.line); break;
    case E_LINE_ID: sqlite3_result_int64(ctx, ln->id); break;
    case E_LINE_NAME: xp_result_str(ctx, ln->name); break;
    case E_LINE_DISPLAY_NAME: xp_result_str(ctx, ln->display_name); break;
    case E_EVENT_INDEX: sqlite3_result_int64(ctx, st->w.event_index); break;
    case E_METADATA_ID: sqlite3_result_int64(ctx, ev->metadata_id); break;
    case E_NAME: result_name(ctx, pl, ev, 0); break;
    case E_DISPLAY_NAME: result_name(ctx, pl, ev, 1); break;
    case E_START_PS: if (ev->has_offset) sqlite3_result_int64(ctx, xp_event_start(ln, ev)); break;
    case E_DUR_PS: sqlite3_result_int64(ctx, ev->duration_ps); break;
    case E_END_PS:
      if (ev->has_offset)
        sqlite3_result_int64(ctx, (int64_t)((uint64_t)xp_event_start(ln, ev) + (uint64_t)ev->duration_ps));
      break;
    case E_OFFSET_PS: if (ev->has_offset) sqlite3_result_int64(ctx, ev->offset_ps); break;
    case E_NUM_OCCURRENCES: if (ev->has_occurrences) sqlite3_result_int64(ctx, ev->num_occurrences); break;
    case E_SELF_PS: {
      /* exclusive time on the event's track, computed once per track */
      const int64_t *self = xp_line_self_times(cur->prof, st->w.pos.plane, st->w.pos.line);
      if (!self) return SQLITE_NOMEM;
      if (self[st->w.event_index] != XP_NO_VALUE) sqlite3_result_int64(ctx, self[st->w.event_index]);
      break;
    }
    case E_STATS: {
      if (!xp_event_stats(cur->prof, pl, ev, &st->sv)) return SQLITE_NOMEM;
      xp_buf *s = xp_buf_new();
      xp_json_stats(s, &st->sv);
      xp_cursor_result_buf(cur, ctx, col, s, XP_EMPTY_IS_TEXT);
      break;
    }
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(events_cols, E_N);
const xp_table xp_table_events = {
    .name = "xplane_events",
    .columns = events_cols,
    .n_columns = E_N + 1,
    .needs_profile = 1,
    .push = {.plane_index = E_PLANE_INDEX, .plane_name = E_PLANE_NAME,
             .line_index = E_LINE_INDEX, .line_name = E_LINE_NAME, .start_ps = E_START_PS},
    .state_size = sizeof(events_state),
    .first = events_first,
    .next = events_next,
    .column = events_column,
    .state_free = events_state_free,
};

/* ---- xplane_stats: every stat in long form, its value type kept ----
**
** Rows come in three scopes, in this order per file: 'plane' (plane stats),
** 'event_metadata' (the stats of each event metadata entry), and 'event' (the
** effective stats of each event: its metadata's stats overlaid by its own;
** `origin` says which of the two each came from). Plane and metadata rows have
** no line, event or start, so a filter on those skips their scopes entirely.
*/

enum { SCOPE_PLANE = 0, SCOPE_METADATA, SCOPE_EVENT, SCOPE_DONE };

enum {
  T_PLANE_INDEX = XP_COL_FIRST_OWN, T_PLANE_NAME, T_LINE_INDEX, T_LINE_NAME, T_EVENT_INDEX,
  T_START_PS, T_SCOPE, T_ORIGIN, T_METADATA_ID, T_EVENT_NAME, T_STAT_ID, T_NAME, T_VALUE_TYPE,
  T_VALUE, T_REF_ID, T_N
};
static const char *const stats_cols[] = {
    "plane_index INTEGER", "plane_name TEXT", "line_index INTEGER", "line_name TEXT",
    "event_index INTEGER", "start_ps INTEGER", "scope TEXT", "origin TEXT", "metadata_id INTEGER",
    "event_name TEXT", "stat_id INTEGER", "name TEXT", "value_type TEXT", "value",
    "ref_id INTEGER"};

typedef struct stats_state {
  int scope;
  ev_walk w;        /* w.pos.plane serves all scopes; w.ev the event scope */
  int32_t item;     /* event metadata index, metadata scope */
  xp_statvec sv;    /* the stats of the current owner */
  int k;            /* current stat in sv */
} stats_state;

static void stats_state_free(xp_cursor *cur) {
  stats_state *st = cur->state;
  xp_statvec_free(&st->sv);
}

/* Load the next owner (plane, metadata entry or event) with at least one
** stat, moving through the scopes; returns 0 when the file is done. */
static int next_owner(xp_cursor *cur, stats_state *st) {
  const xp_profile *p = cur->prof;
  for (;;) {
    switch (st->scope) {
      case SCOPE_PLANE:
        if (!xp_seek_plane(cur, &st->w.pos)) {
          st->scope = SCOPE_METADATA;
          st->w.pos.plane = 0;
          st->item = -1;
          break;
        }
        if (!xp_plane_stats(p, &p->planes[st->w.pos.plane], &st->sv)) return -1;
        st->w.pos.plane++;
        if (st->sv.n) return 1;
        break;
      case SCOPE_METADATA: {
        st->item++;
        if (!xp_seek_plane(cur, &st->w.pos)) {
          st->scope = SCOPE_EVENT;
          walk_begin(&st->w);
          break;
        }
        const xp_plane *pl = &p->planes[st->w.pos.plane];
        if (st->item >= pl->n_emeta) {
          st->w.pos.plane++;
          st->item = -1;
          break;
        }
        if (pl->emeta[st->item].n_stats == 0) break;
        if (!xp_meta_stats(p, pl, &pl->emeta[st->item], &st->sv)) return -1;
        if (st->sv.n) return 1;
        break;
      }
      case SCOPE_EVENT:
        if (!walk_next(cur, &st->w)) {
          st->scope = SCOPE_DONE;
          return 0;
        }
        if (!xp_event_stats(p, walk_plane(cur, &st->w), &st->w.ev, &st->sv)) return -1;
        if (st->sv.n) return 1;
        break;
      default: return 0;
    }
  }
}

static int stats_advance(xp_cursor *cur, stats_state *st) {
  st->k++;
  if (st->k < st->sv.n) return SQLITE_OK;
  st->k = 0;
  int r = next_owner(cur, st);
  if (r < 0) return SQLITE_NOMEM;
  cur->file_eof = r == 0;
  return SQLITE_OK;
}

static int stats_first(xp_cursor *cur) {
  stats_state *st = cur->state;
  int only_events = cur->f.line_name || cur->f.has_line_index || ranged(cur);
  walk_begin(&st->w);
  st->scope = only_events ? SCOPE_EVENT : SCOPE_PLANE;
  st->item = -1;
  st->sv.n = 0;
  st->k = -1;
  return stats_advance(cur, st);
}

static int stats_next(xp_cursor *cur) { return stats_advance(cur, cur->state); }

static const char *const scope_names[] = {"plane", "event_metadata", "event"};
static const char *const origin_names[] = {"plane", "metadata", "event"};

static int stats_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  stats_state *st = cur->state;
  const xp_stat *s = &st->sv.v[st->k];
  int is_event = st->scope == SCOPE_EVENT;
  /* Plane and metadata scopes have already stepped past their plane. */
  int32_t plane = is_event ? st->w.pos.plane : st->scope == SCOPE_PLANE ? st->w.pos.plane - 1 : st->w.pos.plane;
  const xp_plane *pl = &cur->prof->planes[plane];
  switch (col) {
    case T_PLANE_INDEX: sqlite3_result_int64(ctx, plane); break;
    case T_PLANE_NAME: xp_result_str(ctx, pl->name); break;
    case T_LINE_INDEX: if (is_event) sqlite3_result_int64(ctx, st->w.pos.line); break;
    case T_LINE_NAME: if (is_event) xp_result_str(ctx, walk_line(cur, &st->w)->name); break;
    case T_EVENT_INDEX: if (is_event) sqlite3_result_int64(ctx, st->w.event_index); break;
    case T_START_PS:
      if (is_event && st->w.ev.has_offset) sqlite3_result_int64(ctx, xp_event_start(walk_line(cur, &st->w), &st->w.ev));
      break;
    case T_SCOPE: sqlite3_result_text(ctx, scope_names[st->scope], -1, SQLITE_STATIC); break;
    case T_ORIGIN: sqlite3_result_text(ctx, origin_names[s->origin], -1, SQLITE_STATIC); break;
    case T_METADATA_ID:
      if (is_event) sqlite3_result_int64(ctx, st->w.ev.metadata_id);
      else if (st->scope == SCOPE_METADATA) sqlite3_result_int64(ctx, pl->emeta[st->item].id);
      break;
    case T_EVENT_NAME:
      if (is_event) result_name(ctx, pl, &st->w.ev, 0);
      else if (st->scope == SCOPE_METADATA) xp_result_str(ctx, pl->emeta[st->item].name);
      break;
    case T_STAT_ID: sqlite3_result_int64(ctx, s->metadata_id); break;
    case T_NAME: if (s->name.p) xp_result_str(ctx, s->name); break;
    case T_VALUE_TYPE: sqlite3_result_text(ctx, xp_vtype_name(s->type), -1, SQLITE_STATIC); break;
    case T_VALUE: xp_result_stat_value(ctx, s); break;
    case T_REF_ID: if (s->type == XP_V_REF) sqlite3_result_int64(ctx, (int64_t)s->ref); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(stats_cols, T_N);
const xp_table xp_table_stats = {
    .name = "xplane_stats",
    .columns = stats_cols,
    .n_columns = T_N + 1,
    .needs_profile = 1,
    .push = {.plane_index = T_PLANE_INDEX, .plane_name = T_PLANE_NAME,
             .line_index = T_LINE_INDEX, .line_name = T_LINE_NAME, .start_ps = T_START_PS},
    .state_size = sizeof(stats_state),
    .first = stats_first,
    .next = stats_next,
    .column = stats_column,
    .state_free = stats_state_free,
};
