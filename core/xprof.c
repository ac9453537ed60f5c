/*
** xprof.c: devices, HLO stats (roofline) and kernel stats (see xprof.h),
** each built once per decode into an analysis slot. The groupings and sorts
** over the device ops ask xp_cancelled() every 4096 items (xp_sort for the
** sorts): an interrupted build fails (-1, xp_cancel_stopped() set) and
** caches nothing.
*/
#include "xprof.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "gpu_peaks.h"
#include "semantics.h"
#include "util.h"

/* ---- small helpers ---- */

static int str_has(const char *p, size_t n, const char *z) {
  size_t m = strlen(z);
  if (m > n) return 0;
  for (size_t i = 0; i + m <= n; i++)
    if (memcmp(p + i, z, m) == 0) return 1;
  return 0;
}
static int str_starts(const char *p, size_t n, const char *z) {
  size_t m = strlen(z);
  return m <= n && memcmp(p, z, m) == 0;
}
static int str_ends(const char *p, size_t n, const char *z) {
  size_t m = strlen(z);
  return m <= n && memcmp(p + n - m, z, m) == 0;
}
static int str_same(xp_str a, xp_str b) { return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0); }

/* A numeric stat as a double; 0 when it is not a number. */
static int stat_num(const xp_stat *s, double *out) {
  switch (s->type) {
    case XP_V_DOUBLE: *out = s->num.d; return 1;
    case XP_V_INT64: *out = (double)s->num.i; return 1;
    case XP_V_UINT64: *out = (double)s->num.u; return 1;
    default: return 0;
  }
}
int xp_stat_as_int(const xp_stat *s, int64_t *out) {
  switch (s->type) {
    case XP_V_INT64: *out = s->num.i; return 1;
    case XP_V_UINT64: if (s->num.u > (uint64_t)INT64_MAX) return 0; *out = (int64_t)s->num.u; return 1;
    case XP_V_DOUBLE:
      if (!(s->num.d >= -9.2e18 && s->num.d <= 9.2e18)) return 0;
      *out = (int64_t)s->num.d;
      return 1;
    default: return 0;
  }
}

/* The named stats of an op into v (ids re-resolved when the plane changes). */
static void pick_op_stats(const xp_profile *p, const xp_op *o, int32_t *plane, xp_stat_pick_ids *ids,
                          const char *const *names, int n, xp_stat *v) {
  const xp_plane *pl = &p->planes[o->plane];
  if (o->plane != *plane) {
    xp_stat_pick_init(pl, names, n, ids);
    *plane = o->plane;
  }
  xp_event ev;
  memset(&ev, 0, sizeof(ev));
  ev.msg = o->msg;
  ev.msg_n = o->msg_n;
  ev.metadata_id = pl->emeta[o->emeta].id;
  xp_stat_pick(p, pl, &ev, ids, n, v);
}

/* An unsigned decimal p[0..n) (at most 18 digits); 0 if it is not one. */
static int parse_uint(const char *p, size_t n, int64_t *out) {
  if (n == 0 || n > 18) return 0;
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] < '0' || p[i] > '9') return 0;
    v = v * 10 + (p[i] - '0');
  }
  *out = v;
  return 1;
}
static int parse_dims(const char *p, size_t n, int64_t d[3]) {
  int64_t t[3];
  size_t a = 0;
  for (int k = 0; k < 3; k++) {
    size_t b = a;
    while (b < n && p[b] != ',') b++;
    if (!parse_uint(p + a, b - a, &t[k])) return 0;
    if (k < 2 && b >= n) return 0;
    a = b + 1;
  }
  if (a <= n) return 0; /* more than three */
  memcpy(d, t, sizeof(t));
  return 1;
}
/* ---- kernel details ---- */

