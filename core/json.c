/*
** json.c: JSON text builders (see json.h).
*/
#include "json.h"

SQLITE_EXTENSION_INIT3

void xp_json_string(sqlite3_str *s, const char *p, size_t n) {
  static const char hex[] = "0123456789abcdef";
  sqlite3_str_appendchar(s, 1, '"');
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    sqlite3_str_append(s, p + run, (int)(i - run));
    run = i + 1;
    switch (c) {
      case '"': sqlite3_str_appendall(s, "\\\""); break;
      case '\\': sqlite3_str_appendall(s, "\\\\"); break;
      case '\n': sqlite3_str_appendall(s, "\\n"); break;
      case '\t': sqlite3_str_appendall(s, "\\t"); break;
      case '\r': sqlite3_str_appendall(s, "\\r"); break;
      default: {
        char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
        sqlite3_str_appendall(s, u);
      }
    }
  }
  sqlite3_str_append(s, p + run, (int)(n - run));
  sqlite3_str_appendchar(s, 1, '"');
}

void xp_json_stat_value(sqlite3_str *s, const xp_stat *st) {
  static const char hex[] = "0123456789abcdef";
  switch (st->type) {
    case XP_V_DOUBLE: {
      double d = st->num.d;
      if (d != d || d > 1.7976931348623157e308 || d < -1.7976931348623157e308)
        sqlite3_str_appendall(s, "null");
      else
        sqlite3_str_appendf(s, "%!.17g", d);
      break;
    }
    case XP_V_UINT64: sqlite3_str_appendf(s, "%llu", (unsigned long long)st->num.u); break;
    case XP_V_INT64: sqlite3_str_appendf(s, "%lld", (long long)st->num.i); break;
    case XP_V_STR:
    case XP_V_REF: xp_json_string(s, st->s.p, st->s.n); break;
    case XP_V_BYTES:
      sqlite3_str_appendchar(s, 1, '"');
      for (size_t i = 0; i < st->s.n; i++) {
        unsigned char c = (unsigned char)st->s.p[i];
        char h[3] = {hex[c >> 4], hex[c & 15], 0};
        sqlite3_str_appendall(s, h);
      }
      sqlite3_str_appendchar(s, 1, '"');
      break;
    default: sqlite3_str_appendall(s, "null"); break;
  }
}

void xp_json_stats(sqlite3_str *s, const xp_statvec *sv) {
  sqlite3_str_appendchar(s, 1, '{');
  for (int i = 0; i < sv->n; i++) {
    const xp_stat *st = &sv->v[i];
    if (i) sqlite3_str_appendchar(s, 1, ',');
    if (st->name.n) {
      xp_json_string(s, st->name.p, st->name.n);
    } else {
      sqlite3_str_appendf(s, "\"#%lld\"", (long long)st->metadata_id);
    }
    sqlite3_str_appendchar(s, 1, ':');
    xp_json_stat_value(s, st);
  }
  sqlite3_str_appendchar(s, 1, '}');
}

void xp_json_str_array(sqlite3_str *s, const xp_str *v, int n) {
  sqlite3_str_appendchar(s, 1, '[');
  for (int i = 0; i < n; i++) {
    if (i) sqlite3_str_appendchar(s, 1, ',');
    xp_json_string(s, v[i].p, v[i].n);
  }
  sqlite3_str_appendchar(s, 1, ']');
}

void xp_json_i64_array(sqlite3_str *s, const int64_t *v, int n) {
  sqlite3_str_appendchar(s, 1, '[');
  for (int i = 0; i < n; i++) sqlite3_str_appendf(s, i ? ",%lld" : "%lld", (long long)v[i]);
  sqlite3_str_appendchar(s, 1, ']');
}

void xp_result_json(sqlite3_context *ctx, sqlite3_str *s) {
  int n = sqlite3_str_length(s);
  char *z = sqlite3_str_finish(s);
  if (!z && n == 0) z = sqlite3_mprintf("");
  if (!z) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, z, n, sqlite3_free);
}
