/*
** result.c: built text as SQL results (see result.h).
*/
#include "result.h"

#include <string.h>

SQLITE_EXTENSION_INIT3

int xp_buf_sqlite_rc(const xp_buf *b) {
  switch (xp_buf_errcode(b)) {
    case XP_BUF_OK: return SQLITE_OK;
    case XP_BUF_TOOBIG: return SQLITE_TOOBIG;
    default: return SQLITE_NOMEM;
  }
}

int64_t xp_result_max_length(sqlite3 *db) {
  int64_t lim = db ? sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1) : (int64_t)XP_BUF_MAX;
  return lim < (int64_t)XP_BUF_MAX ? lim : (int64_t)XP_BUF_MAX;
}

char *xp_error_text_at(sqlite3 *db, int rc, const char *where) {
  if (rc == SQLITE_TOOBIG)
    return sqlite3_mprintf("%s: the text would be longer than SQLite's length limit (%lld bytes)", where,
                           (long long)xp_result_max_length(db));
  return sqlite3_mprintf("%s: out of memory", where);
}

void xp_result_error_at(sqlite3_context *ctx, int rc, const char *where) {
  char *msg = where ? xp_error_text_at(sqlite3_context_db_handle(ctx), rc, where) : NULL;
  if (!msg) {
    if (rc == SQLITE_TOOBIG) sqlite3_result_error_toobig(ctx);
    else sqlite3_result_error_nomem(ctx);
    return;
  }
  /* The message first: sqlite3_result_error_code keeps it and sets the code
  ** (it writes sqlite3ErrStr(code) only over a NULL result;
  ** sqlite3_result_error_nomem would replace the message with "out of
  ** memory"). */
  sqlite3_result_error(ctx, msg, -1);
  sqlite3_result_error_code(ctx, rc);
  sqlite3_free(msg);
}

void xp_result_buf_at(sqlite3_context *ctx, xp_buf *b, int empty, const char *where) {
  int rc = xp_buf_sqlite_rc(b);
  size_t n = xp_buf_length(b);
  char *z = xp_buf_finish(b);
  /* SQLite refuses a text past the connection's length limit itself, as
  ** "string or blob too big": the same code, said here with the name. */
  if (rc == SQLITE_OK && where && (int64_t)n > xp_result_max_length(sqlite3_context_db_handle(ctx))) rc = SQLITE_TOOBIG;
  if (rc != SQLITE_OK) {
    xp_free(z);
    xp_result_error_at(ctx, rc, where);
  } else if (!z) {
    if (empty == XP_EMPTY_IS_NULL) sqlite3_result_null(ctx);
    else sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
  } else {
    sqlite3_result_text64(ctx, z, (sqlite3_uint64)n, xp_free, SQLITE_UTF8);
  }
}

int xp_value_has_nul(sqlite3_value *v) {
  int t = sqlite3_value_type(v);
  if (t != SQLITE_TEXT && t != SQLITE_BLOB) return 0;
  const char *z = (const char *)sqlite3_value_text(v);
  int n = sqlite3_value_bytes(v);
  return z && n > 0 && memchr(z, 0, (size_t)n) != NULL;
}
