/*
** interrupt.h: sqlite3_interrupt and the progress handler reach the core's
** long work (cancel.h) while a table or function runs.
**
**   xp_sql_cancel sc;
**   xp_sql_cancel_enter(&sc, db);   ... core work ...   rc = xp_sql_cancel_leave(&sc);
**
** SQLite 3.40 (Debian 12) has no sqlite3_is_interrupted(), and neither the
** interrupt flag nor the progress handler is visible to an extension. The
** poll therefore steps a tiny probe statement on the same connection (on the
** thread that called into the extension, every XP_CANCEL_POLL_NS at most):
** while the caller's statement runs, SQLite does not clear the interrupt
** flag, so the probe `SELECT 1` stops with SQLITE_INTERRUPT after
** sqlite3_interrupt. A progress handler is only called after N instructions
** of one statement, so the first poll after each 20 ms runs a probe of about
** 1,000 instructions instead: a handler set for every N <= 1000 instructions is
** called then (for larger N, every N/1000 such polls), and a non-zero return
** stops the work the same way. Measured (through Python, an upper bound):
** `SELECT 1` 12.5 us, the long probe 130 us: at most 0.6 % + 0.65 % of one
** core while the core works.
*/
#ifndef XPLANE_INTERRUPT_H
#define XPLANE_INTERRUPT_H

#include "sqlite3ext.h"

#include "cancel.h"

typedef struct xp_sql_cancel {
  xp_cancel c;
  xp_cancel *saved;
  int depth_owner; /* 1: this call made c current (not nested in another) */
  sqlite3 *db;
  unsigned long long next_progress_ns; /* when the next poll runs the progress probe */
} xp_sql_cancel;

void xp_sql_cancel_enter(xp_sql_cancel *s, sqlite3 *db);
/* Restore the previous state; returns 1 when the work was interrupted. */
int xp_sql_cancel_leave(xp_sql_cancel *s);

#endif
