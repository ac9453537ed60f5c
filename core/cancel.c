/*
** cancel.c: cooperative cancellation of core work (see cancel.h).
*/
#include "cancel.h"

#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

#include "util.h"

static XP_THREAD_LOCAL xp_cancel *current;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void xp_cancel_enter(xp_cancel *c, xp_cancel **saved) {
  *saved = current;
  c->owner = pthread_self();
  c->stop = 0;
  c->next_poll_ns = 0;
  current = c;
}

void xp_cancel_leave(xp_cancel *saved) { current = saved; }

xp_cancel *xp_cancel_current(void) { return current; }

void xp_cancel_adopt(xp_cancel *c) { current = c; }

int xp_cancel_stopped(void) {
  xp_cancel *c = current;
  return c && __atomic_load_n(&c->stop, __ATOMIC_RELAXED);
}

int xp_cancelled(void) {
  xp_cancel *c = current;
  if (!c) return 0;
  if (__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) return 1;
  if (!c->poll || !pthread_equal(c->owner, pthread_self())) return 0;
  uint64_t t = now_ns();
  if (t < c->next_poll_ns) return 0;
  c->next_poll_ns = t + XP_CANCEL_POLL_NS;
  if (c->poll(c->arg)) __atomic_store_n(&c->stop, 1, __ATOMIC_RELAXED);
  return c->stop;
}

typedef struct runner {
  void *(*fn)(void *);
  void *arg;
  xp_cancel *c;
  atomic_int *running;
} runner;

static void *trampoline(void *p) {
  runner *r = p;
  xp_cancel_adopt(r->c);
  r->fn(r->arg);
  atomic_fetch_sub(r->running, 1);
  return NULL;
}

int xp_cancel_run_threads(int n, void *(*fn)(void *), void *arg) {
  enum { MAX_THREADS = 64 };
  pthread_t tid[MAX_THREADS];
  runner r = {fn, arg, current, NULL};
  atomic_int running = 0;
  r.running = &running;
  int started = 0;
  for (int t = 1; t < n && started < MAX_THREADS; t++) {
    atomic_fetch_add(&running, 1);
    if (pthread_create(&tid[started], NULL, trampoline, &r) == 0) started++;
    else atomic_fetch_sub(&running, 1);
  }
  fn(arg);
  /* Keep polling while the others finish, so an interrupt reaches them. */
  while (atomic_load(&running) > 0) {
    xp_cancelled();
    struct timespec ts = {0, 1000000}; /* 1 ms */
    nanosleep(&ts, NULL);
  }
  for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
  return started;
}

/* The shared state of xp_cancel_run_jobs. */
typedef struct jobrun {
  int (*job)(void *ctx, int64_t k, int worker);
  void *ctx;
  int64_t n, next;
  int workers, failed;
  pthread_mutex_t mu;
} jobrun;

static void *job_loop(void *arg) {
  jobrun *r = arg;
  pthread_mutex_lock(&r->mu);
  int w = r->workers++;
  pthread_mutex_unlock(&r->mu);
  for (;;) {
    pthread_mutex_lock(&r->mu);
    int64_t k = !r->failed && r->next < r->n ? r->next++ : -1;
    pthread_mutex_unlock(&r->mu);
    if (k < 0) return NULL;
    if (xp_cancel_stopped() || !r->job(r->ctx, k, w)) {
      pthread_mutex_lock(&r->mu);
      r->failed = 1;
      pthread_mutex_unlock(&r->mu);
    }
  }
}

int xp_cancel_run_jobs(int threads, int64_t n_jobs, int (*job)(void *ctx, int64_t k, int worker), void *ctx) {
  jobrun r = {.job = job, .ctx = ctx, .n = n_jobs};
  pthread_mutex_init(&r.mu, NULL);
  if (threads > 1 && n_jobs > 1) xp_cancel_run_threads(threads, job_loop, &r);
  else job_loop(&r);
  pthread_mutex_destroy(&r.mu);
  return !r.failed && !xp_cancel_stopped();
}