int xp_kernel_details_parse(const char *p, size_t n, xp_kernel_details *kd) {
  memset(kd, 0, sizeof(*kd));
  for (int k = 0; k < 3; k++) kd->grid[k] = kd->block[k] = 1;
  int found = 0;
  size_t i = 0;
  while (i < n) {
    while (i < n && (p[i] == ' ' || p[i] == '\n')) i++;
    size_t s = i;
    while (i < n && p[i] != ' ' && p[i] != '\n') i++;
    const char *t = p + s;
    size_t tn = i - s, colon = 0;
    while (colon < tn && t[colon] != ':') colon++;
    if (colon == tn || memchr(t + colon + 1, ':', tn - colon - 1)) continue; /* not key:value */
    const char *v = t + colon + 1;
    size_t vn = tn - colon - 1;
    int64_t x;
#define KEY(z) (colon == strlen(z) && memcmp(t, z, colon) == 0)
    if (KEY("regs") && parse_uint(v, vn, &x)) kd->regs = x, kd->has |= XP_KD_REGS, found++;
    else if (KEY("static_shared") && parse_uint(v, vn, &x)) kd->static_shmem = x, kd->has |= XP_KD_STATIC, found++;
    else if (KEY("dynamic_shared") && parse_uint(v, vn, &x)) kd->dynamic_shmem = x, kd->has |= XP_KD_DYNAMIC, found++;
    else if ((KEY("shm") || KEY("group_mem")) && parse_uint(v, vn, &x)) kd->shared_mem = x, kd->has |= XP_KD_SHARED, found++;
    else if (KEY("private_mem") && parse_uint(v, vn, &x)) kd->private_mem = x, kd->has |= XP_KD_PRIVATE, found++;
    else if (KEY("grid") && parse_dims(v, vn, kd->grid)) kd->has |= XP_KD_GRID, found++;
    else if (KEY("block") && parse_dims(v, vn, kd->block)) kd->has |= XP_KD_BLOCK, found++;
    else if (KEY("occ_pct") && xp_parse_double(v, vn, &kd->occupancy_pct)) kd->has |= XP_KD_OCC, found++;
#undef KEY
  }
  return found;
}

int xp_kernel_uses_tensor_core(const char *p, size_t n) {
  static const char *const prefixes[] = {"volta_i884", "volta_h884", "volta_s884", "volta_fp16_i884",
                                         "volta_fp16_h884", "volta_fp16_s884", "turing_i1688", "turing_h1688",
                                         "turing_s1688", "turing_fp16_i1688", "turing_fp16_h1688",
                                         "turing_fp16_s1688"};
  for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++)
    if (str_starts(p, n, prefixes[k])) return 1;
  return str_has(p, n, "hmma") || str_has(p, n, "xmma");
}

int xp_op_tensor_core_eligible(const char *p, size_t n) {
  static const char *const ends[] = {"Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput", "Conv3D",
                                     "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropFilter",
                                     "DepthwiseConv2dNativeBackpropInput", "/MatMul", "FusedMatMul",
                                     "/CudnnRNN", "XlaDot", "XlaDotV2"};
  static const char *const has[] = {"BatchMatMul", "CudnnRNNV", "CudnnRNNForward", "CudnnRNNBackprop"};
  for (size_t k = 0; k < sizeof(ends) / sizeof(ends[0]); k++)
    if (str_ends(p, n, ends[k])) return 1;
  for (size_t k = 0; k < sizeof(has) / sizeof(has[0]); k++)
    if (str_has(p, n, has[k])) return 1;
  return 0;
}

/* ---- devices ---- */

typedef struct devices {
  xp_device *v;
  int64_t n;
  int32_t *of_plane; /* plane -> device row, -1 for planes that are not devices */
  int64_t of_plane_bytes;
} devices;

static int64_t devices_bytes(const void *d_) {
  const devices *d = d_;
  return (int64_t)sizeof(*d) + d->n * (int64_t)sizeof(xp_device) + d->of_plane_bytes;
}

static void devices_free(void *d_) {
  devices *d = d_;
  xp_free(d->v);
  xp_free(d->of_plane);
  xp_free(d);
}

static const char *const dev_stats[] = {"device_type_string", "device_vendor", "core_details",
                                        "peak_teraflops_per_second", "peak_hbm_bw_gigabytes_per_second",
                                        "memory_bandwidth", "core_count", "clock_rate"};
static const char *const dev_stats2[] = {"memory_size", "compute_cap_major", "compute_cap_minor", "gpu_device_name"};

