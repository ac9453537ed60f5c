/*
** cli/env.h: where the xplane command finds its parts, and the connection it
** runs the canned queries on.
**
**   xe_env e;
**   if (xe_locate(&e, argv[0]) != 0) ...  e.extension, e.queries, e.sqlite3
**   sqlite3 *db = xe_open(&e, quiet, &err);   // :memory:, extension loaded
**
** The command loads the extension file users load themselves (the built or
** installed xplane.so) and runs the installed query files; both are found
** relative to the executable, so it works from any directory:
**   installed:   <prefix>/bin/xplane -> <prefix>/<libdir>/xplane/xplane.so,
**                <prefix>/share/xplane/queries/
**   build tree:  <build>/cli/xplane  -> <build>/xplane.so, <source>/queries/
** XPLANE_EXTENSION and XPLANE_QUERIES (environment) override both.
** xe_open also registers readfile() (the shell's function, which the query
** files use to read summary documents) and a progress line on stderr, and
** sets a busy timeout of XE_BUSY_TIMEOUT_MS: a history database that another
** `xplane track` is appending to is waited for, not an error.
*/
#ifndef XPLANE_CLI_ENV_H
#define XPLANE_CLI_ENV_H

#include <sqlite3.h>
#include <stddef.h>

typedef struct xe_env {
  char exe_dir[4096];
  char extension[4096]; /* the extension file to load (with or without .so) */
  char queries[4096];   /* the folder holding summary.sql, lib/, ... */
} xe_env;

#define XE_BUSY_TIMEOUT_MS 60000

int xe_locate(xe_env *e, char **err);
sqlite3 *xe_open(const xe_env *e, char **err);

/* Progress on stderr while a query runs: what is read, its size, the percent
** of the profile indexed so far (the extension's decode hook, set with
** xplane_progress), then the elapsed time, and at the end the time and rate.
** mode: 1 always (--progress; also into a file or pipe, one line per
** update), 0 when stderr is a terminal (redrawn in place, from 0.5 s on),
** -1 never (--quiet). xe_progress_begin before the work, xe_progress_end
** after (ok: it succeeded). */
void xe_progress_begin(sqlite3 *db, int mode, const char *what, long long bytes);
void xe_progress_end(sqlite3 *db, int ok);

/* The whole file at path, NUL-terminated (malloc'd; *n its size). NULL when
** it cannot be opened or read (errno says why). */
char *xe_read_file(const char *path, size_t *n);

/* Interrupt the running statement on SIGINT/SIGTERM (sqlite3_interrupt). */
void xe_catch_signals(sqlite3 *db);
/* The SIGINT or SIGTERM that interrupted the connection, else 0. The command
** then cleans up (an -o file is never published) and ends by that signal
** (main re-raises it), so its parent sees the status a shell shows as 130 / 143. */
int xe_signal_caught(void);

#endif
