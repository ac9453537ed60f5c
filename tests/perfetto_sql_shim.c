/*
** perfetto_sql_shim.c: run PerfettoSQL (the package tp_plugin/xplane and
** queries that include it) in plain SQLite, over the extension's
** Perfetto-shaped tables, for tests/test_perfetto.sh.
**
**   perfetto_sql_shim EXT PACKAGE_DIR PROFILE [SCRIPT.sql]   (else stdin)
**
** Loads the extension EXT, fills TEMP tables slice, thread_track, thread,
** process, args and flow from xplane_pf_*(PROFILE) (tables, not views: trace
** processor's are tables, and a view would rebuild the profile's rows at
** every scan of a join), then runs the script statement
** by statement, printing the rows of every statement that returns rows
** (columns joined by '|', NULL empty). The only rewriting is what SQLite
** lacks of PerfettoSQL:
**   INCLUDE PERFETTO MODULE pkg.a.b;  -> runs PACKAGE_DIR/a/b.sql (once)
**   CREATE PERFETTO TABLE t(cols) AS  -> CREATE TEMP TABLE t AS
**   CREATE PERFETTO VIEW v(cols) AS   -> CREATE TEMP VIEW v AS
**     (the typed column list is dropped: SQLite takes no types there; TEMP
**     because the views they read are TEMP; as trace processor does, the
**     names of the column list must be the SELECT's columns, in order)
**   CREATE PERFETTO INDEX i ON t(cols) -> CREATE INDEX i ON t(cols) (in
**     the TEMP schema, t's)
**   CREATE PERFETTO FUNCTION f(a TYPE, ...) RETURNS TYPE AS SELECT ...;
**     -> a SQLite function f that runs the SELECT with $a bound and returns
**     the first column of its first row (NULL when none); as trace processor
**     does, an argument must have its declared type or be NULL (an INTEGER
**     passed for a DOUBLE is an error) and a second row is an error
** and trace processor's built-in extract_arg(arg_set_id, key) is defined the
** same way over args (indexed on arg_set_id, key).
** Exit status: 0 ok, 1 any SQL error (printed with the statement).
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "sqlite3.h"

static sqlite3 *db;
static const char *package_dir;
static char **included;
static int n_included;

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "perfetto_sql_shim: out of memory\n");
    exit(1);
  }
  return p;
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t n = 0, cap = 1 << 16, r;
  char *s = xmalloc(cap);
  while ((r = fread(s + n, 1, cap - n - 1, f)) > 0) {
    n += r;
    if (n + 1 == cap) {
      char *t = realloc(s, cap *= 2);
      if (!t) exit(1);
      s = t;
    }
  }
  fclose(f);
  s[n] = 0;
  return s;
}

/* ---- PerfettoSQL functions as SQLite functions ---- */

typedef struct fn {
  char *name;
  char *body;
  int nargs;
  char **args; /* "$name" */
  int *types;  /* the SQLite type each argument must have (NULL always passes) */
  sqlite3_stmt *stmt;
  int busy;
} fn;

/* The SQLite value type of a PerfettoSQL argument type, 0 if unknown. */
static int sqlite_type_of(const char *t) {
  static const char *const ints[] = {"BOOL", "INT", "UINT", "LONG", "TIMESTAMP", "DURATION", "ID", "JOINID",
                                     "ARGSETID"};
  for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
    if (strcasecmp(t, ints[i]) == 0) return SQLITE_INTEGER;
  if (strcasecmp(t, "DOUBLE") == 0 || strcasecmp(t, "FLOAT") == 0) return SQLITE_FLOAT;
  if (strcasecmp(t, "STRING") == 0) return SQLITE_TEXT;
  if (strcasecmp(t, "BYTES") == 0 || strcasecmp(t, "PROTO") == 0) return SQLITE_BLOB;
  return 0;
}

static const char *type_name(int t) {
  return t == SQLITE_INTEGER ? "BOOL/INT/UINT/LONG"
         : t == SQLITE_FLOAT ? "FLOAT/DOUBLE"
         : t == SQLITE_TEXT  ? "STRING"
         : t == SQLITE_BLOB  ? "BYTES/PROTO"
                             : "NULL";
}