/* A GPU plane's peak FLOP rate from its vendor, capability, cores and clock
** (gpu_peaks.h), with the note that says how or why not. */
static void derive_gpu_peak(xp_device *dv, xp_str gpu_name) {
  if (dv->has & XP_DEV_PEAK_FLOPS) {
    snprintf(dv->peak_note, sizeof(dv->peak_note), "the profile's peak_teraflops_per_second");
    return;
  }
  xp_gpu_peak g;
  xp_gpu_peak_of(dv->vendor.p, dv->vendor.n, gpu_name.p, gpu_name.n, (dv->has & XP_DEV_CC) != 0,
                 dv->compute_cap_major, dv->compute_cap_minor, &g);
  const char *why = g.why;
  if (g.known && !((dv->has & XP_DEV_CORES) && dv->core_count > 0 && dv->core_count < 100000))
    why = "no core_count";
  else if (g.known && !((dv->has & XP_DEV_CLOCK) && dv->clock_rate_khz > 0 && dv->clock_rate_khz < 100000000))
    why = "no clock_rate";
  else if (g.known) {
    double ghz = (double)dv->clock_rate_khz / 1e6;
    dv->derived_peak_flops_per_s = g.flop_per_core_cycle * (double)dv->core_count * (double)dv->clock_rate_khz * 1e3;
    snprintf(dv->peak_note, sizeof(dv->peak_note), "%s: %.0f FLOP/clock/%s (%s) x %lld %ss x %.4g GHz%s", g.arch,
             g.flop_per_core_cycle, g.core, g.unit, (long long)dv->core_count, g.core, ghz,
             g.vendor_inferred ? "; NVIDIA inferred: no device_vendor" : "");
    return;
  }
  snprintf(dv->peak_note, sizeof(dv->peak_note), "unknown: %s", why);
}

static int build_devices(xp_profile *p, devices *d) {
  d->of_plane = xp_malloc(sizeof(int32_t) * (uint64_t)(p->n_planes + 1));
  if (!d->of_plane) return 0;
  d->of_plane_bytes = (int64_t)sizeof(int32_t) * (p->n_planes + 1);
  int64_t cap = 0;
  for (int32_t pi = 0; pi < p->n_planes; pi++) {
    const xp_plane *pl = &p->planes[pi];
    d->of_plane[pi] = -1;
    if (!str_starts(pl->name.p, pl->name.n, "/device:")) continue;
    if (!xp_grow((void **)&d->v, &cap, d->n + 1, sizeof(xp_device))) return 0;
    xp_statvec sv = {0};
    if (!xp_plane_stats(p, pl, &sv)) {
      xp_statvec_free(&sv);
      return 0;
    }
    xp_device *dv = &d->v[d->n];
    memset(dv, 0, sizeof(*dv));
    dv->plane = pi;
    const xp_stat *s;
    xp_str none = {"", 0};
    dv->device_type = (s = xp_statvec_find(&sv, dev_stats[0])) ? xp_stat_as_text(s) : none;
    dv->vendor = (s = xp_statvec_find(&sv, dev_stats[1])) ? xp_stat_as_text(s) : none;
    dv->core_details = (s = xp_statvec_find(&sv, dev_stats[2])) ? xp_stat_as_text(s) : none;
    dv->core_details_bytes = s && s->type == XP_V_BYTES;
    double x;
    if ((s = xp_statvec_find(&sv, dev_stats[3])) && stat_num(s, &x) && x > 0)
      dv->peak_flops_per_s = x * 1e12, dv->has |= XP_DEV_PEAK_FLOPS;
    if ((s = xp_statvec_find(&sv, dev_stats[4])) && stat_num(s, &x) && x > 0)
      dv->peak_bw_bytes_per_s = x * 1e9, dv->has |= XP_DEV_PEAK_BW;
    else if ((s = xp_statvec_find(&sv, dev_stats[5])) && stat_num(s, &x) && x > 0)
      dv->peak_bw_bytes_per_s = x, dv->has |= XP_DEV_PEAK_BW;
    int64_t v;
    if ((s = xp_statvec_find(&sv, dev_stats[6])) && xp_stat_as_int(s, &v)) dv->core_count = v, dv->has |= XP_DEV_CORES;
    if ((s = xp_statvec_find(&sv, dev_stats[7])) && xp_stat_as_int(s, &v)) dv->clock_rate_khz = v, dv->has |= XP_DEV_CLOCK;
    if ((s = xp_statvec_find(&sv, dev_stats2[0])) && xp_stat_as_int(s, &v)) dv->memory_size_bytes = v, dv->has |= XP_DEV_MEMORY;
    int64_t ma, mi;
    if ((s = xp_statvec_find(&sv, dev_stats2[1])) && xp_stat_as_int(s, &ma) &&
        xp_statvec_find(&sv, dev_stats2[2]) && xp_stat_as_int(xp_statvec_find(&sv, dev_stats2[2]), &mi))
      dv->compute_cap_major = ma, dv->compute_cap_minor = mi, dv->has |= XP_DEV_CC;
    xp_str gpu_name = (s = xp_statvec_find(&sv, dev_stats2[3])) ? xp_stat_as_text(s) : none;
    if (str_starts(pl->name.p, pl->name.n, "/device:GPU:")) derive_gpu_peak(dv, gpu_name);
    xp_statvec_free(&sv);
    d->of_plane[pi] = (int32_t)d->n++;
  }
  return 1;
}

