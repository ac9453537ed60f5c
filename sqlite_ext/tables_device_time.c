/*
** tables_device_time.c: the device-time model as a table (core/device_time.h
** computes it once per decode; this file only binds the rows).
**
**   SELECT plane_name, wall_ps / 1e9 AS wall_ms, duty_cycle,
**          compute_ps * 1.0 / busy_ps AS compute_share_of_busy
**     FROM xplane_device_time('run/host0.xplane.pb');
**
** One row per device: a `/device:` plane with busy-line ops, or on the CPU
** backend one row per device_ordinal (device_kind 'cpu'). Times in ps;
** busy_ps <= wall_ps, idle_ps = wall_ps - busy_ps, and compute_ps +
** communication_ps + transfer_ps + other_ps = busy_ps on every row;
** duty_cycle = busy_ps / wall_ps (NULL when wall_ps is 0).
** xplane_step_time (below): the steps, each on its device, split the same
** way. No filter is pushed down: each table is a small cached list per
** profile.
*/
#include "device_time.h"
#include "result.h"
#include "tables.h"

SQLITE_EXTENSION_INIT3

typedef struct dt_state {
  const xp_device_time *rows;
  int64_t n, i;
} dt_state;

enum { T_PLANE_INDEX, T_PLANE_NAME, T_KIND, T_ORDINAL, T_N_OPS, T_FIRST, T_LAST, T_WALL, T_BUSY, T_IDLE,
       T_COMPUTE, T_COMM, T_TRANSFER, T_OTHER, T_DUTY, T_OP_TIME, T_ASYNC, T_N0 };
enum { T_BASE = XP_COL_FIRST_OWN, T_N = XP_COL_FIRST_OWN + T_N0 };
static const char *const dt_cols[] = {
    "plane_index INTEGER", "plane_name TEXT", "device_kind TEXT", "device_ordinal INTEGER", "n_ops INTEGER",
    "first_ps INTEGER", "last_ps INTEGER", "wall_ps INTEGER", "busy_ps INTEGER", "idle_ps INTEGER",
    "compute_ps INTEGER", "communication_ps INTEGER", "transfer_ps INTEGER", "other_ps INTEGER",
    "duty_cycle REAL", "op_time_ps INTEGER", "async_ps INTEGER"};

static int prepare_dt(xp_profile *p) {
  const xp_device_time *rows;
  return xp_device_times(p, &rows) >= 0;
}

static int dt_first(xp_cursor *cur) {
  dt_state *st = cur->state;
  st->n = xp_device_times(cur->prof, &st->rows);
  if (st->n < 0) return SQLITE_NOMEM;
  st->i = 0;
  cur->file_eof = st->n == 0;
  return SQLITE_OK;
}

static int dt_next(xp_cursor *cur) {
  dt_state *st = cur->state;
  cur->file_eof = ++st->i >= st->n;
  return SQLITE_OK;
}

