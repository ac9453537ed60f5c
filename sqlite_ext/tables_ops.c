/*
** tables_ops.c: the device ops of a profile, one row per op invocation.
**
**   SELECT name, count(*), sum(self_ps) / 1e6 AS self_us
**     FROM xplane_ops('run/') GROUP BY name ORDER BY 3 DESC LIMIT 10;
**
** A device op is an analysis event on a device-op line (`XLA Ops`,
** `Async XLA Ops`, `Stream #...` of a `/device:` plane; analysis.h). Rows come
** from the per-profile cache of analysis.c: self time (exclusive, stack rule)
** and the pre-op gap are computed once per decode, on the line clock. Columns
** that need the op's stats (hlo_category, tf_op, flops, ...) read its effective
** stats only when the query uses them.
*/
#include <string.h>

#include "analysis.h"
#include "json.h"
#include "semantics.h"
#include "result.h"
#include "tables.h"

SQLITE_EXTENSION_INIT3

enum {
  O_PLANE_INDEX = XP_COL_FIRST_OWN, O_PLANE_NAME, O_LINE_INDEX, O_LINE_NAME, O_EVENT_INDEX, O_OP_ID,
  O_NAME, O_CANONICAL_NAME, O_LONG_NAME, O_CATEGORY, O_COLLECTIVE_KIND, O_HLO_CATEGORY,
  O_HLO_MODULE, O_PROGRAM_ID, O_TF_OP, O_SCOPE_PATH, O_SOURCE_FILE,
  O_SHAPE_SIGNATURE, O_FLOPS, O_BYTES_ACCESSED, O_START_PS, O_DUR_PS, O_END_PS, O_SELF_PS,
  O_GAP_BEFORE_PS, O_GAP_PAYLOAD_OP_ID, O_GAP_PAYLOAD_NAME, O_DEVICE_OFFSET_PS,
  O_DEVICE_DURATION_PS, O_CORRELATION_ID, O_STEP, O_STATS, O_N
};
static const char *const ops_cols[] = {
    "plane_index INTEGER", "plane_name TEXT", "line_index INTEGER", "line_name TEXT",
    "event_index INTEGER", "op_id INTEGER", "name TEXT", "canonical_name TEXT", "long_name TEXT",
    "category TEXT", "collective_kind TEXT", "hlo_category TEXT", "hlo_module TEXT",
    "program_id INTEGER", "tf_op TEXT", "scope_path TEXT",
    "source_file TEXT", "shape_signature TEXT", "flops", "bytes_accessed", "start_ps INTEGER",
    "dur_ps INTEGER", "end_ps INTEGER", "self_ps INTEGER", "gap_before_ps INTEGER",
    "gap_payload_op_id INTEGER", "gap_payload_name TEXT", "device_offset_ps INTEGER",
    "device_duration_ps INTEGER", "correlation_id INTEGER", "step INTEGER", "stats TEXT"};

typedef struct ops_state {
  const xp_op *ops;
  int64_t n, i;
  xp_statvec sv;
  int64_t sv_for;  /* op whose stats sv holds, -1 = none */
} ops_state;

static void ops_state_free(xp_cursor *cur) {
  ops_state *st = cur->state;
  xp_statvec_free(&st->sv);
}

static int op_passes(const xp_cursor *cur, const xp_op *o) {
  const xp_plane *pl = &cur->prof->planes[o->plane];
  return xp_filter_plane(cur, o->plane, pl) && xp_filter_line(cur, o->line, &pl->lines[o->line]) &&
         xp_filter_start(cur, o->start_ps);
}

static void seek_op(xp_cursor *cur, ops_state *st) {
  while (st->i < st->n && !op_passes(cur, &st->ops[st->i])) st->i++;
  cur->file_eof = st->i >= st->n;
}

static int ops_first(xp_cursor *cur) {
  ops_state *st = cur->state;
  st->n = xp_ops(cur->prof, &st->ops);
  if (st->n < 0) return SQLITE_NOMEM;
  st->i = 0;
  st->sv_for = -1;
  seek_op(cur, st);
  return SQLITE_OK;
}

static int ops_next(xp_cursor *cur) {
  ops_state *st = cur->state;
  st->i++;
  seek_op(cur, st);
  return SQLITE_OK;
}

/* The effective stats of op i (read once per row). */
static const xp_statvec *op_stats(xp_cursor *cur, ops_state *st, int64_t i) {
  if (st->sv_for == i) return &st->sv;
  if (!xp_op_stats(cur->prof, &st->ops[i], &st->sv)) return NULL;
  st->sv_for = i;
  return &st->sv;
}


static const char *const long_name_stat[] = {"long_name", NULL};

static void result_num_stat(sqlite3_context *ctx, const xp_stat *s) {
  if (s && s->type != XP_V_STR && s->type != XP_V_BYTES && s->type != XP_V_REF) xp_result_stat_value(ctx, s);
}

