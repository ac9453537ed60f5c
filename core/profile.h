/*
** profile.h: one XSpace file, mapped and indexed.
**
** xp_profile_load() maps a `.xplane.pb` file read-only and walks it once with
** the wire reader (wire.h). That walk validates every byte of the message tree
** (so a later scan can trust it) and builds a small index: the planes, their
** lines (with event counts and time bounds), and the two metadata dictionaries
** of each plane as hash maps. Events and stats are NOT materialized: names and
** strings are pointers into the mapping, and event scans re-walk each line's
** bytes (xp_events_next), which is what keeps memory flat on 2 GB files.
**
** A Chrome/Perfetto JSON trace is read the same way: json_trace.h converts it
** (streaming) into a serialized XSpace in an anonymous memory file, which is
** mapped and walked like a file. The directory rule of discover.h may read a
** JSON trace in place of an XPlane that cannot be read.
**
** A profile is reference-counted, so the per-connection cache (cache.h) can
** hand it to many cursors and drop it when the file changes. Its index does
** not change once open; what is derived later is added to it on first use and
** kept until it is released: the sha256 (space.h) and the analysis
** (analysis.h, p->analysis). Those writes are not locked: one profile is
** used by one thread at a time (the cache's prefetch prepares each profile on
** one thread only).
*/
#ifndef XPLANE_PROFILE_H
#define XPLANE_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"
#include "wire.h"

/* Profiles larger than this are refused: a protobuf message cannot exceed
** 2 GiB, so no producer writes a larger XSpace. */
#define XP_MAX_FILE_BYTES ((int64_t)0x7fffffff)

/* Size limits (README "Limits and safety"), checked while indexing: the walk
** stops at the first plane, line or event past them with an error naming the
** limit, before the index grows further. They bound the heap of an index and
** of its analysis whatever the file holds (a 2-byte empty plane or line
** costs ~200 bytes of index; a device op keeps 72 bytes of analysis, and
** 33 more while the reports are built; an event of a track being read takes
** ~100 bytes until its track is done: core/pass.c, core/facts.c). */
#define XP_MAX_PLANES ((int32_t)1 << 20)   /* 1,048,576 planes per profile */
#define XP_MAX_LINES ((int64_t)1 << 21)    /* 2,097,152 lines per profile */
#define XP_MAX_EVENTS ((int64_t)1 << 27)   /* 134,217,728 events per profile */
/* 4,194,304 event and stat metadata entries per profile, as written (before
** entries of a repeated id are dropped): each costs about 90 bytes while the
** plane is indexed, however small it is in the file */
#define XP_MAX_METADATA ((int64_t)1 << 22)

/* Time range (README "Limits and safety"), checked while indexing, so that
** no start, end, duration or difference of two of them overflows int64:
** each XEvent's offset_ps and duration_ps within +-2^61 ps (26.7 days; a
** negative duration is kept as data: the analysis skips such events), and every event's absolute start and end (line timestamp less the
** profile's time base, plus the offset [and duration]) strictly within
** +-2^62 ps (53 days). A profile outside it is refused, naming the event. */
#define XP_EVENT_LIMIT_PS ((int64_t)1 << 61)
#define XP_TIME_LIMIT_PS ((int64_t)1 << 62)

/* A string inside the mapping (not NUL-terminated). */
typedef struct xp_str {
  const char *p;
  size_t n;
} xp_str;

/* XStat value cases, in field-number order (XP_V_NONE: no value set). */
typedef enum {
  XP_V_NONE = 0,
  XP_V_DOUBLE,
  XP_V_UINT64,
  XP_V_INT64,
  XP_V_STR,
  XP_V_BYTES,
  XP_V_REF
} xp_vtype;

/* Where an effective stat of an event came from. */
typedef enum { XP_ORIGIN_PLANE = 0, XP_ORIGIN_METADATA, XP_ORIGIN_EVENT } xp_origin;

/* One decoded XStat. For XP_V_REF, `ref` is the raw id and `s` the resolved
** string (empty when the id is unknown). */
typedef struct xp_stat {
  int64_t metadata_id;
  xp_vtype type;
  xp_origin origin;
  union {
    double d;
    uint64_t u;
    int64_t i;
  } num;
  uint64_t ref;
  xp_str s;
  xp_str name; /* the stat's name: stat_metadata[metadata_id].name */
} xp_stat;

