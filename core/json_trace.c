/*
** json_trace.c: a Chrome/Perfetto JSON trace, streamed into an XSpace (see
** json_trace.h for the mapping).
**
** yajl calls back for every token; a small state machine keeps the nesting
** depth and where the traceEvents array, the current event and its args sit,
** copies the fields of one event into a scratch record, and hands the
** finished event to the XSpace builder. Nested arg values are re-serialized
** with yajl's generator.
*/
#include "json_trace.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "cancel.h"
#include "xspace_build.h"

#include "profile.h" /* XP_EVENT_LIMIT_PS */

#include "util.h"

#define JT_CHUNK (1 << 20) /* bytes handed to the parser at a time */

/* Limits enforced while parsing (README "Limits and safety"). A single JSON
** token (a string, a number or a literal) is refused past JT_MAX_TOKEN bytes
** before yajl buffers it: yajl keeps a token that spans input chunks in one
** growing buffer and re-scans it per chunk, so a 300 MB name would cost
** ~1.2 GB and quadratic time. Open 'B' events (never ended yet) are capped at
** JT_MAX_OPEN_B. The converted XSpace is capped at 2 GiB (xspace_build.c) and
** at XP_MAX_PLANES processes and XP_MAX_LINES threads (profile.h), checked as
** each is created. */
#define JT_MAX_TOKEN ((uint64_t)16 << 20)  /* 16 MiB */
#define JT_MAX_OPEN_B ((int64_t)1 << 20)   /* 1,048,576 */

/* ---- detection -------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

int xp_is_json_trace(const char *path) {
  if (ends_with(path, ".xplane.pb")) return 0;
  if (ends_with(path, ".json") || ends_with(path, ".json.gz")) return 1;
  unsigned char b[64];
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return 0;
  ssize_t n = read(fd, b, sizeof(b));
  close(fd);
  if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) return 1;
  ssize_t bom = n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf ? 3 : 0; /* UTF-8 byte order mark */
  for (ssize_t i = bom; i < n; i++) {
    if (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') continue;
    return b[i] == '{' || b[i] == '[';
  }
  return 0;
}

/* ---- exact times from decimal text ------------------------------------ */

/* A JSON number of microseconds as an exact time, rounded half away from
** zero to the picosecond. The number's syntax was checked by the parser.
** Returns 0 when it does not fit (beyond +-2^63 ns). */
static int parse_us(const char *s, size_t n, xb_time *t) {
  char d[48];
  int nd = 0, neg = 0;
  int64_t point = 0; /* value = 0.d * 10^point us */
  size_t i = 0;
  if (i < n && s[i] == '-') { neg = 1; i++; }
  for (; i < n && isdigit((unsigned char)s[i]); i++) {
    if (!nd && s[i] == '0') continue;
    if (nd < (int)sizeof(d)) d[nd++] = (char)(s[i] - '0');
    point++;
  }
  if (i < n && s[i] == '.')
    for (i++; i < n && isdigit((unsigned char)s[i]); i++) {
      if (!nd && s[i] == '0') { point--; continue; }
      if (nd < (int)sizeof(d)) d[nd++] = (char)(s[i] - '0');
    }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    int eneg = 0;
    int64_t e = 0;
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
    for (; i < n && isdigit((unsigned char)s[i]); i++)
      if (e < 100000) e = e * 10 + (s[i] - '0');
    point += eneg ? -e : e;
  }
  t->ns = 0;
  t->ps = 0;
  if (!nd) return 1;
  int64_t k = point + 3; /* digits of whole nanoseconds */
  if (k > 19) return 0;
  for (int64_t x = 0; x < k; x++) {
    int v = x < nd ? d[x] : 0;
    if (t->ns > (INT64_MAX - v) / 10) return 0;
    t->ns = t->ns * 10 + v;
  }
  int ps = 0;
  for (int64_t x = k; x < k + 4; x++) {
    int v = (x >= 0 && x < nd) ? d[x] : 0;
    if (x < k + 3) ps = ps * 10 + v;
    else if (v >= 5) ps++;
  }
  if (ps == 1000) {
    if (t->ns == INT64_MAX) return 0;
    t->ns++;
    ps = 0;
  }
  t->ps = ps;
  if (neg && (t->ns || t->ps)) {
    t->ns = -t->ns - (t->ps ? 1 : 0);
    t->ps = t->ps ? 1000 - t->ps : 0;
  }
  return 1;
}

/* The same as a duration in ps (0 when it does not fit int64). */
static int parse_us_ps(const char *s, size_t n, int64_t *ps) {
  xb_time t;
  if (!parse_us(s, n, &t) || t.ns > (INT64_MAX - t.ps) / 1000 || t.ns < INT64_MIN / 1000) return 0;
  *ps = t.ns * 1000 + t.ps;
  return 1;
}

