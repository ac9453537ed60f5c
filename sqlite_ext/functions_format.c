/*
** functions_format.c: text formatting for the canned reports, matching what
** the field's Python reference prints, so SQL output is byte-comparable.
**
**   xplane_repr(x)            a number as Python's json.dumps writes it:
**                             integers as digits, doubles in shortest
**                             round-trip form ('60.0', '1e-05', '0.1')
**   xplane_format(x, spec)    Python format spec subset: '.3f', '.2%', '.3e',
**                             ',' (thousands), ',.1f'; NULL stays NULL
**   xplane_json_pretty(json)  json.dumps(obj, indent=2, sort_keys=True):
**                             keys sorted at every level, 2-space indent,
**                             non-ASCII escaped as \uXXXX, number tokens kept
**                             verbatim (build doubles with json(xplane_repr(x)));
**                             nesting past 500 levels is an error, and so
**                             (SQLITE_TOOBIG) is indentation past 8 times
**                             the input + 1 MiB
**   xplane_md_code(name)      a name from a profile as a markdown code span
**                             (core/escape.h: printable, the delimiter one
**                             backtick longer than its longest run):
**                             xplane_md_code('a`b') = '``a`b``'
**   xplane_md_cell(name)      the same for a GFM table cell (`|` as `\|`):
**                             xplane_md_cell('a|b') = '`a\|b`'
**   xplane_html(name)         HTML text: printable, & < > " ' escaped:
**                             xplane_html('<b>') = '&lt;b&gt;'
**                             Each of the three: NULL stays NULL; a control
**                             character prints as its Control Picture
**                             (char(27) -> U+241B), ill-formed UTF-8 as U+FFFD.
**
** All are deterministic and innocuous. Each registration passes the
** function's SQL name as its user data: running out of memory, or a result
** past the connection's length limit, is "<name>: out of memory"
** (SQLITE_NOMEM) or "<name>: the text would be longer than SQLite's length
** limit (<L> bytes)" (SQLITE_TOOBIG; result.h).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "functions.h"
#include "result.h"

SQLITE_EXTENSION_INIT3

/* ---- numbers ---- */

/* Shortest round-trip digits of a finite double: writes the digits (no
** sign, no dot) and returns the decimal exponent decpt (value = 0.D * 10^decpt). */
static int shortest_digits(double x, char *digits, int *n_digits) {
  char buf[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof(buf), "%.*e", prec - 1, x);
    if (strtod(buf, NULL) == x || prec == 17) break;
  }
  /* buf = d[.ddd]e[+-]XX */
  int k = 0;
  const char *p = buf;
  for (; *p && *p != 'e'; p++)
    if (*p >= '0' && *p <= '9') digits[k++] = *p;
  int exp = atoi(p + 1);
  while (k > 1 && digits[k - 1] == '0') k--;
  digits[k] = 0;
  *n_digits = k;
  return exp + 1;
}

static void append_repr(xp_buf *out, double x) {
  if (isnan(x)) { xp_buf_appendall(out, "NaN"); return; }
  if (isinf(x)) { xp_buf_appendall(out, x > 0 ? "Infinity" : "-Infinity"); return; }
  if (signbit(x)) xp_buf_appendchar(out, 1, '-');
  x = fabs(x);
  if (x == 0) { xp_buf_appendall(out, "0.0"); return; }
  char d[24];
  int k;
  int decpt = shortest_digits(x, d, &k);
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      xp_buf_appendall(out, "0.");
      xp_buf_appendchar(out, -decpt, '0');
      xp_buf_appendall(out, d);
    } else if (decpt < k) {
      xp_buf_append(out, d, decpt);
      xp_buf_appendchar(out, 1, '.');
      xp_buf_appendall(out, d + decpt);
    } else {
      xp_buf_appendall(out, d);
      xp_buf_appendchar(out, decpt - k, '0');
      xp_buf_appendall(out, ".0");
    }
  } else {
    xp_buf_appendchar(out, 1, d[0]);
    if (k > 1) {
      xp_buf_appendchar(out, 1, '.');
      xp_buf_appendall(out, d + 1);
    }
    int e = decpt - 1;
    xp_buf_appendf(out, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
  }
}

