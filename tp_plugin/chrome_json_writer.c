/*
** chrome_json_writer.c: Chrome JSON trace writer (see chrome_json_writer.h).
** Each event is formatted into one sqlite3_str (json.h does strings and stat
** values) and written out at once.
*/
#include "chrome_json_writer.h"

#include <errno.h>
#include <string.h>

#include "json.h"

#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

struct pf_json {
  FILE *f;
  int64_t events;
  int failed;
};

static int flush_str(pf_json *j, sqlite3_str *s, char **errmsg) {
  int n = sqlite3_str_length(s);
  if (sqlite3_str_errcode(s)) {
    sqlite3_free(sqlite3_str_finish(s));
    j->failed = 1;
    *errmsg = sqlite3_mprintf("out of memory");
    return 0;
  }
  char *z = sqlite3_str_finish(s);
  int ok = !n || fwrite(z, 1, (size_t)n, j->f) == (size_t)n;
  sqlite3_free(z);
  if (!ok) {
    j->failed = 1;
    *errmsg = sqlite3_mprintf("%s", strerror(errno));
    return 0;
  }
  j->events++;
  return 1;
}

static sqlite3_str *begin_event(pf_json *j) {
  sqlite3_str *s = sqlite3_str_new(NULL);
  sqlite3_str_appendall(s, j->events ? ",\n" : "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  return s;
}

/* ps as an exact decimal number of microseconds. */
static void append_us(sqlite3_str *s, int64_t ps) {
  int64_t us = ps / 1000000, frac = ps % 1000000;
  sqlite3_str_appendf(s, "%lld", (long long)us);
  if (frac) {
    char digits[8];
    int n = 6;
    snprintf(digits, sizeof(digits), "%06lld", (long long)frac);
    while (n > 0 && digits[n - 1] == '0') n--;
    sqlite3_str_appendchar(s, 1, '.');
    sqlite3_str_append(s, digits, n);
  }
}

static void append_meta(sqlite3_str *s, const char *what, int32_t pid, int32_t tid, const char *name) {
  sqlite3_str_appendf(s, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"name\":", pid, tid, what);
  xp_json_string(s, name, strlen(name));
  sqlite3_str_appendall(s, "}}");
}

static int on_process(void *ctx, const pf_process *p, char **errmsg) {
  pf_json *j = ctx;
  sqlite3_str *s = begin_event(j);
  append_meta(s, "process_name", p->pid, 0, p->name);
  return flush_str(j, s, errmsg);
}

static int on_track(void *ctx, const pf_track *t, char **errmsg) {
  pf_json *j = ctx;
  sqlite3_str *s = begin_event(j);
  append_meta(s, "thread_name", t->pid, t->json_tid, t->name);
  return flush_str(j, s, errmsg);
}

static int on_event(void *ctx, const pf_event *e, char **errmsg) {
  pf_json *j = ctx;
  if (e->type == PF_END) return 1;
  sqlite3_str *s = begin_event(j);
  sqlite3_str_appendf(s, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", e->type == PF_BEGIN ? "X" : "i",
                      e->track->pid, e->track->json_tid);
  append_us(s, e->start_ps);
  if (e->type == PF_BEGIN) {
    sqlite3_str_appendall(s, ",\"dur\":");
    append_us(s, e->dur_ps);
  } else {
    sqlite3_str_appendall(s, ",\"s\":\"t\"");
  }
  sqlite3_str_appendall(s, ",\"name\":");
  xp_json_string(s, e->has_name ? e->name.p : "", e->has_name ? e->name.n : 0);
  sqlite3_str_appendall(s, ",\"cat\":");
  xp_json_string(s, e->category.p, e->category.n);
  sqlite3_str_appendall(s, ",\"args\":");
  if (e->stats) xp_json_stats(s, e->stats);
  else sqlite3_str_appendall(s, "{}");
  sqlite3_str_appendchar(s, 1, '}');
  return flush_str(j, s, errmsg);
}

pf_json *pf_json_new(FILE *f) {
  pf_json *j = sqlite3_malloc(sizeof(*j));
  if (!j) return NULL;
  memset(j, 0, sizeof(*j));
  j->f = f;
  return j;
}

void pf_json_sink(pf_json *j, pf_sink *sink) {
  memset(sink, 0, sizeof(*sink));
  sink->ctx = j;
  sink->process = on_process;
  sink->track = on_track;
  sink->event = on_event;
  sink->want_args = 1;
}

int64_t pf_json_events(const pf_json *j) { return j->events; }

int pf_json_finish(pf_json *j, char **errmsg) {
  const char *tail = j->events ? "\n]}\n" : "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[]}\n";
  if (fputs(tail, j->f) < 0 || fflush(j->f) != 0 || ferror(j->f)) {
    if (!*errmsg) *errmsg = sqlite3_mprintf("%s", strerror(errno));
    return 0;
  }
  return !j->failed;
}

void pf_json_free(pf_json *j) { sqlite3_free(j); }
