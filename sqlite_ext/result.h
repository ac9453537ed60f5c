/*
** result.h: how the binding hands text built in core (an xp_buf) to SQLite.
**
** xp_result_buf is the one way every table column and SQL function returns
** built text: it frees the buffer and reports a failed build as
** SQLITE_NOMEM or SQLITE_TOOBIG, never as '' or NULL.
*/
#ifndef XPLANE_RESULT_H
#define XPLANE_RESULT_H

#include "sqlite3ext.h"

#include "util.h"

enum { XP_EMPTY_IS_TEXT = 0, XP_EMPTY_IS_NULL = 1 };

/* Make b's text the result of ctx and free b. An empty text gives '' (or NULL
** with XP_EMPTY_IS_NULL); a failed build gives the matching SQLite error. */
void xp_result_buf(sqlite3_context *ctx, xp_buf *b, int empty);
/* The same, and a failed build's error says where it happened: "<where>: out
** of memory" (SQLITE_NOMEM) or "<where>: the text would be longer than
** SQLite's length limit (<XP_BUF_MAX> bytes)" (SQLITE_TOOBIG). where NULL:
** SQLite's own messages, as xp_result_buf. */
void xp_result_buf_at(sqlite3_context *ctx, xp_buf *b, int empty, const char *where);
/* Make ctx's result the error `rc` (SQLITE_NOMEM or SQLITE_TOOBIG, as above)
** with a message naming `where`; the code stays rc. */
void xp_result_error_at(sqlite3_context *ctx, int rc, const char *where);
/* The message of that error ("<where>: out of memory", ...), sqlite3_malloc'd
** (NULL when out of memory). */
char *xp_error_text_at(int rc, const char *where);
/* The SQLite code for a failed buffer (SQLITE_NOMEM / SQLITE_TOOBIG), or
** SQLITE_OK. */
int xp_buf_sqlite_rc(const xp_buf *b);

#endif
