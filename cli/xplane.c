/*
** cli/xplane.c: `xplane`, the profiling workflow as one command.
**
**   xplane summarize PATH [-o FILE] [--host H | --all-hosts -o DIR]
**   xplane report PATH | --summary FILE
**   xplane query PATH | --summary FILE "top 5 ops"
**   xplane compare BEFORE AFTER [--strict-provenance] [--format json|markdown]
**   xplane track BEFORE AFTER --label L --history DB [thresholds]
**   xplane history --history DB
**   xplane bundle BEFORE AFTER -o DIR
**   xplane convert PATH -o OUT
**   xplane sql [PATH]
**   xplane SUBCOMMAND --help
**
** Every subcommand runs the canned query files (queries/NAME.sql, installed under
** share/xplane/queries) through cli/runner.c, on the extension file
** (xplane.so) that users load themselves: one body of SQL and one build of
** the decoder, so what the command prints is what `.read queries/X.sql` prints
** in the sqlite3 shell, and the extension stays a loadable module on its own.
** (Linking the extension's sources in instead would compile them twice and
** ship two copies that could drift; `xplane sql` hands the same file to the
** sqlite3 shell.) Where the parts are found: cli/env.h.
**
** Values are bound, never evaluated: text options (paths, labels, op names)
** are stored as text parameters; numeric options are parsed here (the whole
** argument must be a number) and stored as numbers. Unknown options, missing
** values and extra arguments are usage errors.
**
** Exit status (documented in --help and README):
**   0  success; track: pass
**   1  error (bad input, unreadable file; message on stderr)
**   2  usage error (unknown option, missing argument)
**   3  track: warn
**   4  track: fail; compare --strict-provenance: the provenance check failed
**   SIGINT / SIGTERM: the statement is interrupted, an -o file is not
**   published, and the command ends by that signal (130 / 143 in a shell)
** stdout carries the data, stderr the messages and (only when it is a
** terminal, and not --quiet) progress.
*/
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "findings.h"
#include "runner.h"

#ifndef XPLANE_VERSION
#define XPLANE_VERSION "0.0.0"
#endif

enum { XS_OK = 0, XS_ERR = 1, XS_USAGE = 2, XS_WARN = 3, XS_FAIL = 4 };

/* ---- options ----------------------------------------------------------- */
/* An option a subcommand accepts: long name (without --), short letter (or
** 0), kind. Values land in opts[] by index. */
typedef enum { O_FLAG, O_TEXT, O_INT, O_NUM } okind;
typedef struct {
  const char *name;
  char short_name;
  okind kind;
} xopt;
typedef struct {
  const char *text;
  long long i;
  double d;
  int set;
} xval;

#define MAX_POS 4
typedef struct {
  const char *cmd;
  const xopt *opts;
  int nopts;
  xval val[32];
  const char *pos[MAX_POS];
  int npos;
} xargs;

static const char *prog = "xplane";

static int usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s %s: ", prog, cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n(see: %s %s --help)\n", prog, cmd);
  va_end(ap);
  return XS_USAGE;
}

static int parse_int(const char *s, long long *out) {
  if (!s || !*s) return 0;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || *end) return 0;
  *out = v;
  return 1;
}

static int parse_num(const char *s, double *out) {
  if (!s || !*s) return 0;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || *end || v != v) return 0;
  *out = v;
  return 1;
}

/* Parse argv (after the subcommand). Returns -1 when --help was asked (help
** printed by the caller), XS_USAGE on an error (printed), 0 otherwise. */
static int parse_args(xargs *a, int argc, char **argv, int min_pos, int max_pos) {
  int only_pos = 0;
  for (int i = 0; i < argc; i++) {
    const char *s = argv[i];
    if (!only_pos && (!strcmp(s, "--help") || !strcmp(s, "-h"))) return -1;
    if (!only_pos && !strcmp(s, "--")) {
      only_pos = 1;
      continue;
    }
    if (!only_pos && s[0] == '-' && s[1]) {
      const xopt *o = NULL;
      int idx = -1;
      const char *inline_val = NULL;
      if (s[1] == '-') {
        const char *name = s + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        for (int k = 0; k < a->nopts; k++)
          if (strlen(a->opts[k].name) == len && !strncmp(a->opts[k].name, name, len)) o = &a->opts[k], idx = k;
        if (eq) inline_val = eq + 1;
      } else if (!s[2]) {
        for (int k = 0; k < a->nopts; k++)
          if (a->opts[k].short_name == s[1]) o = &a->opts[k], idx = k;
      }
      if (!o) return usage_error(a->cmd, "unknown option %s", s);
      xval *v = &a->val[idx];
      if (o->kind == O_FLAG) {
        if (inline_val) return usage_error(a->cmd, "--%s takes no value", o->name);
        v->set = 1;
        continue;
      }
      const char *val = inline_val;
      if (!val) {
        if (i + 1 >= argc) return usage_error(a->cmd, "--%s needs a value", o->name);
        val = argv[++i];
      }
      if (o->kind == O_INT && !(parse_int(val, &v->i) && v->i >= 0))
        return usage_error(a->cmd, "--%s must be an integer >= 0, not '%s'", o->name, val);
      if (o->kind == O_NUM && !parse_num(val, &v->d))
        return usage_error(a->cmd, "--%s must be a number, not '%s'", o->name, val);
      if (!strcmp(o->name, "breakdown-mode") && strcmp(val, "exclusive_per_track") && strcmp(val, "exclusive_global"))
        return usage_error(a->cmd, "--breakdown-mode must be exclusive_per_track or exclusive_global, not '%s'", val);
      v->text = val;
      v->set = 1;
      continue;
    }
    if (a->npos >= max_pos || a->npos >= MAX_POS) return usage_error(a->cmd, "unexpected argument '%s'", s);
    a->pos[a->npos++] = s;
  }
  if (a->npos < min_pos) return usage_error(a->cmd, "missing argument(s)");
  return 0;
}

static xval *opt(xargs *a, const char *name) {
  for (int k = 0; k < a->nopts; k++)
    if (!strcmp(a->opts[k].name, name)) return &a->val[k];
  return NULL;
}
static int has(xargs *a, const char *name) {
  xval *v = opt(a, name);
  return v && v->set;
}
static const char *text(xargs *a, const char *name) {
  xval *v = opt(a, name);
  return v && v->set ? v->text : NULL;
}

/* The options every profile-reading subcommand shares. */
#define SUMMARY_OPTS                                                                                     \
  {"warmup-steps", 0, O_INT}, {"hot-op-limit", 0, O_INT}, {"breakdown-mode", 0, O_TEXT}, {"quiet", 'q', O_FLAG}, \
      {"progress", 0, O_FLAG}
#define THRESHOLD_OPTS                                                                                   \
  {"max-step-median-regression-pct", 0, O_NUM}, {"max-step-p90-regression-pct", 0, O_NUM},                 \
      {"max-communication-share-regression-abs", 0, O_NUM}, {"max-stall-share-regression-abs", 0, O_NUM},    \
      {"max-idle-share-regression-abs", 0, O_NUM}

/* ---- the session ------------------------------------------------------- */
typedef struct {
  xe_env env;
  sqlite3 *db;
  int quiet;    /* --quiet: no message or progress on stderr */
  int progress; /* 1 --progress, 0 when stderr is a terminal, -1 never (env.h) */
} xsession;

/* An error on stderr as "xplane: MESSAGE" (err.h's vwarnx: the program's
** name, the message, a newline); returns XS_ERR, for `return errorf(...)`. */
static int errorf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vwarnx(fmt, ap);
  va_end(ap);
  return XS_ERR;
}

/* The connection's last error, as the command prints it (runner.h: xr_user_error). */
static int sql_error(sqlite3 *db) { return errorf("%s", xr_user_error(sqlite3_errmsg(db))); }

/* Open the session for the options of a: --quiet, --progress. */
static int session_open(xsession *s, xargs *a) {
  char *err = NULL;
  s->quiet = has(a, "quiet");
  s->progress = s->quiet ? -1 : has(a, "progress") ? 1 : 0;
  if (s->quiet && has(a, "progress")) return usage_error(a->cmd, "--quiet and --progress exclude each other");
  if (xe_locate(&s->env, &err) != 0 || !(s->db = xe_open(&s->env, &err))) {
    int rc = errorf("%s", err ? err : "cannot start");
    sqlite3_free(err);
    return rc;
  }
  xe_catch_signals(s->db);
  return 0;
}

static void session_close(xsession *s) {
  if (s->db) sqlite3_close(s->db);
  s->db = NULL;
}

/* Reset the connection's parameters between runs. */
static void params_clear(xsession *s) {
  sqlite3_exec(s->db, "DROP TABLE IF EXISTS temp.sqlite_parameters", NULL, NULL, NULL);
}

/* Copy the summary options of a into the runner's parameters. */
static int set_summary_params(xr_runner *r, xargs *a) {
  int rc = 0;
  if (has(a, "warmup-steps")) rc |= xr_param_int(r, "warmup_steps", opt(a, "warmup-steps")->i);
  if (has(a, "hot-op-limit")) rc |= xr_param_int(r, "hot_op_limit", opt(a, "hot-op-limit")->i);
  if (has(a, "breakdown-mode")) rc |= xr_param_text(r, "breakdown_mode", text(a, "breakdown-mode"));
  if (has(a, "top-k")) rc |= xr_param_int(r, "top_k", opt(a, "top-k")->i);
  return rc;
}

static long long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

/* Run queries/<file>; output to out (NULL: stdout). */
static int run_query(xsession *s, xr_runner *r, const char *file, const char *what, long long bytes) {
  xe_progress_begin(s->db, s->progress, what, bytes);
  int rc = xr_run(r, file);
  xe_progress_end(s->db, rc == 0);
  if (rc) {
    errorf("%s", r->err ? r->err : "failed");
    return XS_ERR;
  }
  return XS_OK;
}

/* ---- profiles of a path ------------------------------------------------ */
typedef struct {
  char *file, *run, *host;
} xprof;
typedef struct {
  xprof *v;
  int n;
} xprofs;

static void profs_free(xprofs *p) {
  for (int i = 0; i < p->n; i++) sqlite3_free(p->v[i].file), sqlite3_free(p->v[i].run), sqlite3_free(p->v[i].host);
  free(p->v);
  p->v = NULL;
  p->n = 0;
}

/* The profile files PATH names (a file, a run directory, a logdir). */
static int list_profiles(xsession *s, const char *path, xprofs *out) {
  memset(out, 0, sizeof *out);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(s->db, "SELECT file, run, host FROM xplane_files(?1) ORDER BY run, host", -1, &st, NULL))
    return sql_error(s->db);
  sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    xprof *nv = realloc(out->v, sizeof *nv * (size_t)(out->n + 1));
    if (!nv) break;
    out->v = nv;
    nv[out->n].file = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
    nv[out->n].run = sqlite3_mprintf("%s", sqlite3_column_text(st, 1) ? (const char *)sqlite3_column_text(st, 1) : "");
    nv[out->n].host = sqlite3_mprintf("%s", sqlite3_column_text(st, 2) ? (const char *)sqlite3_column_text(st, 2) : "");
    out->n++;
  }
  if (rc != SQLITE_DONE) {
    int e = sql_error(s->db);
    sqlite3_finalize(st);
    profs_free(out);
    return e;
  }
  sqlite3_finalize(st);
  if (out->n == 0) return errorf("%s: no profile (.xplane.pb or JSON trace) found", path);
  return 0;
}