static void fn_repr(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  xp_buf *s = xp_buf_new();
  switch (sqlite3_value_type(argv[0])) {
    case SQLITE_NULL: xp_buf_free(s); return;
    case SQLITE_INTEGER: xp_buf_appendf(s, "%lld", sqlite3_value_int64(argv[0])); break;
    default: append_repr(s, sqlite3_value_double(argv[0])); break;
  }
  xp_result_buf_at(ctx, s, XP_EMPTY_IS_TEXT, sqlite3_user_data(ctx));
}

/* Insert ',' every three digits of the integer part of a formatted number. */
static void append_grouped(xp_buf *out, const char *num) {
  const char *p = num;
  if (*p == '-') xp_buf_appendchar(out, 1, *p++);
  size_t int_len = strspn(p, "0123456789");
  for (size_t i = 0; i < int_len; i++) {
    if (i && (int_len - i) % 3 == 0) xp_buf_appendchar(out, 1, ',');
    xp_buf_appendchar(out, 1, p[i]);
  }
  xp_buf_appendall(out, p + int_len);
}

static void fn_format(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  const char *spec = (const char *)sqlite3_value_text(argv[1]);
  if (!spec && sqlite3_value_type(argv[1]) != SQLITE_NULL) {
    xp_result_error_at(ctx, SQLITE_NOMEM, sqlite3_user_data(ctx));
    return;
  }
  if (!spec) spec = "";
  const char *p = spec;
  int group = 0, prec = -1;
  if (*p == ',') group = 1, p++;
  if (*p == '.') {
    p++;
    prec = 0;
    while (*p >= '0' && *p <= '9') prec = prec * 10 + (*p++ - '0');
    if (prec > 40) prec = 40;
  }
  char type = *p ? *p++ : (prec >= 0 ? 'g' : 'd');
  if (*p || !strchr("fe%gd", type)) {
    char *msg = sqlite3_mprintf("xplane_format: unsupported format spec '%s'", spec);
    sqlite3_result_error(ctx, msg ? msg : "xplane_format: bad spec", -1);
    sqlite3_free(msg);
    return;
  }
  char buf[400];
  int is_int = sqlite3_value_type(argv[0]) == SQLITE_INTEGER;
  double x = sqlite3_value_double(argv[0]);
  switch (type) {
    case 'd':
      if (is_int) snprintf(buf, sizeof(buf), "%lld", (long long)sqlite3_value_int64(argv[0]));
      else snprintf(buf, sizeof(buf), "%.0f", trunc(x));
      break;
    case '%': snprintf(buf, sizeof(buf), "%.*f%%", prec < 0 ? 6 : prec, x * 100.0); break;
    case 'f': snprintf(buf, sizeof(buf), "%.*f", prec < 0 ? 6 : prec, x); break;
    case 'e': snprintf(buf, sizeof(buf), "%.*e", prec < 0 ? 6 : prec, x); break;
    default: snprintf(buf, sizeof(buf), "%.*g", prec < 0 ? 6 : prec, x); break;
  }
  xp_buf *s = xp_buf_new();
  if (group) append_grouped(s, buf);
  else xp_buf_appendall(s, buf);
  xp_result_buf_at(ctx, s, XP_EMPTY_IS_TEXT, sqlite3_user_data(ctx));
}

/* ---- JSON pretty printer ---- */

typedef struct jp {
  const char *p, *end;
  const char *err;
  int depth;
  int64_t indent_left; /* bytes of line breaks and indentation still allowed */
  int too_big;         /* indent_left ran out */
} jp;

/* The line breaks and indentation xplane_json_pretty may add: 8 times the
** input + 1 MiB. Escapes take at most 6 output bytes per input byte, so the
** output stays under 14 times the input + 1 MiB: a deeply nested 2 MB input
** cannot ask for 1 GB from a view (the function is innocuous). */
#define JP_INDENT_FACTOR 8
#define JP_INDENT_SLACK ((int64_t)1 << 20)

#define JP_MAX_DEPTH 500

