/*
** gpu_peaks.h: the peak FLOP rate of a GPU from what its device plane says
** (vendor, compute capability, SM/CU count, clock), as xprof derives it
** (no SQLite here; core/xprof.c puts the result on xplane_devices).
**
** peak FLOP/s = FLOP per clock per SM (NVIDIA) or CU (AMD) x cores x clock.
** The FLOP per clock is the largest of the fp32 and fp16 rates of the vector
** (CUDA core) and matrix (tensor core / matrix core) units, the figure
** xprof's roofline uses (its hardware_type_utils: max of fp32 and fp16 over
** both units). Per-clock rates come from the vendors' architecture papers:
**
**   NVIDIA cc  6.0 P100   fp16 256          (no tensor cores)
**              7.0 V100   tensor fp16 1024
**              7.5 T4     tensor fp16 1024
**              8.0 A100   tensor fp16 2048
**              8.6, 8.9   tensor fp16 1024
**              9.0 H100   tensor fp16 4096
**             10.0 B200   tensor fp16 8192
**   AMD gfx908 MI100 (cc 9.0 with a gfx908 name)   matrix fp16 1024
**       gfx90a MI200                               matrix fp16 1024
**       gfx942 MI300 (cc 9.4)                      matrix fp16 2048
**       gfx950 MI355 (cc 9.5)                      matrix fp16 4096
**
** Choices (docs/ANALYSIS.md, "Device peaks"): an NVIDIA capability between
** two rows takes the lower row, as xprof; one beyond the newest row (11.x,
** 12.x: other parts) is unknown, where xprof takes the newest row. A plane
** without device_vendor is NVIDIA when its capability is below 9.0 (XLA's
** ROCm backend runs only on gfx9 and later, which report 9.x), else unknown;
** xprof calls every such plane unknown (peak 0).
*/
#ifndef XPLANE_GPU_PEAKS_H
#define XPLANE_GPU_PEAKS_H

#include <stddef.h>
#include <stdint.h>

typedef struct xp_gpu_peak {
  int known;                /* 1: flop_per_core_cycle is set */
  int vendor_inferred;      /* the vendor was absent and read from the capability */
  double flop_per_core_cycle;
  const char *arch;         /* "V100 (cc 7.0)", "gfx942", ...; "" when unknown */
  const char *unit;         /* "tensor core fp16", "matrix core fp16/bf16", "CUDA core fp16", ... */
  const char *core;         /* "SM" (NVIDIA) or "CU" (AMD) */
  char why[96];             /* when unknown: why ("no compute capability", ...) */
} xp_gpu_peak;

/* A device_vendor text as a vendor: NVIDIA ("Nvidia", any case), AMD, none
** (empty), or another. */
enum { XP_GPU_VENDOR_NONE = 0, XP_GPU_VENDOR_NVIDIA, XP_GPU_VENDOR_AMD, XP_GPU_VENDOR_OTHER };
int xp_gpu_vendor(const char *vendor, size_t vendor_n);

/* vendor: the device_vendor text ("Nvidia", "AMD", or empty); device_name:
** the plane's gfx name when the profile gives one (may be empty); major /
** minor: the compute capability (has_cc 0 when absent). */
void xp_gpu_peak_of(const char *vendor, size_t vendor_n, const char *device_name, size_t device_name_n,
                    int has_cc, int64_t major, int64_t minor, xp_gpu_peak *out);

#endif