static void call_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  fn *f = sqlite3_user_data(ctx);
  /* as trace processor does: each argument has its declared type or is NULL
  ** (an INTEGER is not a DOUBLE), and the body returns at most one row */
  for (int i = 0; i < argc; i++) {
    int t = sqlite3_value_type(argv[i]);
    if (t != SQLITE_NULL && t != f->types[i]) {
      char *msg = sqlite3_mprintf("%s[arg=%s]: argument %d does not have expected type: expected %s, actual %s",
                                  f->name, sqlite3_value_text(argv[i]), i, type_name(f->types[i]), type_name(t));
      sqlite3_result_error(ctx, msg ? msg : "argument type", -1);
      sqlite3_free(msg);
      return;
    }
  }
  sqlite3_stmt *st = f->busy ? NULL : f->stmt;
  if (!st) {
    if (sqlite3_prepare_v2(db, f->body, -1, &st, NULL) != SQLITE_OK) {
      sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
      return;
    }
    if (!f->busy) f->stmt = st;
  }
  int own = st == f->stmt;
  if (own) f->busy = 1;
  for (int i = 0; i < argc; i++) {
    int k = sqlite3_bind_parameter_index(st, f->args[i]);
    if (k) sqlite3_bind_value(st, k, argv[i]);
  }
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    sqlite3_result_value(ctx, sqlite3_column_value(st, 0));
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      char *msg = sqlite3_mprintf("%s: multiple values were returned when executing function body", f->name);
      sqlite3_result_error(ctx, msg ? msg : "multiple values", -1);
      sqlite3_free(msg);
    }
  }
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if (own) f->busy = 0;
  else sqlite3_finalize(st);
}

/* ---- statement rewriting ---- */

/* Skip white space and comments from p. */
static const char *skip_ws(const char *p) {
  for (;;) {
    while (isspace((unsigned char)*p)) p++;
    if (p[0] == '-' && p[1] == '-') {
      while (*p && *p != '\n') p++;
    } else if (p[0] == '/' && p[1] == '*') {
      const char *e = strstr(p + 2, "*/");
      p = e ? e + 2 : p + strlen(p);
    } else {
      return p;
    }
  }
}

/* Does the text at p start with keyword kw (case-insensitive, whole word)?
** Returns the position after it, else NULL. */
static const char *keyword(const char *p, const char *kw) {
  p = skip_ws(p);
  size_t n = strlen(kw);
  if (strncasecmp(p, kw, n) != 0 || isalnum((unsigned char)p[n]) || p[n] == '_') return NULL;
  return p + n;
}

/* An identifier (letters, digits, _ and .) at p into out. */
static const char *ident(const char *p, char *out, size_t cap) {
  p = skip_ws(p);
  size_t n = 0;
  while ((isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '$') && n + 1 < cap) out[n++] = *p++;
  out[n] = 0;
  return p;
}

/* From '(' at p, the position after the matching ')' (comments are gone). */
static const char *skip_parens(const char *p) {
  int depth = 0;
  for (; *p; p++) {
    if (*p == '(') depth++;
    else if (*p == ')' && --depth == 0) return p + 1;
  }
  return p;
}

static int run_script(const char *sql, const char *origin);

/* The names of a column list `(a TYPE, b TYPE(x), ...)` from p to end,
** joined with ','. */
static char *column_names(const char *p, const char *end) {
  char *out = xmalloc((size_t)(end - p) + 1);
  size_t k = 0;
  int depth = 0, want = 1;
  for (; p < end; p++) {
    if (*p == '(' && ++depth == 1) continue;
    if (*p == ')') depth--;
    if (depth == 1 && *p == ',') want = 1;
    if (depth != 1 || !want || isspace((unsigned char)*p) || *p == ',') continue;
    if (k) out[k++] = ',';
    while (p < end && (isalnum((unsigned char)*p) || *p == '_')) out[k++] = *p++;
    p--;
    want = 0;
  }
  out[k] = 0;
  return out;
}

/* Are the columns of the TEMP table or view `name` the declared ones? */
static int check_columns(const char *name, const char *declared) {
  sqlite3_stmt *st;
  int ok = 0;
  if (sqlite3_prepare_v2(db, "SELECT group_concat(name, ',') FROM pragma_table_info(?, 'temp')", -1, &st, NULL) !=
      SQLITE_OK)
    return 0;
  sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  if (sqlite3_step(st) == SQLITE_ROW) {
    const char *got = (const char *)sqlite3_column_text(st, 0);
    ok = got && strcmp(got, declared) == 0;
    if (!ok) fprintf(stderr, "%s: declared columns (%s), the SELECT gives (%s)\n", name, declared, got ? got : "");
  }
  sqlite3_finalize(st);
  return ok;
}

