/*
** escape.h: names from a profile made safe where they are printed: in a
** terminal, in a markdown report, in HTML. Plain C, no SQLite (the SQL
** functions xplane_md_code, xplane_md_cell and xplane_html of
** sqlite_ext/functions_format.c are a thin layer over these).
**
** A profile's op, line, plane, host and run names are bytes someone else
** wrote: markup, table pipes, backticks, newlines, terminal escapes (ESC,
** CSI, OSC, BEL), ill-formed UTF-8, bidirectional overrides. Every function
** here first makes the text printable:
**   - ill-formed UTF-8: one U+FFFD per maximal subpart (util.h: xp_utf8_next,
**     the rule of the JSON outputs);
**   - C0 controls U+0000..U+001F and DEL: their Control Pictures (U+2400 +
**     c, U+2421), so a newline reads as "␊", ESC as "␛", NUL as "␀";
**   - C1 controls U+0080..U+009F (a terminal reads U+009B as CSI) and the
**     bidirectional embeddings, overrides and isolates (U+202A..U+202E,
**     U+2066..U+2069), which reorder what is shown: U+FFFD.
** Everything else is kept as it is. Each appends to an xp_buf (util.h).
*/
#ifndef XP_ESCAPE_H
#define XP_ESCAPE_H

#include <stddef.h>

#include "util.h"

/* The printable text of s[0..n). */
void xp_printable(xp_buf *b, const char *s, size_t n);

/* s[0..n) as one markdown (CommonMark / GFM) code span: the printable text
** between delimiters of one backtick more than its longest run of
** backticks, with a space inside each delimiter when the text begins or
** ends with a backtick or a space and is not all spaces (CommonMark strips
** one space on each side then); an empty name is "` `". in_table: the span sits in a GFM table cell,
** where every `|` must be `\|` (GFM reads the cell's pipes before the
** spans; a renderer shows `|`). Outside a table a `|` stays as it is. */
void xp_md_code(xp_buf *b, const char *s, size_t n, int in_table);

/* s[0..n) as HTML text or attribute value: the printable text with & < > "
** and ' as character references. */
void xp_html_text(xp_buf *b, const char *s, size_t n);

#endif
