/*
** functions_timeline.c: exclusive time and pre-op gap as SQL window functions
** over ANY rows (ours, a filtered subset, or another tool's table).
**
**   SELECT name, dur,
**          xplane_self_ps(ts, dur) OVER w AS self,
**          xplane_gap_ps(ts, dur) OVER w AS gap,
**          xplane_gap_payload(ts, dur, name) OVER w AS payload
**     FROM my_slices
**   WINDOW w AS (PARTITION BY track ORDER BY ts
**                ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING);
**
** Contract: PARTITION BY the track (the events that nest or queue on one
** timeline); the frame MUST be `ROWS BETWEEN CURRENT ROW AND UNBOUNDED
** FOLLOWING`, which hands the function the whole partition before the first
** row's value (any ORDER BY works: the function orders the rows itself by the
** rules of timeline.h). Arguments are integers in one unit (ps, ns: any, the
** result is in the same unit). A row with a NULL start or duration, or a
** negative duration, takes no part and gets NULL; a row whose start +
** duration overflows int64 is an error. Results:
**   xplane_self_ps      exclusive time (duration minus direct children)
**   xplane_gap_ps       idle time before the row when it starts after every
**                       earlier row of the track has ended (else 0)
**   xplane_gap_payload  for a row with a gap (a marker), the name of the op
**                       where work resumes (see xplane_canonical_name and the
**                       marker-like list); NULL for other rows
** Used without OVER, or with another frame, they raise an error. SQLite does
** not tell a function its frame; the calls do. The documented frame steps
** every row of the partition, then alternates xValue and xInverse: row k's
** value comes after exactly k inverses, one value per row, and no step
** follows a value. Every other frame breaks that pattern on some partition
** (RANGE/GROUPS frames: one value for several peer rows, seen as a skipped
** row; sliding or
** PRECEDING frames: a step after a value or a value without an inverse;
** EXCLUDE: no value at all), which is the error. A frame that produces the
** same calls as the documented one on a partition (one row; no ties) hands
** the function the same rows, so its values are the documented ones.
** One frame escapes: a frame spanning the whole partition with every row a
** peer (OVER (), OVER (PARTITION BY track)) makes the same calls as the
** documented frame up to its single xValue (every row stepped, no inverse),
** whose result SQLite then reuses for every row without another call: the
** two differ only after that value is out. SQLite ignores an error set in
** the xFinal of a window function (xFinal runs when the partition's
** accumulator is released; checked on 3.40.1 and 3.52.0), so xFinal cannot
** report it (it still tries). Such a partition of n > 1 rows gets row 0's
** value on every row.
** Errors name the function (the registration's kind picks its name in
** tl_names), e.g. "xplane_self_ps: out of memory" (SQLITE_NOMEM, result.h).
** The partition's arrays come from util.h's allocator, as the core's do (its
** XPLANE_FAIL_ALLOC_ABOVE test hook reaches them).
*/
#include <string.h>

#include "functions.h"
#include "result.h"
#include "semantics.h"
#include "cancel.h"
#include "timeline.h"

SQLITE_EXTENSION_INIT3

typedef enum { TL_SELF, TL_GAP, TL_PAYLOAD } tl_kind;

static const char *const tl_names[] = {"xplane_self_ps", "xplane_gap_ps", "xplane_gap_payload"};

typedef struct tl_state {
  int64_t n, cap;
  int64_t *start, *dur;   /* arrival order; dur < 0 marks a row taking no part */
  char **name;            /* TL_PAYLOAD only */
  int64_t *result;        /* by arrival: value, or payload index */
  int computed;
  int64_t removed;        /* xInverse calls = index of the current row */
  int64_t valued;         /* xValue calls so far */
  int misuse;             /* a call order no documented frame makes */
} tl_state;

/* The zero-initialized state SQLite keeps per partition. */
static tl_state *state_of(sqlite3_context *ctx, int create) {
  return sqlite3_aggregate_context(ctx, create ? sizeof(tl_state) : 0);
}

