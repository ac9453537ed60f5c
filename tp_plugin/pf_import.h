/*
** pf_import.h: trace processor's import of a converted profile, emulated:
** the rows of its slice, thread_track, thread, process, args and flow tables
** as it would create them from the trace that pf_model.h maps a profile to
** (the extension's xplane_pf_* tables are a thin binding over this).
**
**   pf_import im = {0};
**   if (!pf_import_build(&im, file, profile, want_args, &err)) ... xp_free(err);
**   ... im.slices.v[im.order[id]] is slice `id` ...
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
** a debug annotation (`xplane.plane_index` is `debug.xplane_plane_index`;
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

typedef struct pfc_slice {
  int64_t ts, dur, parent_ordinal, arg_lo;
  int64_t pos;             /* position among the events written (BEGIN, END, INSTANT) */
  int32_t track, depth, n_args, has_name, has_flow, instant;
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

typedef struct pfc_arg {
  int64_t key, str;        /* pool offsets (str -1 unless string) */
  pf_atype type;
  int64_t i;
  double d;
} pfc_arg;

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
VEC(slice_vec, pfc_slice);
VEC(track_vec, pfc_track);
VEC(int_vec, int32_t);
VEC(row3_vec, pfc_row3);
VEC(arg_vec, pfc_arg);
VEC(char_vec, char);
VEC(flow_vec, pfc_flow);
VEC(end_vec, pfc_end);

/* The imported trace: vectors by ordinal (model order), pool offsets for
** text, and the numbering trace processor gives. */
typedef struct pf_import {
  slice_vec slices;        /* by ordinal */
  track_vec tracks;
  int_vec track_of_uuid;
  row3_vec threads, processes;
  arg_vec args;
  flow_vec flows;          /* after pf_import_flows: (slice_in, slice_out) by flow id */
  char_vec pool;
  end_vec ends;            /* the END events, for the nesting of instants */
  int64_t n_events;        /* events written so far */
  int64_t *order;          /* slice ordinals by id */
  int64_t *id_of;          /* id by ordinal */
  int64_t *track_rows;     /* the thread tracks' indexes, by track id */
  int64_t n_track_rows;
  const char *too_large;   /* the table whose growth asked for more than one
                           ** allocation may hold (NULL: none) */
} pf_import;

/* Import profile p (file f); with want_args the args and flow ids too. 0 on
** failure with *errmsg set (free with xp_free; NULL = out of memory). */
int pf_import_build(pf_import *im, const xp_file *f, xp_profile *p, int want_args, char **errmsg);
/* Link the flows (needs a build with args). 0 on out of memory. */
int pf_import_flows(pf_import *im);
void pf_import_free(pf_import *im);

#endif