static void result_text_or_null(sqlite3_context *ctx, xp_str s) {
  if (s.p && s.n) xp_result_str(ctx, s);
}

/* Columns that read the op's effective stats. */
static int needs_stats(int col) {
  switch (col) {
    case O_LONG_NAME: case O_HLO_CATEGORY: case O_HLO_MODULE: case O_PROGRAM_ID: case O_TF_OP:
    case O_SCOPE_PATH: case O_SOURCE_FILE: case O_SHAPE_SIGNATURE: case O_FLOPS: case O_BYTES_ACCESSED:
    case O_DEVICE_OFFSET_PS: case O_DEVICE_DURATION_PS: case O_CORRELATION_ID: case O_STATS:
      return 1;
    default:
      return 0;
  }
}

static int ops_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  ops_state *st = cur->state;
  const xp_op *o = &st->ops[st->i];
  const xp_plane *pl = &cur->prof->planes[o->plane];
  xp_str name = xp_op_name(cur->prof, o);
  const xp_statvec *sv = NULL;
  if (needs_stats(col) && !(sv = op_stats(cur, st, st->i))) return SQLITE_NOMEM;
  xp_buf *s;
  switch (col) {
    case O_PLANE_INDEX: sqlite3_result_int64(ctx, o->plane); break;
    case O_PLANE_NAME: xp_result_str(ctx, pl->name); break;
    case O_LINE_INDEX: sqlite3_result_int64(ctx, o->line); break;
    case O_LINE_NAME: xp_result_str(ctx, pl->lines[o->line].name); break;
    case O_EVENT_INDEX: sqlite3_result_int64(ctx, o->event_index); break;
    case O_OP_ID: sqlite3_result_int64(ctx, st->i); break;
    case O_NAME: xp_result_str(ctx, name); break;
    case O_CANONICAL_NAME:
      s = xp_buf_new();
      xp_canonical_name(s, name.p, name.n);
      xp_cursor_result_buf(cur, ctx, col, s, XP_EMPTY_IS_TEXT);
      break;
    case O_LONG_NAME: result_text_or_null(ctx, xp_op_long_name(cur->prof, o, xp_stat_text(sv, long_name_stat))); break;
    case O_CATEGORY: sqlite3_result_text(ctx, xp_op_category_names[o->category], -1, SQLITE_STATIC); break;
    case O_COLLECTIVE_KIND:
      if (xp_is_communication(name.p, name.n))
        sqlite3_result_text(ctx, xp_collective_kind(name.p, name.n), -1, SQLITE_STATIC);
      break;
    case O_HLO_CATEGORY: {
      static const char *const k[] = {"hlo_category", NULL};
      result_text_or_null(ctx, xp_stat_text(sv, k));
      break;
    }
    case O_HLO_MODULE: {
      static const char *const k[] = {"hlo_module", NULL};
      result_text_or_null(ctx, xp_stat_text(sv, k));
      break;
    }
    case O_PROGRAM_ID: result_num_stat(ctx, xp_statvec_find(sv, "program_id")); break;
    case O_TF_OP: result_text_or_null(ctx, xp_op_tf_op(sv)); break;
    case O_SCOPE_PATH: {
      xp_str tf = xp_op_tf_op(sv);
      s = xp_buf_new();
      xp_scope_path(s, tf.p, tf.n, name.p, name.n, 0);
      xp_cursor_result_buf(cur, ctx, col, s, XP_EMPTY_IS_TEXT);
      break;
    }
    case O_SOURCE_FILE: result_text_or_null(ctx, xp_op_source_file(sv)); break;
    case O_SHAPE_SIGNATURE: {
      xp_str ln = xp_op_long_name(cur->prof, o, xp_stat_text(sv, long_name_stat));
      s = xp_buf_new();
      xp_shape_signature(s, ln.p, ln.n);
      xp_cursor_result_buf(cur, ctx, col, s, XP_EMPTY_IS_NULL);
      break;
    }
    case O_FLOPS: result_num_stat(ctx, xp_statvec_find(sv, "flops")); break;
    case O_BYTES_ACCESSED: result_num_stat(ctx, xp_statvec_find(sv, "bytes_accessed")); break;
    case O_START_PS: sqlite3_result_int64(ctx, o->start_ps); break;
    case O_DUR_PS: sqlite3_result_int64(ctx, o->dur_ps); break;
    case O_END_PS: sqlite3_result_int64(ctx, o->start_ps + o->dur_ps); break;
    case O_SELF_PS: sqlite3_result_int64(ctx, o->self_ps); break;
    case O_GAP_BEFORE_PS: sqlite3_result_int64(ctx, o->gap_ps); break;
    case O_GAP_PAYLOAD_OP_ID: if (o->payload >= 0) sqlite3_result_int64(ctx, o->payload); break;
    case O_GAP_PAYLOAD_NAME:
      if (o->payload >= 0) xp_result_str(ctx, xp_op_name(cur->prof, &st->ops[o->payload]));
      break;
    case O_DEVICE_OFFSET_PS: result_num_stat(ctx, xp_statvec_find(sv, "device_offset_ps")); break;
    case O_DEVICE_DURATION_PS: result_num_stat(ctx, xp_statvec_find(sv, "device_duration_ps")); break;
    case O_CORRELATION_ID: result_num_stat(ctx, xp_statvec_find(sv, "correlation_id")); break;
    case O_STEP: {
      const xp_step *steps;
      if (xp_steps(cur->prof, &steps) < 0) return SQLITE_NOMEM;
      if (o->step >= 0) sqlite3_result_int64(ctx, steps[o->step].number);
      break;
    }
    case O_STATS:
      s = xp_buf_new();
      xp_json_stats(s, sv);
      xp_cursor_result_buf(cur, ctx, col, s, XP_EMPTY_IS_TEXT);
      break;
  }
  return SQLITE_OK;
}

