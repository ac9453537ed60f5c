/*
** cli/runner.c: the sqlite3 shell's way of running a query file, for the
** canned queries inside the xplane command (interface and rules: runner.h).
**
** A file is read whole and cut into lines. Outside a statement, a line that
** starts with '.' is a dot-command; every other line is appended to the
** pending SQL, which runs as soon as sqlite3_complete() says it is whole (the
** shell's rule). Each statement's parameters are bound from
** temp.sqlite_parameters by name, NULL when not set (the shell's rule).
*/
#include "runner.h"

#include <errno.h>
#include <signal.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

#define XR_MAX_DEPTH 16

void xr_init(xr_runner *r, sqlite3 *db, const char *qdir, FILE *out) {
  memset(r, 0, sizeof *r);
  r->db = db;
  r->qdir = qdir;
  r->out = out;
}

void xr_free(xr_runner *r) {
  sqlite3_free(r->err);
  r->err = NULL;
}

void xr_substitute(xr_runner *r, const char *from, const char *to) {
  if (r->nsubst < XR_MAX_SUBST) {
    r->subst_from[r->nsubst] = from;
    r->subst_to[r->nsubst] = to;
    r->nsubst++;
  }
}

void xr_after(xr_runner *r, const char *file, const char *extra) {
  if (r->nafter < XR_MAX_SUBST) {
    r->after_from[r->nafter] = file;
    r->after_to[r->nafter] = extra;
    r->nafter++;
  }
}

static int xr_fail(xr_runner *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  if (!r->err) r->err = m;
  else sqlite3_free(m);
  return 1;
}

static int xr_exec(xr_runner *r, const char *sql) {
  char *e = NULL;
  if (sqlite3_exec(r->db, sql, NULL, NULL, &e) != SQLITE_OK) {
    xr_fail(r, "%s", e ? e : sqlite3_errmsg(r->db));
    sqlite3_free(e);
    return 1;
  }
  return 0;
}

/* The shell's `.parameter init` (a sqlite_ name needs writable_schema, as in the shell). */
static int xr_param_init(xr_runner *r) {
  int was = 0;
  sqlite3_db_config(r->db, SQLITE_DBCONFIG_WRITABLE_SCHEMA, -1, &was);
  sqlite3_db_config(r->db, SQLITE_DBCONFIG_WRITABLE_SCHEMA, 1, NULL);
  int rc = xr_exec(r, "CREATE TABLE IF NOT EXISTS temp.sqlite_parameters(key TEXT PRIMARY KEY, value) WITHOUT ROWID");
  sqlite3_db_config(r->db, SQLITE_DBCONFIG_WRITABLE_SCHEMA, was, NULL);
  return rc;
}

static int xr_param_stmt(xr_runner *r, const char *name, sqlite3_stmt **st) {
  if (xr_param_init(r)) return 1;
  if (sqlite3_prepare_v2(r->db, "REPLACE INTO temp.sqlite_parameters(key, value) VALUES ('@' || ?1, ?2)", -1, st,
                         NULL) != SQLITE_OK)
    return xr_fail(r, "%s", sqlite3_errmsg(r->db));
  sqlite3_bind_text(*st, 1, name, -1, SQLITE_TRANSIENT);
  return 0;
}

static int xr_param_done(xr_runner *r, sqlite3_stmt *st) {
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : xr_fail(r, "%s", sqlite3_errmsg(r->db));
}

int xr_param_text(xr_runner *r, const char *name, const char *value) {
  sqlite3_stmt *st;
  if (xr_param_stmt(r, name, &st)) return 1;
  sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
  return xr_param_done(r, st);
}

int xr_param_int(xr_runner *r, const char *name, long long value) {
  sqlite3_stmt *st;
  if (xr_param_stmt(r, name, &st)) return 1;
  sqlite3_bind_int64(st, 2, value);
  return xr_param_done(r, st);
}

int xr_param_double(xr_runner *r, const char *name, double value) {
  sqlite3_stmt *st;
  if (xr_param_stmt(r, name, &st)) return 1;
  sqlite3_bind_double(st, 2, value);
  return xr_param_done(r, st);
}

