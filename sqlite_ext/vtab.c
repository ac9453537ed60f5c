/*
** vtab.c: the shared table-valued-function machinery (see vtab.h).
*/
#include "vtab.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "result.h"

SQLITE_EXTENSION_INIT3

typedef struct xp_vtab {
  sqlite3_vtab base;
  const xp_table *t;
  xp_cache *cache;
  sqlite3 *db; /* for the interrupt probe (interrupt.h) */
} xp_vtab;

/* Module client data: the table and the connection's shared cache. */
typedef struct xp_module_aux {
  const xp_table *t;
  xp_cache *cache;
} xp_module_aux;

static int path_col(const xp_table *t) { return t->n_columns - 1; }
/* The hidden params column of a table with parameters, else -1. */
static int params_col(const xp_table *t) { return t->params ? t->n_columns : -1; }

static int xp_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                      sqlite3_vtab **out, char **err) {
  const xp_module_aux *a = aux;
  (void)argc;
  (void)argv;
  sqlite3_str *s = sqlite3_str_new(db);
  sqlite3_str_appendall(s, "CREATE TABLE x(file TEXT, run TEXT, host TEXT");
  for (int i = 0; i < a->t->n_columns - 4; i++) sqlite3_str_appendf(s, ", %s", a->t->columns[i]);
  sqlite3_str_appendall(s, a->t->params ? ", path HIDDEN, params HIDDEN)" : ", path HIDDEN)");
  char *sql = sqlite3_str_finish(s);
  if (!sql) return SQLITE_NOMEM;
  int rc = sqlite3_declare_vtab(db, sql);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) {
    *err = sqlite3_mprintf("%s: %s", a->t->name, sqlite3_errmsg(db));
    return rc;
  }
  /* These tables read files: a database schema must not reach them. */
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  xp_vtab *v = sqlite3_malloc(sizeof(*v));
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof(*v));
  v->t = a->t;
  v->cache = a->cache;
  v->db = db;
  *out = &v->base;
  return SQLITE_OK;
}

static int xp_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

/*
** The query plan, chosen by xp_best_index and decoded by xp_filter_rows.
**
**   idxNum bit   constraint                      argv[] value, in bit order
**   XP_P_PATH    path = ?   (the first argument)  the path to read
**   XP_P_FILE    file = ?                         a file path
**   XP_P_HOST    host = ?                         a host name
**   XP_P_PLANE_I plane_index = ?                  integer
**   XP_P_PLANE_N plane_name = ?                   text (BINARY collation only)
**   XP_P_LINE_I  line_index = ?                   integer
**   XP_P_LINE_N  line_name = ?                    text (BINARY collation only)
**   XP_P_LO      start_ps >= ? or > ?             lower bound
**   XP_P_HI      start_ps <= ? or < ?             upper bound
**   XP_P_ID      id = ?     (push.id)             an integer key: seek
**   XP_P_SET     arg_set_id = ? (push.set_id)     an integer key: seek
**   XP_P_LO_GT   (flag) the lower bound is strict
**   XP_P_HI_LT   (flag) the upper bound is strict
**   XP_P_PARAMS  params = ? (the second argument;    the table's parameters,
**                tables with parameters only)        after every other value
**
** Only path and params are consumed (omit); every other filter narrows the
** scan while decoding and SQLite still checks it, so a value of an
** unexpected type merely disables that filter (an id or set id seeks only
** for an integer, or a real or text SQLite reads as one: `id = '5'`,
** `id = 5.0`). A path constraint that is present but not usable gives
** SQLITE_CONSTRAINT (the planner must try another join order), and so does
** an unusable params constraint; no path at all is allowed here: xFilter
** then reads the connection's default path (xplane_use), or reports that a
** path is required.
**
** Cost: 1e6 with the path, divided by 4 per narrowing filter (1e12 without
** the path); an id seek (one row per file) divides it by 1e5 and a set id
** seek (one slice's args) by 1e4, also without the path. So the planner
** puts a table with a usable `id =` / `arg_set_id =` inner and calls xFilter
** once per outer row: a seek, not a rescan (the Perfetto-model tables keep
** the import they built across xFilter calls on the same profile,
** tables_perfetto.c). `id IN (...)` is the same equality constraint: SQLite
** calls xFilter once per value.
**
** idxStr spells the plan for EXPLAIN QUERY PLAN readers, then carries the
** query's colUsed mask, so that xFilter knows which columns are read and the
** tables skip building the others (the stats JSON, names) on the hot path:
**   "path,plane_name,start_ps>= cols:4024"   (mask in hex after "cols:")
*/
enum {
  XP_P_PATH = 0x001,
  XP_P_FILE = 0x002,
  XP_P_HOST = 0x004,
  XP_P_PLANE_I = 0x008,
  XP_P_PLANE_N = 0x010,
  XP_P_LINE_I = 0x020,
  XP_P_LINE_N = 0x040,
  XP_P_LO = 0x080,
  XP_P_HI = 0x100,
  XP_P_ID = 0x200,
  XP_P_SET = 0x400,
  XP_P_LO_GT = 0x800,
  XP_P_HI_LT = 0x1000,
  XP_P_PARAMS = 0x2000,
};
_Static_assert(XP_P_SET == 1 << (XP_PUSH_MAX_ARGS - 1), "XP_PUSH_MAX_ARGS: one argument per plan bit up to XP_P_SET");

