/*
** functions_export.c: write trace files trace processor opens, from SQL.
**
**   SELECT xplane_to_perfetto('run/host0.xplane.pb', 'host0.pftrace');
**   SELECT xplane_to_perfetto('logs/', 'traces/');              -- a trace per host
**   SELECT xplane_to_perfetto('logs/', 'all.pftrace', 'merged');
**   SELECT xplane_to_perfetto('run/h.xplane.pb', 'h.json', 'json');
**
** xplane_to_perfetto(path, out_path [, mode]) converts the profiles `path`
** names (tp_plugin/pf_export.h: output naming, refusals) and returns the
** number of slices and instants written. mode: 'per_host' (default),
** 'merged' (one trace, a process per plane per host), 'json' or
** 'json_merged' (Chrome JSON).
**
** Write policy (README "Security"): it writes files, so it is off unless the
** process environment says otherwise, which no SQL can change:
**   XPLANE_FILE_OUTPUT unset, empty or 'off'  every call is an error
**   XPLANE_FILE_OUTPUT=new       creates files; an existing output is refused
**   XPLANE_FILE_OUTPUT=replace   also replaces existing outputs
** The function is also SQLITE_DIRECTONLY (no view or trigger may call it),
** but SQLite 3.40 does not enforce that for CHECK constraints: a database
** whose trigger inserts into a table with CHECK (xplane_to_perfetto(...))
** would otherwise write files of its author's choosing on the victim's
** INSERT, even with PRAGMA trusted_schema=OFF. The command-line converter
** tp_plugin/xplane2perfetto needs no setting. A connection confined by
** xplane_use_only refuses every call whatever the setting.
*/
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "functions.h"
#include "result.h"
#include "interrupt.h"
#include "pf_export.h"

SQLITE_EXTENSION_INIT3

static void to_perfetto(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *in = (const char *)sqlite3_value_text(argv[0]);
  const char *out = (const char *)sqlite3_value_text(argv[1]);
  const char *mode = argc > 2 ? (const char *)sqlite3_value_text(argv[2]) : "per_host";
  if (xp_cache_confined(sqlite3_user_data(ctx))) {
    sqlite3_result_error(ctx, "xplane_to_perfetto: this connection is confined to one profile (xplane_use_only) and writes no file", -1);
    return;
  }
  static const struct {
    const char *name;
    pf_export_opts o;
  } modes[] = {{"per_host", {PF_FORMAT_PROTO, 0, 0, NULL}},
               {"merged", {PF_FORMAT_PROTO, 1, 0, NULL}},
               {"json", {PF_FORMAT_JSON, 0, 0, NULL}},
               {"json_merged", {PF_FORMAT_JSON, 1, 0, NULL}}};
  if ((!in && sqlite3_value_type(argv[0]) != SQLITE_NULL) || (!out && sqlite3_value_type(argv[1]) != SQLITE_NULL)) {
    xp_result_error_at(ctx, SQLITE_NOMEM, "xplane_to_perfetto");
    return;
  }
  if (!in || !out) {
    sqlite3_result_error(ctx, "xplane_to_perfetto(path, out_path [, mode]): path and out_path must not be NULL", -1);
    return;
  }
  if (xp_value_has_nul(argv[0]) || xp_value_has_nul(argv[1])) {
    sqlite3_result_error(ctx, "xplane_to_perfetto: a path holds a NUL byte: no file is named so", -1);
    return;
  }
  const char *policy = getenv("XPLANE_FILE_OUTPUT");
  int replace;
  if (!policy || !*policy || strcmp(policy, "off") == 0) {
    sqlite3_result_error(ctx, "xplane_to_perfetto: writing files from SQL is off (a view, trigger or CHECK "
                         "constraint of a database could otherwise write files); set XPLANE_FILE_OUTPUT=new "
                         "(create new files) or =replace in the environment of the process, or use "
                         "tp_plugin/xplane2perfetto (README: Security)", -1);
    return;
  } else if (strcmp(policy, "new") == 0) {
    replace = 0;
  } else if (strcmp(policy, "replace") == 0) {
    replace = 1;
  } else {
    sqlite3_result_error(ctx, "xplane_to_perfetto: XPLANE_FILE_OUTPUT must be 'new' or 'replace' (or unset/off)", -1);
    return;
  }
  pf_export_opts o;
  int found = 0;
  for (size_t i = 0; mode && i < sizeof(modes) / sizeof(modes[0]); i++)
    if (strcmp(mode, modes[i].name) == 0) {
      o = modes[i].o;
      found = 1;
    }
  if (!found) {
    sqlite3_result_error(ctx, "xplane_to_perfetto: mode must be 'per_host', 'merged', 'json' or 'json_merged'", -1);
    return;
  }
  o.replace = replace;
  o.no_replace_why = "XPLANE_FILE_OUTPUT=new creates files only; =replace replaces them";
  pf_export_result r;
  char *err = NULL;
  /* sqlite3_interrupt / the progress handler stop the conversion (interrupt.h);
  ** a stopped conversion leaves no output (pf_export removes its .partial). */
  xp_sql_cancel sc;
  xp_sql_cancel_enter(&sc, sqlite3_context_db_handle(ctx));
  const xp_progress *saved = xp_progress_swap(xp_cache_progress(sqlite3_user_data(ctx)));
  int done = pf_export(in, out, &o, &r, &err);
  xp_progress_swap(saved);
  int stopped = xp_sql_cancel_leave(&sc);
  if (!done && stopped) {
    sqlite3_result_error(ctx, XP_CANCELLED_TEXT, -1);
    sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
    xp_free(err);
    return;
  }
  if (!done) {
    if (err) sqlite3_result_error(ctx, err, -1);
    else xp_result_error_at(ctx, SQLITE_NOMEM, "xplane_to_perfetto");
    xp_free(err);
    return;
  }
  sqlite3_result_int64(ctx, r.counts.slices + r.counts.instants);
}

int xp_register_export_functions(sqlite3 *db, xp_cache *cache) {
  int flags = SQLITE_UTF8 | SQLITE_DIRECTONLY, rc = SQLITE_OK;
  for (int n_arg = 2; rc == SQLITE_OK && n_arg <= 3; n_arg++) {
    xp_cache_retain(cache); /* only for the connection's progress hook (xplane_progress) */
    rc = sqlite3_create_function_v2(db, "xplane_to_perfetto", n_arg, flags, cache, to_perfetto, NULL, NULL,
                                    xp_cache_release_data);
  }
  return rc;
}
