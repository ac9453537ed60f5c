/*
** json.c: JSON text builders (see json.h).
*/
#include "json.h"


/* A JSON string of the bytes p[0..n): always valid UTF-8 (json.h). */
void xp_json_string(xp_buf *s, const char *p, size_t n) {
  static const char hex[] = "0123456789abcdef";
  xp_buf_appendchar(s, 1, '"');
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    if (c >= 0x80) {
      uint32_t cp;
      int k = xp_utf8_next((const unsigned char *)p + i, n - i, &cp);
      if (k > 0) {
        i += (size_t)k - 1; /* well-formed: copied with the run */
        continue;
      }
      xp_buf_append(s, p + run, i - run);
      xp_buf_append(s, "\xef\xbf\xbd", 3); /* ill-formed: one U+FFFD per maximal subpart */
      i += (size_t)-k - 1;
      run = i + 1;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    xp_buf_append(s, p + run, (int)(i - run));
    run = i + 1;
    switch (c) {
      case '"': xp_buf_appendall(s, "\\\""); break;
      case '\\': xp_buf_appendall(s, "\\\\"); break;
      case '\n': xp_buf_appendall(s, "\\n"); break;
      case '\t': xp_buf_appendall(s, "\\t"); break;
      case '\r': xp_buf_appendall(s, "\\r"); break;
      default: {
        char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};
        xp_buf_appendall(s, u);
      }
    }
  }
  xp_buf_append(s, p + run, (int)(n - run));
  xp_buf_appendchar(s, 1, '"');
}

void xp_json_stat_value(xp_buf *s, const xp_stat *st) {
  static const char hex[] = "0123456789abcdef";
  switch (st->type) {
    case XP_V_DOUBLE: {
      double d = st->num.d;
      if (d != d || d > 1.7976931348623157e308 || d < -1.7976931348623157e308)
        xp_buf_appendall(s, "null");
      else
        xp_buf_append_g17(s, d);
      break;
    }
    case XP_V_UINT64: xp_buf_appendf(s, "%llu", (unsigned long long)st->num.u); break;
    case XP_V_INT64: xp_buf_appendf(s, "%lld", (long long)st->num.i); break;
    case XP_V_STR:
    case XP_V_REF: xp_json_string(s, st->s.p, st->s.n); break;
    case XP_V_BYTES:
      xp_buf_appendchar(s, 1, '"');
      for (size_t i = 0; i < st->s.n; i++) {
        unsigned char c = (unsigned char)st->s.p[i];
        char h[3] = {hex[c >> 4], hex[c & 15], 0};
        xp_buf_appendall(s, h);
      }
      xp_buf_appendchar(s, 1, '"');
      break;
    default: xp_buf_appendall(s, "null"); break;
  }
}

void xp_json_stats(xp_buf *s, const xp_statvec *sv) {
  xp_buf_appendchar(s, 1, '{');
  for (int i = 0; i < sv->n; i++) {
    const xp_stat *st = &sv->v[i];
    if (i) xp_buf_appendchar(s, 1, ',');
    if (st->name.n) {
      xp_json_string(s, st->name.p, st->name.n);
    } else {
      xp_buf_appendf(s, "\"#%lld\"", (long long)st->metadata_id);
    }
    xp_buf_appendchar(s, 1, ':');
    xp_json_stat_value(s, st);
  }
  xp_buf_appendchar(s, 1, '}');
}

void xp_json_str_array(xp_buf *s, const xp_str *v, int n) {
  xp_buf_appendchar(s, 1, '[');
  for (int i = 0; i < n; i++) {
    if (i) xp_buf_appendchar(s, 1, ',');
    xp_json_string(s, v[i].p, v[i].n);
  }
  xp_buf_appendchar(s, 1, ']');
}

void xp_json_i64_array(xp_buf *s, const int64_t *v, int n) {
  xp_buf_appendchar(s, 1, '[');
  for (int i = 0; i < n; i++) xp_buf_appendf(s, i ? ",%lld" : "%lld", (long long)v[i]);
  xp_buf_appendchar(s, 1, ']');
}
