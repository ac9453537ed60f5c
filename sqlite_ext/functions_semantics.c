/*
** functions_semantics.c: the analysis rules as deterministic SQL functions,
** usable on any text (ours, a filtered subset, another tool's slices).
**
**   xplane_canonical_name(name)            'fusion.12' -> 'fusion'
**   xplane_op_category(name)               stall | communication | compute
**   xplane_event_category(plane, name)     stall | host | communication | compute | other
**   xplane_device_class(line, name)        compute | communication | transfer | other (device_time.h)
**   xplane_op_family(line, name)           transfer | collective | attention | convolution | matmul |
**                                          fusion | other (device_time.h)
**   xplane_is_communication(name)          1 / 0
**   xplane_is_stall(name)                  1 / 0
**   xplane_collective_kind(name)           all-reduce | all-gather | ... | other-collective
**   xplane_marker_like(name)               1 when a cheap setup op (iota, constant, copy-start...)
**   xplane_scope_path(tf_op, name [, d])   'train_step=>layer_0=>attn' (first d parts)
**   xplane_shape_signature(long_name)      'f32[8,128]|bf16[4]' -> '8,128|4', NULL if none
**   xplane_flop_proxy(family, signature)   FLOP proxy per invocation, NULL if none
**   xplane_semantic_family(text)           attention_flash | fusion | copy | ... | other
**   xplane_finding_rules()                 '["recompilation","host_bound",...]': the rule
**                                          ids of xplane_findings (core/findings.h)
**
** NULL arguments are read as empty text. The rules are in semantics.c.
** Each registration passes the function's SQL name as its user data, so an
** out-of-memory or too-big error says "<name>: out of memory" (result.h).
*/
#include <string.h>

#include "functions.h"
#include "result.h"
#include "device_time.h"
#include "findings.h"
#include "semantics.h"

SQLITE_EXTENSION_INIT3

/* Argument i as text (NULL as ''); 0, with ctx's result the error naming
** the function, when SQLite cannot make the text (out of memory). */
static int arg_text(sqlite3_context *ctx, sqlite3_value **argv, int i, const char **z, size_t *n) {
  *z = (const char *)sqlite3_value_text(argv[i]);
  *n = *z ? (size_t)sqlite3_value_bytes(argv[i]) : 0;
  if (*z) return 1;
  *z = "";
  if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return 1;
  xp_result_error_at(ctx, SQLITE_NOMEM, sqlite3_user_data(ctx));
  return 0;
}

static void fn_canonical_name(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  size_t n;
  const char *z;
  if (!arg_text(ctx, argv, 0, &z, &n)) return;
  xp_buf *s = xp_buf_new();
  xp_canonical_name(s, z, n);
  xp_result_buf_at(ctx, s, XP_EMPTY_IS_TEXT, sqlite3_user_data(ctx));
}

static void fn_op_category(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  size_t n;
  const char *z;
  if (!arg_text(ctx, argv, 0, &z, &n)) return;
  sqlite3_result_text(ctx, xp_op_category(z, n), -1, SQLITE_STATIC);
}

static void fn_device_class(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  size_t ln, n;
  const char *line, *z;
  if (!arg_text(ctx, argv, 0, &line, &ln)) return;
  if (!arg_text(ctx, argv, 1, &z, &n)) return;
  sqlite3_result_text(ctx, xp_dt_class_names[xp_device_op_class(line, ln, z, n)], -1, SQLITE_STATIC);
}

static void fn_op_family(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  size_t ln, n;
  const char *line, *z;
  if (!arg_text(ctx, argv, 0, &line, &ln)) return;
  if (!arg_text(ctx, argv, 1, &z, &n)) return;
  sqlite3_result_text(ctx, xp_op_family_names[xp_op_family(line, ln, z, n)], -1, SQLITE_STATIC);
}

static void fn_event_category(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  size_t pn, n;
  const char *plane;
  if (!arg_text(ctx, argv, 0, &plane, &pn)) return;
  const char *z;
  if (!arg_text(ctx, argv, 1, &z, &n)) return;
  sqlite3_result_text(ctx, xp_event_category(plane, pn, z, n), -1, SQLITE_STATIC);
}

static void fn_is_communication(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  size_t n;
  const char *z;
  if (!arg_text(ctx, argv, 0, &z, &n)) return;
  sqlite3_result_int(ctx, xp_is_communication(z, n));
}