static void jp_ws(jp *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static unsigned hexval(char c) {
  return c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
         : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
}

/* Decode one UTF-8 code point at p: U+FFFD for each ill-formed sequence's
** maximal subpart (util.h: xp_utf8_next), so the output is always valid. */
static unsigned utf8_next(const unsigned char **p, const unsigned char *end) {
  uint32_t cp;
  int k = xp_utf8_next(*p, (size_t)(end - *p), &cp);
  *p += k > 0 ? k : -k;
  return cp;
}

/* The same over parsed text, where an escaped lone surrogate ("\ud800",
** kept as Python's json keeps it) is stored as its 3-byte form ED A0..BF xx. */
static unsigned parsed_next(const unsigned char **p, const unsigned char *end) {
  const unsigned char *s = *p;
  if (end - s >= 3 && s[0] == 0xed && s[1] >= 0xa0 && s[1] <= 0xbf && s[2] >= 0x80 && s[2] <= 0xbf) {
    *p += 3;
    return 0xd000u | (unsigned)(s[1] & 0x3f) << 6 | (unsigned)(s[2] & 0x3f);
  }
  return utf8_next(p, end);
}

/* Parse a JSON string at j->p into its code points, appended as UTF-8 to raw. */
static int jp_string(jp *j, xp_buf *raw) {
  if (j->p >= j->end || *j->p != '"') { j->err = "expected a string"; return 0; }
  j->p++;
  while (j->p < j->end && *j->p != '"') {
    unsigned cp;
    if (*j->p == '\\') {
      if (j->end - j->p < 2) break;
      char e = j->p[1];
      j->p += 2;
      switch (e) {
        case 'n': cp = '\n'; break;
        case 't': cp = '\t'; break;
        case 'r': cp = '\r'; break;
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'u': {
          if (j->end - j->p < 4) { j->err = "bad \\u escape"; return 0; }
          cp = 0;
          for (int i = 0; i < 4; i++) {
            unsigned h = hexval(j->p[i]);
            if (h > 15) { j->err = "bad \\u escape"; return 0; }
            cp = cp * 16 + h;
          }
          j->p += 4;
          if (cp >= 0xd800 && cp < 0xdc00 && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u') {
            unsigned lo = 0;
            for (int i = 0; i < 4; i++) lo = lo * 16 + hexval(j->p[2 + i]);
            if (lo >= 0xdc00 && lo < 0xe000) {
              cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
              j->p += 6;
            }
          }
          break;
        }
        default: cp = (unsigned char)e; break;
      }
    } else {
      const unsigned char *u = (const unsigned char *)j->p;
      cp = utf8_next(&u, (const unsigned char *)j->end);
      j->p = (const char *)u;
    }
    /* re-encode as UTF-8 (sort order of UTF-8 bytes = code point order) */
    char b[4];
    int n;
    if (cp < 0x80) b[0] = (char)cp, n = 1;
    else if (cp < 0x800) b[0] = (char)(0xc0 | cp >> 6), b[1] = (char)(0x80 | (cp & 63)), n = 2;
    else if (cp < 0x10000) b[0] = (char)(0xe0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 63)), b[2] = (char)(0x80 | (cp & 63)), n = 3;
    else b[0] = (char)(0xf0 | cp >> 18), b[1] = (char)(0x80 | ((cp >> 12) & 63)), b[2] = (char)(0x80 | ((cp >> 6) & 63)), b[3] = (char)(0x80 | (cp & 63)), n = 4;
    xp_buf_append(raw, b, n);
  }
  if (j->p >= j->end) { j->err = "unterminated string"; return 0; }
  j->p++;
  return 1;
}