static devices *get_devices(xp_profile *p) {
  void **slot = xp_analysis_slot_sized(p, XP_SLOT_DEVICES, devices_free, devices_bytes);
  if (!slot) return NULL;
  if (!*slot) {
    devices *d = xp_malloc(sizeof(*d));
    if (!d) return NULL;
    memset(d, 0, sizeof(*d));
    if (!build_devices(p, d)) {
      devices_free(d);
      return NULL;
    }
    *slot = d;
  }
  return *slot;
}

int64_t xp_devices(xp_profile *p, const xp_device **rows) {
  devices *d = get_devices(p);
  if (!d) return -1;
  *rows = d->v;
  return d->n;
}

/* ---- grouping by a key of strings ---- */

typedef struct group_map {
  xp_hmap m;
  const void *rows;
  size_t row_size;
  uint64_t (*hash_row)(const void *row);
  int (*same)(const void *row, const void *key);
  const void *key; /* the key being looked up */
} group_map;

static uint64_t gm_hash(const void *ctx, int64_t e) {
  const group_map *g = ctx;
  return g->hash_row((const char *)g->rows + (size_t)e * g->row_size);
}
static int gm_eq(const void *ctx, int64_t e) {
  const group_map *g = ctx;
  return g->same((const char *)g->rows + (size_t)e * g->row_size, g->key);
}

/* ---- HLO stats ---- */

typedef struct hlo_stats {
  xp_hlo_stat *v;
  int64_t n;
  int64_t device_self_ps;
} hlo_stats;

static int64_t hlo_bytes(const void *h_) {
  const hlo_stats *h = h_;
  return (int64_t)sizeof(*h) + h->n * (int64_t)sizeof(xp_hlo_stat);
}

static void hlo_free(void *h_) {
  hlo_stats *h = h_;
  xp_free(h->v);
  xp_free(h);
}

typedef struct hlo_key {
  int32_t kind;
  xp_str name;
} hlo_key;

static uint64_t hlo_hash(const void *row) {
  const xp_hlo_stat *s = row;
  return xp_hash_bytes((uint64_t)s->kind, s->name.p, s->name.n);
}
static int hlo_same(const void *row, const void *key) {
  const xp_hlo_stat *s = row;
  const hlo_key *k = key;
  return s->kind == k->kind && str_same(s->name, k->name);
}

static int hlo_order(const void *x, const void *y) {
  const xp_hlo_stat *a = x, *b = y;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->self_ps != b->self_ps) return a->self_ps > b->self_ps ? -1 : 1;
  if (a->total_ps != b->total_ps) return a->total_ps > b->total_ps ? -1 : 1;
  return xp_str_cmp(a->name, b->name);
}

/* Category counts of op rows, to pick each op's most frequent category. */
typedef struct cat_count {
  xp_str category;
  int64_t count, first;
  int64_t next;   /* the row's next category, -1 at the end */
} cat_count;