static int is_integral(const char *s, size_t n) {
  return !memchr(s, '.', n) && !memchr(s, 'e', n) && !memchr(s, 'E', n);
}

/* ---- the parse state ---------------------------------------------------- */

enum { TOP_NONE = 0, TOP_OBJECT, TOP_ARRAY };
enum { TK_OTHER = 0, TK_TRACE_EVENTS, TK_DISPLAY_TIME_UNIT };
enum { EK_OTHER = 0, EK_PH, EK_NAME, EK_PID, EK_TID, EK_TS, EK_DUR, EK_ID, EK_ARGS };
enum { A_NUM, A_STR, A_BOOL, A_JSON, A_NULL };
enum { V_NUM, V_STR, V_BOOL, V_NULL }; /* scalar token kinds */

/* One arg of the current event: offsets into the event's byte scratch. */
typedef struct jt_arg {
  size_t key, key_n, val, val_n;
  int kind;
} jt_arg;

/* A text field of the current event: offsets into the scratch. */
typedef struct jt_text {
  size_t off, n;
  int has;
} jt_text;

/* The phases skipped, by name (the first few distinct ones). */
#define JT_PHASE_KINDS 8
typedef struct jt_phase {
  char ph[8];
  int64_t n;
} jt_phase;

typedef struct jt {
  xb_builder *b;
  yajl_gen gen;
  locale_t c_locale;
  char err[512];
  int64_t depth;
  int top, top_key;
  int64_t events_depth;  /* depth of the elements of traceEvents (0: outside) */
  int seen_events;
  int in_event, ev_key;
  int64_t args_depth;    /* depth of the entries of the event's args (0: none) */
  int64_t capture_depth; /* depth of the contents of a nested arg value (0: none) */
  size_t arg_key, arg_key_n;
  /* the current event */
  xb_buf scratch;
  jt_text ph, name, id;
  int has_pid, has_tid, has_ts, has_dur;
  int64_t pid, tid, dur_ps;
  xb_time ts;
  jt_arg *args;
  int n_args, cap_args;
  xb_buf stats, num, tmp;
  /* open B events per line: frames (see push_begin) */
  xb_buf *stacks;
  int32_t n_stacks;
  int64_t n_open_b;
  /* the token scan ahead of yajl (scan_tokens) */
  int lx_in_str, lx_esc;
  uint64_t lx_len, lx_start;
  char *display_time_unit;
  /* counts */
  int64_t n_trace_events, n_not_object, n_no_pid, n_unmatched_end, n_skipped_phase;
  int64_t n_bad_ts, n_bad_dur, n_end_before_begin; /* quality warnings (add_warnings) */
  jt_phase phases[JT_PHASE_KINDS];
  int n_phases;
} jt;

static int jt_fail(jt *j, const char *fmt, ...) {
  if (!j->err[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->err, sizeof(j->err), fmt, ap);
    va_end(ap);
  }
  return 0;
}

static int builder_failed(jt *j) { return jt_fail(j, "%s", xb_error(j->b)); }

/* scratch.p is NULL until the first non-empty text: an empty one is "". */
static const char *scratch_at(const jt *j, size_t off) {
  return j->scratch.p ? (const char *)j->scratch.p + off : "";
}

static int keep_text(jt *j, const void *p, size_t n, size_t *off) {
  *off = j->scratch.n;
  return xb_buf_put(&j->scratch, p, n) ? 1 : jt_fail(j, "out of memory");
}

static int text_is(const jt *j, const jt_text *t, const char *z) {
  size_t n = strlen(z);
  return t->has && t->n == n && memcmp(scratch_at(j, t->off), z, n) == 0;
}

/* ---- events ------------------------------------------------------------ */

/* The current event's args as XStats in j->stats (for plane `pl`). */
static int encode_args(jt *j, int32_t pl) {
  j->stats.n = 0;
  for (int i = 0; i < j->n_args; i++) {
    const jt_arg *a = &j->args[i];
    const char *k = scratch_at(j, a->key), *v = scratch_at(j, a->val);
    int ok = 1;
    switch (a->kind) {
      case A_NULL: break;
      case A_BOOL: ok = xb_stat_int(j->b, pl, &j->stats, k, a->key_n, a->val_n); break;
      case A_STR:
      case A_JSON: ok = xb_stat_str(j->b, pl, &j->stats, k, a->key_n, v, a->val_n); break;
      case A_NUM: {
        j->num.n = 0;
        if (!xb_buf_put(&j->num, v, a->val_n) || !xb_buf_put(&j->num, "", 1)) return jt_fail(j, "out of memory");
        const char *z = (const char *)j->num.p;
        errno = 0;
        if (is_integral(v, a->val_n)) {
          long long x = strtoll(z, NULL, 10);
          if (errno == 0) { ok = xb_stat_int(j->b, pl, &j->stats, k, a->key_n, x); break; }
          errno = 0;
          unsigned long long u = z[0] == '-' ? 0 : strtoull(z, NULL, 10);
          if (z[0] != '-' && errno == 0) { ok = xb_stat_uint(j->b, pl, &j->stats, k, a->key_n, u); break; }
        }
        ok = xb_stat_double(j->b, pl, &j->stats, k, a->key_n, strtod_l(z, NULL, j->c_locale));
        break;
      }
    }
    if (!ok) return builder_failed(j);
  }
  return 1;
}

