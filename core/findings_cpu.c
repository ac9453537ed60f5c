/*
** findings_cpu.c: the findings rules on the JAX CPU backend, where no device
** plane exists and each CPU device is the `device_ordinal` of the host
** events that carry an `hlo_op` stat (the devices of device_time.h). The
** rules of findings.c look at device planes and their steps; here the same
** killers are found from what a CPU capture holds (the ops: xp_cpu_ops,
** device_time.h, the same list the device-time model sweeps):
**
** - host_bound, per CPU device: with asynchronous dispatch the host runs
**   ahead of the devices, so a step annotation's window need not hold its
**   own device work (a clean capture: steps 2..11 idle 100 % in their
**   windows while the device is 87-91 % busy). The rule therefore looks at
**   the device's idle gaps over its whole wall (first op start to last op
**   end): host work is the time the training-loop threads (host lines with a
**   `PjitFunction(...)` dispatch; without one, the host lines with no device
**   op) have an event open that is neither a wait (a blocking call of
**   xp_find_is_sync, a name starting with `Wait` or holding `wait for`) nor
**   a device op. A row when idle >= idle_share of the wall and host work
**   covers >= host_busy_share of that idle. count/of: the idle gaps the host
**   work overlaps / all idle gaps; time_ps: the idle under host work; share:
**   time_ps / wall.
** - transfers: host->device copies are host work here: the events whose name
**   holds `DevicePut`, `BufferFromPyval` or `TransferToDevice` (outermost
**   only), per host plane; a row (subject HtoD) when their time (union) is
**   >= transfer_share of the plane's step time (the host-annotation steps;
**   the devices' longest wall when there are none).
** - tiny_kernels: on the CPU the thunks of one program are not launched one
**   by one; a program run (the ops of one `program_id`/`run_id`) is. Per
**   device: runs whose span is < tiny_ps; a row when they are >= tiny_share
**   of the device's runs and >= tiny_min. The launch gap is the device idle
**   right before each tiny run, when shorter than
**   XP_FIND_LAUNCH_GAP_FACTOR x tiny_ps.
** - synchronization: findings.c's rule (xp_fl_sync) over the CPU devices.
**
** Rows name the host plane and, in `subject`, the device (`CPU:0`).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "device_time.h"
#include "findings_impl.h"
#include "xprof.h"

typedef struct iv {
  int64_t s, e;
} iv;

typedef struct ivec {
  iv *v;
  int64_t n, cap;
} ivec;

static int iv_push(ivec *a, int64_t s, int64_t e) {
  if (e <= s) return 1;
  if (!xp_grow((void **)&a->v, &a->cap, a->n + 1, sizeof(iv))) return 0;
  a->v[a->n++] = (iv){s, e};
  return 1;
}

static int iv_cmp(const void *x, const void *y) {
  const iv *a = x, *b = y;
  if (a->s != b->s) return a->s < b->s ? -1 : 1;
  return a->e < b->e ? -1 : a->e > b->e;
}

/* Sort and merge in place: disjoint intervals in order. */
static void iv_merge(ivec *a) {
  if (a->n > 1) qsort(a->v, (size_t)a->n, sizeof(iv), iv_cmp);
  int64_t m = 0;
  for (int64_t k = 0; k < a->n; k++) {
    if (m && a->v[k].s <= a->v[m - 1].e) {
      if (a->v[k].e > a->v[m - 1].e) a->v[m - 1].e = a->v[k].e;
    } else {
      a->v[m++] = a->v[k];
    }
  }
  a->n = m;
}

/* a - b, both merged, appended to out. */
static int iv_minus(const ivec *a, const ivec *b, ivec *out) {
  int64_t j = 0;
  for (int64_t k = 0; k < a->n; k++) {
    int64_t s = a->v[k].s, e = a->v[k].e;
    while (j < b->n && b->v[j].e <= s) j++;
    for (int64_t t = j; t < b->n && b->v[t].s < e; t++) {
      if (b->v[t].s > s && !iv_push(out, s, b->v[t].s)) return 0;
      if (b->v[t].e > s) s = b->v[t].e;
    }
    if (!iv_push(out, s, e)) return 0;
  }
  return 1;
}

/* The length of [s, e) covered by the merged intervals a. */
static int64_t iv_overlap(const ivec *a, int64_t s, int64_t e) {
  int64_t lo = 0, hi = a->n;
  while (lo < hi) { /* first interval ending after s */
    int64_t m = lo + (hi - lo) / 2;
    if (a->v[m].e <= s) lo = m + 1;
    else hi = m;
  }
  int64_t sum = 0;
  for (int64_t k = lo; k < a->n && a->v[k].s < e; k++) {
    int64_t x = a->v[k].s > s ? a->v[k].s : s, y = a->v[k].e < e ? a->v[k].e : e;
    if (y > x) sum += y - x;
  }
  return sum;
}