/* Keep the profiles of host H (H, or RUN/H). */
static int pick_host(xprofs *p, const char *path, const char *host) {
  int k = 0;
  for (int i = 0; i < p->n; i++) {
    char *rh = sqlite3_mprintf("%s/%s", p->v[i].run, p->v[i].host);
    int keep = !strcmp(p->v[i].host, host) || (rh && !strcmp(rh, host));
    sqlite3_free(rh);
    if (keep) p->v[k++] = p->v[i];
    else sqlite3_free(p->v[i].file), sqlite3_free(p->v[i].run), sqlite3_free(p->v[i].host);
  }
  p->n = k;
  if (k == 0) return errorf("%s: no host named '%s'", path, host);
  if (k > 1) return errorf("%s: host '%s' is in %d runs: pass --host RUN/%s", path, host, k, host);
  return 0;
}

static void list_hosts(const xprofs *p, FILE *f) {
  for (int i = 0; i < p->n; i++) fprintf(f, "  %s/%s  (%s)\n", p->v[i].run, p->v[i].host, p->v[i].file);
}

/* ---- metadata facts ---------------------------------------------------- */
#define XS_METADATA_MAX_BYTES (1 << 20) /* a --metadata file */
#define XS_METADATA_MAX_FACTS 1000      /* keys in it */
/* Fill temp.xq_run_facts from --metadata FILE: a JSON object (scalar values)
** or a CSV of key,value rows (a first row key,value is a header). */
static int load_metadata(xsession *s, const char *path) {
  if (sqlite3_exec(s->db, "DROP TABLE IF EXISTS temp.xq_run_facts; CREATE TEMP TABLE xq_run_facts(key TEXT, value TEXT)",
                   NULL, NULL, NULL))
    return sql_error(s->db);
  if (!path) return 0;
  /* Run facts are a handful of keys: the file is read up to its bound only (a
  ** FIFO or /dev/zero cannot make memory grow), and more is refused. */
  FILE *mf = fopen(path, "rb");
  if (!mf) return errorf("--metadata %s: %s", path, strerror(errno));
  char *buf = malloc(XS_METADATA_MAX_BYTES + 2);
  size_t size = buf ? fread(buf, 1, XS_METADATA_MAX_BYTES + 1, mf) : 0;
  int read_err = buf ? ferror(mf) : ENOMEM;
  fclose(mf);
  if (!buf || read_err) {
    free(buf);
    return errorf("--metadata %s: %s", path, buf ? "read error" : strerror(ENOMEM));
  }
  if (size > XS_METADATA_MAX_BYTES) {
    free(buf);
    return errorf("--metadata %s: larger than %d bytes (run facts are a few keys)", path, XS_METADATA_MAX_BYTES);
  }
  buf[size] = 0;
  if (memchr(buf, 0, size)) {
    free(buf);
    return errorf("--metadata %s: holds a NUL byte: not a JSON or CSV text", path);
  }
  const char *p = buf;
  while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
  sqlite3_stmt *st = NULL;
  int rc = 0;
  if (*p == '{') {
    if (sqlite3_prepare_v2(s->db,
                           "INSERT INTO xq_run_facts SELECT key, CASE WHEN type IN ('object','array') THEN json(value) "
                           "WHEN type IN ('true','false') THEN type ELSE CAST(value AS TEXT) END "
                           "FROM json_each(?1) WHERE json_valid(?1) AND type <> 'null' ORDER BY id",
                           -1, &st, NULL) == SQLITE_OK) {
      sqlite3_bind_text(st, 1, p, -1, SQLITE_STATIC);
      if (sqlite3_step(st) != SQLITE_DONE) rc = errorf("--metadata %s: %s", path, sqlite3_errmsg(s->db));
      sqlite3_finalize(st);
      sqlite3_stmt *chk;
      sqlite3_prepare_v2(s->db, "SELECT json_valid(?1) AND json_type(?1) = 'object'", -1, &chk, NULL);
      sqlite3_bind_text(chk, 1, p, -1, SQLITE_STATIC);
      if (!rc && (sqlite3_step(chk) != SQLITE_ROW || !sqlite3_column_int(chk, 0)))
        rc = errorf("--metadata %s: not a JSON object", path);
      sqlite3_finalize(chk);
    }
  } else {
    /* CSV: key,value per line; values may be double-quoted ("" inside). */
    sqlite3_prepare_v2(s->db, "INSERT INTO xq_run_facts VALUES (?1, ?2)", -1, &st, NULL);
    int lineno = 0;
    char *line = buf;
    while (!rc && line && *line) {
      char *nl = strchr(line, '\n');
      if (nl) *nl = 0;
      size_t L = strlen(line);
      if (L && line[L - 1] == '\r') line[--L] = 0;
      lineno++;
      if (L) {
        char *comma = strchr(line, ',');
        if (!comma) {
          rc = errorf("--metadata %s line %d: expected key,value", path, lineno);
          break;
        }
        *comma = 0;
        char *val = comma + 1;
        if (*val == '"' && L > 1 && line[L - 1] == '"') {
          line[L - 1] = 0;
          val++;
          char *w = val;
          for (char *q = val; *q; q++) {
            *w++ = *q;
            if (q[0] == '"' && q[1] == '"') q++;
          }
          *w = 0;
        }
        if (!(lineno == 1 && !strcmp(line, "key") && !strcmp(val, "value"))) {
          sqlite3_bind_text(st, 1, line, -1, SQLITE_STATIC);
          sqlite3_bind_text(st, 2, val, -1, SQLITE_STATIC);
          if (sqlite3_step(st) != SQLITE_DONE) rc = errorf("--metadata %s: %s", path, sqlite3_errmsg(s->db));
          sqlite3_reset(st);
        }
      }
      line = nl ? nl + 1 : NULL;
    }
    sqlite3_finalize(st);
  }
  free(buf);
  if (!rc) {
    sqlite3_stmt *n = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM xq_run_facts", -1, &n, NULL) == SQLITE_OK &&
        sqlite3_step(n) == SQLITE_ROW && sqlite3_column_int(n, 0) > XS_METADATA_MAX_FACTS)
      rc = errorf("--metadata %s: %d facts, at most %d", path, sqlite3_column_int(n, 0), XS_METADATA_MAX_FACTS);
    sqlite3_finalize(n);
  }
  return rc;
}

static int add_fact(xsession *s, const char *key, const char *value) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(s->db,
                         "INSERT INTO xq_run_facts SELECT ?1, ?2 WHERE NOT EXISTS (SELECT 1 FROM xq_run_facts WHERE key = ?1)",
                         -1, &st, NULL))
    return sql_error(s->db);
  sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sql_error(s->db);
  sqlite3_finalize(st);
  return rc;
}

/* ---- output ------------------------------------------------------------ */
/* -o FILE: a regular file (or a new one) is written as FILE.tmp-XXXXXX beside
** it and renamed over FILE only when the command succeeded, so a failed or
** interrupted run leaves FILE as it was (never truncated or half written);
** like `sort -o` and most Unix tools, an existing FILE is replaced. A FILE
** that is not a regular file (/dev/null, a FIFO) is written in place; a
** symbolic link is followed (its target is replaced). "-" or no -o: stdout. */
static char out_tmp[PATH_MAX + 16], out_final[PATH_MAX];

static FILE *open_out(const char *path) {
  if (!path || !strcmp(path, "-")) return stdout;
  struct stat st;
  out_tmp[0] = 0;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    FILE *f = fopen(path, "w");
    if (!f) errorf("%s: %s", path, strerror(errno));
    return f;
  }
  const char *target = path;
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, out_final)) target = out_final;
  else if (snprintf(out_final, sizeof out_final, "%s", path) >= (int)sizeof out_final) {
    errorf("%s: %s", path, strerror(ENAMETOOLONG));
    return NULL;
  }
  snprintf(out_tmp, sizeof out_tmp, "%s.tmp-XXXXXX", target);
  int fd = mkstemp(out_tmp);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    errorf("%s: %s", path, strerror(errno));
    if (fd >= 0) close(fd), unlink(out_tmp);
    out_tmp[0] = 0;
    return NULL;
  }
  mode_t um = umask(0);
  umask(um);
  fchmod(fd, 0666 & ~um); /* the mode fopen would give, not mkstemp's 0600 */
  return f;
}

/* Finish -o: ok (the command succeeded) publishes FILE, else the temporary
** file is removed. Returns 0, or XS_ERR with a message. */
static int close_out(FILE *f, const char *path, int ok) {
  if (f == stdout) { /* a write that failed earlier leaves the error flag, with nothing left to flush */
    int bad = fflush(stdout) != 0 || ferror(stdout);
    return bad ? errorf("stdout: %s", errno ? strerror(errno) : "write error") : 0;
  }
  /* a write that failed earlier (a large fwrite goes straight to the file)
  ** leaves only the error flag: fclose, with nothing left to flush, succeeds */
  int earlier = ferror(f), e_earlier = errno; /* the failed write's errno, unless a later call changed it */
  int bad = fclose(f) != 0, e = errno;
  if (earlier && !bad) bad = 1, e = e_earlier ? e_earlier : EIO;
  if (!out_tmp[0]) return bad ? errorf("%s: %s", path, strerror(e)) : 0;
  if (!bad && ok && rename(out_tmp, out_final) != 0) bad = 1, e = errno;
  if (bad || !ok) unlink(out_tmp);
  out_tmp[0] = 0;
  return bad ? errorf("%s: %s", path, strerror(e)) : 0;
}

/* ---- summarize / report for one profile -------------------------------- */
/* Build one profile's summary (with run metadata) and print summary.sql's
** or report.sql's output to out. */
/* Progress label suffix while several hosts are read ("host 2 of 8"). */
static char progress_note[64];

static int one_profile(xsession *s, xargs *a, const xprof *p, const char *query, FILE *out, const char *metadata) {
  params_clear(s);
  xr_runner r;
  xr_init(&r, s->db, s->env.queries, out);
  int rc = load_metadata(s, metadata);
  if (!rc) rc = add_fact(s, "run_path", p->run);
  if (!rc) rc = xr_param_text(&r, "profile", p->file) | set_summary_params(&r, a);
  xr_after(&r, "lib/summary_json.sql", "lib/run_metadata.sql");
  char *what = sqlite3_mprintf("%s %s%s", strcmp(query, "summary.sql") ? "report" : "summary", p->host, progress_note);
  if (rc && r.err) errorf("%s", r.err);
  if (!rc) rc = run_query(s, &r, query, what, file_size(p->file));
  sqlite3_free(what);
  xr_free(&r);
  return rc ? XS_ERR : XS_OK;
}

/* The cross-host table from the per-host documents in temp.xq_host_docs. */
static const char *CROSS_HOST_SQL =
    "WITH h AS (SELECT run, host, doc ->> '$.step_time.steady_state_steps.median' AS median,\n"
    "                  doc ->> '$.step_time.steady_state_steps.p90' AS p90,\n"
    "                  doc ->> '$.step_time.steady_state_steps.count' AS n,\n"
    "                  doc ->> '$.step_time.all_steps.median' AS all_median FROM xq_host_docs),\n"
    "     m AS (SELECT min(coalesce(median, all_median)) AS lo, max(coalesce(median, all_median)) AS hi FROM h)\n"
    "SELECT json_object('hosts', (SELECT json_group_array(json_object('run', run, 'host', host, 'steady_steps', n,\n"
    "                         'steady_median_step_time_us', median, 'steady_p90_step_time_us', p90,\n"
    "                         'all_steps_median_step_time_us', all_median)) FROM (SELECT * FROM h ORDER BY run, host)),\n"
    "  'slowest_host', (SELECT run || '/' || host FROM h ORDER BY coalesce(median, all_median) DESC, run, host LIMIT 1),\n"
    "  'step_time_skew', (SELECT CASE WHEN lo > 0 THEN (hi - lo) / lo END FROM m),\n"
    "  'runs', (SELECT json_group_array(json_object('run', run, 'hosts', n, 'slowest_host', slowest,\n"
    "                  'step_time_skew', CASE WHEN n > 1 AND lo > 0 THEN (hi - lo) / lo END)) FROM (\n"
    "             SELECT run, count(*) AS n, min(coalesce(median, all_median)) AS lo, max(coalesce(median, all_median)) AS hi,\n"
    "                    (SELECT x.host FROM h x WHERE x.run = h.run ORDER BY coalesce(x.median, x.all_median) DESC, x.host\n"
    "                      LIMIT 1) AS slowest FROM h GROUP BY run ORDER BY run)),\n"
    "  'unit', 'step times in microseconds; skew = (slowest - fastest) / fastest median step time; '\n"
    "          || 'slowest_host and step_time_skew over every host, runs[]: within each run')";

