/*
** result.h: how the binding hands text built in core (an xp_buf) to SQLite.
**
** xp_result_buf_at is the one way every table column and SQL function returns
** built text: it frees the buffer and reports a failed build as
** SQLITE_NOMEM or SQLITE_TOOBIG, never as '' or NULL, with a message naming
** where it happened (the table, file and column; the function).
*/
#ifndef XPLANE_RESULT_H
#define XPLANE_RESULT_H

#include "sqlite3ext.h"

#include "util.h"

enum { XP_EMPTY_IS_TEXT = 0, XP_EMPTY_IS_NULL = 1 };

/* Make b's text the result of ctx and free b. An empty text gives '' (or NULL
** with XP_EMPTY_IS_NULL); a failed build gives the matching SQLite error,
** whose message says where it happened: "<where>: out of memory"
** (SQLITE_NOMEM) or "<where>: the text would be longer than SQLite's length
** limit (<L> bytes)" (SQLITE_TOOBIG; L is the connection's
** SQLITE_LIMIT_LENGTH, at most XP_BUF_MAX). A text longer than that limit is
** the same SQLITE_TOOBIG (SQLite itself would refuse it as "string or blob
** too big", naming nothing). where NULL: SQLite's own messages. */
void xp_result_buf_at(sqlite3_context *ctx, xp_buf *b, int empty, const char *where);
/* Make ctx's result the error `rc` (SQLITE_NOMEM or SQLITE_TOOBIG, as above)
** with a message naming `where` (a function: its SQL name); the code stays
** rc. SQLite gives a function no way to learn its own name: each
** registration passes it (functions.h). */
void xp_result_error_at(sqlite3_context *ctx, int rc, const char *where);
/* The message of that error ("<where>: out of memory", ...), sqlite3_malloc'd
** (NULL when out of memory); db NULL: the limit named is XP_BUF_MAX. */
char *xp_error_text_at(sqlite3 *db, int rc, const char *where);
/* The longest text a result of db may hold: its SQLITE_LIMIT_LENGTH, at
** most XP_BUF_MAX (db NULL: XP_BUF_MAX). */
int64_t xp_result_max_length(sqlite3 *db);
/* The SQLite code for a failed buffer (SQLITE_NOMEM / SQLITE_TOOBIG), or
** SQLITE_OK. */
int xp_buf_sqlite_rc(const xp_buf *b);
/* 1 when v is a text or blob holding a NUL byte before its end: as a path it
** would name only its part before the NUL (a C string), a different file
** than the one written. Callers refuse it: "<fn>: " XP_NUL_PATH_TEXT. */
int xp_value_has_nul(sqlite3_value *v);
#define XP_NUL_PATH_TEXT "the path holds a NUL byte: no file is named so"

#endif
