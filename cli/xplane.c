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
** Every subcommand runs the canned query files (queries/*.sql, installed under
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
** stdout carries the data, stderr the messages and (only when it is a
** terminal, and not --quiet) progress.
*/
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "runner.h"

#ifndef XPLANE_VERSION
#define XPLANE_VERSION "0.0.0"
#endif

enum { X_OK = 0, X_ERR = 1, X_USAGE = 2, X_WARN = 3, X_FAIL = 4 };

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
  return X_USAGE;
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
** printed by the caller), X_USAGE on an error (printed), 0 otherwise. */
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
  {"warmup-steps", 0, O_INT}, {"hot-op-limit", 0, O_INT}, {"breakdown-mode", 0, O_TEXT}, {"quiet", 'q', O_FLAG}
#define THRESHOLD_OPTS                                                                                   \
  {"max-step-median-regression-pct", 0, O_NUM}, {"max-step-p90-regression-pct", 0, O_NUM},                 \
      {"max-communication-share-regression-abs", 0, O_NUM}, {"max-stall-share-regression-abs", 0, O_NUM}

/* ---- the session ------------------------------------------------------- */
typedef struct {
  xe_env env;
  sqlite3 *db;
  int quiet;
} xsession;

static int die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", prog);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return X_ERR;
}

static int session_open(xsession *s, int quiet) {
  char *err = NULL;
  s->quiet = quiet;
  if (xe_locate(&s->env, &err) != 0 || !(s->db = xe_open(&s->env, &err))) {
    int rc = die("%s", err ? err : "cannot start");
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
  xe_progress_begin(s->db, s->quiet, what, bytes);
  int rc = xr_run(r, file);
  xe_progress_end(s->db);
  if (rc) {
    die("%s", r->err ? r->err : "failed");
    return X_ERR;
  }
  return X_OK;
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
    return die("%s", sqlite3_errmsg(s->db));
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
    int e = die("%s", sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
    profs_free(out);
    return e;
  }
  sqlite3_finalize(st);
  if (out->n == 0) return die("%s: no profile (.xplane.pb or JSON trace) found", path);
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
  if (k == 0) return die("%s: no host named '%s'", path, host);
  if (k > 1) return die("%s: host '%s' is in %d runs: pass --host RUN/%s", path, host, k, host);
  return 0;
}

static void list_hosts(const xprofs *p, FILE *f) {
  for (int i = 0; i < p->n; i++) fprintf(f, "  %s/%s  (%s)\n", p->v[i].run, p->v[i].host, p->v[i].file);
}

/* ---- metadata facts ---------------------------------------------------- */
/* Fill temp.xq_run_facts from --metadata FILE: a JSON object (scalar values)
** or a CSV of key,value rows (a first row key,value is a header). */
static int load_metadata(xsession *s, const char *path) {
  if (sqlite3_exec(s->db, "DROP TABLE IF EXISTS temp.xq_run_facts; CREATE TEMP TABLE xq_run_facts(key TEXT, value TEXT)",
                   NULL, NULL, NULL))
    return die("%s", sqlite3_errmsg(s->db));
  if (!path) return 0;
  FILE *f = fopen(path, "rb");
  if (!f) return die("--metadata %s: %s", path, strerror(errno));
  char *buf = NULL;
  size_t size = 0;
  FILE *m = open_memstream(&buf, &size);
  char chunk[8192];
  size_t n;
  while (m && (n = fread(chunk, 1, sizeof chunk, f)) > 0) fwrite(chunk, 1, n, m);
  fclose(f);
  if (m) fclose(m);
  if (!buf) return die("--metadata %s: cannot read", path);
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
      if (sqlite3_step(st) != SQLITE_DONE) rc = die("--metadata %s: %s", path, sqlite3_errmsg(s->db));
      sqlite3_finalize(st);
      sqlite3_stmt *chk;
      sqlite3_prepare_v2(s->db, "SELECT json_valid(?1) AND json_type(?1) = 'object'", -1, &chk, NULL);
      sqlite3_bind_text(chk, 1, p, -1, SQLITE_STATIC);
      if (!rc && (sqlite3_step(chk) != SQLITE_ROW || !sqlite3_column_int(chk, 0)))
        rc = die("--metadata %s: not a JSON object", path);
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
          rc = die("--metadata %s line %d: expected key,value", path, lineno);
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
          if (sqlite3_step(st) != SQLITE_DONE) rc = die("--metadata %s: %s", path, sqlite3_errmsg(s->db));
          sqlite3_reset(st);
        }
      }
      line = nl ? nl + 1 : NULL;
    }
    sqlite3_finalize(st);
  }
  free(buf);
  return rc;
}

static int add_fact(xsession *s, const char *key, const char *value) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(s->db,
                         "INSERT INTO xq_run_facts SELECT ?1, ?2 WHERE NOT EXISTS (SELECT 1 FROM xq_run_facts WHERE key = ?1)",
                         -1, &st, NULL))
    return die("%s", sqlite3_errmsg(s->db));
  sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : die("%s", sqlite3_errmsg(s->db));
  sqlite3_finalize(st);
  return rc;
}

