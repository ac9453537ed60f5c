/*
** escape.c: names made safe where they are printed (terminal, markdown,
** HTML); see escape.h for the rules.
*/
#include "escape.h"

#include <stdint.h>
#include <string.h>

/* Append code point cp as UTF-8 (cp is a scalar value below U+110000). */
static void put_cp(xp_buf *b, uint32_t cp) {
  char u[4];
  size_t k;
  if (cp < 0x80) u[0] = (char)cp, k = 1;
  else if (cp < 0x800) u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), k = 2;
  else if (cp < 0x10000)
    u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | (cp >> 6 & 0x3F)), u[2] = (char)(0x80 | (cp & 0x3F)), k = 3;
  else
    u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | (cp >> 12 & 0x3F)), u[2] = (char)(0x80 | (cp >> 6 & 0x3F)),
    u[3] = (char)(0x80 | (cp & 0x3F)), k = 4;
  xp_buf_append(b, u, k);
}

/* The printable form of one decoded code point (escape.h). */
static uint32_t printable_cp(uint32_t cp) {
  if (cp < 0x20) return 0x2400 + cp;
  if (cp == 0x7F) return 0x2421;
  if ((cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
    return 0xFFFD;
  return cp;
}

/* Walk s[0..n) as printable code points; for each, the `special` callback
** may write it itself (returns 1) or leave it to be written as it is. */
typedef int (*special_fn)(xp_buf *b, uint32_t cp);

static void walk(xp_buf *b, const char *s, size_t n, special_fn special) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  while (i < n) {
    uint32_t cp;
    int len = xp_utf8_next(p + i, n - i, &cp);
    size_t used = (size_t)(len < 0 ? -len : len);
    uint32_t out = printable_cp(cp);
    if (!special || !special(b, out)) {
      if (len > 0 && out == cp) xp_buf_append(b, s + i, used); /* as it is */
      else put_cp(b, out);
    }
    i += used;
  }
}

void xp_printable(xp_buf *b, const char *s, size_t n) { walk(b, s, n, NULL); }

static int md_cell_special(xp_buf *b, uint32_t cp) {
  if (cp != '|') return 0;
  xp_buf_append(b, "\\|", 2);
  return 1;
}

void xp_md_code(xp_buf *b, const char *s, size_t n, int in_table) {
  size_t run = 0, longest = 0;
  for (size_t i = 0; i < n; i++) {
    run = s[i] == '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  if (n == 0) {
    xp_buf_appendall(b, "` `");
    return;
  }
  /* Padding: CommonMark strips one space from each side of a span whose
  ** text begins and ends with one, and a backtick next to the delimiter
  ** would lengthen it; a space on both sides keeps the text as it is. */
  size_t spaces = 0;
  while (spaces < n && s[spaces] == ' ') spaces++;
  int pad = spaces < n && (s[0] == '`' || s[n - 1] == '`' || s[0] == ' ' || s[n - 1] == ' ');
  xp_buf_appendchar(b, longest + 1, '`');
  if (pad) xp_buf_appendchar(b, 1, ' ');
  walk(b, s, n, in_table ? md_cell_special : NULL);
  if (pad) xp_buf_appendchar(b, 1, ' ');
  xp_buf_appendchar(b, longest + 1, '`');
}

static int html_special(xp_buf *b, uint32_t cp) {
  const char *r;
  switch (cp) {
    case '&': r = "&amp;"; break;
    case '<': r = "&lt;"; break;
    case '>': r = "&gt;"; break;
    case '"': r = "&quot;"; break;
    case '\'': r = "&#39;"; break;
    default: return 0;
  }
  xp_buf_appendall(b, r);
  return 1;
}

void xp_html_text(xp_buf *b, const char *s, size_t n) { walk(b, s, n, html_special); }