/* The bit a usable constraint on column `col` with operator `op` earns. */
static int plan_bit(const xp_table *t, int col, int op, int *flag) {
  const xp_pushdown_cols *p = &t->push;
  *flag = 0;
  /* The rowid (and LIMIT/OFFSET) come as column -1. */
  if (col < 0) return 0;
  if (col == path_col(t)) return op == SQLITE_INDEX_CONSTRAINT_EQ ? XP_P_PATH : 0;
  if (col == params_col(t)) return op == SQLITE_INDEX_CONSTRAINT_EQ ? XP_P_PARAMS : 0;
  if (col < XP_COL_FIRST_OWN) {
    if (op != SQLITE_INDEX_CONSTRAINT_EQ) return 0;
    return col == XP_COL_FILE ? XP_P_FILE : col == XP_COL_HOST ? XP_P_HOST : 0;
  }
  /* An own column: a push entry of 0 (the table lacks that column) never
  ** equals one. */
  if (op == SQLITE_INDEX_CONSTRAINT_EQ) {
    if (col == p->plane_index) return XP_P_PLANE_I;
    if (col == p->plane_name) return XP_P_PLANE_N;
    if (col == p->line_index) return XP_P_LINE_I;
    if (col == p->line_name) return XP_P_LINE_N;
    if (col == p->id) return XP_P_ID;
    if (col == p->set_id) return XP_P_SET;
    return 0;
  }
  if (col != p->start_ps) return 0;
  switch (op) {
    case SQLITE_INDEX_CONSTRAINT_GT: *flag = XP_P_LO_GT; return XP_P_LO;
    case SQLITE_INDEX_CONSTRAINT_GE: return XP_P_LO;
    case SQLITE_INDEX_CONSTRAINT_LT: *flag = XP_P_HI_LT; return XP_P_HI;
    case SQLITE_INDEX_CONSTRAINT_LE: return XP_P_HI;
    default: return 0;
  }
}

static int is_text_filter(int bit) {
  return bit == XP_P_FILE || bit == XP_P_HOST || bit == XP_P_PLANE_N || bit == XP_P_LINE_N;
}