static int run_plain(const char *stmt_sql) {
  const char *tail = stmt_sql;
  while (*skip_ws(tail)) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) {
      fprintf(stderr, "SQL error: %s\nin: %.400s\n", sqlite3_errmsg(db), stmt_sql);
      return 0;
    }
    if (!st) continue;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      int n = sqlite3_column_count(st);
      for (int i = 0; i < n; i++) {
        const unsigned char *v = sqlite3_column_text(st, i);
        printf("%s%s", i ? "|" : "", v ? (const char *)v : "");
      }
      putchar('\n');
    }
    if (rc != SQLITE_DONE) {
      fprintf(stderr, "SQL error: %s\nin: %.400s\n", sqlite3_errmsg(db), stmt_sql);
      sqlite3_finalize(st);
      return 0;
    }
    sqlite3_finalize(st);
  }
  return 1;
}

static int include_module(const char *name) {
  for (int i = 0; i < n_included; i++)
    if (strcmp(included[i], name) == 0) return 1;
  const char *dot = strchr(name, '.');
  if (!dot) {
    fprintf(stderr, "INCLUDE PERFETTO MODULE %s: not a package.module name\n", name);
    return 0;
  }
  char *path = xmalloc(strlen(package_dir) + strlen(name) + 8);
  sprintf(path, "%s/%s.sql", package_dir, dot + 1);
  for (char *c = path + strlen(package_dir) + 1; *c; c++)
    if (*c == '.' && strcmp(c, ".sql") != 0) *c = '/';
  char *sql = read_file(path);
  if (!sql) {
    fprintf(stderr, "INCLUDE PERFETTO MODULE %s: cannot read %s\n", name, path);
    free(path);
    return 0;
  }
  included = realloc(included, sizeof(char *) * (size_t)(n_included + 1));
  included[n_included++] = strdup(name);
  int ok = run_script(sql, path);
  free(sql);
  free(path);
  return ok;
}