/* Write UTF-8 text as a Python ensure_ascii JSON string. */
static void emit_string(xp_buf *out, const char *z, int n) {
  const unsigned char *p = (const unsigned char *)z, *end = p + n;
  xp_buf_appendchar(out, 1, '"');
  while (p < end) {
    unsigned cp = parsed_next(&p, end);
    switch (cp) {
      case '"': xp_buf_appendall(out, "\\\""); continue;
      case '\\': xp_buf_appendall(out, "\\\\"); continue;
      case '\n': xp_buf_appendall(out, "\\n"); continue;
      case '\r': xp_buf_appendall(out, "\\r"); continue;
      case '\t': xp_buf_appendall(out, "\\t"); continue;
      case '\b': xp_buf_appendall(out, "\\b"); continue;
      case '\f': xp_buf_appendall(out, "\\f"); continue;
      default: break;
    }
    if (cp >= 0x20 && cp < 0x7f) xp_buf_appendchar(out, 1, (char)cp);
    else if (cp < 0x10000) xp_buf_appendf(out, "\\u%04x", cp);
    else xp_buf_appendf(out, "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
  }
  xp_buf_appendchar(out, 1, '"');
}

static int jp_value(jp *j, xp_buf *out, int indent);

static void newline(jp *j, xp_buf *out, int indent) {
  j->indent_left -= indent + 1;
  if (j->indent_left < 0) {
    j->too_big = 1;
    return;
  }
  xp_buf_appendchar(out, 1, '\n');
  xp_buf_appendchar(out, indent, ' ');
}

typedef struct member {
  char *key;
  int key_n;
  char *value;
  int value_n;
} member;

static int by_key(const void *a, const void *b) {
  const member *x = a, *y = b;
  int n = x->key_n < y->key_n ? x->key_n : y->key_n;
  int c = n ? memcmp(x->key, y->key, (size_t)n) : 0; /* an empty key may be NULL */
  return c ? c : x->key_n - y->key_n;
}

static int jp_object(jp *j, xp_buf *out, int indent) {
  member *m = NULL;
  int n = 0, cap = 0, ok = 1;
  j->p++;
  jp_ws(j);
  if (j->p < j->end && *j->p == '}') {
    j->p++;
    xp_buf_appendall(out, "{}");
    return 1;
  }
  while (ok) {
    xp_buf *k = xp_buf_new(), *v = xp_buf_new();
    jp_ws(j);
    ok = jp_string(j, k);
    jp_ws(j);
    if (ok && (j->p >= j->end || *j->p != ':')) j->err = "expected ':'", ok = 0;
    if (ok) {
      j->p++;
      ok = jp_value(j, v, indent + 2);
    }
    if (ok && !xp_grow32((void **)&m, &cap, n + 1, sizeof(member))) j->err = "out of memory", ok = 0;
    int kn = xp_buf_length(k), vn = xp_buf_length(v);
    char *kz = xp_buf_finish(k), *vz = xp_buf_finish(v);
    if (ok) {
      m[n].key = kz;
      m[n].key_n = kn;
      m[n].value = vz;
      m[n].value_n = vn;
      n++;
    } else {
      xp_free(kz);
      xp_free(vz);
      break;
    }
    jp_ws(j);
    if (j->p < j->end && *j->p == ',') { j->p++; continue; }
    if (j->p < j->end && *j->p == '}') { j->p++; break; }
    j->err = "expected ',' or '}'";
    ok = 0;
  }
  if (ok) {
    qsort(m, (size_t)n, sizeof(member), by_key);
    xp_buf_appendchar(out, 1, '{');
    for (int i = 0; i < n; i++) {
      newline(j, out, indent + 2);
      emit_string(out, m[i].key ? m[i].key : "", m[i].key_n);
      xp_buf_appendall(out, ": ");
      if (m[i].value) xp_buf_append(out, m[i].value, m[i].value_n);
      if (i + 1 < n) xp_buf_appendchar(out, 1, ',');
    }
    newline(j, out, indent);
    xp_buf_appendchar(out, 1, '}');
  }
  for (int i = 0; i < n; i++) {
    xp_free(m[i].key);
    xp_free(m[i].value);
  }
  xp_free(m);
  return ok;
}

static int jp_array(jp *j, xp_buf *out, int indent) {
  j->p++;
  jp_ws(j);
  if (j->p < j->end && *j->p == ']') {
    j->p++;
    xp_buf_appendall(out, "[]");
    return 1;
  }
  xp_buf_appendchar(out, 1, '[');
  for (;;) {
    newline(j, out, indent + 2);
    if (!jp_value(j, out, indent + 2)) return 0;
    jp_ws(j);
    if (j->p < j->end && *j->p == ',') {
      j->p++;
      xp_buf_appendchar(out, 1, ',');
      continue;
    }
    if (j->p < j->end && *j->p == ']') {
      j->p++;
      break;
    }
    j->err = "expected ',' or ']'";
    return 0;
  }
  newline(j, out, indent);
  xp_buf_appendchar(out, 1, ']');
  return 1;
}

static int jp_value(jp *j, xp_buf *out, int indent) {
  if (j->too_big) return 0; /* stop at once: fn_json_pretty reports it */
  jp_ws(j);
  if (j->p >= j->end) { j->err = "unexpected end"; return 0; }
  if (++j->depth > JP_MAX_DEPTH) { j->err = "nested too deeply"; return 0; }
  int ok = 1;
  switch (*j->p) {
    case '{': ok = jp_object(j, out, indent); break;
    case '[': ok = jp_array(j, out, indent); break;
    case '"': {
      xp_buf *raw = xp_buf_new();
      ok = jp_string(j, raw);
      int n = xp_buf_length(raw);
      char *z = xp_buf_finish(raw);
      if (ok) emit_string(out, z ? z : "", n);
      xp_free(z);
      break;
    }
    default: {
      /* a literal or number token: copied verbatim */
      const char *s = j->p;
      while (j->p < j->end && !strchr(",]} \t\r\n", *j->p)) j->p++;
      if (j->p == s) { j->err = "unexpected character"; ok = 0; }
      else xp_buf_append(out, s, (int)(j->p - s));
    }
  }
  j->depth--;
  return ok;
}

static void fn_json_pretty(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  jp j;
  j.p = (const char *)sqlite3_value_text(argv[0]);
  if (!j.p) {
    xp_result_error_at(ctx, SQLITE_NOMEM, sqlite3_user_data(ctx));
    return;
  }
  j.end = j.p + sqlite3_value_bytes(argv[0]);
  j.err = NULL;
  j.depth = 0;
  j.indent_left = JP_INDENT_FACTOR * (int64_t)(j.end - j.p) + JP_INDENT_SLACK;
  j.too_big = 0;
  xp_buf *out = xp_buf_new();
  int ok = jp_value(&j, out, 0);
  jp_ws(&j);
  if (ok && j.p != j.end) j.err = "trailing text", ok = 0;
  if (j.too_big) {
    xp_buf_free(out);
    char *msg = sqlite3_mprintf("xplane_json_pretty: the output would pass %d times the input + 1 MiB of "
                                "indentation (%lld input bytes, nested %d deep at most): string or blob too big",
                                JP_INDENT_FACTOR, (long long)sqlite3_value_bytes(argv[0]), JP_MAX_DEPTH);
    sqlite3_result_error(ctx, msg ? msg : "xplane_json_pretty: output too big", -1);
    sqlite3_result_error_code(ctx, SQLITE_TOOBIG);
    sqlite3_free(msg);
    return;
  }
  if (!ok) {
    xp_buf_free(out);
    char *msg = sqlite3_mprintf("xplane_json_pretty: malformed JSON: %s", j.err ? j.err : "?");
    sqlite3_result_error(ctx, msg ? msg : "xplane_json_pretty: malformed JSON", -1);
    sqlite3_free(msg);
    return;
  }
  xp_result_buf_at(ctx, out, XP_EMPTY_IS_TEXT, sqlite3_user_data(ctx));
}

/* ---- names where they are printed (core/escape.h) ---- */

static void escaped(sqlite3_context *ctx, sqlite3_value *v, int how) {
  if (sqlite3_value_type(v) == SQLITE_NULL) return; /* NULL stays NULL */
  const char *s = (const char *)sqlite3_value_text(v);
  size_t n = (size_t)sqlite3_value_bytes(v);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  xp_buf *out = xp_buf_new();
  if (how == 2) xp_html_text(out, s, n);
  else xp_md_code(out, s, n, how);
  xp_result_buf_at(ctx, out, XP_EMPTY_IS_TEXT, sqlite3_user_data(ctx));
}
static void fn_md_code(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  escaped(ctx, argv[0], 0);
}
static void fn_md_cell(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  escaped(ctx, argv[0], 1);
}
static void fn_html(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  escaped(ctx, argv[0], 2);
}

#define XP_PURE (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)

int xp_register_format_functions(sqlite3 *db) {
  static const struct {
    const char *name;
    int n_arg;
    void (*fn)(sqlite3_context *, int, sqlite3_value **);
  } fns[] = {
      {"xplane_repr", 1, fn_repr},
      {"xplane_format", 2, fn_format},
      {"xplane_json_pretty", 1, fn_json_pretty},
      {"xplane_md_code", 1, fn_md_code},
      {"xplane_md_cell", 1, fn_md_cell},
      {"xplane_html", 1, fn_html},
  };
  int rc = SQLITE_OK;
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof(fns) / sizeof(fns[0]); i++)
    rc = sqlite3_create_function(db, fns[i].name, fns[i].n_arg, XP_PURE, (void *)fns[i].name, fns[i].fn, NULL, NULL);
  return rc;
}
