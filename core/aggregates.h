/*
** aggregates.h: per-profile summaries the reports read, computed in one pass
** per decode and cached with the analysis (so a report re-run on the same
** profile costs nothing but the SQL over these small tables).
**
** - Track aggregates: per (line, event category) the count, duration and
**   exclusive time of the analysis events, and their first start / last end
**   (the time breakdown and trace overview of the summary).
** - Hints: how often each `run_id` and source-file value occurs over all
**   analysis events, with the order of first appearance (provenance).
** - Op names: per device-op name the count, total and exclusive time, and the
**   most frequent shape signature, source file and tf_op (ties: first seen),
**   and the FLOP proxy sum (the hot ops of the summary); and how often each
**   name runs with each tf_op (the preferred region of a gap payload).
** - Gap groups: the pre-op gaps by payload, marker and the payload's tf_op
**   (the gap sections of the summary).
** - Op regions: the device ops grouped by the named region they ran under and
**   their name (the summary's device_op_region_aggregates). A region window is
**   an analysis event that is not a device op and whose scope path (the
**   hierarchical-region rules) is not the fallback; an op belongs to the
**   window open at its midpoint (start + dur/2; windows are closed intervals)
**   with the greatest depth, then the shortest duration, then the greatest
**   path in byte order (the reference's max over (depth, -dur, path)). Ops
**   outside every window are not counted.
*/
#ifndef XPLANE_AGGREGATES_H
#define XPLANE_AGGREGATES_H

#include "analysis.h"

/* Event categories (XP_CAT_*), xp_track_agg and the hint kinds (XP_HINT_*)
** are analysis.h's: the pass builds them. */

typedef struct xp_hint {
  int32_t kind;
  char *value;
  int64_t count;
  int64_t first_seen;   /* order of first appearance over all analysis events */
} xp_hint;

typedef struct xp_op_group {
  xp_str name;
  int64_t count, total_ps, self_ps;
  char *shape_signature, *source_file, *tf_op; /* most frequent non-empty, or NULL */
  double flop_proxy_sum;                       /* over invocations with a proxy */
  int64_t flop_proxy_count;
  int64_t first_op;                            /* first occurrence (op id) */
} xp_op_group;

/* How often an op name runs with a given tf_op (non-empty ones). */
typedef struct xp_tf_count {
  xp_str name;
  char *tf_op;
  int64_t count;
  int64_t first_op;
} xp_tf_count;

/* Pre-op gaps grouped by (payload name, marker name, payload tf_op). */
typedef struct xp_gap_group {
  xp_str payload, marker, tf_op;
  int64_t count, total_ps, max_ps;
  int64_t first_op;   /* the first marker (op id) */
} xp_gap_group;

/* Device ops under one region window path with one name. */
typedef struct xp_op_region {
  const char *path;          /* the window's scope path (parts joined with "=>") */
  int32_t depth;             /* its number of parts */
  xp_str name;               /* the op name */
  int64_t count, total_ps, self_ps;
  char *shape_signature;     /* most frequent non-empty (ties: first counted), or NULL */
  int64_t first_op;          /* op id of the first op counted */
} xp_op_region;

/* Returns counts (-1 on OOM); the arrays stay valid while the profile lives. */
int64_t xp_track_aggs(xp_profile *p, const xp_track_agg **aggs, const xp_hint **hints, int64_t *n_hints);
int64_t xp_op_groups(xp_profile *p, const xp_op_group **names);
int64_t xp_op_tf_ops(xp_profile *p, const xp_tf_count **rows);
int64_t xp_gap_groups(xp_profile *p, const xp_gap_group **rows);
/* Op regions ordered by (self desc, total desc, path, name); also the number
** of region windows found (*n_windows). */
int64_t xp_op_regions(xp_profile *p, const xp_op_region **rows, int64_t *n_windows);

/* For report.c, which builds the report pass first: the same, read from
** what is built (-1 when it is not). */
int64_t xp_built_track_aggs(xp_profile *p, const xp_track_agg **aggs, const xp_hint **hints, int64_t *n_hints);
int64_t xp_built_op_groups(xp_profile *p, const xp_op_group **names);
int64_t xp_built_op_tf_ops(xp_profile *p, const xp_tf_count **rows);
int64_t xp_built_gap_groups(xp_profile *p, const xp_gap_group **rows);
int64_t xp_built_op_regions(xp_profile *p, const xp_op_region **rows, int64_t *n_windows);

#endif