static int xp_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  const xp_table *t = ((xp_vtab *)vt)->t;
  int which[XP_PUSH_MAX_ARGS];
  int plan = 0, path_unusable = 0, params_unusable = 0, params_i = -1;
  for (int k = 0; k < XP_PUSH_MAX_ARGS; k++) which[k] = -1;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    int flag;
    int bit = plan_bit(t, c->iColumn, c->op, &flag);
    if (!bit) continue;
    if (!c->usable) {
      if (bit == XP_P_PATH) path_unusable = 1;
      if (bit == XP_P_PARAMS) params_unusable = 1;
      continue;
    }
    if (plan & bit) continue;
    if (bit == XP_P_PARAMS) {
      plan |= bit;
      params_i = i;
      continue;
    }
    if (is_text_filter(bit)) {
      const char *coll = sqlite3_vtab_collation(info, i);
      if (coll && sqlite3_stricmp(coll, "BINARY") != 0) continue;
    }
    plan |= bit | flag;
    for (int k = 0; k < XP_PUSH_MAX_ARGS; k++)
      if (bit == (1 << k)) which[k] = i;
  }
  if ((path_unusable && !(plan & XP_P_PATH)) || (params_unusable && !(plan & XP_P_PARAMS))) return SQLITE_CONSTRAINT;
  int argv_i = 0;
  double cost = 1e6;
  for (int k = 0; k < XP_PUSH_MAX_ARGS; k++) {
    if (which[k] < 0) continue;
    info->aConstraintUsage[which[k]].argvIndex = ++argv_i;
    info->aConstraintUsage[which[k]].omit = (k == 0);
    cost /= (k == 0) ? 1 : (1 << k) == XP_P_ID ? 1e5 : (1 << k) == XP_P_SET ? 1e4 : 4;
  }
  if (params_i >= 0) {
    info->aConstraintUsage[params_i].argvIndex = ++argv_i;
    info->aConstraintUsage[params_i].omit = 1;
  }
  if (!(plan & XP_P_PATH)) /* the default path (xplane_use), or the error */
    cost = 1e12 / ((plan & XP_P_ID) ? 1e5 : (plan & XP_P_SET) ? 1e4 : 1);
  info->idxNum = plan;
  info->estimatedCost = cost;
  info->estimatedRows = cost < 1 ? 1 : (sqlite3_int64)cost;
  static const char *const names[] = {"path",      "file",       "host",       "plane_index",
                                      "plane_name", "line_index", "line_name", "start_ps>=",
                                      "start_ps<=", "id",         "arg_set_id"};
  _Static_assert(sizeof(names) / sizeof(names[0]) == XP_PUSH_MAX_ARGS, "a plan name per argument");
  sqlite3_str *plan_text = sqlite3_str_new(NULL);
  for (int k = 0, n = 0; k < XP_PUSH_MAX_ARGS; k++) {
    if (!(plan & (1 << k))) continue;
    const char *name = names[k];
    if (k == 7 && (plan & XP_P_LO_GT)) name = "start_ps>";
    if (k == 8 && (plan & XP_P_HI_LT)) name = "start_ps<";
    sqlite3_str_appendf(plan_text, n++ ? ",%s" : "%s", name);
  }
  if (plan & XP_P_PARAMS) sqlite3_str_appendall(plan_text, ",params");
  sqlite3_str_appendf(plan_text, " cols:%llx", (unsigned long long)info->colUsed);
  info->idxStr = sqlite3_str_finish(plan_text);
  if (!info->idxStr) return SQLITE_NOMEM;
  info->needToFreeIdxStr = 1;
  return SQLITE_OK;
}

static int xp_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  xp_vtab *v = (xp_vtab *)vt;
  xp_cursor *cur = sqlite3_malloc(sizeof(*cur));
  if (!cur) return SQLITE_NOMEM;
  memset(cur, 0, sizeof(*cur));
  cur->t = v->t;
  cur->cache = v->cache;
  if (v->t->state_size) {
    cur->state = sqlite3_malloc64(v->t->state_size);
    if (!cur->state) {
      sqlite3_free(cur);
      return SQLITE_NOMEM;
    }
    memset(cur->state, 0, v->t->state_size);
  }
  cur->eof = 1;
  *out = &cur->base;
  return SQLITE_OK;
}

/* Forget the previous scan (files, profile, filter arguments). */
static void cursor_reset(xp_cursor *cur) {
  xp_profile_release(cur->prof);
  cur->prof = NULL;
  xp_filelist_free(&cur->files);
  for (int i = 0; i < cur->n_args; i++) sqlite3_value_free(cur->args[i]);
  cur->n_args = 0;
  cur->params_value = NULL;
  sqlite3_free(cur->root);
  cur->root = NULL;
  memset(&cur->f, 0, sizeof(cur->f));
  cur->file = NULL;
  cur->eof = 1;
  sqlite3_free(cur->skip);
  cur->skip = NULL;
  for (int i = 0; i < cur->n_skipped; i++) sqlite3_free(cur->skipped[i]);
  sqlite3_free(cur->skipped);
  cur->skipped = NULL;
  cur->n_skipped = 0;
}

