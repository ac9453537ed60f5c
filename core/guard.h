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
** generated profile (tools/xplane_gen --target-mb 60), a connection that ran
** `SELECT count(*) FROM xplane_events(F)` cold then warm (three runs each;
** the other way built by making xp_guard_add fail, which reads the file with
** pread into the heap): mapped, cold 0.45-0.61 s, warm 0.16-0.28 s, and the
** cached profile holds +0 MB of anonymous memory (RssAnon) and 57 MB of page
** cache (RssFile: shared with every other reader, and the kernel may drop it);
** read into the heap, cold 0.49-0.69 s, warm 0.16-0.28 s, and +57 MB of
** RssAnon per cached profile. Time is a wash; memory is not: a 2 GB profile
** would pin 2 GB of private memory per connection that caches it. Reading
** only what a scan needs (pread per line) would copy each line on every scan
** and hand out no stable pointers (names point into the mapping). The guard
** costs nothing per access, a registry update per open and close.
** MAP_POPULATE with mlock does not help: a 1 MB file mapped that way, read,
** truncated to 0 and read again still dies of SIGBUS (checked; the kernel
** unmaps truncated pages from every mapping). File leases (F_SETLEASE) need
** the caller to own the file and only notify.
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
