/*
** json.h: the JSON text the tables return (stats objects, string arrays).
**
** Values keep their meaning: integers as integers (uint64 beyond int64 as its
** exact decimal), doubles with 17 significant digits (NaN and infinities as
** null), strings and resolved ref values as strings, bytes as lower-case hex.
** The text is always valid UTF-8 and valid JSON, whatever the profile holds:
** each ill-formed UTF-8 sequence of a name or string becomes one U+FFFD
** (util.h: xp_utf8_next), control characters \u escapes.
*/
#ifndef XPLANE_JSON_H
#define XPLANE_JSON_H

#include "util.h"

#include "profile.h"

void xp_json_string(xp_buf *s, const char *p, size_t n);
void xp_json_stat_value(xp_buf *s, const xp_stat *st);
/* {"name": value, ...}; a stat whose id names nothing is keyed "#<id>". */
void xp_json_stats(xp_buf *s, const xp_statvec *sv);
void xp_json_str_array(xp_buf *s, const xp_str *v, int n);
void xp_json_i64_array(xp_buf *s, const int64_t *v, int n);

#endif