/* The string value of arg `key` (NULL if absent or not a string). */
static const char *arg_str(const jt *j, const char *key, size_t *n) {
  size_t kn = strlen(key);
  for (int i = j->n_args - 1; i >= 0; i--) {
    const jt_arg *a = &j->args[i];
    if (a->key_n != kn || memcmp(scratch_at(j, a->key), key, kn) != 0) continue;
    if (a->kind != A_STR) return NULL;
    *n = a->val_n;
    return scratch_at(j, a->val);
  }
  return NULL;
}

static void count_phase(jt *j) {
  char ph[8];
  size_t n = j->ph.has ? (j->ph.n < sizeof(ph) - 1 ? j->ph.n : sizeof(ph) - 1) : 0;
  memcpy(ph, j->ph.has ? scratch_at(j, j->ph.off) : "", n);
  ph[n] = 0;
  j->n_skipped_phase++;
  for (int i = 0; i < j->n_phases; i++)
    if (strcmp(j->phases[i].ph, ph) == 0) { j->phases[i].n++; return; }
  if (j->n_phases == JT_PHASE_KINDS) return; /* counted in the total only */
  memcpy(j->phases[j->n_phases].ph, ph, n + 1);
  j->phases[j->n_phases++].n = 1;
}

static int metadata_event(jt *j) {
  size_t n = 0;
  const char *name = arg_str(j, "name", &n);
  int is_process = text_is(j, &j->name, "process_name"), is_thread = text_is(j, &j->name, "thread_name");
  if (!name || (!is_process && !is_thread)) return 1;
  if (!j->has_pid || (is_thread && !j->has_tid)) { j->n_no_pid++; return 1; }
  int32_t pl = xb_plane(j->b, j->pid);
  if (pl < 0) return builder_failed(j);
  if (is_process) return xb_plane_name(j->b, pl, name, n) ? 1 : builder_failed(j);
  int32_t ln = xb_line(j->b, pl, j->tid);
  return ln >= 0 && xb_line_name(j->b, ln, name, n) ? 1 : builder_failed(j);
}

static int stack_for(jt *j, int32_t ln, xb_buf **st) {
  if (ln >= j->n_stacks) {
    int32_t nn = xb_n_lines(j->b) + 16;
    xb_buf *v = xp_realloc(j->stacks, sizeof(xb_buf) * (uint64_t)nn);
    if (!v) return jt_fail(j, "out of memory");
    memset(v + j->n_stacks, 0, sizeof(xb_buf) * (size_t)(nn - j->n_stacks));
    j->stacks = v;
    j->n_stacks = nn;
  }
  *st = &j->stacks[ln];
  return 1;
}

/* A B frame: header, the B's encoded stats, then the frame's total size. */
typedef struct jt_frame {
  xb_time ts;
  int32_t has_ts;
  int64_t meta;
  uint32_t stats_n;
} jt_frame;

static int push_begin(jt *j, int32_t ln, int64_t meta) {
  xb_buf *st;
  jt_frame f;
  memset(&f, 0, sizeof(f));
  f.ts = j->ts;
  f.has_ts = j->has_ts;
  f.meta = meta;
  /* the frame's size is kept in 32 bits: guard it as xb_event guards X events */
  if (j->stats.n > (size_t)UINT32_MAX - sizeof(f) - sizeof(uint32_t))
    return jt_fail(j, "a 'B' event's args take more than 4 GiB");
  if (j->n_open_b >= JT_MAX_OPEN_B)
    return jt_fail(j, "more than %lld 'B' events open at once (never ended?): the limit, README "
                      "\"Limits and safety\"", (long long)JT_MAX_OPEN_B);
  f.stats_n = (uint32_t)j->stats.n;
  uint32_t total = (uint32_t)(sizeof(f) + j->stats.n + sizeof(uint32_t));
  if (!stack_for(j, ln, &st)) return 0;
  if (!xb_buf_put(st, &f, sizeof(f)) || !xb_buf_put(st, j->stats.p, j->stats.n) || !xb_buf_put(st, &total, sizeof(total)))
    return jt_fail(j, "out of memory");
  j->n_open_b++;
  return 1;
}