/* The cross-host markdown: every host's steady median and p90 step time (ms),
** then per run (hosts of different runs are not compared with each other) its
** slowest host and step-time skew. ?1 (the JSON document) is not read. */
static const char *CROSS_HOST_MD_SQL =
    "WITH h AS (SELECT run, host, coalesce(doc ->> '$.step_time.steady_state_steps.median',\n"
    "                                      doc ->> '$.step_time.all_steps.median') AS median,\n"
    "                  doc ->> '$.step_time.steady_state_steps.p90' AS p90,\n"
    "                  coalesce(doc ->> '$.step_time.steady_state_steps.count', 0) AS n FROM xq_host_docs),\n"
    "     r AS (SELECT run, count(*) AS hosts, min(median) AS lo, max(median) AS hi,\n"
    "                  (SELECT x.host FROM h x WHERE x.run = h.run AND x.median IS NOT NULL\n"
    "                    ORDER BY x.median DESC, x.host LIMIT 1) AS slowest FROM h GROUP BY run),\n"
    "     c(j) AS (SELECT ?1)\n"
    "SELECT '## Cross-host step time (' || (SELECT count(*) FROM h) || ' hosts in ' || (SELECT count(*) FROM r)\n"
    "    || CASE WHEN (SELECT count(*) FROM r) = 1 THEN ' run' ELSE ' runs' END || ', ms)' || char(10) || char(10)\n"
    "    || '| Run | Host | Steady steps | Median step (ms) | P90 step (ms) |' || char(10)\n"
    "    || '|---|---|---:|---:|---:|' || char(10)\n"
    "    || (SELECT group_concat(line, char(10)) FROM (SELECT '| `' || replace(run, '`', '\\`') || '` | `'\n"
    "                || replace(host, '`', '\\`') || '` | ' || n || ' | '\n"
    "                || coalesce(xplane_format(median / 1e3, '.3f'), 'n/a') || ' | '\n"
    "                || coalesce(xplane_format(p90 / 1e3, '.3f'), 'n/a') || ' |' AS line FROM h ORDER BY run, host))\n"
    "    || char(10) || char(10)\n"
    "    || (SELECT group_concat('- Run `' || replace(run, '`', '\\`') || '`: ' || hosts\n"
    "                || CASE WHEN hosts = 1 THEN ' host' ELSE ' hosts' END || '; slowest host `'\n"
    "                || coalesce(replace(slowest, '`', '\\`'), 'n/a') || '`; step-time skew ((slowest - fastest) / fastest median) '\n"
    "                || CASE WHEN hosts > 1 AND lo > 0 THEN xplane_format(100.0 * (hi - lo) / lo, '.2f') || '%' ELSE 'n/a' END,\n"
    "                char(10)) FROM (SELECT * FROM r ORDER BY run))\n"
    "    || char(10) || '(median of the steady-state steps; of all steps when a host has none; hosts of different runs '\n"
    "    || 'are not compared)' || char(10)";

static int host_docs_init(xsession *s) {
  return sqlite3_exec(s->db,
                      "DROP TABLE IF EXISTS temp.xq_host_docs; CREATE TEMP TABLE xq_host_docs(run TEXT, host TEXT, doc TEXT)",
                      NULL, NULL, NULL)
             ? sql_error(s->db)
             : 0;
}

