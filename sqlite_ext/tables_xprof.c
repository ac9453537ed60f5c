/*
** tables_xprof.c: what xprof's tools show, as tables (core/xprof.h computes
** them once per decode; this file only binds the rows).
**
**   SELECT plane_name, device_type, peak_flops_per_s, peak_bw_bytes_per_s FROM xplane_devices('run/');
**   SELECT name, category, self_ps, flops_per_s, bound_by, flop_utilization
**     FROM xplane_hlo_stats('host0.xplane.pb') WHERE kind = 'op' LIMIT 10;
**   SELECT name, grid_x, block_x, occupancy_pct, count, total_ps FROM xplane_kernel_stats('host0.xplane.pb');
**
** xplane_devices: one row per `/device:` plane with its type, peaks, cores,
** clock and memory (units in the column names: FLOP/s, bytes/s, Hz, bytes).
** xplane_hlo_stats: the roofline table, device ops by name (kind 'op') and by
** hlo_category (kind 'category'): times in ps, FLOPs and bytes summed from
** the ops' stats, rates over self time, the ridge point and bound-by from
** the device peaks. xplane_kernel_stats: GPU kernels by name and launch
** configuration (kernel_details). xplane_memory: the allocator events
** (MemoryAllocation / MemoryDeallocation) in time order; xplane_memory_peaks:
** per allocator, the peak in use, when, and the device ops running then.
** No filter is pushed down: each table is a
** small cached list per profile.
*/
#include <math.h>

#include "result.h"
#include "tables.h"
#include "memory.h"
#include "xprof.h"

SQLITE_EXTENSION_INIT3

typedef struct list_state {
  const void *rows;
  int64_t n, i;
  int64_t base; /* xplane_hlo_stats: the device self time */
} list_state;

static int list_next(xp_cursor *cur) {
  list_state *st = cur->state;
  cur->file_eof = ++st->i >= st->n;
  return SQLITE_OK;
}

/* A double, or NULL when it is NaN or infinite. */
static void result_real(sqlite3_context *ctx, double x) {
  if (isfinite(x)) sqlite3_result_double(ctx, x);
}
static void result_text_or_null(sqlite3_context *ctx, xp_str s) {
  if (s.n) xp_result_str(ctx, s);
}

/* ---- xplane_devices ---- */

enum { D_PLANE_INDEX, D_PLANE_NAME, D_TYPE, D_VENDOR, D_CC, D_CORES, D_CLOCK, D_MEMORY, D_PEAK_FLOPS, D_PEAK_BW,
       D_RIDGE, D_CORE_DETAILS, D_DERIVED_PEAK, D_PEAK_NOTE, D_N0 };
enum { D_BASE = XP_COL_FIRST_OWN, D_N = XP_COL_FIRST_OWN + D_N0 };
static const char *const devices_cols[] = {
    "plane_index INTEGER", "plane_name TEXT", "device_type TEXT", "vendor TEXT", "compute_capability TEXT",
    "core_count INTEGER", "clock_rate_hz INTEGER", "memory_size_bytes INTEGER", "peak_flops_per_s REAL",
    "peak_bw_bytes_per_s REAL", "ridge_flops_per_byte REAL", "core_details TEXT", "derived_peak_flops_per_s REAL",
    "peak_note TEXT"};

static int prepare_devices(xp_profile *p) {
  const xp_device *rows;
  return xp_devices(p, &rows) >= 0;
}

static int devices_first(xp_cursor *cur) {
  list_state *st = cur->state;
  const xp_device *rows;
  st->n = xp_devices(cur->prof, &rows);
  if (st->n < 0) return SQLITE_NOMEM;
  st->rows = rows;
  st->i = 0;
  cur->file_eof = st->n == 0;
  return SQLITE_OK;
}