/* Close the innermost open B of the line with the current E event. */
static int pop_end(jt *j, int32_t ln) {
  xb_buf *st;
  uint32_t total;
  jt_frame f;
  if (!stack_for(j, ln, &st)) return 0;
  if (!st->n) { j->n_unmatched_end++; return 1; }
  memcpy(&total, st->p + st->n - sizeof(total), sizeof(total));
  size_t at = st->n - total;
  memcpy(&f, st->p + at, sizeof(f));
  j->tmp.n = 0; /* the B's stats, then the E's */
  if (!xb_buf_put(&j->tmp, st->p + at + sizeof(f), f.stats_n) || !xb_buf_put(&j->tmp, j->stats.p, j->stats.n))
    return jt_fail(j, "out of memory");
  st->n = at;
  j->n_open_b--;
  int64_t dur = 0;
  if (f.has_ts && j->has_ts) {
    int64_t dns = j->ts.ns - f.ts.ns; /* both within +-2^63 ns: may overflow only if absurd */
    if (dns < INT64_MAX / 1000 && dns > INT64_MIN / 1000) dur = dns * 1000 + (j->ts.ps - f.ts.ps);
    if (dur < 0 || dur > XP_EVENT_LIMIT_PS) { /* an E before its B: never a negative duration */
      j->n_end_before_begin++;
      return 1;
    }
  }
  return xb_event(j->b, ln, f.meta, f.has_ts ? &f.ts : NULL, dur, j->tmp.p, j->tmp.n) ? 1 : builder_failed(j);
}

static int finish_event(jt *j) {
  if (!j->ph.has || j->ph.n != 1) { count_phase(j); return 1; }
  char ph = *scratch_at(j, j->ph.off);
  if (ph == 'M') return metadata_event(j);
  if (ph != 'X' && ph != 'B' && ph != 'E' && ph != 'i' && ph != 'I' && ph != 'C') { count_phase(j); return 1; }
  if (!j->has_pid || (ph != 'C' && !j->has_tid)) { j->n_no_pid++; return 1; }
  const char *name = j->name.has ? scratch_at(j, j->name.off) : "";
  size_t name_n = j->name.has ? j->name.n : 0;
  int32_t pl = xb_plane(j->b, j->pid), ln;
  if (pl < 0) return builder_failed(j);
  if (ph == 'C') {
    /* the counter's line: "<name>" or "<name> <id>" */
    j->tmp.n = 0;
    if (!xb_buf_put(&j->tmp, name, name_n) ||
        (j->id.has && (!xb_buf_put(&j->tmp, " ", 1) || !xb_buf_put(&j->tmp, scratch_at(j, j->id.off), j->id.n))))
      return jt_fail(j, "out of memory");
    ln = xb_counter_line(j->b, pl, (const char *)j->tmp.p, j->tmp.n);
  } else {
    ln = xb_line(j->b, pl, j->tid);
  }
  if (ln < 0 || !encode_args(j, pl)) return j->err[0] ? 0 : builder_failed(j);
  if (ph == 'E') return pop_end(j, ln);
  int64_t meta = xb_event_meta(j->b, pl, name, name_n);
  if (meta < 0) return builder_failed(j);
  if (ph == 'B') return push_begin(j, ln, meta);
  int64_t dur = ph == 'X' && j->has_dur ? j->dur_ps : 0;
  return xb_event(j->b, ln, meta, j->has_ts ? &j->ts : NULL, dur, j->stats.p, j->stats.n) ? 1 : builder_failed(j);
}

static void begin_event(jt *j) {
  j->in_event = 1;
  j->ev_key = EK_OTHER;
  j->scratch.n = 0;
  j->n_args = 0;
  memset(&j->ph, 0, sizeof(j->ph));
  memset(&j->name, 0, sizeof(j->name));
  memset(&j->id, 0, sizeof(j->id));
  j->has_pid = j->has_tid = j->has_ts = j->has_dur = 0;
}

static int add_arg(jt *j, int kind, const void *v, size_t n) {
  if (!xp_grow32((void **)&j->args, &j->cap_args, j->n_args + 1, sizeof(jt_arg))) return jt_fail(j, "out of memory");
  jt_arg *a = &j->args[j->n_args];
  a->key = j->arg_key;
  a->key_n = j->arg_key_n;
  a->kind = kind;
  a->val_n = n;
  if (kind == A_BOOL) a->val = 0;
  else if (!keep_text(j, v, n, &a->val)) return 0;
  j->n_args++;
  return 1;
}