static int host_docs_add(xsession *s, const xprof *p, const char *doc) {
  sqlite3_stmt *st;
  sqlite3_prepare_v2(s->db, "INSERT INTO xq_host_docs VALUES (?1, ?2, json(?3))", -1, &st, NULL);
  sqlite3_bind_text(st, 1, p->run, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, p->host, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, doc, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : errorf("%s/%s: %s", p->run, p->host, sqlite3_errmsg(s->db));
  sqlite3_finalize(st);
  return rc;
}

/* The cross-host document (JSON text, sqlite3_malloc'd) and, when md, the
** markdown table. */
static char *cross_host(xsession *s, char **md) {
  sqlite3_stmt *st;
  char *json = NULL;
  if (sqlite3_prepare_v2(s->db, CROSS_HOST_SQL, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    json = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
  else
    errorf("cross-host table: %s", sqlite3_errmsg(s->db));
  sqlite3_finalize(st);
  if (json && md) {
    *md = NULL;
    if (sqlite3_prepare_v2(s->db, CROSS_HOST_MD_SQL, -1, &st, NULL) == SQLITE_OK) {
      sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
      if (sqlite3_step(st) == SQLITE_ROW) *md = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
    }
    if (!*md) errorf("cross-host table: %s", sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
  }
  return json;
}

/* Pretty-print JSON text with the extension's xplane_json_pretty. */
static int print_pretty(xsession *s, const char *json, FILE *out) {
  sqlite3_stmt *st;
  int rc = XS_ERR;
  if (sqlite3_prepare_v2(s->db, "SELECT xplane_json_pretty(?1)", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
      fprintf(out, "%s\n", sqlite3_column_text(st, 0));
      rc = XS_OK;
    }
  }
  if (rc) sql_error(s->db);
  sqlite3_finalize(st);
  return rc;
}

/* A file is a saved summary when it is a JSON document whose schema_version
** is profile_summary.v1 (profiles are protobuf, or JSON traces without it). */
static int is_summary_file(xsession *s, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  size_t n = strlen(path);
  if (n < 5 || strcmp(path + n - 5, ".json") != 0) return 0;
  sqlite3_stmt *q;
  int yes = 0;
  if (sqlite3_prepare_v2(s->db,
                         "SELECT json_extract(t, '$.schema_version') = 'profile_summary.v1' FROM "
                         "(SELECT CAST(readfile(?1) AS TEXT) AS t) WHERE json_valid(t)",
                         -1, &q, NULL) == SQLITE_OK) {
    sqlite3_bind_text(q, 1, path, -1, SQLITE_STATIC);
    yes = sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0);
  }
  sqlite3_finalize(q);
  return yes;
}

/* Resolve PATH (+ --host) to exactly one profile, or explain. */
static int one_of(xsession *s, const char *cmd, const char *path, const char *host, xprof *out, xprofs *all) {
  int rc = list_profiles(s, path, all);
  if (rc) return rc;
  if (host && (rc = pick_host(all, path, host))) {
    profs_free(all);
    return rc;
  }
  if (all->n > 1) {
    fprintf(stderr, "%s %s: %s holds %d profiles (one per host); pass --host H:\n", prog, cmd, path, all->n);
    list_hosts(all, stderr);
    profs_free(all);
    return XS_USAGE;
  }
  *out = all->v[0];
  return 0;
}

/* Summarize a profile into a temporary file (for comparisons that mix a
** profile and a saved summary). Returns the file name (sqlite3_malloc'd). */
static char *summary_to_temp(xsession *s, xargs *a, const char *path, const char *host) {
  xprofs all;
  xprof p;
  if (one_of(s, a->cmd, path, host, &p, &all)) return NULL;
  const char *tmpdir = getenv("TMPDIR");
  char *name = sqlite3_mprintf("%s/xplane-summary-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  int fd = mkstemp(name);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  int rc = f ? one_profile(s, a, &p, "summary.sql", f, NULL) : errorf("cannot create a temporary file: %s", strerror(errno));
  if (f && fclose(f)) rc = errorf("%s: %s", name, strerror(errno));
  profs_free(&all);
  if (rc) {
    unlink(name);
    sqlite3_free(name);
    return NULL;
  }
  return name;
}

static int mkdirs(const char *dir) {
  char buf[PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) return -1;
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(buf, 0777) && errno != EEXIST) return -1;
      *p = '/';
    }
  return mkdir(buf, 0777) && errno != EEXIST ? -1 : 0;
}

/* ---- summarize --------------------------------------------------------- */
static const char *HELP_SUMMARIZE =
    "usage: xplane summarize PATH [-o FILE] [--host H | --all-hosts -o DIR] [options]\n"
    "\n"
    "Print the profile_summary.v1 JSON document of a profile (queries/summary.sql),\n"
    "with the run metadata the profile carries (device type, peaks, hosts).\n"
    "PATH: a .xplane.pb file, a run directory, a TensorBoard logdir, or a JSON trace.\n"
    "Durations in the document are microseconds.\n"
    "\n"
    "  -o, --output FILE        write the document to FILE (default stdout)\n"
    "  --host H                 the profile of host H (or RUN/H) when PATH holds several\n"
    "  --all-hosts              every host: DIR/<run>/<host>.summary.json for each, and\n"
    "                           DIR/cross_host.json (step time per host, slowest host,\n"
    "                           skew); the cross-host table is printed (markdown)\n"
    "  --metadata FILE          run facts (JSON object or key,value CSV): git_sha, run_id,\n"
    "                           artifact_name, artifact_ref, topology, config_hash,\n"
    "                           hardware_type, num_devices, num_hosts; other keys print as\n"
    "                           facts under Run Metadata\n"
    "  --warmup-steps N         steps numbered below N are warmup (default 5)\n"
    "  --hot-op-limit N         hot ops kept (default 25)\n"
    "  --breakdown-mode M       exclusive_per_track (default) | exclusive_global\n"
    "  -q, --quiet              no progress on stderr\n"
    "  --progress               progress (percent of the profile read, then time) on\n"
    "                           stderr even when it is not a terminal\n"
    "Exit status: 0 ok, 1 error, 2 usage error.\n";

static int all_hosts(xsession *s, xargs *a, xprofs *all, const char *query, const char *dir, FILE *out,
                     const char *metadata) {
  int rc = host_docs_init(s);
  if (!rc && dir && mkdirs(dir)) rc = errorf("%s: %s", dir, strerror(errno));
  for (int i = 0; !rc && i < all->n; i++) {
    const xprof *p = &all->v[i];
    snprintf(progress_note, sizeof progress_note, ", host %d of %d", i + 1, all->n);
    char *doc = NULL, *body = NULL;
    size_t dn = 0, bn = 0;
    FILE *m = open_memstream(&doc, &dn);
    rc = one_profile(s, a, p, "summary.sql", m, metadata);
    fclose(m);
    if (!rc) rc = host_docs_add(s, p, doc);
    if (!rc && dir) {
      char *sub = sqlite3_mprintf("%s/%s", dir, p->run);
      char *fn = sqlite3_mprintf("%s/%s.summary.json", sub, p->host);
      FILE *f = NULL;
      if (mkdirs(sub) || !(f = fopen(fn, "w"))) rc = errorf("%s: %s", fn, strerror(errno));
      else {
        fwrite(doc, 1, dn, f);
        if (fclose(f)) rc = errorf("%s: %s", fn, strerror(errno));
      }
      sqlite3_free(sub);
      sqlite3_free(fn);
    }
    if (!rc && strcmp(query, "summary.sql")) {
      m = open_memstream(&body, &bn);
      rc = one_profile(s, a, p, query, m, metadata);
      fclose(m);
      if (!rc) fprintf(out, "%s%s", i ? "\n" : "", body);
    }
    free(doc);
    free(body);
  }
  progress_note[0] = 0;
  return rc;
}

static int cmd_summarize(int argc, char **argv) {
  static const xopt opts[] = {{"output", 'o', O_TEXT}, {"host", 0, O_TEXT}, {"all-hosts", 0, O_FLAG},
                              {"metadata", 0, O_TEXT}, SUMMARY_OPTS};
  xargs a = {.cmd = "summarize", .opts = opts, .nopts = sizeof opts / sizeof opts[0]};
  int rc = parse_args(&a, argc, argv, 1, 1);
  if (rc < 0) return fputs(HELP_SUMMARIZE, stdout), XS_OK;
  if (rc) return rc;
  if (has(&a, "host") && has(&a, "all-hosts")) return usage_error(a.cmd, "--host and --all-hosts exclude each other");
  if (has(&a, "all-hosts") && !has(&a, "output")) return usage_error(a.cmd, "--all-hosts needs -o DIR");
  xsession s = {0};
  if ((rc = session_open(&s, &a))) return rc;
  xprofs all;
  if (has(&a, "all-hosts")) {
    rc = list_profiles(&s, a.pos[0], &all);
    if (!rc) rc = all_hosts(&s, &a, &all, "summary.sql", text(&a, "output"), stdout, text(&a, "metadata"));
    char *md = NULL, *json = rc ? NULL : cross_host(&s, &md);
    if (!rc && !json) rc = XS_ERR;
    if (!rc) {
      char *fn = sqlite3_mprintf("%s/cross_host.json", text(&a, "output"));
      FILE *f = fopen(fn, "w");
      if (!f) rc = errorf("%s: %s", fn, strerror(errno));
      else {
        rc = print_pretty(&s, json, f);
        if (fclose(f)) rc = errorf("%s: %s", fn, strerror(errno));
      }
      sqlite3_free(fn);
      if (!rc && md) fputs(md, stdout);
    }
    sqlite3_free(md);
    sqlite3_free(json);
    profs_free(&all);
  } else {
    xprof p;
    rc = one_of(&s, a.cmd, a.pos[0], text(&a, "host"), &p, &all);
    if (!rc) {
      FILE *out = open_out(text(&a, "output"));
      rc = out ? one_profile(&s, &a, &p, "summary.sql", out, text(&a, "metadata")) : XS_ERR;
      if (out) rc = close_out(out, text(&a, "output"), rc == XS_OK) ? XS_ERR : rc;
      profs_free(&all);
    }
  }
  session_close(&s);
  return rc;
}

/* ---- report ------------------------------------------------------------ */
static const char *HELP_REPORT =
    "usage: xplane report PATH [--host H | --all-hosts] [options]\n"
    "       xplane report --summary FILE [options]\n"
    "       xplane report --html PATH [--host H] [-o FILE.html] [options]\n"
    "\n"
    "Print the markdown profile report (queries/profile_report.sql): run metadata\n"
    "(with the device type, peak FLOP/s and memory bandwidth, cores and hosts the\n"
    "profile names), provenance, overview, then what each device did (wall, busy,\n"
    "idle, duty cycle; busy time by compute, communication, transfer, other), the\n"
    "host threads beside it, the top device ops by self time, the roofline (FLOP\n"
    "rate, bandwidth, bound-by), async ops (start to done, bytes once), kernel\n"
    "stats (GPU), memory peaks, the findings, regions and gaps.\n"
    "Times in milliseconds (ms); every share names its denominator.\n"
    "--format reference prints the field's reference summarizer's report instead\n"
    "(queries/report.sql: step time, breakdown, regions, top ops, families,\n"
    "collectives, gaps, candidates; microseconds), byte-equal to that tool's.\n"
    "When PATH holds several hosts the report covers every host (--all-hosts is the\n"
    "default): a cross-host step-time table, then one report per host.\n"
    "\n"
    "  --format F               markdown (default) | reference\n"
    "  --summary FILE           render a summary saved by `xplane summarize` (no profile\n"
    "                           read); a saved summary is the reference's document, so\n"
    "                           its report is the reference format\n"
    "  --html                   the report as one self-contained HTML page\n"
    "                           (queries/profile_report_html.sql: the markdown report's\n"
    "                           sections and numbers, then the roofline and regions\n"
    "                           pictures; no script, no network); with --format reference\n"
    "                           the reference's pictures (queries/report_html.sql: step\n"
    "                           times, its breakdown, regions, top ops, a step's timeline,\n"
    "                           findings); one host (--host H when PATH holds several);\n"
    "                           read from the profile, not from a saved summary;\n"
    "                           --metadata as for the markdown (not with --format reference)\n"
    "  --host H                 only host H (or RUN/H)\n"
    "  --all-hosts              every host (the default when PATH holds several)\n"
    "  --metadata FILE          run facts (JSON object or key,value CSV): git_sha, run_id,\n"
    "                           artifact_name, artifact_ref, topology, config_hash,\n"
    "                           hardware_type, num_devices, num_hosts; other keys print as\n"
    "                           facts under Run Metadata\n"
    "  --top-k N                rows per table (default 10)\n"
    "  -o, --output FILE        write to FILE (default stdout); written beside FILE and\n"
    "                           renamed over it on success (a failed run leaves FILE as it was)\n"
    "  --warmup-steps N, --hot-op-limit N, --breakdown-mode M   as for summarize\n"
    "  -q, --quiet              no progress on stderr\n"
    "  --progress               progress (percent of the profile read, then time) on\n"
    "                           stderr even when it is not a terminal\n"
    "Exit status: 0 ok, 1 error, 2 usage error.\n";

/* report --html: queries/profile_report_html.sql (or, for --format reference,
** queries/report_html.sql) on one profile (their tables and charts read the
** profile, so a saved summary cannot stand in). */
static int report_html(xsession *s, xargs *a, const char *query, FILE *out) {
  xprofs all;
  xprof p;
  int rc = one_of(s, a->cmd, a->pos[0], text(a, "host"), &p, &all);
  if (rc) return rc;
  if (!strcmp(query, "profile_report_html.sql")) { /* the main report's page: run metadata as the markdown's */
    rc = one_profile(s, a, &p, query, out, text(a, "metadata"));
    profs_free(&all);
    return rc;
  }
  params_clear(s);
  xr_runner r;
  xr_init(&r, s->db, s->env.queries, out);
  rc = xr_param_text(&r, "profile", p.file) | set_summary_params(&r, a);
  if (rc) rc = errorf("%s", r.err ? r.err : "cannot set the parameters");
  char *what = sqlite3_mprintf("html report %s", p.host);
  if (!rc) rc = run_query(s, &r, query, what, file_size(p.file));
  sqlite3_free(what);
  xr_free(&r);
  profs_free(&all);
  return rc;
}

static int cmd_report(int argc, char **argv) {
  static const xopt opts[] = {{"output", 'o', O_TEXT}, {"host", 0, O_TEXT},   {"all-hosts", 0, O_FLAG},
                              {"summary", 0, O_TEXT},  {"top-k", 0, O_INT},   {"metadata", 0, O_TEXT},
                              {"html", 0, O_FLAG},     {"format", 0, O_TEXT},  SUMMARY_OPTS};
  xargs a = {.cmd = "report", .opts = opts, .nopts = sizeof opts / sizeof opts[0]};
  int rc = parse_args(&a, argc, argv, 0, 1);
  if (rc < 0) return fputs(HELP_REPORT, stdout), XS_OK;
  if (rc) return rc;
  if (has(&a, "summary") == (a.npos == 1)) return usage_error(a.cmd, "give PATH or --summary FILE (one of them)");
  xval *saved = opt(&a, "summary");
  if (has(&a, "host") && has(&a, "all-hosts")) return usage_error(a.cmd, "--host and --all-hosts exclude each other");
  const char *format = has(&a, "format") ? text(&a, "format") : "markdown";
  if (strcmp(format, "markdown") && strcmp(format, "reference"))
    return usage_error(a.cmd, "--format takes markdown or reference");
  const char *query = !strcmp(format, "reference") ? "report.sql" : "profile_report.sql";
  xsession s = {0};
  if ((rc = session_open(&s, &a))) return rc;
  if (a.npos == 1 && is_summary_file(&s, a.pos[0])) saved->text = a.pos[0], saved->set = 1; /* a saved summary as PATH */
  if (saved->set && (has(&a, "host") || has(&a, "all-hosts") || has(&a, "metadata"))) {
    session_close(&s);
    return usage_error(a.cmd, "--host, --all-hosts and --metadata apply to a profile, not to a saved summary");
  }
  if (saved->set && has(&a, "format") && strcmp(format, "reference")) {
    session_close(&s);
    return usage_error(a.cmd, "a saved summary is the reference's document: it renders --format reference only");
  }
  if (has(&a, "html") && (saved->set || has(&a, "all-hosts") || (has(&a, "metadata") && !strcmp(format, "reference")))) {
    session_close(&s);
    return usage_error(a.cmd, "--html renders one profile (PATH [--host H]): not a saved summary or --all-hosts; "
                              "--metadata applies to the main report, not to --format reference");
  }
  FILE *out = open_out(text(&a, "output"));
  if (!out) rc = XS_ERR;
  else if (has(&a, "html"))
    rc = report_html(&s, &a, !strcmp(format, "reference") ? "report_html.sql" : "profile_report_html.sql", out);
  else if (has(&a, "summary")) {
    xr_runner r;
    xr_init(&r, s.db, s.env.queries, out);
    rc = xr_param_text(&r, "summary", text(&a, "summary")) | set_summary_params(&r, &a);
    if (!rc) rc = run_query(&s, &r, "report_from_summary.sql", "report", 0);
    xr_free(&r);
  } else {
    xprofs all;
    rc = list_profiles(&s, a.pos[0], &all);
    if (!rc && has(&a, "host")) rc = pick_host(&all, a.pos[0], text(&a, "host"));
    if (!rc && all.n == 1) rc = one_profile(&s, &a, &all.v[0], query, out, text(&a, "metadata"));
    else if (!rc) {
      char *body = NULL;
      size_t bn = 0;
      FILE *m = open_memstream(&body, &bn);
      rc = all_hosts(&s, &a, &all, query, NULL, m, text(&a, "metadata"));
      fclose(m);
      char *md = NULL, *json = rc ? NULL : cross_host(&s, &md);
      if (!rc && (!json || !md)) rc = XS_ERR;
      if (!rc) fprintf(out, "# Profile Reports: %d hosts of %s\n\n%s\n%s", all.n, a.pos[0], md, body);
      sqlite3_free(md);
      sqlite3_free(json);
      free(body);
    }
    profs_free(&all);
  }
  if (out) rc = close_out(out, text(&a, "output"), rc == XS_OK) ? XS_ERR : rc;
  session_close(&s);
  return rc;
}

/* ---- query ------------------------------------------------------------- */
static const char *HELP_QUERY =
    "usage: xplane query PATH \"QUESTION\" [options]\n"
    "       xplane query --summary FILE \"QUESTION\" [options]\n"
    "\n"
    "Answer a question about one profile, as JSON (the question files of queries/).\n"
    "Questions (free text; the first that matches):\n"
    "  \"context for op OP\", \"where do OP's gaps happen\"  -> gap_context.sql\n"
    "  \"gap before OP\", \"idle before OP\"                 -> gap_before_op.sql\n"
    "  (OP: an op or event name of the profile, exactly, letter case aside; another\n"
    "  name is an error that lists the names containing it)\n"
    "  \"findings\", \"performance killers\", \"findings transfers\" -> findings.sql\n"
    "                                                      (xplane_findings; a rule's id\n"
    "                                                      picks that rule only)\n"
    "  \"top N ops\", \"hottest ops\"                        -> top_ops.sql (N sets --top-k)\n"
    "  \"compute vs communication\", \"worst collective\"    -> compute_vs_communication.sql\n"
    "  \"hierarchical regions\", \"scopes\"                  -> hierarchical_regions.sql\n"
    "  \"what should I try next\", \"bottleneck\"            -> what_next.sql (findings first,\n"
    "                                                      then the reference's candidates)\n"
    "  \"candidates\"                                      -> candidates.sql (the reference's)\n"
    "Anything else lists these and exits 2. Durations are microseconds.\n"
    "\n"
    "  --summary FILE           answer from a saved summary (no profile read)\n"
    "  --host H                 the profile of host H when PATH holds several\n"
    "  --top-k N                answers listed (default 10)\n"
    "  --warmup-steps N, --hot-op-limit N, --breakdown-mode M   as for summarize\n"
    "  -q, --quiet              no progress on stderr\n"
    "  --progress               progress (percent of the profile read, then time) on\n"
    "                           stderr even when it is not a terminal\n"
    "Exit status: 0 ok, 1 error, 2 usage error or a question not understood.\n";

/* Find the first of words in q (lower case); the text after it, trimmed. */
static const char *after_word(const char *lq, const char *q, const char *word) {
  const char *hit = strstr(lq, word);
  if (!hit) return NULL;
  const char *p = q + (hit - lq) + strlen(word);
  while (*p == ' ' || *p == ':' || *p == '\t') p++;
  return p;
}

static int route_question(const char *q, const char **file, char **op, long long *top_n) {
  char *lq = sqlite3_mprintf("%s", q);
  for (char *c = lq; *c; c++) *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
  *op = NULL;
  *top_n = -1;
  const char *t;
  *file = NULL;
  if ((t = after_word(lq, q, "context for ")) || (t = after_word(lq, q, "context of ")) ||
      (t = after_word(lq, q, "gaps of ")) || (t = after_word(lq, q, "where do "))) {
    *file = "gap_context.sql";
    if (!strncasecmp(t, "op ", 3)) t += 3; /* "context for op OP" */
    *op = sqlite3_mprintf("%s", t);
    char *g = strstr(*op, "'s gaps");
    if (g) *g = 0;
  } else if ((t = after_word(lq, q, "gap before ")) || (t = after_word(lq, q, "gaps before ")) ||
             (t = after_word(lq, q, "idle before ")) || (t = after_word(lq, q, "wait before "))) {
    *file = "gap_before_op.sql";
    *op = sqlite3_mprintf("%s", t);
  } else if (strstr(lq, "finding") || strstr(lq, "killer")) {
    *file = "findings.sql";
    for (size_t k = 0; xp_finding_rules[k]; k++) /* @finding: that rule only */
      if (strstr(lq, xp_finding_rules[k])) *op = sqlite3_mprintf("%s", xp_finding_rules[k]);
  } else if (strstr(lq, "top") || strstr(lq, "hottest") || strstr(lq, "slowest op") || strstr(lq, "most time")) {
    *file = "top_ops.sql";
    const char *d = strstr(lq, "top");
    if (d) {
      d += 3;
      while (*d == ' ') d++;
      if (*d >= '0' && *d <= '9') *top_n = strtoll(d, NULL, 10);
    }
  } else if (strstr(lq, "communication") || strstr(lq, "collective") || strstr(lq, "compute")) {
    *file = "compute_vs_communication.sql";
  } else if (strstr(lq, "region") || strstr(lq, "hierarch") || strstr(lq, "scope")) {
    *file = "hierarchical_regions.sql";
  } else if (strstr(lq, "candidate")) {
    *file = "candidates.sql";
  } else if (strstr(lq, "next") || strstr(lq, "try") || strstr(lq, "optimi") || strstr(lq, "bottleneck")) {
    *file = "what_next.sql";
  }
  sqlite3_free(lq);
  return *file ? 0 : 1;
}

/* Append text for a terminal: control bytes (ANSI escapes, newlines) as \xNN. */
static void append_printable(sqlite3_str *b, const char *t) {
  for (const unsigned char *c = (const unsigned char *)t; c && *c; c++)
    if (*c < 0x20 || *c == 0x7f) sqlite3_str_appendf(b, "\\x%02x", *c);
    else sqlite3_str_appendchar(b, 1, (char)*c);
}

/* For "gap before OP" and "context for OP" on a profile: OP must name an
** op (xplane_ops.name) or event of the profile exactly (letter case aside, as the question files
** compare); otherwise an error (exit 1) that lists up to five names that
** contain it, shortest first, so "fusion.1" never answers silently for
** broadcast_add_fusion.1. The question files' own containing match stays
** for the plain sqlite3 shell, whose answers the reference's. */
static int op_must_exist(xsession *s, const char *file, const char *op) {
  sqlite3_stmt *st = NULL;
  int found = 0, rc;
  const char *sql = "SELECT EXISTS (SELECT 1 FROM xplane_ops(?1) WHERE name = ?2 COLLATE NOCASE)"
                    " OR EXISTS (SELECT 1 FROM xplane_events(?1) WHERE name = ?2 COLLATE NOCASE)";
  if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) return sql_error(s->db);
  sqlite3_bind_text(st, 1, file, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, op, -1, SQLITE_STATIC);
  if ((rc = sqlite3_step(st)) == SQLITE_ROW) found = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) return sql_error(s->db);
  if (found) return XS_OK;
  sql = "SELECT name FROM (SELECT name FROM xplane_ops(?1) UNION SELECT name FROM xplane_events(?1))"
        " WHERE instr(lower(name), lower(?2)) ORDER BY length(name), name LIMIT 5";
  sqlite3_str *near = sqlite3_str_new(s->db);
  if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, file, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, op, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
      sqlite3_str_appendall(near, sqlite3_str_length(near) ? ", '" : "'");
      append_printable(near, (const char *)sqlite3_column_text(st, 0));
      sqlite3_str_appendchar(near, 1, '\'');
    }
  }
  sqlite3_finalize(st);
  char *list = sqlite3_str_finish(near);
  errorf("%s: no op or event named '%s'%s%s%s", file, op, list && *list ? "; names that contain it: " : "",
         list && *list ? list : "", list && *list ? "" : " (xplane query PATH \"top ops\" lists the hottest)");
  sqlite3_free(list);
  return XS_ERR;
}

