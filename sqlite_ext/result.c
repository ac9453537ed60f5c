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

void xp_result_buf(sqlite3_context *ctx, xp_buf *b, int empty) {
  int rc = xp_buf_sqlite_rc(b);
  size_t n = xp_buf_length(b);
  char *z = xp_buf_finish(b);
  if (rc == SQLITE_TOOBIG) {
    sqlite3_result_error_toobig(ctx);
  } else if (rc != SQLITE_OK) {
    sqlite3_result_error_nomem(ctx);
  } else if (!z) {
    if (empty == XP_EMPTY_IS_NULL) sqlite3_result_null(ctx);
    else sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
  } else {
    sqlite3_result_text64(ctx, z, (sqlite3_uint64)n, xp_free, SQLITE_UTF8);
  }
}
