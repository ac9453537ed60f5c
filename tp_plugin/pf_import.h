/*
** pf_import.h: trace processor's import of a converted profile, emulated:
** the rows of its slice, thread_track, thread, process, args and flow tables
** as it would create them from the trace that pf_model.h maps a profile to
** (the extension's xplane_pf_* tables are a thin binding over this).
**
**   pf_import im = {0};
**   if (!pf_import_build(&im, file, profile, want_args, &err)) ... xp_free(err);
**   ... pf_slice_by_id(&im, id) is slice `id`; pf_pool_at(&im.pool, off) a text ...
**   pf_import_free(&im);
**
** Each profile is one trace (ids restart per file; per-host conversion).
** Modelled on trace processor's import: slice ids in the order it inserts
** slices (BEGIN/INSTANT packets sorted by (ts, position in the file));
** depth/parent_id by strict nesting per track (pf_model's lanes), except
** that an instant right after an instant of the same ts on its track (no
** BEGIN or END of that track between them, in import order) is nested in
** it, one level deeper, as trace processor keeps an instant open for the
** next instant of its timestamp (a chain of depths where the model has
** siblings; checked on trace_processor_shell v58.2); thread
** tracks numbered by first use, and only the used ones; upid/utid 0 are its
** placeholder rows and every process gets a main-thread row (tid = pid, no
** name); the root track of a thread has no name, an overlap lane its own.
** The source record (`xplane.source`, pf_model.h) is a slice too, on a
** global track: it takes a track id like any track but, being no thread's,
** is not a thread track, and its args are the file's xplane_files /
** xplane_space columns. Arg keys are `debug.<annotation>` with '.', '['
** and ']' of the annotation name turned into '_', as trace processor stores
** a debug annotation (`xplane.event_index` is `debug.xplane_event_index`;
** a key given twice on one slice is one arg, as there: the last value at
** the first one's position), value_type
** int/uint/real/string, one arg set per slice (arg_set_id = the slice id
** here; trace processor draws arg set ids from its own sequence); arg ids in
** import order (slice id, then the annotation's position). Flows as trace
** processor's FlowTracker links the slices that share a flow id: each to the
** previous one in import order, flow ids in the order of their incoming
** slice.
*/
#ifndef XPLANE_PF_IMPORT_H
#define XPLANE_PF_IMPORT_H

#include "pf_model.h"
#include "util.h"

typedef struct pfc_slice {
  int64_t ts, dur, parent_ordinal, arg_lo;
  int64_t pos;             /* position among the events written (BEGIN, END, INSTANT) */
  int32_t track, depth, n_args;
  uint8_t has_name, has_flow, instant;
  uint64_t flow_id;
  xp_str name, category;
} pfc_slice;

typedef struct pfc_track {
  int64_t id, utid; /* id -1: never used */
  int64_t name;     /* pool offset, -1 = NULL */
  int global;       /* not a thread track (the source record's) */
} pfc_track;

typedef struct pfc_row3 {  /* thread (utid, tid, name, upid) and process (upid, pid, name) */
  int64_t a, b, name, c;   /* name: pool offset, -1 = NULL; c < 0 = NULL */
} pfc_row3;

/* An arg in 16 bytes: its key's pool offset and its type packed in one word
** (pfc_arg_key, pfc_arg_type), and one value: the integer, the double's
** bits, or the string's pool offset, as the type says (pfc_arg_int,
** pfc_arg_real, pfc_arg_str). */
typedef struct pfc_arg {
  uint64_t key_type;       /* key offset << 8 | pf_atype */
  int64_t v;
} pfc_arg;

static inline int64_t pfc_arg_key(const pfc_arg *a) { return (int64_t)(a->key_type >> 8); }
static inline pf_atype pfc_arg_type(const pfc_arg *a) { return (pf_atype)(a->key_type & 0xff); }
static inline int64_t pfc_arg_int(const pfc_arg *a) { return a->v; }
static inline double pfc_arg_real(const pfc_arg *a) {
  double d;
  __builtin_memcpy(&d, &a->v, sizeof d);
  return d;
}
static inline int64_t pfc_arg_str(const pfc_arg *a) { return pfc_arg_type(a) == PF_A_STRING ? a->v : -1; }

