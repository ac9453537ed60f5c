/*
** functions.c: scalar SQL functions of the extension.
**
**   xplane_version()          -- the extension's version, e.g. '0.1.0'
**   xplane_threads([n])       -- threads for multi-file decodes and one profile's analysis (get/set)
**   xplane_cache_stats()      -- JSON {"entries","opens","hits","bytes","budget","peak_bytes","pf_imports"}
**                                of this connection's cache (cache.h)
**   xplane_cache_budget([n])  -- the cache's byte budget (get/set; default 4 GiB, cache.h)
**   xplane_skip_unreadable([0|1]) -- data tables skip the files of a path that cannot be
**                                read (listed in xplane_space.warnings) instead of failing
**                                on the first; default 0 (get/set, per connection)
**   xplane_use(path)          -- make PATH the profile of every table call that
**                                passes none (SELECT * FROM xplane_ops), as trace
**                                processor's tables read its one trace; returns
**                                the number of profile files PATH names (an error
**                                if none); xplane_use(NULL) forgets it
**   xplane_use()              -- the current default path, or NULL
**   xplane_use_only(path)     -- xplane_use(path) for good, for SQL someone else
**                                writes (the TensorBoard plugin's console): the
**                                connection's tables then read PATH only (a call
**                                naming another path is an error), and
**                                xplane_use(P), xplane_use_only(P), the HLO
**                                table's file argument and xplane_to_perfetto
**                                are errors until the connection closes
**   xplane_progress(P)        -- the connection's decode progress hook: P is a
**                                pointer to an xp_progress (core/profile.h) that
**                                the application binds with
**                                sqlite3_bind_pointer(stmt, i, hook, "xplane_progress", 0)
**                                (the `xplane` command's percent line); any other
**                                value (NULL, text: all SQL can give) clears it
**
** Pure functions are SQLITE_DETERMINISTIC|SQLITE_INNOCUOUS; the ones that
** touch connection state are SQLITE_DIRECTONLY. Their user data is the
** connection's cache, so each names itself in its errors (one C function per
** SQL name here), e.g. "xplane_use: out of memory" (result.h).
*/
#include "functions.h"

#include "discover.h"
#include "result.h"

SQLITE_EXTENSION_INIT3

/* The project's version, `project(... VERSION)` in CMakeLists.txt (given by
** sqlite_ext/CMakeLists.txt; `xplane --version` prints the same). */
#ifndef XPLANE_VERSION
#error "XPLANE_VERSION is set by sqlite_ext/CMakeLists.txt"
#endif
#define XP_VERSION XPLANE_VERSION

static void fn_version(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sqlite3_result_text(ctx, XP_VERSION, -1, SQLITE_STATIC);
}

static void fn_threads(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  xp_cache *c = sqlite3_user_data(ctx);
  if (argc == 1) {
    if (sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER || sqlite3_value_int64(argv[0]) < 1 ||
        sqlite3_value_int64(argv[0]) > 64) {
      sqlite3_result_error(ctx, "xplane_threads: expected an integer from 1 to 64", -1);
      return;
    }
    xp_cache_set_threads(c, (int)sqlite3_value_int64(argv[0]));
  }
  sqlite3_result_int(ctx, xp_cache_threads(c));
}

static void fn_cache_stats(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  xp_cache_stats st;
  xp_cache_counters(sqlite3_user_data(ctx), &st);
  char *z = sqlite3_mprintf("{\"entries\":%lld,\"opens\":%lld,\"hits\":%lld,\"bytes\":%lld,\"budget\":%lld,"
                            "\"peak_bytes\":%lld,\"pf_imports\":%lld}",
                            (long long)st.entries, (long long)st.opens, (long long)st.hits, (long long)st.bytes,
                            (long long)st.budget, (long long)st.peak_bytes, (long long)st.pf_imports);
  if (!z) {
    xp_result_error_at(ctx, SQLITE_NOMEM, "xplane_cache_stats");
    return;
  }
  sqlite3_result_text(ctx, z, -1, sqlite3_free);
}

static void fn_cache_budget(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  xp_cache *c = sqlite3_user_data(ctx);
  if (argc == 1) {
    if (sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER || sqlite3_value_int64(argv[0]) < 0) {
      sqlite3_result_error(ctx, "xplane_cache_budget: expected a byte count (an integer, 0 or more)", -1);
      return;
    }
    xp_cache_set_budget(c, sqlite3_value_int64(argv[0]));
  }
  sqlite3_result_int64(ctx, xp_cache_budget(c));
}

static void fn_skip_unreadable(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  xp_cache *c = sqlite3_user_data(ctx);
  if (argc == 1) {
    if (sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER ||
        (sqlite3_value_int64(argv[0]) != 0 && sqlite3_value_int64(argv[0]) != 1)) {
      sqlite3_result_error(ctx, "xplane_skip_unreadable: expected 0 or 1", -1);
      return;
    }
    xp_cache_set_skip_unreadable(c, (int)sqlite3_value_int64(argv[0]));
  }
  sqlite3_result_int(ctx, xp_cache_skip_unreadable(c));
}

