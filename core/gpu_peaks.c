/*
** gpu_peaks.c: a GPU's FLOP per clock per SM/CU from its vendor and
** compute capability (gpu_peaks.h says the rule and the choices). Each row
** keeps the largest of the fp32 and fp16 rates of the vector and matrix
** units, the one figure the roofline uses.
*/
#include "gpu_peaks.h"

#include <stdio.h>
#include <string.h>

static int ci_eq(const char *p, size_t n, const char *z) {
  size_t m = strlen(z);
  if (m != n) return 0;
  for (size_t i = 0; i < n; i++)
    if ((p[i] | 0x20) != (z[i] | 0x20)) return 0;
  return 1;
}

/* NVIDIA, by capability (major * 10 + minor), oldest first. */
static const struct {
  int cc;
  double flop;
  const char *arch, *unit;
} nvidia[] = {
    {20, 64, "Fermi (cc 2.0)", "CUDA core fp32"},
    {30, 384, "Kepler (cc 3.0)", "CUDA core fp32"},
    {50, 256, "Maxwell (cc 5.0)", "CUDA core fp32"},
    {60, 256, "P100 (cc 6.0)", "CUDA core fp16"},
    {61, 256, "Pascal (cc 6.1)", "CUDA core fp32"},
    {70, 1024, "V100 (cc 7.0)", "tensor core fp16"},
    {75, 1024, "T4 / Turing (cc 7.5)", "tensor core fp16"},
    {80, 2048, "A100 (cc 8.0)", "tensor core fp16"},
    {86, 1024, "Ampere (cc 8.6)", "tensor core fp16"},
    {89, 1024, "Ada (cc 8.9)", "tensor core fp16"},
    {90, 4096, "H100 (cc 9.0)", "tensor core fp16"},
    {100, 8192, "B200 (cc 10.0)", "tensor core fp16"},
};

/* AMD, by gfx name (and the capability that names it alone). */
static const struct {
  const char *gfx;
  int cc; /* major * 10 + minor that identifies it, 0 when the capability is shared */
  double flop;
  const char *arch;
} amd[] = {
    {"gfx908", 0, 1024, "gfx908 (MI100)"},
    {"gfx90a", 0, 1024, "gfx90a (MI200)"},
    {"gfx942", 94, 2048, "gfx942 (MI300)"},
    {"gfx950", 95, 4096, "gfx950 (MI355)"},
};

static void unknown(xp_gpu_peak *out, const char *why) {
  out->known = 0;
  out->flop_per_core_cycle = 0;
  out->arch = "";
  out->unit = "";
  out->core = "";
  snprintf(out->why, sizeof(out->why), "%s", why);
}

static void of_nvidia(int has_cc, int64_t major, int64_t minor, xp_gpu_peak *out) {
  if (!has_cc || major < 0 || minor < 0 || major > 1000 || minor > 9) {
    unknown(out, "NVIDIA without a compute capability");
    return;
  }
  int cc = (int)(major * 10 + minor);
  int n = (int)(sizeof(nvidia) / sizeof(nvidia[0]));
  if (cc < nvidia[0].cc || major > nvidia[n - 1].cc / 10) {
    char why[64];
    snprintf(why, sizeof(why), "NVIDIA compute capability %d.%d is not in the table", (int)major, (int)minor);
    unknown(out, why);
    return;
  }
  int k = 0;
  while (k + 1 < n && nvidia[k + 1].cc <= cc) k++; /* the row at or below */
  out->known = 1;
  out->flop_per_core_cycle = nvidia[k].flop;
  out->arch = nvidia[k].arch;
  out->unit = nvidia[k].unit;
  out->core = "SM";
  out->why[0] = 0;
}

static void of_amd(const char *name, size_t name_n, int has_cc, int64_t major, int64_t minor, xp_gpu_peak *out) {
  for (size_t k = 0; k < sizeof(amd) / sizeof(amd[0]); k++) {
    int by_name = name_n && ci_eq(name, name_n, amd[k].gfx);
    int by_cc = !name_n && has_cc && amd[k].cc && major * 10 + minor == amd[k].cc;
    if (by_name || by_cc) {
      out->known = 1;
      out->flop_per_core_cycle = amd[k].flop;
      out->arch = amd[k].arch;
      out->unit = "matrix core fp16/bf16";
      out->core = "CU";
      out->why[0] = 0;
      return;
    }
  }
  char why[80];
  if (name_n) {
    char nm[33]; /* the profile's text, printable ASCII only */
    size_t m = name_n < 32 ? name_n : 32;
    for (size_t i = 0; i < m; i++) nm[i] = name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?';
    nm[m] = 0;
    snprintf(why, sizeof(why), "AMD %s is not in the table", nm);
  } else if (has_cc && major >= 0 && major < 1000 && minor >= 0 && minor < 1000)
    snprintf(why, sizeof(why), "AMD compute capability %d.%d names no one architecture", (int)major, (int)minor);
  else
    snprintf(why, sizeof(why), "AMD without a compute capability");
  unknown(out, why);
}

int xp_gpu_vendor(const char *vendor, size_t vendor_n) {
  if (ci_eq(vendor, vendor_n, "nvidia")) return XP_GPU_VENDOR_NVIDIA;
  if (ci_eq(vendor, vendor_n, "amd")) return XP_GPU_VENDOR_AMD;
  return vendor_n ? XP_GPU_VENDOR_OTHER : XP_GPU_VENDOR_NONE;
}

void xp_gpu_peak_of(const char *vendor, size_t vendor_n, const char *device_name, size_t device_name_n,
                    int has_cc, int64_t major, int64_t minor, xp_gpu_peak *out) {
  memset(out, 0, sizeof(*out));
  int v = xp_gpu_vendor(vendor, vendor_n);
  if (v == XP_GPU_VENDOR_NVIDIA) {
    of_nvidia(has_cc, major, minor, out);
  } else if (v == XP_GPU_VENDOR_AMD) {
    of_amd(device_name, device_name_n, has_cc, major, minor, out);
  } else if (v == XP_GPU_VENDOR_OTHER) {
    unknown(out, "the device vendor is neither NVIDIA nor AMD");
  } else if (has_cc && major >= 2 && major < 9) {
    of_nvidia(has_cc, major, minor, out);
    out->vendor_inferred = 1;
  } else {
    unknown(out, has_cc ? "no device vendor, and the compute capability fits more than one"
                        : "no device vendor or compute capability");
  }
}