/* Bind every parameter of st from temp.sqlite_parameters (NULL when unset). */
static int xr_bind(xr_runner *r, sqlite3_stmt *st) {
  int n = sqlite3_bind_parameter_count(st);
  if (n == 0) return 0;
  sqlite3_stmt *look = NULL;
  if (sqlite3_prepare_v2(r->db, "SELECT value FROM temp.sqlite_parameters WHERE key = ?1", -1, &look, NULL) !=
      SQLITE_OK) {
    look = NULL; /* no parameters were ever set: every one is NULL */
  }
  for (int i = 1; i <= n; i++) {
    const char *name = sqlite3_bind_parameter_name(st, i);
    if (!name || !look) continue;
    sqlite3_bind_text(look, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(look) == SQLITE_ROW) sqlite3_bind_value(st, i, sqlite3_column_value(look, 0));
    sqlite3_reset(look);
  }
  sqlite3_finalize(look);
  return 0;
}

/* A statement failed: where and why; a signal's interrupt says which signal,
** not the query file's line it happened to stop in, and an error of the
** extension is its own message. */
static int xr_stmt_fail(xr_runner *r, const char *label, int line) {
  int sig = xe_signal_caught();
  if (sig && sqlite3_errcode(r->db) == SQLITE_INTERRUPT)
    return xr_fail(r, "stopped by %s", sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal");
  /* The extension's own errors name their table or function and the file
  ** ("xplane_tracks: run/h.xplane.pb: truncated at byte ..."): the rest of it,
  ** from the file on, is the message; the table and where in which query file
  ** it surfaced say nothing to someone who typed a command. */
  const char *m = sqlite3_errmsg(r->db), *u = xr_user_error(m);
  if (u != m) return xr_fail(r, "%s", u);
  return xr_fail(r, "%s near line %d: %s", label, line, m);
}

const char *xr_user_error(const char *m) {
  const char *colon = strstr(m, ": ");
  if (strncmp(m, "xplane_", 7) == 0 && colon && !memchr(m, ' ', (size_t)(colon - m))) return colon + 2;
  return m;
}

/* Run every statement of sql (whole statements), printing rows. */
static int xr_sql(xr_runner *r, const char *label, int line, const char *sql) {
  const char *tail = sql;
  while (*tail) {
    sqlite3_stmt *st = NULL;
    const char *next = NULL;
    if (sqlite3_prepare_v2(r->db, tail, -1, &st, &next) != SQLITE_OK)
      return xr_stmt_fail(r, label, line);
    tail = next;
    if (!st) continue; /* white space or a comment */
    xr_bind(r, st);
    int nc = sqlite3_column_count(st), rc, first = 1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      if (first && r->headers && nc > 0) {
        for (int c = 0; c < nc; c++) fprintf(r->out, "%s%s", c ? "|" : "", sqlite3_column_name(st, c));
        fputc('\n', r->out);
      }
      first = 0;
      for (int c = 0; c < nc; c++) {
        const unsigned char *t = sqlite3_column_text(st, c);
        if (c) fputc('|', r->out);
        if (t) fwrite(t, 1, (size_t)sqlite3_column_bytes(st, c), r->out);
      }
      fputc('\n', r->out);
    }
    if (rc != SQLITE_DONE) {
      xr_stmt_fail(r, label, line);
      sqlite3_finalize(st);
      return 1;
    }
    sqlite3_finalize(st);
  }
  return 0;
}

/* Only white space and comments (the shell's test for "nothing pending"). */
static int xr_blank(const char *s) {
  while (*s) {
    if (isspace((unsigned char)*s)) s++;
    else if (s[0] == '-' && s[1] == '-') {
      while (*s && *s != '\n') s++;
    } else if (s[0] == '/' && s[1] == '*') {
      s += 2;
      while (*s && !(s[0] == '*' && s[1] == '/')) s++;
      if (*s) s += 2;
    } else
      return 0;
  }
  return 1;
}

/* Split a dot-command line into at most 4 arguments (quotes as the shell does). */
static int xr_args(char *line, char **argv, int max) {
  int n = 0;
  char *p = line;
  while (*p && n < max) {
    while (isspace((unsigned char)*p)) p++;
    if (!*p) break;
    if (*p == '\'' || *p == '"') {
      char q = *p++;
      argv[n++] = p;
      while (*p && *p != q) p++;
      if (*p) *p++ = 0;
    } else {
      argv[n++] = p;
      while (*p && !isspace((unsigned char)*p)) p++;
      if (*p) *p++ = 0;
    }
  }
  return n;
}

