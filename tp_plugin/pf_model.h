/*
** pf_model.h: a profile as Perfetto's trace processor sees it.
**
** The one mapping from XPlane to Perfetto's model. It walks a profile and
** hands records to a sink: the Perfetto protobuf writer (perfetto_writer.h),
** the Chrome JSON writer (chrome_json_writer.h) and the extension's
** Perfetto-shaped tables (sqlite_ext/tables_perfetto.c) are all sinks, so
** what the tables show is what trace processor builds from the trace file.
**
**   pf_model *m = pf_model_new(&sink, merged);
**   pf_model_add(m, file, profile, &err);  (once per profile; merged mode: many)
**   pf_model_free(m);
**
** Mapping (tp_plugin/README.md has the user's view):
** - each profile added first gets its provenance record: an INSTANT named
**   `xplane.source`, category `xplane`, on a global track of its own (a
**   TrackDescriptor with a name, `xplane source`, merged mode `[<host>]
**   xplane source`; no process, no thread), at the ts of the profile's
**   earliest converted slice (0 when it has none), annotated with the
**   file's row of the extension's xplane_files and xplane_space
**   (sqlite_ext/space.h) as xplane.source.<column>: file, run, host, size,
**   mtime_ns, file_source_format (xplane_files.source_format: what the file
**   looks like), n_planes, n_lines, n_events (every event, the skipped ones
**   too), n_threads, hostnames, errors, warnings (their JSON text),
**   profile_start_time_ns, profile_stop_time_ns, time_base_ns, sha256,
**   source_format, source_file, trace_events, display_time_unit (a NULL
**   column is left out). It has none of the xplane.event_index annotation
**   of the converted events, so the package (tp_plugin/xplane) never takes
**   it for an event; xplane.source reads it.
** - then, on the same track at the same ts, one INSTANT `xplane.plane`
**   (category `xplane`) per plane, carrying what no Perfetto table holds:
**   its plane stats (XPlane.stats: a device's peak_teraflops_per_second,
**   peak_hbm_bw_gigabytes_per_second, device_type_string, clock_rate,
**   core_count, memory_bandwidth, ...; the Task Environment's profile
**   times), annotated with xplane.plane.plane_index, xplane.plane.plane_id,
**   xplane.plane.plane_name, xplane.plane.pid (its process's pid),
**   xplane.plane.tf_op_or_name_stat (1 when the plane's stat metadata names
**   a stat that trace processor stores as debug.tf_op or debug.name, so
**   some event may carry one: `tf_op`, `tf.op`, `name`, ...; else 0: the
**   package then looks for region windows elsewhere only) and each
**   plane stat under its own name, typed as event stats are (bytes as
**   lower-case hex). Like the source record it has no xplane.event_index
**   annotation, so it is never taken for an event; the package reads it
**   (each process's plane index; xplane.xprof: xplane_devices, the roofline
**   peaks).
** - plane -> process: pid = plane ordinal in the trace + 1 (plane index + 1
**   for one host), name = plane name (`xplane:<index>` when empty); merged
**   mode prefixes `[<host>] `.
** - track (the lines of a plane sharing an id; id 0 = index + 1:
**   xp_plane_tracks, whose count is xplane_space.n_threads) -> thread:
**   tid = PF_TID_BASE + thread ordinal (never a pid, so no thread is mistaken
**   for a process's main thread), name = display_name, else name, else
**   `xline:<index>` of its first line.
** - event with a start and duration > 0 -> slice (BEGIN/END) at
**   ns = floor(ps / 1000) for both ends, ps on the extension's clock
**   (xp_event_start: epoch-based files are rebased on their earliest line,
**   xplane_space.time_base_ns); duration 0 -> INSTANT; events without a
**   start (num_occurrences), with a negative duration or a time outside
**   0..INT64_MAX ps are skipped and counted.
** - category = the raw XLine name; name = display_name, else name (absent
**   when the metadata id is unknown).
** - annotations (args `debug.<name>`): xplane.event_index (the event's
**   position in its line) on every slice; the plane index is its process's
**   (the plane record), the line index the one of the line that has the
**   slice's thread and category, so xplane.line_index is written only on the
**   first slice of each line (below) and on every slice of a line whose
**   thread has another line of the same name (as SQL reads the category: up
**   to a NUL byte, ill-formed UTF-8 repaired); the exact times where the slice's whole ns do not give
**   them: xplane.start_ps when the start is not a whole ns (else it is
**   ts * 1000), xplane.dur_ps when the duration is not dur * 1000 (GPU
**   profiles have neither; these four rules take 4 of 9 args per slice
**   away: the 10 MB generated profile's load -22 % instructions); every
**   effective stat (bytes as lower-case hex; a stat with an unknown id is
**   named `#<id>`); xplane.metadata_id when the metadata id is unknown;
**   xplane.metadata_name when the metadata has a display_name and a
**   different name (the name is otherwise lost: TPU ops keep the HLO text
**   there); and on the first slice written of each XLine, the line's facts
**   that no Perfetto table holds: xplane.line_index, xplane.line_id and
**   xplane.line_display_name.
** - correlation_id stat (int64 or uint64, non-zero) -> flow id (host ordinal
**   << 48 xor the id): trace processor links the slices sharing a flow id
**   in a chain, in its import order.
**
** Nesting. Trace processor nests the slices of one track strictly; the
** analysis (docs/ANALYSIS.md) walks a track's events ordered by
** (start asc, end desc) with a stack, closing events that end at or before a
** new start and then those ending before its end (partial overlaps: not a
** parent). Events are placed on "lanes" of their thread: lane 0 is the
** thread's track, lanes k > 0 are child tracks ("<thread> (overlap k)",
** sibling merging off). An analysis event goes on its spec parent's lane when
** that parent is the innermost open slice there, so trace processor's
** parent_id is the spec parent; otherwise (its spec parent is on a lane where
** a partially overlapping event is still open) it starts a free lane at
** depth 0 and carries the spec parent as xplane.parent_line_index /
** xplane.parent_event_index. Events outside the analysis (empty name,
** unknown metadata) go to their own lanes ("<thread> (other k)") so they
** never become anyone's parent. Zero-duration events are instants on lane 0.
** So: spec parent = the annotated parent if any, else parent_id.
**
** Ordering: each line's events are streamed when already ordered by
** (start asc, end desc) (lines of one track are merged); a track with an
** unordered line is gathered and sorted (memory: about 80 bytes per event
** of that track). Lanes hold only open events, so memory does not grow with
** the trace.
*/
#ifndef TP_PLUGIN_PF_MODEL_H
#define TP_PLUGIN_PF_MODEL_H