static int cmd_query(int argc, char **argv) {
  static const xopt opts[] = {{"host", 0, O_TEXT}, {"summary", 0, O_TEXT}, {"top-k", 0, O_INT}, SUMMARY_OPTS};
  xargs a = {.cmd = "query", .opts = opts, .nopts = sizeof opts / sizeof opts[0]};
  int rc = parse_args(&a, argc, argv, 1, 2);
  if (rc < 0) return fputs(HELP_QUERY, stdout), XS_OK;
  if (rc) return rc;
  int want = has(&a, "summary") ? 1 : 2;
  if (a.npos != want) return usage_error(a.cmd, has(&a, "summary") ? "give --summary FILE and one QUESTION" : "give PATH and a QUESTION");
  const char *question = a.pos[want - 1], *file;
  char *op = NULL;
  long long top_n;
  if (route_question(question, &file, &op, &top_n)) {
    const char *list = strstr(HELP_QUERY, "  \"context"), *end = strstr(HELP_QUERY, "Anything else");
    fprintf(stderr, "%s query: no question matches \"%s\". Supported questions:\n%.*s", prog, question,
            (int)(end - list), list);
    return XS_USAGE;
  }
  int findings = !strcmp(file, "findings.sql"); /* op is then @finding, a rule's id */
  if (findings && has(&a, "summary")) {
    sqlite3_free(op);
    return usage_error(a.cmd, "findings are read from the profile, not from a saved summary");
  }
  xsession s = {0};
  if ((rc = session_open(&s, &a))) return rc;
  if (want == 2 && is_summary_file(&s, a.pos[0])) opt(&a, "summary")->text = a.pos[0], opt(&a, "summary")->set = 1;
  if (has(&a, "summary") && has(&a, "host")) {
    session_close(&s);
    return usage_error(a.cmd, "--host applies to a profile, not to a saved summary");
  }
  xr_runner r;
  xr_init(&r, s.db, s.env.queries, stdout);
  xprofs all = {0};
  xprof p;
  char *saved_file = NULL; /* QUESTION_from_summary.sql: the same answer from a saved summary */
  if (has(&a, "summary")) {
    saved_file = sqlite3_mprintf("%.*s_from_summary.sql", (int)(strlen(file) - 4), file);
    file = saved_file;
    rc = xr_param_text(&r, "summary", text(&a, "summary"));
  } else {
    rc = one_of(&s, a.cmd, a.pos[0], text(&a, "host"), &p, &all);
    if (!rc) rc = xr_param_text(&r, "profile", p.file);
  }
  if (!rc) rc = set_summary_params(&r, &a);
  if (!rc && top_n >= 0 && !has(&a, "top-k")) rc = xr_param_int(&r, "top_k", top_n);
  if (!rc && op && !findings && !has(&a, "summary")) rc = op_must_exist(&s, p.file, op);
  if (!rc && op) rc = xr_param_text(&r, findings ? "finding" : "op", op);
  else if (r.err) errorf("%s", r.err);
  if (!rc) rc = run_query(&s, &r, file, "query", has(&a, "summary") ? 0 : file_size(p.file));
  if (!rc && close_out(stdout, NULL, 1)) rc = XS_ERR; /* a full disk is an error, not a short answer */
  xr_free(&r);
  profs_free(&all);
  sqlite3_free(op);
  sqlite3_free(saved_file);
  session_close(&s);
  return rc;
}

/* ---- compare / track: two inputs, profiles or saved summaries ----------- */
/* Set up r for compare.sql / track.sql over A and B: two profiles are read
** by lib/compare_build.sql; when either is a saved summary, the profile side
** is summarized to a temporary file and both documents are read by
** lib/compare_saved.sql instead. tmp[] receives temporary files to remove. */
static int two_inputs(xsession *s, xargs *a, xr_runner *r, char *tmp[2]) {
  const char *in[2] = {a->pos[0], a->pos[1]};
  int sum[2] = {is_summary_file(s, in[0]), is_summary_file(s, in[1])};
  tmp[0] = tmp[1] = NULL;
  if (!sum[0] && !sum[1]) {
    xprofs all;
    xprof p;
    for (int i = 0; i < 2; i++) {
      int rc = one_of(s, a->cmd, in[i], text(a, "host"), &p, &all);
      if (rc) return rc;
      rc = xr_param_text(r, i ? "after" : "before", p.file);
      profs_free(&all);
      if (rc) return XS_ERR;
    }
    return 0;
  }
  for (int i = 0; i < 2; i++)
    if (!sum[i] && !(tmp[i] = summary_to_temp(s, a, in[i], text(a, "host")))) return XS_ERR;
  xr_substitute(r, "lib/compare_build.sql", "lib/compare_saved.sql");
  if (xr_param_text(r, "before_summary", tmp[0] ? tmp[0] : in[0]) ||
      xr_param_text(r, "after_summary", tmp[1] ? tmp[1] : in[1]))
    return XS_ERR;
  return 0;
}

static void remove_temps(char *tmp[2]) {
  for (int i = 0; i < 2; i++)
    if (tmp[i]) unlink(tmp[i]), sqlite3_free(tmp[i]);
}

