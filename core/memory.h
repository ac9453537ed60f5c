/*
** memory.h: the memory profile of a profile (xprof's memory_profile), from
** the allocator events profilers write (no SQLite here; bound by
** sqlite_ext/tables_xprof.c).
**
** A memory event is an event named `MemoryAllocation` or `MemoryDeallocation`
** with a start and a `bytes_allocated` stat (the allocator's bytes in use
** after it). Its allocator is the `allocator_name` stat (GPU, e.g.
** `GPU_0_bfc`), else `index_on_host:<n>` (TPU), else `unknown`. Other stats
** read: allocation_bytes, requested_bytes, peak_bytes_in_use,
** bytes_available, bytes_reserved, fragmentation, tf_op, shape, region_type,
** addr.
**
** Use:
**   const xp_mem_event *ev; int64_t n = xp_mem_events(p, &ev);   // by (time, file order)
**   const xp_mem_peak *pk;  int64_t m = xp_mem_peaks(p, &pk);    // one per allocator
** Both build once per decode and stay with the profile; -1 on OOM. A profile
** without memory events has none (0 rows, not an error).
*/
#ifndef XPLANE_MEMORY_H
#define XPLANE_MEMORY_H

#include "analysis.h"

enum {
  XP_MEM_BYTES = 1, XP_MEM_REQUESTED = 2, XP_MEM_PEAK = 4, XP_MEM_AVAILABLE = 8, XP_MEM_RESERVED = 16,
  XP_MEM_FRAGMENTATION = 32, XP_MEM_ADDR = 64
};

typedef struct xp_mem_event {
  int32_t plane, line, event_index;
  int32_t deallocation;       /* 0: MemoryAllocation, 1: MemoryDeallocation */
  int64_t time_ps;
  int64_t allocator;          /* index into the allocator names (xp_mem_allocator) */
  unsigned has;               /* XP_MEM_* bits of the optional numbers present */
  int64_t in_use_bytes;       /* bytes_allocated: in use after the event */
  int64_t bytes;              /* allocation_bytes */
  int64_t requested_bytes, peak_in_use_bytes, available_bytes, reserved_bytes;
  double fragmentation;
  uint64_t addr;
  xp_str tf_op, shape, region_type;
} xp_mem_event;

typedef struct xp_mem_peak {
  int64_t allocator;
  int64_t n_allocations, n_deallocations;
  int64_t allocated_bytes;    /* summed allocation_bytes of the allocations */
  int64_t peak_in_use_bytes;  /* the largest bytes_allocated seen */
  int64_t peak_time_ps;       /* when it was first reached */
  int64_t peak_event;         /* that event (index into xp_mem_events) */
  int64_t reported_peak_bytes;/* the largest peak_bytes_in_use stat (-1 if none) */
  int64_t final_in_use_bytes; /* bytes_allocated after the last event */
  int64_t first_time_ps, last_time_ps;
  int64_t n_ops_at_peak;      /* device ops running at the peak moment (start <= t < end) */
  char *ops_at_peak;          /* JSON array of their distinct names, first 10 in op order */
} xp_mem_peak;

int64_t xp_mem_events(xp_profile *p, const xp_mem_event **rows);
int64_t xp_mem_peaks(xp_profile *p, const xp_mem_peak **rows);
/* The name of allocator k. */
const char *xp_mem_allocator(xp_profile *p, int64_t k);

#endif