static int xp_close(sqlite3_vtab_cursor *c) {
  xp_cursor *cur = (xp_cursor *)c;
  cursor_reset(cur);
  if (cur->t->state_free) cur->t->state_free(cur);
  sqlite3_free(cur->state);
  sqlite3_free(cur);
  return SQLITE_OK;
}

int xp_cursor_error(xp_cursor *cur, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  sqlite3_free(cur->base.pVtab->zErrMsg);
  cur->base.pVtab->zErrMsg = sqlite3_mprintf("%s: %s", cur->t->name, msg ? msg : "out of memory");
  sqlite3_free(msg);
  return SQLITE_ERROR;
}

int xp_col_used(const xp_cursor *cur, int col) {
  return col >= 63 || (cur->col_used >> col) & 1;
}

/* `have` is NULL for an absent name (n == 0): memcmp must not see it. */
static int text_match(const char *want, const char *have, size_t n) {
  return !want || (strlen(want) == n && (n == 0 || memcmp(want, have, n) == 0));
}

int xp_filter_plane(const xp_cursor *cur, int32_t plane_index, const xp_plane *pl) {
  if (cur->f.has_plane_index && cur->f.plane_index != plane_index) return 0;
  return text_match(cur->f.plane_name, pl->name.p, pl->name.n);
}

int xp_filter_line(const xp_cursor *cur, int32_t line_index, const xp_line *ln) {
  if (cur->f.has_line_index && cur->f.line_index != line_index) return 0;
  return text_match(cur->f.line_name, ln->name.p, ln->name.n);
}

int xp_filter_line_range(const xp_cursor *cur, const xp_line *ln) {
  if (cur->f.start_lo == INT64_MIN && cur->f.start_hi == INT64_MAX) return 1;
  /* Untimed events have no start and never match a start_ps range. */
  return ln->n_timed > 0 && ln->max_start_ps >= cur->f.start_lo && ln->min_start_ps <= cur->f.start_hi;
}

int xp_filter_start(const xp_cursor *cur, int64_t start_ps) {
  return start_ps >= cur->f.start_lo && start_ps <= cur->f.start_hi;
}

int xp_seek_plane(const xp_cursor *cur, xp_pos *pos) {
  for (; pos->plane < cur->prof->n_planes; pos->plane++)
    if (xp_filter_plane(cur, pos->plane, &cur->prof->planes[pos->plane])) return 1;
  return 0;
}

int xp_seek_line(const xp_cursor *cur, xp_pos *pos, int timed) {
  while (xp_seek_plane(cur, pos)) {
    const xp_plane *pl = &cur->prof->planes[pos->plane];
    for (; pos->line < pl->n_lines; pos->line++) {
      const xp_line *ln = &pl->lines[pos->line];
      if (xp_filter_line(cur, pos->line, ln) && (!timed || xp_filter_line_range(cur, ln))) return 1;
    }
    pos->plane++;
    pos->line = 0;
  }
  return 0;
}

/* An integer bound from an SQL value; 0 if the value is not numeric. */
static int bound_value(sqlite3_value *v, int lower, int strict, int64_t *out) {
  int type = sqlite3_value_numeric_type(v);
  if (type == SQLITE_INTEGER) {
    int64_t x = sqlite3_value_int64(v);
    if (strict && lower) { if (x == INT64_MAX) return 0; x++; }
    if (strict && !lower) { if (x == INT64_MIN) return 0; x--; }
    *out = x;
    return 1;
  }
  if (type != SQLITE_FLOAT) return 0;
  double d = sqlite3_value_double(v);
  if (d != d || d > 9.2e18 || d < -9.2e18) return 0;
  double r = lower ? ceil(d) : floor(d);
  if (strict && r == d) r += lower ? 1 : -1;
  *out = (int64_t)r;
  return 1;
}