typedef xp_cpu_op cop;

/* The host's work: see the header. hv is in (plane, line, start) order;
** ops are ordered by ordinal, so the ops of a line are looked up by scan. */
static int host_work(const hevvec *hv, const cop *ops, int64_t n_ops, ivec *work) {
  int any_loop = 0;
  for (int64_t k = 0; k < hv->n && !any_loop; k++) any_loop = xp_str_starts(hv->v[k].name, "PjitFunction(");
  ivec plus = {0}, minus = {0};
  int ok = 1;
  for (int64_t a = 0; ok && a < hv->n;) {
    int64_t b = a;
    while (b < hv->n && hv->v[b].plane == hv->v[a].plane && hv->v[b].line == hv->v[a].line) b++;
    int32_t plane = hv->v[a].plane, line = hv->v[a].line;
    int loop = 0, has_ops = 0;
    for (int64_t k = a; k < b && !loop; k++) loop = xp_str_starts(hv->v[k].name, "PjitFunction(");
    plus.n = minus.n = 0;
    for (int64_t k = 0; ok && k < n_ops; k++)
      if (ops[k].plane == plane && ops[k].line == line) {
        has_ops = 1;
        ok = iv_push(&minus, ops[k].start_ps, ops[k].end_ps);
      }
    if (any_loop ? loop : !has_ops)
      for (int64_t k = a; ok && k < b; k++) {
        const hev *e = &hv->v[k];
        ok = e->cls & HEV_WAIT ? iv_push(&minus, e->start, e->start + e->dur)
                              : iv_push(&plus, e->start, e->start + e->dur);
      }
    if (ok && plus.n) {
      iv_merge(&plus);
      iv_merge(&minus);
      ok = iv_minus(&plus, &minus, work);
    }
    a = b;
  }
  if (ok) iv_merge(work);
  xp_free(plus.v);
  xp_free(minus.v);
  return ok;
}

static void host_bound(const xp_find_params *fp, const cop *ops, int64_t n, const pbusy *busy, const ivec *work,
                       flist *fl) {
  int64_t first = ops[0].start_ps, last = busy->e[busy->n - 1], wall = last - first, idle = wall, gaps = 0,
          host_gaps = 0, host_idle = 0;
  (void)n;
  for (int64_t k = 0; k < busy->n; k++) idle -= busy->e[k] - busy->s[k];
  for (int64_t k = 1; k < busy->n; k++) {
    int64_t h = iv_overlap(work, busy->e[k - 1], busy->s[k]);
    gaps++;
    host_gaps += h > 0;
    host_idle += h;
  }
  if (wall <= 0 || (double)idle < fp->idle_share * (double)wall ||
      (double)host_idle < fp->host_busy_share * (double)idle)
    return;
  xp_finding *f = xp_fl_add(fl, "host_bound");
  if (!f) return;
  f->plane = ops[0].plane;
  f->subject = xp_mprintf("CPU:%lld", (long long)ops[0].ordinal);
  if (!f->subject) fl->oom = 1;
  f->count = host_gaps;
  f->of = gaps;
  f->time_ps = host_idle;
  f->share = (double)host_idle / (double)wall;
  f->severity = f->share >= 0.5 ? "high" : "medium";
  f->start_ps = first;
  f->end_ps = last;
  xp_buf *b = xp_buf_new();
  xp_buf_appendf(b, "{\"device_wall_ps\":%lld,\"device_idle_ps\":%lld,\"idle_gaps\":%lld,\"host_work_gaps\":%lld,"
                    "\"idle_under_host_work_ps\":%lld,\"host_work_ps\":%lld,\"idle_share_min\":",
                 (long long)wall, (long long)idle, (long long)gaps, (long long)host_gaps, (long long)host_idle,
                 (long long)iv_overlap(work, first, last));
  xp_buf_append_g17(b, fp->idle_share);
  xp_buf_appendall(b, ",\"host_busy_share_min\":");
  f->evidence = xp_fl_evidence_end(fl, b, fp->host_busy_share);
  f->suggestion = "The device waits for the host: move input preprocessing off the training loop (prefetch, "
                  "asynchronous data loading), avoid Python work and host callbacks between steps, and "
                  "dispatch the next step before reading results of the last one.";
}

/* A program run of one device. */
typedef struct prun {
  int64_t program, run, own, start, end;
  xp_str module;
} prun;

static int by_run(const void *x, const void *y) {
  const prun *a = x, *b = y;
  if (a->program != b->program) return a->program < b->program ? -1 : 1;
  if (a->own != b->own) return a->own < b->own ? -1 : 1;
  if (a->run != b->run) return a->run < b->run ? -1 : 1;
  return a->start < b->start ? -1 : a->start > b->start;
}

