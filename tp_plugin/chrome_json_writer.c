/*
** chrome_json_writer.c: Chrome JSON trace writer (see chrome_json_writer.h).
** Each event is formatted into one xp_buf (json.h does strings and stat
** values) and written out at once.
*/
#include "chrome_json_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#include "util.h"

/* A slice with a flow id, seen by the planning pass. */
typedef struct pf_flow_slice {
  uint64_t flow_id;
  int64_t ts_ns, ordinal;
} pf_flow_slice;

struct pf_json {
  FILE *f;
  int64_t events;
  int failed;
  pf_flow_slice *plan; /* planning pass: the slices with flows */
  int64_t n_plan, cap_plan;
  int64_t *starts;     /* ordinals of the slices that start a flow, sorted */
  int64_t n_starts;
};

static int plan_process(void *ctx, const pf_process *p, char **errmsg) {
  (void)ctx, (void)p, (void)errmsg;
  return 1;
}

static int plan_track(void *ctx, const pf_track *t, char **errmsg) {
  (void)ctx, (void)t, (void)errmsg;
  return 1;
}

static int plan_event(void *ctx, const pf_event *e, char **errmsg) {
  pf_json *j = ctx;
  if (e->type != PF_BEGIN || !e->has_flow) return 1;
  if (!xp_grow((void **)&j->plan, &j->cap_plan, j->n_plan + 1, sizeof(pf_flow_slice))) {
    *errmsg = xp_mprintf("out of memory");
    return 0;
  }
  pf_flow_slice *f = &j->plan[j->n_plan++];
  f->flow_id = e->flow_id;
  f->ts_ns = e->ts_ns;
  f->ordinal = e->ordinal;
  return 1;
}

void pf_json_plan_sink(pf_json *j, pf_sink *sink) {
  memset(sink, 0, sizeof(*sink));
  sink->ctx = j;
  sink->process = plan_process;
  sink->track = plan_track;
  sink->event = plan_event;
  sink->want_args = 1;
}

static int by_flow_time(const void *a, const void *b) {
  const pf_flow_slice *x = a, *y = b;
  if (x->flow_id != y->flow_id) return x->flow_id < y->flow_id ? -1 : 1;
  if (x->ts_ns != y->ts_ns) return x->ts_ns < y->ts_ns ? -1 : 1;
  return x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal;
}

static int by_int64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

int pf_json_plan_finish(pf_json *j, char **errmsg) {
  if (j->n_plan) qsort(j->plan, (size_t)j->n_plan, sizeof(pf_flow_slice), by_flow_time);
  j->starts = xp_malloc(sizeof(int64_t) * (uint64_t)(j->n_plan + 1));
  if (!j->starts) {
    *errmsg = xp_mprintf("out of memory");
    return 0;
  }
  for (int64_t i = 0; i < j->n_plan; i++)
    if (i == 0 || j->plan[i].flow_id != j->plan[i - 1].flow_id) j->starts[j->n_starts++] = j->plan[i].ordinal;
  if (j->n_starts) qsort(j->starts, (size_t)j->n_starts, sizeof(int64_t), by_int64);
  xp_free(j->plan);
  j->plan = NULL;
  j->n_plan = j->cap_plan = 0;
  return 1;
}

/* Does the slice with this ordinal start its flow? */
static int starts_flow(const pf_json *j, int64_t ordinal) {
  int64_t lo = 0, hi = j->n_starts;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (j->starts[mid] < ordinal) lo = mid + 1;
    else hi = mid;
  }
  return lo < j->n_starts && j->starts[lo] == ordinal;
}

static int flush_str(pf_json *j, xp_buf *s, char **errmsg) {
  int n = xp_buf_length(s);
  if (xp_buf_errcode(s)) {
    xp_free(xp_buf_finish(s));
    j->failed = 1;
    *errmsg = xp_mprintf("out of memory");
    return 0;
  }
  char *z = xp_buf_finish(s);
  int ok = !n || fwrite(z, 1, (size_t)n, j->f) == (size_t)n;
  xp_free(z);
  if (!ok) {
    j->failed = 1;
    *errmsg = xp_mprintf("%s", strerror(errno));
    return 0;
  }
  j->events++;
  return 1;
}