typedef struct xp_stat_meta {
  int64_t id;
  xp_str name;
  xp_str description;
  int used_as_name; /* some XStat.metadata_id points here */
} xp_stat_meta;

typedef struct xp_event_meta {
  int64_t id;
  xp_str name;
  xp_str display_name;
  xp_str metadata;           /* serialized extra data (bytes) */
  const uint8_t *msg;        /* the XEventMetadata message: stats, child ids */
  size_t msg_n;
  int32_t n_stats;
  int32_t n_children;
} xp_event_meta;


typedef struct xp_line {
  int64_t id;
  int64_t display_id;
  xp_str name;
  xp_str display_name;
  int64_t timestamp_ns;
  int64_t base_ps;    /* (timestamp_ns - profile time_base_ns) * 1000: event starts add to it */
  int64_t duration_ps;
  const uint8_t *msg; /* the XLine message */
  size_t msg_n;
  int64_t n_events;
  int64_t n_timed;       /* events with an offset (a start time) */
  int64_t min_start_ps;  /* over timed events; INT64_MAX when none */
  int64_t max_start_ps;  /* INT64_MIN when none */
  int64_t max_end_ps;    /* INT64_MIN when none */
  int64_t bad_event;     /* 1 + index of the first event outside XP_EVENT_LIMIT_PS; 0 none */
} xp_line;

typedef struct xp_plane {
  int64_t id;
  xp_str name;
  const uint8_t *msg; /* the XPlane message (plane stats are walked from it) */
  size_t msg_n;
  xp_line *lines;
  int32_t n_lines;
  int32_t n_stats;
  int64_t n_events;
  xp_event_meta *emeta;
  int32_t n_emeta;
  xp_idmap emeta_idx;
  xp_stat_meta *smeta;
  int32_t n_smeta;
  xp_idmap smeta_idx;
} xp_plane;

/* What a profile was read from (xp_profile.source_format). */
enum { XP_SOURCE_XPLANE_PB = 0, XP_SOURCE_TRACE_JSON = 1 };
/* "xplane_pb" or "perfetto_trace_json" (the summary's source_format). */
const char *xp_source_format_name(int source_format);

typedef struct xp_profile {
  char *path;           /* as resolved by discovery */
  int64_t size;         /* bytes of the XSpace at base */
  int64_t file_size;    /* bytes of the file at path (== size for an XPlane) */
  int64_t mtime_ns;
  int source_format;    /* XP_SOURCE_* */
  char *source_path;    /* the file read: path, or the JSON trace read in its place */
  int64_t n_trace_events;   /* JSON traces: entries of traceEvents */
  char *display_time_unit;  /* JSON traces: their displayTimeUnit, or NULL */
  const uint8_t *base;  /* the mapping (or the caller's buffer) */
  int mapped;           /* base is our mmap, unmapped on free */
  xp_plane *planes;
  int32_t n_planes;
  int64_t n_lines;
  int64_t n_events;
  xp_str *errors, *warnings, *hostnames;
  int32_t n_errors, n_warnings, n_hostnames;
  int64_t time_base_ns; /* subtracted from line timestamps (0 unless epoch-based) */
  int has_start_time, has_stop_time;
  int64_t profile_start_time_ns; /* from the `Task Environment` plane */
  int64_t profile_stop_time_ns;
  int refcount;
  int threads;          /* threads its analysis may use (xp_profile_load's `threads`) */
  /* Set (to 1) when the file changed under the profile: it shrank while mapped
  ** (guard.h) or a re-walk found other bytes than the index (xp_events_next
  ** past a line's indexed count). Every reader checks it and fails with
  ** "<path>: " XP_CHANGED_TEXT; the cache never serves a changed profile. */
  volatile int changed;
  int guarded;          /* base is registered with the SIGBUS guard */
  /* The cache key of the file actually read (source_path): device, inode,
  ** size, mtime and ctime (ns). For a JSON trace read in place of an XPlane,
  ** key_xplane is the XPlane's (the path the query named). */
  struct xp_file_key { int64_t dev, ino, size, mtime_ns, ctime_ns; } key, key_xplane;
  char sha256[65];      /* hex digest once computed (xplane_space), else "" */
  /* Lazily built derived data (analysis.h), owned by the profile. */
  void *analysis;
  void (*analysis_free)(void *);
  int64_t (*analysis_bytes)(const void *);
} xp_profile;

