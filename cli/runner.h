/*
** cli/runner.h: run the canned query files (queries/NAME.sql) the way the sqlite3
** shell runs them, inside the xplane command.
**
**   xr_runner r;
**   xr_init(&r, db, "/usr/share/xplane/queries", stdout);
**   xr_param_text(&r, "profile", path);            // .parameter set, never evaluated
**   xr_param_int(&r, "top_k", 5);
**   if (xr_run(&r, "report.sql") != 0) ... r.err names the file, line and problem
**
** The files are written for the stock sqlite3 shell (`.read queries/lib/...`,
** `.parameter init`, `.mode list`, `.headers off`, `.bail on`, `.print`), so the
** runner understands exactly those dot-commands and refuses any other. A
** `.read queries/X` resolves against the queries folder given to xr_init, so
** the files work from any directory. Parameters live where the shell keeps
** them (temp.sqlite_parameters, key '@name') and every statement's @names are
** bound from there with their stored type: values set with xr_param_text stay
** text ("2024-01-15", "0123e45", "O'Brien" are never read as SQL). Output is
** list mode (columns joined by '|', NULL as empty), the shell's default.
** The first error stops the run (the files turn `.bail on`; the runner always
** bails). xr_substitute() replaces one library file by another (or skips it):
** compare and track read saved summaries instead of building them, and keep the temp
** tables for a moment before the clean-up file drops them. xr_after() reads
** one more library file after another (the run metadata after the summary).
** `.read` names are taken from their last `queries/` on, so the repository's
** relative names and the installed absolute ones both resolve in r->qdir.
*/
#ifndef XPLANE_CLI_RUNNER_H
#define XPLANE_CLI_RUNNER_H

#include <sqlite3.h>
#include <stdio.h>

#define XR_MAX_SUBST 8

typedef struct xr_runner {
  sqlite3 *db;
  const char *qdir;      /* the queries folder (holds summary.sql, lib/, ...) */
  FILE *out;             /* where rows and .print go */
  int headers;           /* .headers on|off */
  int depth;             /* .read nesting */
  const char *subst_from[XR_MAX_SUBST];
  const char *subst_to[XR_MAX_SUBST]; /* NULL: skip the file */
  int nsubst;
  const char *after_from[XR_MAX_SUBST];
  const char *after_to[XR_MAX_SUBST];
  int nafter;
  char *err;             /* sqlite3_malloc'd message after a failure */
} xr_runner;

void xr_init(xr_runner *r, sqlite3 *db, const char *qdir, FILE *out);
void xr_free(xr_runner *r);
/* Replace `.read queries/<from>` by `.read queries/<to>` (to NULL: skip it). */
void xr_substitute(xr_runner *r, const char *from, const char *to);
/* After `.read queries/<file>`, also read queries/<extra>. */
void xr_after(xr_runner *r, const char *file, const char *extra);
/* Set @name (without the '@') as the shell's `.parameter set` would store it,
** but bound, never evaluated. 0 on success. */
int xr_param_text(xr_runner *r, const char *name, const char *value);
int xr_param_int(xr_runner *r, const char *name, long long value);
int xr_param_double(xr_runner *r, const char *name, double value);
/* Run queries/<file> (a name relative to the queries folder). 0 on success,
** else 1 with r->err set. */
int xr_run(xr_runner *r, const char *file);
/* Run SQL text (statements and dot-commands) as if read from `label`. */
int xr_run_text(xr_runner *r, const char *label, const char *text);

/* An SQLite error message as the command prints it: an error of the
** extension ("xplane_tracks: F: truncated at byte ...") without its table's
** or function's name (F and the problem are the message); anything else as
** it is. Returns m or a pointer into it. */
const char *xr_user_error(const char *m);

#endif
