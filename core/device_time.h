/*
** device_time.h: the device-time model, the one account of where each
** device's time went that every view and report reads (no SQLite here;
** sqlite_ext/tables_device_time.c binds it as the table xplane_device_time).
**
** A device is a `/device:` plane with busy-line events, or, in a profile
** where no device plane has any (JAX on the CPU backend), one CPU device per
** `device_ordinal` of the host events that carry an `hlo_op` stat. Per
** device, in picoseconds:
**
**   busy lines  TPU: the `XLA Ops` line; GPU: the `Stream #...` lines; CPU:
**               the host events with an `hlo_op` stat. Derived lines (`XLA
**               Modules`, `Steps`, `TensorFlow Ops`, name scopes, ...) only
**               annotate these ops: they are never added on top.
**   wall_ps     last end - first start of the busy-line events (TPU: and of
**               the `XLA Modules` events, as xprof's duty-cycle tracker).
**   busy_ps     the length of the union of the busy-line intervals (<= wall).
**   idle_ps     wall_ps - busy_ps.
**   compute_ps, communication_ps, transfer_ps, other_ps
**               busy_ps split by what runs at each instant: where ops of
**               several classes overlap, the instant goes to the highest of
**               compute > transfer > communication > other (xprof ranks
**               device compute above device transfers and collectives). The
**               four sum to busy_ps exactly.
**   op_time_ps  the sum of the busy-line op durations (what xprof's GPU op
**               profile adds up; > busy_ps where streams overlap).
**   async_ps    TPU: the union of the `Async XLA Ops` intervals (async
**               copies and collectives in flight; not busy, as in xprof).
**
** Op classes (xp_device_op_class): transfer (a `Memcpy` stream, memcpy,
** copy-start / copy-done, infeed / outfeed, rocclr copyBuffer, dma),
** communication (the collective names of semantics.h), other (the stall
** names: waits, barriers, semaphores), else compute.
**
** Steps (xp_step_times): each step of xp_steps on each device it belongs
** to, its window split the same way, with idle: a partition of step time.
**
** Use: const xp_device_time *rows; int64_t n = xp_device_times(p, &rows);
** (built once per decode, kept with the profile; -1 on OOM or interrupt).
*/
#ifndef XPLANE_DEVICE_TIME_H
#define XPLANE_DEVICE_TIME_H

#include "analysis.h"

enum { XP_DT_COMPUTE = 0, XP_DT_COMMUNICATION, XP_DT_TRANSFER, XP_DT_OTHER, XP_DT_N_CLASSES };
extern const char *const xp_dt_class_names[XP_DT_N_CLASSES];

enum { XP_DT_KIND_TPU = 0, XP_DT_KIND_GPU, XP_DT_KIND_CPU, XP_DT_KIND_DEVICE };
extern const char *const xp_dt_kind_names[4];

typedef struct xp_device_time {
  int32_t plane;            /* the device plane (CPU backend: the host plane) */
  int32_t kind;             /* XP_DT_KIND_* */
  int64_t device_ordinal;   /* CPU backend: the device_ordinal stat; else -1 */
  int64_t n_ops;            /* busy-line events */
  int64_t first_ps, last_ps;
  int64_t wall_ps, busy_ps, idle_ps;
  int64_t class_ps[XP_DT_N_CLASSES];
  int64_t op_time_ps;
  int64_t async_ps;
} xp_device_time;

/* One step on one device: the step's window [start, start + dur) split by
** the same priority into the four classes and idle; class_ps[] + idle_ps =
** the step's dur_ps exactly. A step is a device's when it is on the
** device's plane (xp_steps: a Steps line or XLA Modules run of that plane,
** a host annotation's row for that plane; on the CPU backend the host
** annotations, for every CPU device). */
typedef struct xp_step_time {
  int32_t device;           /* index into the xp_device_times rows */
  int32_t step;             /* index into the xp_steps rows */
  int64_t class_ps[XP_DT_N_CLASSES];
  int64_t idle_ps;
} xp_step_time;

/* The family of an op (XP_FAM_*), by its name and its line's name, first
** match wins: transfer and collective (its xp_device_op_class), attention
** (attention, attn, flash_fwd/bwd, fmha, sdpa, mha_fwd/bwd), convolution
** (convolution, conv1d/2d/3d, conv_, cudnn_conv, miopen, igemm, winograd,
** implicit_gemm, dgrad, wgrad, im2col, col2im, im3d2col: MIOpen's unfold), matmul (Cijk_ = rocBLAS/hipBLASLt Tensile,
** gemm, matmul, cublas, cutlass, xmma, hipblaslt, rocblas, dot, einsum),
** fusion (fusion, fused, elementwise, wrapped_, loop_, reduce, broadcast,
** transpose, concatenate, slice, select), else other. Case-insensitive
** substrings; `convert` is not a convolution. xplane_semantic_family is the
** reference summarizer's own, different, classification and stays. */
enum { XP_FAM_TRANSFER = 0, XP_FAM_COLLECTIVE, XP_FAM_ATTENTION, XP_FAM_CONVOLUTION, XP_FAM_MATMUL, XP_FAM_FUSION,
       XP_FAM_OTHER, XP_FAM_N };
extern const char *const xp_op_family_names[XP_FAM_N];
int xp_op_family(const char *line, size_t line_n, const char *name, size_t name_n);

/* The class (XP_DT_*) of an op by its name and its line's name. */
int xp_device_op_class(const char *line, size_t line_n, const char *name, size_t name_n);

/* An op of the CPU backend: a host event with an `hlo_op` stat. */
#define XP_NO_ID INT64_MIN /* program_id / run_id absent (run ids may be negative) */
typedef struct xp_cpu_op {
  int64_t ordinal;          /* device_ordinal (0 when absent) */
  int64_t start_ps, end_ps;
  int64_t program_id, run_id;
  int32_t plane, line;
  int cls;                  /* XP_DT_* */
  xp_str module;            /* hlo_module ("" when absent) */
} xp_cpu_op;

/* The devices in plane order (CPU devices by ordinal). -1 on OOM/interrupt. */
int64_t xp_device_times(xp_profile *p, const xp_device_time **rows);
/* The CPU backend's ops by (ordinal, start); none when a device plane has
** ops. -1 on OOM/interrupt. */
int64_t xp_cpu_ops(xp_profile *p, const xp_cpu_op **rows);
/* The steps of every device, device by device, each device's by start. */
int64_t xp_step_times(xp_profile *p, const xp_step_time **rows);

#endif