/* A scalar field of the current event. */
static int event_field(jt *j, int kind, const char *v, size_t n) {
  switch (j->ev_key) {
    case EK_PH:
    case EK_NAME: {
      jt_text *t = j->ev_key == EK_PH ? &j->ph : &j->name;
      t->has = kind == V_STR;
      t->n = n;
      return !t->has || keep_text(j, v, n, &t->off);
    }
    case EK_ID:
      j->id.has = kind == V_STR || kind == V_NUM;
      j->id.n = n;
      return !j->id.has || keep_text(j, v, n, &j->id.off);
    case EK_PID:
    case EK_TID: {
      long long x = 0;
      int ok = kind == V_NUM && is_integral(v, n);
      if (ok) {
        char tmp[32];
        ok = n < sizeof(tmp);
        if (ok) {
          memcpy(tmp, v, n);
          tmp[n] = 0;
          errno = 0;
          x = strtoll(tmp, NULL, 10);
          ok = errno == 0;
        }
      }
      if (j->ev_key == EK_PID) { j->has_pid = ok; j->pid = x; }
      else { j->has_tid = ok; j->tid = x; }
      return 1;
    }
    case EK_TS:
      j->has_ts = kind == V_NUM && parse_us(v, n, &j->ts);
      if (kind == V_NUM && !j->has_ts) j->n_bad_ts++; /* e.g. 1e400: untimed, and said so */
      return 1;
    case EK_DUR:
      j->has_dur = kind == V_NUM && parse_us_ps(v, n, &j->dur_ps);
      if (j->has_dur && (j->dur_ps < 0 || j->dur_ps > XP_EVENT_LIMIT_PS)) j->has_dur = 0;
      if (kind == V_NUM && !j->has_dur) j->n_bad_dur++; /* negative or out of range: 0, and said so */
      return 1;
    default: return 1;
  }
}

static const char *kind_name(int kind) {
  return kind == V_NUM ? "a number" : kind == V_STR ? "a string" : kind == V_BOOL ? "a boolean" : "null";
}

/* Every scalar token. For V_BOOL, n is the value. */
static int on_scalar(jt *j, int kind, const char *v, size_t n) {
  int64_t d = j->depth;
  if (j->capture_depth && d >= j->capture_depth) {
    yajl_gen_status s = kind == V_NUM ? yajl_gen_number(j->gen, v, n)
                        : kind == V_STR ? yajl_gen_string(j->gen, (const unsigned char *)v, n)
                        : kind == V_BOOL ? yajl_gen_bool(j->gen, (int)n) : yajl_gen_null(j->gen);
    return s == yajl_gen_status_ok ? 1 : jt_fail(j, "cannot re-encode a nested args value");
  }
  if (d == 0) return jt_fail(j, "not a JSON trace: the document is %s, not an object with traceEvents", kind_name(kind));
  if (j->top == TOP_OBJECT && d == 1) {
    if (j->top_key == TK_TRACE_EVENTS) return jt_fail(j, "traceEvents is %s, not an array of events", kind_name(kind));
    if (j->top_key == TK_DISPLAY_TIME_UNIT && kind == V_STR) {
      xp_free(j->display_time_unit);
      j->display_time_unit = xp_mprintf("%.*s", (int)n, v);
      if (!j->display_time_unit) return jt_fail(j, "out of memory");
    }
    return 1;
  }
  if (j->events_depth && d == j->events_depth) {
    j->n_trace_events++;
    j->n_not_object++;
    return 1;
  }
  if (j->in_event && d == j->events_depth + 1) return event_field(j, kind, v, n);
  if (j->args_depth && d == j->args_depth) {
    int a = kind == V_NUM ? A_NUM : kind == V_STR ? A_STR : kind == V_BOOL ? A_BOOL : A_NULL;
    return add_arg(j, a, v, n);
  }
  return 1;
}

static int on_start(jt *j, int is_map) {
  int64_t d = j->depth;
  if (j->capture_depth && d >= j->capture_depth) {
    yajl_gen_status s = is_map ? yajl_gen_map_open(j->gen) : yajl_gen_array_open(j->gen);
    if (s == yajl_max_depth_exceeded)
      return jt_fail(j, "an args value of event %lld is nested more than 128 levels deep (the most this reader "
                        "keeps)", (long long)j->n_trace_events);
    if (s != yajl_gen_status_ok) return jt_fail(j, "cannot re-encode a nested args value");
  } else if (d == 0) {
    j->top = is_map ? TOP_OBJECT : TOP_ARRAY;
    if (!is_map) j->events_depth = 1, j->seen_events = 1;
  } else if (j->top == TOP_OBJECT && d == 1 && j->top_key == TK_TRACE_EVENTS) {
    if (is_map) return jt_fail(j, "traceEvents is an object, not an array of events");
    j->events_depth = 2;
    j->seen_events = 1;
  } else if (j->events_depth && d == j->events_depth) {
    j->n_trace_events++;
    if (is_map) begin_event(j);
    else j->n_not_object++;
  } else if (j->in_event && d == j->events_depth + 1) {
    if (j->ev_key == EK_ARGS && is_map) j->args_depth = d + 1;
  } else if (j->args_depth && d == j->args_depth) {
    j->capture_depth = d + 1;
    yajl_gen_clear(j->gen);
    yajl_gen_reset(j->gen, NULL);
    yajl_gen_status s = is_map ? yajl_gen_map_open(j->gen) : yajl_gen_array_open(j->gen);
    if (s == yajl_max_depth_exceeded)
      return jt_fail(j, "an args value of event %lld is nested more than 128 levels deep (the most this reader "
                        "keeps)", (long long)j->n_trace_events);
    if (s != yajl_gen_status_ok) return jt_fail(j, "cannot re-encode a nested args value");
  }
  j->depth = d + 1;
  return 1;
}