static int build_hlo(xp_profile *p, hlo_stats *out) {
  static const char *const names[] = {"flops", "model_flops", "bytes_accessed", "hlo_category",
                                      "device_duration_ps"};
  const xp_op *ops;
  int64_t n_ops = xp_ops(p, &ops);
  devices *dv = get_devices(p);
  if (n_ops < 0 || !dv) return 0;
  group_map g = {.rows = NULL, .row_size = sizeof(xp_hlo_stat), .hash_row = hlo_hash, .same = hlo_same};
  cat_count *cats = NULL;
  int64_t *cat_head = NULL; /* op row -> its first category entry, -1 for none */
  int64_t cap = 0, n_cats = 0, cap_cats = 0, cap_head = 0;
  int32_t plane = -1;
  xp_stat_pick_ids ids;
  int ok = 1;
  for (int64_t i = 0; ok && i < n_ops; i++) {
    if ((i & 4095) == 4095 && xp_cancelled()) { ok = 0; break; }
    const xp_op *o = &ops[i];
    xp_stat v[5];
    pick_op_stats(p, o, &plane, &ids, names, 5, v);
    xp_str cat = xp_stat_as_text(&v[3]);
    int64_t device_ps = -1; /* the TPU device clock's duration of the op, when it has one */
    if (xp_stat_as_int(&v[4], &device_ps) && device_ps < 0) device_ps = -1;
    int64_t self = o->self_ps > 0 ? o->self_ps : 0;
    out->device_self_ps += self;
    const xp_device *d = dv->of_plane[o->plane] >= 0 ? &dv->v[dv->of_plane[o->plane]] : NULL;
    int peaks = d && (d->has & XP_DEV_PEAK_FLOPS) && (d->has & XP_DEV_PEAK_BW);
    for (int kind = 0; ok && kind < 2; kind++) {
      hlo_key key = {kind, kind == XP_HLO_OP ? xp_op_name(p, o) : cat};
      if (kind == XP_HLO_CATEGORY && !cat.n) continue; /* ops without a category are in no category row */
      g.rows = out->v;
      g.key = &key;
      if (!xp_hmap_reserve(&g.m, gm_hash, &g)) { ok = 0; break; }
      uint64_t pos = xp_hmap_find(&g.m, xp_hash_bytes((uint64_t)kind, key.name.p, key.name.n), gm_eq, &g);
      int64_t e = g.m.slot[pos];
      if (e < 0) {
        if (!xp_grow((void **)&out->v, &cap, out->n + 1, sizeof(xp_hlo_stat)) ||
            !xp_grow((void **)&cat_head, &cap_head, out->n + 1, sizeof(int64_t))) { ok = 0; break; }
        e = out->n++;
        cat_head[e] = -1;
        xp_hlo_stat *s = &out->v[e];
        memset(s, 0, sizeof(*s));
        s->kind = kind;
        s->name = key.name;
        if (kind == XP_HLO_CATEGORY) s->category = cat;
        s->first_op = i;
        s->has_peaks = peaks;
        if (peaks) s->peak_flops_per_s = d->peak_flops_per_s, s->peak_bw_bytes_per_s = d->peak_bw_bytes_per_s;
        xp_hmap_put(&g.m, pos, e);
      }
      xp_hlo_stat *s = &out->v[e];
      s->count++;
      s->total_ps += o->dur_ps;
      s->self_ps += self;
      double x;
      if (stat_num(&v[0], &x)) s->flops += x, s->n_flops++;
      if (stat_num(&v[1], &x)) s->model_flops += x, s->n_model_flops++;
      if (stat_num(&v[2], &x)) s->bytes += x, s->n_bytes++;
      if (device_ps >= 0) s->device_ps += device_ps, s->n_device++;
      if (s->has_peaks && !(peaks && d->peak_flops_per_s == s->peak_flops_per_s &&
                            d->peak_bw_bytes_per_s == s->peak_bw_bytes_per_s))
        s->has_peaks = 0;
      if (kind == XP_HLO_OP && cat.n) { /* count (row, category) */
        int64_t k = cat_head[e], last = -1;
        while (k >= 0 && !str_same(cats[k].category, cat)) last = k, k = cats[k].next;
        if (k < 0) {
          if (!xp_grow((void **)&cats, &cap_cats, n_cats + 1, sizeof(cat_count))) { ok = 0; break; }
          cats[n_cats].category = cat;
          cats[n_cats].count = 0;
          cats[n_cats].first = i;
          cats[n_cats].next = -1;
          if (last < 0) cat_head[e] = n_cats;
          else cats[last].next = n_cats;
          k = n_cats++;
        }
        cats[k].count++;
      }
    }
  }
  /* each op row's most frequent category (ties: first seen) */
  for (int64_t e = 0; ok && e < out->n; e++) {
    if ((e & 4095) == 4095 && xp_cancelled()) { ok = 0; break; }
    int64_t best = -1;
    for (int64_t j = cat_head[e]; j >= 0; j = cats[j].next)
      if (best < 0 || cats[j].count > cats[best].count ||
          (cats[j].count == cats[best].count && cats[j].first < cats[best].first))
        best = j;
    if (best >= 0) out->v[e].category = cats[best].category;
  }
  if (ok && out->n && !xp_sort(out->v, out->n, sizeof(xp_hlo_stat), hlo_order)) ok = 0;
  xp_free(cats);
  xp_free(cat_head);
  xp_hmap_free(&g.m);
  return ok;
}