static const char *HELP_COMPARE =
    "usage: xplane compare BEFORE AFTER [--strict-provenance] [--format json|markdown|reference|reference-json]\n"
    "                      [options]\n"
    "\n"
    "Compare two profiles (or saved summaries, or one of each). On two profiles,\n"
    "--format json (the default) and markdown compare them by the device-time model\n"
    "(queries/profile_compare.sql: provenance and each side's hardware, warned when\n"
    "it differs; device time; steps from the one step source; the ops whose self\n"
    "time changed most; ms): JSON is the document xplane_compare.v1. --format\n"
    "reference-json prints the reference summarizer's comparison document instead\n"
    "(step time, step classes, time-breakdown shares, semantic families, regressed\n"
    "and improved ops, provenance checks; queries/compare.sql; microseconds), and\n"
    "--format reference that document as markdown. A saved summary holds no events,\n"
    "so with one on either side json and markdown are the reference's too.\n"
    "\n"
    "  --strict-provenance      exit 4 when the provenance check fails (the same trace\n"
    "                           twice: equal sha256)\n"
    "  --format F               json (default) | markdown | reference | reference-json\n"
    "  --host H                 the profile of host H when a PATH holds several\n"
    "  --top-k N                ops per list (default 10)\n"
    "  -o, --output FILE        write to FILE (default stdout)\n"
    "  --warmup-steps N, --hot-op-limit N, --breakdown-mode M   as for summarize\n"
    "  -q, --quiet              no progress on stderr\n"
    "  --progress               progress (percent of the profile read, then time) on\n"
    "                           stderr even when it is not a terminal\n"
    "Exit status: 0 ok, 1 error, 2 usage error, 4 provenance failure (--strict-provenance).\n";

/* format: json or markdown (two profiles: queries/profile_compare.sql, by the
** device-time model; a saved summary on either side: the reference's document
** or markdown), reference-json and reference (queries/compare.sql: the
** reference's document, its markdown). NULL is json. */
static int run_compare(xsession *s, xargs *a, FILE *out, const char *format, int strict) {
  xr_runner r;
  xr_init(&r, s->db, s->env.queries, out);
  char *tmp[2];
  params_clear(s);
  if (!format) format = "json";
  int device = (!strcmp(format, "json") || !strcmp(format, "markdown")) && !is_summary_file(s, a->pos[0]) &&
               !is_summary_file(s, a->pos[1]);
  if (!strcmp(format, "reference")) format = "markdown";
  if (!strcmp(format, "reference-json")) format = "json";
  int rc = two_inputs(s, a, &r, tmp);
  if (!rc) rc = set_summary_params(&r, a);
  if (!rc) rc = xr_param_text(&r, "format", format);
  xr_substitute(&r, "lib/cleanup.sql", NULL);
  if (!rc) rc = run_query(s, &r, device ? "profile_compare.sql" : "compare.sql", "compare", 0);
  char *status = NULL;
  if (!rc) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT doc ->> '$.provenance_checks.status' FROM temp.xq_compare", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      status = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  }
  r.nsubst = 0;
  if (!rc) rc = run_query(s, &r, "lib/cleanup.sql", "clean-up", 0);
  if (!rc && strict && (!status || !strcmp(status, "fail"))) {
    fprintf(stderr, "%s compare: provenance check failed (--strict-provenance)\n", prog);
    rc = XS_FAIL;
  }
  sqlite3_free(status);
  remove_temps(tmp);
  xr_free(&r);
  return rc;
}

static int cmd_compare(int argc, char **argv) {
  static const xopt opts[] = {{"strict-provenance", 0, O_FLAG}, {"format", 0, O_TEXT}, {"host", 0, O_TEXT},
                              {"top-k", 0, O_INT},              {"output", 'o', O_TEXT}, SUMMARY_OPTS};
  xargs a = {.cmd = "compare", .opts = opts, .nopts = sizeof opts / sizeof opts[0]};
  int rc = parse_args(&a, argc, argv, 2, 2);
  if (rc < 0) return fputs(HELP_COMPARE, stdout), XS_OK;
  if (rc) return rc;
  const char *format = text(&a, "format");
  if (format && strcmp(format, "json") && strcmp(format, "markdown") && strcmp(format, "reference") &&
      strcmp(format, "reference-json"))
    return usage_error(a.cmd, "--format must be json, markdown, reference or reference-json, not '%s'", format);
  xsession s = {0};
  if ((rc = session_open(&s, &a))) return rc;
  FILE *out = open_out(text(&a, "output"));
  rc = out ? run_compare(&s, &a, out, format, has(&a, "strict-provenance")) : XS_ERR;
  if (out && close_out(out, text(&a, "output"), rc == XS_OK || rc == XS_WARN || rc == XS_FAIL)) rc = XS_ERR;
  session_close(&s);
  return rc;
}

/* ---- history files ----------------------------------------------------- */
/* 0 when path can hold the tracking history: its folder exists, and the file
** is missing (must_exist 0: track creates it) or a SQLite database that has
** regression_history (or is empty). */
static int check_history(const char *cmd, const char *path, int must_exist) {
  struct stat st;
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) *(slash == dir ? slash + 1 : slash) = 0;
  else strcpy(dir, ".");
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return errorf("%s: --history %s: the folder %s does not exist", cmd, path, dir);
  if (stat(path, &st) != 0) {
    if (must_exist) return errorf("%s: --history %s: no such file (xplane track --history creates it)", cmd, path);
    return 0;
  }
  if (!S_ISREG(st.st_mode)) return errorf("%s: --history %s: not a file", cmd, path);
  if (st.st_size == 0 && !must_exist) return 0;
  sqlite3 *db = NULL;
  int rc = 0;
  char *uri = sqlite3_mprintf("%s", path);
  if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) rc = errorf("%s: --history %s: %s", cmd, path, sqlite3_errmsg(db));
  else {
    sqlite3_busy_timeout(db, XE_BUSY_TIMEOUT_MS); /* another track may be appending */
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM sqlite_schema WHERE name = 'regression_history'), "
                               "(SELECT count(*) FROM sqlite_schema)", -1, &q, NULL) != SQLITE_OK ||
        sqlite3_step(q) != SQLITE_ROW)
      rc = errorf("%s: --history %s: not a SQLite database (%s)", cmd, path, sqlite3_errmsg(db));
    else if (sqlite3_column_int(q, 0) == 0 && (must_exist || sqlite3_column_int(q, 1) > 0))
      rc = errorf("%s: --history %s: not a tracking history (no regression_history table)", cmd, path);
    sqlite3_finalize(q);
  }
  sqlite3_close(db);
  sqlite3_free(uri);
  return rc;
}

/* ---- track ------------------------------------------------------------- */
static const char *HELP_TRACK =
    "usage: xplane track BEFORE AFTER --label L --history DB [--format reference] [thresholds] [options]\n"
    "\n"
    "Assess AFTER against BEFORE. On two profiles, by the device-time model\n"
    "(queries/profile_track.sql; the steps of the one step source, steady steps of\n"
    "every device pooled, as compare): fail when the steady median step time\n"
    "regresses by more than 5 % or the p90 by more than 10 %; warn when the\n"
    "communication or the device idle share (of device wall time) grows by more than\n"
    "0.05, when the step time could not be checked (no steady-state step on a side,\n"
    "or the sides count steps from different sources), when the hardware differs, or\n"
    "when the provenance check fails (the same trace twice); else pass. --format\n"
    "reference, or a saved summary on either side: the reference summarizer's\n"
    "assessment (queries/track.sql: its steps and time-breakdown shares; the stall\n"
    "share in place of the idle share). The record is printed (JSON) and appended to\n"
    "the history database DB (a SQLite file; created when missing, in a folder that\n"
    "exists; refused when it is not a history).\n"
    "\n"
    "  --label L                the record's label (stored as text, as given)\n"
    "  --history DB             the history database (required)\n"
    "  --format F               device (default) | reference\n"
    "  --max-step-median-regression-pct X    (default 5.0)\n"
    "  --max-step-p90-regression-pct X       (default 10.0)\n"
    "  --max-communication-share-regression-abs X   (default 0.05)\n"
    "  --max-idle-share-regression-abs X            (default 0.05; the device model)\n"
    "  --max-stall-share-regression-abs X           (default 0.05; the reference's)\n"
    "  --host H, --top-k N, --warmup-steps N, --hot-op-limit N, --breakdown-mode M\n"
    "  -q, --quiet              no progress on stderr\n"
    "  --progress               progress (percent of the profile read, then time) on\n"
    "                           stderr even when it is not a terminal\n"
    "Exit status: 0 pass, 3 warn, 4 fail, 1 error, 2 usage error.\n";

/* The device-time model's assessment (queries/profile_track.sql) on two
** profiles unless --format reference; the reference's (queries/track.sql)
** otherwise. A threshold of the other model is a usage error. */
static int track_reference(xsession *s, xargs *a) {
  return (text(a, "format") && !strcmp(text(a, "format"), "reference")) || is_summary_file(s, a->pos[0]) ||
         is_summary_file(s, a->pos[1]);
}

/* Append the printed track record (RECORD, its JSON text) to HISTORY
** (queries/lib/history_from_doc.sql). Called only once the record is
** written, so a record that could not be printed is never in the history. */
static int append_history(xsession *s, const char *history, const char *record) {
  xr_runner r;
  xr_init(&r, s->db, s->env.queries, stdout);
  params_clear(s);
  int rc = xr_param_text(&r, "history", history) || xr_param_text(&r, "record", record);
  if (!rc && xr_run(&r, "lib/history_from_doc.sql")) rc = errorf("%s: the record was printed but not appended: %s", history,
                                                                 r.err ? r.err : "failed");
  xr_free(&r);
  return rc ? XS_ERR : XS_OK;
}

/* Run the track query into OUT; the record printed is left in *record (the
** caller appends it to the history once OUT is written, then frees it). */
static int run_track(xsession *s, xargs *a, FILE *out, char **record) {
  int reference = track_reference(s, a);
  if (reference && has(a, "max-idle-share-regression-abs"))
    return usage_error(a->cmd, "--max-idle-share-regression-abs is the device-time model's; the reference assessment "
                               "(--format reference, or a saved summary) takes --max-stall-share-regression-abs");
  if (!reference && has(a, "max-stall-share-regression-abs"))
    return usage_error(a->cmd, "--max-stall-share-regression-abs is the reference assessment's (--format reference); "
                               "the device-time model takes --max-idle-share-regression-abs");
  xr_runner r;
  char *buf = NULL;
  size_t bn = 0;
  FILE *m = open_memstream(&buf, &bn);
  xr_init(&r, s->db, s->env.queries, m);
  char *tmp[2];
  params_clear(s);
  int rc = two_inputs(s, a, &r, tmp);
  if (!rc) rc = set_summary_params(&r, a);
  if (!rc && text(a, "label")) rc = xr_param_text(&r, "label", text(a, "label"));
  static const char *th[][2] = {{"max-step-median-regression-pct", "max_step_median_regression_pct"},
                                {"max-step-p90-regression-pct", "max_step_p90_regression_pct"},
                                {"max-communication-share-regression-abs", "max_communication_share_regression_abs"},
                                {"max-stall-share-regression-abs", "max_stall_share_regression_abs"},
                                {"max-idle-share-regression-abs", "max_idle_share_regression_abs"}};
  for (size_t i = 0; !rc && i < sizeof th / sizeof th[0]; i++)
    if (has(a, th[i][0])) rc = xr_param_double(&r, th[i][1], opt(a, th[i][0])->d);
  if (!rc) rc = run_query(s, &r, reference ? "track.sql" : "profile_track.sql", "track", 0);
  fclose(m);
  if (!rc) {
    fwrite(buf, 1, bn, out);
    sqlite3_stmt *st;
    const char *status = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT json_extract(?1, '$.assessment.status')", -1, &st, NULL) == SQLITE_OK) {
      sqlite3_bind_text(st, 1, buf, (int)bn, SQLITE_STATIC);
      if (sqlite3_step(st) == SQLITE_ROW) status = (const char *)sqlite3_column_text(st, 0);
    }
    if (!status) rc = errorf("track: no status in the record");
    else if (!strcmp(status, "warn")) rc = XS_WARN;
    else if (!strcmp(status, "fail")) rc = XS_FAIL;
    else if (strcmp(status, "pass")) rc = errorf("track: unknown status '%s'", status);
    sqlite3_finalize(st);
  }
  if (rc == XS_OK || rc == XS_WARN || rc == XS_FAIL) *record = buf;
  else free(buf);
  remove_temps(tmp);
  xr_free(&r);
  return rc;
}

