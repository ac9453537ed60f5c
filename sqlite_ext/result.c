/*
** result.c: built text as SQL results (see result.h).
*/
#include "result.h"

SQLITE_EXTENSION_INIT3

int xp_buf_sqlite_rc(const xp_buf *b) {
  switch (xp_buf_errcode(b)) {
    case XP_BUF_OK: return SQLITE_OK;
    case XP_BUF_TOOBIG: return SQLITE_TOOBIG;
    default: return SQLITE_NOMEM;
  }
}

char *xp_error_text_at(int rc, const char *where) {
  if (rc == SQLITE_TOOBIG)
    return sqlite3_mprintf("%s: the text would be longer than SQLite's length limit (%lld bytes)", where,
                           (long long)XP_BUF_MAX);
  return sqlite3_mprintf("%s: out of memory", where);
}

void xp_result_error_at(sqlite3_context *ctx, int rc, const char *where) {
  char *msg = where ? xp_error_text_at(rc, where) : NULL;
  if (!msg) {
    if (rc == SQLITE_TOOBIG) sqlite3_result_error_toobig(ctx);
    else sqlite3_result_error_nomem(ctx);
    return;
  }
  /* The message first: sqlite3_result_error_code keeps it and sets the code
  ** (sqlite3_result_error_nomem would replace it with "out of memory"). */
  sqlite3_result_error(ctx, msg, -1);
  sqlite3_result_error_code(ctx, rc);
  sqlite3_free(msg);
}

void xp_result_buf(sqlite3_context *ctx, xp_buf *b, int empty) { xp_result_buf_at(ctx, b, empty, NULL); }

void xp_result_buf_at(sqlite3_context *ctx, xp_buf *b, int empty, const char *where) {
  int rc = xp_buf_sqlite_rc(b);
  size_t n = xp_buf_length(b);
  char *z = xp_buf_finish(b);
  if (rc != SQLITE_OK) {
    xp_result_error_at(ctx, rc, where);
  } else if (!z) {
    if (empty == XP_EMPTY_IS_NULL) sqlite3_result_null(ctx);
    else sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
  } else {
    sqlite3_result_text64(ctx, z, (sqlite3_uint64)n, xp_free, SQLITE_UTF8);
  }
}