static int define_function(const char *p) {
  char name[256], arg[256], type[64];
  p = ident(p, name, sizeof(name));
  p = skip_ws(p);
  if (*p != '(') return 0;
  fn *f = xmalloc(sizeof(*f));
  memset(f, 0, sizeof(*f));
  p++;
  for (;;) {
    p = skip_ws(p);
    if (*p == ')') {
      p++;
      break;
    }
    if (*p == ',') p++;
    p = ident(p, arg, sizeof(arg));
    p = ident(p, type, sizeof(type));
    if (!arg[0] || !type[0]) return 0;
    if (!sqlite_type_of(type)) {
      fprintf(stderr, "%s: argument %s: unknown type %s\n", name, arg, type);
      return 0;
    }
    f->args = realloc(f->args, sizeof(char *) * (size_t)(f->nargs + 1));
    f->types = realloc(f->types, sizeof(int) * (size_t)(f->nargs + 1));
    f->types[f->nargs] = sqlite_type_of(type);
    f->args[f->nargs] = xmalloc(strlen(arg) + 2);
    sprintf(f->args[f->nargs++], "$%s", arg);
  }
  if (!(p = keyword(p, "RETURNS"))) return 0;
  p = ident(p, type, sizeof(type));
  if (!(p = keyword(p, "AS"))) return 0;
  f->body = strdup(skip_ws(p));
  f->name = strdup(name);
  return sqlite3_create_function(db, name, f->nargs, SQLITE_UTF8, f, call_fn, NULL, NULL) == SQLITE_OK;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int run_statement_timed(const char *s);

/* With PERFETTO_SHIM_TIMING set, each statement's time goes to stderr. */
static int run_statement(const char *s) {
  if (!getenv("PERFETTO_SHIM_TIMING")) return run_statement_timed(s);
  double t0 = now_s();
  int ok = run_statement_timed(s);
  const char *b = skip_ws(s);
  fprintf(stderr, "%8.3f s  %.*s\n", now_s() - t0, (int)strcspn(b, "\n"), b);
  return ok;
}

static int run_statement_timed(const char *s) {
  const char *p, *q;
  char name[256];
  if ((p = keyword(s, "INCLUDE")) && (p = keyword(p, "PERFETTO")) && (p = keyword(p, "MODULE"))) {
    ident(p, name, sizeof(name));
    return include_module(name);
  }
  if ((p = keyword(s, "CREATE")) && (q = keyword(p, "PERFETTO"))) {
    const char *r;
    int is_table = 0;
    if ((r = keyword(q, "FUNCTION"))) {
      if (define_function(r)) return 1;
      fprintf(stderr, "cannot define the function in: %.300s\n", s);
      return 0;
    }
    if ((r = keyword(q, "INDEX"))) { /* CREATE PERFETTO INDEX i ON t(c) -> CREATE INDEX (t is TEMP) */
      char *out = xmalloc(strlen(r) + 16);
      sprintf(out, "CREATE INDEX %s", r);
      int ok = run_plain(out);
      free(out);
      return ok;
    }
    if ((r = keyword(q, "TABLE"))) is_table = 1;
    else if (!(r = keyword(q, "VIEW"))) return run_plain(s);
    r = ident(r, name, sizeof(name));
    r = skip_ws(r);
    char *declared = NULL;
    if (*r == '(') {
      const char *end = skip_parens(r);
      declared = column_names(r, end);
      r = end;
    }
    if (!(r = keyword(r, "AS"))) {
      fprintf(stderr, "expected AS in: %.300s\n", s);
      free(declared);
      return 0;
    }
    char *out = xmalloc(strlen(r) + strlen(name) + 32);
    sprintf(out, "CREATE TEMP %s %s AS %s", is_table ? "TABLE" : "VIEW", name, r);
    int ok = run_plain(out);
    free(out);
    if (ok && declared) ok = check_columns(name, declared);
    free(declared);
    return ok;
  }
  return run_plain(s);
}

/* Split on ';' outside strings, identifiers and comments, where the
** statement is complete (sqlite3_complete: a trigger's body holds ';'). */
static int run_script(const char *sql, const char *origin) {
  size_t n = strlen(sql);
  char *buf = xmalloc(n + 2);
  size_t k = 0;
  for (const char *p = sql; *p;) {
    if (*p == '\'' || *p == '"') {
      char quote = *p;
      buf[k++] = *p++;
      while (*p && !(*p == quote && p[1] != quote)) {
        if (*p == quote) buf[k++] = *p++;
        buf[k++] = *p++;
      }
      if (*p) buf[k++] = *p++;
    } else if (p[0] == '-' && p[1] == '-') {
      while (*p && *p != '\n') p++;
    } else if (p[0] == '/' && p[1] == '*') {
      const char *e = strstr(p + 2, "*/");
      p = e ? e + 2 : p + strlen(p);
    } else if (*p == ';') {
      buf[k] = ';';
      buf[k + 1] = 0;
      if (!sqlite3_complete(buf)) { /* inside CREATE TRIGGER ... BEGIN ... END */
        k++;
        p++;
        continue;
      }
      buf[k] = 0;
      if (*skip_ws(buf) && !run_statement(buf)) {
        fprintf(stderr, "(in %s)\n", origin);
        free(buf);
        return 0;
      }
      k = 0;
      p++;
    } else {
      buf[k++] = *p++;
    }
  }
  buf[k] = 0;
  int ok = !*skip_ws(buf) || run_statement(buf);
  free(buf);
  return ok;
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: perfetto_sql_shim EXT PACKAGE_DIR PROFILE [SCRIPT.sql]\n");
    return 2;
  }
  package_dir = argv[2];
  char *err = NULL;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK || sqlite3_enable_load_extension(db, 1) != SQLITE_OK ||
      sqlite3_load_extension(db, argv[1], NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "perfetto_sql_shim: cannot load %s: %s\n", argv[1], err ? err : sqlite3_errmsg(db));
    return 1;
  }
  static const char *const views[][2] = {
      {"slice", "id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id"},
      {"thread_track", "id, name, utid"},
      {"thread", "utid, tid, name, upid"},
      {"process", "upid, pid, name"},
      {"args", "id, arg_set_id, key, int_value, string_value, real_value, value_type"},
      {"flow", "id, slice_out, slice_in"}};
  for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
    char *sql = sqlite3_mprintf("CREATE TEMP TABLE %s AS SELECT %s FROM xplane_pf_%s(%Q)", views[i][0], views[i][1],
                                views[i][0], argv[3]);
    if (!run_plain(sql)) return 1;
    sqlite3_free(sql);
  }
  /* extract_arg(arg_set_id, key), trace processor's built-in: the arg's value
  ** (string_value, real_value or int_value by its value_type), NULL when
  ** the set has no such key (an arg set has one arg per key there too). */
  if (!run_plain("CREATE INDEX temp.args_set_key ON args(arg_set_id, key)") ||
      !define_function("extract_arg(arg_set_id ARGSETID, key STRING) RETURNS LONG AS "
                       "SELECT CASE value_type WHEN 'string' THEN string_value WHEN 'real' THEN real_value "
                       "ELSE int_value END FROM args WHERE arg_set_id = $arg_set_id AND key = $key")) {
    fprintf(stderr, "perfetto_sql_shim: cannot define extract_arg\n");
    return 1;
  }
  char *script = argc == 5 ? read_file(argv[4]) : read_file("/dev/stdin");
  if (!script) {
    fprintf(stderr, "perfetto_sql_shim: cannot read the script\n");
    return 1;
  }
  int ok = run_script(script, argc == 5 ? argv[4] : "stdin");
  free(script);
  sqlite3_close(db);
  return ok ? 0 : 1;
}
