/*
** findings.h: the classic performance killers of a profile, found
** automatically (recompilation, host-bound steps, transfers, tiny kernels,
** synchronization, memory-bound hot ops). Pure C over the analysis
** (analysis.h) and the roofline table (xprof.h); the SQLite table
** xplane_findings (sqlite_ext/tables_findings.c) shows the rows.
**
**   xp_find_params fp; xp_find_params_default(&fp);
**   char *err = xp_find_params_parse(&fp, "tiny_kernel_us=2,tiny_share=0.5");
**   xp_finding *f; int64_t n = xp_findings(p, &fp, &f);   (NULL = defaults)
**   ... use f[0..n) ...
**   xp_findings_free(f, n);
**
** Every time is in picoseconds. The rules and default thresholds are the
** XP_FIND_* values below; the parameter names xp_find_params_parse takes
** are listed beside each; schema/TABLES.md (xplane_findings) says the same
** in prose.
*/
#ifndef XPLANE_FINDINGS_H
#define XPLANE_FINDINGS_H

#include "profile.h"

/* The rule ids (xp_finding.id), in the order the rules run; NULL-terminated.
** The one list: the SQL function xplane_finding_rules() and the xplane
** command read it. */
extern const char *const xp_finding_rules[];

/* recompilation: a module compiled at least this many times is a finding, (recompile_min) */
#define XP_FIND_RECOMPILE_MIN 2
/* ... and so is one whose compile time is at least this share of the profile span. (compile_share) */
#define XP_FIND_COMPILE_SHARE 0.05
/* host_bound: a step whose device idles at least this share of the step ... (idle_share) */
#define XP_FIND_IDLE_SHARE 0.25
/* ... while the host threads are busy at least this share of it. (host_busy_share) */
#define XP_FIND_HOST_BUSY_SHARE 0.5
/* transfers: memcpy time at least this share of the device's step time
** (of its op span when it has no steps). (transfer_share) */
#define XP_FIND_TRANSFER_SHARE 0.05
/* tiny_kernels: a kernel shorter than this is tiny (5 us) ... (tiny_kernel_us) */
#define XP_FIND_TINY_PS 5000000
/* ... the idle before one counts as launch gap when shorter than this many
** tiny thresholds (50 us); a longer idle is something else (a step boundary). */
#define XP_FIND_LAUNCH_GAP_FACTOR 10
/* ... and a device whose tiny kernels are at least this share of its kernels, (tiny_share) */
#define XP_FIND_TINY_SHARE 0.3
/* ... and at least this many, is a finding. (tiny_min) */
#define XP_FIND_TINY_MIN 50
/* synchronization: blocking host calls after which the devices idle at
** least this long in total (100 us) are a finding. (sync_idle_us) */
#define XP_FIND_SYNC_IDLE_PS 100000000
/* memory_bound: an op of the roofline table (xplane_hlo_stats) bound by
** memory whose self time is at least this share of all device ops' self
** time is a finding. (hot_op_share) */
#define XP_FIND_HOT_OP_SHARE 0.05

typedef struct xp_find_params {
  int64_t recompile_min;
  double compile_share, idle_share, host_busy_share, transfer_share, tiny_share, hot_op_share;
  int64_t tiny_ps, tiny_min, sync_idle_ps;
} xp_find_params;

/* The defaults above. */
void xp_find_params_default(xp_find_params *fp);

/* Set parameters from text "name=value,name=value" (blanks around names,
** values and commas allowed; NULL or blank text sets nothing). Names:
** recompile_min and tiny_min (whole numbers >= 1); compile_share,
** idle_share, host_busy_share, transfer_share, tiny_share, hot_op_share
** (0..1); tiny_kernel_us (> 0) and sync_idle_us (>= 0), microseconds up to
** 1e9, converted to whole picoseconds. Returns NULL when every pair was
** valid (fp then holds them), else an xp_malloc'd message naming the first
** bad pair (fp may be partly set). */
char *xp_find_params_parse(xp_find_params *fp, const char *text);

typedef struct xp_finding {
  const char *id;          /* recompilation, host_bound, transfers, tiny_kernels, synchronization,
                           ** memory_bound */
  const char *severity;    /* high, medium, low */
  int32_t plane;           /* the plane concerned, -1 = the whole profile */
  char *subject;           /* module, copy direction, call name, op name; NULL for none */
  int64_t count;           /* affected compiles / steps / copies / kernels / calls / op runs */
  int64_t of;              /* out of (-1 = not applicable) */
  int64_t time_ps;         /* the time the finding is about (see TABLES.md) */
  double share;            /* time_ps as a share of its reference time */
  int64_t bytes;           /* transfers: bytes copied; memory_bound: bytes accessed; -1 otherwise */
  int64_t start_ps, end_ps;/* the time range of what is affected */
  char *evidence;          /* JSON object: every number the rule used */
  char *ops;               /* affected op names, comma-separated (NULL = none) */
  char *steps;             /* affected step numbers, comma-separated (NULL = none) */
  const char *suggestion;
} xp_finding;

/* The findings of a profile, ordered by detection, then plane, then time
** descending. Returns the count (0 = clean), -1 when out of memory. */
int64_t xp_findings(xp_profile *p, const xp_find_params *fp, xp_finding **out);
void xp_findings_free(xp_finding *f, int64_t n);

/* The rules' name classes (exported for tests and the generator's checks):
** 1 when the event name is a compile event / a blocking host call; the
** direction (1 HtoD, 2 DtoH, 3 DtoD, 4 other memcpy, 0 none) of a device op
** from its name and its line's name. */
int xp_find_is_compile(const char *p, size_t n);
int xp_find_is_sync(const char *p, size_t n);
int xp_find_copy_kind(xp_str name, xp_str line);
/* 1 when an op (its name or its hlo_category) is an asynchronous copy or a
** collective (copy-start/-done, send/recv, all-reduce, all-gather,
** reduce-scatter, all-to-all, collective-permute, async-*): its time is
** waiting or communication, so it is never a memory-bound hot op. */
int xp_find_is_async_or_collective(xp_str name, xp_str category);

#endif
