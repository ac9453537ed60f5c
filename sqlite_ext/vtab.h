/*
** vtab.h: the machinery every xplane_* table-valued function shares.
**
** Each table is described by an xp_table (its columns and three row
** callbacks); vtab.c turns the descriptor into an eponymous-only,
** SQLITE_VTAB_DIRECTONLY virtual table whose first argument is the path. The
** shared cursor walks the profiles the path names (discover.h), takes each
** from the connection's cache (cache.h), and asks the table for that file's
** rows. Every table starts with the columns `file, run, host` and ends with the
** hidden `path` (then, for a table with parameters, the hidden `params`: the
** function's second argument, e.g. xplane_findings(path, 'tiny_share=0.5'));
** filters on file, host, plane, line and start_ps are pushed
** down (see xp_best_index in vtab.c) and exposed to the row callbacks through
** the xp_filter helpers, so tables skip what cannot match while decoding.
*/
#ifndef XPLANE_VTAB_H
#define XPLANE_VTAB_H

#include "sqlite3ext.h"

#include "cache.h"
#include "discover.h"
#include "profile.h"

/* Arguments a scan's plan can carry: path, file, host, plane index and
** name, line index and name, start_ps lower and upper bound, row id and
** arg set id (vtab.c). */
#define XP_PUSH_MAX_ARGS 11

/* Columns every table begins with. */
enum { XP_COL_FILE = 0, XP_COL_RUN = 1, XP_COL_HOST = 2, XP_COL_FIRST_OWN = 3 };

typedef struct xp_cursor xp_cursor;

/* Which row-level columns a table has, for pushdown; 0 where absent
** (columns 0-2 are file, run and host, never one of these), so a
** descriptor names only the ones it has:
**   .push = {.plane_index = E_PLANE_INDEX, .start_ps = E_START_PS}
** `id` and `set_id` are integer keys the table can seek to (`id =`, `set_id
** =`: the Perfetto-model tables' id and arg_set_id); a table that names one
** reads cur->f.has_id / has_set_id and yields only the matching rows of
** each file. */
typedef struct xp_pushdown_cols {
  int plane_index, plane_name, line_index, line_name, start_ps, id, set_id;
} xp_pushdown_cols;

typedef struct xp_table {
  const char *name;
  /* Column declarations after file/run/host; the hidden path is appended. */
  const char *const *columns; /* XP_CHECK_COLUMNS ties them to the enum */
  int n_columns;              /* including file, run, host and path */
  int needs_profile;          /* 0: rows come from the file list alone */
  xp_pushdown_cols push;
  size_t state_size;          /* per-cursor state (zeroed) for the callbacks */
  /* Position on the first row of cur->prof (or cur->file); return SQLITE_OK
  ** and set cur->file_eof when the file has no matching row. */
  int (*first)(xp_cursor *cur);
  int (*next)(xp_cursor *cur);
  int (*column)(xp_cursor *cur, sqlite3_context *ctx, int col);
  void (*state_free)(xp_cursor *cur); /* may be NULL */
  /* Per-profile work done before the rows (e.g. the ops analysis); run on the
  ** decode threads for every file of a multi-file path. May be NULL. */
  int (*prepare)(xp_profile *p);
  /* A table with parameters (NULL for none) gets a second hidden column
  ** `params` after path. xFilter calls this with its text (NULL when not
  ** given or NULL) before any file is read; the table keeps what it parsed in
  ** its cursor state and returns SQLITE_OK, or an error through
  ** xp_cursor_error (a value that is neither text nor NULL is refused
  ** before the call). */
  int (*params)(xp_cursor *cur, const char *text);
} xp_table;

/* The pushed-down filters of one scan (decoded from the xBestIndex plan). */
typedef struct xp_filter {
  const char *file, *host, *plane_name, *line_name; /* NULL = any */
  int has_plane_index, has_line_index;
  int64_t plane_index, line_index;
  int64_t start_lo, start_hi;                       /* inclusive bounds */
  int has_id, has_set_id;                           /* id = / set_id = an integer */
  int64_t id, set_id;
} xp_filter;

struct xp_cursor {
  sqlite3_vtab_cursor base;
  const xp_table *t;
  xp_cache *cache;
  xp_filter f;
  sqlite3_value *args[XP_PUSH_MAX_ARGS + 1]; /* kept so filter strings outlive xFilter (+ params) */
  int n_args;
  sqlite3_value *params_value; /* the params argument (one of args), NULL if none */
  sqlite3_uint64 col_used;   /* which columns the query reads (xBestIndex) */
  char *root;
  xp_filelist files;
  int file_i;
  const xp_file *file;
  xp_profile *prof;
  int file_eof;
  int eof;
  sqlite3_int64 rowid;
  void *state;
  /* xplane_skip_unreadable(1): per file of `files`, skip it; and the text
  ** "skipped <file>: <why>" of each skipped one, in path order. */
  unsigned char *skip;
  char **skipped;
  int n_skipped;
};

/* Does the query read column `col` of this cursor's table? */
int xp_col_used(const xp_cursor *cur, int col);

/* Filter helpers for the row callbacks: does this plane / line / start pass? */
int xp_filter_plane(const xp_cursor *cur, int32_t plane_index, const xp_plane *pl);
int xp_filter_line(const xp_cursor *cur, int32_t line_index, const xp_line *ln);
/* Could a line with these start bounds hold a row in the start_ps range? */
int xp_filter_line_range(const xp_cursor *cur, const xp_line *ln);
int xp_filter_start(const xp_cursor *cur, int64_t start_ps);

/* A (plane, line) position in cur->prof. xp_seek_plane / xp_seek_line move
** it forward, from where it stands (inclusive), to the next plane or line
** that passes the filters (for lines, `timed` also asks for the start_ps
** range); they return 0 once the profile is exhausted. */
typedef struct xp_pos {
  int32_t plane, line;
} xp_pos;
int xp_seek_plane(const xp_cursor *cur, xp_pos *pos);
int xp_seek_line(const xp_cursor *cur, xp_pos *pos, int timed);

/* Record an error on the cursor's table (the SQL error the user sees). */
int xp_cursor_error(xp_cursor *cur, const char *fmt, ...);

/* Built text as a column's result (result.h): a failed build is SQLITE_NOMEM
** or SQLITE_TOOBIG with a message naming the table, the file and the column. */
void xp_cursor_result_buf(xp_cursor *cur, sqlite3_context *ctx, int col, xp_buf *b, int empty);

/* Result helpers. */
void xp_result_str(sqlite3_context *ctx, xp_str s);
void xp_result_stat_value(sqlite3_context *ctx, const xp_stat *s);
const char *xp_vtype_name(xp_vtype t);

/* Register one table as a module; client data is the connection's cache. */
int xp_register_table(sqlite3 *db, const xp_table *t, xp_cache *cache);

/* Ties a table's column declarations to its column enum: `cols` lists one
** declaration per own column, from XP_COL_FIRST_OWN up to `end` (the
** enum's last value + 1), and the descriptor's n_columns is `end` + 1 (the
** hidden path). Place it beside the descriptor. */
#define XP_CHECK_COLUMNS(cols, end) \
  _Static_assert(sizeof(cols) / sizeof((cols)[0]) == (end) - XP_COL_FIRST_OWN, \
                 #cols " must declare exactly the columns of its enum")

#endif