/* An integer key from an SQL value: an integer, or a real or text that
** SQLite's numeric affinity makes a whole number in range; 0 otherwise (the
** filter is then off and SQLite's own check of the constraint decides). */
static int key_value(sqlite3_value *v, int64_t *out) {
  int type = sqlite3_value_numeric_type(v);
  if (type == SQLITE_INTEGER) {
    *out = sqlite3_value_int64(v);
    return 1;
  }
  if (type != SQLITE_FLOAT) return 0;
  double d = sqlite3_value_double(v);
  if (!(d >= -9.2e18 && d <= 9.2e18) || d != floor(d)) return 0;
  *out = (int64_t)d;
  return 1;
}

static const char *text_arg(sqlite3_value *v) {
  return sqlite3_value_type(v) == SQLITE_TEXT ? (const char *)sqlite3_value_text(v) : NULL;
}

/* Where an error of this cursor happened: "<table>: <file>" (the file once
** the scan is on one) and " (column <name>)" for col >= 0; sqlite3_malloc'd. */
static char *error_place(const xp_cursor *cur, int col) {
  const char *name = NULL;
  int n = 0;
  if (col >= XP_COL_FIRST_OWN && col < cur->t->n_columns - 1) {
    name = cur->t->columns[col - XP_COL_FIRST_OWN];
    n = (int)strcspn(name, " ");
  }
  return sqlite3_mprintf("%s%s%s%s%.*s%s", cur->t->name, cur->file ? ": " : "", cur->file ? cur->file->path : "",
                         name ? " (column " : "", n, name ? name : "", name ? ")" : "");
}

/* An out-of-memory or too-big code that carries no message yet gets one
** naming the table, the file and (col >= 0) the column; the code stays. */
static int named_rc(xp_cursor *cur, int rc, int col) {
  if ((rc != SQLITE_NOMEM && rc != SQLITE_TOOBIG) || cur->base.pVtab->zErrMsg) return rc;
  char *where = error_place(cur, col);
  cur->base.pVtab->zErrMsg = where ? xp_error_text_at(((xp_vtab *)cur->base.pVtab)->db, rc, where) : NULL;
  sqlite3_free(where);
  return rc;
}

void xp_cursor_result_buf(xp_cursor *cur, sqlite3_context *ctx, int col, xp_buf *b, int empty) {
  int too_long = (int64_t)xp_buf_length(b) > xp_result_max_length(((xp_vtab *)cur->base.pVtab)->db);
  char *where = xp_buf_errcode(b) || too_long ? error_place(cur, col) : NULL;
  xp_result_buf_at(ctx, b, empty, where);
  sqlite3_free(where);
}

/* The result of a row callback: whatever it said, a profile whose file
** changed under it (profile.h: shrank while mapped, or bytes that no longer
** match the index) ends the scan with an error naming the file; running out
** of memory names the table and the file. */
static int row_rc(xp_cursor *cur, int rc) {
  if (cur->prof && xp_profile_changed(cur->prof))
    return xp_cursor_error(cur, "%s: %s", cur->file->path, XP_CHANGED_TEXT);
  return named_rc(cur, rc, -1);
}

static int wanted(const xp_cursor *cur, const xp_file *f) {
  return (!cur->f.file || strcmp(cur->f.file, f->path) == 0) && (!cur->f.host || strcmp(cur->f.host, f->host) == 0);
}

/* xplane_skip_unreadable(1): open every file the scan wants now, so the
** skipped ones are known before the first row (xplane_space lists them all
** in each row's warnings), and mark them to be skipped. */
static int plan_skips(xp_cursor *cur) {
  if (!(cur->skip = sqlite3_malloc64((sqlite3_uint64)cur->files.n + 1))) return SQLITE_NOMEM;
  memset(cur->skip, 0, (size_t)cur->files.n + 1);
  for (int i = 0; i < cur->files.n; i++) {
    const xp_file *f = &cur->files.v[i];
    if (!wanted(cur, f)) continue;
    char *err = NULL;
    const char *why = f->error;
    xp_profile *p = NULL;
    if (!why) {
      p = xp_cache_get(cur->cache, f, &err);
      if (!p && xp_cancel_stopped()) { xp_free(err); return SQLITE_INTERRUPT; }
      why = err ? err : "out of memory";
      size_t n = strlen(f->path); /* "<path>: <why>" -> "<why>" */
      if (err && strncmp(err, f->path, n) == 0 && strncmp(err + n, ": ", 2) == 0) why = err + n + 2;
    }
    if (p) {
      xp_profile_release(p);
      continue;
    }
    char *line = sqlite3_mprintf("skipped %s: %s", f->path, why);
    xp_free(err);
    char **v = sqlite3_realloc64(cur->skipped, sizeof(char *) * (sqlite3_uint64)(cur->n_skipped + 1));
    if (!line || !v) { sqlite3_free(line); if (v) cur->skipped = v; return SQLITE_NOMEM; }
    cur->skipped = v;
    cur->skipped[cur->n_skipped++] = line;
    cur->skip[i] = 1;
  }
  return SQLITE_OK;
}