int64_t xp_hlo_stats(xp_profile *p, const xp_hlo_stat **rows, int64_t *device_self_ps) {
  void **slot = xp_analysis_slot_sized(p, XP_SLOT_HLO_STATS, hlo_free, hlo_bytes);
  if (!slot) return -1;
  if (!*slot) {
    hlo_stats *h = xp_malloc(sizeof(*h));
    if (!h) return -1;
    memset(h, 0, sizeof(*h));
    if (!build_hlo(p, h)) {
      hlo_free(h);
      return -1;
    }
    *slot = h;
  }
  hlo_stats *h = *slot;
  *rows = h->v;
  if (device_self_ps) *device_self_ps = h->device_self_ps;
  return h->n;
}

int xp_is_async_half(const char *p, size_t n) {
  /* name-start / name-done, optionally .N (copy-start.1, all-reduce-done) */
  size_t e = n;
  while (e > 0 && p[e - 1] >= '0' && p[e - 1] <= '9') e--;
  if (e < n && e > 0 && p[e - 1] == '.') e--;
  else e = n;
  return str_ends(p, e, "-start") || str_ends(p, e, "-done");
}

void xp_roofline_of(const xp_hlo_stat *s, xp_roofline *r) {
  /* per second: x * 1e12 / ps (one rounding less than x / (ps * 1e-12)); the time is the
  ** device clock's when every invocation has one (TPU: xprof's op time), else self time */
  r->device_clock = s->count > 0 && s->n_device == s->count;
  r->time_ps = r->device_clock ? s->device_ps : s->self_ps;
  double ps = (double)r->time_ps;
  int flops = s->n_flops == s->count && s->count > 0, bytes = s->n_bytes == s->count && s->count > 0;
  r->flops_per_s = flops && ps > 0 ? s->flops * 1e12 / ps : NAN;
  r->bytes_per_s = bytes && ps > 0 ? s->bytes * 1e12 / ps : NAN;
  r->intensity = flops && bytes && s->bytes > 0 ? s->flops / s->bytes : NAN;
  r->ridge = s->has_peaks ? s->peak_flops_per_s / s->peak_bw_bytes_per_s : NAN;
  r->flop_utilization = s->has_peaks ? r->flops_per_s / s->peak_flops_per_s : NAN;
  r->bw_utilization = s->has_peaks ? r->bytes_per_s / s->peak_bw_bytes_per_s : NAN;
  r->rate_note = NULL;
  int async = xp_is_async_half(s->name.p, s->name.n); /* op rows by name, category rows by category */
  if (r->bw_utilization > 1)
    r->rate_note = async ? "bandwidth above the peak: an async start/done's bytes move between its start and its "
                           "done, not in its own op time (xprof divides by op time too)"
                         : "bandwidth above the peak: bytes_accessed counts every memory space (on-chip too), "
                           "not HBM alone";
  else if (r->flop_utilization > 1)
    r->rate_note = "FLOP rate above the peak: the flops stat does not match the op's own time";
  if (!flops || !bytes || !s->has_peaks || (s->bytes <= 0 && s->flops <= 0)) r->bound_by = "unknown";
  else if (s->bytes <= 0) r->bound_by = "compute"; /* FLOPs without memory traffic */
  else r->bound_by = r->intensity >= r->ridge ? "compute" : "memory";
}

/* ---- kernel stats ---- */

typedef struct kernel_stats {
  xp_kernel_stat *v;
  int64_t n;
} kernel_stats;

static int64_t kernels_bytes(const void *k_) {
  const kernel_stats *k = k_;
  return (int64_t)sizeof(*k) + k->n * (int64_t)sizeof(xp_kernel_stat);
}

static void kernels_free(void *k_) {
  kernel_stats *k = k_;
  xp_free(k->v);
  xp_free(k);
}