static int on_end(jt *j, int is_map) {
  int64_t d = j->depth--;
  if (j->capture_depth && d >= j->capture_depth) {
    yajl_gen_status s = is_map ? yajl_gen_map_close(j->gen) : yajl_gen_array_close(j->gen);
    if (s != yajl_gen_status_ok) return jt_fail(j, "cannot re-encode a nested args value");
    if (d > j->capture_depth) return 1;
    const unsigned char *buf;
    size_t n;
    j->capture_depth = 0;
    yajl_gen_get_buf(j->gen, &buf, &n);
    return add_arg(j, A_JSON, buf, n);
  }
  if (j->args_depth && d == j->args_depth) j->args_depth = 0;
  else if (j->in_event && d == j->events_depth + 1) {
    j->in_event = 0;
    return finish_event(j);
  } else if (j->events_depth && d == j->events_depth) j->events_depth = 0;
  return 1;
}

static int on_key(jt *j, const char *k, size_t n) {
  int64_t d = j->depth;
  if (j->capture_depth && d >= j->capture_depth)
    return yajl_gen_string(j->gen, (const unsigned char *)k, n) == yajl_gen_status_ok
               ? 1 : jt_fail(j, "cannot re-encode a nested args value");
#define KEY_IS(z) (n == sizeof(z) - 1 && memcmp(k, z, n) == 0)
  if (j->top == TOP_OBJECT && d == 1) {
    j->top_key = KEY_IS("traceEvents") ? TK_TRACE_EVENTS : KEY_IS("displayTimeUnit") ? TK_DISPLAY_TIME_UNIT : TK_OTHER;
  } else if (j->in_event && d == j->events_depth + 1) {
    j->ev_key = KEY_IS("ph") ? EK_PH : KEY_IS("name") ? EK_NAME : KEY_IS("pid") ? EK_PID
              : KEY_IS("tid") ? EK_TID : KEY_IS("ts") ? EK_TS : KEY_IS("dur") ? EK_DUR
              : KEY_IS("id") ? EK_ID : KEY_IS("args") ? EK_ARGS : EK_OTHER;
  } else if (j->args_depth && d == j->args_depth) {
    j->arg_key_n = n;
    return keep_text(j, k, n, &j->arg_key);
  }
#undef KEY_IS
  return 1;
}

/* yajl callbacks */
static int cb_null(void *c) { return on_scalar(c, V_NULL, "", 0); }
static int cb_bool(void *c, int v) { return on_scalar(c, V_BOOL, "", v ? 1 : 0); }
static int cb_number(void *c, const char *s, size_t n) { return on_scalar(c, V_NUM, s, n); }
static int cb_string(void *c, const unsigned char *s, size_t n) { return on_scalar(c, V_STR, (const char *)s, n); }
static int cb_start_map(void *c) { return on_start(c, 1); }
static int cb_map_key(void *c, const unsigned char *s, size_t n) { return on_key(c, (const char *)s, n); }
static int cb_end_map(void *c) { return on_end(c, 1); }
static int cb_start_array(void *c) { return on_start(c, 0); }
static int cb_end_array(void *c) { return on_end(c, 0); }

static const yajl_callbacks jt_callbacks = {cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
                                            cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array};

/* ---- warnings and the whole conversion -------------------------------- */

static int warn(jt *j, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n >= (int)sizeof(buf)) n = (int)sizeof(buf) - 1;
  return xb_warning(j->b, buf, (size_t)n) ? 1 : builder_failed(j);
}

