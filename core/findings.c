/*
** findings.c: the detections of findings.h, each a function of its own
** over the device ops and steps (analysis.h) and the host planes' events.
** Rules (thresholds in findings.h; schema/TABLES.md says the same):
** - recompilation: compile events (compile_names below) on host planes,
**   nested compile events (on their line, or inside a compile event of
**   another line of the plane) folded into the outermost; the module is the
**   innermost enclosing event on the same line that is neither a compile
**   event nor a python-tracer frame (`$...`), e.g. `PjitFunction(f)`, else
**   the compile event's own name. One row per module
**   compiled >= recompile_min times or whose compile time >= compile_share
**   of the profile span (first to last event of any line).
** - host_bound: per device plane, the steps whose idle share (1 - busy/step,
**   xplane_steps) >= idle_share while the union of host-plane events,
**   clipped to the step (events covering the whole step, the step
**   annotations, left out) covers >= host_busy_share of it.
** - transfers: device ops that are memcpys (xp_find_copy_kind); per device
**   plane and direction: count, bytes (memcpy_details `size:N`, else a
**   bytes/size stat), time; a row when time >= transfer_share of the plane's
**   step time (op span when no steps).
** - tiny_kernels: per GPU plane (`/device:GPU:`; TPU ops are not launched
**   one by one), ops other than memcpys shorter than tiny_ps; a row when they
**   are >= tiny_share of the plane's ops and >= tiny_min; the launch gap is
**   the idle time on their line right before each tiny op (start - end of
**   the line's latest op before it), when shorter than
**   XP_FIND_LAUNCH_GAP_FACTOR x tiny_ps (longer idles are not launch cost).
** - synchronization: blocking host calls (sync_names below); for each call
**   and device plane idle when the call returns, the idle time from the
**   return to that plane's next op; an idle gap that several calls of one
**   name return in counts once, from the earliest return (so the total is
**   at most the devices' idle time). One row per call name whose total
**   >= sync_idle_ps; share = that total / (profile span x device planes
**   with ops).
** - memory_bound: op rows of the roofline table (xp_hlo_stats, xprof.h)
**   whose bound_by is "memory" (every run carries flops and bytes_accessed,
**   the devices' peaks are known, FLOP per byte < the ridge point), that are
**   not asynchronous copies or collectives, and whose self time is
**   >= hot_op_share of all device ops' self time. One row per op, in the
**   table's order (self time descending).
** On the JAX CPU backend (the devices of device_time.h are CPU devices)
** host_bound, transfers, tiny_kernels and synchronization are
** findings_cpu.c's instead.
** xp_find_params_parse reads the thresholds from "name=value,..." text.
*/
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cancel.h"
#include "device_time.h"
#include "findings.h"
#include "json.h"
#include "util.h"
#include "xprof.h"
#include "findings_impl.h"

void xp_find_params_default(xp_find_params *fp) {
  fp->recompile_min = XP_FIND_RECOMPILE_MIN;
  fp->compile_share = XP_FIND_COMPILE_SHARE;
  fp->idle_share = XP_FIND_IDLE_SHARE;
  fp->host_busy_share = XP_FIND_HOST_BUSY_SHARE;
  fp->transfer_share = XP_FIND_TRANSFER_SHARE;
  fp->tiny_ps = XP_FIND_TINY_PS;
  fp->tiny_share = XP_FIND_TINY_SHARE;
  fp->tiny_min = XP_FIND_TINY_MIN;
  fp->sync_idle_ps = XP_FIND_SYNC_IDLE_PS;
  fp->hot_op_share = XP_FIND_HOT_OP_SHARE;
}

/* ------------------------------------------------------------ parameters */

enum { PK_COUNT, PK_SHARE, PK_US_POS, PK_US };
static const struct {
  const char *name;
  int kind;
  size_t off;
} param_defs[] = {
    {"recompile_min", PK_COUNT, offsetof(xp_find_params, recompile_min)},
    {"compile_share", PK_SHARE, offsetof(xp_find_params, compile_share)},
    {"idle_share", PK_SHARE, offsetof(xp_find_params, idle_share)},
    {"host_busy_share", PK_SHARE, offsetof(xp_find_params, host_busy_share)},
    {"transfer_share", PK_SHARE, offsetof(xp_find_params, transfer_share)},
    {"tiny_kernel_us", PK_US_POS, offsetof(xp_find_params, tiny_ps)},
    {"tiny_share", PK_SHARE, offsetof(xp_find_params, tiny_share)},
    {"tiny_min", PK_COUNT, offsetof(xp_find_params, tiny_min)},
    {"sync_idle_us", PK_US, offsetof(xp_find_params, sync_idle_ps)},
    {"hot_op_share", PK_SHARE, offsetof(xp_find_params, hot_op_share)},
};
#define N_PARAMS (sizeof(param_defs) / sizeof(param_defs[0]))

static int blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

char *xp_find_params_parse(xp_find_params *fp, const char *text) {
  static const char *const wants[] = {"a whole number >= 1", "a share from 0 to 1",
                                      "microseconds > 0 (at most 1e9)", "microseconds >= 0 (at most 1e9)"};
  unsigned seen = 0;
  const char *p = text ? text : "";
  size_t lead = 0;
  while (blank(p[lead])) lead++;
  if (!p[lead]) return NULL; /* blank: every default */
  for (;;) {
    size_t n = strcspn(p, ",");
    size_t a = 0, b = n;
    while (a < b && blank(p[a])) a++;
    while (b > a && blank(p[b - 1])) b--;
    if (a == b) {
      return xp_mprintf("an empty item in '%s' (write name=value,name=value)", text);
    } else {
      const char *item = p + a;
      size_t len = b - a, eq_at = 0;
      while (eq_at < len && item[eq_at] != '=') eq_at++;
      if (eq_at == len) return xp_mprintf("'%.*s' is not name=value", (int)len, item);
      size_t kn = eq_at, vs = eq_at + 1;
      while (kn > 0 && blank(item[kn - 1])) kn--;
      while (vs < len && blank(item[vs])) vs++;
      size_t k = 0;
      while (k < N_PARAMS && !(strlen(param_defs[k].name) == kn && memcmp(param_defs[k].name, item, kn) == 0)) k++;
      if (k == N_PARAMS) {
        xp_buf *names = xp_buf_new();
        for (size_t j = 0; j < N_PARAMS; j++) xp_buf_appendf(names, "%s%s", j ? ", " : "", param_defs[j].name);
        char *known = xp_buf_finish(names);
        char *msg = xp_mprintf("unknown parameter '%.*s' (known: %s)", (int)kn, item, known ? known : "?");
        xp_free(known);
        return msg;
      }
      if (seen & (1u << k)) return xp_mprintf("parameter %s is given twice", param_defs[k].name);
      seen |= 1u << k;
      double v;
      const char *val = item + vs;
      size_t vn = len - vs;
      int kind = param_defs[k].kind, ok = xp_parse_double(val, vn, &v);
      char *dst = (char *)fp + param_defs[k].off;
      if (ok && kind == PK_COUNT) {
        ok = v >= 1 && v <= 1e15 && v == floor(v);
        if (ok) *(int64_t *)dst = (int64_t)v;
      } else if (ok && kind == PK_SHARE) {
        ok = v >= 0 && v <= 1;
        if (ok) *(double *)dst = v;
      } else if (ok) {
        ok = (kind == PK_US_POS ? v > 0 : v >= 0) && v <= 1e9;
        if (ok) *(int64_t *)dst = (int64_t)llround(v * 1e6);
        if (ok && kind == PK_US_POS && *(int64_t *)dst <= 0) ok = 0;
      }
      if (!ok) return xp_mprintf("parameter %s wants %s, not '%.*s'", param_defs[k].name, wants[kind], (int)vn, val);
    }
    if (!p[n]) break;
    p += n + 1;
  }
  return NULL;
}

