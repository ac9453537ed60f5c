/*
** tables_hlo.c: xplane_hlo_instructions(path) and xplane_hlo_op_paths(path).
**
** xplane_hlo_instructions(path): the instructions of an
** HloProto file (`*.hlo_proto.pb`, XLA's optimized module dumped beside a
** profile), decoded by core/hlo.c, so device ops join to their HLO
** instruction, opcode and framework name stack:
**
**   SELECT o.name, h.opcode, h.op_name
**     FROM xplane_ops('run/host.xplane.pb') o
**     JOIN xplane_hlo_instructions('run/module.hlo_proto.pb') h ON h.name = o.name;
**
** The argument may also be a BLOB of HloProto bytes, e.g. the `Hlo Proto`
** stat of a JAX profile's /host:metadata plane (file, run, host NULL):
**
**   SELECT h.* FROM xplane_stats('run/') s, xplane_hlo_instructions(s.value) h
**    WHERE s.plane_name = '/host:metadata' AND s.name = 'Hlo Proto';
**
** Its own small eponymous table (not the profile machinery of vtab.c: the
** argument is one HLO file, not a profile path). SQLITE_VTAB_DIRECTONLY: it
** reads files, so it cannot be used from a view, trigger or CHECK constraint
** of a database; a connection confined by xplane_use_only takes blobs only. xBestIndex plan: the hidden `path` column must be given with
** `=` (idxNum 1, the value is argument 1); without it the plan is refused
** (SQLITE_CONSTRAINT), as a table-valued function needs its argument. A file
** that cannot be read, is larger than 2 GiB or is not an HloProto is an SQL
** error naming the file.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "aggregates.h"
#include "cache.h"
#include "hlo.h"
#include "interrupt.h"
#include "result.h"
#include "sqlite3ext.h"
#include "tables.h"
#include "util.h"

SQLITE_EXTENSION_INIT3

enum { C_FILE, C_RUN, C_HOST, C_MODULE, C_MODULE_ID, C_COMPUTATION, C_COMPUTATION_ID, C_IS_ENTRY, C_NAME, C_OPCODE, C_ID, C_SHAPE,
       C_FUSION_KIND, C_CUSTOM_CALL_TARGET, C_OP_TYPE, C_OP_NAME, C_SOURCE_FILE, C_SOURCE_LINE, C_IS_ROOT, C_CALLED,
       C_PATH };

typedef struct hlo_vtab {
  sqlite3_vtab base;
  sqlite3 *db;     /* the decode polls its interrupt (interrupt.h) */
  xp_cache *cache; /* the connection's: is it confined (xplane_use_only)? */
} hlo_vtab;

typedef struct hlo_cursor {
  sqlite3_vtab_cursor base;
  xp_hlo *h;
  int64_t i;
  char *file, *run, *host; /* as the other tables: the path, its directory's name, its name without .hlo_proto.pb */
} hlo_cursor;

static int hlo_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err) {
  (void)argc, (void)argv, (void)err;
  int rc = sqlite3_declare_vtab(db,
      "CREATE TABLE x(file TEXT, run TEXT, host TEXT, module TEXT, module_id INTEGER, computation TEXT, computation_id INTEGER, is_entry INTEGER,"
      " name TEXT, opcode TEXT, id INTEGER, shape TEXT, fusion_kind TEXT, custom_call_target TEXT, op_type TEXT,"
      " op_name TEXT, source_file TEXT, source_line INTEGER, is_root INTEGER, called_computations TEXT,"
      " path HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  hlo_vtab *v = sqlite3_malloc(sizeof(*v));
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof(*v));
  v->db = db;
  v->cache = aux;
  *out = &v->base;
  return SQLITE_OK;
}

static int hlo_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}

static int hlo_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  (void)v;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn == C_PATH && c->op == SQLITE_INDEX_CONSTRAINT_EQ) {
      if (!c->usable) return SQLITE_CONSTRAINT;
      info->aConstraintUsage[i].argvIndex = 1;
      info->aConstraintUsage[i].omit = 1;
      info->idxNum = 1;
      info->estimatedCost = 1000;
      return SQLITE_OK;
    }
  }
  info->idxNum = 0;
  info->estimatedCost = 1e12;
  return SQLITE_OK;
}

static int hlo_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
  (void)v;
  hlo_cursor *c = sqlite3_malloc(sizeof(*c));
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  *out = &c->base;
  return SQLITE_OK;
}

static void names_free(hlo_cursor *c) {
  sqlite3_free(c->file);
  sqlite3_free(c->run);
  sqlite3_free(c->host);
  c->file = c->run = c->host = NULL;
}