static xp_buf *begin_event(pf_json *j) {
  xp_buf *s = xp_buf_new();
  xp_buf_appendall(s, j->events ? ",\n" : "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  return s;
}

/* ps as an exact decimal number of microseconds. */
static void append_us(xp_buf *s, int64_t ps) {
  int64_t us = ps / 1000000, frac = ps % 1000000;
  xp_buf_appendf(s, "%lld", (long long)us);
  if (frac) {
    char digits[8];
    int n = 6;
    snprintf(digits, sizeof(digits), "%06lld", (long long)frac);
    while (n > 0 && digits[n - 1] == '0') n--;
    xp_buf_appendchar(s, 1, '.');
    xp_buf_append(s, digits, n);
  }
}

static void append_meta(xp_buf *s, const char *what, int32_t pid, int32_t tid, const char *name) {
  xp_buf_appendf(s, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"name\":", pid, tid, what);
  xp_json_string(s, name, strlen(name));
  xp_buf_appendall(s, "}}");
}

static int on_process(void *ctx, const pf_process *p, char **errmsg) {
  pf_json *j = ctx;
  xp_buf *s = begin_event(j);
  append_meta(s, "process_name", p->pid, 0, p->name);
  return flush_str(j, s, errmsg);
}

static int on_track(void *ctx, const pf_track *t, char **errmsg) {
  pf_json *j = ctx;
  if (t->global) return 1; /* a global instant names no thread */
  xp_buf *s = begin_event(j);
  append_meta(s, "thread_name", t->pid, t->json_tid, t->name);
  return flush_str(j, s, errmsg);
}

/* Annotations (the source record's) as an args object, values as the
** stats' (json.h). */
static void append_args(xp_buf *s, const pf_arg *a, int n) {
  xp_buf_appendchar(s, 1, '{');
  for (int i = 0; i < n; i++) {
    xp_stat v;
    memset(&v, 0, sizeof(v));
    switch (a[i].type) {
      case PF_A_INT: v.type = XP_V_INT64, v.num.i = a[i].v.i; break;
      case PF_A_UINT: v.type = XP_V_UINT64, v.num.u = a[i].v.u; break;
      case PF_A_DOUBLE: v.type = XP_V_DOUBLE, v.num.d = a[i].v.d; break;
      case PF_A_STRING: v.type = XP_V_STR, v.s = a[i].s; break;
    }
    if (i) xp_buf_appendchar(s, 1, ',');
    xp_json_string(s, a[i].name.p, a[i].name.n);
    xp_buf_appendchar(s, 1, ':');
    xp_json_stat_value(s, &v);
  }
  xp_buf_appendchar(s, 1, '}');
}

static int on_event(void *ctx, const pf_event *e, char **errmsg) {
  pf_json *j = ctx;
  if (e->type == PF_END) return 1;
  xp_buf *s = begin_event(j);
  xp_buf_appendf(s, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", e->type == PF_BEGIN ? "X" : "i",
                      e->track->pid, e->track->json_tid);
  append_us(s, e->start_ps);
  if (e->type == PF_BEGIN) {
    xp_buf_appendall(s, ",\"dur\":");
    append_us(s, e->dur_ps);
  } else {
    xp_buf_appendall(s, e->track->global ? ",\"s\":\"g\"" : ",\"s\":\"t\"");
  }
  xp_buf_appendall(s, ",\"name\":");
  xp_json_string(s, e->has_name ? e->name.p : "", e->has_name ? e->name.n : 0);
  xp_buf_appendall(s, ",\"cat\":");
  xp_json_string(s, e->category.p, e->category.n);
  xp_buf_appendall(s, ",\"args\":");
  if (e->stats) xp_json_stats(s, e->stats);
  else append_args(s, e->args, e->n_args);
  if (e->has_flow && e->type == PF_BEGIN)
    xp_buf_appendf(s, ",\"bind_id\":\"%llx\",%s\"flow_out\":true", (unsigned long long)e->flow_id,
                        starts_flow(j, e->ordinal) ? "" : "\"flow_in\":true,");
  xp_buf_appendchar(s, 1, '}');
  return flush_str(j, s, errmsg);
}

pf_json *pf_json_new(FILE *f) {
  pf_json *j = xp_malloc(sizeof(*j));
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
    if (!*errmsg) *errmsg = xp_mprintf("%s", strerror(errno));
    return 0;
  }
  return !j->failed;
}

void pf_json_free(pf_json *j) {
  if (j) {
    xp_free(j->plan);
    xp_free(j->starts);
  }
  xp_free(j);
}
