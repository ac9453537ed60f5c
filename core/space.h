/*
** space.h: the facts of one profile that the table xplane_space shows, in
** one place: the table (tables_files.c) reads its columns from here, and the
** Perfetto converter (tp_plugin/pf_model.h) writes the same values into the
** trace, so a trace carries the xplane_space row of the file it came from.
**
**   xp_space s;
**   if (!xp_space_get(p, 1, &s, &err)) ... err names the file ...
**   ... s.n_events, s.sha256, s.hostnames ...
**   xp_space_free(&s);
**
** Strings point into the profile (valid while it is held) except the three
** JSON arrays, which xp_space_free releases.
*/
#ifndef XPLANE_SPACE_H
#define XPLANE_SPACE_H

#include <stdint.h>

#include "profile.h"

typedef struct xp_space {
  int64_t n_planes, n_lines, n_events; /* every event, timed or not */
  int64_t n_threads;                   /* tracks: distinct (plane, xp_line_track_key) */
  char *hostnames, *errors, *warnings; /* JSON arrays of the XSpace strings */
  int has_start_time, has_stop_time;   /* else the column is NULL */
  int64_t profile_start_time_ns, profile_stop_time_ns;
  int64_t time_base_ns;
  int64_t size;                        /* bytes of the file at the path */
  const char *sha256;                  /* 64 hex digits; NULL unless asked for */
  const char *source_format;           /* 'xplane_pb' or 'perfetto_trace_json' */
  const char *source_file;             /* the file read */
  int has_trace_events;                /* JSON traces only */
  int64_t trace_events;
  const char *display_time_unit;       /* NULL when none */
} xp_space;

/* Fill *s for profile p; want_sha256 also hashes the file read (once: the
** digest is kept on the profile). Returns 1, or 0 with *errmsg
** (xp_malloc'd: out of memory, or "<file>: cannot read it again to
** hash it" for a JSON trace that went away); *s is then freed. */
int xp_space_get(xp_profile *p, int want_sha256, xp_space *s, char **errmsg);
void xp_space_free(xp_space *s);

#endif
