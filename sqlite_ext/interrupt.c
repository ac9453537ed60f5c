/*
** interrupt.c: the probe that tells the core a statement was interrupted
** (see interrupt.h).
*/
#include "interrupt.h"

#include <stdint.h>
#include <time.h>

SQLITE_EXTENSION_INIT3

/* The interrupt probe (a few instructions, ~10 us), and at most every
** XP_PROGRESS_NS the progress probe: about 1,000 VDBE instructions
** (100 rows of a recursive CTE, ~120 us), enough to reach a progress handler
** set for every N <= 1000 instructions. */
#define XP_PROBE_SQL "SELECT 1"
#define XP_PROGRESS_SQL \
  "WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c WHERE x < 100) SELECT count(*) FROM c"
#define XP_PROGRESS_NS 20000000 /* 20 ms */

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int probe(void *arg) {
  xp_sql_cancel *s = arg;
  sqlite3_stmt *st = NULL;
  uint64_t t = now_ns();
  const char *sql = XP_PROBE_SQL;
  if (!s->next_progress_ns) s->next_progress_ns = t + XP_PROGRESS_NS; /* the first probe of this call */
  if (t >= s->next_progress_ns) {
    sql = XP_PROGRESS_SQL;
    s->next_progress_ns = t + XP_PROGRESS_NS;
  }
  int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
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
  s->c.arg = s;
  s->db = db;
  /* No clock read here: this runs for every row a cursor returns (xNext), and
  ** a clock read per row cost 3.7 % of a cold summary and more of a warm scan
  ** (perf); the first probe starts the progress clock instead. */
  s->next_progress_ns = 0;
  xp_cancel_enter(&s->c, &s->saved);
}

int xp_sql_cancel_leave(xp_sql_cancel *s) {
  int stopped = xp_cancel_stopped();
  if (s->depth_owner) xp_cancel_leave(s->saved);
  return stopped;
}