static int by_start_only(const void *x, const void *y) {
  const prun *a = x, *b = y;
  return a->start < b->start ? -1 : a->start > b->start;
}

static void tiny_runs(const xp_find_params *fp, const cop *ops, int64_t n, const pbusy *busy, flist *fl) {
  prun *r = xp_malloc(sizeof(prun) * (uint64_t)(n + 1));
  if (!r) { fl->oom = 1; return; }
  /* an op without a run id is a run of its own (k distinguishes them) */
  for (int64_t k = 0; k < n; k++)
    r[k] = (prun){ops[k].program_id, ops[k].run_id == XP_NO_ID ? k : ops[k].run_id, ops[k].run_id == XP_NO_ID,
                  ops[k].start_ps, ops[k].end_ps, ops[k].module};
  qsort(r, (size_t)n, sizeof(prun), by_run);
  int64_t m = 0;
  for (int64_t k = 0; k < n; k++) {
    if (m && r[m - 1].program == r[k].program && r[m - 1].run == r[k].run && r[m - 1].own == r[k].own) {
      if (r[k].end > r[m - 1].end) r[m - 1].end = r[k].end;
    } else {
      r[m++] = r[k];
    }
  }
  qsort(r, (size_t)m, sizeof(prun), by_start_only);
  int64_t tiny = 0, tiny_ps = 0, gap_ps = 0, first = 0, last = 0, cap_gap = XP_FIND_LAUNCH_GAP_FACTOR * fp->tiny_ps;
  xp_buf *names = xp_buf_new();
  xp_str kept[5];
  int nn = 0;
  for (int64_t k = 0; k < m; k++) {
    if (r[k].end - r[k].start >= fp->tiny_ps) continue;
    if (!tiny) first = r[k].start;
    last = r[k].end;
    tiny++;
    tiny_ps += r[k].end - r[k].start;
    int64_t lo = 0, hi = busy->n; /* the last busy interval starting before the run */
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (busy->s[mid] < r[k].start) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0 && busy->e[lo - 1] <= r[k].start) {
      int64_t g = r[k].start - busy->e[lo - 1];
      if (g > 0 && g < cap_gap) gap_ps += g;
    }
    int seen = 0; /* up to 5 distinct module names, compared with those kept */
    for (int j = 0; j < nn && !seen; j++)
      seen = kept[j].n == r[k].module.n && memcmp(kept[j].p, r[k].module.p, r[k].module.n) == 0;
    if (!seen && nn < 5 && r[k].module.n) {
      if (nn) xp_buf_appendchar(names, 1, ',');
      kept[nn++] = r[k].module;
      xp_buf_append(names, r[k].module.p, r[k].module.n);
    }
  }
  if (tiny < fp->tiny_min || (double)tiny < fp->tiny_share * (double)m) {
    xp_buf_free(names);
    xp_free(r);
    return;
  }
  xp_finding *f = xp_fl_add(fl, "tiny_kernels");
  if (!f) { xp_buf_free(names); xp_free(r); return; }
  f->plane = ops[0].plane;
  f->subject = xp_mprintf("CPU:%lld", (long long)ops[0].ordinal);
  if (!f->subject) fl->oom = 1;
  f->count = tiny;
  f->of = m;
  f->time_ps = gap_ps;
  f->share = tiny_ps + gap_ps > 0 ? (double)gap_ps / (double)(tiny_ps + gap_ps) : 0;
  f->severity = (double)tiny >= 2 * fp->tiny_share * (double)m ? "high" : "medium";
  f->start_ps = first;
  f->end_ps = last;
  f->ops = xp_fl_take(fl, names);
  xp_buf *b = xp_buf_new();
  xp_buf_appendf(b, "{\"program_runs\":%lld,\"tiny_runs\":%lld,\"tiny_ps\":%lld,\"launch_gap_ps\":%lld,"
                    "\"tiny_run_max_ps\":%lld,\"tiny_min\":%lld,\"tiny_share_min\":",
                 (long long)m, (long long)tiny, (long long)tiny_ps, (long long)gap_ps, (long long)fp->tiny_ps,
                 (long long)fp->tiny_min);
  f->evidence = xp_fl_evidence_end(fl, b, fp->tiny_share);
  f->suggestion = "Many programs that each do almost nothing are dispatched one by one: put the loop inside "
                  "jax.jit (lax.fori_loop / lax.scan), or batch the small operations into one jitted function.";
  xp_free(r);
}