static int add_warnings(jt *j) {
  int64_t unended = 0;
  for (int32_t i = 0; i < j->n_stacks; i++) {
    const xb_buf *st = &j->stacks[i];
    for (size_t n = st->n; n; ) {
      uint32_t total;
      memcpy(&total, st->p + n - sizeof(total), sizeof(total));
      n -= total;
      unended++;
    }
  }
  if (!j->n_trace_events && !warn(j, "JSON trace: traceEvents is empty")) return 0;
  if (j->n_skipped_phase) {
    char list[256] = "";
    size_t at = 0;
    for (int i = 0; i < j->n_phases && at < sizeof(list); i++)
      at += (size_t)snprintf(list + at, sizeof(list) - at, "%s'%s' x%lld", i ? ", " : "", j->phases[i].ph,
                             (long long)j->phases[i].n);
    if (!warn(j, "JSON trace: %lld events of phases this reader does not convert were skipped (%s)",
              (long long)j->n_skipped_phase, list))
      return 0;
  }
  if (j->n_not_object && !warn(j, "JSON trace: %lld entries of traceEvents are not objects and were skipped",
                               (long long)j->n_not_object))
    return 0;
  if (j->n_no_pid && !warn(j, "JSON trace: %lld events without an integer pid (or tid) were skipped",
                           (long long)j->n_no_pid))
    return 0;
  if (j->n_unmatched_end &&
      !warn(j, "JSON trace: %lld 'E' events had no open 'B' event on their thread and were skipped",
            (long long)j->n_unmatched_end))
    return 0;
  if (unended && !warn(j, "JSON trace: %lld 'B' events were never ended and were skipped", (long long)unended))
    return 0;
  if (j->n_bad_ts && !warn(j, "JSON trace: %lld events had a ts out of range (beyond +-2^63 ns) and were kept "
                              "without a start time", (long long)j->n_bad_ts))
    return 0;
  if (j->n_bad_dur && !warn(j, "JSON trace: %lld events had a negative or out-of-range dur (beyond 2^61 ps) and "
                               "were kept with duration 0", (long long)j->n_bad_dur))
    return 0;
  if (j->n_end_before_begin &&
      !warn(j, "JSON trace: %lld 'E' events came before their 'B' (or more than 2^61 ps after it); the pairs "
               "were skipped", (long long)j->n_end_before_begin))
    return 0;
  return 1;
}

/* Follow the tokens of buf (a linear scan: strings with their escapes, and
** runs of number/literal bytes) and refuse one longer than JT_MAX_TOKEN,
** before the chunk reaches yajl. `fed`: bytes before buf. */
static int scan_tokens(jt *j, const unsigned char *buf, size_t n, uint64_t fed, int gz) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = buf[i];
    if (j->lx_in_str) {
      if (j->lx_esc) j->lx_esc = 0;
      else if (c == '\\') j->lx_esc = 1;
      else if (c == '"') { j->lx_in_str = 0; j->lx_len = 0; continue; }
    } else if (c == '"') {
      j->lx_in_str = 1;
      j->lx_len = 0;
      j->lx_start = fed + i;
      continue;
    } else if (c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':' || c == ' ' || c == '\n' ||
               c == '\r' || c == '\t') {
      j->lx_len = 0;
      continue;
    } else if (j->lx_len == 0) {
      j->lx_start = fed + i;
    }
    if (++j->lx_len > JT_MAX_TOKEN)
      return jt_fail(j, "a JSON %s at byte %llu%s is longer than 16 MiB (the limit: README \"Limits and safety\")",
                     j->lx_in_str ? "string" : "number or literal", (unsigned long long)j->lx_start,
                     gz ? " of the decompressed text" : "");
  }
  return 1;
}

