/*
** tables_files.c: the file-level tables.
**
**   SELECT * FROM xplane_files('logs/');   -- every profile under a logdir
**   SELECT * FROM xplane_space('logs/');   -- each XSpace's own fields
**
** xplane_files only lists (stat, no decode). xplane_space opens each profile
** and reports the XSpace message: hostnames, errors, warnings, the counts of
** planes/lines/events and of threads (the tracks of pf_model.h: the lines of
** a plane sharing an id, id 0 counting as index + 1), and the absolute
** profile start/stop time from the `Task Environment` plane where the
** producer wrote it, and the file's SHA-256 (computed on first request, then
** cached with the profile). Its values come from space.h, which the Perfetto
** converter writes into each trace too (the record `xplane.source`).
**
** xplane_files lists every entry of the path (discover.h) with `status`
** 'ok', or 'error' and the reason in `error`: a profile name that cannot be
** opened (dangling link, no permission) or a subdirectory that cannot be
** read (then source_format is NULL). It never fails for one entry; data
** tables fail naming such an entry, or skip it after
** SELECT xplane_skip_unreadable(1), and xplane_space then adds
** "skipped <file>: <why>" for each file skipped by its scan (an entry, or a
** profile that cannot be decoded) to the warnings of every row.
**
** source_format says what a profile is: 'xplane_pb' or 'perfetto_trace_json'
** (a Chrome/Perfetto JSON trace, json_trace.h). In xplane_files it is what
** the file looks like (name, else first bytes); in xplane_space what was
** read: source_file is the file read (a JSON trace read in place of an
** unreadable XPlane, see discover.h, differs from `file`), trace_events the
** entries of its traceEvents (NULL for an XPlane), display_time_unit its
** displayTimeUnit ('us' for an XPlane, as the reference summary says).
*/
#include <string.h>
#include <time.h>

#include "json.h"
#include "space.h"
#include "tables.h"

SQLITE_EXTENSION_INIT3

/* One row per file: state is a done flag. */
static int one_row_first(xp_cursor *cur) {
  cur->file_eof = 0;
  return SQLITE_OK;
}

static int one_row_next(xp_cursor *cur) {
  cur->file_eof = 1;
  return SQLITE_OK;
}

/* ---- xplane_files ---- */

enum { F_SIZE = XP_COL_FIRST_OWN, F_MTIME_NS, F_MTIME, F_SOURCE_FORMAT, F_STATUS, F_ERROR, F_N };
static const char *const files_cols[] = {"size INTEGER", "mtime_ns INTEGER", "mtime TEXT", "source_format TEXT",
                                         "status TEXT", "error TEXT"};

