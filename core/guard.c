/*
** guard.c: the SIGBUS guard of the profile mappings (see guard.h).
**
** The registry is a fixed array of slots, each (base, length, flag), written
** with atomics so the signal handler reads it without a lock: a slot is
** published by storing its base last and retired by clearing its base first.
*/
#include "guard.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct slot {
  _Atomic uintptr_t base;
  _Atomic size_t n;
  _Atomic(volatile int *) changed;
} slot;

static slot slots[XP_GUARD_MAX];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction previous;
static int installed; /* under mu */
static uintptr_t page_size; /* read once at install: sysconf is not async-signal-safe */

static void chain(int sig, siginfo_t *si, void *uc) {
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction) previous.sa_sigaction(sig, si, uc);
    return;
  }
  if (previous.sa_handler == SIG_DFL || previous.sa_handler == SIG_IGN) {
    /* Returning re-runs the faulting access, which now gets the default action. */
    signal(sig, SIG_DFL);
    return;
  }
  previous.sa_handler(sig);
}

static void on_sigbus(int sig, siginfo_t *si, void *uc) {
  uintptr_t a = (uintptr_t)si->si_addr;
  if (si->si_code == BUS_ADRERR) {
    for (int i = 0; i < XP_GUARD_MAX; i++) {
      uintptr_t b = atomic_load_explicit(&slots[i].base, memory_order_acquire);
      if (!b || a < b) continue;
      size_t n = atomic_load_explicit(&slots[i].n, memory_order_relaxed);
      if (a - b >= n) continue;
      uintptr_t page = page_size;
      uintptr_t from = a & ~(page - 1), end = (b + n + page - 1) & ~(page - 1);
      volatile int *flag = atomic_load_explicit(&slots[i].changed, memory_order_relaxed);
      if (flag) *flag = 1;
      /* mmap is a plain system call on Linux: safe here. */
      if (mmap((void *)from, end - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)
        return;
      break; /* could not patch the range: let the fault take its course */
    }
  }
  chain(sig, si, uc);
}

/* Install the handler (under mu) and pin this library in memory. */
static int install(void) {
  if (installed) return 1;
  page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGBUS, &sa, &previous) != 0) return 0;
  Dl_info info;
  if (dladdr((void *)on_sigbus, &info) && info.dli_fname) dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  installed = 1;
  return 1;
}

int xp_guard_add(const void *base, size_t n, volatile int *changed) {
  int ok = 0;
  pthread_mutex_lock(&mu);
  if (install()) {
    for (int i = 0; i < XP_GUARD_MAX && !ok; i++) {
      if (atomic_load(&slots[i].base)) continue;
      atomic_store(&slots[i].n, n);
      atomic_store(&slots[i].changed, changed);
      atomic_store_explicit(&slots[i].base, (uintptr_t)base, memory_order_release);
      ok = 1;
    }
  }
  pthread_mutex_unlock(&mu);
  return ok;
}

void xp_guard_remove(const void *base) {
  pthread_mutex_lock(&mu);
  for (int i = 0; i < XP_GUARD_MAX; i++)
    if (atomic_load(&slots[i].base) == (uintptr_t)base) {
      atomic_store(&slots[i].base, 0);
      break;
    }
  pthread_mutex_unlock(&mu);
}