static int hlo_close(sqlite3_vtab_cursor *cur) {
  hlo_cursor *c = (hlo_cursor *)cur;
  names_free(c);
  xp_hlo_free(c->h);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int fail(sqlite3_vtab_cursor *cur, const char *path, const char *why) {
  sqlite3_free(cur->pVtab->zErrMsg);
  cur->pVtab->zErrMsg = sqlite3_mprintf("xplane_hlo_instructions: %s: %s", path, why);
  return SQLITE_ERROR;
}

/* Decode n bytes into the cursor's rows; an SQL error naming `what` when
** they are not an HloProto. */
static int decode(sqlite3_vtab_cursor *cur, const char *what, const void *buf, size_t n) {
  hlo_cursor *c = (hlo_cursor *)cur;
  char *err = NULL;
  xp_sql_cancel sc;
  xp_sql_cancel_enter(&sc, ((hlo_vtab *)cur->pVtab)->db);
  int ok = xp_hlo_decode(buf, n, &c->h, &err);
  int stopped = xp_sql_cancel_leave(&sc);
  if (stopped) { /* an interrupted decode (the core's loops poll; cancel.h) */
    xp_hlo_free(c->h);
    c->h = NULL;
    xp_free(err);
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf("%s", XP_CANCELLED_TEXT);
    return SQLITE_INTERRUPT;
  }
  if (!ok) {
    int rc = err ? fail(cur, what, err) : SQLITE_NOMEM;
    xp_free(err);
    return rc;
  }
  return SQLITE_OK;
}


static int hlo_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc, sqlite3_value **argv) {
  (void)idx_str;
  hlo_cursor *c = (hlo_cursor *)cur;
  xp_hlo_free(c->h);
  c->h = NULL;
  c->i = 0;
  if (idx != 1 || argc < 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL)
    return fail(cur, "(none)", "give the path of a .hlo_proto.pb file or an HloProto blob: xplane_hlo_instructions('<file>')");
  names_free(c);
  if (sqlite3_value_type(argv[0]) == SQLITE_BLOB) /* the bytes themselves: e.g. a profile's `Hlo Proto` stat */
    return decode(cur, "(blob)", sqlite3_value_bytes(argv[0]) ? sqlite3_value_blob(argv[0]) : "", (size_t)sqlite3_value_bytes(argv[0]));
  if (xp_cache_confined(((hlo_vtab *)cur->pVtab)->cache))
    return fail(cur, "(file)", "this connection is confined to one profile (xplane_use_only): give the HloProto as a blob "
                               "(the `Hlo Proto` stat of its metadata plane), not a file name");
  const char *path = (const char *)sqlite3_value_text(argv[0]);
  if (!path) return SQLITE_NOMEM;
  if (xp_value_has_nul(argv[0])) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf("xplane_hlo_instructions: " XP_NUL_PATH_TEXT);
    return SQLITE_ERROR;
  }
  {
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t bn = strlen(base), suffix = strlen(".hlo_proto.pb");
    if (bn > suffix && strcmp(base + bn - suffix, ".hlo_proto.pb") == 0) bn -= suffix;
    const char *dir_end = slash ? slash : path, *dir_start = dir_end;
    while (dir_start > path && dir_start[-1] != '/') dir_start--;
    c->file = sqlite3_mprintf("%s", path);
    c->host = sqlite3_mprintf("%.*s", (int)bn, base);
    c->run = sqlite3_mprintf("%.*s", (int)(dir_end - dir_start), dir_start);
    if (!c->file || !c->host || !c->run) return SQLITE_NOMEM;
  }
  FILE *f = fopen(path, "rb");
  if (!f) return fail(cur, path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    return fail(cur, path, "not a regular file");
  }
  if (st.st_size > (off_t)0x7fffffff) {
    fclose(f);
    return fail(cur, path, "too large for an HloProto (over 2 GiB)");
  }
  size_t n = (size_t)st.st_size;
  uint8_t *buf = xp_malloc(n ? n : 1);
  if (!buf) {
    fclose(f);
    return SQLITE_NOMEM;
  }
  size_t got = n ? fread(buf, 1, n, f) : 0;
  fclose(f);
  if (got != n) {
    xp_free(buf);
    return fail(cur, path, "short read (the file changed while being read)");
  }
  int rc = decode(cur, path, buf, n);
  xp_free(buf);
  return rc;
}

