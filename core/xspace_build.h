/*
** xspace_build.h: build a serialized XSpace from events that arrive in any
** order, with memory bounded by the number of planes, lines and distinct
** names (not by the number of events).
**
** The JSON trace converter (json_trace.h) feeds it; the result is an XSpace
** in protobuf wire format inside an anonymous memory file (memfd), which
** profile.c maps and indexes like any `.xplane.pb`. Each event is appended,
** already encoded, to a spool (another memfd, mapped: file-backed shared
** pages, not anonymous memory) and chained to the previous event of its line;
** xb_finish() then walks each line's chain twice (sizes, then bytes) and
** writes the XSpace in one sequential pass, and the spool is dropped.
**
**   xb_builder *b = xb_new();
**   int32_t pl = xb_plane(b, pid);             xb_plane_name(b, pl, "/host:CPU", 9);
**   int32_t ln = xb_line(b, pl, tid);          xb_line_name(b, ln, "main", 4);
**   xb_buf st = {0};                           // the event's XStats, encoded
**   xb_stat_int(b, pl, &st, "flops", 5, 1024);
**   xb_time t = {1500, 250};                   // 1500.250 ns
**   xb_event(b, ln, xb_event_meta(b, pl, "fusion.1", 8), &t, 2000000, st.p, st.n);
**   xb_warning(b, "3 events skipped", 16);
**   xb_finish(b, &fd, &size);                  // 0 on success, else b's error
**   xb_free(b);
**
** Mapping choices: plane id = the given id (a JSON pid), line id = the given
** id (a tid); counter lines get ids -1, -2, ... in their plane. Event and
** stat metadata ids are 1, 2, ... per plane in order of first use. A string
** stat value seen twice in a plane becomes a stat metadata entry referenced
** by ref_value (as XPlane writers intern repeated strings), within a budget
** of remembered bytes; otherwise it is written inline (str_value). Each line
** gets timestamp_ns = 0 and offset_ps = the start in ps when that fits int64,
** else timestamp_ns = its earliest start (epoch-scale times).
*/
#ifndef XPLANE_XSPACE_BUILD_H
#define XPLANE_XSPACE_BUILD_H

#include <stddef.h>
#include <stdint.h>

/* An exact time: whole nanoseconds (floor) plus 0..999 picoseconds. */
typedef struct xb_time {
  int64_t ns;
  int32_t ps;
} xb_time;

/* A growable byte buffer (xp_malloc'd). */
typedef struct xb_buf {
  uint8_t *p;
  size_t n, cap;
} xb_buf;

int xb_buf_put(xb_buf *b, const void *p, size_t n); /* 0 when out of memory */
void xb_buf_free(xb_buf *b);

typedef struct xb_builder xb_builder;

xb_builder *xb_new(void); /* NULL when out of memory */
void xb_free(xb_builder *b);

/* The builder's error ("out of memory", ...) once a call returned failure. */
const char *xb_error(const xb_builder *b);

/* Find or create; -1 on failure. Planes and lines keep first-use order. */
int32_t xb_plane(xb_builder *b, int64_t id);
int32_t xb_line(xb_builder *b, int32_t plane, int64_t id);
int32_t xb_counter_line(xb_builder *b, int32_t plane, const char *name, size_t n);
int32_t xb_n_lines(const xb_builder *b);
/* Name a plane or line (a later name replaces an earlier one); 0 on failure. */
int xb_plane_name(xb_builder *b, int32_t plane, const char *name, size_t n);
int xb_line_name(xb_builder *b, int32_t line, const char *name, size_t n);

/* The event metadata id of a name in a plane (created on first use); -1 on failure. */
int64_t xb_event_meta(xb_builder *b, int32_t plane, const char *name, size_t n);

/* Append one encoded XStat (XEvent.stats field) named `key` to out; 0 on failure. */
int xb_stat_int(xb_builder *b, int32_t plane, xb_buf *out, const char *key, size_t kn, int64_t v);
int xb_stat_uint(xb_builder *b, int32_t plane, xb_buf *out, const char *key, size_t kn, uint64_t v);
int xb_stat_double(xb_builder *b, int32_t plane, xb_buf *out, const char *key, size_t kn, double v);
int xb_stat_str(xb_builder *b, int32_t plane, xb_buf *out, const char *key, size_t kn,
                const char *s, size_t sn);

/* Append an event to a line: start NULL = no start (an untimed event),
** dur_ps 0 = no duration field; stats = concatenated xb_stat_* output. */
int xb_event(xb_builder *b, int32_t line, int64_t meta_id, const xb_time *start, int64_t dur_ps,
             const uint8_t *stats, size_t n);

/* Add an XSpace warning (in call order); 0 on failure. */
int xb_warning(xb_builder *b, const char *text, size_t n);

/* Serialize into a new memfd; returns 1 with *fd (the caller closes it) and
** *size set, or 0 (see xb_error). The builder is spent either way. */
int xb_finish(xb_builder *b, int *fd, int64_t *size);

#endif