static int grow(tl_state *st, int with_names) {
  if (st->n < st->cap) return 1;
  int64_t nc = st->cap ? st->cap * 2 : 64;
  int64_t *s = xp_realloc(st->start, sizeof(int64_t) * (uint64_t)nc);
  if (!s) return 0;
  st->start = s;
  int64_t *d = xp_realloc(st->dur, sizeof(int64_t) * (uint64_t)nc);
  if (!d) return 0;
  st->dur = d;
  if (with_names) {
    char **nm = xp_realloc(st->name, sizeof(char *) * (uint64_t)nc);
    if (!nm) return 0;
    st->name = nm;
  }
  st->cap = nc;
  return 1;
}

static void tl_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  tl_kind kind = (tl_kind)(intptr_t)sqlite3_user_data(ctx);
  tl_state *st = state_of(ctx, 1);
  if (!st || !grow(st, kind == TL_PAYLOAD)) {
    xp_result_error_at(ctx, SQLITE_NOMEM, tl_names[kind]);
    return;
  }
  if (st->valued) st->misuse = 1; /* a step after a value: not the documented frame */
  int ok = sqlite3_value_type(argv[0]) != SQLITE_NULL && sqlite3_value_type(argv[1]) != SQLITE_NULL;
  st->start[st->n] = sqlite3_value_int64(argv[0]);
  st->dur[st->n] = ok ? sqlite3_value_int64(argv[1]) : -1;
  int64_t end;
  if (ok && st->dur[st->n] >= 0 && __builtin_add_overflow(st->start[st->n], st->dur[st->n], &end)) {
    char *msg = sqlite3_mprintf("%s: start %lld + duration %lld overflows a 64-bit integer", tl_names[kind],
                                (long long)st->start[st->n], (long long)st->dur[st->n]);
    sqlite3_result_error(ctx, msg ? msg : "window function: start + duration overflows", -1);
    sqlite3_free(msg);
    return;
  }
  if (kind == TL_PAYLOAD) {
    const unsigned char *z = argc > 2 ? sqlite3_value_text(argv[2]) : NULL;
    st->name[st->n] = sqlite3_mprintf("%s", z ? (const char *)z : "");
    if (!st->name[st->n]) {
      xp_result_error_at(ctx, SQLITE_NOMEM, tl_names[kind]);
      return;
    }
  }
  st->n++;
  st->computed = 0;
}

static void tl_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  tl_state *st = state_of(ctx, 1);
  if (st) st->removed++;
  else xp_result_error_at(ctx, SQLITE_NOMEM, tl_names[(tl_kind)(intptr_t)sqlite3_user_data(ctx)]);
}

/* Run the algorithm over the rows that take part; results by arrival index. */
static int compute(tl_state *st, tl_kind kind) {
  int64_t m = 0;
  int64_t *idx = xp_malloc(sizeof(int64_t) * 4 * (uint64_t)(st->n + 1));
  uint8_t *marker = kind == TL_SELF ? NULL : xp_malloc((uint64_t)st->n + 1);
  xp_free(st->result);
  st->result = xp_malloc(sizeof(int64_t) * (uint64_t)(st->n + 1));
  if (!idx || !st->result || (kind != TL_SELF && !marker)) {
    xp_free(idx);
    xp_free(marker);
    return 0;
  }
  int64_t *s = idx + st->n + 1, *d = s + st->n + 1, *out = d + st->n + 1;
  for (int64_t i = 0; i < st->n; i++) {
    st->result[i] = INT64_MIN; /* NULL */
    if (st->dur[i] < 0) continue;
    idx[m] = i;
    s[m] = st->start[i];
    d[m] = st->dur[i];
    if (marker) marker[m] = (uint8_t)xp_marker_like(st->name ? st->name[i] : "");
    m++;
  }
  int ok;
  if (kind == TL_SELF) {
    ok = xp_exclusive_times(m, s, d, out);
  } else {
    int64_t *gap = xp_malloc(sizeof(int64_t) * (uint64_t)(m + 1));
    ok = gap && xp_pre_op_gaps(m, s, d, marker, gap, out);
    for (int64_t k = 0; ok && k < m; k++) {
      if (kind == TL_GAP) out[k] = gap[k];
      else out[k] = out[k] >= 0 ? idx[out[k]] : INT64_MIN;
    }
    xp_free(gap);
  }
  for (int64_t k = 0; ok && k < m; k++) st->result[idx[k]] = out[k];
  xp_free(idx);
  xp_free(marker);
  st->computed = ok;
  return ok;
}

