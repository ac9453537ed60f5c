/*
** discover.h: from the path a user gives to the profiles it names.
**
** A path is one profile file, a run directory (`.../plugins/profile/<run>/`)
** or a whole TensorBoard logdir; directories are searched recursively. Every
** profile found is named by its run (the directory that holds it) and host
** (the file name without the first of `.xplane.pb`, `.trace.json.gz`,
** `.trace.json`, `.json.gz`, `.json` or `.pb` it ends with, never the whole
** name), the names TensorBoard's profile plugin shows. A descriptor's name
** (/dev/fd/N, /proc/self/fd/N) is named by the file it refers to (its path
** read back from /proc), and is read as the descriptor: `xplane report
** /dev/fd/3 3<run/host.xplane.pb` says run `run` and host `host`.
**
** Which files of a directory are profiles (the rule of the field's reference
** summarizer, applied to each directory's own files): the XPlane is preferred,
** and the directory's JSON trace is read instead
**   - when the directory holds no `*.xplane.pb`;
**   - when it holds several (one per host): then its JSON trace is the one
**     profile listed, and a quality warning (XSpace.warnings) says so; with
**     no JSON trace, every XPlane is listed;
**   - when its one XPlane cannot be read: xp_profile_open() then reads the
**     JSON trace and records why in the warnings (see xp_discover_companion).
** A directory's JSON trace is the first of `perfetto_trace.json.gz`,
** `*.trace.json.gz`, `*.trace.json` (by name among several). A file named
** directly is listed as it is, whatever its name, and gets the same fallback
** or warning as when its directory is listed and the rule picks it.
*/
#ifndef XPLANE_DISCOVER_H
#define XPLANE_DISCOVER_H

#include <stdint.h>

#include "profile.h"

typedef struct xp_file {
  char *path;      /* as found: root joined with the relative path */
  char *run;
  char *host;
  int64_t size;
  int64_t mtime_ns;
  int is_json;     /* a JSON trace by name or content (json_trace.h), else an XPlane */
  int is_dir;      /* an entry for a directory that could not be read */
  char *error;     /* why this entry cannot be read ("cannot open: ..."), or NULL */
} xp_file;

typedef struct xp_filelist {
  xp_file *v;
  int n, cap;
} xp_filelist;

/* Fill `out` with the profiles under `root`, sorted by path. Returns 0 and
** sets *errmsg (xp_malloc'd) when root is missing, unreadable, or a
** directory holding no profile.
**
** One bad entry never fails the walk: a profile name that cannot be opened
** (a dangling symbolic link, no read permission) and a subdirectory that
** cannot be read (e.g. `lost+found` for a non-root user) are listed with
** `error` set (a directory with is_dir); a subdirectory or file that
** vanishes during the walk is not listed. The walk goes 24 directory levels
** below root; a directory deeper than that is not searched and is listed as
** such an entry ("not searched: more than 24 directory levels below the path
** given ..."), so what it may hold is never left out silently. Tables decide what an entry with
** an error means (vtab.c: an error naming it, or skipped on request). */
int xp_discover(const char *root, xp_filelist *out, char **errmsg);
void xp_filelist_free(xp_filelist *l);

/* What the directory rule attaches to the file `path`: *fallback, the JSON
** trace to read if this XPlane cannot be read (it is its directory's only
** one); *note, the quality warning for a JSON trace read instead of its
** directory's several XPlanes. Each xp_malloc'd, or NULL. Returns 0 only
** when out of memory. */
int xp_discover_companion(const char *path, char **fallback, char **note);

/* Open the profile at `path` (a file discovery listed, or one named
** directly) as the directory rule says: a JSON trace (by name or content)
** with the rule's note; an XPlane, and when it cannot be read its
** directory's JSON trace instead, the reason becoming the first XSpace
** warning (the profile keeps the XPlane's path, size and mtime as its cache
** key). On failure returns NULL and sets *errmsg (xp_malloc'd) to
** "<path>: <problem>". */
xp_profile *xp_profile_open(const char *path, int threads, char **errmsg);

#endif