static int xr_read(xr_runner *r, const char *path);

static int xr_dot(xr_runner *r, const char *label, int line, char *cmd) {
  char *argv[4] = {0};
  int argc = xr_args(cmd + 1, argv, 4);
  if (argc == 0) return xr_fail(r, "%s line %d: empty dot-command", label, line);
  const char *c = argv[0];
  if (!strcmp(c, "read") && argc == 2) {
    /* The files name each other from the repository root (queries/lib/x.sql),
    ** or, installed, by absolute path (<datadir>/xplane/queries/lib/x.sql):
    ** either way the name inside the queries folder, read from r->qdir. */
    const char *p = argv[1], *q;
    if (!strncmp(p, "queries/", 8)) p += 8;
    while ((q = strstr(p, "/queries/")) != NULL) p = q + 9;
    for (int i = 0; i < r->nsubst; i++)
      if (!strcmp(p, r->subst_from[i])) {
        if (!r->subst_to[i]) return 0;
        p = r->subst_to[i];
        break;
      }
    if (xr_read(r, p)) return 1;
    for (int i = 0; i < r->nafter; i++)
      if (!strcmp(p, r->after_from[i]) && xr_read(r, r->after_to[i])) return 1;
    return 0;
  }
  if (!strcmp(c, "mode") && argc == 2 && !strcmp(argv[1], "list")) return 0;
  if (!strcmp(c, "headers") && argc == 2) {
    r->headers = !strcmp(argv[1], "on");
    return 0;
  }
  if (!strcmp(c, "bail") && argc == 2) return 0; /* the runner always stops at the first error */
  if (!strcmp(c, "parameter") && argc == 2 && !strcmp(argv[1], "init")) return xr_param_init(r);
  if (!strcmp(c, "print")) {
    for (int i = 1; i < argc; i++) fprintf(r->out, "%s%s", i > 1 ? " " : "", argv[i]);
    fputc('\n', r->out);
    return 0;
  }
  return xr_fail(r, "%s line %d: the xplane command does not run the shell command .%s here (run this file in sqlite3)",
                 label, line, c);
}

int xr_run_text(xr_runner *r, const char *label, const char *text) {
  size_t cap = strlen(text) + 2, len = 0;
  char *pending = malloc(cap);
  if (!pending) return xr_fail(r, "out of memory");
  pending[0] = 0;
  int line = 0, start_line = 0, rc = 0;
  const char *p = text;
  while (*p && rc == 0) {
    const char *eol = strchr(p, '\n');
    size_t n = eol ? (size_t)(eol - p) : strlen(p);
    line++;
    if (xr_blank(pending) && p[0] == '.') {
      char *cmd = malloc(n + 1);
      if (!cmd) {
        rc = xr_fail(r, "out of memory");
        break;
      }
      memcpy(cmd, p, n);
      cmd[n] = 0;
      len = 0;
      pending[0] = 0;
      rc = xr_dot(r, label, line, cmd);
      free(cmd);
    } else {
      if (xr_blank(pending)) start_line = line;
      memcpy(pending + len, p, n);
      len += n;
      pending[len++] = '\n';
      pending[len] = 0;
      if (sqlite3_complete(pending) && !xr_blank(pending)) {
        rc = xr_sql(r, label, start_line, pending);
        len = 0;
        pending[0] = 0;
      }
    }
    p = eol ? eol + 1 : p + n;
  }
  if (rc == 0 && !xr_blank(pending)) rc = xr_fail(r, "%s: incomplete SQL at the end (line %d)", label, start_line);
  free(pending);
  return rc;
}

static int xr_read(xr_runner *r, const char *name) {
  if (r->depth >= XR_MAX_DEPTH) return xr_fail(r, "%s: .read nested too deep", name);
  char *path = sqlite3_mprintf("%s/%s", r->qdir, name);
  size_t size = 0;
  char *text = path ? xe_read_file(path, &size) : NULL;
  int rc;
  if (!text) rc = xr_fail(r, "%s: cannot read the query file: %s", path ? path : name, strerror(errno));
  else {
    r->depth++;
    rc = xr_run_text(r, name, text);
    r->depth--;
  }
  free(text);
  sqlite3_free(path);
  return rc;
}

int xr_run(xr_runner *r, const char *file) { return xr_read(r, file); }
