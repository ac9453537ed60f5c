/*
** device_time.c: the device-time model (device_time.h). Per device, the
** busy-line intervals are gathered, sorted by start (xp_sort: stops on an
** interrupt) and swept once: the union gives busy time, and the sweep keeps
** each class's furthest end, which splits every stretch between two starts
** among the classes by priority. Built once per decode into an analysis
** slot; an interrupted or failed build caches nothing.
**
** The split, exactly: intervals sorted by start s_1 <= s_2 <= ...; before
** s_{i+1}, every interval seen started at or before s_i, so class c covers
** the instants t in [s_i, s_{i+1}) with t < end_c, the furthest end of class
** c seen so far (the interval that reaches end_c started before t). Each
** class's cover of the stretch is thus a prefix [s_i, min(end_c, s_{i+1})),
** and by priority a class gets what its prefix adds beyond the longer prefix
** of the classes above it. The four parts sum to the union.
*/
#include "device_time.h"

#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "semantics.h"
#include "xprof.h"
#include "util.h"

const char *const xp_dt_class_names[XP_DT_N_CLASSES] = {"compute", "communication", "transfer", "other"};
const char *const xp_dt_kind_names[4] = {"tpu", "gpu", "cpu", "device"};

/* Priority of each class in the split, highest first. */
static const int class_order[XP_DT_N_CLASSES] = {XP_DT_COMPUTE, XP_DT_TRANSFER, XP_DT_COMMUNICATION, XP_DT_OTHER};

/* Whether the lower-case needle z is in p[0..n), ASCII letters of p folded
** to lower case (only letters: `_` and `-` in a needle match themselves). */
static int ci_has(const char *p, size_t n, const char *z) {
  size_t m = strlen(z);
  for (size_t i = 0; i + m <= n; i++) {
    size_t k = 0;
    while (k < m) {
      char c = p[i + k];
      if (c >= 'A' && c <= 'Z') c = (char)(c + 32);
      if (c != z[k]) break;
      k++;
    }
    if (k == m) return 1;
  }
  return 0;
}

int xp_device_op_class(const char *line, size_t line_n, const char *name, size_t name_n) {
  static const char *const transfer_words[] = {"memcpy", "copy-start", "copy-done", "infeed", "outfeed",
                                               "copybuffer", "dma", NULL};
  if (ci_has(line, line_n, "memcpy")) return XP_DT_TRANSFER;
  for (int i = 0; transfer_words[i]; i++)
    if (ci_has(name, name_n, transfer_words[i])) return XP_DT_TRANSFER;
  if (xp_is_communication(name, name_n)) return XP_DT_COMMUNICATION;
  if (xp_is_stall(name, name_n)) return XP_DT_OTHER;
  return XP_DT_COMPUTE;
}

static int has_any(const char *p, size_t n, const char *const *words) {
  for (int i = 0; words[i]; i++)
    if (ci_has(p, n, words[i])) return 1;
  return 0;
}

const char *const xp_op_family_names[XP_FAM_N] = {"transfer", "collective", "attention", "convolution",
                                                  "matmul", "fusion", "other"};

int xp_op_family(const char *line, size_t line_n, const char *name, size_t name_n) {
  static const char *const attention[] = {"attention", "attn", "flash_fwd", "flash_bwd", "fmha", "sdpa",
                                          "mha_fwd", "mha_bwd", NULL};
  static const char *const conv[] = {"convolution", "conv2d", "conv3d", "conv1d", "conv_", "cudnn_conv",
                                     "miopen", "igemm", "winograd", "implicit_gemm", "dgrad", "wgrad", "im2col",
                                     "col2im", "im3d2col", NULL};
  static const char *const matmul[] = {"cijk_", "gemm", "matmul", "cublas", "cutlass", "xmma", "hipblaslt",
                                       "rocblas", "dot", "einsum", NULL};
  static const char *const fusion[] = {"fusion", "fused", "elementwise", "wrapped_", "loop_", "reduce",
                                       "broadcast", "transpose", "concatenate", "slice", "select", NULL};
  int cls = xp_device_op_class(line, line_n, name, name_n);
  if (cls == XP_DT_TRANSFER) return XP_FAM_TRANSFER;
  if (cls == XP_DT_COMMUNICATION) return XP_FAM_COLLECTIVE;
  if (has_any(name, name_n, attention)) return XP_FAM_ATTENTION;
  if (has_any(name, name_n, conv)) return XP_FAM_CONVOLUTION;
  if (has_any(name, name_n, matmul)) return XP_FAM_MATMUL;
  if (has_any(name, name_n, fusion)) return XP_FAM_FUSION;
  return XP_FAM_OTHER;
}