static void transfers(xp_profile *p, const xp_find_params *fp, const hevvec *hv, int64_t ref_wall, flist *fl) {
  const xp_step *steps;
  int64_t ns = xp_steps(p, &steps);
  if (ns < 0) { fl->oom = 1; return; }
  ivec calls = {0};
  /* hv is in plane order: each plane's events are one run of it */
  for (int64_t a = 0, b; a < hv->n && !fl->oom; a = b) {
    int32_t plane = hv->v[a].plane;
    for (b = a; b < hv->n && hv->v[b].plane == plane; b++) {}
    calls.n = 0;
    int64_t count = 0, in_steps = 0, open_end = INT64_MIN;
    int32_t open_line = -1;
    for (int64_t k = a; k < b; k++) {
      const hev *e = &hv->v[k];
      if (!(e->cls & HEV_H2D)) continue;
      if (e->line == open_line && e->start < open_end) continue; /* nested in the last one */
      open_line = e->line;
      open_end = e->start + e->dur;
      count++;
      for (int64_t i = 0; i < ns; i++)
        if (steps[i].plane == plane && e->start >= steps[i].start_ps && e->start < steps[i].start_ps + steps[i].dur_ps) {
          in_steps++;
          break;
        }
      if (!iv_push(&calls, e->start, e->start + e->dur)) fl->oom = 1;
    }
    if (!count || fl->oom) continue;
    iv_merge(&calls);
    int64_t time = 0, step_ps = 0, n_steps = 0;
    for (int64_t k = 0; k < calls.n; k++) time += calls.v[k].e - calls.v[k].s;
    for (int64_t i = 0; i < ns; i++)
      if (steps[i].plane == plane) step_ps += steps[i].dur_ps, n_steps++;
    int64_t ref = n_steps ? step_ps : ref_wall;
    if (ref <= 0 || (double)time < fp->transfer_share * (double)ref) continue;
    xp_finding *f = xp_fl_add(fl, "transfers");
    if (!f) break;
    f->plane = plane;
    f->subject = xp_mprintf("HtoD");
    if (!f->subject) fl->oom = 1;
    f->count = count;
    f->time_ps = time;
    f->share = (double)time / (double)ref;
    f->severity = f->share >= 3 * fp->transfer_share ? "high" : "medium";
    f->start_ps = calls.v[0].s;
    f->end_ps = calls.v[calls.n - 1].e;
    xp_buf *b = xp_buf_new();
    xp_buf_appendf(b, "{\"direction\":\"HtoD\",\"copies\":%lld,\"copy_ps\":%lld,\"in_steps\":%lld,"
                      "\"reference_ps\":%lld,\"reference\":\"%s\",\"transfer_share_min\":",
                   (long long)count, (long long)time, (long long)in_steps, (long long)ref,
                   n_steps ? "step time" : "device wall");
    f->evidence = xp_fl_evidence_end(fl, b, fp->transfer_share);
    f->suggestion = "Host-to-device copies take step time: prefetch inputs to the device ahead of the step "
                    "(double buffering) and keep parameters on the device.";
  }
  xp_free(calls.v);
}

void xp_fl_cpu_rules(xp_profile *p, const xp_find_params *fp, const hevvec *hv, flist *fl) {
  const cop *ov;
  ivec work = {0};
  pbusy *pb = NULL;
  int64_t n_dev = 0, max_wall = 0, n = xp_cpu_ops(p, &ov);
  if (n < 0 || !host_work(hv, ov, n, &work)) { fl->oom = 1; goto done; }
  for (int64_t k = 0; k < n; k++) n_dev += k == 0 || ov[k].ordinal != ov[k - 1].ordinal;
  pb = xp_malloc(sizeof(pbusy) * (uint64_t)(n_dev + 1));
  if (!pb) { fl->oom = 1; goto done; }
  memset(pb, 0, sizeof(pbusy) * (size_t)(n_dev + 1));
  for (int64_t a = 0, d = 0; a < n && !fl->oom; d++) {
    int64_t b = a;
    while (b < n && ov[b].ordinal == ov[a].ordinal) b++;
    /* the device's ops come by start: merged as they come (zero-length ops add nothing) */
    for (int64_t k = a; k < b && !fl->oom; k++)
      if (ov[k].end_ps > ov[k].start_ps && !xp_fl_busy_add(&pb[d], ov[k].start_ps, ov[k].end_ps)) fl->oom = 1;
    if (!fl->oom && pb[d].n) {
      if (pb[d].e[pb[d].n - 1] - ov[a].start_ps > max_wall) max_wall = pb[d].e[pb[d].n - 1] - ov[a].start_ps;
      host_bound(fp, ov + a, b - a, &pb[d], &work, fl);
      if (!fl->oom) tiny_runs(fp, ov + a, b - a, &pb[d], fl);
    }
    a = b;
  }
  if (!fl->oom) transfers(p, fp, hv, max_wall, fl);
  if (!fl->oom) xp_fl_sync(p, fp, pb, n_dev, hv, fl);
done:
  for (int64_t d = 0; pb && d < n_dev; d++) xp_free(pb[d].s), xp_free(pb[d].e);
  xp_free(pb);
  xp_free(work.v);
}
