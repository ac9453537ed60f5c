/*
** cli/env.c: locate the extension and the query files, open the connection
** (interface: env.h).
*/
#include "env.h"

#include "profile.h" /* xp_progress: the extension's decode hook (xplane_progress) */

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef XPLANE_REL_EXTENSION
#define XPLANE_REL_EXTENSION "../lib/xplane/xplane"
#endif
#ifndef XPLANE_REL_QUERIES
#define XPLANE_REL_QUERIES "../share/xplane/queries"
#endif

static int xe_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

#pragma GCC diagnostic ignored "-Wformat-truncation" /* xe_set checks the length itself */
static int xe_set(char *dst, size_t cap, const char *a, const char *b) {
  int n = snprintf(dst, cap, "%s%s%s", a, b ? "/" : "", b ? b : "");
  return n > 0 && (size_t)n < cap;
}

int xe_locate(xe_env *e, char **err) {
  memset(e, 0, sizeof *e);
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    *err = sqlite3_mprintf("cannot find the xplane executable (/proc/self/exe)");
    return 1;
  }
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (slash) *slash = 0;
  xe_set(e->exe_dir, sizeof e->exe_dir, exe, NULL);
#ifdef XPLANE_BUILD_CLI_DIR
  int in_build = strcmp(e->exe_dir, XPLANE_BUILD_CLI_DIR) == 0;
#else
  int in_build = 0;
#endif

  const char *env = getenv("XPLANE_EXTENSION");
  char so[sizeof e->extension + 8];
  if (env && *env) xe_set(e->extension, sizeof e->extension, env, NULL);
  else {
    xe_set(e->extension, sizeof e->extension, e->exe_dir, XPLANE_REL_EXTENSION);
    snprintf(so, sizeof so, "%s.so", e->extension);
#ifdef XPLANE_BUILD_EXTENSION
    if (!xe_exists(so) && in_build) xe_set(e->extension, sizeof e->extension, XPLANE_BUILD_EXTENSION, NULL);
#endif
    snprintf(so, sizeof so, "%s.so", e->extension);
    if (!xe_exists(so)) {
      *err = sqlite3_mprintf("cannot find the xplane extension (looked for %s; set XPLANE_EXTENSION)", so);
      return 1;
    }
  }

  env = getenv("XPLANE_QUERIES");
  if (env && *env) xe_set(e->queries, sizeof e->queries, env, NULL);
  else {
    xe_set(e->queries, sizeof e->queries, e->exe_dir, XPLANE_REL_QUERIES);
#ifdef XPLANE_SOURCE_QUERIES
    char probe[sizeof e->queries + 16];
    snprintf(probe, sizeof probe, "%s/summary.sql", e->queries);
    if (!xe_exists(probe) && in_build) xe_set(e->queries, sizeof e->queries, XPLANE_SOURCE_QUERIES, NULL);
#endif
  }
  char probe[sizeof e->queries + 16];
  snprintf(probe, sizeof probe, "%s/summary.sql", e->queries);
  if (!xe_exists(probe)) {
    *err = sqlite3_mprintf("cannot find the query files (looked for %s; set XPLANE_QUERIES)", probe);
    return 1;
  }
  return 0;
}

char *xe_read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t size = 0;
  FILE *m = open_memstream(&buf, &size);
  char chunk[65536];
  size_t k;
  int bad = !m;
  while (!bad && (k = fread(chunk, 1, sizeof chunk, f)) > 0) bad = fwrite(chunk, 1, k, m) != k;
  bad = bad || ferror(f);
  int e = errno;
  fclose(f);
  if (m && fclose(m)) bad = 1;
  if (bad || !buf) {
    free(buf);
    errno = e ? e : EIO;
    return NULL;
  }
  *n = size;
  return buf; /* open_memstream keeps it NUL-terminated */
}

/* readfile(NAME): the file's bytes as a blob, NULL when it cannot be read
** (the sqlite3 shell's function of the same name). */
static void xe_readfile(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *name = (const char *)sqlite3_value_text(argv[0]);
  size_t size = 0;
  char *buf = name ? xe_read_file(name, &size) : NULL;
  if (buf && size <= INT_MAX) sqlite3_result_blob(ctx, buf, (int)size, SQLITE_TRANSIENT);
  free(buf);
}

sqlite3 *xe_open(const xe_env *e, char **err) {
  sqlite3 *db = NULL;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
    *err = sqlite3_mprintf("cannot open SQLite: %s", db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return NULL;
  }
  char *lerr = NULL;
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, NULL);
  if (sqlite3_load_extension(db, e->extension, "sqlite3_xplane_init", &lerr) != SQLITE_OK) {
    *err = sqlite3_mprintf("cannot load the xplane extension %s: %s", e->extension, lerr ? lerr : "?");
    sqlite3_free(lerr);
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
  sqlite3_create_function(db, "readfile", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL, xe_readfile, NULL, NULL);
  /* A history database attached by track or history may be locked by another
  ** `xplane track` appending to it (several jobs of one sweep): wait for it. */
  sqlite3_busy_timeout(db, XE_BUSY_TIMEOUT_MS);
  return db;
}