static int files_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  const xp_file *f = cur->file;
  /* An entry that cannot be read: only its status and error (size and times
  ** would be a link's or a directory's, not a profile's). */
  if (f->error && col != F_STATUS && col != F_ERROR && col != F_SOURCE_FORMAT) return SQLITE_OK;
  switch (col) {
    case F_SIZE: sqlite3_result_int64(ctx, f->size); break;
    case F_MTIME_NS: sqlite3_result_int64(ctx, f->mtime_ns); break;
    case F_MTIME: {
      time_t t = (time_t)(f->mtime_ns / 1000000000);
      struct tm tm;
      char buf[32];
      gmtime_r(&t, &tm);
      strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
      sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
      break;
    }
    case F_SOURCE_FORMAT:
      if (f->is_dir) break; /* NULL: a directory that could not be read */
      sqlite3_result_text(ctx, xp_source_format_name(f->is_json ? XP_SOURCE_TRACE_JSON : XP_SOURCE_XPLANE_PB), -1,
                          SQLITE_STATIC);
      break;
    case F_STATUS: sqlite3_result_text(ctx, f->error ? "error" : "ok", -1, SQLITE_STATIC); break;
    case F_ERROR: if (f->error) sqlite3_result_text(ctx, f->error, -1, SQLITE_TRANSIENT); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(files_cols, F_N);
const xp_table xp_table_files = {
    .name = "xplane_files",
    .columns = files_cols,
    .n_columns = F_N + 1,
    .needs_profile = 0,
    .first = one_row_first,
    .next = one_row_next,
    .column = files_column,
};

/* ---- xplane_space ---- */

enum {
  S_N_PLANES = XP_COL_FIRST_OWN, S_N_LINES, S_N_EVENTS, S_N_THREADS, S_HOSTNAMES, S_ERRORS, S_WARNINGS,
  S_START_NS, S_STOP_NS, S_TIME_BASE_NS, S_SIZE, S_SHA256, S_SOURCE_FORMAT, S_SOURCE_FILE, S_TRACE_EVENTS,
  S_DISPLAY_TIME_UNIT, S_N
};
static const char *const space_cols[] = {
    "n_planes INTEGER", "n_lines INTEGER", "n_events INTEGER", "n_threads INTEGER", "hostnames TEXT",
    "errors TEXT", "warnings TEXT", "profile_start_time_ns INTEGER", "profile_stop_time_ns INTEGER",
    "time_base_ns INTEGER", "size INTEGER", "sha256 TEXT", "source_format TEXT", "source_file TEXT",
    "trace_events INTEGER", "display_time_unit TEXT"};

/* The row: the profile's facts (space.h), the file hashed only when the
** query reads sha256. */
static int space_first(xp_cursor *cur) {
  xp_space *s = cur->state;
  char *err = NULL;
  xp_space_free(s);
  cur->file_eof = 0;
  if (xp_space_get(cur->prof, xp_col_used(cur, S_SHA256), s, &err)) {
    /* A profile the cache shares between hard links (cache.h) was read
    ** under another name: this row's file is the one read. */
    if (s->source_file && strcmp(s->source_file, cur->prof->path) == 0) s->source_file = cur->file->path;
    if (!cur->n_skipped) return SQLITE_OK;
    /* xplane_skip_unreadable(1): the entries the scan skipped, after the
    ** profile's own warnings. */
    xp_buf *b = xp_buf_new();
    size_t n = strlen(s->warnings);
    xp_buf_append(b, s->warnings, n - 1); /* without its ']' */
    for (int i = 0; i < cur->n_skipped; i++) {
      if (i || n > 2) xp_buf_appendall(b, ",");
      xp_json_string(b, cur->skipped[i], strlen(cur->skipped[i]));
    }
    xp_buf_appendall(b, "]");
    if (xp_buf_errcode(b)) {
      xp_buf_free(b);
      return SQLITE_NOMEM;
    }
    xp_free(s->warnings);
    s->warnings = xp_buf_finish(b);
    return SQLITE_OK;
  }
  int rc = xp_cursor_error(cur, "%s", err ? err : "out of memory");
  xp_free(err);
  return rc;
}

static void space_state_free(xp_cursor *cur) { xp_space_free(cur->state); }

static void result_text(sqlite3_context *ctx, const char *z) {
  if (z) sqlite3_result_text(ctx, z, -1, SQLITE_TRANSIENT);
}

static int space_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  const xp_space *s = cur->state;
  switch (col) {
    case S_N_PLANES: sqlite3_result_int64(ctx, s->n_planes); break;
    case S_N_LINES: sqlite3_result_int64(ctx, s->n_lines); break;
    case S_N_EVENTS: sqlite3_result_int64(ctx, s->n_events); break;
    case S_N_THREADS: sqlite3_result_int64(ctx, s->n_threads); break;
    case S_HOSTNAMES: result_text(ctx, s->hostnames); break;
    case S_ERRORS: result_text(ctx, s->errors); break;
    case S_WARNINGS: result_text(ctx, s->warnings); break;
    case S_START_NS: if (s->has_start_time) sqlite3_result_int64(ctx, s->profile_start_time_ns); break;
    case S_STOP_NS: if (s->has_stop_time) sqlite3_result_int64(ctx, s->profile_stop_time_ns); break;
    case S_TIME_BASE_NS: sqlite3_result_int64(ctx, s->time_base_ns); break;
    case S_SIZE: sqlite3_result_int64(ctx, s->size); break;
    case S_SHA256: result_text(ctx, s->sha256); break;
    case S_SOURCE_FORMAT: result_text(ctx, s->source_format); break;
    case S_SOURCE_FILE: result_text(ctx, s->source_file); break;
    case S_TRACE_EVENTS: if (s->has_trace_events) sqlite3_result_int64(ctx, s->trace_events); break;
    case S_DISPLAY_TIME_UNIT: result_text(ctx, s->display_time_unit); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(space_cols, S_N);
const xp_table xp_table_space = {
    .name = "xplane_space",
    .columns = space_cols,
    .n_columns = S_N + 1,
    .needs_profile = 1,
    .state_size = sizeof(xp_space),
    .first = space_first,
    .next = one_row_next,
    .column = space_column,
    .state_free = space_state_free,
};