#include <stdint.h>

#include "discover.h"
#include "profile.h"

/* First thread id; pids stay below it. */
#define PF_TID_BASE 1048576

/* Trace processor's character for c in a debug annotation's name: '.', '['
** and ']' become '_' (SanitizeDebugAnnotationName, every version since v40;
** checked on v58.2 by tests/test_trace_processor.sh), so `tf.op` is stored
** as debug.tf_op. */
static inline char pf_key_char(char c) { return c == '.' || c == '[' || c == ']' ? '_' : c; }

typedef enum { PF_A_INT = 0, PF_A_UINT, PF_A_DOUBLE, PF_A_STRING } pf_atype;

/* One debug annotation. Strings are views valid during the callback. */
typedef struct pf_arg {
  xp_str name;
  pf_atype type;
  union {
    int64_t i;
    uint64_t u;
    double d;
  } v;
  xp_str s;
} pf_arg;

typedef struct pf_process {
  uint64_t uuid;      /* its process TrackDescriptor */
  int64_t upid;       /* as trace processor numbers it (0 is its placeholder) */
  int64_t main_utid;  /* the main-thread row trace processor adds (tid = pid) */
  int32_t pid;
  int32_t plane_index;
  const char *name;   /* NUL-terminated */
} pf_process;

typedef struct pf_track {
  uint64_t uuid;
  uint64_t parent_uuid; /* 0 for a thread's own track (lane 0) */
  int64_t upid, utid;
  int32_t pid, tid;     /* tid of the thread the track belongs to */
  int32_t json_tid;     /* Chrome JSON has no child tracks: a tid per lane */
  int32_t lane;         /* 0; k > 0 overlap lanes; k < 0 other-event lanes */
  int32_t plane_index, line_index; /* the thread's first line (-1: global) */
  int global;           /* the source record's track: no process, no thread
                        ** (upid, utid -1; pid, tid, json_tid 0) */
  const char *name;     /* lane 0: the thread name; else the lane's name */
  const char *thread_name;
} pf_track;

typedef enum { PF_BEGIN = 1, PF_END = 2, PF_INSTANT = 3 } pf_etype;

typedef struct pf_event {
  pf_etype type;
  const pf_track *track;
  int64_t ts_ns;
  /* BEGIN and INSTANT only: */
  int64_t end_ns;
  int64_t start_ps, dur_ps;
  int has_name;
  xp_str name;
  xp_str category;
  int64_t ordinal;        /* slices (BEGIN or INSTANT) before this one */
  int64_t parent_ordinal; /* innermost open slice of the track, -1 = none */
  int32_t depth;
  int has_flow;
  uint64_t flow_id;
  const pf_arg *args;     /* when the sink wants args */
  int n_args;
  const xp_statvec *stats; /* effective stats (when the sink wants args) */
} pf_event;

/* Callbacks return 1, or 0 on failure (then *errmsg is the sink's). */
typedef struct pf_sink {
  void *ctx;
  int (*process)(void *ctx, const pf_process *p, char **errmsg);
  int (*track)(void *ctx, const pf_track *t, char **errmsg);
  int (*event)(void *ctx, const pf_event *e, char **errmsg);
  int want_args; /* 0: stats are not decoded (no args, no flows) */
} pf_sink;

typedef struct pf_counts {
  int64_t slices;          /* BEGIN/END pairs */
  int64_t instants;
  int64_t skipped_untimed; /* no offset_ps */
  int64_t skipped_invalid; /* negative duration or time out of range */
  int64_t processes, threads, tracks; /* of the converted events */
  int64_t sources;         /* xplane.source records (one per profile), each
                           ** with a global track of its own */
  int64_t plane_records;   /* xplane.plane records (one per plane) */
} pf_counts;

typedef struct pf_model pf_model;

pf_model *pf_model_new(const pf_sink *sink, int merged);
/* Emit one profile, its source record first (f: the profile as discovered;
** f->host is the name prefix in merged mode). Returns 1, or 0 with *errmsg
** (xp_malloc'd). */
int pf_model_add(pf_model *m, const xp_file *f, xp_profile *p, char **errmsg);
const pf_counts *pf_model_counts(const pf_model *m);
void pf_model_free(pf_model *m);

#endif