static int prepare_ops(xp_profile *p) {
  const xp_op *ops;
  return xp_ops(p, &ops) >= 0;
}

XP_CHECK_COLUMNS(ops_cols, O_N);
const xp_table xp_table_ops = {
    .name = "xplane_ops",
    .columns = ops_cols,
    .n_columns = O_N + 1,
    .needs_profile = 1,
    .push = {.plane_index = O_PLANE_INDEX, .plane_name = O_PLANE_NAME,
             .line_index = O_LINE_INDEX, .line_name = O_LINE_NAME, .start_ps = O_START_PS},
    .state_size = sizeof(ops_state),
    .first = ops_first,
    .next = ops_next,
    .column = ops_column,
    .state_free = ops_state_free,
    .prepare = prepare_ops,
};

/* ---- xplane_steps ----
**
**   SELECT step, dur_ps / 1e6 AS us FROM xplane_steps('run/') ORDER BY step;
**
** One row per step per device: a `Steps` line event of a device (source
** 'steps_line'), else a host `train` annotation with a step_num stat (source
** 'host_annotation': one row per device plane with ops, each with the
** annotation's start and duration and the breakdown of that device's ops
** launched within it, matched by correlation_id), else an `XLA Modules` run
** of a device (source 'module', numbered in time order). The breakdown sums the self time of the device ops
** assigned to the step by category; idle_ps is the rest of the step.
*/

enum {
  ST_PLANE_INDEX = XP_COL_FIRST_OWN, ST_PLANE_NAME, ST_STEP, ST_SOURCE, ST_START_PS, ST_DUR_PS,
  ST_END_PS, ST_N_OPS, ST_COMPUTE_PS, ST_COMMUNICATION_PS, ST_STALL_PS, ST_IDLE_PS, ST_N
};
static const char *const steps_cols[] = {
    "plane_index INTEGER", "plane_name TEXT", "step INTEGER", "source TEXT", "start_ps INTEGER",
    "dur_ps INTEGER", "end_ps INTEGER", "n_ops INTEGER", "compute_ps INTEGER",
    "communication_ps INTEGER", "stall_ps INTEGER", "idle_ps INTEGER"};

typedef struct steps_state {
  const xp_step *steps;
  int64_t n, i;
} steps_state;

static void seek_step(xp_cursor *cur, steps_state *st) {
  while (st->i < st->n) {
    const xp_step *s = &st->steps[st->i];
    if (xp_filter_plane(cur, s->plane, &cur->prof->planes[s->plane]) && xp_filter_start(cur, s->start_ps)) break;
    st->i++;
  }
  cur->file_eof = st->i >= st->n;
}

static int steps_first(xp_cursor *cur) {
  steps_state *st = cur->state;
  st->n = xp_steps(cur->prof, &st->steps);
  if (st->n < 0) return SQLITE_NOMEM;
  st->i = 0;
  seek_step(cur, st);
  return SQLITE_OK;
}

static int steps_next(xp_cursor *cur) {
  steps_state *st = cur->state;
  st->i++;
  seek_step(cur, st);
  return SQLITE_OK;
}