/* ---- output ------------------------------------------------------------ */
/* Open -o FILE (or stdout). */
static FILE *open_out(const char *path) {
  if (!path || !strcmp(path, "-")) return stdout;
  FILE *f = fopen(path, "w");
  if (!f) die("%s: %s", path, strerror(errno));
  return f;
}
static int close_out(FILE *f, const char *path) {
  if (f == stdout) return fflush(stdout) ? die("stdout: %s", strerror(errno)) : 0;
  if (fclose(f)) return die("%s: %s", path, strerror(errno));
  return 0;
}

/* ---- summarize / report for one profile -------------------------------- */
/* Build one profile's summary (with run metadata) and print summary.sql's
** or report.sql's output to out. */
static int one_profile(xsession *s, xargs *a, const xprof *p, const char *query, FILE *out, const char *metadata) {
  params_clear(s);
  xr_runner r;
  xr_init(&r, s->db, s->env.queries, out);
  int rc = load_metadata(s, metadata);
  if (!rc) rc = add_fact(s, "run_path", p->run);
  if (!rc) rc = xr_param_text(&r, "profile", p->file) | set_summary_params(&r, a);
  xr_after(&r, "lib/summary_json.sql", "lib/run_metadata.sql");
  char *what = sqlite3_mprintf("%s %s", !strcmp(query, "report.sql") ? "report" : "summary", p->host);
  if (!rc) rc = run_query(s, &r, query, what, file_size(p->file));
  sqlite3_free(what);
  xr_free(&r);
  return rc ? X_ERR : X_OK;
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
    "  'unit', 'step times in microseconds; skew = (slowest - fastest) / fastest median step time')";

static const char *CROSS_HOST_MD_SQL =
    "WITH h AS (SELECT run, host, doc ->> '$.step_time.steady_state_steps.median' AS median,\n"
    "                  doc ->> '$.step_time.steady_state_steps.p90' AS p90,\n"
    "                  coalesce(doc ->> '$.step_time.steady_state_steps.count', 0) AS n,\n"
    "                  doc ->> '$.step_time.all_steps.median' AS all_median FROM xq_host_docs ORDER BY run, host),\n"
    "     c(j) AS (SELECT ?1)\n"
    "SELECT '## Cross-host step time (' || (SELECT count(*) FROM h) || ' hosts, microseconds)' || char(10) || char(10)\n"
    "    || '| run | host | steady steps | median step (us) | p90 step (us) |' || char(10)\n"
    "    || '|---|---|---:|---:|---:|' || char(10)\n"
    "    || (SELECT group_concat('| `' || run || '` | `' || host || '` | ' || n || ' | '\n"
    "                || coalesce(xplane_format(coalesce(median, all_median), '.3f'), 'n/a') || ' | '\n"
    "                || coalesce(xplane_format(p90, '.3f'), 'n/a') || ' |', char(10)) FROM h) || char(10) || char(10)\n"
    "    || '- Slowest host: `' || coalesce((SELECT j ->> '$.slowest_host' FROM c), 'n/a') || '`' || char(10)\n"
    "    || '- Step-time skew ((slowest - fastest) / fastest median): '\n"
    "    || coalesce((SELECT xplane_format(100.0 * (j ->> '$.step_time_skew'), '.2f') || '%' FROM c), 'n/a')\n"
    "    || char(10) || '(median of the steady-state steps; of all steps when a host has none)' || char(10)";

static int host_docs_init(xsession *s) {
  return sqlite3_exec(s->db,
                      "DROP TABLE IF EXISTS temp.xq_host_docs; CREATE TEMP TABLE xq_host_docs(run TEXT, host TEXT, doc TEXT)",
                      NULL, NULL, NULL)
             ? die("%s", sqlite3_errmsg(s->db))
             : 0;
}

static int host_docs_add(xsession *s, const xprof *p, const char *doc) {
  sqlite3_stmt *st;
  sqlite3_prepare_v2(s->db, "INSERT INTO xq_host_docs VALUES (?1, ?2, json(?3))", -1, &st, NULL);
  sqlite3_bind_text(st, 1, p->run, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, p->host, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, doc, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : die("%s/%s: %s", p->run, p->host, sqlite3_errmsg(s->db));
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
    die("cross-host table: %s", sqlite3_errmsg(s->db));
  sqlite3_finalize(st);
  if (json && md) {
    *md = NULL;
    if (sqlite3_prepare_v2(s->db, CROSS_HOST_MD_SQL, -1, &st, NULL) == SQLITE_OK) {
      sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
      if (sqlite3_step(st) == SQLITE_ROW) *md = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
    }
    if (!*md) die("cross-host table: %s", sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
  }
  return json;
}

/* Pretty-print JSON text with the extension's xplane_json_pretty. */
static int print_pretty(xsession *s, const char *json, FILE *out) {
  sqlite3_stmt *st;
  int rc = X_ERR;
  if (sqlite3_prepare_v2(s->db, "SELECT xplane_json_pretty(?1)", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
      fprintf(out, "%s\n", sqlite3_column_text(st, 0));
      rc = X_OK;
    }
  }
  if (rc) die("%s", sqlite3_errmsg(s->db));
  sqlite3_finalize(st);
  return rc;
}