static int hlo_next(sqlite3_vtab_cursor *cur) {
  ((hlo_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int hlo_eof(sqlite3_vtab_cursor *cur) {
  hlo_cursor *c = (hlo_cursor *)cur;
  return !c->h || c->i >= c->h->n;
}

static void text_or_null(sqlite3_context *ctx, const char *z) {
  if (z && *z) sqlite3_result_text(ctx, z, -1, SQLITE_TRANSIENT);
}

static int hlo_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  hlo_cursor *c = (hlo_cursor *)cur;
  const xp_hlo_row *r = &c->h->rows[c->i];
  switch (col) {
    case C_FILE: sqlite3_result_text(ctx, c->file, -1, SQLITE_TRANSIENT); break;
    case C_RUN: sqlite3_result_text(ctx, c->run, -1, SQLITE_TRANSIENT); break;
    case C_HOST: sqlite3_result_text(ctx, c->host, -1, SQLITE_TRANSIENT); break;
    case C_MODULE: text_or_null(ctx, r->module); break;
    case C_MODULE_ID: sqlite3_result_int64(ctx, r->module_id); break;
    case C_COMPUTATION: text_or_null(ctx, r->computation); break;
    case C_COMPUTATION_ID: sqlite3_result_int64(ctx, r->computation_id); break;
    case C_IS_ENTRY: sqlite3_result_int(ctx, r->is_entry); break;
    case C_NAME: text_or_null(ctx, r->name); break;
    case C_OPCODE: text_or_null(ctx, r->opcode); break;
    case C_ID: sqlite3_result_int64(ctx, r->id); break;
    case C_SHAPE: text_or_null(ctx, r->shape); break;
    case C_FUSION_KIND: text_or_null(ctx, r->fusion_kind); break;
    case C_CUSTOM_CALL_TARGET: text_or_null(ctx, r->custom_call_target); break;
    case C_OP_TYPE: text_or_null(ctx, r->op_type); break;
    case C_OP_NAME: text_or_null(ctx, r->op_name); break;
    case C_SOURCE_FILE: text_or_null(ctx, r->source_file); break;
    case C_SOURCE_LINE: if (r->source_line) sqlite3_result_int(ctx, r->source_line); break;
    case C_IS_ROOT: sqlite3_result_int(ctx, r->is_root); break;
    case C_CALLED: sqlite3_result_text(ctx, r->called, -1, SQLITE_TRANSIENT); break;
  }
  return SQLITE_OK;
}

static int hlo_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = ((hlo_cursor *)cur)->i;
  return SQLITE_OK;
}

static const sqlite3_module hlo_module = {
    .iVersion = 0,
    .xCreate = NULL, /* eponymous only */
    .xConnect = hlo_connect,
    .xBestIndex = hlo_best_index,
    .xDisconnect = hlo_disconnect,
    .xDestroy = hlo_disconnect,
    .xOpen = hlo_open,
    .xClose = hlo_close,
    .xFilter = hlo_filter,
    .xNext = hlo_next,
    .xEof = hlo_eof,
    .xColumn = hlo_column,
    .xRowid = hlo_rowid,
};

int xp_register_hlo_table(sqlite3 *db, xp_cache *cache) {
  xp_cache_retain(cache); /* only for xplane_use_only's refusal of file names */
  return sqlite3_create_module_v2(db, "xplane_hlo_instructions", &hlo_module, cache, xp_cache_release_data);
}

/* ---- xplane_hlo_op_paths(path): the reference's HLO-proto rewrite ----
** One row per device-op name of each profile whose kernel name
** (gemm_fusion_dot[._]N, gemm_fusion_dot_general[._]N) is voted a
** `jit(train_step)/...dot_general` path by the HloProto files beside the
** profile (core/hlo.h, xp_hlo_kernel_paths): the path the reference gives
** such hot ops (and their device-op regions) when their own is generic. No
** rows without an HLO proto in the profile's directory. */


typedef struct kp_state {
  xp_hlo_kernel_path *map;
  int64_t n_map;
  xp_hlo_op_path *rows;
  int64_t n, i;
} kp_state;

enum { KP_NAME = XP_COL_FIRST_OWN, KP_KERNEL, KP_PATH, KP_VOTES, KP_N };
static const char *const kp_cols[] = {"name TEXT", "kernel TEXT", "tf_op_path TEXT", "votes INTEGER"};

static void kp_free(xp_cursor *cur) {
  kp_state *st = cur->state;
  xp_hlo_kernel_paths_free(st->map, st->n_map);
  xp_free(st->rows);
  memset(st, 0, sizeof(*st));
}

static int kp_prepare(xp_profile *p) {
  const xp_op_group *g;
  return xp_op_groups(p, &g) >= 0;
}

static int kp_first(xp_cursor *cur) {
  kp_state *st = cur->state;
  kp_free(cur);
  char *err = NULL;
  st->n = xp_hlo_op_paths(cur->prof, cur->file->path, &st->map, &st->n_map, &st->rows, &err);
  if (st->n < 0) {
    st->n = 0;
    int rc = err ? xp_cursor_error(cur, "xplane_hlo_op_paths: %s", err) : SQLITE_NOMEM;
    xp_free(err);
    return rc;
  }
  cur->file_eof = st->n == 0;
  return SQLITE_OK;
}

static int kp_next(xp_cursor *cur) {
  kp_state *st = cur->state;
  cur->file_eof = ++st->i >= st->n;
  return SQLITE_OK;
}

static int kp_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  kp_state *st = cur->state;
  const xp_hlo_op_path *r = &st->rows[st->i];
  switch (col) {
    case KP_NAME: xp_result_str(ctx, r->name); break;
    case KP_KERNEL: sqlite3_result_text(ctx, r->kernel, -1, SQLITE_TRANSIENT); break;
    case KP_PATH: sqlite3_result_text(ctx, r->path, -1, SQLITE_TRANSIENT); break;
    case KP_VOTES: sqlite3_result_int64(ctx, r->votes); break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_hlo_op_paths = {
    .name = "xplane_hlo_op_paths",
    .columns = kp_cols,
    .n_columns = KP_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .state_size = sizeof(kp_state),
    .first = kp_first,
    .next = kp_next,
    .column = kp_column,
    .state_free = kp_free,
    .prepare = kp_prepare,
};
