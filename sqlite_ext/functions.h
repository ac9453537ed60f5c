/*
** functions.h: the extension's SQL functions (registered from a static table
** in functions.c).
*/
#ifndef XPLANE_FUNCTIONS_H
#define XPLANE_FUNCTIONS_H

#include "sqlite3ext.h"

#include "cache.h"

int xp_register_functions(sqlite3 *db, xp_cache *cache);

#endif
