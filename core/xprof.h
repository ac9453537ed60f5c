/*
** xprof.h: what xprof's tools show, from the stats a profile already holds
** (no SQLite here; sqlite_ext/tables_xprof.c binds them as tables).
**
** - Devices (xp_devices): one row per `/device:` plane with the facts its
**   plane stats carry: TPU device_type_string, peak_teraflops_per_second,
**   peak_hbm_bw_gigabytes_per_second, core_details; GPU device_vendor,
**   compute_cap_major/minor, clock_rate (kHz), core_count, memory_size
**   (bytes), memory_bandwidth (bytes/s). Peaks are normalized to FLOP/s and
**   bytes/s. A GPU plane does not state its peak FLOP rate: it is derived
**   from its vendor, capability, cores and clock as xprof does (gpu_peaks.h)
**   into derived_peak_flops_per_s (the roofline's peaks stay the stated
**   ones, as the PerfettoSQL package computes them); peak_note says how the
**   peak was derived, or why it is unknown.
** - HLO stats (xp_hlo_stats): the roofline table. Device ops grouped by name
**   (kind "op") and by their hlo_category stat (kind "category"): count,
**   total and self time, summed `flops`, `model_flops` and `bytes_accessed`
**   stats, and the peak rates of the devices they ran on (when those agree).
**   The derived rates (xp_roofline) divide by the ops' device-clock time
**   (the device_duration_ps stat, TPU) when every invocation has one, as
**   xprof's hlo_stats does, else by self time.
** - Kernel stats (xp_kernel_stats): GPU kernels (device ops with a
**   `kernel_details` stat) grouped by name and launch configuration, as
**   xprof's kernel_stats: count, total / min / max duration, occupancy.
**   Values outside the hardware's range are named in a note
**   (xp_kernel_check), where xprof passes them through.
**
** Use: const xp_hlo_stat *rows; int64_t n = xp_hlo_stats(p, &rows);
** (each builds once per decode and stays with the profile; -1 on OOM).
*/
#ifndef XPLANE_XPROF_H
#define XPLANE_XPROF_H

#include "analysis.h"

/* ---- stat values as the xprof tables read them ---- */

/* xp_stat_as_text (analysis.h) reads a stat's text. */
/* An integer stat (int64, uint64 up to INT64_MAX, a double truncated); 0 if none. */
int xp_stat_as_int(const xp_stat *s, int64_t *out);

/* ---- kernel launch details ---- */

/* A `kernel_details` stat, parsed. Tokens are `key:value` separated by
** blanks or newlines: regs, static_shared, dynamic_shared, shm (older
** TensorFlow writers: one shared-memory figure), group_mem and private_mem
** (ROCm), grid:x,y,z, block:x,y,z, occ_pct. Unknown tokens are skipped; a
** dimension list that is not three unsigned integers is ignored. */
typedef struct xp_kernel_details {
  unsigned has;         /* XP_KD_* bits of the fields present */
  int64_t regs;         /* registers per thread */
  int64_t static_shmem, dynamic_shmem;
  int64_t shared_mem;   /* shm or group_mem */
  int64_t private_mem;
  int64_t grid[3], block[3]; /* 1,1,1 when absent (as xprof) */
  double occupancy_pct;
} xp_kernel_details;

enum {
  XP_KD_REGS = 1, XP_KD_STATIC = 2, XP_KD_DYNAMIC = 4, XP_KD_SHARED = 8, XP_KD_PRIVATE = 16,
  XP_KD_GRID = 32, XP_KD_BLOCK = 64, XP_KD_OCC = 128
};

/* Parse p[0..n); returns the number of tokens recognized. */
int xp_kernel_details_parse(const char *p, size_t n, xp_kernel_details *kd);
/* Does a kernel's name say it runs on tensor cores (volta_h884..., turing_
** fp16_s1688..., hmma, xmma)? */
int xp_kernel_uses_tensor_core(const char *p, size_t n);
/* Is an op (TensorFlow op name or name:type) of a kind that can use tensor
** cores (Conv2D..., BatchMatMul, /MatMul, FusedMatMul, cuDNN RNN, XlaDot)? */
int xp_op_tensor_core_eligible(const char *p, size_t n);

/* ---- devices ---- */

enum {
  XP_DEV_PEAK_FLOPS = 1, XP_DEV_PEAK_BW = 2, XP_DEV_CORES = 4, XP_DEV_CLOCK = 8, XP_DEV_MEMORY = 16,
  XP_DEV_CC = 32
};

