/*
** cache.h: the per-connection cache of open profiles.
**
** Every table of a connection shares one cache (the modules' client data).
** A profile is opened and indexed once and reused by later queries while its
** file keeps the same key (device, inode, size, mtime and ctime in ns, of the
** file actually read: profile.h); a changed file is opened anew (cursors
** still holding the old one keep it alive through its reference count).
** An XPlane is one entry whatever name it is reached by: a hard link (or a
** symbolic link) to a file the cache holds, same device, inode, size and
** times, is served from that entry (the tables still name the file queried);
** a JSON trace, or a JSON trace read in place of a broken XPlane, depends on
** its directory too and is kept per path.
** Opening several missing profiles of a logdir is spread over threads.
*/
#ifndef XPLANE_CACHE_H
#define XPLANE_CACHE_H

#include "discover.h"
#include "profile.h"
#include "util.h"

typedef struct xp_cache xp_cache;

/* A new cache holding one reference; each module registered on it takes
** another, and the last release frees it (at connection close). */
xp_cache *xp_cache_new(void);
void xp_cache_retain(xp_cache *c);
void xp_cache_release(xp_cache *c);
/* xp_cache_release as a SQLite destructor (the user data of functions and modules). */
void xp_cache_release_data(void *c);

/* The profile of file f, opened if absent or stale; the caller owns one
** reference (xp_profile_release). NULL with *errmsg on failure. */
xp_profile *xp_cache_get(xp_cache *c, const xp_file *f, char **errmsg);

/* Open the missing or stale profiles of `files` ahead of use on the cache's
** threads, and run `prepare` (may be NULL) on each, cached or new: the
** per-profile work a table needs (e.g. the ops analysis) so independent files
** are processed in parallel. Errors are left for xp_cache_get and the query to
** report in order. */
void xp_cache_prefetch(xp_cache *c, const xp_filelist *files, int (*prepare)(xp_profile *));

/* Decode threads (1 = serial; default 2): a multi-file path opens files in
** parallel, a single file walks its planes in parallel. */
void xp_cache_set_threads(xp_cache *c, int threads);
int xp_cache_threads(const xp_cache *c);

/* Skip unreadable files (xplane_skip_unreadable): 0 (default) makes a data
** table fail on the first entry it cannot read, naming it; 1 skips such
** entries and lists each in xplane_space.warnings (vtab.c). */
void xp_cache_set_skip_unreadable(xp_cache *c, int on);
int xp_cache_skip_unreadable(const xp_cache *c);

/* The connection's default path (xplane_use): what a table reads when the
** query passes no path, as trace processor's tables read the loaded trace.
** NULL clears it. Returns 0 when out of memory. */
int xp_cache_set_default_path(xp_cache *c, const char *path);
const char *xp_cache_default_path(const xp_cache *c); /* NULL if none */

/* Confinement (xplane_use_only), for SQL written by someone else (a web
** plugin's console): PATH becomes the default path and the only one the
** connection's tables read, for the connection's life. A table call that
** names another path, xplane_use(P), an HLO file by name and every file
** writer are then errors. Returns 0 when already confined or out of memory.
** xp_cache_confined: the path, NULL when not confined. */
int xp_cache_confine(xp_cache *c, const char *path);
const char *xp_cache_confined(const xp_cache *c);

/* The progress hook (profile.h) of the profiles this connection opens on
** the calling thread (xp_cache_get; not the prefetch's threads): copied;
** NULL clears it. Set by xplane_progress(P) (functions.c). */
void xp_cache_set_progress(xp_cache *c, const xp_progress *hook);
const xp_progress *xp_cache_progress(const xp_cache *c); /* for xp_progress_swap */

/* The byte budget: the cache keeps profiles while the memory they hold
** (xp_profile_bytes: the mapped file, the index, the derived data, the
** aggregates: analysis.h's slots) sums to
** at most this, dropping the least recently used; the most recently used
** profile stays even when it alone is larger. The prefetch stops opening
** files once it holds the room the cache has left (each of its threads may
** finish the file it has started). Default XP_CACHE_DEFAULT_BUDGET; set per
** connection with SELECT xplane_cache_budget(bytes). */
#define XP_CACHE_DEFAULT_BUDGET ((int64_t)4 << 30) /* 4 GiB */
void xp_cache_set_budget(xp_cache *c, int64_t bytes);
/* Measure the entries again and evict down to the budget: called once a
** table has built what it needs of the profile it reads (vtab.c). */
void xp_cache_trim(xp_cache *c);
int64_t xp_cache_budget(const xp_cache *c);

/* For tests and diagnostics (xplane_cache_stats). */
typedef struct xp_cache_stats {
  int64_t entries, opens, hits; /* profiles held, opens done, hits served */
  int64_t pf_imports;           /* trace processor imports the xplane_pf_* tables built */
  int64_t bytes, budget;        /* memory held now (xp_profile_bytes), the budget */
  int64_t peak_bytes;           /* the most held at once, prefetch in flight included */
} xp_cache_stats;
void xp_cache_counters(const xp_cache *c, xp_cache_stats *st);
/* Count one import built by an xplane_pf_* table (tables_perfetto.c). */
void xp_cache_count_pf_import(xp_cache *c);

#endif
