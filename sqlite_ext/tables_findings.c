/*
** tables_findings.c: xplane_findings(path), the classic performance killers
** of each profile, one row per finding (core/findings.c has the rules;
** schema/TABLES.md the columns and the default thresholds).
**
**   SELECT id, severity, plane_name, subject, share, suggestion
**     FROM xplane_findings('run/') ORDER BY id;
**   SELECT * FROM xplane_findings('run/', 'tiny_kernel_us=2,hot_op_share=0.01');
**
** The second argument (hidden column `params`) sets thresholds by name
** (core/findings.h, xp_find_params_parse); it is parsed once per scan,
** before any file is read, and a bad name or value is an SQL error naming
** it. The findings of a profile are computed once per scan of that file (in
** `first`) and freed with the cursor state; no filter is pushed down
** (vtab.c's plan consumes path and params). A clean profile has no row.
*/
#include "findings.h"
#include "tables.h"

SQLITE_EXTENSION_INIT3

enum {
  F_ID = XP_COL_FIRST_OWN, F_SEVERITY, F_PLANE_INDEX, F_PLANE_NAME, F_SUBJECT, F_COUNT, F_OF_TOTAL, F_TIME_PS,
  F_SHARE, F_BYTES, F_START_PS, F_END_PS, F_EVIDENCE, F_OPS, F_STEPS, F_SUGGESTION, F_N
};
static const char *const findings_cols[] = {
    "id TEXT",         "severity TEXT", "plane_index INTEGER", "plane_name TEXT", "subject TEXT",
    "count INTEGER",   "of_total INTEGER", "time_ps INTEGER",  "share REAL",      "bytes INTEGER",
    "start_ps INTEGER", "end_ps INTEGER", "evidence TEXT",     "ops TEXT",        "steps TEXT",
    "suggestion TEXT"};

typedef struct findings_state {
  xp_finding *f;
  int64_t n, i;
  xp_find_params fp; /* this scan's thresholds */
} findings_state;

static void findings_state_free(xp_cursor *cur) {
  findings_state *st = cur->state;
  xp_findings_free(st->f, st->n);
  st->f = NULL;
  st->n = 0;
}

static int findings_first(xp_cursor *cur) {
  findings_state *st = cur->state;
  findings_state_free(cur);
  int64_t n = xp_findings(cur->prof, &st->fp, &st->f);
  if (n < 0) return SQLITE_NOMEM;
  st->n = n;
  st->i = 0;
  cur->file_eof = n == 0;
  return SQLITE_OK;
}

static int findings_params(xp_cursor *cur, const char *text) {
  findings_state *st = cur->state;
  xp_find_params_default(&st->fp);
  char *err = xp_find_params_parse(&st->fp, text);
  if (!err) return SQLITE_OK;
  int rc = xp_cursor_error(cur, "%s", err);
  xp_free(err);
  return rc;
}

static int findings_next(xp_cursor *cur) {
  findings_state *st = cur->state;
  cur->file_eof = ++st->i >= st->n;
  return SQLITE_OK;
}

static void text_or_null(sqlite3_context *ctx, const char *z) {
  if (z) sqlite3_result_text(ctx, z, -1, SQLITE_TRANSIENT);
}

static int findings_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  findings_state *st = cur->state;
  const xp_finding *f = &st->f[st->i];
  switch (col) {
    case F_ID: sqlite3_result_text(ctx, f->id, -1, SQLITE_STATIC); break;
    case F_SEVERITY: sqlite3_result_text(ctx, f->severity, -1, SQLITE_STATIC); break;
    case F_PLANE_INDEX: if (f->plane >= 0) sqlite3_result_int64(ctx, f->plane); break;
    case F_PLANE_NAME: if (f->plane >= 0) xp_result_str(ctx, cur->prof->planes[f->plane].name); break;
    case F_SUBJECT: text_or_null(ctx, f->subject); break;
    case F_COUNT: sqlite3_result_int64(ctx, f->count); break;
    case F_OF_TOTAL: if (f->of >= 0) sqlite3_result_int64(ctx, f->of); break;
    case F_TIME_PS: sqlite3_result_int64(ctx, f->time_ps); break;
    case F_SHARE: sqlite3_result_double(ctx, f->share); break;
    case F_BYTES: if (f->bytes >= 0) sqlite3_result_int64(ctx, f->bytes); break;
    case F_START_PS: sqlite3_result_int64(ctx, f->start_ps); break;
    case F_END_PS: sqlite3_result_int64(ctx, f->end_ps); break;
    case F_EVIDENCE: text_or_null(ctx, f->evidence); break;
    case F_OPS: text_or_null(ctx, f->ops); break;
    case F_STEPS: text_or_null(ctx, f->steps); break;
    case F_SUGGESTION: sqlite3_result_text(ctx, f->suggestion, -1, SQLITE_STATIC); break;
  }
  return SQLITE_OK;
}

XP_CHECK_COLUMNS(findings_cols, F_N);
const xp_table xp_table_findings = {
    .name = "xplane_findings",
    .columns = findings_cols,
    .n_columns = F_N + 1,
    .needs_profile = 1,
    .state_size = sizeof(findings_state),
    .first = findings_first,
    .next = findings_next,
    .column = findings_column,
    .state_free = findings_state_free,
    .params = findings_params,
};