/* ------------------------------------------------------------ name classes */

const char *const xp_finding_rules[] = {"recompilation",   "host_bound",   "transfers", "tiny_kernels",
                                        "synchronization", "memory_bound", NULL};

/* memmem: glibc's two-way search (a memcmp at every offset was a third of
** the findings' time on a 309 MB JAX CPU capture: BENCHMARKS.md). */
int xp_fl_has(const char *p, size_t n, const char *needle) {
  size_t k = strlen(needle);
  return k <= n && memmem(p, n, needle, k) != NULL;
}

static int eq(const char *p, size_t n, const char *z) {
  return strlen(z) == n && memcmp(p, z, n) == 0;
}

/* Compile events: these names exactly, or a name ending in "::Compile". */
static const char *const compile_names[] = {"backend_compile", "backend_compile_and_load", "XlaCompile", "xla_compile", "jax_compile", NULL};

int xp_find_is_compile(const char *p, size_t n) {
  for (int i = 0; compile_names[i]; i++)
    if (eq(p, n, compile_names[i])) return 1;
  return n >= 9 && memcmp(p + n - 9, "::Compile", 9) == 0;
}

/* Blocking host calls: names containing one of these. */
static const char *const sync_names[] = {"block_until_ready", "BlockHostUntilReady", "device_get", "np.asarray(jax.Array)",
                                         "StreamSynchronize", "DeviceSynchronize", "CtxSynchronize",
                                         "EventSynchronize", NULL};

int xp_find_is_sync(const char *p, size_t n) {
  for (int i = 0; sync_names[i]; i++)
    if (xp_fl_has(p, n, sync_names[i])) return 1;
  return 0;
}

static int copy_kind_of(const char *p, size_t n) {
  if (xp_fl_has(p, n, "HtoD") || xp_fl_has(p, n, "H2D") || xp_fl_has(p, n, "HostToDevice")) return 1;
  if (xp_fl_has(p, n, "DtoH") || xp_fl_has(p, n, "D2H") || xp_fl_has(p, n, "DeviceToHost")) return 2;
  if (xp_fl_has(p, n, "DtoD") || xp_fl_has(p, n, "D2D") || xp_fl_has(p, n, "DeviceToDevice")) return 3;
  if (xp_fl_has(p, n, "Memcpy") || xp_fl_has(p, n, "memcpy")) return 4;
  return 0;
}

int xp_find_copy_kind(xp_str name, xp_str line) {
  int k = copy_kind_of(name.p, name.n);
  if (!k && (xp_fl_has(line.p, line.n, "Memcpy") || xp_fl_has(line.p, line.n, "memcpy"))) k = copy_kind_of(line.p, line.n);
  return k;
}

/* Asynchronous copies and collectives, by name or category prefix. */
static const char *const async_prefixes[] = {"copy-start", "copy-done", "send", "recv", "all-reduce", "all-gather",
                                             "reduce-scatter", "all-to-all", "collective-permute", "async",
                                             NULL};

static int async_name(xp_str s) {
  for (int i = 0; async_prefixes[i]; i++) {
    size_t k = strlen(async_prefixes[i]);
    if (s.n >= k && memcmp(s.p, async_prefixes[i], k) == 0) return 1;
  }
  return 0;
}

int xp_find_is_async_or_collective(xp_str name, xp_str category) {
  return async_name(name) || async_name(category);
}

static const char *const copy_kind_names[5] = {"", "HtoD", "DtoH", "DtoD", "other"};

/* --------------------------------------------------------------- shared */


/* Every 4096 items of a long loop: has the query been interrupted? */
int xp_fl_stop(flist *fl, int64_t k) {
  if ((k & 4095) == 4095 && xp_cancelled()) fl->oom = 1;
  return fl->oom;
}

xp_finding *xp_fl_add(flist *fl, const char *id) {
  if (fl->oom || !xp_grow((void **)&fl->v, &fl->cap, fl->n + 1, sizeof(xp_finding))) {
    fl->oom = 1;
    return NULL;
  }
  xp_finding *f = &fl->v[fl->n++];
  memset(f, 0, sizeof(*f));
  f->id = id;
  f->plane = -1;
  f->of = -1;
  f->bytes = -1;
  return f;
}

/* Take a finished buffer's text; marks OOM on failure. */
char *xp_fl_take(flist *fl, xp_buf *b) {
  if (xp_buf_errcode(b) != XP_BUF_OK) {
    xp_buf_free(b);
    fl->oom = 1;
    return NULL;
  }
  char *z = xp_buf_finish(b);
  if (!z) fl->oom = 1;
  return z;
}

/* End an evidence object with its last number (a share threshold) and take it. */
char *xp_fl_evidence_end(flist *fl, xp_buf *b, double last) {
  xp_buf_append_g17(b, last);
  xp_buf_appendchar(b, 1, '}');
  return xp_fl_take(fl, b);
}

static int is_device_plane(const xp_plane *pl) {
  return pl->name.n >= 8 && memcmp(pl->name.p, "/device:", 8) == 0;
}

/* Kernels are launched one by one on GPUs only (TPU ops run inside one program). */
static int is_gpu_plane(const xp_plane *pl) {
  return pl->name.n >= 12 && memcmp(pl->name.p, "/device:GPU:", 12) == 0;
}

static int is_host_plane(const xp_plane *pl) {
  return pl->name.n >= 6 && memcmp(pl->name.p, "/host:", 6) == 0;
}

/* The span of the profile: first start to last end of any line, 0 if none. */
int64_t xp_fl_profile_span(const xp_profile *p) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (int32_t i = 0; i < p->n_planes; i++)
    for (int32_t j = 0; j < p->planes[i].n_lines; j++) {
      const xp_line *ln = &p->planes[i].lines[j];
      if (!ln->n_timed) continue;
      if (ln->min_start_ps < lo) lo = ln->min_start_ps;
      if (ln->max_end_ps > hi) hi = ln->max_end_ps;
    }
  return hi > lo ? hi - lo : 0;
}

static int hev_cmp(const void *a, const void *b) {
  const hev *x = a, *y = b;
  if (x->plane != y->plane) return x->plane < y->plane ? -1 : 1;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->dur != y->dur) return x->dur > y->dur ? -1 : 1; /* enclosing first */
  return 0;
}

