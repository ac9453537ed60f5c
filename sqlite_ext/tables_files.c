/*
** tables_files.c: the file-level tables.
**
**   SELECT * FROM xplane_files('logs/');   -- every profile under a logdir
**   SELECT * FROM xplane_space('logs/');   -- each XSpace's own fields
**
** xplane_files only lists (stat, no decode). xplane_space opens each profile
** and reports the XSpace message: hostnames, errors, warnings, the counts of
** planes/lines/events, and the absolute profile start/stop time from the
** `Task Environment` plane where the producer wrote it, and the file's
** SHA-256 (computed on first request, then cached with the profile).
*/
#include <time.h>

#include "json.h"
#include "sha256.h"
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

enum { F_SIZE = XP_COL_FIRST_OWN, F_MTIME_NS, F_MTIME, F_N };
static const char *const files_cols[] = {"size INTEGER", "mtime_ns INTEGER", "mtime TEXT"};

static int files_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  const xp_file *f = cur->file;
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
  }
  return SQLITE_OK;
}

const xp_table xp_table_files = {
    .name = "xplane_files",
    .columns = files_cols,
    .n_columns = F_N + 1,
    .needs_profile = 0,
    .push = {-1, -1, -1, -1, -1},
    .first = one_row_first,
    .next = one_row_next,
    .column = files_column,
};

/* ---- xplane_space ---- */

enum {
  S_N_PLANES = XP_COL_FIRST_OWN, S_N_LINES, S_N_EVENTS, S_HOSTNAMES, S_ERRORS, S_WARNINGS,
  S_START_NS, S_STOP_NS, S_TIME_BASE_NS, S_SIZE, S_SHA256, S_N
};
static const char *const space_cols[] = {
    "n_planes INTEGER", "n_lines INTEGER", "n_events INTEGER", "hostnames TEXT", "errors TEXT",
    "warnings TEXT", "profile_start_time_ns INTEGER", "profile_stop_time_ns INTEGER", "time_base_ns INTEGER",
    "size INTEGER", "sha256 TEXT"};

static int space_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  const xp_profile *p = cur->prof;
  sqlite3_str *s;
  switch (col) {
    case S_N_PLANES: sqlite3_result_int64(ctx, p->n_planes); break;
    case S_N_LINES: sqlite3_result_int64(ctx, p->n_lines); break;
    case S_N_EVENTS: sqlite3_result_int64(ctx, p->n_events); break;
    case S_HOSTNAMES:
    case S_ERRORS:
    case S_WARNINGS:
      s = sqlite3_str_new(NULL);
      if (col == S_HOSTNAMES) xp_json_str_array(s, p->hostnames, p->n_hostnames);
      else if (col == S_ERRORS) xp_json_str_array(s, p->errors, p->n_errors);
      else xp_json_str_array(s, p->warnings, p->n_warnings);
      xp_result_json(ctx, s);
      break;
    case S_START_NS:
      if (p->has_start_time) sqlite3_result_int64(ctx, p->profile_start_time_ns);
      break;
    case S_STOP_NS:
      if (p->has_stop_time) sqlite3_result_int64(ctx, p->profile_stop_time_ns);
      break;
    case S_TIME_BASE_NS: sqlite3_result_int64(ctx, p->time_base_ns); break;
    case S_SIZE: sqlite3_result_int64(ctx, p->size); break;
    case S_SHA256:
      /* read only when asked for; kept with the cached profile */
      if (!p->sha256[0]) xp_sha256_hex(p->base, (size_t)p->size, cur->prof->sha256);
      sqlite3_result_text(ctx, p->sha256, 64, SQLITE_TRANSIENT);
      break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_space = {
    .name = "xplane_space",
    .columns = space_cols,
    .n_columns = S_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .first = one_row_first,
    .next = one_row_next,
    .column = space_column,
};