typedef struct span {
  int64_t start, end;
  int32_t cls;
} span;

typedef struct spanvec {
  span *v;
  int64_t n, cap;
} spanvec;

static int span_push(spanvec *sv, int64_t start, int64_t dur, int cls) {
  if (!xp_grow((void **)&sv->v, &sv->cap, sv->n + 1, sizeof(span))) return 0;
  sv->v[sv->n].start = start;
  sv->v[sv->n].end = xp_add_sat(start, dur);
  sv->v[sv->n].cls = cls;
  sv->n++;
  return 1;
}

static int by_start(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return (x->end < y->end) - (x->end > y->end);
}

/* Sort and sweep sv into d (busy, classes, first/last); 0 on OOM/interrupt. */
static int sweep(spanvec *sv, xp_device_time *d) {
  if (sv->n == 0) return 1;
  if (!xp_sort(sv->v, sv->n, sizeof(span), by_start)) return 0;
  int64_t end_c[XP_DT_N_CLASSES];
  for (int c = 0; c < XP_DT_N_CLASSES; c++) end_c[c] = INT64_MIN;
  int64_t reach = INT64_MIN; /* furthest end of all: the union's current edge */
  for (int64_t i = 0; i < sv->n; i++) {
    if ((i & 4095) == 4095 && xp_cancelled()) return 0; /* long loops stop on an interrupt (cancel.h) */
    const span *s = &sv->v[i];
    int64_t next = i + 1 < sv->n ? sv->v[i + 1].start : INT64_MAX;
    if (s->end > end_c[s->cls]) end_c[s->cls] = s->end;
    if (s->end > reach) reach = s->end;
    d->op_time_ps = xp_add_sat(d->op_time_ps, s->end - s->start);
    if (next == s->start) continue; /* an empty stretch */
    int64_t covered = s->start; /* the longer prefix of the classes above */
    for (int k = 0; k < XP_DT_N_CLASSES; k++) {
      int c = class_order[k];
      int64_t e = end_c[c] < next ? end_c[c] : next;
      if (e > covered) {
        d->class_ps[c] += e - covered;
        covered = e;
      }
    }
  }
  d->first_ps = sv->v[0].start < d->first_ps ? sv->v[0].start : d->first_ps;
  d->last_ps = reach > d->last_ps ? reach : d->last_ps;
  for (int c = 0; c < XP_DT_N_CLASSES; c++) d->busy_ps += d->class_ps[c];
  return 1;
}

/* The union of sv's intervals (sorted here). */
static int union_of(spanvec *sv, int64_t *out) {
  *out = 0;
  if (sv->n == 0) return 1;
  if (!xp_sort(sv->v, sv->n, sizeof(span), by_start)) return 0;
  int64_t lo = sv->v[0].start, hi = sv->v[0].end;
  for (int64_t i = 1; i < sv->n; i++) {
    if (sv->v[i].start > hi) {
      *out += hi - lo;
      lo = sv->v[i].start;
    }
    if (sv->v[i].end > hi) hi = sv->v[i].end;
  }
  *out += hi - lo;
  return 1;
}

typedef struct dtvec {
  xp_device_time *v;
  int64_t n, cap;
  xp_step_time *st;   /* the steps' partitions, device by device */
  int64_t n_st, cap_st;
  const xp_step *steps;
  int64_t n_steps;
  xp_cpu_op *cpu;     /* the CPU backend's ops (xp_cpu_ops) */
  int64_t n_cpu, cap_cpu;
} dtvec;

static void dtvec_free(void *x) {
  dtvec *t = x;
  if (!t) return;
  xp_free(t->v);
  xp_free(t->st);
  xp_free(t->cpu);
  xp_free(t);
}
static int64_t dtvec_bytes(const void *x) {
  const dtvec *t = x;
  return (int64_t)sizeof(*t) + t->cap * (int64_t)sizeof(xp_device_time) + t->cap_st * (int64_t)sizeof(xp_step_time) +
         t->cap_cpu * (int64_t)sizeof(xp_cpu_op);
}

/* A step of one device: its start and its index in xp_steps. */
typedef struct step_ref {
  int64_t start, k;
} step_ref;
static int by_step_start(const void *a, const void *b) {
  const step_ref *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return (x->k > y->k) - (x->k < y->k);
}