/* ---- progress --------------------------------------------------------- */
/* Two sources: the extension's decode hook (xplane_progress, core/profile.h:
** bytes of the profile indexed so far), and SQLite's progress handler (called
** while anything runs, for the elapsed time after the index is built). The
** line is redrawn in place (\r) on a terminal, one line per update elsewhere
** (--progress into a log), at every 10 % step of the decode and otherwise at
** most every 0.25 s; when shown only because stderr is a terminal, it starts
** after 0.5 s (a fast run prints nothing). */
static struct {
  int on, forced, tty, shown;
  const char *what;
  long long bytes;
  long long done, total; /* the decode hook's last report; total 0: none yet */
  int last_pct;
  struct timespec t0, last;
} xe_prog;

static double xe_since(const struct timespec *a, const struct timespec *b) {
  return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void xe_progress_line(int force) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  double t = xe_since(&xe_prog.t0, &now);
  if (!force && (xe_since(&xe_prog.last, &now) < 0.25 || (!xe_prog.forced && t < 0.5))) return;
  xe_prog.last = now;
  fprintf(stderr, "%sxplane: %s (%.1f MB): ", xe_prog.tty ? "\r" : "", xe_prog.what, (double)xe_prog.bytes / 1e6);
  if (xe_prog.total > 0 && xe_prog.done < xe_prog.total)
    fprintf(stderr, "%d%% read, %.1f s", xe_prog.last_pct, t);
  else if (xe_prog.total > 0)
    fprintf(stderr, "100%% read, %.1f s", t);
  else
    fprintf(stderr, "%.1f s", t);
  fputs(xe_prog.tty ? "\033[K" : "\n", stderr); /* erase the rest of a longer line */
  xe_prog.shown = 1;
}

static int xe_progress_cb(void *arg) {
  (void)arg;
  xe_progress_line(0);
  return 0;
}

/* The decode hook: bytes done of total (one profile; a new profile restarts). */
static void xe_decode_cb(void *arg, int64_t done, int64_t total) {
  (void)arg;
  int pct = total > 0 ? (int)(100 * (double)done / (double)total) : 0;
  if (pct > 100) pct = 100;
  if (total != xe_prog.total || done < xe_prog.done) xe_prog.last_pct = -1; /* the next profile */
  xe_prog.done = done;
  xe_prog.total = total;
  if (pct == xe_prog.last_pct) return;
  /* Each 10 % step shows (once the line shows at all), whatever the time. */
  int step = xe_prog.last_pct < 0 || pct / 10 != xe_prog.last_pct / 10;
  xe_prog.last_pct = pct;
  xe_progress_line(step && (xe_prog.forced || xe_prog.shown));
}

static const xp_progress xe_hook = {xe_decode_cb, NULL};

/* SELECT xplane_progress(P), P the hook (NULL: clear). */
static void xe_set_hook(sqlite3 *db, const xp_progress *hook) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT xplane_progress(?1)", -1, &st, NULL) != SQLITE_OK) return;
  if (hook) sqlite3_bind_pointer(st, 1, (void *)hook, "xplane_progress", NULL);
  sqlite3_step(st);
  sqlite3_finalize(st);
}

void xe_progress_begin(sqlite3 *db, int mode, const char *what, long long bytes) {
  xe_prog.tty = isatty(2);
  xe_prog.forced = mode > 0;
  xe_prog.on = mode > 0 || (mode == 0 && xe_prog.tty);
  xe_prog.shown = 0;
  xe_prog.what = what;
  xe_prog.bytes = bytes;
  xe_prog.done = xe_prog.total = 0;
  xe_prog.last_pct = -1;
  clock_gettime(CLOCK_MONOTONIC, &xe_prog.t0);
  xe_prog.last = xe_prog.t0;
  xe_prog.last.tv_sec -= 1; /* the first update may show at once */
  if (!xe_prog.on) return;
  xe_set_hook(db, &xe_hook);
  sqlite3_progress_handler(db, 1000, xe_progress_cb, NULL); /* <= 1000: reached during the extension's long calls too (sqlite_ext/interrupt.h) */
}

void xe_progress_end(sqlite3 *db, int ok) {
  if (!xe_prog.on) return;
  sqlite3_progress_handler(db, 0, NULL, NULL);
  xe_set_hook(db, NULL);
  if (xe_prog.shown || xe_prog.forced) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double t = xe_since(&xe_prog.t0, &now);
    fprintf(stderr, "%sxplane: %s (%.1f MB): %s in %.1f s", xe_prog.tty ? "\r" : "", xe_prog.what,
            (double)xe_prog.bytes / 1e6, ok ? "done" : "failed", t);
    if (ok && xe_prog.bytes > 0 && t > 0) fprintf(stderr, ", %.1f MB/s", (double)xe_prog.bytes / 1e6 / t);
    fputs(xe_prog.tty ? "\033[K\n" : "\n", stderr);
  }
  xe_prog.on = 0;
}

static sqlite3 *xe_sig_db;
static volatile sig_atomic_t xe_sig;
static void xe_on_signal(int sig) {
  xe_sig = sig;
  if (xe_sig_db) sqlite3_interrupt(xe_sig_db);
  signal(sig, SIG_DFL); /* a second signal ends the process */
}

int xe_signal_caught(void) { return xe_sig; }

void xe_catch_signals(sqlite3 *db) {
  xe_sig_db = db;
  signal(SIGINT, xe_on_signal);
  signal(SIGTERM, xe_on_signal);
}
