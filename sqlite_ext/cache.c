/*
** cache.c: per-connection profile cache with threaded prefetch (see cache.h).
*/
#include "cache.h"

#include "cancel.h"

#include <pthread.h>
#include <string.h>

#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

/* Profiles kept at most; the least recently used beyond this are dropped. */
#define XP_CACHE_MAX 256

typedef struct entry {
  xp_profile *prof;
  uint64_t last_use;
  int64_t bytes;      /* xp_profile_bytes when last used */
} entry;

struct xp_cache {
  entry v[XP_CACHE_MAX];
  int n;
  uint64_t clock;
  int threads;
  int64_t opens, hits;
  int64_t pf_imports;
  int64_t budget;     /* bytes (cache.h); the most recently used entry is kept even above it */
  int64_t bytes;      /* sum of v[].bytes */
  int64_t peak;       /* highest bytes held, prefetch in flight included */
  int skip_unreadable;
  int refs;
  char *default_path; /* xplane_use(): the path of table calls that pass none */
  int confined;       /* xplane_use_only(): default_path is the only path, for good */
  xp_progress progress; /* xplane_progress(): the opening thread's hook (fn NULL: none) */
};

static void drop(xp_cache *c, int i);

xp_cache *xp_cache_new(void) {
  xp_cache *c = sqlite3_malloc(sizeof(*c));
  if (c) {
    memset(c, 0, sizeof(*c));
    c->threads = 2;
    c->refs = 1;
    c->budget = XP_CACHE_DEFAULT_BUDGET;
  }
  return c;
}

void xp_cache_retain(xp_cache *c) { c->refs++; }

void xp_cache_release_data(void *c) { xp_cache_release(c); }

void xp_cache_release(xp_cache *c) {
  if (!c || --c->refs > 0) return;
  while (c->n) drop(c, c->n - 1);
  sqlite3_free(c->default_path);
  sqlite3_free(c);
}

void xp_cache_set_threads(xp_cache *c, int threads) {
  c->threads = threads < 1 ? 1 : threads > 64 ? 64 : threads;
}

int xp_cache_threads(const xp_cache *c) { return c->threads; }

void xp_cache_set_skip_unreadable(xp_cache *c, int on) { c->skip_unreadable = on != 0; }
int xp_cache_skip_unreadable(const xp_cache *c) { return c->skip_unreadable; }

int xp_cache_set_default_path(xp_cache *c, const char *path) {
  char *copy = NULL;
  if (path && !(copy = sqlite3_mprintf("%s", path))) return 0;
  sqlite3_free(c->default_path);
  c->default_path = copy;
  return 1;
}

const char *xp_cache_default_path(const xp_cache *c) { return c->default_path; }

int xp_cache_confine(xp_cache *c, const char *path) {
  if (c->confined || !path || !xp_cache_set_default_path(c, path)) return 0;
  c->confined = 1;
  return 1;
}

const char *xp_cache_confined(const xp_cache *c) { return c->confined ? c->default_path : NULL; }

void xp_cache_counters(const xp_cache *c, xp_cache_stats *st) {
  st->entries = c->n;
  st->opens = c->opens;
  st->hits = c->hits;
  st->bytes = c->bytes;
  st->budget = c->budget;
  st->peak_bytes = c->peak;
  st->pf_imports = c->pf_imports;
}

void xp_cache_count_pf_import(xp_cache *c) { c->pf_imports++; }

static void note_peak(xp_cache *c, int64_t extra) {
  if (c->bytes + extra > c->peak) c->peak = c->bytes + extra;
}

/* Measure entry i again (its derived data grows as queries use it). */
static void remeasure(xp_cache *c, int i) {
  int64_t b = xp_profile_bytes(c->v[i].prof);
  c->bytes += b - c->v[i].bytes;
  c->v[i].bytes = b;
  note_peak(c, 0);
}

static void drop(xp_cache *c, int i) {
  c->bytes -= c->v[i].bytes;
  xp_profile_release(c->v[i].prof);
  c->v[i] = c->v[--c->n];
}

/* Drop the least recently used entries until the cache fits its budget;
** the most recently used one stays whatever its size. */
static void evict(xp_cache *c) {
  for (int k = 0; k < c->n; k++) remeasure(c, k);
  while (c->bytes > c->budget && c->n > 1) {
    int lru = -1;
    uint64_t newest = 0;
    for (int k = 0; k < c->n; k++)
      if (c->v[k].last_use > newest) newest = c->v[k].last_use;
    for (int k = 0; k < c->n; k++)
      if (c->v[k].last_use != newest && (lru < 0 || c->v[k].last_use < c->v[lru].last_use)) lru = k;
    if (lru < 0) break;
    drop(c, lru);
  }
}

void xp_cache_trim(xp_cache *c) { evict(c); }

void xp_cache_set_budget(xp_cache *c, int64_t bytes) {
  c->budget = bytes < 0 ? 0 : bytes;
  evict(c);
}

