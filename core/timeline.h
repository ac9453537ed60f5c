/*
** timeline.h: the interval algorithms of the analysis, on plain arrays.
**
** Pure functions over the events of ONE track (start and duration in ps, any
** order): the cached tables (analysis.c) and the SQL window functions
** (functions_timeline.c) both call these, so the rules live in one place.
** The rules are those of docs/ANALYSIS.md (exclusive time, pre-op gaps).
*/
#ifndef XPLANE_TIMELINE_H
#define XPLANE_TIMELINE_H

#include <stdint.h>

/* Exclusive (self) time. Events are ordered by (start asc, end desc, input
** position); a stack of open events is kept: before an event is pushed, every
** open event that ends at or before its start is closed, then every open event
** that ends before its end (a partial overlap: not a parent). The event left
** on top is the parent. A closed event's self time is max(0, duration - the
** sum of its direct children's durations). Writes self_out[i] for every i.
** Returns 0 on out-of-memory, or when cancelled (cancel.h; xp_cancel_stopped()
** tells which). */
int xp_exclusive_times(int64_t n, const int64_t *start, const int64_t *dur, int64_t *self_out);

/* How many ops after a marker are searched for the payload. */
#define XP_PAYLOAD_LOOKAHEAD 8

/* Pre-op gaps. Events are ordered by (start asc, end asc, input position)
** with a running maximum of the ends seen; an event that starts after that
** maximum is a marker and gap_out[i] = start - maximum (0 for every other
** event, and for the first). For a marker, payload_out[i] is the input index
** of the op where useful work resumes: the marker itself unless it is
** marker-like (marker_like[i] != 0); else the first non-marker-like op among
** the next XP_PAYLOAD_LOOKAHEAD ops whose chain of ends stays unbroken (an op
** starting after the chain's end stops the search), or the marker when none.
** payload_out[i] = -1 for non-markers. Returns 0 on out-of-memory, or when
** cancelled (cancel.h; xp_cancel_stopped() tells which). */
int xp_pre_op_gaps(int64_t n, const int64_t *start, const int64_t *dur, const uint8_t *marker_like,
                   int64_t *gap_out, int64_t *payload_out);

#endif
