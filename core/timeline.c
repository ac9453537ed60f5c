/*
** timeline.c: exclusive time and pre-op gaps over one track (see timeline.h).
*/
#include "timeline.h"

#include <stdlib.h>

#include "cancel.h"
#include "util.h"


/* qsort has no context argument: sort (key, index) records instead. */
typedef struct rec {
  int64_t start, end;
  int64_t idx;
} rec;

static int by_start_end_desc(const void *a, const void *b) {
  const rec *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->end != y->end) return x->end > y->end ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int by_start_end_asc(const void *a, const void *b) {
  const rec *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->end != y->end) return x->end < y->end ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The events in the order of cmp: NULL with *sorted = 1 when the input
** already is in that order (events of one line usually are written in time
** order: one comparison each, and no copy, which on a track of millions of
** events saves tens of megabytes of freshly zeroed pages), else a sorted
** copy (NULL with *sorted = 0 on out-of-memory). */
static rec *sorted_recs(int64_t n, const int64_t *start, const int64_t *dur,
                        int (*cmp)(const void *, const void *), int *sorted) {
  int64_t i = 1;
  for (rec prev = {0}, cur = {0}; i < n; i++) {
    prev.start = start[i - 1];
    prev.end = xp_add_sat(start[i - 1], dur[i - 1]);
    prev.idx = i - 1;
    cur.start = start[i];
    cur.end = xp_add_sat(start[i], dur[i]);
    cur.idx = i;
    if (cmp(&prev, &cur) >= 0) break;
  }
  *sorted = i >= n;
  if (*sorted) return NULL;
  rec *r = xp_malloc(sizeof(rec) * (uint64_t)n);
  if (!r) return NULL;
  for (int64_t k = 0; k < n; k++) {
    r[k].start = start[k];
    r[k].end = xp_add_sat(start[k], dur[k]); /* callers pass dur >= 0; clamped, never wrapped */
    r[k].idx = k;
  }
  /* xp_sort: stopped by an interrupt (cancel.h), where qsort of a track of
  ** millions of events ran on for a third of a second; cmp is a total order
  ** (the index breaks ties), so the order is qsort's */
  if (!xp_sort(r, n, sizeof(rec), cmp)) {
    xp_free(r);
    return NULL;
  }
  return r;
}

/* Position k of the sorted order: the record when sorted_recs made one, else
** input position k itself. */
#define AT_IDX(k) (r ? r[k].idx : (k))
#define AT_START(k) (r ? r[k].start : start[k])
#define AT_END(k) (r ? r[k].end : xp_add_sat(start[k], dur[k]))

int xp_exclusive_times(int64_t n, const int64_t *start, const int64_t *dur, int64_t *self_out) {
  int sorted;
  rec *r = sorted_recs(n, start, dur, by_start_end_desc, &sorted);
  if (!r && !sorted) return 0;
  /* the stack of open events (positions in the sorted order) and the summed
  ** duration of each one's children; as deep as the nesting, grown on demand */
  typedef struct open_event {
    int64_t pos, end, kids;
  } open_event;
  open_event *stack = NULL;
  int64_t cap = 0, top = 0;
#define CLOSE()                                                  \
  do {                                                           \
    const open_event *c = &stack[top - 1];                       \
    int64_t idx = AT_IDX(c->pos), s = dur[idx] - c->kids;        \
    self_out[idx] = s > 0 ? s : 0;                               \
    top--;                                                       \
  } while (0)
  for (int64_t i = 0; i < n; i++) {
    if ((i & 4095) == 4095 && xp_cancelled()) { /* long loops stop on an interrupt (cancel.h) */
      xp_free(stack);
      xp_free(r);
      return 0;
    }
    int64_t s = AT_START(i), e = AT_END(i);
    while (top && stack[top - 1].end <= s) CLOSE();
    while (top && stack[top - 1].end < e) CLOSE();
    if (top) stack[top - 1].kids = xp_add_sat(stack[top - 1].kids, dur[AT_IDX(i)]);
    if (top == cap && !xp_grow((void **)&stack, &cap, top + 1, sizeof(*stack))) {
      xp_free(stack);
      xp_free(r);
      return 0;
    }
    stack[top].pos = i;
    stack[top].end = e;
    stack[top].kids = 0;
    top++;
  }
  while (top) CLOSE();
#undef CLOSE
  xp_free(stack);
  xp_free(r);
  return 1;
}

int xp_pre_op_gaps(int64_t n, const int64_t *start, const int64_t *dur, const uint8_t *marker_like,
                   int64_t *gap_out, int64_t *payload_out) {
  int sorted;
  rec *r = sorted_recs(n, start, dur, by_start_end_asc, &sorted);
  if (!r && !sorted) return 0;
  int64_t max_end = 0;
  for (int64_t k = 0; k < n; k++) {
    if ((k & 4095) == 4095 && xp_cancelled()) { /* long loops stop on an interrupt (cancel.h) */
      xp_free(r);
      return 0;
    }
    int64_t i = AT_IDX(k), s = AT_START(k), e = AT_END(k);
    gap_out[i] = 0;
    payload_out[i] = -1;
    if (k > 0 && s > max_end) {
      gap_out[i] = xp_sub_sat(s, max_end);
      int64_t payload = i;
      if (marker_like[i]) {
        int64_t chain_end = e;
        for (int64_t j = k + 1; j < n && j <= k + XP_PAYLOAD_LOOKAHEAD; j++) {
          if (AT_START(j) > chain_end) break; /* a second idle period: never bridge it */
          if (AT_END(j) > chain_end) chain_end = AT_END(j);
          if (!marker_like[AT_IDX(j)]) {
            payload = AT_IDX(j);
            break;
          }
        }
      }
      payload_out[i] = payload;
    }
    if (k == 0 || e > max_end) max_end = e;
  }
  xp_free(r);
  return 1;
}

#undef AT_IDX
#undef AT_START
#undef AT_END
