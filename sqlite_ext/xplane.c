/*
** xplane.c: the entry point of the xplane SQLite extension.
**
**   sqlite3> .load build/xplane
**   sqlite3> SELECT name, dur_ps FROM xplane_events('logs/plugins/profile/run1');
**
** Exposes XPlane profiles (`*.xplane.pb`, written by JAX, XLA and TensorFlow)
** as table-valued functions whose first argument is a file, a run directory
** or a TensorBoard logdir. This file only registers: the modules and
** functions are listed in the static tables below, and each lives in a file
** of its own (tables_*.c, functions*.c). Dependencies run one way:
**   core/ (decoder, discovery, analysis; no SQLite)
**     <- tp_plugin/ (the Perfetto mapping, writers, import emulation)
**     <- sqlite_ext/ (this binding: cache.c, vtab.c, tables_*.c, functions*.c)
** A query reads: path -> discover.c -> cache.c -> profile.c (index over the
** mapped file, wire.c) -> vtab.c / tables_*.c -> SQL.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1

#include "cache.h"
#include "functions.h"
#include "tables.h"

/* What this extension needs of SQLite: sqlite3_str, SQLITE_VTAB_DIRECTONLY,
** sqlite3_vtab_collation, and the ->> operator its canned queries use. */
#define XP_MIN_SQLITE_VERSION 3038000
#if SQLITE_VERSION_NUMBER < XP_MIN_SQLITE_VERSION
#error "xplane needs SQLite 3.38.0 or later"
#endif

static const xp_table *const xp_tables[] = {
    &xp_table_files,  &xp_table_space,          &xp_table_planes,         &xp_table_lines,
    &xp_table_events, &xp_table_stats,          &xp_table_event_metadata, &xp_table_stat_metadata,
    &xp_table_ops,    &xp_table_steps,          &xp_table_scopes,         &xp_table_tracks,
    &xp_table_hints,  &xp_table_op_names, &xp_table_op_tf_ops, &xp_table_gaps, &xp_table_op_regions,
    &xp_table_device_time, &xp_table_step_time, &xp_table_devices, &xp_table_hlo_stats, &xp_table_kernel_stats, &xp_table_memory,
    &xp_table_memory_peaks, &xp_table_hlo_op_paths,
    &xp_table_pf_slice, &xp_table_pf_thread_track, &xp_table_pf_thread, &xp_table_pf_process, &xp_table_pf_args,
    &xp_table_pf_flow, &xp_table_findings,
};

__attribute__((visibility("default"))) int sqlite3_xplane_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  if (sqlite3_libversion_number() < XP_MIN_SQLITE_VERSION) {
    *err = sqlite3_mprintf("xplane needs SQLite 3.38.0 or later, this is %s", sqlite3_libversion());
    return SQLITE_ERROR;
  }
  xp_cache *cache = xp_cache_new();
  if (!cache) return SQLITE_NOMEM;
  int rc = SQLITE_OK;
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof(xp_tables) / sizeof(xp_tables[0]); i++)
    rc = xp_register_table(db, xp_tables[i], cache);
  if (rc == SQLITE_OK) rc = xp_register_functions(db, cache);
  if (rc == SQLITE_OK) rc = xp_register_semantic_functions(db);
  if (rc == SQLITE_OK) rc = xp_register_timeline_functions(db);
  if (rc == SQLITE_OK) rc = xp_register_format_functions(db);
  if (rc == SQLITE_OK) rc = xp_register_export_functions(db, cache);
  if (rc == SQLITE_OK) rc = xp_register_hlo_table(db, cache);
  xp_cache_release(cache); /* the modules and functions hold their own references */
  if (rc != SQLITE_OK) *err = sqlite3_mprintf("xplane: registration failed: %s", sqlite3_errstr(rc));
  return rc;
}