/* The partition of every step of device t->v[dev] (the steps on its plane)
** by its spans sv, sorted by start (sweep() sorted them). Walking the steps
** in start order, `ptr` passes the spans that started before the step and
** end_c keeps their furthest end per class, so each step's window
** [ws, we) starts from the classes already covering ws; the stretches up to
** each later start in the window go by priority as in sweep(), clipped at
** we. The parts and idle sum to the step's duration. */
static int step_partitions(dtvec *t, int64_t dev, const spanvec *sv) {
  const xp_device_time *d = &t->v[dev];
  step_ref *idx = NULL;
  int64_t n = 0, cap = 0, work = 0;
  for (int64_t k = 0; k < t->n_steps; k++) {
    if (t->steps[k].plane != d->plane || t->steps[k].dur_ps <= 0) continue;
    if (!xp_grow((void **)&idx, &cap, n + 1, sizeof(step_ref))) return xp_free(idx), 0;
    idx[n].start = t->steps[k].start_ps;
    idx[n++].k = k;
  }
  if (n > 1 && !xp_sort(idx, n, sizeof(step_ref), by_step_start)) return xp_free(idx), 0;
  int64_t end_c[XP_DT_N_CLASSES], ptr = 0;
  for (int c = 0; c < XP_DT_N_CLASSES; c++) end_c[c] = INT64_MIN;
  int ok = 1;
  for (int64_t q = 0; ok && q < n; q++) {
    const xp_step *s = &t->steps[idx[q].k];
    int64_t ws = s->start_ps, we = xp_add_sat(s->start_ps, s->dur_ps);
    for (; ptr < sv->n && sv->v[ptr].start < ws; ptr++)
      if (sv->v[ptr].end > end_c[sv->v[ptr].cls]) end_c[sv->v[ptr].cls] = sv->v[ptr].end;
    if (!xp_grow((void **)&t->st, &t->cap_st, t->n_st + 1, sizeof(xp_step_time))) { ok = 0; break; }
    xp_step_time *r = &t->st[t->n_st++];
    memset(r, 0, sizeof(*r));
    r->device = (int32_t)dev;
    r->step = (int32_t)idx[q].k;
    int64_t e[XP_DT_N_CLASSES];
    memcpy(e, end_c, sizeof(e));
    int64_t at = ws, j = ptr, busy = 0;
    while (at < we) {
      int64_t next = j < sv->n && sv->v[j].start < we ? sv->v[j].start : we;
      int64_t covered = at;
      for (int k = 0; k < XP_DT_N_CLASSES && next > at; k++) {
        int c = class_order[k];
        int64_t x = e[c] < next ? e[c] : next;
        if (x > covered) r->class_ps[c] += x - covered, busy += x - covered, covered = x;
      }
      at = next;
      for (; j < sv->n && sv->v[j].start == at && at < we; j++)
        if (sv->v[j].end > e[sv->v[j].cls]) e[sv->v[j].cls] = sv->v[j].end;
      if ((++work & 4095) == 0 && xp_cancelled()) { ok = 0; break; }
    }
    r->idle_ps = s->dur_ps - busy;
  }
  xp_free(idx);
  return ok;
}

static xp_device_time *dt_new(dtvec *t, int32_t plane, int kind, int64_t ordinal) {
  if (!xp_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(xp_device_time))) return NULL;
  xp_device_time *d = &t->v[t->n++];
  memset(d, 0, sizeof(*d));
  d->plane = plane;
  d->kind = kind;
  d->device_ordinal = ordinal;
  d->first_ps = INT64_MAX;
  d->last_ps = INT64_MIN;
  return d;
}

static void dt_finish(xp_device_time *d) {
  if (d->first_ps > d->last_ps) d->first_ps = d->last_ps = 0;
  d->wall_ps = d->last_ps - d->first_ps;
  d->idle_ps = d->wall_ps - d->busy_ps;
}

/* The span of a line's analysis events into d's first/last (XLA Modules). */
static void widen_by_line(const xp_profile *p, const xp_plane *pl, const xp_line *ln, xp_device_time *d) {
  xp_event_iter it;
  xp_event ev;
  xp_events_begin(p, ln, &it);
  while (xp_events_next(&it, &ev)) {
    const xp_event_meta *em;
    xp_str name;
    if (!xp_analysis_event(pl, &ev, &em, &name)) continue;
    int64_t s = xp_event_start(ln, &ev), e = xp_add_sat(s, ev.duration_ps);
    if (s < d->first_ps) d->first_ps = s;
    if (e > d->last_ps) d->last_ps = e;
  }
}

