/*
** functions.h: the extension's SQL functions, one registration entry per
** file (each registers from a static table of its own).
*/
#ifndef XPLANE_FUNCTIONS_H
#define XPLANE_FUNCTIONS_H

#include "sqlite3ext.h"

#include "cache.h"

/* functions.c: version, threads, cache statistics. */
int xp_register_functions(sqlite3 *db, xp_cache *cache);
/* functions_semantics.c: the naming and classification rules. */
int xp_register_semantic_functions(sqlite3 *db);
/* functions_timeline.c: exclusive time and pre-op gap window functions. */
int xp_register_timeline_functions(sqlite3 *db);
/* functions_format.c: Python-compatible number and JSON formatting. */
int xp_register_format_functions(sqlite3 *db);
/* functions_export.c: xplane_to_perfetto (writes trace files). */
int xp_register_export_functions(sqlite3 *db, xp_cache *cache);

#endif