static int steps_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  static const char *const sources[] = {"steps_line", "host_annotation", "module"};
  steps_state *st = cur->state;
  const xp_step *s = &st->steps[st->i];
  int64_t busy = s->compute_ps + s->communication_ps + s->stall_ps;
  switch (col) {
    case ST_PLANE_INDEX: sqlite3_result_int64(ctx, s->plane); break;
    case ST_PLANE_NAME: xp_result_str(ctx, cur->prof->planes[s->plane].name); break;
    case ST_STEP: sqlite3_result_int64(ctx, s->number); break;
    case ST_SOURCE: sqlite3_result_text(ctx, sources[s->source], -1, SQLITE_STATIC); break;
    case ST_START_PS: sqlite3_result_int64(ctx, s->start_ps); break;
    case ST_DUR_PS: sqlite3_result_int64(ctx, s->dur_ps); break;
    case ST_END_PS: sqlite3_result_int64(ctx, s->start_ps + s->dur_ps); break;
    case ST_N_OPS: sqlite3_result_int64(ctx, s->n_ops); break;
    case ST_COMPUTE_PS: sqlite3_result_int64(ctx, s->compute_ps); break;
    case ST_COMMUNICATION_PS: sqlite3_result_int64(ctx, s->communication_ps); break;
    case ST_STALL_PS: sqlite3_result_int64(ctx, s->stall_ps); break;
    case ST_IDLE_PS: sqlite3_result_int64(ctx, s->dur_ps > busy ? s->dur_ps - busy : 0); break;
  }
  return SQLITE_OK;
}

static int prepare_steps(xp_profile *p) {
  const xp_step *steps;
  return xp_steps(p, &steps) >= 0;
}

XP_CHECK_COLUMNS(steps_cols, ST_N);
const xp_table xp_table_steps = {
    .name = "xplane_steps",
    .columns = steps_cols,
    .n_columns = ST_N + 1,
    .needs_profile = 1,
    .push = {.plane_index = ST_PLANE_INDEX, .plane_name = ST_PLANE_NAME, .start_ps = ST_START_PS},
    .state_size = sizeof(steps_state),
    .first = steps_first,
    .next = steps_next,
    .column = steps_column,
    .prepare = prepare_steps,
};

/* ---- xplane_scopes ----
**
**   SELECT scope_path, depth, inclusive_ps / 1e6 FROM xplane_scopes('run/') LIMIT 20;
**
** The hierarchical named-scope regions of a profile's device ops: each op's
** path comes from its tf_op name stack (jit(...) & co. unwrapped, runtime
** noise dropped; else its name split on "=>" or "::"; else its canonical name),
** every prefix of it is a region (count, inclusive = the ops' exclusive time),
** the full path also gets exclusive time, and regions deeper than 1 with one
** child of the same inclusive time are pruned. `parent` is the nearest
** surviving ancestor's path (parent_path). Rows come ordered by (inclusive desc, exclusive
** desc, path).
*/

enum {
  SC_PATH = XP_COL_FIRST_OWN, SC_DEPTH, SC_PARENT, SC_COUNT, SC_INCLUSIVE_PS, SC_EXCLUSIVE_PS, SC_N
};
static const char *const scopes_cols[] = {"scope_path TEXT", "depth INTEGER", "parent_path TEXT", "count INTEGER",
                                          "inclusive_ps INTEGER", "exclusive_ps INTEGER"};

typedef struct scopes_state {
  const xp_scope *scopes;
  int64_t n, i;
} scopes_state;

static int scopes_first(xp_cursor *cur) {
  scopes_state *st = cur->state;
  st->n = xp_scopes(cur->prof, &st->scopes);
  if (st->n < 0) return SQLITE_NOMEM;
  st->i = 0;
  cur->file_eof = st->n == 0;
  return SQLITE_OK;
}

static int scopes_next(xp_cursor *cur) {
  scopes_state *st = cur->state;
  cur->file_eof = ++st->i >= st->n;
  return SQLITE_OK;
}

static int scopes_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  scopes_state *st = cur->state;
  const xp_scope *s = &st->scopes[st->i];
  switch (col) {
    case SC_PATH: sqlite3_result_text(ctx, s->path, -1, SQLITE_TRANSIENT); break;
    case SC_DEPTH: sqlite3_result_int(ctx, s->depth); break;
    case SC_PARENT:
      if (s->parent >= 0) sqlite3_result_text(ctx, st->scopes[s->parent].path, -1, SQLITE_TRANSIENT);
      break;
    case SC_COUNT: sqlite3_result_int64(ctx, s->count); break;
    case SC_INCLUSIVE_PS: sqlite3_result_int64(ctx, s->inclusive_ps); break;
    case SC_EXCLUSIVE_PS: sqlite3_result_int64(ctx, s->exclusive_ps); break;
  }
  return SQLITE_OK;
}

static int prepare_scopes(xp_profile *p) {
  const xp_scope *scopes;
  return xp_scopes(p, &scopes) >= 0;
}

XP_CHECK_COLUMNS(scopes_cols, SC_N);
const xp_table xp_table_scopes = {
    .name = "xplane_scopes",
    .columns = scopes_cols,
    .n_columns = SC_N + 1,
    .needs_profile = 1,
    .state_size = sizeof(scopes_state),
    .first = scopes_first,
    .next = scopes_next,
    .column = scopes_column,
    .prepare = prepare_scopes,
};
