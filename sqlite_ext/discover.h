/*
** discover.h: from the path a user gives to the profiles it names.
**
** A path is one profile file, a run directory (`.../plugins/profile/<run>/`)
** or a whole TensorBoard logdir; directories are searched recursively for
** `*.xplane.pb`. Every profile found is named by its run (the directory that
** holds it) and host (the file name without `.xplane.pb`), the names
** TensorBoard's profile plugin shows.
*/
#ifndef XPLANE_DISCOVER_H
#define XPLANE_DISCOVER_H

#include <stdint.h>

typedef struct xp_file {
  char *path;      /* as found: root joined with the relative path */
  char *run;
  char *host;
  int64_t size;
  int64_t mtime_ns;
} xp_file;

typedef struct xp_filelist {
  xp_file *v;
  int n, cap;
} xp_filelist;

/* Fill `out` with the profiles under `root`, sorted by path. Returns 0 and
** sets *errmsg (sqlite3_malloc'd) when root is missing, unreadable, or a
** directory holding no profile. */
int xp_discover(const char *root, xp_filelist *out, char **errmsg);
void xp_filelist_free(xp_filelist *l);

#endif