typedef struct xp_device {
  int32_t plane;
  unsigned has;               /* XP_DEV_* bits of the numbers present */
  xp_str device_type;         /* device_type_string ("" when absent) */
  xp_str vendor;              /* device_vendor */
  xp_str core_details;        /* core_details (TPU): its text, or its bytes (a serialized message) */
  int core_details_bytes;     /* core_details was a bytes value */
  double peak_flops_per_s;    /* peak_teraflops_per_second * 1e12 */
  double peak_bw_bytes_per_s; /* peak_hbm_bw_gigabytes_per_second * 1e9, or memory_bandwidth */
  int64_t core_count;
  int64_t clock_rate_khz;
  int64_t memory_size_bytes;
  int64_t compute_cap_major, compute_cap_minor;
  double derived_peak_flops_per_s; /* GPU planes: the peak from gpu_peaks.h; 0 when unknown */
  char peak_note[160];        /* GPU planes: how the peak was derived, or why it is unknown */
} xp_device;

int64_t xp_devices(xp_profile *p, const xp_device **rows);

/* ---- HLO stats (roofline) ---- */

enum { XP_HLO_OP = 0, XP_HLO_CATEGORY = 1 };

typedef struct xp_hlo_stat {
  int32_t kind;               /* XP_HLO_OP or XP_HLO_CATEGORY */
  xp_str name;                /* op name, or the category */
  xp_str category;            /* op rows: their most frequent hlo_category (ties: first seen) */
  int64_t count, total_ps, self_ps;
  int64_t n_flops, n_bytes;   /* invocations that carry a flops / bytes_accessed stat */
  int64_t n_model_flops;      /* ... a model_flops stat */
  int64_t n_device;           /* ... a device_duration_ps stat (TPU: the device clock) */
  int64_t device_ps;          /* their summed device_duration_ps */
  double flops, model_flops, bytes;
  int has_peaks;              /* every device the ops ran on has both peaks, all equal */
  double peak_flops_per_s, peak_bw_bytes_per_s;
  int64_t first_op;
} xp_hlo_stat;

/* Op rows by (self desc, total desc, name), then category rows likewise.
** *device_self_ps: the self time of all device ops (the shares' base). */
int64_t xp_hlo_stats(xp_profile *p, const xp_hlo_stat **rows, int64_t *device_self_ps);

/* The roofline numbers of one row; NaN where they cannot be known. */
typedef struct xp_roofline {
  int device_clock;           /* 1: every invocation has a device_duration_ps (TPU), the rates divide by it */
  int64_t time_ps;            /* the rates' time: the summed device_duration_ps, else self time */
  double flops_per_s;         /* flops / time seconds (all invocations carry flops) */
  double bytes_per_s;         /* bytes / time seconds */
  double intensity;           /* flops / bytes (FLOP per byte) */
  double ridge;               /* peak FLOP/s / peak bytes/s */
  const char *bound_by;       /* "compute" (intensity >= ridge, or FLOPs and no bytes), "memory"
                              ** (intensity < ridge), "unknown" (an invocation lacks flops or
                              ** bytes_accessed, no device peaks, or neither FLOPs nor bytes) */
  double flop_utilization;    /* flops_per_s / peak FLOP/s */
  double bw_utilization;      /* bytes_per_s / peak bytes/s */
  const char *rate_note;      /* why a utilization is above 1 (the row's rate is not a physical one); NULL when none is */
} xp_roofline;
void xp_roofline_of(const xp_hlo_stat *s, xp_roofline *r);
/* Is a name one half of an async pair (x-start, x-done, with an optional .N)? */
int xp_is_async_half(const char *p, size_t n);

/* ---- kernel stats ---- */

typedef struct xp_kernel_stat {
  xp_str name;
  xp_kernel_details kd;
  int uses_tensor_core, op_tensor_core_eligible;
  xp_str op_name;             /* tf_op (effective), else hlo_op, else `level 0` */
  int64_t count, total_ps, min_ps, max_ps;
  int64_t first_op;
  char note[160];             /* the values outside the hardware's range, each named; "" when none is */
} xp_kernel_stat;

/* The hardware's range of kernel_details values (xp_kernel_check): registers
** per thread 1..255 on NVIDIA (the ISA's limit), 1..512 on AMD (256 VGPRs
** + 256 AGPRs on CDNA) and elsewhere; shared memory per block up to 227 KiB
** on NVIDIA (H100/B200), 160 KiB on AMD (CDNA 4 LDS), 256 KiB elsewhere;
** theoretical occupancy in (0, 100] % (a kernel that ran occupies the device:
** 0 is a writer that did not compute it, as ROCm's). */
void xp_kernel_check(xp_kernel_stat *k, const char *vendor, size_t vendor_n);

/* Ordered by (total desc, name, grid, block, regs, shared memory, op name). */
int64_t xp_kernel_stats(xp_profile *p, const xp_kernel_stat **rows);

#endif