/* p->changed values: 1 the file changed under it; 2 an interrupted scan
** stopped early (derived data built during it may be partial, so the cache
** opens the file again next time). */
enum { XP_CHANGED_FILE = 1, XP_CHANGED_INTERRUPTED = 2 };
/* The error text of a changed profile (after "<path>: "). */
#define XP_CHANGED_TEXT "changed while it was read (truncated, replaced or rewritten in place); run the query again"
static inline int xp_profile_changed(const xp_profile *p) { return p->changed == XP_CHANGED_FILE; }

/* The key of the file at `path` now (stat, following links); 0 if it cannot
** be stat'ed. Two keys are equal when the file was not replaced or written. */
int xp_file_key_of(const char *path, struct xp_file_key *k);
static inline int xp_file_key_eq(const struct xp_file_key *a, const struct xp_file_key *b) {
  return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns &&
         a->ctime_ns == b->ctime_ns;
}

/* Memory a profile holds, for the cache's byte budget (cache.h): the
** mapped XSpace (its pages count once read), the index (planes, lines,
** metadata and their maps) and the derived data built so far (analysis.h). */
int64_t xp_profile_bytes(const xp_profile *p);

/* Threads one open may use to walk planes in parallel, at most. */
#define XP_MAX_INDEX_THREADS 16

/* Progress of the indexing walk, for a command's "N % read" line. The
** thread that calls xp_profile_load with a hook set (xp_progress_swap) gets
** fn(arg, done, total) calls on that thread: done = bytes of the XSpace
** walked so far by all the walking threads, total = its size; about every
** 4096 events or 256 lines its own walk passes, at the end of each plane it
** walks, and once with done == total when the index is complete (not when
** it fails). Other threads (plane walkers, prefetch) never call it. A JSON
** trace reports the walk of the XSpace it was converted to (the conversion
** before it reports nothing). fn must be cheap and must not touch the
** profile; throttle output in fn. */
typedef struct xp_progress {
  void (*fn)(void *arg, int64_t done, int64_t total);
  void *arg;
} xp_progress;
/* Make hook (NULL or fn NULL: none) the calling thread's progress hook;
** returns the previous one, to be swapped back. The hook must outlive its use. */
const xp_progress *xp_progress_swap(const xp_progress *hook);

/* Open, map, validate and index `file` as the profile called `name` (the
** path a user or discovery gave: what the cache keys and errors name; the
** file read becomes source_path), walking its planes on up to `threads`
** threads. as_json: `file` is a JSON trace (json_trace.h), converted first;
** `note` (may be NULL) becomes its first XSpace warning. On failure returns
** NULL and sets *why (xp_malloc'd) to the problem alone. Which file to read
** for a path, and the fallback to a JSON trace, are discovery's
** (xp_profile_open in discover.h). */
xp_profile *xp_profile_load(const char *name, const char *file, int as_json, const char *note, int threads,
                            char **why);
/* The same over a caller-owned buffer that must outlive the profile (the
** fuzzer and unit tests use it). */
xp_profile *xp_profile_from_memory(const char *name, const uint8_t *buf, size_t n, char **errmsg);
void xp_profile_retain(xp_profile *p);
void xp_profile_release(xp_profile *p);

/* The track key of a line: lines of one plane with the same key form one
** track (the converter's thread, the analysis' stack scope): the line id, or
** index + 1 when the id is 0. */
static inline int64_t xp_line_track_key(const xp_line *ln, int32_t index) {
  return ln->id ? ln->id : (int64_t)index + 1;
}

/* The tracks of a plane: `lines` (pl->n_lines entries) receives the line
** indexes grouped by track, tracks in the order of their first line and
** each track's lines in index order; track t is lines[starts[t] ..
** starts[t + 1]) (`starts`: pl->n_lines + 1 entries). Both may be NULL to
** count only. Returns the number of tracks, or -1 when out of memory.
** O(n log n) in the plane's lines. */
int32_t xp_plane_tracks(const xp_plane *pl, int32_t *lines, int32_t *starts);
/* The tracks of every plane (xplane_space.n_threads); -1 when out of memory. */
int64_t xp_profile_n_tracks(const xp_profile *p);

/* Lookups: NULL when the id is unknown. */
const xp_event_meta *xp_plane_event_meta(const xp_plane *pl, int64_t id);
const xp_stat_meta *xp_plane_stat_meta(const xp_plane *pl, int64_t id);