typedef struct pfc_end {  /* an END event: its ts, position among the events, track */
  int64_t ts, pos;
  int32_t track;
} pfc_end;

typedef struct pfc_flow {  /* a flow (slice_in, slice_out), or while building (flow id, slice id) */
  uint64_t a;
  int64_t b;
} pfc_flow;

#define VEC(name, T) \
  typedef struct name { \
    T *v;                 \
    int64_t n, cap;       \
  } name
VEC(track_vec, pfc_track);
VEC(int_vec, int32_t);
VEC(row3_vec, pfc_row3);

/* Text by offset, NUL-terminated: blocks of 2^shift bytes (the largest power
** of two one allocation may hold), a string never crossing a block's end; a
** string longer than a block has a block (an allocation of its own size) to
** itself. Offset o is byte o & (2^shift - 1) of block o >> shift. */
typedef struct pf_pool {
  char **block;
  int64_t n_blocks, cap_blocks;
  int64_t n;               /* the offset of the next string */
  int64_t first_cap;       /* bytes of block 0 while it grows by doubling */
  int shift;
} pf_pool;

static inline const char *pf_pool_at(const pf_pool *p, int64_t off) {
  return p->block[off >> p->shift] + (off & (((int64_t)1 << p->shift) - 1));
}

/* The imported trace: arrays by ordinal (model order), pool offsets for
** text, and the numbering trace processor gives. The arrays that grow with
** the events are chunked (xp_cvec, util.h), so none needs one allocation
** past the limit: a profile of 1 GB (about 190 M args) imports. */
typedef struct pf_import {
  xp_cvec slices;          /* pfc_slice by ordinal */
  track_vec tracks;
  int_vec track_of_uuid;
  row3_vec threads, processes;
  xp_cvec args;            /* pfc_arg */
  xp_cvec flows;           /* pfc_flow: after pf_import_flows, (slice_in, slice_out) by flow id */
  pf_pool pool;
  xp_cvec ends;            /* pfc_end: the END events, for the nesting of instants */
  int64_t n_events;        /* events written so far */
  xp_cvec order;           /* int64_t: slice ordinals by id */
  xp_cvec id_of;           /* int64_t: id by ordinal */
  int64_t *track_rows;     /* the thread tracks' indexes, by track id */
  int64_t n_track_rows;
  /* Text interned (keys, string values): the pool offset and length of
  ** each distinct string, up to 2^20 of them (pf_import.c), and their index. */
  struct pf_interned { int64_t off, len; } *interned;
  int64_t n_interned, cap_interned;
  xp_hmap intern_index;
  char *scratch;           /* a key being built */
  int64_t cap_scratch;
  const char *too_large;   /* the table whose growth asked for more than one
                           ** allocation may hold (NULL: none) */
  int64_t too_long;        /* bytes of a string no allocation may hold (0: none) */
} pf_import;

static inline pfc_slice *pf_slice(const pf_import *im, int64_t ordinal) { return xp_cvec_at(&im->slices, ordinal); }
/* Slice `id` (trace processor's numbering). */
static inline pfc_slice *pf_slice_by_id(const pf_import *im, int64_t id) {
  return pf_slice(im, *(const int64_t *)xp_cvec_at(&im->order, id));
}
static inline int64_t pf_id_of(const pf_import *im, int64_t ordinal) {
  return *(const int64_t *)xp_cvec_at(&im->id_of, ordinal);
}
static inline const pfc_arg *pf_arg_at(const pf_import *im, int64_t i) { return xp_cvec_at(&im->args, i); }
static inline const pfc_flow *pf_flow(const pf_import *im, int64_t i) { return xp_cvec_at(&im->flows, i); }

/* Import profile p (file f); with want_args the args and flow ids too. 0 on
** failure with *errmsg set (free with xp_free; NULL = out of memory). */
int pf_import_build(pf_import *im, const xp_file *f, xp_profile *p, int want_args, char **errmsg);
/* Link the flows (needs a build with args). 0 on failure with *errmsg set
** as by pf_import_build. */
int pf_import_flows(pf_import *im, char **errmsg);
void pf_import_free(pf_import *im);

#endif
