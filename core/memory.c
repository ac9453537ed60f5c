/*
** memory.c: memory events and per-allocator peaks (see memory.h), built
** once per decode into analysis slots. Allocators are found through a hash
** index (a hostile file may name one per event); the sort and the loops
** after the scan ask xp_cancelled() every 4096 items, and an interrupted
** build fails (-1, xp_cancel_stopped() set) and caches nothing.
*/
#include "memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "json.h"
#include "util.h"
#include "xprof.h"

typedef struct mem {
  xp_mem_event *v;
  int64_t n;
  char **allocators;   /* distinct allocator names, first-seen order (owned) */
  int64_t n_allocators;
  xp_hmap by_name;     /* index of allocators by name (while building) */
  xp_mem_peak *peaks;
  int64_t n_peaks;     /* -1 until built */
} mem;

static int64_t mem_bytes(const void *m_) {
  const mem *m = m_;
  int64_t n = (int64_t)sizeof(*m) + m->n * (int64_t)sizeof(xp_mem_event) + m->n_allocators * (int64_t)sizeof(char *);
  for (int64_t i = 0; i < m->n_allocators; i++) n += xp_str_bytes(m->allocators[i]);
  for (int64_t i = 0; i < m->n_peaks; i++) n += (int64_t)sizeof(xp_mem_peak) + xp_str_bytes(m->peaks[i].ops_at_peak);
  return n;
}

static void mem_free(void *m_) {
  mem *m = m_;
  for (int64_t i = 0; i < m->n_allocators; i++) xp_free(m->allocators[i]);
  for (int64_t i = 0; i < m->n_peaks; i++) xp_free(m->peaks[i].ops_at_peak);
  xp_free(m->allocators);
  xp_hmap_free(&m->by_name);
  xp_free(m->peaks);
  xp_free(m->v);
  xp_free(m);
}

enum { S_IN_USE, S_BYTES, S_REQUESTED, S_PEAK, S_AVAILABLE, S_RESERVED, S_FRAG, S_ADDR, S_N1 };
static const char *const stats1[] = {"bytes_allocated", "allocation_bytes", "requested_bytes", "peak_bytes_in_use",
                                     "bytes_available", "bytes_reserved", "fragmentation", "addr"};
enum { S_ALLOCATOR, S_INDEX, S_TF_OP, S_SHAPE, S_REGION, S_N2 };
static const char *const stats2[] = {"allocator_name", "index_on_host", "tf_op", "shape", "region_type"};

static int by_time(const void *x, const void *y) {
  const xp_mem_event *a = x, *b = y;
  if (a->time_ps != b->time_ps) return a->time_ps < b->time_ps ? -1 : 1;
  if (a->plane != b->plane) return a->plane < b->plane ? -1 : 1;
  if (a->line != b->line) return a->line < b->line ? -1 : 1;
  return a->event_index < b->event_index ? -1 : a->event_index > b->event_index;
}

/* The allocator id of a name (added when new); -1 on OOM. */
typedef struct alloc_key {
  const mem *m;
  const char *z;
  size_t n;
} alloc_key;
static uint64_t alloc_hash(const void *ctx, int64_t e) {
  const char *z = ((const alloc_key *)ctx)->m->allocators[e];
  return xp_hash_bytes(0, z, strlen(z));
}
static int alloc_eq(const void *ctx, int64_t e) {
  const alloc_key *k = ctx;
  const char *z = k->m->allocators[e];
  return strlen(z) == k->n && memcmp(z, k->z, k->n) == 0;
}
static int64_t allocator_id(mem *m, int64_t *cap, const char *z, size_t n) {
  alloc_key k = {m, z, n};
  if (!xp_hmap_reserve(&m->by_name, alloc_hash, &k)) return -1;
  uint64_t pos = xp_hmap_find(&m->by_name, xp_hash_bytes(0, z, n), alloc_eq, &k);
  if (m->by_name.slot[pos] >= 0) return m->by_name.slot[pos];
  if (!xp_grow((void **)&m->allocators, cap, m->n_allocators + 1, sizeof(char *))) return -1;
  char *c = xp_malloc(n + 1);
  if (!c) return -1;
  memcpy(c, z, n);
  c[n] = 0;
  m->allocators[m->n_allocators] = c;
  xp_hmap_put(&m->by_name, pos, m->n_allocators);
  return m->n_allocators++;
}