uint8_t xp_fl_name_class(xp_str n) {
  uint8_t c = 0;
  if (xp_find_is_sync(n.p, n.n)) c |= HEV_SYNC | HEV_WAIT;
  else if (xp_str_starts(n, "Wait") || xp_fl_has(n.p, n.n, "wait for")) c |= HEV_WAIT;
  if (xp_fl_has(n.p, n.n, "DevicePut") || xp_fl_has(n.p, n.n, "BufferFromPyval") ||
      xp_fl_has(n.p, n.n, "TransferToDevice"))
    c |= HEV_H2D;
  return c;
}

/* Every analysis event of the host planes, ordered by (plane, line, start, dur desc),
** each with the class of its name (worked out once per event metadata entry). */
static int host_events(const xp_profile *p, hevvec *hv) {
  for (int32_t i = 0; i < p->n_planes; i++) {
    const xp_plane *pl = &p->planes[i];
    if (!is_host_plane(pl)) continue;
    xp_class_memo memo; /* the class of emeta[k]'s name (util.h) */
    if (!xp_class_memo_init(&memo, pl->n_emeta)) return 0;
    for (int32_t j = 0; j < pl->n_lines; j++) {
      const xp_line *ln = &pl->lines[j];
      xp_event_iter it;
      xp_event ev;
      xp_events_begin(p, ln, &it);
      while (xp_events_next(&it, &ev)) {
        const xp_event_meta *em;
        xp_str name;
        if (!xp_analysis_event(pl, &ev, &em, &name)) continue;
        if (!xp_grow((void **)&hv->v, &hv->cap, hv->n + 1, sizeof(hev))) {
          xp_class_memo_free(&memo);
          return 0;
        }
        int cls = xp_class_memo_get(&memo, em - pl->emeta);
        if (cls < 0) xp_class_memo_set(&memo, em - pl->emeta, cls = xp_fl_name_class(name));
        hv->v[hv->n++] = (hev){xp_event_start(ln, &ev), ev.duration_ps, i, j, name, (uint8_t)cls};
      }
    }
    xp_class_memo_free(&memo);
  }
  /* xp_sort: millions of host events on a large profile; it stops on an interrupt */
  return hv->n < 2 || xp_sort(hv->v, hv->n, sizeof(hev), hev_cmp);
}

/* Append "a,b,c" items to a list capped at `cap` items ("..." after). */
static void list_add(xp_buf *b, int64_t *n, int64_t cap, const char *p, size_t len) {
  if (*n < cap) {
    if (*n) xp_buf_appendchar(b, 1, ',');
    xp_buf_append(b, p, len);
  } else if (*n == cap) {
    xp_buf_appendall(b, ",...");
  }
  (*n)++;
}

static void list_add_i64(xp_buf *b, int64_t *n, int64_t cap, int64_t v) {
  char tmp[24];
  int k = snprintf(tmp, sizeof(tmp), "%lld", (long long)v);
  list_add(b, n, cap, tmp, (size_t)k);
}

#define LIST_CAP 20

/* ---------------------------------------------------------- recompilation */

typedef struct cmod {
  xp_str module;
  int64_t count, time_ps, first, last_end;
} cmod;

/* A compile event not nested in another on its line, with its module. */
typedef struct cev {
  int64_t start, dur;
  int32_t plane;
  xp_str module;
} cev;

static int cev_cmp(const void *a, const void *b) {
  const cev *x = a, *y = b;
  if (x->plane != y->plane) return x->plane < y->plane ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->dur > y->dur ? -1 : x->dur < y->dur; /* enclosing first */
}

/* The module of a compile event: the innermost enclosing event that is not
** a compile event nor a Python frame of the python tracer (`$file.py:N f`). */
static int module_event(const hev *o) {
  return !xp_find_is_compile(o->name.p, o->name.n) && !(o->name.n && o->name.p[0] == '$');
}

static void find_recompilation(xp_profile *p, const xp_find_params *fp, const hevvec *hv, flist *fl) {
  cmod *mods = NULL;
  cev *cv = NULL;
  int64_t n_mods = 0, cap = 0, n_compiles = 0, compile_ps = 0, ncv = 0, ccv = 0;
  /* per line: a stack of open events (indexes into hv) */
  int64_t *stack = NULL, sp = 0, scap = 0;
  for (int64_t k = 0; k < hv->n && !xp_fl_stop(fl, k); k++) {
    const hev *e = &hv->v[k];
    if (k == 0 || e->plane != hv->v[k - 1].plane || e->line != hv->v[k - 1].line) sp = 0;
    while (sp > 0 && hv->v[stack[sp - 1]].start + hv->v[stack[sp - 1]].dur <= e->start) sp--;
    if (xp_find_is_compile(e->name.p, e->name.n)) {
      int nested = 0;
      xp_str module = e->name;
      for (int64_t s = sp - 1; s >= 0; s--) {
        const hev *o = &hv->v[stack[s]];
        if (o->start + o->dur < e->start + e->dur) continue; /* not enclosing */
        if (xp_find_is_compile(o->name.p, o->name.n)) { nested = 1; break; }
      }
      if (!nested) {
        for (int64_t s = sp - 1; s >= 0; s--) {
          const hev *o = &hv->v[stack[s]];
          if (o->start + o->dur >= e->start + e->dur && module_event(o)) {
            module = o->name;
            break;
          }
        }
        if (!xp_grow((void **)&cv, &ccv, ncv + 1, sizeof(cev))) { fl->oom = 1; break; }
        cv[ncv++] = (cev){e->start, e->dur, e->plane, module};
      }
    }
    if (!xp_grow((void **)&stack, &scap, sp + 1, sizeof(int64_t))) { fl->oom = 1; break; }
    stack[sp++] = k;
  }
  /* A compile event inside one of another line of its plane is part of it
  ** (JAX: the compiler thread pool's PjRtCpuClient::Compile and the codegen
  ** threads' FusionCompiler::Compile run inside the Python thread's
  ** backend_compile_and_load). */
  if (!fl->oom && ncv > 1) qsort(cv, (size_t)ncv, sizeof(cev), cev_cmp);
  int64_t outer_end = INT64_MIN;
  int32_t outer_plane = -1;
  for (int64_t k = 0; k < ncv && !fl->oom; k++) {
    const cev *e = &cv[k];
    if (e->plane == outer_plane && e->start + e->dur <= outer_end) continue;
    outer_plane = e->plane;
    outer_end = e->start + e->dur;
    int64_t m = 0;
    while (m < n_mods && !(mods[m].module.n == e->module.n && memcmp(mods[m].module.p, e->module.p, e->module.n) == 0)) m++;
    if (m == n_mods) {
      if (!xp_grow((void **)&mods, &cap, n_mods + 1, sizeof(cmod))) { fl->oom = 1; break; }
      mods[n_mods++] = (cmod){e->module, 0, 0, e->start, e->start + e->dur};
    }
    mods[m].count++;
    mods[m].time_ps += e->dur;
    if (e->start < mods[m].first) mods[m].first = e->start;
    if (e->start + e->dur > mods[m].last_end) mods[m].last_end = e->start + e->dur;
    n_compiles++;
    compile_ps += e->dur;
  }
  xp_free(cv);
  int64_t span = xp_fl_profile_span(p);
  for (int64_t m = 0; m < n_mods && !fl->oom; m++) {
    double share = span > 0 ? (double)mods[m].time_ps / (double)span : 0;
    if (mods[m].count < fp->recompile_min && share < fp->compile_share) continue;
    xp_finding *f = xp_fl_add(fl, "recompilation");
    if (!f) break;
    f->severity = mods[m].count >= fp->recompile_min ? "high" : "medium";
    f->subject = xp_mprintf("%.*s", (int)mods[m].module.n, mods[m].module.p);
    if (!f->subject) fl->oom = 1;
    f->count = mods[m].count;
    f->of = n_compiles;
    f->time_ps = mods[m].time_ps;
    f->share = share;
    f->start_ps = mods[m].first;
    f->end_ps = mods[m].last_end;
    xp_buf *b = xp_buf_new();
    xp_buf_appendf(b, "{\"compiles\":%lld,\"compile_ps\":%lld,\"profile_span_ps\":%lld,\"all_compiles\":%lld,"
                      "\"all_compile_ps\":%lld,\"recompile_min\":%lld,\"compile_share_min\":",
                   (long long)mods[m].count, (long long)mods[m].time_ps, (long long)span, (long long)n_compiles,
                   (long long)compile_ps, (long long)fp->recompile_min);
    f->evidence = xp_fl_evidence_end(fl, b, fp->compile_share);
    f->suggestion = f->count >= fp->recompile_min
                        ? "The same function is compiled again: shapes, dtypes or static arguments change between calls "
                          "(shape churn). Pad or bucket input shapes, mark fewer arguments static, and check "
                          "jax.log_compiles / jax_explain_cache_misses for the cause."
                        : "Compilation takes a large share of the profile: profile after warm-up, or use the "
                          "persistent compilation cache.";
  }
  xp_free(stack);
  xp_free(mods);
}