int64_t xp_cache_budget(const xp_cache *c) { return c->budget; }

static int find(const xp_cache *c, const char *path) {
  for (int i = 0; i < c->n; i++)
    if (strcmp(c->v[i].prof->path, path) == 0) return i;
  return -1;
}

/* Is p still what the file f holds? Its key (device, inode, size, mtime,
** ctime ns: profile.h) must match the file now; for a JSON trace read in
** place of an XPlane, both the XPlane's key and the trace's. A profile
** flagged changed while it was read is never fresh. */
static int fresh(const xp_profile *p, const xp_file *f) {
  if (p->changed) return 0; /* changed, or a scan of it was interrupted (derived data may be partial) */
  struct xp_file_key now;
  if (!xp_file_key_of(f->path, &now) || !xp_file_key_eq(&now, &p->key_xplane)) return 0;
  if (p->source_path && strcmp(p->source_path, p->path) != 0) {
    struct xp_file_key src;
    if (!xp_file_key_of(p->source_path, &src) || !xp_file_key_eq(&src, &p->key)) return 0;
  }
  return 1;
}

/* Can p serve another name of the file it read (a hard link, or a symbolic
** link to it) whose key is now k? Only an XPlane read from its own path: what
** a JSON trace or a fallback holds also depends on its directory (discover.h). */
static int shareable(const xp_profile *p, const struct xp_file_key *k) {
  return !p->changed && p->source_format == XP_SOURCE_XPLANE_PB && p->source_path &&
         strcmp(p->source_path, p->path) == 0 && xp_file_key_eq(&p->key, k);
}

/* The entry holding the file whose key is k, read under another name; -1 if none. */
static int find_shared(const xp_cache *c, const struct xp_file_key *k) {
  for (int i = 0; i < c->n; i++)
    if (shareable(c->v[i].prof, k)) return i;
  return -1;
}

/* Put p in the cache (it takes the caller's reference), replacing a stale
** entry for the same path or the least recently used one. */
static void insert(xp_cache *c, xp_profile *p) {
  int i = find(c, p->path);
  if (i < 0 && c->n < XP_CACHE_MAX) {
    i = c->n++;
    c->v[i].prof = NULL;
  } else if (i < 0) {
    i = 0;
    for (int k = 1; k < c->n; k++)
      if (c->v[k].last_use < c->v[i].last_use) i = k;
    c->bytes -= c->v[i].bytes;
    c->v[i].bytes = 0;
  }
  if (i < c->n && c->v[i].prof) xp_profile_release(c->v[i].prof);
  else c->v[i].bytes = 0;
  c->v[i].prof = p;
  c->v[i].last_use = ++c->clock;
  remeasure(c, i);
}

/* Serve entry i: a hit. */
static xp_profile *serve(xp_cache *c, int i) {
  c->hits++;
  c->v[i].last_use = ++c->clock;
  remeasure(c, i);
  xp_profile *p = c->v[i].prof;
  p->threads = c->threads; /* an analysis not built yet uses today's xplane_threads() */
  xp_profile_retain(p);
  evict(c);
  return p;
}

xp_profile *xp_cache_get(xp_cache *c, const xp_file *f, char **errmsg) {
  *errmsg = NULL;
  int i = find(c, f->path);
  if (i >= 0 && fresh(c->v[i].prof, f)) return serve(c, i);
  /* The same file under another name (device and inode: a hard link): one
  ** entry serves both, so two links of a 1 GB profile hold it once. */
  struct xp_file_key k;
  if (xp_file_key_of(f->path, &k)) {
    int j = find_shared(c, &k);
    if (j >= 0) {
      if (i >= 0) { /* this name's own entry is stale: drop it (drop moves the last entry into i) */
        if (j == c->n - 1) j = i;
        drop(c, i);
      }
      return serve(c, j);
    }
  }
  const xp_progress *saved = xp_progress_swap(&c->progress);
  xp_profile *p = xp_profile_open(f->path, c->threads, errmsg);
  xp_progress_swap(saved);
  if (!p) return NULL;
  c->opens++;
  /* The file may have changed between discovery and open: key by what was read. */
  insert(c, p);
  xp_profile_retain(p);
  evict(c);
  return p;
}

typedef struct job {
  const xp_file **todo;
  xp_profile **done;    /* in: a cached profile to prepare, or NULL to open */
  int n;
  int next;
  int (*prepare)(xp_profile *);
  pthread_mutex_t mu;
  /* The budget (under mu): bytes the job holds (profiles done, plus the file
  ** size of those in flight), against what the cache leaves of its budget. */
  int64_t *held;        /* per job: bytes counted for it */
  int64_t used, room, peak;
  double ratio;         /* most bytes per file byte seen so far (1 until a job is done) */
} job;