static void fn_is_stall(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  size_t n;
  const char *z;
  if (!arg_text(ctx, argv, 0, &z, &n)) return;
  sqlite3_result_int(ctx, xp_is_stall(z, n));
}

static void fn_collective_kind(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  size_t n;
  const char *z;
  if (!arg_text(ctx, argv, 0, &z, &n)) return;
  sqlite3_result_text(ctx, xp_collective_kind(z, n), -1, SQLITE_STATIC);
}

static void fn_marker_like(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  size_t n;
  const char *z;
  if (!arg_text(ctx, argv, 0, &z, &n)) return;
  sqlite3_result_int(ctx, xp_marker_like_n(z, n));
}

static void fn_scope_path(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  size_t tn, n;
  const char *tf;
  if (!arg_text(ctx, argv, 0, &tf, &tn)) return;
  const char *z;
  if (!arg_text(ctx, argv, 1, &z, &n)) return;
  int depth = argc > 2 ? sqlite3_value_int(argv[2]) : 0;
  if (depth < 0) depth = 0;
  xp_buf *s = xp_buf_new();
  xp_scope_path(s, tf, tn, z, n, depth);
  xp_result_buf_at(ctx, s, XP_EMPTY_IS_TEXT, sqlite3_user_data(ctx));
}

static void fn_shape_signature(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  size_t n;
  const char *z;
  if (!arg_text(ctx, argv, 0, &z, &n)) return;
  xp_buf *s = xp_buf_new();
  xp_shape_signature(s, z, n);
  xp_result_buf_at(ctx, s, XP_EMPTY_IS_NULL, sqlite3_user_data(ctx));
}

static void fn_flop_proxy(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  size_t fn, n;
  const char *family;
  if (!arg_text(ctx, argv, 0, &family, &fn)) return;
  const char *sig;
  if (!arg_text(ctx, argv, 1, &sig, &n)) return;
  double v = xp_flop_proxy(family, sig, n);
  if (v > 0) sqlite3_result_double(ctx, v);
}

static void fn_semantic_family(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  size_t n;
  const char *z;
  if (!arg_text(ctx, argv, 0, &z, &n)) return;
  sqlite3_result_text(ctx, xp_semantic_family(z, n), -1, SQLITE_STATIC);
}

#define XP_PURE (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)

static void fn_finding_rules(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  xp_buf *b = xp_buf_new();
  xp_buf_appendchar(b, 1, '[');
  for (int i = 0; xp_finding_rules[i]; i++) xp_buf_appendf(b, "%s\"%s\"", i ? "," : "", xp_finding_rules[i]);
  xp_buf_appendchar(b, 1, ']');
  xp_result_buf_at(ctx, b, XP_EMPTY_IS_TEXT, sqlite3_user_data(ctx));
}

static const struct {
  const char *name;
  int n_arg;
  void (*fn)(sqlite3_context *, int, sqlite3_value **);
} xp_semantic_functions[] = {
    {"xplane_canonical_name", 1, fn_canonical_name},
    {"xplane_op_category", 1, fn_op_category},
    {"xplane_device_class", 2, fn_device_class},
    {"xplane_op_family", 2, fn_op_family},
    {"xplane_event_category", 2, fn_event_category},
    {"xplane_is_communication", 1, fn_is_communication},
    {"xplane_is_stall", 1, fn_is_stall},
    {"xplane_collective_kind", 1, fn_collective_kind},
    {"xplane_marker_like", 1, fn_marker_like},
    {"xplane_scope_path", 2, fn_scope_path},
    {"xplane_scope_path", 3, fn_scope_path},
    {"xplane_shape_signature", 1, fn_shape_signature},
    {"xplane_flop_proxy", 2, fn_flop_proxy},
    {"xplane_semantic_family", 1, fn_semantic_family},
    {"xplane_finding_rules", 0, fn_finding_rules},
};

int xp_register_semantic_functions(sqlite3 *db) {
  int rc = SQLITE_OK;
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof(xp_semantic_functions) / sizeof(xp_semantic_functions[0]); i++)
    rc = sqlite3_create_function(db, xp_semantic_functions[i].name, xp_semantic_functions[i].n_arg, XP_PURE,
                                 (void *)xp_semantic_functions[i].name, xp_semantic_functions[i].fn, NULL, NULL);
  return rc;
}