/* Feed the whole input to the parser; returns 0 with j->err set. */
static int parse_input(jt *j, gzFile gz, yajl_handle h) {
  unsigned char *buf = xp_malloc(JT_CHUNK);
  uint64_t fed = 0;
  int first = 1, ok = 1;
  if (!buf) return jt_fail(j, "out of memory");
  for (;;) {
    if (xp_cancelled()) { /* an interrupted query (cancel.h), checked per chunk */
      ok = jt_fail(j, "%s", XP_CANCELLED_TEXT);
      break;
    }
    int n = gzread(gz, buf, JT_CHUNK);
    int zerr = Z_OK;
    const char *zmsg = n < 0 || n == 0 ? gzerror(gz, &zerr) : NULL;
    if (n < 0 || zerr == Z_BUF_ERROR) {
      if (zerr == Z_BUF_ERROR)
        ok = jt_fail(j, "truncated gzip stream: the file ends before its compressed data does "
                        "(an incomplete write or copy?)");
      else if (zerr == Z_ERRNO) ok = jt_fail(j, "cannot read: %s", strerror(errno));
      else {
        const char *colon = zmsg && zmsg[0] == '<' ? strstr(zmsg, ">: ") : NULL; /* drop "<fd:N>: " */
        ok = jt_fail(j, "corrupt gzip data: %s", colon ? colon + 3 : zmsg ? zmsg : "unknown error");
      }
      break;
    }
    if (n == 0) break;
    unsigned char *text = buf;
    if (fed == 0 && n >= 3 && buf[0] == 0xef && buf[1] == 0xbb && buf[2] == 0xbf) {
      text += 3; /* a UTF-8 byte order mark (Windows tools write one): not JSON, skipped */
      n -= 3;
      fed = 3;
    }
    if (first) {
      int i = 0;
      while (i < n && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) i++;
      if (i < n && text[i] != '{' && text[i] != '[') {
        ok = jt_fail(j, "not a JSON trace: %s starts with byte 0x%02x, not '{' or '['",
                     gzdirect(gz) ? "the file" : "its decompressed content", text[i]);
        break;
      }
      if (i < n) first = 0;
    }
    if (!scan_tokens(j, text, (size_t)n, fed, !gzdirect(gz))) {
      ok = 0;
      break;
    }
    if (yajl_parse(h, text, (size_t)n) != yajl_status_ok) {
      if (!j->err[0]) {
        unsigned char *e = yajl_get_error(h, 0, text, (size_t)n);
        size_t en = e ? strlen((const char *)e) : 0;
        while (en && isspace(e[en - 1])) en--;
        jt_fail(j, "invalid JSON at byte %llu%s: %.*s", (unsigned long long)(fed + yajl_get_bytes_consumed(h)),
                gzdirect(gz) ? "" : " of the decompressed text", (int)en, e ? (const char *)e : "parse error");
        if (e) yajl_free_error(h, e);
      }
      ok = 0;
      break;
    }
    fed += (uint64_t)n;
  }
  if (ok && first) ok = jt_fail(j, "not a JSON trace: %s", fed ? "only white space" : "no content");
  if (ok && yajl_complete_parse(h) != yajl_status_ok) {
    if (!j->err[0]) {
      unsigned char *e = yajl_get_error(h, 0, NULL, 0);
      size_t en = e ? strlen((const char *)e) : 0;
      while (en && isspace(e[en - 1])) en--;
      jt_fail(j, "invalid JSON: %.*s (the text ends at byte %llu before the document does: truncated?)",
              (int)en, e ? (const char *)e : "parse error", (unsigned long long)fed);
      if (e) yajl_free_error(h, e);
    }
    ok = 0;
  }
  xp_free(buf);
  return ok;
}

static void jt_clear(jt *j) {
  if (j->gen) yajl_gen_free(j->gen);
  if (j->c_locale) freelocale(j->c_locale);
  xb_free(j->b);
  xb_buf_free(&j->scratch);
  xb_buf_free(&j->stats);
  xb_buf_free(&j->num);
  xb_buf_free(&j->tmp);
  for (int32_t i = 0; i < j->n_stacks; i++) xb_buf_free(&j->stacks[i]);
  xp_free(j->stacks);
  xp_free(j->args);
  xp_free(j->display_time_unit);
}

int xp_json_trace_convert(int fd, const char *note, xp_json_trace *out, char **errmsg) {
  jt *j = xp_malloc(sizeof(*j));
  yajl_handle h = NULL;
  gzFile gz = NULL;
  int ok = 0;
  memset(out, 0, sizeof(*out));
  out->fd = -1;
  *errmsg = NULL;
  if (!j) { *errmsg = xp_mprintf("out of memory"); return 0; }
  memset(j, 0, sizeof(*j));
  j->b = xb_new();
  j->gen = yajl_gen_alloc(NULL);
  j->c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
  int dfd = dup(fd);
  if (!j->b || !j->gen || !j->c_locale) jt_fail(j, "out of memory");
  else if (dfd < 0 || (gz = gzdopen(dfd, "rb")) == NULL || gzbuffer(gz, 1 << 17) != 0)
    jt_fail(j, "cannot read: %s", strerror(errno));
  else if ((h = yajl_alloc(&jt_callbacks, NULL, j)) == NULL) jt_fail(j, "out of memory");
  else if (note && !xb_warning(j->b, note, strlen(note))) builder_failed(j);
  else if (parse_input(j, gz, h)) {
    if (!j->seen_events) jt_fail(j, "not a Chrome/Perfetto JSON trace: the top-level object has no traceEvents array");
    else if (add_warnings(j) && !xb_finish(j->b, &out->fd, &out->size)) builder_failed(j);
    else ok = !j->err[0];
  }
  if (gz) gzclose(gz);
  else if (dfd >= 0) close(dfd);
  if (h) yajl_free(h);
  if (ok) {
    out->n_trace_events = j->n_trace_events;
    out->display_time_unit = j->display_time_unit;
    j->display_time_unit = NULL;
  } else {
    *errmsg = xp_mprintf("%s", j->err[0] ? j->err : "out of memory");
  }
  jt_clear(j);
  xp_free(j);
  return ok;
}