/* The class of an op named by emeta[k] of its plane: xp_device_op_class once
** per name (util.h's class memo). The line matters only when it is a `Memcpy`
** stream (every op on it a transfer), which the caller tests once per line.
** (Classifying every op by substring searches was half of this table's time on
** the 1 GB profile, and never polled for an interrupt.) */
static int op_class_memo(xp_class_memo *memo, int64_t k, xp_str name) {
  int cls = xp_class_memo_get(memo, k);
  if (cls < 0) xp_class_memo_set(memo, k, cls = xp_device_op_class("", 0, name.p, name.n));
  return cls;
}

/* The `/device:` planes, from the device ops (analysis.h: ops come plane by plane). */
static int build_device_planes(xp_profile *p, dtvec *t) {
  const xp_op *ops;
  int64_t n = xp_ops(p, &ops);
  if (n < 0) return 0;
  spanvec busy = {0}, async = {0};
  xp_class_memo memo = {0};
  uint8_t *memcpy_line = NULL;
  int ok = 1;
  for (int64_t i = 0; ok && i < n;) {
    int32_t plane = ops[i].plane;
    const xp_plane *pl = &p->planes[plane];
    busy.n = async.n = 0;
    int tpu = 0;
    xp_class_memo_free(&memo);
    xp_free(memcpy_line);
    memcpy_line = xp_malloc((uint64_t)pl->n_lines + 1);
    if (!xp_class_memo_init(&memo, pl->n_emeta) || !memcpy_line) {
      ok = 0;
      break;
    }
    for (int32_t li = 0; li < pl->n_lines; li++)
      memcpy_line[li] = (uint8_t)(xp_device_op_class(pl->lines[li].name.p, pl->lines[li].name.n, "", 0) == XP_DT_TRANSFER);
    for (int64_t k = 0; ok && i < n && ops[i].plane == plane; i++, k++) {
      if ((k & 4095) == 4095 && xp_cancelled()) ok = 0; /* long loops stop on an interrupt (cancel.h) */
      const xp_op *o = &ops[i];
      const xp_line *ln = &pl->lines[o->line];
      if (xp_str_eq(ln->name, "Async XLA Ops")) {
        ok = ok && span_push(&async, o->start_ps, o->dur_ps, 0);
        continue;
      }
      tpu |= xp_str_eq(ln->name, "XLA Ops");
      int cls = memcpy_line[o->line] ? XP_DT_TRANSFER : op_class_memo(&memo, o->emeta, xp_op_name(p, o));
      ok = ok && span_push(&busy, o->start_ps, o->dur_ps, cls);
    }
    if (!ok || busy.n == 0) continue;
    int kind = tpu ? XP_DT_KIND_TPU : xp_str_starts(pl->name, "/device:GPU") ? XP_DT_KIND_GPU : XP_DT_KIND_DEVICE;
    xp_device_time *d = dt_new(t, plane, kind, -1);
    ok = d && sweep(&busy, d) && union_of(&async, &d->async_ps);
    if (ok && tpu)
      for (int32_t li = 0; li < pl->n_lines; li++)
        if (xp_str_eq(pl->lines[li].name, "XLA Modules")) widen_by_line(p, pl, &pl->lines[li], d);
    if (ok) d->n_ops = busy.n, dt_finish(d);
    if (ok) ok = step_partitions(t, t->n - 1, &busy);
    if (ok && xp_profile_changed(p)) ok = 0;
  }
  xp_class_memo_free(&memo);
  xp_free(memcpy_line);
  xp_free(busy.v);
  xp_free(async.v);
  return ok;
}

/* The CPU backend: host events with an hlo_op stat, one device per ordinal. */
static int by_ordinal(const void *a, const void *b) {
  const xp_cpu_op *x = a, *y = b;
  if (x->ordinal != y->ordinal) return x->ordinal < y->ordinal ? -1 : 1;
  if (x->start_ps != y->start_ps) return x->start_ps < y->start_ps ? -1 : 1;
  return (x->end_ps < y->end_ps) - (x->end_ps > y->end_ps);
}

