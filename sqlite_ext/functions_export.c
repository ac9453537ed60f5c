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
** 'json_merged' (Chrome JSON). It writes files, so it is SQLITE_DIRECTONLY:
** usable in top-level SQL only, never from a view or trigger of a schema.
*/
#include <string.h>

#include "functions.h"
#include "interrupt.h"
#include "pf_export.h"

SQLITE_EXTENSION_INIT3

static void to_perfetto(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *in = (const char *)sqlite3_value_text(argv[0]);
  const char *out = (const char *)sqlite3_value_text(argv[1]);
  const char *mode = argc > 2 ? (const char *)sqlite3_value_text(argv[2]) : "per_host";
  static const struct {
    const char *name;
    pf_export_opts o;
  } modes[] = {{"per_host", {PF_FORMAT_PROTO, 0}},
               {"merged", {PF_FORMAT_PROTO, 1}},
               {"json", {PF_FORMAT_JSON, 0}},
               {"json_merged", {PF_FORMAT_JSON, 1}}};
  if (!in || !out) {
    sqlite3_result_error(ctx, "xplane_to_perfetto(path, out_path [, mode]): path and out_path must not be NULL", -1);
    return;
  }
  const pf_export_opts *o = NULL;
  for (size_t i = 0; mode && i < sizeof(modes) / sizeof(modes[0]); i++)
    if (strcmp(mode, modes[i].name) == 0) o = &modes[i].o;
  if (!o) {
    sqlite3_result_error(ctx, "xplane_to_perfetto: mode must be 'per_host', 'merged', 'json' or 'json_merged'", -1);
    return;
  }
  pf_export_result r;
  char *err = NULL;
  /* sqlite3_interrupt / the progress handler stop the conversion (interrupt.h);
  ** a stopped conversion leaves no output (pf_export removes its .partial). */
  xp_sql_cancel sc;
  xp_sql_cancel_enter(&sc, sqlite3_context_db_handle(ctx));
  int done = pf_export(in, out, o, &r, &err);
  int stopped = xp_sql_cancel_leave(&sc);
  if (!done && stopped) {
    sqlite3_result_error(ctx, XP_CANCELLED_TEXT, -1);
    sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
    xp_free(err);
    return;
  }
  if (!done) {
    if (err) sqlite3_result_error(ctx, err, -1);
    else sqlite3_result_error_nomem(ctx);
    xp_free(err);
    return;
  }
  sqlite3_result_int64(ctx, r.counts.slices + r.counts.instants);
}

int xp_register_export_functions(sqlite3 *db) {
  int flags = SQLITE_UTF8 | SQLITE_DIRECTONLY;
  int rc = sqlite3_create_function(db, "xplane_to_perfetto", 2, flags, NULL, to_perfetto, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_create_function(db, "xplane_to_perfetto", 3, flags, NULL, to_perfetto, NULL, NULL);
  return rc;
}
