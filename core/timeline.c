/*
** timeline.c: exclusive time and pre-op gaps over one track (see timeline.h).
*/
#include "timeline.h"

#include <stdlib.h>

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

static rec *sorted_recs(int64_t n, const int64_t *start, const int64_t *dur,
                        int (*cmp)(const void *, const void *)) {
  rec *r = xp_malloc(sizeof(rec) * (uint64_t)(n ? n : 1));
  if (!r) return NULL;
  for (int64_t i = 0; i < n; i++) {
    r[i].start = start[i];
    r[i].end = xp_add_sat(start[i], dur[i]); /* callers pass dur >= 0; clamped, never wrapped */
    r[i].idx = i;
  }
  /* Events of one line are usually written in time order: skip the sort
  ** when the records already are in order (one comparison each). */
  int64_t i = 1;
  while (i < n && cmp(&r[i - 1], &r[i]) < 0) i++;
  if (i < n) qsort(r, (size_t)n, sizeof(rec), cmp);
  return r;
}

int xp_exclusive_times(int64_t n, const int64_t *start, const int64_t *dur, int64_t *self_out) {
  rec *r = sorted_recs(n, start, dur, by_start_end_desc);
  /* stack of positions in r, and the children's summed duration of each */
  int64_t *stack = xp_malloc(sizeof(int64_t) * 2 * (uint64_t)(n ? n : 1));
  if (!r || !stack) {
    xp_free(r);
    xp_free(stack);
    return 0;
  }
  int64_t *kids = stack + n;
  int64_t top = 0;
#define CLOSE()                                                           \
  do {                                                                    \
    const rec *c = &r[stack[top - 1]];                                    \
    int64_t s = dur[c->idx] - kids[top - 1];                              \
    self_out[c->idx] = s > 0 ? s : 0;                                     \
    top--;                                                                \
  } while (0)
  for (int64_t i = 0; i < n; i++) {
    while (top && r[stack[top - 1]].end <= r[i].start) CLOSE();
    while (top && r[stack[top - 1]].end < r[i].end) CLOSE();
    if (top) kids[top - 1] = xp_add_sat(kids[top - 1], dur[r[i].idx]);
    stack[top] = i;
    kids[top] = 0;
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
  rec *r = sorted_recs(n, start, dur, by_start_end_asc);
  if (!r) return 0;
  int64_t max_end = 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t i = r[k].idx;
    gap_out[i] = 0;
    payload_out[i] = -1;
    if (k > 0 && r[k].start > max_end) {
      gap_out[i] = xp_sub_sat(r[k].start, max_end);
      int64_t payload = i;
      if (marker_like[i]) {
        int64_t chain_end = r[k].end;
        for (int64_t j = k + 1; j < n && j <= k + XP_PAYLOAD_LOOKAHEAD; j++) {
          if (r[j].start > chain_end) break; /* a second idle period: never bridge it */
          if (r[j].end > chain_end) chain_end = r[j].end;
          if (!marker_like[r[j].idx]) {
            payload = r[j].idx;
            break;
          }
        }
      }
      payload_out[i] = payload;
    }
    if (k == 0 || r[k].end > max_end) max_end = r[k].end;
  }
  xp_free(r);
  return 1;
}