static int build_cpu_devices(xp_profile *p, dtvec *t) {
  static const char *const names[] = {"hlo_op", "device_ordinal", "program_id", "run_id", "hlo_module"};
  xp_cpu_op *v = NULL;
  int64_t n = 0, cap = 0;
  uint64_t seen = 0;
  int ok = 1;
  for (int32_t pi = 0; ok && pi < p->n_planes; pi++) {
    const xp_plane *pl = &p->planes[pi];
    if (!xp_str_starts(pl->name, "/host:")) continue;
    xp_stat_pick_ids ids;
    xp_stat_pick_init(pl, names, 5, &ids);
    if (ids.n == 0) continue;
    xp_class_memo memo; /* op_class_memo */
    if (!xp_class_memo_init(&memo, pl->n_emeta)) {
      ok = 0;
      break;
    }
    for (int32_t li = 0; ok && li < pl->n_lines; li++) {
      const xp_line *ln = &pl->lines[li];
      xp_event_iter it;
      xp_event ev;
      xp_events_begin(p, ln, &it);
      while (ok && xp_events_next(&it, &ev)) {
        const xp_event_meta *em;
        xp_str name;
        if ((++seen & 4095) == 0 && xp_cancelled()) { ok = 0; break; }
        if (!xp_analysis_event(pl, &ev, &em, &name)) continue;
        xp_stat st[5];
        xp_stat_pick_em(p, pl, em, &ev, &ids, 5, st);
        if (st[0].type == XP_V_NONE) continue;
        int64_t id[3] = {0, XP_NO_ID, XP_NO_ID}; /* ordinal 0 when absent */
        for (int k = 0; k < 3; k++)
          if (st[k + 1].type != XP_V_NONE && !xp_stat_as_int(&st[k + 1], &id[k])) id[k] = k ? XP_NO_ID : 0;
        ok = xp_grow((void **)&v, &cap, n + 1, sizeof(xp_cpu_op));
        if (!ok) break;
        int64_t start = xp_event_start(ln, &ev);
        v[n] = (xp_cpu_op){id[0], start, xp_add_sat(start, ev.duration_ps), id[1], id[2], pi, li,
                           op_class_memo(&memo, em - pl->emeta, name),
                           st[4].type == XP_V_STR || st[4].type == XP_V_REF ? st[4].s : (xp_str){"", 0}};
        n++;
      }
    }
    xp_class_memo_free(&memo);
  }
  ok = ok && !xp_profile_changed(p) && xp_sort(v, n, sizeof(xp_cpu_op), by_ordinal);
  t->cpu = v;
  t->n_cpu = n;
  t->cap_cpu = cap;
  spanvec sv = {0};
  for (int64_t i = 0; ok && i < n;) {
    int64_t ord = v[i].ordinal;
    int32_t plane = v[i].plane;
    sv.n = 0;
    for (; ok && i < n && v[i].ordinal == ord; i++) ok = span_push(&sv, v[i].start_ps, v[i].end_ps - v[i].start_ps, v[i].cls);
    xp_device_time *d = ok ? dt_new(t, plane, XP_DT_KIND_CPU, ord) : NULL;
    ok = d && sweep(&sv, d);
    if (ok) d->n_ops = sv.n, dt_finish(d);
    if (ok) ok = step_partitions(t, t->n - 1, &sv);
  }
  xp_free(sv.v);
  return ok;
}

int64_t xp_device_times(xp_profile *p, const xp_device_time **rows) {
  void **slot = xp_analysis_slot_sized(p, XP_SLOT_DEVICE_TIME, dtvec_free, dtvec_bytes);
  if (!slot) return -1;
  if (!*slot) {
    dtvec *t = xp_malloc(sizeof(*t));
    if (!t) return -1;
    memset(t, 0, sizeof(*t));
    t->n_steps = xp_steps(p, &t->steps);
    int ok = t->n_steps >= 0 && build_device_planes(p, t);
    if (ok && t->n == 0) ok = build_cpu_devices(p, t);
    if (!ok) {
      dtvec_free(t);
      return -1;
    }
    *slot = t;
  }
  const dtvec *t = *slot;
  *rows = t->v;
  return t->n;
}

int64_t xp_step_times(xp_profile *p, const xp_step_time **rows) {
  const xp_device_time *d;
  if (xp_device_times(p, &d) < 0) return -1;
  const dtvec *t = *xp_analysis_slot_sized(p, XP_SLOT_DEVICE_TIME, dtvec_free, dtvec_bytes);
  *rows = t->st;
  return t->n_st;
}

int64_t xp_cpu_ops(xp_profile *p, const xp_cpu_op **rows) {
  const xp_device_time *d;
  if (xp_device_times(p, &d) < 0) return -1;
  const dtvec *t = *xp_analysis_slot_sized(p, XP_SLOT_DEVICE_TIME, dtvec_free, dtvec_bytes);
  *rows = t->cpu;
  return t->n_cpu;
}