/* ------------------------------------------------------------ host-bound */

/* Intervals of one kind (host busy), sorted by start. */
typedef struct ivs {
  int64_t *s, *e;
  int64_t n, max_dur;
} ivs;

/* Busy time of the host within [lo, hi): union of host events clipped to it,
** leaving out events that cover the whole window. hv sorted per line, so
** the clipped intervals are collected and merged here. */
static int64_t host_busy(const hevvec *hv, const int64_t *order, int64_t lo, int64_t hi, int64_t max_dur,
                         int64_t *scratch_s, int64_t *scratch_e) {
  /* order: hv indexes sorted by start; binary search the first with start >= lo - max_dur */
  int64_t a = 0, b = hv->n;
  while (a < b) {
    int64_t m = a + (b - a) / 2;
    if (hv->v[order[m]].start < lo - max_dur) a = m + 1;
    else b = m;
  }
  int64_t n = 0;
  for (int64_t k = a; k < hv->n; k++) {
    const hev *e = &hv->v[order[k]];
    if (e->start >= hi) break;
    int64_t s = e->start, t = e->start + e->dur;
    if (t <= lo) continue;
    if (s <= lo && t >= hi) continue; /* covers the whole step: an annotation */
    scratch_s[n] = s < lo ? lo : s;
    scratch_e[n] = t > hi ? hi : t;
    n++;
  }
  /* scratch is in start order (clipping keeps it so except for the lo clamp, which only ties) */
  int64_t busy = 0, cs = 0, ce = INT64_MIN;
  for (int64_t k = 0; k < n; k++) {
    if (scratch_s[k] > ce) {
      if (ce > cs) busy += ce - cs;
      cs = scratch_s[k];
      ce = scratch_e[k];
    } else if (scratch_e[k] > ce) {
      ce = scratch_e[k];
    }
  }
  if (ce > cs && ce != INT64_MIN) busy += ce - cs;
  return busy;
}