/* Advance to the first row at or after file cur->file_i. */
static int seek_file(xp_cursor *cur) {
  for (; cur->file_i < cur->files.n; cur->file_i++) {
    const xp_file *f = &cur->files.v[cur->file_i];
    if (!wanted(cur, f)) continue;
    if (cur->t->needs_profile && cur->skip && cur->skip[cur->file_i]) continue;
    cur->file = f;
    xp_profile_release(cur->prof);
    cur->prof = NULL;
    if (cur->t->needs_profile) {
      char *err = NULL;
      /* An entry discovery could not read (discover.h): fail naming it. */
      if (f->error) return xp_cursor_error(cur, "%s: %s", f->path, f->error);
      cur->prof = xp_cache_get(cur->cache, f, &err);
      if (!cur->prof) {
        int rc = xp_cursor_error(cur, "%s", err ? err : "out of memory");
        xp_free(err);
        return rc;
      }
    }
    cur->file_eof = 0;
    int rc = row_rc(cur, cur->t->first(cur));
    if (cur->t->needs_profile) xp_cache_trim(cur->cache); /* the profile's derived data is built: count it */
    if (rc != SQLITE_OK) return rc;
    if (!cur->file_eof) return SQLITE_OK;
  }
  cur->eof = 1;
  return SQLITE_OK;
}

