/*
** xspace_stream.h: write an XSpace protobuf plane by plane, never holding
** the whole message (or even one whole plane) in memory.
**
** A length-delimited protobuf field needs its length before its bytes. The
** writer gets each line's length by running the caller's event emitter twice:
** once into a counting sink (bytes are measured, nothing is stored), then
** into the file sink. Emitters must therefore be deterministic; the writer
** checks it, and a line whose two runs differ in size is a fatal error.
** Small messages (events, metadata entries, stats) are packed by protobuf-c
** (schema/xplane.proto); the framing around them (XSpace.planes, XPlane.lines
** and the XLine header) is written here, in canonical field-number order.
**
**   xs_sink out;
**   xs_sink_file(&out, fp);                      // or xs_sink_count(&out)
**   xs_plane *p = xs_plane_new(0, "/device:GPU:0");
**   int64_t hlo_op = xs_intern(p, "hlo_op");     // stat name (or interned value)
**   int64_t k = xs_event_meta(p, "fusion.3", NULL);
**   xs_add_line(p, 16, "Stream #16(Kernel)", ts_ns, LINE_KERNELS, 0);
**   xs_write_plane(&out, p, emit_events, ctx, &counts);  // emit_events calls xs_event
**   xs_plane_free(p);
**   xs_string_field(&out, 4, "host0");          // XSpace.hostnames
**   xs_sink_close(&out);
*/
#ifndef XSPACE_STREAM_H
#define XSPACE_STREAM_H

#include <stdint.h>
#include <stdio.h>

#include "xplane.pb-c.h"

typedef Tensorflow__Profiler__XStat xs_stat;
typedef Tensorflow__Profiler__XEvent xs_ev;

/* ---- sinks: where bytes go (a file, or nowhere but a counter) ---- */

typedef struct xs_sink {
  FILE *f;              /* NULL: a counting sink */
  unsigned char *buf;   /* write buffer (file sinks) */
  size_t len, cap;
  uint64_t bytes;       /* bytes emitted so far */
  uint64_t events;      /* XEvents emitted so far (xs_event) */
  int error;            /* errno of the first failed write, else 0 */
} xs_sink;

void xs_sink_count(xs_sink *s);
int xs_sink_file(xs_sink *s, FILE *f);   /* 0, or -1 when out of memory */
int xs_sink_close(xs_sink *s);           /* flush and free: 0 or an errno */

/* Wire primitives. Scalar fields equal to 0 / empty strings are omitted
** (proto3 semantics), so a counting run and a writing run agree. */
void xs_varint(xs_sink *s, uint64_t v);
void xs_len_field(xs_sink *s, uint32_t field, uint64_t len); /* tag + length */
void xs_int64_field(xs_sink *s, uint32_t field, int64_t v);
void xs_string_field(xs_sink *s, uint32_t field, const char *str);
void xs_message_field(xs_sink *s, uint32_t field, const ProtobufCMessage *m);
/* One XLine.events entry; counts it in s->events. */
void xs_event(xs_sink *s, const xs_ev *ev);

/* ---- XStat values ---- */

void xs_stat_int(xs_stat *st, int64_t id, int64_t v);
void xs_stat_uint(xs_stat *st, int64_t id, uint64_t v);
void xs_stat_double(xs_stat *st, int64_t id, double v);
void xs_stat_ref(xs_stat *st, int64_t id, int64_t ref);
void xs_stat_str(xs_stat *st, int64_t id, const char *v); /* not copied */

/* ---- planes ---- */

typedef struct xs_plane xs_plane;

typedef struct xs_counts {
  uint64_t planes, lines, events;
} xs_counts;

/* Emits the events of line `line` of `p` into `s` (via xs_event). Called
** twice per line; must produce the same bytes both times. */
typedef void (*xs_emit_fn)(void *ctx, const xs_plane *p, size_t line, xs_sink *s);

/* All functions that allocate exit(1) with a message when memory runs out:
** a half-written profile is of no use to anyone. */
xs_plane *xs_plane_new(int64_t id, const char *name);
void xs_plane_free(xs_plane *p);

/* The stat_metadata id of `s`: a stat name or an interned string value (the
** target of XStat.ref_value). Ids count up from 1 in first-use order. */
int64_t xs_intern(xs_plane *p, const char *s);

/* A new event metadata entry (ids count up from 1); display_name may be NULL. */
int64_t xs_event_meta(xs_plane *p, const char *name, const char *display_name);
/* `count` entries named "first_number", "first_number+1", ... generated while
** writing (the TPU `Steps` line's step numbers); returns the first id. */
int64_t xs_event_meta_numbered(xs_plane *p, int64_t count, int64_t first_number);
/* A new stat on event metadata `meta` (from xs_event_meta) or on the plane;
** fill it with xs_stat_*. String values given to xs_stat_str must outlive p;
** the xs_*_str helpers copy instead. */
xs_stat *xs_meta_stat(xs_plane *p, int64_t meta);
xs_stat *xs_plane_stat(xs_plane *p);
void xs_meta_str(xs_plane *p, int64_t meta, int64_t stat_id, const char *v);
void xs_plane_str(xs_plane *p, int64_t stat_id, const char *v);

/* A line; `kind` and `arg` are the caller's, for its emitter. */
size_t xs_add_line(xs_plane *p, int64_t id, const char *name, int64_t timestamp_ns, int kind,
                   int arg);
int xs_line_kind(const xs_plane *p, size_t line);
int xs_line_arg(const xs_plane *p, size_t line);
int64_t xs_line_timestamp_ns(const xs_plane *p, size_t line);

/* Write p as one XSpace.planes field (field 1) and add to *counts. */
void xs_write_plane(xs_sink *out, const xs_plane *p, xs_emit_fn emit, void *ctx,
                    xs_counts *counts);

/* Print s to stdout as a JSON string (quotes, backslashes and control
** characters escaped): the generators' one-line reports. */
void xs_print_json_string(const char *s);

/* Fatal error: message on stderr, exit(1). */
void xs_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
