/*
** json_trace.h: read a Chrome/Perfetto JSON trace (the `traceEvents` format
** that JAX, TensorBoard and many tools write as `perfetto_trace.json.gz`,
** `*.trace.json.gz` or `*.json`) as an XSpace.
**
** The trace is streamed, never loaded whole: gzip is inflated by zlib (plain
** JSON is read as is), and yajl's event-driven parser feeds the events to an
** XSpace builder (xspace_build.h). The result is a serialized XSpace in an
** anonymous memory file, which profile.c maps and indexes with the same
** validating walk as an `.xplane.pb`, so every table reads both alike.
**
** Mapping (one choice per JSON construct):
**   ph "M"  process_name names the plane of a pid (plane id = pid),
**           thread_name the line of a (pid, tid) (line id = tid); other
**           metadata events are ignored.
**   ph "X"  complete event: ts/dur (us) -> exact ps (the decimal text is read
**           exactly, rounded half up to the ps); its name -> event metadata
**           (one per distinct name per plane); args -> event stats.
**   ph "B"/"E"  matched per (pid, tid) as a stack into complete events (the
**           B's name and start, B's args then E's args).
**   ph "i"/"I"  instant: a zero-duration event.
**   ph "C"  counter: an event (zero duration) on a line of its own named
**           after the counter ("<name>" or "<name> <id>", line ids -1, -2, ...
**           per plane), the series values as its stats.
**   args    numbers -> int64 when integral (uint64 above int64, double when
**           out of range), else double; strings -> str (a string repeated in
**           a plane becomes a ref_value to interned stat metadata); true/false
**           -> int64 1/0; null -> no stat; objects and arrays -> their
**           compact JSON text as str.
** Events with other phases, entries that are not objects, events without an
** integer pid (or tid, where the phase needs one), unmatched E and unended B
** events are skipped and counted in XSpace.warnings ("JSON trace: ...").
** An event without a numeric ts has no start (offset_ps unset); a missing
** dur is 0. Times that fit are written with line timestamp_ns = 0 and
** offset_ps = ts in ps; epoch-scale traces share their earliest start as
** every line's timestamp_ns.
*/
#ifndef XPLANE_JSON_TRACE_H
#define XPLANE_JSON_TRACE_H

#include <stdint.h>

/* A converted trace. */
typedef struct xp_json_trace {
  int fd;                  /* memfd holding the serialized XSpace (the caller closes it) */
  int64_t size;            /* its size in bytes (> 0) */
  int64_t n_trace_events;  /* entries of traceEvents, of every kind */
  char *display_time_unit; /* the trace's displayTimeUnit (xp_malloc'd), or NULL */
} xp_json_trace;

/* Should `path` be read as a JSON trace? By name: `.xplane.pb` never,
** `.json` / `.json.gz` always; other names by their first bytes (gzip magic,
** or `{` / `[` after white space). */
int xp_is_json_trace(const char *path);

/* Convert the trace open on `fd` (read from its current position; gzip by
** content). `note`, if not NULL, becomes the first XSpace warning. Returns 1
** and fills *out, or 0 with *errmsg (xp_malloc'd) saying what is wrong
** (without the file name). */
int xp_json_trace_convert(int fd, const char *note, xp_json_trace *out, char **errmsg);

#endif