static int devices_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  list_state *st = cur->state;
  const xp_device *d = (const xp_device *)st->rows + st->i;
  switch (col - D_BASE) {
    case D_PLANE_INDEX: sqlite3_result_int64(ctx, d->plane); break;
    case D_PLANE_NAME: xp_result_str(ctx, cur->prof->planes[d->plane].name); break;
    case D_TYPE: result_text_or_null(ctx, d->device_type); break;
    case D_VENDOR: result_text_or_null(ctx, d->vendor); break;
    case D_CC:
      if (d->has & XP_DEV_CC) {
        char *z = sqlite3_mprintf("%lld.%lld", (long long)d->compute_cap_major, (long long)d->compute_cap_minor);
        if (!z) return SQLITE_NOMEM;
        sqlite3_result_text(ctx, z, -1, sqlite3_free);
      }
      break;
    case D_CORES: if (d->has & XP_DEV_CORES) sqlite3_result_int64(ctx, d->core_count); break;
    case D_CLOCK:
      if ((d->has & XP_DEV_CLOCK) && d->clock_rate_khz <= INT64_MAX / 1000)
        sqlite3_result_int64(ctx, d->clock_rate_khz * 1000);
      break;
    case D_MEMORY: if (d->has & XP_DEV_MEMORY) sqlite3_result_int64(ctx, d->memory_size_bytes); break;
    case D_PEAK_FLOPS: if (d->has & XP_DEV_PEAK_FLOPS) result_real(ctx, d->peak_flops_per_s); break;
    case D_PEAK_BW: if (d->has & XP_DEV_PEAK_BW) result_real(ctx, d->peak_bw_bytes_per_s); break;
    case D_RIDGE:
      if ((d->has & XP_DEV_PEAK_FLOPS) && (d->has & XP_DEV_PEAK_BW))
        result_real(ctx, d->peak_flops_per_s / d->peak_bw_bytes_per_s);
      break;
    case D_CORE_DETAILS:
      if (d->core_details_bytes) { /* a serialized message: lower-case hex, as the stats JSON writes bytes */
        char *z = sqlite3_malloc64(d->core_details.n * 2 + 1);
        if (!z) return SQLITE_NOMEM;
        for (size_t i = 0; i < d->core_details.n; i++) {
          static const char hex[] = "0123456789abcdef";
          z[2 * i] = hex[(unsigned char)d->core_details.p[i] >> 4];
          z[2 * i + 1] = hex[(unsigned char)d->core_details.p[i] & 15];
        }
        sqlite3_result_text(ctx, z, (int)(d->core_details.n * 2), sqlite3_free);
      } else {
        result_text_or_null(ctx, d->core_details);
      }
      break;
    case D_DERIVED_PEAK: if (d->derived_peak_flops_per_s > 0) result_real(ctx, d->derived_peak_flops_per_s); break;
    case D_PEAK_NOTE: if (d->peak_note[0]) sqlite3_result_text(ctx, d->peak_note, -1, SQLITE_TRANSIENT); break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_devices = {
    .name = "xplane_devices",
    .columns = devices_cols,
    .n_columns = D_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .state_size = sizeof(list_state),
    .first = devices_first,
    .next = list_next,
    .column = devices_column,
    .prepare = prepare_devices,
};

/* ---- xplane_hlo_stats ---- */

enum { H_KIND, H_NAME, H_CATEGORY, H_COUNT, H_TOTAL_PS, H_SELF_PS, H_SHARE, H_FLOPS, H_MODEL_FLOPS, H_BYTES,
       H_FLOPS_PER_S, H_BYTES_PER_S, H_INTENSITY, H_RIDGE, H_PEAK_FLOPS, H_PEAK_BW, H_BOUND_BY, H_FLOP_UTIL,
       H_BW_UTIL, H_FIRST_OP_ID, H_RATE_NOTE, H_RATE_TIME_PS, H_RATE_CLOCK, H_N0 };
enum { H_BASE = XP_COL_FIRST_OWN, H_N = XP_COL_FIRST_OWN + H_N0 };
static const char *const hlo_cols[] = {
    "kind TEXT", "name TEXT", "category TEXT", "count INTEGER", "total_ps INTEGER", "self_ps INTEGER",
    "share_of_device_self REAL", "flops REAL", "model_flops REAL", "bytes_accessed REAL", "flops_per_s REAL",
    "bytes_per_s REAL", "flops_per_byte REAL", "ridge_flops_per_byte REAL", "peak_flops_per_s REAL",
    "peak_bw_bytes_per_s REAL", "bound_by TEXT", "flop_utilization REAL", "bw_utilization REAL",
    "first_op_id INTEGER", "rate_note TEXT", "rate_time_ps INTEGER", "rate_clock TEXT"};

static int prepare_hlo(xp_profile *p) {
  const xp_hlo_stat *rows;
  return xp_hlo_stats(p, &rows, NULL) >= 0;
}

static int hlo_first(xp_cursor *cur) {
  list_state *st = cur->state;
  const xp_hlo_stat *rows;
  st->n = xp_hlo_stats(cur->prof, &rows, &st->base);
  if (st->n < 0) return SQLITE_NOMEM;
  st->rows = rows;
  st->i = 0;
  cur->file_eof = st->n == 0;
  return SQLITE_OK;
}

static int hlo_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  list_state *st = cur->state;
  const xp_hlo_stat *s = (const xp_hlo_stat *)st->rows + st->i;
  xp_roofline r;
  xp_roofline_of(s, &r);
  switch (col - H_BASE) {
    case H_KIND: sqlite3_result_text(ctx, s->kind == XP_HLO_OP ? "op" : "category", -1, SQLITE_STATIC); break;
    case H_NAME: xp_result_str(ctx, s->name); break;
    case H_CATEGORY: result_text_or_null(ctx, s->category); break;
    case H_COUNT: sqlite3_result_int64(ctx, s->count); break;
    case H_TOTAL_PS: sqlite3_result_int64(ctx, s->total_ps); break;
    case H_SELF_PS: sqlite3_result_int64(ctx, s->self_ps); break;
    case H_SHARE: if (st->base > 0) sqlite3_result_double(ctx, (double)s->self_ps / (double)st->base); break;
    case H_FLOPS: if (s->n_flops) result_real(ctx, s->flops); break;
    case H_MODEL_FLOPS: if (s->n_model_flops) result_real(ctx, s->model_flops); break;
    case H_BYTES: if (s->n_bytes) result_real(ctx, s->bytes); break;
    case H_FLOPS_PER_S: result_real(ctx, r.flops_per_s); break;
    case H_BYTES_PER_S: result_real(ctx, r.bytes_per_s); break;
    case H_INTENSITY: result_real(ctx, r.intensity); break;
    case H_RIDGE: result_real(ctx, r.ridge); break;
    case H_PEAK_FLOPS: if (s->has_peaks) result_real(ctx, s->peak_flops_per_s); break;
    case H_PEAK_BW: if (s->has_peaks) result_real(ctx, s->peak_bw_bytes_per_s); break;
    case H_BOUND_BY: sqlite3_result_text(ctx, r.bound_by, -1, SQLITE_STATIC); break;
    case H_FLOP_UTIL: result_real(ctx, r.flop_utilization); break;
    case H_BW_UTIL: result_real(ctx, r.bw_utilization); break;
    case H_FIRST_OP_ID: sqlite3_result_int64(ctx, s->first_op); break;
    case H_RATE_NOTE: if (r.rate_note) sqlite3_result_text(ctx, r.rate_note, -1, SQLITE_STATIC); break;
    case H_RATE_TIME_PS: sqlite3_result_int64(ctx, r.time_ps); break;
    case H_RATE_CLOCK: sqlite3_result_text(ctx, r.device_clock ? "device" : "self", -1, SQLITE_STATIC); break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_hlo_stats = {
    .name = "xplane_hlo_stats",
    .columns = hlo_cols,
    .n_columns = H_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .state_size = sizeof(list_state),
    .first = hlo_first,
    .next = list_next,
    .column = hlo_column,
    .prepare = prepare_hlo,
};

/* ---- xplane_kernel_stats ---- */

enum { K_NAME, K_GRID_X, K_GRID_Y, K_GRID_Z, K_BLOCK_X, K_BLOCK_Y, K_BLOCK_Z, K_REGS, K_STATIC, K_DYNAMIC,
       K_SHARED, K_PRIVATE, K_OCC, K_TC_USE, K_TC_ELIGIBLE, K_OP_NAME, K_COUNT, K_TOTAL_PS, K_MIN_PS, K_MAX_PS,
       K_MEAN_PS, K_FIRST_OP_ID, K_NOTE, K_N0 };
enum { K_BASE = XP_COL_FIRST_OWN, K_N = XP_COL_FIRST_OWN + K_N0 };
static const char *const kernel_cols[] = {
    "name TEXT", "grid_x INTEGER", "grid_y INTEGER", "grid_z INTEGER", "block_x INTEGER", "block_y INTEGER",
    "block_z INTEGER", "registers_per_thread INTEGER", "static_shmem_bytes INTEGER", "dynamic_shmem_bytes INTEGER",
    "shared_mem_bytes INTEGER", "private_mem_bytes INTEGER", "occupancy_pct REAL", "uses_tensor_core INTEGER",
    "op_tensor_core_eligible INTEGER", "op_name TEXT", "count INTEGER", "total_ps INTEGER", "min_ps INTEGER",
    "max_ps INTEGER", "mean_ps REAL", "first_op_id INTEGER", "details_note TEXT"};

static int prepare_kernels(xp_profile *p) {
  const xp_kernel_stat *rows;
  return xp_kernel_stats(p, &rows) >= 0;
}

static int kernels_first(xp_cursor *cur) {
  list_state *st = cur->state;
  const xp_kernel_stat *rows;
  st->n = xp_kernel_stats(cur->prof, &rows);
  if (st->n < 0) return SQLITE_NOMEM;
  st->rows = rows;
  st->i = 0;
  cur->file_eof = st->n == 0;
  return SQLITE_OK;
}

static int kernels_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  list_state *st = cur->state;
  const xp_kernel_stat *k = (const xp_kernel_stat *)st->rows + st->i;
  int c = col - K_BASE;
  switch (c) {
    case K_NAME: xp_result_str(ctx, k->name); break;
    case K_GRID_X: case K_GRID_Y: case K_GRID_Z: sqlite3_result_int64(ctx, k->kd.grid[c - K_GRID_X]); break;
    case K_BLOCK_X: case K_BLOCK_Y: case K_BLOCK_Z: sqlite3_result_int64(ctx, k->kd.block[c - K_BLOCK_X]); break;
    case K_REGS: if (k->kd.has & XP_KD_REGS) sqlite3_result_int64(ctx, k->kd.regs); break;
    case K_STATIC: if (k->kd.has & XP_KD_STATIC) sqlite3_result_int64(ctx, k->kd.static_shmem); break;
    case K_DYNAMIC: if (k->kd.has & XP_KD_DYNAMIC) sqlite3_result_int64(ctx, k->kd.dynamic_shmem); break;
    case K_SHARED: if (k->kd.has & XP_KD_SHARED) sqlite3_result_int64(ctx, k->kd.shared_mem); break;
    case K_PRIVATE: if (k->kd.has & XP_KD_PRIVATE) sqlite3_result_int64(ctx, k->kd.private_mem); break;
    case K_OCC: if (k->kd.has & XP_KD_OCC) result_real(ctx, k->kd.occupancy_pct); break;
    case K_TC_USE: sqlite3_result_int(ctx, k->uses_tensor_core); break;
    case K_TC_ELIGIBLE: sqlite3_result_int(ctx, k->op_tensor_core_eligible); break;
    case K_OP_NAME: result_text_or_null(ctx, k->op_name); break;
    case K_COUNT: sqlite3_result_int64(ctx, k->count); break;
    case K_TOTAL_PS: sqlite3_result_int64(ctx, k->total_ps); break;
    case K_MIN_PS: sqlite3_result_int64(ctx, k->min_ps); break;
    case K_MAX_PS: sqlite3_result_int64(ctx, k->max_ps); break;
    case K_MEAN_PS: sqlite3_result_double(ctx, (double)k->total_ps / (double)k->count); break;
    case K_FIRST_OP_ID: sqlite3_result_int64(ctx, k->first_op); break;
    case K_NOTE: if (k->note[0]) sqlite3_result_text(ctx, k->note, -1, SQLITE_TRANSIENT); break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_kernel_stats = {
    .name = "xplane_kernel_stats",
    .columns = kernel_cols,
    .n_columns = K_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .state_size = sizeof(list_state),
    .first = kernels_first,
    .next = list_next,
    .column = kernels_column,
    .prepare = prepare_kernels,
};

/* ---- xplane_memory: allocator events ---- */

enum { M_PLANE_INDEX, M_PLANE_NAME, M_LINE_INDEX, M_EVENT_INDEX, M_TIME_PS, M_KIND, M_ALLOCATOR, M_BYTES,
       M_REQUESTED, M_IN_USE, M_PEAK, M_AVAILABLE, M_RESERVED, M_FRAG, M_ADDR, M_TF_OP, M_SHAPE, M_REGION, M_N0 };
enum { M_BASE = XP_COL_FIRST_OWN, M_N = XP_COL_FIRST_OWN + M_N0 };
static const char *const memory_cols[] = {
    "plane_index INTEGER", "plane_name TEXT", "line_index INTEGER", "event_index INTEGER", "time_ps INTEGER",
    "kind TEXT", "allocator TEXT", "bytes INTEGER", "requested_bytes INTEGER", "in_use_bytes INTEGER",
    "peak_in_use_bytes INTEGER", "available_bytes INTEGER", "reserved_bytes INTEGER", "fragmentation REAL",
    "addr INTEGER", "tf_op TEXT", "shape TEXT", "region_type TEXT"};

static int prepare_memory(xp_profile *p) {
  const xp_mem_event *rows;
  return xp_mem_events(p, &rows) >= 0;
}

static int memory_first(xp_cursor *cur) {
  list_state *st = cur->state;
  const xp_mem_event *rows;
  st->n = xp_mem_events(cur->prof, &rows);
  if (st->n < 0) return SQLITE_NOMEM;
  st->rows = rows;
  st->i = 0;
  cur->file_eof = st->n == 0;
  return SQLITE_OK;
}

static int memory_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  list_state *st = cur->state;
  const xp_mem_event *e = (const xp_mem_event *)st->rows + st->i;
  switch (col - M_BASE) {
    case M_PLANE_INDEX: sqlite3_result_int64(ctx, e->plane); break;
    case M_PLANE_NAME: xp_result_str(ctx, cur->prof->planes[e->plane].name); break;
    case M_LINE_INDEX: sqlite3_result_int64(ctx, e->line); break;
    case M_EVENT_INDEX: sqlite3_result_int64(ctx, e->event_index); break;
    case M_TIME_PS: sqlite3_result_int64(ctx, e->time_ps); break;
    case M_KIND: sqlite3_result_text(ctx, e->deallocation ? "deallocation" : "allocation", -1, SQLITE_STATIC); break;
    case M_ALLOCATOR: sqlite3_result_text(ctx, xp_mem_allocator(cur->prof, e->allocator), -1, SQLITE_TRANSIENT); break;
    case M_BYTES: if (e->has & XP_MEM_BYTES) sqlite3_result_int64(ctx, e->bytes); break;
    case M_REQUESTED: if (e->has & XP_MEM_REQUESTED) sqlite3_result_int64(ctx, e->requested_bytes); break;
    case M_IN_USE: sqlite3_result_int64(ctx, e->in_use_bytes); break;
    case M_PEAK: if (e->has & XP_MEM_PEAK) sqlite3_result_int64(ctx, e->peak_in_use_bytes); break;
    case M_AVAILABLE: if (e->has & XP_MEM_AVAILABLE) sqlite3_result_int64(ctx, e->available_bytes); break;
    case M_RESERVED: if (e->has & XP_MEM_RESERVED) sqlite3_result_int64(ctx, e->reserved_bytes); break;
    case M_FRAG: if (e->has & XP_MEM_FRAGMENTATION) result_real(ctx, e->fragmentation); break;
    case M_ADDR: if (e->has & XP_MEM_ADDR) sqlite3_result_int64(ctx, (sqlite3_int64)e->addr); break;
    case M_TF_OP: result_text_or_null(ctx, e->tf_op); break;
    case M_SHAPE: result_text_or_null(ctx, e->shape); break;
    case M_REGION: result_text_or_null(ctx, e->region_type); break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_memory = {
    .name = "xplane_memory",
    .columns = memory_cols,
    .n_columns = M_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .state_size = sizeof(list_state),
    .first = memory_first,
    .next = list_next,
    .column = memory_column,
    .prepare = prepare_memory,
};

/* ---- xplane_memory_peaks: one row per allocator ---- */

enum { P_ALLOCATOR, P_N_ALLOC, P_N_DEALLOC, P_ALLOCATED, P_PEAK, P_PEAK_TIME, P_REPORTED, P_FINAL, P_FIRST, P_LAST,
       P_N_OPS, P_OPS, P_N0 };
enum { P_BASE = XP_COL_FIRST_OWN, P_N = XP_COL_FIRST_OWN + P_N0 };
static const char *const peaks_cols[] = {
    "allocator TEXT", "n_allocations INTEGER", "n_deallocations INTEGER", "allocated_bytes INTEGER",
    "peak_in_use_bytes INTEGER", "peak_time_ps INTEGER", "reported_peak_bytes INTEGER", "final_in_use_bytes INTEGER",
    "first_time_ps INTEGER", "last_time_ps INTEGER", "n_ops_at_peak INTEGER", "ops_at_peak TEXT"};

static int prepare_peaks(xp_profile *p) {
  const xp_mem_peak *rows;
  return xp_mem_peaks(p, &rows) >= 0;
}

static int peaks_first(xp_cursor *cur) {
  list_state *st = cur->state;
  const xp_mem_peak *rows;
  st->n = xp_mem_peaks(cur->prof, &rows);
  if (st->n < 0) return SQLITE_NOMEM;
  st->rows = rows;
  st->i = 0;
  cur->file_eof = st->n == 0;
  return SQLITE_OK;
}

static int peaks_column(xp_cursor *cur, sqlite3_context *ctx, int col) {
  list_state *st = cur->state;
  const xp_mem_peak *k = (const xp_mem_peak *)st->rows + st->i;
  switch (col - P_BASE) {
    case P_ALLOCATOR: sqlite3_result_text(ctx, xp_mem_allocator(cur->prof, k->allocator), -1, SQLITE_TRANSIENT); break;
    case P_N_ALLOC: sqlite3_result_int64(ctx, k->n_allocations); break;
    case P_N_DEALLOC: sqlite3_result_int64(ctx, k->n_deallocations); break;
    case P_ALLOCATED: sqlite3_result_int64(ctx, k->allocated_bytes); break;
    case P_PEAK: sqlite3_result_int64(ctx, k->peak_in_use_bytes); break;
    case P_PEAK_TIME: sqlite3_result_int64(ctx, k->peak_time_ps); break;
    case P_REPORTED: if (k->reported_peak_bytes >= 0) sqlite3_result_int64(ctx, k->reported_peak_bytes); break;
    case P_FINAL: sqlite3_result_int64(ctx, k->final_in_use_bytes); break;
    case P_FIRST: sqlite3_result_int64(ctx, k->first_time_ps); break;
    case P_LAST: sqlite3_result_int64(ctx, k->last_time_ps); break;
    case P_N_OPS: sqlite3_result_int64(ctx, k->n_ops_at_peak); break;
    case P_OPS: sqlite3_result_text(ctx, k->ops_at_peak, -1, SQLITE_TRANSIENT); break;
  }
  return SQLITE_OK;
}

const xp_table xp_table_memory_peaks = {
    .name = "xplane_memory_peaks",
    .columns = peaks_cols,
    .n_columns = P_N + 1,
    .needs_profile = 1,
    .push = {-1, -1, -1, -1, -1},
    .state_size = sizeof(list_state),
    .first = peaks_first,
    .next = list_next,
    .column = peaks_column,
    .prepare = prepare_peaks,
};