static int build_events(xp_profile *p, mem *m) {
  int64_t cap = 0, cap_alloc = 0;
  for (int32_t pi = 0; pi < p->n_planes; pi++) {
    const xp_plane *pl = &p->planes[pi];
    xp_stat_pick_ids ids1, ids2;
    xp_stat_pick_init(pl, stats1, S_N1, &ids1);
    xp_stat_pick_init(pl, stats2, S_N2, &ids2);
    for (int32_t li = 0; li < pl->n_lines; li++) {
      const xp_line *ln = &pl->lines[li];
      xp_event_iter it;
      xp_event ev;
      int32_t idx = -1;
      xp_events_begin(p, ln, &it);
      while (xp_events_next(&it, &ev)) {
        idx++;
        if (!ev.has_offset) continue;
        const xp_event_meta *em = xp_plane_event_meta(pl, ev.metadata_id);
        if (!em) continue;
        xp_str name = em->display_name.n ? em->display_name : em->name;
        int dealloc;
        if (xp_str_eq(name, "MemoryAllocation")) dealloc = 0;
        else if (xp_str_eq(name, "MemoryDeallocation")) dealloc = 1;
        else continue;
        xp_stat a[S_N1], b[S_N2];
        xp_stat_pick(p, pl, &ev, &ids1, S_N1, a);
        int64_t in_use;
        if (!xp_stat_as_int(&a[S_IN_USE], &in_use)) continue;
        xp_stat_pick(p, pl, &ev, &ids2, S_N2, b);
        if (!xp_grow((void **)&m->v, &cap, m->n + 1, sizeof(xp_mem_event))) return 0;
        xp_mem_event *e = &m->v[m->n];
        memset(e, 0, sizeof(*e));
        e->plane = pi;
        e->line = li;
        e->event_index = idx;
        e->deallocation = dealloc;
        e->time_ps = xp_event_start(ln, &ev);
        e->in_use_bytes = in_use;
        if (xp_stat_as_int(&a[S_BYTES], &e->bytes)) e->has |= XP_MEM_BYTES;
        if (xp_stat_as_int(&a[S_REQUESTED], &e->requested_bytes)) e->has |= XP_MEM_REQUESTED;
        if (xp_stat_as_int(&a[S_PEAK], &e->peak_in_use_bytes)) e->has |= XP_MEM_PEAK;
        if (xp_stat_as_int(&a[S_AVAILABLE], &e->available_bytes)) e->has |= XP_MEM_AVAILABLE;
        if (xp_stat_as_int(&a[S_RESERVED], &e->reserved_bytes)) e->has |= XP_MEM_RESERVED;
        if (a[S_FRAG].type == XP_V_DOUBLE) e->fragmentation = a[S_FRAG].num.d, e->has |= XP_MEM_FRAGMENTATION;
        else if (xp_stat_as_int(&a[S_FRAG], &in_use)) e->fragmentation = (double)in_use, e->has |= XP_MEM_FRAGMENTATION;
        if (a[S_ADDR].type == XP_V_UINT64) e->addr = a[S_ADDR].num.u, e->has |= XP_MEM_ADDR;
        else if (a[S_ADDR].type == XP_V_INT64) e->addr = (uint64_t)a[S_ADDR].num.i, e->has |= XP_MEM_ADDR;
        e->tf_op = xp_stat_as_text(&b[S_TF_OP]);
        e->shape = xp_stat_as_text(&b[S_SHAPE]);
        e->region_type = xp_stat_as_text(&b[S_REGION]);
        /* the allocator: allocator_name, else index_on_host:<n>, else unknown */
        xp_str an = xp_stat_as_text(&b[S_ALLOCATOR]);
        int64_t index;
        char buf[48];
        if (!an.n && xp_stat_as_int(&b[S_INDEX], &index)) {
          snprintf(buf, sizeof(buf), "index_on_host:%lld", (long long)index);
          an.p = buf;
          an.n = strlen(buf);
        } else if (!an.n) {
          an.p = "unknown";
          an.n = 7;
        }
        e->allocator = allocator_id(m, &cap_alloc, an.p, an.n);
        if (e->allocator < 0) return 0;
        m->n++;
      }
    }
  }
  if (xp_cancel_stopped()) return 0; /* the scan ended early (profile.h) */
  return m->n < 2 || xp_sort(m->v, m->n, sizeof(xp_mem_event), by_time);
}