static int cmd_track(int argc, char **argv) {
  static const xopt opts[] = {{"label", 0, O_TEXT}, {"history", 0, O_TEXT},   {"host", 0, O_TEXT},
                              {"top-k", 0, O_INT},  {"output", 'o', O_TEXT}, {"format", 0, O_TEXT},
                              THRESHOLD_OPTS,       SUMMARY_OPTS};
  xargs a = {.cmd = "track", .opts = opts, .nopts = sizeof opts / sizeof opts[0]};
  int rc = parse_args(&a, argc, argv, 2, 2);
  if (rc < 0) return fputs(HELP_TRACK, stdout), XS_OK;
  if (rc) return rc;
  if (text(&a, "format") && strcmp(text(&a, "format"), "device") && strcmp(text(&a, "format"), "reference"))
    return usage_error(a.cmd, "--format must be device or reference, not '%s'", text(&a, "format"));
  if (!has(&a, "history")) return usage_error(a.cmd, "--history DB is required");
  if (!has(&a, "label")) return usage_error(a.cmd, "--label L is required");
  if ((rc = check_history("track", text(&a, "history"), 0))) return rc;
  xsession s = {0};
  if ((rc = session_open(&s, &a))) return rc;
  FILE *out = open_out(text(&a, "output"));
  char *record = NULL;
  rc = out ? run_track(&s, &a, out, &record) : XS_ERR;
  if (out && close_out(out, text(&a, "output"), rc == XS_OK || rc == XS_WARN || rc == XS_FAIL)) rc = XS_ERR;
  if (record && rc != XS_ERR && append_history(&s, text(&a, "history"), record)) rc = XS_ERR;
  free(record);
  session_close(&s);
  return rc;
}

/* ---- history ----------------------------------------------------------- */
static const char *HELP_HISTORY =
    "usage: xplane history --history DB [--tail N] [--format table|json]\n"
    "\n"
    "Show the tracking history `xplane track` appends to: the record count by status,\n"
    "then a table of the last N records (time, label, status, steady median and p90\n"
    "step time before and after in ms, their change, why: the failures and warnings;\n"
    "queries/history_table.sql). --format json prints the reference's summary instead\n"
    "(queries/history.sql: status counts, the most frequent failures and warnings, the\n"
    "latest and the last N records, whole). A missing file or a file that is not a\n"
    "history is refused.\n"
    "\n"
    "  --history DB             the history database (required)\n"
    "  --tail N                 recent records listed (default 20; 0: all in the table)\n"
    "  --format F               table (default) | json\n"
    "Exit status: 0 ok, 1 error, 2 usage error.\n";

static int cmd_history(int argc, char **argv) {
  static const xopt opts[] = {{"history", 0, O_TEXT}, {"tail", 0, O_INT}, {"format", 0, O_TEXT}, {"quiet", 'q', O_FLAG}};
  xargs a = {.cmd = "history", .opts = opts, .nopts = sizeof opts / sizeof opts[0]};
  int rc = parse_args(&a, argc, argv, 0, 0);
  if (rc < 0) return fputs(HELP_HISTORY, stdout), XS_OK;
  if (rc) return rc;
  if (!has(&a, "history")) return usage_error(a.cmd, "--history DB is required");
  const char *format = has(&a, "format") ? text(&a, "format") : "table";
  if (strcmp(format, "table") && strcmp(format, "json"))
    return usage_error(a.cmd, "--format must be table or json, not '%s'", format);
  if ((rc = check_history("history", text(&a, "history"), 1))) return rc;
  xsession s = {0};
  if ((rc = session_open(&s, &a))) return rc;
  s.progress = -1; /* reads no profile */
  xr_runner r;
  xr_init(&r, s.db, s.env.queries, stdout);
  rc = xr_param_text(&r, "history", text(&a, "history"));
  if (!rc && has(&a, "tail")) rc = xr_param_int(&r, "tail", opt(&a, "tail")->i);
  if (!rc) rc = run_query(&s, &r, strcmp(format, "json") ? "history_table.sql" : "history.sql", "history", 0);
  if (!rc && close_out(stdout, NULL, 1)) rc = XS_ERR;
  xr_free(&r);
  session_close(&s);
  return rc ? XS_ERR : XS_OK;
}

/* ---- bundle ------------------------------------------------------------ */
static const char *HELP_BUNDLE =
    "usage: xplane bundle BEFORE AFTER -o DIR [--label L] [thresholds] [options]\n"
    "\n"
    "One-shot before/after package in DIR (created; must be empty or new):\n"
    "  before.summary.json, after.summary.json   the two summaries (profile_summary.v1)\n"
    "  before.report.md, after.report.md         the two reports (xplane report, ms)\n"
    "  compare.json, compare.md                  xplane compare --format json, markdown\n"
    "                                            (the device-time model, ms)\n"
    "  track.json, history.db                    the track record (the device-time\n"
    "                                            model) and its history\n"
    "  manifest.json                             inputs, files (bytes, sha256), status\n"
    "\n"
    "  -o, --output DIR         the bundle folder (required)\n"
    "  --label L                the track record's label (default: bundle)\n"
    "  --host H, --metadata FILE, --top-k N, thresholds and summary options as for\n"
    "  summarize and track; -q, --quiet\n"
    "Exit status: the track status (0 pass, 3 warn, 4 fail), 1 error, 2 usage error.\n";

#include "sha256.h"

static int write_file(const char *dir, const char *name, const char *data, size_t n) {
  char *fn = sqlite3_mprintf("%s/%s", dir, name);
  FILE *f = fopen(fn, "w");
  int rc = 0;
  if (!f || fwrite(data, 1, n, f) != n) rc = errorf("%s: %s", fn, strerror(errno));
  if (f && fclose(f)) rc = errorf("%s: %s", fn, strerror(errno));
  sqlite3_free(fn);
  return rc;
}

static int file_sha256(const char *path, char hex[65], long long *size) {
  size_t n = 0;
  char *buf = xe_read_file(path, &n);
  if (!buf) return 1;
  xp_sha256_hex((const uint8_t *)buf, n, hex);
  *size = (long long)n;
  free(buf);
  return 0;
}