static int dt_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  dt_state *st = cur->state;
  const xp_device_time *d = st->rows + st->i;
  switch (col - T_BASE) {
    case T_PLANE_INDEX: sqlite3_result_int64(ctx, d->plane); break;
    case T_PLANE_NAME: xp_result_str(ctx, cur->prof->planes[d->plane].name); break;
    case T_KIND: sqlite3_result_text(ctx, xp_dt_kind_names[d->kind], -1, SQLITE_STATIC); break;
    case T_ORDINAL: if (d->device_ordinal >= 0) sqlite3_result_int64(ctx, d->device_ordinal); break;
    case T_N_OPS: sqlite3_result_int64(ctx, d->n_ops); break;
    case T_FIRST: sqlite3_result_int64(ctx, d->first_ps); break;
    case T_LAST: sqlite3_result_int64(ctx, d->last_ps); break;
    case T_WALL: sqlite3_result_int64(ctx, d->wall_ps); break;
    case T_BUSY: sqlite3_result_int64(ctx, d->busy_ps); break;
    case T_IDLE: sqlite3_result_int64(ctx, d->idle_ps); break;
    case T_COMPUTE: sqlite3_result_int64(ctx, d->class_ps[XP_DT_COMPUTE]); break;
    case T_COMM: sqlite3_result_int64(ctx, d->class_ps[XP_DT_COMMUNICATION]); break;
    case T_TRANSFER: sqlite3_result_int64(ctx, d->class_ps[XP_DT_TRANSFER]); break;
    case T_OTHER: sqlite3_result_int64(ctx, d->class_ps[XP_DT_OTHER]); break;
    case T_DUTY: if (d->wall_ps > 0) sqlite3_result_double(ctx, (double)d->busy_ps / (double)d->wall_ps); break;
    case T_OP_TIME: sqlite3_result_int64(ctx, d->op_time_ps); break;
    case T_ASYNC: sqlite3_result_int64(ctx, d->async_ps); break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_device_time = {
    .name = "xplane_device_time",
    .columns = dt_cols,
    .n_columns = T_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .state_size = sizeof(dt_state),
    .first = dt_first,
    .next = dt_next,
    .column = dt_column,
    .prepare = prepare_dt,
};

/* ---- xplane_step_time ----
**
**   SELECT step, dur_ps / 1e9 AS ms, 100.0 * idle_ps / dur_ps AS idle_pct
**     FROM xplane_step_time('run/host0.xplane.pb') WHERE plane_index = 0;
**
** One row per step per device: the steps of xplane_steps (one source, the
** first of a device Steps line, host StepTraceAnnotation `train` events, XLA
** module runs), each on the device it belongs to, its window split like the
** device's busy time: compute_ps + communication_ps + transfer_ps +
** other_ps + idle_ps = dur_ps on every row. Steps of no duration are left
** out. Rows device by device, each device's steps by start.
*/
typedef struct sts_state {
  const xp_step_time *rows;
  const xp_device_time *dev;
  const xp_step *steps;
  int64_t n, i;
} sts_state;

enum { S_PLANE_INDEX, S_PLANE_NAME, S_KIND, S_ORDINAL, S_STEP, S_SOURCE, S_START, S_DUR, S_BUSY, S_COMPUTE,
       S_COMM, S_TRANSFER, S_OTHER, S_IDLE, S_N0 };
enum { S_BASE = XP_COL_FIRST_OWN, S_N = XP_COL_FIRST_OWN + S_N0 };
static const char *const sts_cols[] = {
    "plane_index INTEGER", "plane_name TEXT", "device_kind TEXT", "device_ordinal INTEGER", "step INTEGER",
    "source TEXT", "start_ps INTEGER", "dur_ps INTEGER", "busy_ps INTEGER", "compute_ps INTEGER",
    "communication_ps INTEGER", "transfer_ps INTEGER", "other_ps INTEGER", "idle_ps INTEGER"};

static int prepare_sts(xp_profile *p) {
  const xp_step_time *rows;
  return xp_step_times(p, &rows) >= 0;
}

static int sts_first(xp_cursor *cur) {
  sts_state *st = cur->state;
  st->n = xp_step_times(cur->prof, &st->rows);
  if (st->n < 0 || xp_device_times(cur->prof, &st->dev) < 0 || xp_steps(cur->prof, &st->steps) < 0)
    return SQLITE_NOMEM;
  st->i = 0;
  cur->file_eof = st->n == 0;
  return SQLITE_OK;
}

static int sts_next(xp_cursor *cur) {
  sts_state *st = cur->state;
  cur->file_eof = ++st->i >= st->n;
  return SQLITE_OK;
}

static int sts_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  static const char *const sources[] = {"steps_line", "host_annotation", "module"};
  sts_state *st = cur->state;
  const xp_step_time *r = st->rows + st->i;
  const xp_device_time *d = st->dev + r->device;
  const xp_step *s = st->steps + r->step;
  switch (col - S_BASE) {
    case S_PLANE_INDEX: sqlite3_result_int64(ctx, d->plane); break;
    case S_PLANE_NAME: xp_result_str(ctx, cur->prof->planes[d->plane].name); break;
    case S_KIND: sqlite3_result_text(ctx, xp_dt_kind_names[d->kind], -1, SQLITE_STATIC); break;
    case S_ORDINAL: if (d->device_ordinal >= 0) sqlite3_result_int64(ctx, d->device_ordinal); break;
    case S_STEP: sqlite3_result_int64(ctx, s->number); break;
    case S_SOURCE: sqlite3_result_text(ctx, sources[s->source], -1, SQLITE_STATIC); break;
    case S_START: sqlite3_result_int64(ctx, s->start_ps); break;
    case S_DUR: sqlite3_result_int64(ctx, s->dur_ps); break;
    case S_BUSY: sqlite3_result_int64(ctx, s->dur_ps - r->idle_ps); break;
    case S_COMPUTE: sqlite3_result_int64(ctx, r->class_ps[XP_DT_COMPUTE]); break;
    case S_COMM: sqlite3_result_int64(ctx, r->class_ps[XP_DT_COMMUNICATION]); break;
    case S_TRANSFER: sqlite3_result_int64(ctx, r->class_ps[XP_DT_TRANSFER]); break;
    case S_OTHER: sqlite3_result_int64(ctx, r->class_ps[XP_DT_OTHER]); break;
    case S_IDLE: sqlite3_result_int64(ctx, r->idle_ps); break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_step_time = {
    .name = "xplane_step_time",
    .columns = sts_cols,
    .n_columns = S_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .state_size = sizeof(sts_state),
    .first = sts_first,
    .next = sts_next,
    .column = sts_column,
    .prepare = prepare_sts,
};
