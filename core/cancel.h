/*
** cancel.h: stopping long work from outside (sqlite3_interrupt, a progress
** handler) within a few milliseconds, on every thread that works for a query.
**
** The binding (sqlite_ext/) owns an xp_cancel per call into the core and
** makes it the calling thread's current one (xp_cancel_enter ... leave); its
** poll function asks SQLite whether the statement was interrupted and may
** only run on that thread. Core loops call xp_cancelled() every few thousand
** items: on the owner thread it runs poll at most every XP_CANCEL_POLL_NS;
** on other threads (plane walks, prefetch) it reads the stop flag the owner
** sets. Worker threads adopt their parent's xp_cancel (xp_cancel_adopt), and
** the owner waits for them with xp_cancel_join, which keeps polling, so an
** interrupt reaches workers while the owner waits. A cancelled call fails
** with the text XP_CANCELLED_TEXT and caches nothing partial.
** Without a current xp_cancel (command-line tools, tests) nothing is
** cancelled.
*/
#ifndef XPLANE_CANCEL_H
#define XPLANE_CANCEL_H

#include <pthread.h>
#include <stdint.h>

#define XP_CANCEL_POLL_NS 2000000 /* 2 ms */
#define XP_CANCELLED_TEXT "interrupted"

typedef struct xp_cancel {
  int (*poll)(void *arg); /* owner thread only; nonzero: stop */
  void *arg;
  pthread_t owner;
  volatile int stop;
  uint64_t next_poll_ns;
} xp_cancel;

/* Make c (poll/arg set by the caller) current on this thread; *saved gets
** the previous one, for xp_cancel_leave. */
void xp_cancel_enter(xp_cancel *c, xp_cancel **saved);
void xp_cancel_leave(xp_cancel *saved);
xp_cancel *xp_cancel_current(void);
/* A worker thread works for c (may be NULL). */
void xp_cancel_adopt(xp_cancel *c);
/* Should the current work stop? Cheap enough to call per few thousand items. */
int xp_cancelled(void);
/* Has the current work been stopped (no polling)? */
int xp_cancel_stopped(void);

/* Start fn(arg) on n - 1 new threads (each adopting the caller's xp_cancel)
** and on the calling thread, then wait for all, polling for cancellation
** while waiting. Returns the number of threads started (besides the caller). */
int xp_cancel_run_threads(int n, void *(*fn)(void *), void *arg);

/* Run job(ctx, k, worker) for k = 0 .. n_jobs - 1 on up to `threads`
** threads (the caller's among them, through xp_cancel_run_threads), each
** taking the next k when it finishes one, in order; `worker` (0 .. threads
** - 1) numbers the thread that runs it, for state kept per thread. No job is
** started after one returns 0 or the work is cancelled. Returns 1 when every
** job ran and returned nonzero. */
int xp_cancel_run_jobs(int threads, int64_t n_jobs, int (*job)(void *ctx, int64_t k, int worker), void *ctx);

#endif
