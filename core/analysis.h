/*
** analysis.h: what the semantic tables derive from a profile, computed once
** per decode and kept on the profile (xp_profile.analysis) for every later
** query of the connection.
**
** - Exclusive (self) time of every analysis event, per track (timeline.h),
**   built lazily one track at a time (xp_line_self_times).
** - The device ops (xp_ops) with their self time, pre-op gap and payload.
** - The steps of every device (xp_steps).
** Analysis events (docs/ANALYSIS.md): a start, a duration > 0, a known
** metadata id and a non-empty name (display_name, else name). A track is the
** lines of one plane that share an id (id 0 counts as index + 1).
*/
#ifndef XPLANE_ANALYSIS_H
#define XPLANE_ANALYSIS_H

#include "profile.h"

/* Value of xp_line_self_times for an event outside the analysis. */
#define XP_NO_VALUE INT64_MIN

/* One device op: 72 bytes (ops are at most XP_MAX_EVENTS, so 32-bit
** indexes hold every op and step index). */
typedef struct xp_op {
  int64_t start_ps, dur_ps, self_ps, gap_ps;
  const uint8_t *msg;     /* the XEvent message */
  uint32_t msg_n;
  int32_t payload;        /* for a gap marker: op index of its payload; else -1 */
  int32_t step;           /* index into xp_steps, -1 = none */
  int32_t plane, line, event_index;
  int32_t emeta;          /* index into the plane's emeta */
  uint8_t category;       /* XP_OP_* of its name (xp_op_category) */
} xp_op;

enum { XP_OP_COMPUTE = 0, XP_OP_COMMUNICATION, XP_OP_STALL };
extern const char *const xp_op_category_names[3];

typedef struct xp_step {
  int32_t plane;          /* the device plane */
  int64_t number;         /* step number */
  int64_t start_ps, dur_ps;
  int source;             /* XP_STEP_SOURCE_* */
  int64_t compute_ps, communication_ps, stall_ps, n_ops;
} xp_step;

enum { XP_STEP_DEVICE_LINE = 0, XP_STEP_HOST_ANNOTATION, XP_STEP_MODULE };

/* A named-scope region (docs/ANALYSIS.md, hierarchical regions). */
typedef struct xp_scope {
  char *path;             /* parts joined with "=>" */
  int32_t depth;          /* number of parts */
  int32_t parent;         /* index of the parent path in the scope list, -1 for roots */
  int64_t count;          /* ops at or below this path */
  int64_t inclusive_ps;   /* their exclusive time */
  int64_t exclusive_ps;   /* exclusive time of ops whose full path is this one */
} xp_scope;

/* Event categories, in the summary's bucket order. */
enum { XP_CAT_COMPUTE = 0, XP_CAT_COMMUNICATION, XP_CAT_HOST, XP_CAT_STALL, XP_CAT_OTHER, XP_N_CATS };
extern const char *const xp_category_names[XP_N_CATS];

typedef struct xp_track_agg {
  int32_t plane, line;
  int32_t category;
  int64_t n_events, dur_ps, self_ps;
  int64_t first_start_ps, last_end_ps;
} xp_track_agg;

enum { XP_HINT_RUN_ID = 0, XP_HINT_SOURCE_FILE, XP_N_HINT_KINDS };

/* Derived data that other files build and keep with the analysis (once
** per decode, freed with the profile). xp_analysis_slot returns the slot to
** fill (NULL on OOM); free_fn is remembered for it, and bytes_fn (if not
** NULL), the heap bytes the slot's data holds: xp_profile_bytes counts them,
** so the cache's byte budget covers the aggregates (cache.h). */
typedef enum { XP_SLOT_TRACKS = 0, XP_SLOT_OP_NAMES, XP_SLOT_GAPS, XP_SLOT_OP_REGIONS, XP_SLOT_DEVICES,
               XP_SLOT_HLO_STATS, XP_SLOT_KERNEL_STATS, XP_SLOT_MEMORY, XP_SLOT_DEVICE_TIME, XP_N_SLOTS } xp_slot;
void **xp_analysis_slot(xp_profile *p, xp_slot slot, void (*free_fn)(void *));
void **xp_analysis_slot_sized(xp_profile *p, xp_slot slot, void (*free_fn)(void *),
                              int64_t (*bytes_fn)(const void *));
/* Heap bytes of a string the slots own (0 for NULL). */
int64_t xp_str_bytes(const char *s);

/* Is this event part of the analysis? Fills *em and *name when so. */
int xp_analysis_event(const xp_plane *pl, const xp_event *ev, const xp_event_meta **em, xp_str *name);

/* Is this line a device-op line of its plane? */
int xp_device_op_line(const xp_plane *pl, const xp_line *ln);

/* Self times of a line's events by event index (XP_NO_VALUE outside the
** analysis); computed with the rest of its track on first use. NULL on OOM. */
const int64_t *xp_line_self_times(xp_profile *p, int32_t plane, int32_t line);

/* The device ops, built on first use. Returns the count, -1 on OOM. */
int64_t xp_ops(xp_profile *p, const xp_op **ops);

/* The steps, built on first use (needs the ops). Returns the count, -1 on OOM. */
int64_t xp_steps(xp_profile *p, const xp_step **steps);

/* The hierarchical regions of the device ops, redundant unary paths pruned,
** ordered by (inclusive desc, exclusive desc, path). -1 on OOM. */
int64_t xp_scopes(xp_profile *p, const xp_scope **scopes);

/* The effective stats of an op (reset sv first). */
int xp_op_stats(const xp_profile *p, const xp_op *o, xp_statvec *sv);
/* The text of a stat (str, ref or bytes), empty if none. */
xp_str xp_stat_as_text(const xp_stat *s);
/* The first of the named stats whose value is non-empty text (str, ref or
** bytes), as the reference's string stats are read; empty if none. */
xp_str xp_stat_text(const xp_statvec *sv, const char *const *names);
/* An op's name-scope text: tf_op, or the `name` stat where tf_op is XlaModule. */
xp_str xp_op_tf_op(const xp_statvec *sv);
/* An op's long name: its long_name stat's text (ln, may be empty), else its
** metadata's name where that differs from the op name (TPU: the HLO text);
** empty if neither. */
xp_str xp_op_long_name(const xp_profile *p, const xp_op *o, xp_str ln);
/* An event's source file: the source, source_file or file_name stat. */
xp_str xp_op_source_file(const xp_statvec *sv);
/* An op's name: its metadata's display_name, else name. */
xp_str xp_op_name(const xp_profile *p, const xp_op *o);

#endif