/* xplane_use(P) and xplane_use_only(P) (confine = 1): P must name at least
** one profile; xplane_use() returns the default path. */
static void use_path(sqlite3_context *ctx, int argc, sqlite3_value **argv, int confine) {
  xp_cache *c = sqlite3_user_data(ctx);
  const char *fn = confine ? "xplane_use_only" : "xplane_use";
  if (argc == 1 && xp_cache_confined(c)) {
    char *msg = sqlite3_mprintf("%s: this connection is confined to one profile by xplane_use_only, for good", fn);
    sqlite3_result_error(ctx, msg ? msg : "out of memory", -1);
    sqlite3_free(msg);
    return;
  }
  if (argc == 1 && confine && sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
    sqlite3_result_error(ctx, "xplane_use_only: the argument must be the text of a path", -1);
    return;
  }
  if (argc == 1) {
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
      xp_cache_set_default_path(c, NULL);
      sqlite3_result_null(ctx);
      return;
    }
    const char *path = (const char *)sqlite3_value_text(argv[0]);
    xp_filelist files;
    char *err = NULL;
    if (xp_value_has_nul(argv[0])) {
      char *msg = sqlite3_mprintf("%s: " XP_NUL_PATH_TEXT, fn);
      sqlite3_result_error(ctx, msg ? msg : XP_NUL_PATH_TEXT, -1);
      sqlite3_free(msg);
      return;
    }
    if (!path) {
      xp_result_error_at(ctx, SQLITE_NOMEM, fn);
      return;
    }
    if (!xp_discover(path, &files, &err)) {
      char *msg = sqlite3_mprintf("%s: %s", fn, err ? err : "out of memory");
      sqlite3_result_error(ctx, msg ? msg : "out of memory", -1);
      sqlite3_free(msg);
      xp_free(err);
      return;
    }
    int n = files.n;
    xp_filelist_free(&files);
    if (!(confine ? xp_cache_confine(c, path) : xp_cache_set_default_path(c, path))) {
      xp_result_error_at(ctx, SQLITE_NOMEM, fn);
      return;
    }
    sqlite3_result_int(ctx, n);
    return;
  }
  const char *dflt = xp_cache_default_path(c);
  if (dflt) sqlite3_result_text(ctx, dflt, -1, SQLITE_TRANSIENT);
  else sqlite3_result_null(ctx);
}

static void fn_use(sqlite3_context *ctx, int argc, sqlite3_value **argv) { use_path(ctx, argc, argv, 0); }
static void fn_use_only(sqlite3_context *ctx, int argc, sqlite3_value **argv) { use_path(ctx, argc, argv, 1); }

/* xplane_progress(P): SQLite's pointer passing (sqlite3_bind_pointer): only C
** code can make such a value, so SQL can clear the hook but never set one. */
static void fn_progress(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  xp_cache *c = sqlite3_user_data(ctx);
  const xp_progress *hook = sqlite3_value_pointer(argv[0], "xplane_progress");
  xp_cache_set_progress(c, hook);
  sqlite3_result_int(ctx, hook && hook->fn ? 1 : 0);
}

#define XP_PURE (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)
#define XP_STATEFUL (SQLITE_UTF8 | SQLITE_DIRECTONLY)

static const struct {
  const char *name;
  int n_arg;
  int flags;
  int uses_cache;
  void (*fn)(sqlite3_context *, int, sqlite3_value **);
} xp_functions[] = {
    {"xplane_version", 0, XP_PURE, 0, fn_version},
    {"xplane_threads", 0, XP_STATEFUL, 1, fn_threads},
    {"xplane_threads", 1, XP_STATEFUL, 1, fn_threads},
    {"xplane_cache_stats", 0, XP_STATEFUL, 1, fn_cache_stats},
    {"xplane_cache_budget", 0, XP_STATEFUL, 1, fn_cache_budget},
    {"xplane_skip_unreadable", 0, XP_STATEFUL, 1, fn_skip_unreadable},
    {"xplane_skip_unreadable", 1, XP_STATEFUL, 1, fn_skip_unreadable},
    {"xplane_cache_budget", 1, XP_STATEFUL, 1, fn_cache_budget},
    {"xplane_use", 0, XP_STATEFUL, 1, fn_use},
    {"xplane_use", 1, XP_STATEFUL, 1, fn_use},
    {"xplane_use_only", 1, XP_STATEFUL, 1, fn_use_only},
    {"xplane_progress", 1, XP_STATEFUL, 1, fn_progress},
};

int xp_register_functions(sqlite3 *db, xp_cache *cache) {
  int rc = SQLITE_OK;
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof(xp_functions) / sizeof(xp_functions[0]); i++) {
    void *data = xp_functions[i].uses_cache ? cache : NULL;
    if (data) xp_cache_retain(cache);
    rc = sqlite3_create_function_v2(db, xp_functions[i].name, xp_functions[i].n_arg,
                                    xp_functions[i].flags, data, xp_functions[i].fn, NULL, NULL,
                                    data ? xp_cache_release_data : NULL);
  }
  return rc;
}