static int cmd_bundle(int argc, char **argv) {
  static const xopt opts[] = {{"output", 'o', O_TEXT}, {"label", 0, O_TEXT}, {"host", 0, O_TEXT},
                              {"top-k", 0, O_INT},     {"metadata", 0, O_TEXT}, THRESHOLD_OPTS, SUMMARY_OPTS,
                              {"history", 0, O_TEXT}, {"summary", 0, O_TEXT}, {"format", 0, O_TEXT}};
  /* history, summary and format are fixed by the bundle: refused below */
  xargs a = {.cmd = "bundle", .opts = opts, .nopts = sizeof opts / sizeof opts[0]};
  int rc = parse_args(&a, argc, argv, 2, 2);
  if (rc < 0) return fputs(HELP_BUNDLE, stdout), XS_OK;
  if (rc) return rc;
  if (has(&a, "history") || has(&a, "summary") || has(&a, "format"))
    return usage_error(a.cmd, "unknown option (the bundle sets history, summaries and formats itself)");
  if (has(&a, "max-stall-share-regression-abs")) /* before anything is written */
    return usage_error(a.cmd, "--max-stall-share-regression-abs is the reference assessment's; the bundle's track "
                              "is the device-time model's: --max-idle-share-regression-abs");
  const char *dir = text(&a, "output");
  if (!dir) return usage_error(a.cmd, "-o DIR is required");
  struct stat st;
  if (stat(dir, &st) == 0) {
    char *probe = sqlite3_mprintf("%s/manifest.json", dir);
    int exists = stat(probe, &st) == 0;
    sqlite3_free(probe);
    if (exists) return errorf("bundle: %s already holds a bundle (manifest.json); choose a new folder", dir);
  }
  xsession s = {0};
  if ((rc = session_open(&s, &a))) return rc;
  const char *names[2] = {"before", "after"};
  xprof p[2];
  xprofs all[2] = {{0}, {0}};
  for (int i = 0; !rc && i < 2; i++)
    if (is_summary_file(&s, a.pos[i]))
      rc = usage_error(a.cmd, "%s is a saved summary: a bundle is made from two profiles (it summarizes them)", a.pos[i]);
  for (int i = 0; !rc && i < 2; i++) rc = one_of(&s, a.cmd, a.pos[i], text(&a, "host"), &p[i], &all[i]);
  if (!rc && mkdirs(dir)) rc = errorf("bundle: %s: %s", dir, strerror(errno));
  /* A bundle's files are its own: one of its names that is already a symbolic
  ** link (or not a regular file) would send a summary, a report or the history's
  ** rows to wherever it points, outside the folder. Refused before anything is
  ** written. (DIR itself may be a link: the user named it.) */
  static const char *const bundle_files[] = {"before.summary.json", "after.summary.json", "before.report.md",
                                             "after.report.md", "compare.json", "compare.md", "history.db",
                                             "track.json", "manifest.json"};
  for (size_t i = 0; !rc && i < sizeof bundle_files / sizeof bundle_files[0]; i++) {
    char *fp = sqlite3_mprintf("%s/%s", dir, bundle_files[i]);
    if (fp && lstat(fp, &st) == 0 && !S_ISREG(st.st_mode))
      rc = errorf("bundle: %s is %s; a bundle folder holds only its own files: choose a new folder", fp,
                  S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file");
    sqlite3_free(fp);
  }
  /* summaries and reports */
  for (int i = 0; !rc && i < 2; i++) {
    const char *q[2] = {"summary.sql", "profile_report.sql"}, *suffix[2] = {"summary.json", "report.md"};
    for (int k = 0; !rc && k < 2; k++) {
      char *buf = NULL;
      size_t n = 0;
      FILE *m = open_memstream(&buf, &n);
      rc = one_profile(&s, &a, &p[i], q[k], m, text(&a, "metadata"));
      fclose(m);
      char *fn = sqlite3_mprintf("%s.%s", names[i], suffix[k]);
      if (!rc) rc = write_file(dir, fn, buf, n);
      sqlite3_free(fn);
      free(buf);
    }
  }
  /* the comparison (json, markdown) and the track record of the two profiles, by the
  ** device-time model (queries/profile_compare.sql, profile_track.sql) */
  const char *formats[2] = {"json", "markdown"}, *cfiles[2] = {"compare.json", "compare.md"};
  for (int k = 0; !rc && k < 2; k++) {
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    rc = run_compare(&s, &a, m, formats[k], 0);
    fclose(m);
    if (!rc) rc = write_file(dir, cfiles[k], buf, n);
    free(buf);
  }
  int status = XS_OK;
  char *hist = sqlite3_mprintf("%s/history.db", dir);
  if (!rc) {
    xval *label = opt(&a, "label");
    if (!label->set) label->text = "bundle", label->set = 1;
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    char *record = NULL;
    status = run_track(&s, &a, m, &record);
    fclose(m);
    if (status == XS_OK || status == XS_WARN || status == XS_FAIL) rc = write_file(dir, "track.json", buf, n);
    else rc = status;
    if (!rc && record) rc = append_history(&s, hist, record);
    free(record);
    free(buf);
  }
  /* the manifest */
  if (!rc) {
    static const char *files[] = {"before.summary.json", "after.summary.json", "before.report.md", "after.report.md",
                                  "compare.json",        "compare.md",         "track.json",       "history.db"};
    sqlite3_stmt *st;
    sqlite3_exec(s.db, "CREATE TEMP TABLE xq_bundle_files(i INTEGER PRIMARY KEY, name TEXT, bytes INTEGER, sha256 TEXT)",
                 NULL, NULL, NULL);
    sqlite3_prepare_v2(s.db, "INSERT INTO xq_bundle_files(name, bytes, sha256) VALUES (?1, ?2, ?3)", -1, &st, NULL);
    for (size_t i = 0; !rc && i < sizeof files / sizeof files[0]; i++) {
      char hex[65];
      long long size = 0;
      char *fn = sqlite3_mprintf("%s/%s", dir, files[i]);
      if (file_sha256(fn, hex, &size)) rc = errorf("%s: %s", fn, strerror(errno));
      sqlite3_free(fn);
      sqlite3_bind_text(st, 1, files[i], -1, SQLITE_STATIC);
      sqlite3_bind_int64(st, 2, size);
      sqlite3_bind_text(st, 3, hex, -1, SQLITE_TRANSIENT);
      sqlite3_step(st);
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    const char *status_name = status == XS_OK ? "pass" : status == XS_WARN ? "warn" : "fail";
    if (!rc && sqlite3_prepare_v2(s.db,
                                  "SELECT xplane_json_pretty(json_object('schema_version', 'xplane_bundle.v1',\n"
                                  "  'xplane_version', xplane_version(), 'created_at_utc', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'),\n"
                                  "  'before', json_object('input', ?1, 'profile', ?2, 'host', ?3),\n"
                                  "  'after', json_object('input', ?4, 'profile', ?5, 'host', ?6),\n"
                                  "  'track_status', ?7, 'units', 'milliseconds in the reports, compare.md, compare.json and track.json (the device-time model); microseconds in the summaries (the reference format, profile_summary.v1)',\n"
                                  "  'files', (SELECT json_group_array(json_object('name', name, 'bytes', bytes, 'sha256', sha256))\n"
                                  "             FROM (SELECT * FROM xq_bundle_files ORDER BY i))))",
                                  -1, &st, NULL) == SQLITE_OK) {
      const char *v[7] = {a.pos[0], p[0].file, p[0].host, a.pos[1], p[1].file, p[1].host, status_name};
      for (int i = 0; i < 7; i++) sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_STATIC);
      if (sqlite3_step(st) == SQLITE_ROW) {
        char *j = sqlite3_mprintf("%s\n", sqlite3_column_text(st, 0));
        rc = write_file(dir, "manifest.json", j, strlen(j));
        sqlite3_free(j);
      } else
        rc = errorf("bundle: manifest: %s", sqlite3_errmsg(s.db));
      sqlite3_finalize(st);
    } else if (!rc)
      rc = errorf("bundle: manifest: %s", sqlite3_errmsg(s.db));
    if (!rc && !s.quiet) fprintf(stderr, "%s bundle: %s written (track: %s)\n", prog, dir, status_name);
  }
  sqlite3_free(hist);
  for (int i = 0; i < 2; i++) profs_free(&all[i]);
  session_close(&s);
  return rc ? rc : status;
}

/* ---- convert ----------------------------------------------------------- */
static const char *HELP_CONVERT =
    "usage: xplane convert PATH -o OUT [--format proto|json] [--merge]\n"
    "\n"
    "Write a Perfetto trace of PATH for ui.perfetto.dev and trace_processor\n"
    "(SELECT xplane_to_perfetto(PATH, OUT, mode); the same as xplane2perfetto).\n"
    "PATH: a .xplane.pb file, a run directory or a logdir.\n"
    "\n"
    "  -o, --output OUT         the trace file (one profile or --merge), or the folder\n"
    "                           of one trace per host (a directory PATH)\n"
    "  --format F               proto (default: Perfetto protobuf) | json (Chrome JSON)\n"
    "  --merge                  all hosts into one trace\n"
    "  -q, --quiet              no progress on stderr\n"
    "  --progress               progress (percent of each profile read, then time) on\n"
    "                           stderr even when it is not a terminal\n"
    "Prints {\"output\": OUT, \"events_written\": N} (slices + instants).\n"
    "Exit status: 0 ok, 1 error, 2 usage error.\n";

static int cmd_convert(int argc, char **argv) {
  static const xopt opts[] = {{"output", 'o', O_TEXT}, {"format", 0, O_TEXT}, {"merge", 0, O_FLAG}, {"quiet", 'q', O_FLAG},
                              {"progress", 0, O_FLAG}};
  xargs a = {.cmd = "convert", .opts = opts, .nopts = sizeof opts / sizeof opts[0]};
  int rc = parse_args(&a, argc, argv, 1, 1);
  if (rc < 0) return fputs(HELP_CONVERT, stdout), XS_OK;
  if (rc) return rc;
  if (!has(&a, "output")) return usage_error(a.cmd, "-o OUT is required");
  const char *format = text(&a, "format") ? text(&a, "format") : "proto";
  if (strcmp(format, "proto") && strcmp(format, "json"))
    return usage_error(a.cmd, "--format must be proto or json, not '%s'", format);
  const char *mode = !strcmp(format, "json") ? (has(&a, "merge") ? "json_merged" : "json")
                                             : (has(&a, "merge") ? "merged" : "per_host");
  xsession s = {0};
  if ((rc = session_open(&s, &a))) return rc;
  /* xplane_to_perfetto writes only when the process environment allows it
  ** (README: Security). This command is typed by its user and runs only the
  ** statement below on its own connection, so it allows it, replacing an
  ** existing output like xplane2perfetto (or, with XPLANE_FILE_OUTPUT=new set
  ** by the user, creating new files only). */
  const char *policy = getenv("XPLANE_FILE_OUTPUT");
  if (!policy || !*policy || !strcmp(policy, "off")) setenv("XPLANE_FILE_OUTPUT", "replace", 1);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(s.db, "SELECT json_object('output', ?2, 'events_written', xplane_to_perfetto(?1, ?2, ?3))", -1,
                         &st, NULL) != SQLITE_OK)
    rc = sql_error(s.db);
  else {
    sqlite3_bind_text(st, 1, a.pos[0], -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, text(&a, "output"), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, mode, -1, SQLITE_STATIC);
    xe_progress_begin(s.db, s.progress, "convert", file_size(a.pos[0]));
    int row = sqlite3_step(st) == SQLITE_ROW;
    xe_progress_end(s.db, row);
    if (row) printf("%s\n", sqlite3_column_text(st, 0));
    else rc = errorf("convert: %s", sqlite3_errmsg(s.db));
    sqlite3_finalize(st);
  }
  session_close(&s);
  return rc;
}

/* ---- sql --------------------------------------------------------------- */
static const char *HELP_SQL =
    "usage: xplane sql [PATH] [-- SQLITE3-ARGS...]\n"
    "\n"
    "The sqlite3 shell with the extension loaded and PATH (if given) as the default\n"
    "profile of every table (SELECT xplane_use(PATH)): `SELECT count(*) FROM xplane_ops;`\n"
    "Arguments after -- go to sqlite3 (a database file, SQL, -cmd ...). The shell is\n"
    "$XPLANE_SQLITE3, else sqlite3 on PATH. The canned queries are in the folder\n"
    "`xplane sql --queries-dir` prints. Exit status: the shell's; 2 usage error.\n";

static int cmd_sql(int argc, char **argv) {
  static const xopt opts[] = {{"queries-dir", 0, O_FLAG}};
  int split = argc;
  for (int i = 0; i < argc; i++)
    if (!strcmp(argv[i], "--")) {
      split = i;
      break;
    }
  xargs a = {.cmd = "sql", .opts = opts, .nopts = 1};
  int rc = parse_args(&a, split, argv, 0, 1);
  if (rc < 0) return fputs(HELP_SQL, stdout), XS_OK;
  if (rc) return rc;
  xe_env env;
  char *err = NULL;
  if (xe_locate(&env, &err)) {
    rc = errorf("%s", err);
    sqlite3_free(err);
    return rc;
  }
  if (has(&a, "queries-dir")) return printf("%s\n", env.queries), XS_OK;
  const char *shell = getenv("XPLANE_SQLITE3");
  if (!shell || !*shell) shell = "sqlite3";
  char **av = calloc((size_t)argc + 16, sizeof *av);
  int n = 0;
  av[n++] = (char *)shell;
  av[n++] = "-cmd";
  av[n++] = sqlite3_mprintf(".load '%s'", env.extension);
  if (a.npos == 1) {
    av[n++] = "-cmd";
    av[n++] = ".output /dev/null";
    av[n++] = "-cmd";
    av[n++] = sqlite3_mprintf("SELECT xplane_use(%Q);", a.pos[0]);
    av[n++] = "-cmd";
    av[n++] = ".output";
  }
  for (int i = split + 1; i < argc; i++) av[n++] = argv[i];
  av[n] = NULL;
  execvp(shell, av);
  return errorf("sql: cannot run %s: %s", shell, strerror(errno));
}

/* ---- main -------------------------------------------------------------- */
static const char *HELP_MAIN =
    "usage: xplane COMMAND [ARGS] (xplane COMMAND --help for each)\n"
    "\n"
    "The profiling workflow for XPlane profiles (*.xplane.pb, JAX/XLA/TensorFlow),\n"
    "run by the canned SQL of xplane-sqlite:\n"
    "  summarize PATH           the profile_summary.v1 JSON document (-o FILE; --all-hosts)\n"
    "  report PATH              the markdown report (or --summary FILE)\n"
    "  query PATH \"QUESTION\"    top ops, compute vs communication, gap before OP, regions,\n"
    "                           context for OP, what to try next\n"
    "  compare BEFORE AFTER     before/after comparison (--strict-provenance, --format)\n"
    "  track BEFORE AFTER       pass/warn/fail against thresholds, appended to --history DB\n"
    "  history --history DB     the tracking history\n"
    "  bundle BEFORE AFTER -o DIR   summaries, reports, comparison, track record, manifest\n"
    "  convert PATH -o OUT      a Perfetto trace\n"
    "  sql [PATH]               the sqlite3 shell with the extension (PATH: default profile)\n"
    "PATH: a .xplane.pb file, a run directory, a TensorBoard logdir or a JSON trace.\n"
    "Units: summaries and query answers in microseconds (the reference's), reports\n"
    "in milliseconds, SQL tables in picoseconds.\n"
    "Exit status: 0 ok, 1 error, 2 usage error, 3 track warn, 4 track fail or\n"
    "compare --strict-provenance failure; stopped by SIGINT or SIGTERM: that\n"
    "signal (a shell shows 130 or 143), no -o file written. Progress (percent of the profile read,\n"
    "then time) goes to stderr when it is a terminal, or with --progress (--quiet:\n"
    "never).\n"
    "  --version                print the version\n";

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(HELP_MAIN, stderr);
    return XS_USAGE;
  }
  const char *c = argv[1];
  if (!strcmp(c, "--help") || !strcmp(c, "-h") || !strcmp(c, "help")) return fputs(HELP_MAIN, stdout), XS_OK;
  if (!strcmp(c, "--version")) return printf("xplane %s\n", XPLANE_VERSION), XS_OK;
  static const struct {
    const char *name;
    int (*fn)(int, char **);
  } cmds[] = {{"summarize", cmd_summarize}, {"report", cmd_report},   {"query", cmd_query},
              {"compare", cmd_compare},     {"track", cmd_track},     {"history", cmd_history},
              {"bundle", cmd_bundle},       {"convert", cmd_convert}, {"sql", cmd_sql}};
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
    if (!strcmp(c, cmds[i].name)) {
      int rc = cmds[i].fn(argc - 2, argv + 2);
      int sig = xe_signal_caught();
      if (sig) { /* cleaned up: end as the signal would have ended us */
        fflush(stdout);
        signal(sig, SIG_DFL);
        raise(sig);
      }
      return rc;
    }
  fprintf(stderr, "%s: unknown command '%s' (xplane --help lists them)\n", prog, c);
  return XS_USAGE;
}