static void frame_error(sqlite3_context *ctx, tl_kind kind) {
  char *msg = sqlite3_mprintf("%s: the window frame must be ROWS BETWEEN CURRENT ROW AND "
                              "UNBOUNDED FOLLOWING", tl_names[kind]);
  sqlite3_result_error(ctx, msg ? msg : "window misuse", -1);
  sqlite3_free(msg);
}

static void tl_value(sqlite3_context *ctx) {
  tl_kind kind = (tl_kind)(intptr_t)sqlite3_user_data(ctx);
  tl_state *st = state_of(ctx, 1);
  if (!st) {
    xp_result_error_at(ctx, SQLITE_NOMEM, tl_names[kind]);
    return;
  }
  int64_t row = st->removed;
  /* row k's value must follow exactly k inverses and k earlier values */
  if (st->misuse || row != st->valued || row >= st->n) {
    st->misuse = 1;
    frame_error(ctx, kind);
    return;
  }
  st->valued++;
  if (!st->computed && !compute(st, kind)) {
    if (xp_cancel_stopped()) sqlite3_result_error_code(ctx, SQLITE_INTERRUPT); /* inside an interrupted scan */
    else xp_result_error_at(ctx, SQLITE_NOMEM, tl_names[kind]);
    return;
  }
  int64_t v = st->result[row];
  if (v == INT64_MIN) return; /* NULL */
  if (kind == TL_PAYLOAD) sqlite3_result_text(ctx, st->name[v], -1, SQLITE_TRANSIENT);
  else sqlite3_result_int64(ctx, v);
}

static void tl_final(sqlite3_context *ctx) {
  tl_kind kind = (tl_kind)(intptr_t)sqlite3_user_data(ctx);
  tl_state *st = state_of(ctx, 0);
  if (!st) return;
  if (st->n && !st->valued) {
    char *msg = sqlite3_mprintf("%s() is a window function: use it with OVER (PARTITION BY track "
                                "ORDER BY start ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)",
                                tl_names[kind]);
    sqlite3_result_error(ctx, msg ? msg : "window function used as aggregate", -1);
    sqlite3_free(msg);
  } else if (st->misuse || st->valued != st->n) {
    frame_error(ctx, kind); /* e.g. OVER (): one value for the whole partition */
  }
  if (st->name)
    for (int64_t i = 0; i < st->n; i++) sqlite3_free(st->name[i]);
  xp_free(st->name);
  xp_free(st->start);
  xp_free(st->dur);
  xp_free(st->result);
}

int xp_register_timeline_functions(sqlite3 *db) {
  static const struct {
    tl_kind kind;
    int n_arg;
  } fns[] = {{TL_SELF, 2}, {TL_GAP, 2}, {TL_PAYLOAD, 3}};
  int rc = SQLITE_OK;
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof(fns) / sizeof(fns[0]); i++)
    rc = sqlite3_create_window_function(db, tl_names[fns[i].kind], fns[i].n_arg,
                                        SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                        (void *)(intptr_t)fns[i].kind, tl_step, tl_final, tl_value,
                                        tl_inverse, NULL);
  return rc;
}