static int filter_rows(sqlite3_vtab_cursor *c, int plan, const char *idx_str, int argc,
                       sqlite3_value **argv) {
  xp_cursor *cur = (xp_cursor *)c;
  cursor_reset(cur);
  const char *cols = idx_str ? strstr(idx_str, " cols:") : NULL;
  cur->col_used = cols ? (sqlite3_uint64)strtoull(cols + 6, NULL, 16) : ~(sqlite3_uint64)0;
  cur->f.start_lo = INT64_MIN;
  cur->f.start_hi = INT64_MAX;
  cur->rowid = 0;
  int a = 0;
  for (int k = 0; k < XP_PUSH_MAX_ARGS && a < argc; k++) {
    int bit = 1 << k;
    if (!(plan & bit)) continue;
    sqlite3_value *v = sqlite3_value_dup(argv[a++]);
    if (!v) return SQLITE_NOMEM;
    cur->args[cur->n_args++] = v;
    switch (bit) {
      case XP_P_PATH:
        if (sqlite3_value_type(v) == SQLITE_NULL)
          return xp_cursor_error(cur, "the path argument is NULL");
        if (xp_value_has_nul(v)) return xp_cursor_error(cur, XP_NUL_PATH_TEXT);
        cur->root = sqlite3_mprintf("%s", sqlite3_value_text(v));
        if (!cur->root) return SQLITE_NOMEM;
        break;
      case XP_P_FILE: cur->f.file = text_arg(v); break;
      case XP_P_HOST: cur->f.host = text_arg(v); break;
      case XP_P_PLANE_N: cur->f.plane_name = text_arg(v); break;
      case XP_P_LINE_N: cur->f.line_name = text_arg(v); break;
      case XP_P_PLANE_I:
        cur->f.has_plane_index = sqlite3_value_numeric_type(v) == SQLITE_INTEGER;
        cur->f.plane_index = sqlite3_value_int64(v);
        break;
      case XP_P_LINE_I:
        cur->f.has_line_index = sqlite3_value_numeric_type(v) == SQLITE_INTEGER;
        cur->f.line_index = sqlite3_value_int64(v);
        break;
      case XP_P_LO:
        if (!bound_value(v, 1, plan & XP_P_LO_GT, &cur->f.start_lo)) cur->f.start_lo = INT64_MIN;
        break;
      case XP_P_HI:
        if (!bound_value(v, 0, plan & XP_P_HI_LT, &cur->f.start_hi)) cur->f.start_hi = INT64_MAX;
        break;
      case XP_P_ID: cur->f.has_id = key_value(v, &cur->f.id); break;
      case XP_P_SET: cur->f.has_set_id = key_value(v, &cur->f.set_id); break;
    }
  }
  if (cur->t->params) {
    const char *params = NULL;
    if ((plan & XP_P_PARAMS) && a < argc) {
      sqlite3_value *v = sqlite3_value_dup(argv[a++]);
      if (!v) return SQLITE_NOMEM;
      cur->args[cur->n_args++] = v;
      cur->params_value = v;
      int type = sqlite3_value_type(v);
      if (type != SQLITE_NULL && type != SQLITE_TEXT)
        return xp_cursor_error(cur, "the params argument must be text like 'name=value,name=value' (or NULL)");
      params = text_arg(v);
    }
    int rc = cur->t->params(cur, params);
    if (rc != SQLITE_OK) return rc;
  }
  const char *only = xp_cache_confined(cur->cache);
  if (only && cur->root && strcmp(cur->root, only) != 0)
    return xp_cursor_error(cur, "this connection reads only its confined profile (xplane_use_only): "
                                "call %s without a path", cur->t->name);
  if (!cur->root) {
    const char *dflt = xp_cache_default_path(cur->cache);
    if (!dflt)
      return xp_cursor_error(cur,
                             "a path is required: SELECT ... FROM %s('<file, run dir or logdir>'), or choose "
                             "the profile of every table first with SELECT xplane_use('<path>')",
                             cur->t->name);
    if (!(cur->root = sqlite3_mprintf("%s", dflt))) return SQLITE_NOMEM;
  }
  char *err = NULL;
  if (!xp_discover(cur->root, &cur->files, &err)) {
    int rc = xp_cursor_error(cur, "%s", err ? err : "out of memory");
    xp_free(err);
    return rc;
  }
  if (cur->t->needs_profile && !cur->f.file && !cur->f.host) xp_cache_prefetch(cur->cache, &cur->files, cur->t->prepare);
  if (cur->t->needs_profile && xp_cache_skip_unreadable(cur->cache)) {
    int rc = plan_skips(cur);
    if (rc != SQLITE_OK) return rc;
  }
  cur->eof = 0;
  cur->file_i = 0;
  return seek_file(cur);
}

static int next_row(sqlite3_vtab_cursor *c) {
  xp_cursor *cur = (xp_cursor *)c;
  cur->rowid++;
  int rc = row_rc(cur, cur->t->next(cur));
  if (rc != SQLITE_OK || !cur->file_eof) return rc;
  cur->file_i++;
  return seek_file(cur);
}

/* xFilter and xNext run with the statement's interrupt reaching the core
** (interrupt.h): an interrupted decode, analysis or prefetch ends the scan
** with SQLITE_INTERRUPT, whatever error the interrupted work reported. */
static int interrupted_rc(sqlite3_vtab_cursor *c, int stopped, int rc) {
  if (!stopped) return rc;
  sqlite3_free(c->pVtab->zErrMsg);
  c->pVtab->zErrMsg = sqlite3_mprintf("%s", XP_CANCELLED_TEXT);
  ((xp_cursor *)c)->eof = 1;
  return SQLITE_INTERRUPT;
}

static int xp_filter_rows(sqlite3_vtab_cursor *c, int plan, const char *idx_str, int argc,
                          sqlite3_value **argv) {
  xp_sql_cancel sc;
  xp_sql_cancel_enter(&sc, ((xp_vtab *)c->pVtab)->db);
  int rc = named_rc((xp_cursor *)c, filter_rows(c, plan, idx_str, argc, argv), -1);
  return interrupted_rc(c, xp_sql_cancel_leave(&sc), rc);
}