/* (start, index) pairs, sorted by start then index. */
static int order_cmp(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

static void find_host_bound(xp_profile *p, const xp_find_params *fp, const hevvec *hv, flist *fl) {
  const xp_step *steps;
  int64_t ns = xp_steps(p, &steps);
  if (ns < 0) { fl->oom = 1; return; }
  if (ns == 0) return;
  int64_t *pairs = xp_malloc(2 * sizeof(int64_t) * (uint64_t)(hv->n + 1));
  int64_t *order = xp_malloc(sizeof(int64_t) * (uint64_t)(hv->n + 1));
  int64_t *ss = xp_malloc(sizeof(int64_t) * (uint64_t)(hv->n + 1));
  int64_t *se = xp_malloc(sizeof(int64_t) * (uint64_t)(hv->n + 1));
  if (!pairs || !order || !ss || !se) {
    fl->oom = 1;
    goto done;
  }
  int64_t max_dur = 0;
  for (int64_t k = 0; k < hv->n; k++) {
    pairs[2 * k] = hv->v[k].start;
    pairs[2 * k + 1] = k;
    if (hv->v[k].dur > max_dur) max_dur = hv->v[k].dur;
  }
  if (hv->n > 1 && !xp_sort(pairs, hv->n, 2 * sizeof(int64_t), order_cmp)) fl->oom = 1;
  for (int64_t k = 0; k < hv->n; k++) order[k] = pairs[2 * k + 1];
  for (int32_t plane = 0; plane < p->n_planes && !fl->oom; plane++) {
    int64_t n_steps = 0, n_bound = 0, idle = 0, dur = 0, host = 0, first = INT64_MAX, last = INT64_MIN, nl = 0;
    xp_buf *list = NULL;
    for (int64_t i = 0; i < ns && !xp_fl_stop(fl, i | 4095); i++) { /* each step scans host events: check every step */
      const xp_step *s = &steps[i];
      if (s->plane != plane || s->dur_ps <= 0) continue;
      n_steps++;
      int64_t busy = s->compute_ps + s->communication_ps + s->stall_ps;
      int64_t id = s->dur_ps > busy ? s->dur_ps - busy : 0;
      if ((double)id < fp->idle_share * (double)s->dur_ps) continue;
      int64_t hb = host_busy(hv, order, s->start_ps, s->start_ps + s->dur_ps, max_dur, ss, se);
      if ((double)hb < fp->host_busy_share * (double)s->dur_ps) continue;
      if (!list) list = xp_buf_new();
      list_add_i64(list, &nl, LIST_CAP, s->number);
      n_bound++;
      idle += id;
      dur += s->dur_ps;
      host += hb;
      if (s->start_ps < first) first = s->start_ps;
      if (s->start_ps + s->dur_ps > last) last = s->start_ps + s->dur_ps;
    }
    if (!n_bound) continue;
    xp_finding *f = xp_fl_add(fl, "host_bound");
    if (!f) { xp_buf_free(list); break; }
    f->plane = plane;
    f->count = n_bound;
    f->of = n_steps;
    f->time_ps = idle;
    f->share = (double)idle / (double)dur;
    f->severity = f->share >= 0.5 ? "high" : "medium";
    f->start_ps = first;
    f->end_ps = last;
    f->steps = xp_fl_take(fl, list);
    xp_buf *b = xp_buf_new();
    xp_buf_appendf(b, "{\"steps\":%lld,\"host_bound_steps\":%lld,\"step_ps\":%lld,\"device_idle_ps\":%lld,"
                      "\"host_busy_ps\":%lld,\"idle_share_min\":",
                   (long long)n_steps, (long long)n_bound, (long long)dur, (long long)idle, (long long)host);
    xp_buf_append_g17(b, fp->idle_share);
    xp_buf_appendall(b, ",\"host_busy_share_min\":");
    f->evidence = xp_fl_evidence_end(fl, b, fp->host_busy_share);
    f->suggestion = "The device waits for the host: move input preprocessing off the training loop (prefetch, "
                    "asynchronous data loading), avoid Python work and host callbacks between steps, and "
                    "dispatch the next step before reading results of the last one.";
  }
done:
  xp_free(pairs);
  xp_free(order);
  xp_free(ss);
  xp_free(se);
}

/* ------------------------------------------------------ ops by plane */

/* The ops grouped by plane (op order kept within a plane) and each op's copy
** kind, computed once (name kinds memoized per event metadata, line kinds
** per line), so every rule walks only its plane's ops. */
typedef struct opindex {
  int64_t *idx;   /* op indexes, plane by plane */
  int64_t *first; /* plane p's ops: idx[first[p] .. first[p + 1]) */
  uint8_t *kind;  /* per op: xp_find_copy_kind */
} opindex;

static void opindex_free(opindex *x) {
  xp_free(x->idx);
  xp_free(x->first);
  xp_free(x->kind);
}

static int opindex_build(xp_profile *p, const xp_op *ops, int64_t n_ops, opindex *x) {
  memset(x, 0, sizeof(*x));
  x->idx = xp_malloc(sizeof(int64_t) * (uint64_t)(n_ops + 1));
  x->first = xp_malloc(sizeof(int64_t) * (uint64_t)(p->n_planes + 2));
  x->kind = xp_malloc((uint64_t)n_ops + 1);
  if (!x->idx || !x->first || !x->kind) return 0;
  memset(x->first, 0, sizeof(int64_t) * (size_t)(p->n_planes + 2));
  for (int64_t i = 0; i < n_ops; i++) x->first[ops[i].plane + 2]++;
  for (int32_t k = 2; k < p->n_planes + 2; k++) x->first[k] += x->first[k - 1];
  for (int64_t i = 0; i < n_ops; i++) x->idx[x->first[ops[i].plane + 1]++] = i;
  /* now first[p + 1] is the end of plane p = the start of plane p + 1; first[0] = 0 */
  int ok = 1;
  for (int32_t plane = 0; ok && plane < p->n_planes; plane++) {
    const xp_plane *pl = &p->planes[plane];
    if (x->first[plane] == x->first[plane + 1]) continue;
    /* 0 = not computed, else kind + 1 */
    uint8_t *name_kind = xp_malloc((uint64_t)pl->n_emeta + 1), *line_kind = xp_malloc((uint64_t)pl->n_lines + 1);
    ok = name_kind && line_kind;
    if (ok) {
      memset(name_kind, 0, (size_t)pl->n_emeta + 1);
      memset(line_kind, 0, (size_t)pl->n_lines + 1);
      for (int64_t j = x->first[plane]; j < x->first[plane + 1]; j++) {
        const xp_op *o = &ops[x->idx[j]];
        uint8_t *nk = &name_kind[o->emeta], *lk = &line_kind[o->line];
        if (!*nk) {
          xp_str name = xp_op_name(p, o);
          *nk = (uint8_t)(copy_kind_of(name.p, name.n) + 1);
        }
        if (!*lk) {
          xp_str ln = pl->lines[o->line].name;
          *lk = (uint8_t)((xp_fl_has(ln.p, ln.n, "Memcpy") || xp_fl_has(ln.p, ln.n, "memcpy") ? copy_kind_of(ln.p, ln.n) : 0) + 1);
        }
        x->kind[x->idx[j]] = (uint8_t)(*nk - 1 ? *nk - 1 : *lk - 1);
      }
    }
    xp_free(name_kind);
    xp_free(line_kind);
  }
  return ok;
}

/* ------------------------------------------------------------- transfers */

/* Bytes of a copy: memcpy_details' "size:N", else a bytes / size / num_bytes stat. */
static int64_t copy_bytes(const xp_statvec *sv) {
  const xp_stat *d = xp_statvec_find(sv, "memcpy_details");
  if (d && (d->type == XP_V_STR || d->type == XP_V_REF)) {
    const char *q = d->s.p;
    size_t n = d->s.n;
    for (size_t i = 0; i + 5 <= n; i++)
      if (memcmp(q + i, "size:", 5) == 0) {
        int64_t v = 0;
        size_t j = i + 5;
        if (j >= n || q[j] < '0' || q[j] > '9') break;
        while (j < n && q[j] >= '0' && q[j] <= '9' && v < INT64_MAX / 10) v = v * 10 + (q[j++] - '0');
        return v;
      }
  }
  static const char *const names[] = {"bytes", "size", "num_bytes", "memcpy_bytes", NULL};
  for (int k = 0; names[k]; k++) {
    const xp_stat *s = xp_statvec_find(sv, names[k]);
    if (s && s->type == XP_V_INT64) return s->num.i;
    if (s && s->type == XP_V_UINT64) return (int64_t)s->num.u;
  }
  return 0;
}

typedef struct tagg {
  int64_t count, bytes, time, in_steps, first, last;
} tagg;

static void find_transfers(xp_profile *p, const xp_find_params *fp, const xp_op *ops, const opindex *x,
                           const xp_step *steps, int64_t ns, flist *fl) {
  xp_statvec sv;
  memset(&sv, 0, sizeof(sv));
  for (int32_t plane = 0; plane < p->n_planes && !fl->oom; plane++) {
    const xp_plane *pl = &p->planes[plane];
    if (!is_device_plane(pl)) continue;
    tagg agg[5];
    memset(agg, 0, sizeof(agg));
    int64_t lo = INT64_MAX, hi = INT64_MIN, step_ps = 0, n_steps = 0;
    for (int64_t j = x->first[plane]; j < x->first[plane + 1]; j++) {
      const xp_op *o = &ops[x->idx[j]];
      if (o->start_ps < lo) lo = o->start_ps;
      if (o->start_ps + o->dur_ps > hi) hi = o->start_ps + o->dur_ps;
      int k = x->kind[x->idx[j]];
      if (!k) continue;
      sv.n = 0;
      if (!xp_op_stats(p, o, &sv)) { fl->oom = 1; break; }
      tagg *a = &agg[k];
      if (!a->count) { a->first = o->start_ps; a->last = o->start_ps + o->dur_ps; }
      a->count++;
      a->bytes += copy_bytes(&sv);
      a->time += o->dur_ps;
      if (o->step >= 0) a->in_steps++;
      if (o->start_ps < a->first) a->first = o->start_ps;
      if (o->start_ps + o->dur_ps > a->last) a->last = o->start_ps + o->dur_ps;
    }
    for (int64_t i = 0; i < ns; i++)
      if (steps[i].plane == plane) { step_ps += steps[i].dur_ps; n_steps++; }
    int64_t ref = n_steps ? step_ps : (hi > lo ? hi - lo : 0);
    for (int k = 1; k <= 4 && !fl->oom; k++) {
      tagg *a = &agg[k];
      if (!a->count || ref <= 0) continue;
      double share = (double)a->time / (double)ref;
      if (share < fp->transfer_share) continue;
      xp_finding *f = xp_fl_add(fl, "transfers");
      if (!f) break;
      f->plane = plane;
      f->subject = xp_mprintf("%s", copy_kind_names[k]);
      if (!f->subject) fl->oom = 1;
      f->severity = share >= 3 * fp->transfer_share ? "high" : "medium";
      f->count = a->count;
      f->time_ps = a->time;
      f->share = share;
      f->bytes = a->bytes;
      f->start_ps = a->first;
      f->end_ps = a->last;
      xp_buf *b = xp_buf_new();
      xp_buf_appendf(b, "{\"direction\":\"%s\",\"copies\":%lld,\"bytes\":%lld,\"copy_ps\":%lld,\"in_steps\":%lld,"
                        "\"reference_ps\":%lld,\"reference\":\"%s\",\"transfer_share_min\":",
                     copy_kind_names[k], (long long)a->count, (long long)a->bytes, (long long)a->time,
                     (long long)a->in_steps, (long long)ref, n_steps ? "step time" : "op span");
      f->evidence = xp_fl_evidence_end(fl, b, fp->transfer_share);
      f->suggestion = k == 2 ? "Device-to-host copies inside the loop stall it: keep values on the device, log "
                               "metrics every N steps, and fetch with jax.device_get outside the step."
                      : k == 1 ? "Host-to-device copies take step time: prefetch inputs to the device ahead "
                                 "of the step (double buffering) and keep parameters on the device."
                               : "Copies take step time: check for resharding or layout changes between ops, "
                                 "and donate buffers to avoid copies.";
    }
  }
  xp_statvec_free(&sv);
}

/* ----------------------------------------------------------- tiny kernels */

typedef struct lastend {
  int32_t plane, line;
  int64_t end;
} lastend;

static void find_tiny(xp_profile *p, const xp_find_params *fp, const xp_op *ops, int64_t n_ops, const opindex *x,
                      flist *fl) {
  /* per-op gap on its line: ops of a track come grouped and in start order
  ** per line (pass.c); keep the latest end per (plane, line) seen. */
  int64_t *gap = xp_malloc(sizeof(int64_t) * (uint64_t)(n_ops + 1));
  lastend *le = NULL;
  int64_t nle = 0, cle = 0;
  if (!gap) { fl->oom = 1; return; }
  for (int64_t i = 0; i < n_ops && !xp_fl_stop(fl, i); i++) {
    const xp_op *o = &ops[i];
    int64_t k = nle && le[nle - 1].plane == o->plane && le[nle - 1].line == o->line ? nle - 1 : 0;
    while (k < nle && !(le[k].plane == o->plane && le[k].line == o->line)) k++;
    if (k == nle) {
      if (!xp_grow((void **)&le, &cle, nle + 1, sizeof(lastend))) { fl->oom = 1; break; }
      le[nle++] = (lastend){o->plane, o->line, INT64_MIN};
    }
    gap[i] = le[k].end != INT64_MIN && o->start_ps > le[k].end ? o->start_ps - le[k].end : 0;
    if (gap[i] > XP_FIND_LAUNCH_GAP_FACTOR * fp->tiny_ps) gap[i] = 0; /* an idle period, not a launch gap */
    if (o->start_ps + o->dur_ps > le[k].end) le[k].end = o->start_ps + o->dur_ps;
  }
  for (int32_t plane = 0; plane < p->n_planes && !fl->oom; plane++) {
    const xp_plane *pl = &p->planes[plane];
    if (!is_gpu_plane(pl)) continue;
    int64_t n = 0, n_tiny = 0, tiny_ps = 0, gap_ps = 0, first = INT64_MAX, last = INT64_MIN;
    for (int64_t j = x->first[plane]; j < x->first[plane + 1]; j++) {
      int64_t i = x->idx[j];
      const xp_op *o = &ops[i];
      if (x->kind[i]) continue;
      n++;
      if (o->dur_ps >= fp->tiny_ps) continue;
      n_tiny++;
      tiny_ps += o->dur_ps;
      gap_ps += gap[i];
      if (o->start_ps < first) first = o->start_ps;
      if (o->start_ps + o->dur_ps > last) last = o->start_ps + o->dur_ps;
    }
    if (!n || n_tiny < fp->tiny_min || (double)n_tiny < fp->tiny_share * (double)n) continue;
    xp_finding *f = xp_fl_add(fl, "tiny_kernels");
    if (!f) break;
    f->plane = plane;
    f->count = n_tiny;
    f->of = n;
    f->time_ps = gap_ps;
    f->share = tiny_ps + gap_ps > 0 ? (double)gap_ps / (double)(tiny_ps + gap_ps) : 0;
    f->severity = (double)n_tiny >= 0.6 * (double)n ? "high" : "medium";
    f->start_ps = first;
    f->end_ps = last;
    /* the most frequent tiny names would need a map; list the first distinct ones */
    xp_buf *names = xp_buf_new();
    int64_t nl = 0;
    xp_str seen[5];
    int n_seen = 0;
    for (int64_t j = x->first[plane]; j < x->first[plane + 1] && n_seen < 5; j++) {
      const xp_op *o = &ops[x->idx[j]];
      if (o->dur_ps >= fp->tiny_ps || x->kind[x->idx[j]]) continue;
      xp_str nm = xp_op_name(p, o);
      int dup = 0;
      for (int s = 0; s < n_seen; s++) dup |= seen[s].n == nm.n && memcmp(seen[s].p, nm.p, nm.n) == 0;
      if (dup) continue;
      seen[n_seen++] = nm;
      list_add(names, &nl, 5, nm.p, nm.n);
    }
    f->ops = xp_fl_take(fl, names);
    xp_buf *b = xp_buf_new();
    xp_buf_appendf(b, "{\"kernels\":%lld,\"tiny_kernels\":%lld,\"tiny_ps\":%lld,\"launch_gap_ps\":%lld,"
                      "\"tiny_threshold_ps\":%lld,\"tiny_min\":%lld,\"tiny_share_min\":",
                   (long long)n, (long long)n_tiny, (long long)tiny_ps, (long long)gap_ps, (long long)fp->tiny_ps,
                   (long long)fp->tiny_min);
    f->evidence = xp_fl_evidence_end(fl, b, fp->tiny_share);
    f->suggestion = "Many kernels are shorter than their launch cost: let XLA fuse more (avoid host callbacks "
                    "and custom calls between elementwise ops), batch small operations, or capture the step as "
                    "a CUDA graph (XLA command buffers).";
  }
  xp_free(gap);
  xp_free(le);
}

/* -------------------------------------------------------- synchronization */


static int cmp_i64pair(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

typedef struct sagg {
  xp_str name;
  int64_t calls, call_ps, idle_ps, first, last, worst;
} sagg;

/* A device idle gap a call returned in: call name, device, the gap (its
** next busy interval), the return time. */
typedef struct sgap {
  int64_t a, d, lo, t;
} sgap;

static int cmp_sgap(const void *x, const void *y) {
  const sgap *u = x, *v = y;
  if (u->a != v->a) return u->a < v->a ? -1 : 1;
  if (u->d != v->d) return u->d < v->d ? -1 : 1;
  if (u->lo != v->lo) return u->lo < v->lo ? -1 : 1;
  return u->t < v->t ? -1 : u->t > v->t;
}

int xp_fl_busy_add(pbusy *b, int64_t s, int64_t e) {
  if (b->n && s <= b->e[b->n - 1]) {
    if (e > b->e[b->n - 1]) b->e[b->n - 1] = e;
    return 1;
  }
  if (b->n == b->cap) {
    int64_t cs = b->cap, ce = b->cap;
    if (!xp_grow((void **)&b->s, &cs, b->n + 1, sizeof(int64_t)) ||
        !xp_grow((void **)&b->e, &ce, b->n + 1, sizeof(int64_t)))
      return 0;
    b->cap = cs < ce ? cs : ce;
  }
  b->s[b->n] = s;
  b->e[b->n] = e;
  b->n++;
  return 1;
}

/* The synchronization rule over any set of devices, each given by its merged
** busy intervals (device planes here; the CPU backend's devices in
** findings_cpu.c); devices without ops are skipped. */
void xp_fl_sync(xp_profile *p, const xp_find_params *fp, const pbusy *pb, int64_t n_pb, const hevvec *hv,
                flist *fl) {
  sagg *agg = NULL;
  sgap *gap = NULL;
  int64_t na = 0, ca = 0, ng = 0, cg = 0;
  for (int64_t k = 0; k < hv->n && !xp_fl_stop(fl, k); k++) {
    const hev *e = &hv->v[k];
    if (!(e->cls & HEV_SYNC)) continue;
    int64_t t = e->start + e->dur;
    int64_t a = 0;
    while (a < na && !(agg[a].name.n == e->name.n && memcmp(agg[a].name.p, e->name.p, e->name.n) == 0)) a++;
    if (a == na) {
      if (!xp_grow((void **)&agg, &ca, na + 1, sizeof(sagg))) { fl->oom = 1; break; }
      agg[na++] = (sagg){e->name, 0, 0, 0, e->start, t, 0};
    }
    agg[a].calls++;
    agg[a].call_ps += e->dur;
    if (e->start < agg[a].first) agg[a].first = e->start;
    if (t > agg[a].last) agg[a].last = t;
    for (int64_t d = 0; d < n_pb; d++) {
      const pbusy *b = &pb[d];
      if (!b->n) continue;
      /* first interval with start > t */
      int64_t lo = 0, hi = b->n;
      while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (b->s[mid] <= t) lo = mid + 1;
        else hi = mid;
      }
      if (lo == 0 || lo == b->n) continue;     /* before the first op or after the last */
      if (b->e[lo - 1] > t) continue;          /* busy when the call returns */
      if (!xp_grow((void **)&gap, &cg, ng + 1, sizeof(sgap))) { fl->oom = 1; break; }
      gap[ng++] = (sgap){a, d, lo, t};
    }
  }
  /* each idle gap once per call name and device, from the earliest return in it: calls
  ** returning in the same gap (several threads waiting on one result) share its idle time,
  ** so the total is bounded by the devices' idle time */
  if (!fl->oom && ng && !xp_sort(gap, ng, sizeof(sgap), cmp_sgap)) fl->oom = 1;
  for (int64_t g = 0; g < ng && !fl->oom; g++) {
    if (g && gap[g].a == gap[g - 1].a && gap[g].d == gap[g - 1].d && gap[g].lo == gap[g - 1].lo) continue;
    int64_t idle = pb[gap[g].d].s[gap[g].lo] - gap[g].t;
    agg[gap[g].a].idle_ps += idle;
    if (idle > agg[gap[g].a].worst) agg[gap[g].a].worst = idle;
  }
  xp_free(gap);
  int64_t span = xp_fl_profile_span(p), n_dev = 0;
  for (int64_t d = 0; d < n_pb; d++) n_dev += pb[d].n > 0;
  for (int64_t a = 0; a < na && !fl->oom; a++) {
    if (agg[a].idle_ps < fp->sync_idle_ps) continue;
    xp_finding *f = xp_fl_add(fl, "synchronization");
    if (!f) break;
    f->subject = xp_mprintf("%.*s", (int)agg[a].name.n, agg[a].name.p);
    if (!f->subject) fl->oom = 1;
    f->count = agg[a].calls;
    f->time_ps = agg[a].idle_ps;
    f->share = span > 0 && n_dev > 0 ? (double)agg[a].idle_ps / ((double)span * (double)n_dev) : 0;
    f->severity = agg[a].idle_ps >= 10 * fp->sync_idle_ps ? "high" : "medium";
    f->start_ps = agg[a].first;
    f->end_ps = agg[a].last;
    xp_buf *b = xp_buf_new();
    xp_buf_appendf(b, "{\"calls\":%lld,\"call_ps\":%lld,\"device_idle_after_ps\":%lld,\"worst_idle_ps\":%lld,"
                      "\"device_planes\":%lld,\"profile_span_ps\":%lld,\"sync_idle_min_ps\":%lld}",
                   (long long)agg[a].calls, (long long)agg[a].call_ps, (long long)agg[a].idle_ps,
                   (long long)agg[a].worst, (long long)n_dev, (long long)span, (long long)fp->sync_idle_ps);
    f->evidence = xp_fl_take(fl, b);
    f->suggestion = "The host blocks on the device and the device then idles until the host sends more work: "
                    "remove block_until_ready / device_get / printing of device values from the loop, or do it "
                    "every N steps.";
  }
  xp_free(agg);
}

static void find_sync(xp_profile *p, const xp_find_params *fp, const xp_op *ops, int64_t n_ops, const opindex *x,
                      const hevvec *hv, flist *fl) {
  /* merged busy intervals of every device plane */
  pbusy *pb = xp_malloc(sizeof(pbusy) * (uint64_t)(p->n_planes + 1));
  int64_t *pairs = xp_malloc(sizeof(int64_t) * 2 * (uint64_t)(n_ops + 1));
  if (!pb || !pairs) { fl->oom = 1; goto done; }
  memset(pb, 0, sizeof(pbusy) * (size_t)(p->n_planes + 1));
  for (int32_t plane = 0; plane < p->n_planes && !fl->oom; plane++) {
    int64_t m = 0;
    for (int64_t j = x->first[plane]; j < x->first[plane + 1]; j++) {
      const xp_op *o = &ops[x->idx[j]];
      pairs[2 * m] = o->start_ps;
      pairs[2 * m + 1] = o->start_ps + o->dur_ps;
      m++;
    }
    if (!m) continue;
    if (m > 1 && !xp_sort(pairs, m, 2 * sizeof(int64_t), cmp_i64pair)) fl->oom = 1;
    for (int64_t k = 0; k < m && !fl->oom; k++)
      if (!xp_fl_busy_add(&pb[plane], pairs[2 * k], pairs[2 * k + 1])) fl->oom = 1;
  }
  if (!fl->oom) xp_fl_sync(p, fp, pb, p->n_planes, hv, fl);
done:
  if (pb)
    for (int32_t plane = 0; plane < p->n_planes; plane++) {
      xp_free(pb[plane].s);
      xp_free(pb[plane].e);
    }
  xp_free(pb);
  xp_free(pairs);
}

/* ----------------------------------------------------- memory-bound hot ops */

static void find_memory_bound(xp_profile *p, const xp_find_params *fp, const xp_op *ops, int64_t n_ops, flist *fl) {
  const xp_hlo_stat *rows;
  int64_t device_self = 0;
  int64_t n = xp_hlo_stats(p, &rows, &device_self);
  if (n < 0) { fl->oom = 1; return; }
  if (device_self <= 0) return;
  int64_t first_new = fl->n;
  for (int64_t i = 0; i < n && !fl->oom; i++) {
    const xp_hlo_stat *s = &rows[i];
    if (s->kind != XP_HLO_OP) continue;
    xp_roofline r;
    xp_roofline_of(s, &r);
    if (strcmp(r.bound_by, "memory") != 0 || xp_find_is_async_or_collective(s->name, s->category)) continue;
    double share = (double)s->self_ps / (double)device_self;
    if (share < fp->hot_op_share) continue;
    xp_finding *f = xp_fl_add(fl, "memory_bound");
    if (!f) break;
    f->subject = xp_mprintf("%.*s", (int)s->name.n, s->name.p);
    f->ops = xp_mprintf("%.*s", (int)s->name.n, s->name.p);
    if (!f->subject || !f->ops) fl->oom = 1;
    f->severity = share >= 3 * fp->hot_op_share ? "high" : "medium";
    f->count = s->count;
    f->time_ps = s->self_ps;
    f->share = share;
    f->bytes = s->bytes < 9.2e18 ? (int64_t)s->bytes : INT64_MAX;
    f->start_ps = INT64_MAX;
    f->end_ps = INT64_MIN;
    xp_buf *b = xp_buf_new();
    xp_buf_appendf(b, "{\"runs\":%lld,\"category\":", (long long)s->count);
    xp_json_string(b, s->category.p, s->category.n);
    xp_buf_appendf(b, ",\"self_ps\":%lld,\"device_self_ps\":%lld,\"flops\":", (long long)s->self_ps,
                   (long long)device_self);
    const double nums[] = {s->flops, s->bytes, r.intensity, r.ridge, r.flops_per_s, r.bytes_per_s,
                           s->peak_flops_per_s, s->peak_bw_bytes_per_s, r.flop_utilization, r.bw_utilization};
    static const char *const keys[] = {",\"bytes_accessed\":", ",\"flops_per_byte\":", ",\"ridge_flops_per_byte\":",
                                       ",\"flops_per_s\":", ",\"bytes_per_s\":", ",\"peak_flops_per_s\":",
                                       ",\"peak_bw_bytes_per_s\":", ",\"flop_utilization\":",
                                       ",\"bw_utilization\":", ",\"hot_op_share_min\":"};
    for (int k = 0; k < 10; k++) {
      xp_buf_append_g17(b, nums[k]);
      xp_buf_appendall(b, keys[k]);
    }
    f->evidence = xp_fl_evidence_end(fl, b, fp->hot_op_share);
    f->suggestion = "A hot op moves more bytes than its FLOPs can hide (arithmetic intensity below the "
                    "device's ridge point): fuse it with its producers or consumers so intermediates stay "
                    "on chip, use a lower-precision dtype or layout that reads fewer bytes, or batch more work "
                    "per byte loaded.";
  }
  /* each row's time range: its ops' first start and last end */
  if (fl->n > first_new && !fl->oom)
    for (int64_t i = 0; i < n_ops && !xp_fl_stop(fl, i); i++) {
      xp_str nm = xp_op_name(p, &ops[i]);
      for (int64_t k = first_new; k < fl->n; k++) {
        xp_finding *f = &fl->v[k];
        if (strlen(f->subject) != nm.n || memcmp(f->subject, nm.p, nm.n) != 0) continue;
        if (ops[i].start_ps < f->start_ps) f->start_ps = ops[i].start_ps;
        if (ops[i].start_ps + ops[i].dur_ps > f->end_ps) f->end_ps = ops[i].start_ps + ops[i].dur_ps;
      }
    }
}

/* ------------------------------------------------------------------ entry */

void xp_findings_free(xp_finding *f, int64_t n) {
  for (int64_t i = 0; f && i < n; i++) {
    xp_free(f[i].subject);
    xp_free(f[i].evidence);
    xp_free(f[i].ops);
    xp_free(f[i].steps);
  }
  xp_free(f);
}

int64_t xp_findings(xp_profile *p, const xp_find_params *fp_in, xp_finding **out) {
  xp_find_params fp;
  if (fp_in) fp = *fp_in;
  else xp_find_params_default(&fp);
  *out = NULL;
  flist fl;
  memset(&fl, 0, sizeof(fl));
  const xp_op *ops;
  const xp_step *steps;
  int64_t n_ops = xp_ops(p, &ops);
  int64_t ns = n_ops >= 0 ? xp_steps(p, &steps) : -1;
  hevvec hv;
  memset(&hv, 0, sizeof(hv));
  if (ns < 0 || !host_events(p, &hv)) {
    xp_free(hv.v);
    return -1;
  }
  opindex x;
  if (!opindex_build(p, ops, n_ops, &x)) fl.oom = 1;
  if (!fl.oom) find_recompilation(p, &fp, &hv, &fl);
  const xp_device_time *dev;
  int64_t n_dev = fl.oom ? -1 : xp_device_times(p, &dev);
  if (n_dev < 0) fl.oom = 1;
  if (!fl.oom && n_dev > 0 && dev[0].kind == XP_DT_KIND_CPU) {
    xp_fl_cpu_rules(p, &fp, &hv, &fl); /* the JAX CPU backend: findings_cpu.c */
  } else {
    if (!fl.oom) find_host_bound(p, &fp, &hv, &fl);
    if (!fl.oom) find_transfers(p, &fp, ops, &x, steps, ns, &fl);
    if (!fl.oom) find_tiny(p, &fp, ops, n_ops, &x, &fl);
    if (!fl.oom) find_sync(p, &fp, ops, n_ops, &x, &hv, &fl);
  }
  if (!fl.oom) find_memory_bound(p, &fp, ops, n_ops, &fl);
  opindex_free(&x);
  xp_free(hv.v);
  if (fl.oom) {
    xp_findings_free(fl.v, fl.n);
    return -1;
  }
  *out = fl.v;
  return fl.n;
}