static void *worker(void *arg) {
  job *j = arg;
  for (;;) {
    pthread_mutex_lock(&j->mu);
    /* Take the next file only if its expected bytes (its size times the
    ** largest ratio seen) fit in the room left; the rest open on demand. */
    int k = j->n;
    if (j->next < j->n) {
      int64_t est = j->done[j->next] ? 0 : (int64_t)((double)j->todo[j->next]->size * j->ratio);
      if (j->used == 0 || j->used + est <= j->room) {
        k = j->next++;
        j->held[k] = est;
        j->used += est;
        if (j->used > j->peak) j->peak = j->used;
      }
    }
    pthread_mutex_unlock(&j->mu);
    if (k >= j->n || xp_cancel_stopped()) return NULL;
    int64_t before = j->done[k] ? xp_profile_bytes(j->done[k]) : 0;
    if (!j->done[k]) {
      char *err = NULL;
      j->done[k] = xp_profile_open(j->todo[k]->path, 1, &err); /* the files are the parallelism */
      xp_free(err);
    }
    /* Each profile is touched by this thread only; a failure is left for the
    ** query to meet again and report. */
    if (j->done[k] && j->prepare) j->prepare(j->done[k]);
    int64_t now = j->done[k] ? xp_profile_bytes(j->done[k]) - before : 0;
    pthread_mutex_lock(&j->mu);
    j->used += now - j->held[k];
    j->held[k] = now;
    if (j->todo[k]->size > 0 && (double)now / (double)j->todo[k]->size > j->ratio)
      j->ratio = (double)now / (double)j->todo[k]->size;
    if (j->used > j->peak) j->peak = j->used;
    pthread_mutex_unlock(&j->mu);
  }
}

void xp_cache_prefetch(xp_cache *c, const xp_filelist *files, int (*prepare)(xp_profile *)) {
  job j;
  memset(&j, 0, sizeof(j));
  if (c->threads < 2 || files->n < 2) return;
  j.todo = sqlite3_malloc64(sizeof(*j.todo) * (sqlite3_uint64)files->n);
  j.done = sqlite3_malloc64(sizeof(*j.done) * (sqlite3_uint64)files->n);
  j.held = sqlite3_malloc64(sizeof(*j.held) * (sqlite3_uint64)files->n);
  if (!j.todo || !j.done || !j.held) goto out;
  memset(j.held, 0, sizeof(*j.held) * (size_t)files->n);
  j.room = c->budget - c->bytes;
  j.ratio = 1.0;
  j.prepare = prepare;
  struct xp_file_key *keys = sqlite3_malloc64(sizeof(*keys) * (sqlite3_uint64)files->n + 1);
  if (!keys) goto out;
  for (int i = 0; i < files->n && j.n < XP_CACHE_MAX; i++) {
    if (files->v[i].error) continue; /* an entry that cannot be read (discover.h) */
    int k = find(c, files->v[i].path);
    int cached = k >= 0 && fresh(c->v[k].prof, &files->v[i]);
    /* A file the job or the cache already holds under another name (a hard
    ** link): xp_cache_get serves it from that entry. */
    if (!cached && xp_file_key_of(files->v[i].path, &keys[j.n])) {
      int dup = 0;
      for (int m = 0; m < j.n && !dup; m++)
        dup = xp_file_key_eq(&keys[m], &keys[j.n]) && !j.todo[m]->is_json && !files->v[i].is_json;
      if (dup) continue;
      if ((k = find_shared(c, &keys[j.n])) >= 0) cached = 1;
    } else if (cached) {
      keys[j.n] = c->v[k].prof->key;
    } else {
      memset(&keys[j.n], 0, sizeof(keys[j.n]));
    }
    if (cached && !prepare) continue;
    j.todo[j.n] = &files->v[i];
    j.done[j.n] = cached ? c->v[k].prof : NULL;
    if (cached) xp_profile_retain(c->v[k].prof);
    j.n++;
  }
  if (j.n >= 2) {
    pthread_mutex_init(&j.mu, NULL);
    int nt = c->threads < j.n ? c->threads : j.n;
    /* The caller's interrupt reaches the workers (cancel.h). */
    xp_cancel_run_threads(nt, worker, &j);
    pthread_mutex_destroy(&j.mu);
    note_peak(c, j.peak);
  }
  for (int k = 0; k < j.n; k++) {
    if (!j.done[k]) continue;
    int i = find(c, j.done[k]->path);
    if (i >= 0 && c->v[i].prof == j.done[k]) { /* prepared in place: drop the job's reference */
      xp_profile_release(j.done[k]);
      remeasure(c, i);
    } else {
      c->opens++;
      insert(c, j.done[k]);
    }
    evict(c);
  }
  sqlite3_free(keys);
out:
  sqlite3_free(j.todo);
  sqlite3_free(j.done);
  sqlite3_free(j.held);
}

void xp_cache_set_progress(xp_cache *c, const xp_progress *hook) {
  c->progress.fn = hook ? hook->fn : NULL;
  c->progress.arg = hook ? hook->arg : NULL;
}

const xp_progress *xp_cache_progress(const xp_cache *c) { return &c->progress; }