static uint64_t kd_hash(const xp_kernel_stat *s) {
  uint64_t h = xp_hash_bytes(0, s->name.p, s->name.n);
  h = xp_hash_bytes(h, s->op_name.p, s->op_name.n);
  int64_t nums[] = {s->kd.regs, s->kd.static_shmem, s->kd.dynamic_shmem, s->kd.shared_mem, s->kd.private_mem,
                    s->kd.grid[0], s->kd.grid[1], s->kd.grid[2], s->kd.block[0], s->kd.block[1], s->kd.block[2],
                    (int64_t)s->kd.has};
  return xp_hash_bytes(h, nums, sizeof(nums));
}
static uint64_t kernel_hash(const void *row) { return kd_hash(row); }
static int kernel_same(const void *row, const void *key) {
  const xp_kernel_stat *a = row, *b = key;
  return str_same(a->name, b->name) && str_same(a->op_name, b->op_name) && a->kd.has == b->kd.has &&
         a->kd.regs == b->kd.regs && a->kd.static_shmem == b->kd.static_shmem &&
         a->kd.dynamic_shmem == b->kd.dynamic_shmem && a->kd.shared_mem == b->kd.shared_mem &&
         a->kd.private_mem == b->kd.private_mem && memcmp(a->kd.grid, b->kd.grid, sizeof(a->kd.grid)) == 0 &&
         memcmp(a->kd.block, b->kd.block, sizeof(a->kd.block)) == 0;
}

static int kernel_order(const void *x, const void *y) {
  const xp_kernel_stat *a = x, *b = y;
  if (a->total_ps != b->total_ps) return a->total_ps > b->total_ps ? -1 : 1;
  int c = xp_str_cmp(a->name, b->name);
  if (c) return c;
  for (int k = 0; k < 3; k++)
    if (a->kd.grid[k] != b->kd.grid[k]) return a->kd.grid[k] < b->kd.grid[k] ? -1 : 1;
  for (int k = 0; k < 3; k++)
    if (a->kd.block[k] != b->kd.block[k]) return a->kd.block[k] < b->kd.block[k] ? -1 : 1;
  if (a->kd.regs != b->kd.regs) return a->kd.regs < b->kd.regs ? -1 : 1;
  if (a->kd.static_shmem != b->kd.static_shmem) return a->kd.static_shmem < b->kd.static_shmem ? -1 : 1;
  if (a->kd.dynamic_shmem != b->kd.dynamic_shmem) return a->kd.dynamic_shmem < b->kd.dynamic_shmem ? -1 : 1;
  if (a->kd.shared_mem != b->kd.shared_mem) return a->kd.shared_mem < b->kd.shared_mem ? -1 : 1;
  if (a->kd.private_mem != b->kd.private_mem) return a->kd.private_mem < b->kd.private_mem ? -1 : 1;
  if (a->kd.has != b->kd.has) return a->kd.has < b->kd.has ? -1 : 1;
  return xp_str_cmp(a->op_name, b->op_name);
}

/* Append one clause to a note, "; "-separated; text past the end is cut. */
static void note_add(char *note, size_t size, size_t *at, const char *fmt, ...) {
  va_list ap;
  if (*at && *at < size) {
    int w = snprintf(note + *at, size - *at, "; ");
    if (w > 0) *at += (size_t)w;
  }
  if (*at >= size) return;
  va_start(ap, fmt);
  int w = vsnprintf(note + *at, size - *at, fmt, ap);
  va_end(ap);
  if (w > 0) *at += (size_t)w;
}

void xp_kernel_check(xp_kernel_stat *k, const char *vendor, size_t vendor_n) {
  int v = xp_gpu_vendor(vendor, vendor_n);
  int nv = v == XP_GPU_VENDOR_NVIDIA, amd = v == XP_GPU_VENDOR_AMD;
  int64_t max_regs = nv ? 255 : 512;
  int64_t max_shared = nv ? 232448 : amd ? 163840 : 262144;
  const char *who = nv ? "NVIDIA" : amd ? "AMD" : "any GPU";
  const xp_kernel_details *d = &k->kd;
  size_t at = 0, size = sizeof(k->note);
  k->note[0] = 0;
  if ((d->has & XP_KD_REGS) && (d->regs < 1 || d->regs > max_regs))
    note_add(k->note, size, &at, "regs %lld: %s allows 1..%lld per thread", (long long)d->regs, who,
             (long long)max_regs);
  const struct { unsigned bit; int64_t v; const char *key; } mem[] = {
      {XP_KD_STATIC, d->static_shmem, "static_shared"}, {XP_KD_DYNAMIC, d->dynamic_shmem, "dynamic_shared"},
      {XP_KD_SHARED, d->shared_mem, "shared memory"}};
  for (int i = 0; i < 3; i++)
    if ((d->has & mem[i].bit) && mem[i].v > max_shared)
      note_add(k->note, size, &at, "%s %lld bytes: %s allows %lld per block", mem[i].key, (long long)mem[i].v, who,
               (long long)max_shared);
  if ((d->has & XP_KD_OCC) && !(d->occupancy_pct > 0 && d->occupancy_pct <= 100)) {
    if (d->occupancy_pct == 0) note_add(k->note, size, &at, "occ_pct 0: not computed by the writer");
    else note_add(k->note, size, &at, "occ_pct %g: outside (0, 100]", d->occupancy_pct);
  }
}

