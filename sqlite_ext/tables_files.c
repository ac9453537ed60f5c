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
**
** source_format says what a profile is: 'xplane_pb' or 'perfetto_trace_json'
** (a Chrome/Perfetto JSON trace, json_trace.h). In xplane_files it is what
** the file looks like (name, else first bytes); in xplane_space what was
** read: source_file is the file read (a JSON trace read in place of an
** unreadable XPlane, see discover.h, differs from `file`), trace_events the
** entries of its traceEvents (NULL for an XPlane), display_time_unit its
** displayTimeUnit ('us' for an XPlane, as the reference summary says).
*/
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

enum { F_SIZE = XP_COL_FIRST_OWN, F_MTIME_NS, F_MTIME, F_SOURCE_FORMAT, F_N };
static const char *const files_cols[] = {"size INTEGER", "mtime_ns INTEGER", "mtime TEXT", "source_format TEXT"};

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
    case F_SOURCE_FORMAT:
      sqlite3_result_text(ctx, xp_source_format_name(f->is_json ? XP_SOURCE_TRACE_JSON : XP_SOURCE_XPLANE_PB), -1,
                          SQLITE_STATIC);
      break;
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
  S_START_NS, S_STOP_NS, S_TIME_BASE_NS, S_SIZE, S_SHA256, S_SOURCE_FORMAT, S_SOURCE_FILE, S_TRACE_EVENTS,
  S_DISPLAY_TIME_UNIT, S_N
};
static const char *const space_cols[] = {
    "n_planes INTEGER", "n_lines INTEGER", "n_events INTEGER", "hostnames TEXT", "errors TEXT",
    "warnings TEXT", "profile_start_time_ns INTEGER", "profile_stop_time_ns INTEGER", "time_base_ns INTEGER",
    "size INTEGER", "sha256 TEXT", "source_format TEXT", "source_file TEXT", "trace_events INTEGER",
    "display_time_unit TEXT"};

/* The SHA-256 of the file a JSON trace was read from (its bytes on disk, as
** the reference hashes them); 0 if it cannot be read now. */
static int file_sha256(const char *path, char hex[65]) {
  struct stat st;
  int ok = 0, fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    void *m = st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    if (m != MAP_FAILED) {
      xp_sha256_hex(m, (size_t)st.st_size, hex);
      if (m) munmap(m, (size_t)st.st_size);
      ok = 1;
    }
  }
  close(fd);
  return ok;
}

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
    case S_SIZE: sqlite3_result_int64(ctx, p->file_size); break;
    case S_SHA256:
      /* read only when asked for; kept with the cached profile */
      if (!p->sha256[0]) {
        if (p->source_format == XP_SOURCE_XPLANE_PB) xp_sha256_hex(p->base, (size_t)p->size, cur->prof->sha256);
        else if (!file_sha256(p->source_path, cur->prof->sha256))
          return xp_cursor_error(cur, "%s: cannot read it again to hash it", p->source_path);
      }
      sqlite3_result_text(ctx, p->sha256, 64, SQLITE_TRANSIENT);
      break;
    case S_SOURCE_FORMAT: sqlite3_result_text(ctx, xp_source_format_name(p->source_format), -1, SQLITE_STATIC); break;
    case S_SOURCE_FILE: sqlite3_result_text(ctx, p->source_path, -1, SQLITE_TRANSIENT); break;
    case S_TRACE_EVENTS:
      if (p->source_format == XP_SOURCE_TRACE_JSON) sqlite3_result_int64(ctx, p->n_trace_events);
      break;
    case S_DISPLAY_TIME_UNIT:
      if (p->source_format == XP_SOURCE_XPLANE_PB) sqlite3_result_text(ctx, "us", 2, SQLITE_STATIC);
      else if (p->display_time_unit) sqlite3_result_text(ctx, p->display_time_unit, -1, SQLITE_TRANSIENT);
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
