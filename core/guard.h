/*
** guard.h: a file that shrinks under its mapping becomes an error, not a signal.
**
** A profile is read through a read-only mapping of its file (profile.h). When
** another process truncates the file while it is mapped (`truncate`, `cp` or
** `rsync --inplace` over it), touching a page past the new end raises SIGBUS,
** which kills the whole process by default. xp_guard_add() registers a mapping
** with a process-wide SIGBUS handler (installed on first use): a fault inside a
** registered mapping replaces the pages from the faulting one to the mapping's
** end with zero-filled anonymous memory, sets the mapping's `changed` flag and
** lets the read go on; every other SIGBUS is passed to the handler that was
** installed before (or gets the default action). The reads then see zeros,
** which the bounded re-walks (profile.c, analysis.c) turn into a mismatch, and
** the callers check the flag (xp_profile_changed) and fail with
** "<file>: changed while it was read".
**
** Why a guard rather than reading the file into memory: measured on a 60 MB
** generated profile (tools/xplane_gen --target-mb 60; the note of issue 12
** has the commands), a cold `SELECT count(*) FROM xplane_events(F)` takes
** 0.21 s mapped and 0.25 s read into the heap, but the copy costs 60 MB of
** private heap per open profile (the mapping's pages are shared page cache
** that the kernel may drop), so a 2 GB profile would pin 2 GB of RSS and every
** cached profile its full size. Reading only the parts a scan needs (pread per
** line) would copy each line on every scan. The guard costs nothing on the
** read path (no check per access) and a registry update per open/close.
** Alternatives rejected: MAP_POPULATE/mlock do not survive a truncate (the
** kernel unmaps truncated pages from every mapping); file leases
** (F_SETLEASE) need the caller to own the file and only notify.
**
** Limits: a registry of XP_GUARD_MAX mappings (then xp_guard_add returns 0 and
** profile.c reads that file into memory instead). The library pins itself
** (RTLD_NODELETE) when it installs the handler, so the handler's code stays
** valid after an extension unload.
*/
#ifndef XPLANE_GUARD_H
#define XPLANE_GUARD_H

#include <stddef.h>
#include <stdint.h>

#define XP_GUARD_MAX 4096

/* Register [base, base + n): a SIGBUS inside it sets *changed to 1 (and the
** rest of the range reads as zeros). Returns 1, or 0 when the registry is
** full or the handler cannot be installed. */
int xp_guard_add(const void *base, size_t n, volatile int *changed);
/* Unregister base (before unmapping it). */
void xp_guard_remove(const void *base);

#endif