static int build_kernels(xp_profile *p, kernel_stats *out) {
  static const char *const names[] = {"kernel_details", "tf_op", "name", "hlo_op", "level 0"};
  const xp_op *ops;
  int64_t n_ops = xp_ops(p, &ops);
  devices *dv = get_devices(p);
  if (n_ops < 0 || !dv) return 0;
  group_map g = {.rows = NULL, .row_size = sizeof(xp_kernel_stat), .hash_row = kernel_hash, .same = kernel_same};
  int64_t cap = 0;
  int32_t plane = -1;
  xp_stat_pick_ids ids;
  int ok = 1;
  uint64_t work = 0; /* ops + kernel_details bytes / 256: a poll per 4096 */
  for (int64_t i = 0; ok && i < n_ops; i++) {
    const xp_op *o = &ops[i];
    xp_stat v[5];
    pick_op_stats(p, o, &plane, &ids, names, 5, v);
    xp_str details = xp_stat_as_text(&v[0]);
    uint64_t before = work;
    work += 1 + details.n / 256;
    if ((before >> 12) != (work >> 12) && xp_cancelled()) { ok = 0; break; }
    if (!details.n) continue;
    xp_kernel_stat key;
    memset(&key, 0, sizeof(key));
    key.name = xp_op_name(p, o);
    xp_kernel_details_parse(details.p, details.n, &key.kd);
    xp_str tf = xp_stat_as_text(&v[1]), nm = xp_stat_as_text(&v[2]);
    key.op_name.p = xp_effective_tf_op(tf.p, tf.n, nm.p, nm.n, &key.op_name.n);
    if (!key.op_name.n) key.op_name = xp_stat_as_text(&v[3]);
    if (!key.op_name.n) key.op_name = xp_stat_as_text(&v[4]);
    g.rows = out->v;
    g.key = &key;
    if (!xp_hmap_reserve(&g.m, gm_hash, &g)) { ok = 0; break; }
    uint64_t pos = xp_hmap_find(&g.m, kd_hash(&key), gm_eq, &g);
    int64_t e = g.m.slot[pos];
    if (e < 0) {
      if (!xp_grow((void **)&out->v, &cap, out->n + 1, sizeof(xp_kernel_stat))) { ok = 0; break; }
      e = out->n++;
      xp_kernel_stat *s = &out->v[e];
      *s = key;
      s->uses_tensor_core = xp_kernel_uses_tensor_core(key.name.p, key.name.n);
      s->op_tensor_core_eligible = xp_op_tensor_core_eligible(key.op_name.p, key.op_name.n);
      s->min_ps = INT64_MAX;
      s->first_op = i;
      int32_t di = dv->of_plane[o->plane];
      xp_str vendor = di >= 0 ? dv->v[di].vendor : (xp_str){"", 0};
      xp_kernel_check(s, vendor.p, vendor.n);
      xp_hmap_put(&g.m, pos, e);
    }
    xp_kernel_stat *s = &out->v[e];
    s->count++;
    s->total_ps += o->dur_ps;
    if (o->dur_ps < s->min_ps) s->min_ps = o->dur_ps;
    if (o->dur_ps > s->max_ps) s->max_ps = o->dur_ps;
  }
  if (ok && out->n && !xp_sort(out->v, out->n, sizeof(xp_kernel_stat), kernel_order)) ok = 0;
  xp_hmap_free(&g.m);
  return ok;
}

int64_t xp_kernel_stats(xp_profile *p, const xp_kernel_stat **rows) {
  void **slot = xp_analysis_slot_sized(p, XP_SLOT_KERNEL_STATS, kernels_free, kernels_bytes);
  if (!slot) return -1;
  if (!*slot) {
    kernel_stats *k = xp_malloc(sizeof(*k));
    if (!k) return -1;
    memset(k, 0, sizeof(*k));
    if (!build_kernels(p, k)) {
      kernels_free(k);
      return -1;
    }
    *slot = k;
  }
  *rows = ((kernel_stats *)*slot)->v;
  return ((kernel_stats *)*slot)->n;
}