static int xp_next(sqlite3_vtab_cursor *c) {
  xp_sql_cancel sc;
  xp_sql_cancel_enter(&sc, ((xp_vtab *)c->pVtab)->db);
  int rc = named_rc((xp_cursor *)c, next_row(c), -1);
  return interrupted_rc(c, xp_sql_cancel_leave(&sc), rc);
}

static int xp_eof(sqlite3_vtab_cursor *c) { return ((xp_cursor *)c)->eof; }

static int xp_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col) {
  xp_cursor *cur = (xp_cursor *)c;
  switch (col) {
    case XP_COL_FILE: sqlite3_result_text(ctx, cur->file->path, -1, SQLITE_TRANSIENT); return SQLITE_OK;
    case XP_COL_RUN: sqlite3_result_text(ctx, cur->file->run, -1, SQLITE_TRANSIENT); return SQLITE_OK;
    case XP_COL_HOST: sqlite3_result_text(ctx, cur->file->host, -1, SQLITE_TRANSIENT); return SQLITE_OK;
    default: break;
  }
  if (col == path_col(cur->t)) {
    sqlite3_result_text(ctx, cur->root, -1, SQLITE_TRANSIENT);
    return SQLITE_OK;
  }
  if (col == params_col(cur->t)) {
    if (cur->params_value) sqlite3_result_value(ctx, cur->params_value);
    return SQLITE_OK;
  }
  return named_rc(cur, cur->t->column(cur, ctx, col), col);
}

static int xp_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid) {
  *rowid = ((xp_cursor *)c)->rowid;
  return SQLITE_OK;
}

static const sqlite3_module xp_module = {
    .iVersion = 0,
    .xCreate = NULL, /* eponymous-only: used as a table-valued function */
    .xConnect = xp_connect,
    .xBestIndex = xp_best_index,
    .xDisconnect = xp_disconnect,
    .xDestroy = xp_disconnect,
    .xOpen = xp_open,
    .xClose = xp_close,
    .xFilter = xp_filter_rows,
    .xNext = xp_next,
    .xEof = xp_eof,
    .xColumn = xp_column,
    .xRowid = xp_rowid,
};

void xp_result_str(sqlite3_context *ctx, xp_str s) {
  sqlite3_result_text64(ctx, s.p ? s.p : "", s.n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

const char *xp_vtype_name(xp_vtype t) {
  switch (t) {
    case XP_V_DOUBLE: return "double";
    case XP_V_UINT64: return "uint64";
    case XP_V_INT64: return "int64";
    case XP_V_STR: return "str";
    case XP_V_BYTES: return "bytes";
    case XP_V_REF: return "ref";
    default: return "none";
  }
}

void xp_result_stat_value(sqlite3_context *ctx, const xp_stat *s) {
  switch (s->type) {
    case XP_V_DOUBLE: sqlite3_result_double(ctx, s->num.d); break;
    case XP_V_INT64: sqlite3_result_int64(ctx, s->num.i); break;
    case XP_V_UINT64:
      if (s->num.u <= (uint64_t)INT64_MAX) {
        sqlite3_result_int64(ctx, (sqlite3_int64)s->num.u);
      } else {
        /* Beyond int64: the exact decimal, as text. */
        char buf[24];
        sqlite3_snprintf(sizeof(buf), buf, "%llu", (unsigned long long)s->num.u);
        sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
      }
      break;
    case XP_V_STR:
    case XP_V_REF: xp_result_str(ctx, s->s); break;
    case XP_V_BYTES: sqlite3_result_blob64(ctx, s->s.p ? s->s.p : "", s->s.n, SQLITE_TRANSIENT); break;
    default: sqlite3_result_null(ctx); break;
  }
}

static void aux_free(void *p) {
  xp_module_aux *a = p;
  xp_cache_release(a->cache);
  sqlite3_free(a);
}

int xp_register_table(sqlite3 *db, const xp_table *t, xp_cache *cache) {
  xp_module_aux *a = sqlite3_malloc(sizeof(*a));
  if (!a) return SQLITE_NOMEM;
  a->t = t;
  a->cache = cache;
  xp_cache_retain(cache);
  return sqlite3_create_module_v2(db, t->name, &xp_module, a, aux_free);
}
