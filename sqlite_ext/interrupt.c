/*
** interrupt.c: the probe that tells the core a statement was interrupted
** (see interrupt.h).
*/
#include "interrupt.h"

SQLITE_EXTENSION_INIT3

/* About 1,000 VDBE instructions (100 rows of a recursive CTE). */
#define XP_PROBE_SQL \
  "WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c WHERE x < 100) SELECT count(*) FROM c"

static int probe(void *arg) {
  sqlite3 *db = arg;
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, XP_PROBE_SQL, -1, &st, NULL);
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    }
  }
  sqlite3_finalize(st);
  return rc == SQLITE_INTERRUPT;
}

void xp_sql_cancel_enter(xp_sql_cancel *s, sqlite3 *db) {
  xp_cancel *cur = xp_cancel_current();
  s->depth_owner = !cur; /* nested calls (a function inside a scan) keep the outer one */
  if (!s->depth_owner) return;
  s->c.poll = probe;
  s->c.arg = db;
  xp_cancel_enter(&s->c, &s->saved);
}

int xp_sql_cancel_leave(xp_sql_cancel *s) {
  int stopped = xp_cancel_stopped();
  if (s->depth_owner) xp_cancel_leave(s->saved);
  return stopped;
}