static int build_peaks(xp_profile *p, mem *m) {
  m->peaks = xp_malloc(sizeof(xp_mem_peak) * (uint64_t)(m->n_allocators + 1));
  if (!m->peaks) return 0;
  for (int64_t k = 0; k < m->n_allocators; k++) {
    xp_mem_peak *pk = &m->peaks[k];
    memset(pk, 0, sizeof(*pk));
    pk->allocator = k;
    pk->peak_in_use_bytes = INT64_MIN;
    pk->reported_peak_bytes = -1;
    pk->peak_event = -1;
  }
  m->n_peaks = m->n_allocators;
  for (int64_t i = 0; i < m->n; i++) {
    if ((i & 4095) == 4095 && xp_cancelled()) return 0;
    const xp_mem_event *e = &m->v[i];
    xp_mem_peak *pk = &m->peaks[e->allocator];
    if (pk->peak_event < 0) pk->first_time_ps = e->time_ps;
    pk->last_time_ps = e->time_ps;
    if (e->deallocation) pk->n_deallocations++;
    else {
      pk->n_allocations++;
      if (e->has & XP_MEM_BYTES) pk->allocated_bytes += e->bytes;
    }
    if (e->in_use_bytes > pk->peak_in_use_bytes) {
      pk->peak_in_use_bytes = e->in_use_bytes;
      pk->peak_time_ps = e->time_ps;
      pk->peak_event = i;
    }
    if ((e->has & XP_MEM_PEAK) && e->peak_in_use_bytes > pk->reported_peak_bytes)
      pk->reported_peak_bytes = e->peak_in_use_bytes;
    pk->final_in_use_bytes = e->in_use_bytes;
  }
  /* the device ops running at each peak */
  const xp_op *ops;
  int64_t n_ops = xp_ops(p, &ops);
  if (n_ops < 0) return 0;
  uint64_t work = 0;
  for (int64_t k = 0; k < m->n_peaks; k++) {
    xp_mem_peak *pk = &m->peaks[k];
    if ((++work & 4095) == 0 && xp_cancelled()) return 0;
    xp_buf *b = xp_buf_new();
    xp_str names[10];
    int n_names = 0;
    for (int64_t i = 0; i < n_ops; i++) {
      if ((++work & 4095) == 0 && xp_cancelled()) { /* allocators x ops: counted across both */
        xp_buf_free(b);
        return 0;
      }
      const xp_op *o = &ops[i];
      if (!(o->start_ps <= pk->peak_time_ps && pk->peak_time_ps - o->start_ps < o->dur_ps)) continue;
      pk->n_ops_at_peak++;
      xp_str nm = xp_op_name(p, o);
      int seen = 0;
      for (int j = 0; j < n_names && !seen; j++) seen = names[j].n == nm.n && memcmp(names[j].p, nm.p, nm.n) == 0;
      if (!seen && n_names < 10) names[n_names++] = nm;
    }
    xp_json_str_array(b, names, n_names);
    if (xp_buf_errcode(b)) {
      xp_buf_free(b);
      return 0;
    }
    pk->ops_at_peak = xp_buf_finish(b);
    if (!pk->ops_at_peak) return 0; /* never empty: at least "[]" */
  }
  return 1;
}

static mem *get_mem(xp_profile *p, int peaks) {
  void **slot = xp_analysis_slot_sized(p, XP_SLOT_MEMORY, mem_free, mem_bytes);
  if (!slot) return NULL;
  if (!*slot) {
    mem *m = xp_malloc(sizeof(*m));
    if (!m) return NULL;
    memset(m, 0, sizeof(*m));
    m->n_peaks = -1;
    if (!build_events(p, m)) {
      mem_free(m);
      return NULL;
    }
    *slot = m;
  }
  mem *m = *slot;
  if (peaks && m->n_peaks < 0 && !build_peaks(p, m)) {
    for (int64_t i = 0; m->peaks && i < m->n_allocators; i++) {
      xp_free(m->peaks[i].ops_at_peak);
      m->peaks[i].ops_at_peak = NULL;
    }
    xp_free(m->peaks);
    m->peaks = NULL;
    m->n_peaks = -1;
    return NULL;
  }
  return m;
}

int64_t xp_mem_events(xp_profile *p, const xp_mem_event **rows) {
  mem *m = get_mem(p, 0);
  if (!m) return -1;
  *rows = m->v;
  return m->n;
}

int64_t xp_mem_peaks(xp_profile *p, const xp_mem_peak **rows) {
  mem *m = get_mem(p, 1);
  if (!m) return -1;
  *rows = m->peaks;
  return m->n_peaks;
}

const char *xp_mem_allocator(xp_profile *p, int64_t k) {
  mem *m = get_mem(p, 0);
  return m && k >= 0 && k < m->n_allocators ? m->allocators[k] : "";
}