/* One XEvent, read in place. */
typedef struct xp_event {
  int64_t metadata_id;
  int has_offset;          /* oneof data: offset_ps set */
  int has_occurrences;     /* oneof data: num_occurrences set */
  int64_t offset_ps;
  int64_t num_occurrences;
  int64_t duration_ps;
  const uint8_t *msg;      /* the XEvent message (stats are walked from it) */
  size_t msg_n;
} xp_event;

/* An event's start in ps: the line's base plus its offset (within
** +-XP_TIME_LIMIT_PS in an indexed profile; wrapping, never UB, otherwise). */
static inline int64_t xp_event_start(const xp_line *ln, const xp_event *ev) {
  return (int64_t)((uint64_t)ln->base_ps + (uint64_t)ev->offset_ps);
}

/* The iterator yields at most the line's indexed n_events: a line whose
** bytes now hold more (or fewer) events than the index counted marks the
** profile changed (xp_profile_changed) and ends. So arrays sized by
** n_events can be filled by index from a re-walk. Every 4096 events read on
** a thread (by any iterator) it asks
** xp_cancelled() (cancel.h); an interrupted query ends the iteration and
** marks the profile XP_CHANGED_INTERRUPTED. */
typedef struct xp_event_iter {
  xp_wire r;
  int64_t left;             /* events still expected */
  const xp_profile *prof;   /* its `changed` flag is set on a mismatch */
} xp_event_iter;

void xp_events_begin(const xp_profile *p, const xp_line *ln, xp_event_iter *it);
int xp_events_next(xp_event_iter *it, xp_event *ev);

/* Growable list of stats, reused across rows by a cursor. */
typedef struct xp_statvec {
  xp_stat *v;
  int n, cap;
} xp_statvec;
void xp_statvec_free(xp_statvec *sv);

/* Append the stats of one message (field `field` repeated XStat) to sv,
** resolving names and ref values against plane pl. */
int xp_stats_append(const xp_profile *p, const xp_plane *pl, const uint8_t *msg,
                    size_t n, uint32_t field, xp_origin origin, xp_statvec *sv);

/* The stats of a plane, an event metadata, an event (effective: metadata stats
** overlaid by event stats, the event winning on a name clash). Reset sv first. */
int xp_plane_stats(const xp_profile *p, const xp_plane *pl, xp_statvec *sv);
int xp_meta_stats(const xp_profile *p, const xp_plane *pl, const xp_event_meta *em, xp_statvec *sv);
int xp_event_stats(const xp_profile *p, const xp_plane *pl, const xp_event *ev, xp_statvec *sv);

/* A few stats of an event, found without building its whole list.
** xp_stat_pick_init resolves `names` against the plane's stat dictionary
** (once per plane); xp_stat_pick fills out[k] with the effective value of
** names[k] (metadata stats overlaid by the event's own, the last one
** winning), type XP_V_NONE when the event has none; out[k].name is left
** empty (it is names[k]). */
#define XP_PICK_MAX 8
typedef struct xp_stat_pick_ids {
  int n;                     /* stat ids resolved */
  int64_t id[XP_PICK_MAX * 4];
  int slot[XP_PICK_MAX * 4]; /* which name each id stands for */
} xp_stat_pick_ids;
void xp_stat_pick_init(const xp_plane *pl, const char *const *names, int n_names, xp_stat_pick_ids *ids);
void xp_stat_pick(const xp_profile *p, const xp_plane *pl, const xp_event *ev, const xp_stat_pick_ids *ids,
                  int n_names, xp_stat *out);
/* The same for a caller that holds the event's metadata entry (em, the one
** of ev->metadata_id; NULL: looked up). */
void xp_stat_pick_em(const xp_profile *p, const xp_plane *pl, const xp_event_meta *em, const xp_event *ev,
                     const xp_stat_pick_ids *ids, int n_names, xp_stat *out);

/* Find a stat by name in sv; NULL if absent. */
const xp_stat *xp_statvec_find(const xp_statvec *sv, const char *name);

/* The child_id values of an event metadata, packed or not, into out (which
** holds em->n_children values). */
void xp_meta_children(const xp_profile *p, const xp_event_meta *em, int64_t *out);

int xp_str_eq(xp_str s, const char *z);
/* Byte order of two views (memcmp, then the shorter first): <0, 0 or >0. */
int xp_str_cmp(xp_str a, xp_str b);
/* Does s begin with the NUL-terminated prefix? */
int xp_str_starts(xp_str s, const char *prefix);

#endif
