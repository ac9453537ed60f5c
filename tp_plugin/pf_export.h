/*
** pf_export.h: convert the profiles a path names into trace files; the
** shared driver of the xplane2perfetto CLI and the SQL function
** xplane_to_perfetto (sqlite_ext/functions_export.c).
**
**   pf_export_opts o = {PF_FORMAT_PROTO, 0};
**   pf_export_result r;
**   if (!pf_export("logs/", "out/", &o, &r, &err)) ... err names the file ...
**
** Per host (default): a file path writes one trace to `out`; a directory
** writes one trace per profile under the directory `out`, at the profile's
** path relative to the input with `.xplane.pb` (or `.pb`) replaced by
** `.pftrace` (`.json`). Merged: every profile into the one file `out`, a
** process per plane per host (pf_model.h). A trace is written to a new
** temporary file beside `out` (`.<name>.<random>.partial`, created with
** O_EXCL|O_NOFOLLOW: a planted file or symlink is never written through) and
** renamed to `out` when complete; on failure it is removed. With `replace`
** 0 an existing `out` is refused, before and (RENAME_NOREPLACE) at the rename. Refused: an output name ending
** in `.pb` (trace processor takes any file starting with 0x0A for a
** Perfetto trace, and an XPlane would then be silently misread), and an
** output that is one of the input files.
*/
#ifndef TP_PLUGIN_PF_EXPORT_H
#define TP_PLUGIN_PF_EXPORT_H

#include <stdint.h>

#include "pf_model.h"

typedef enum { PF_FORMAT_PROTO = 0, PF_FORMAT_JSON = 1 } pf_format;

typedef struct pf_export_opts {
  pf_format format;
  int merged;
  int replace;                /* 1: an existing output is replaced; 0: refused */
  const char *no_replace_why; /* with replace 0: the error's explanation, or NULL */
} pf_export_opts;

typedef struct pf_export_result {
  int files_in, files_out;
  pf_counts counts;  /* summed over the traces written */
  int64_t records;   /* protobuf packets or JSON events written */
} pf_export_result;

/* Returns 1, or 0 with *errmsg (xp_malloc'd). */
int pf_export(const char *in, const char *out, const pf_export_opts *o, pf_export_result *r, char **errmsg);

/* The default output of `in` (xp_malloc'd): a file's path with its
** suffix replaced; a directory itself (per host), or `<dir>.pftrace`
** (`.json`) when merged. NULL on out-of-memory. */
char *pf_default_output(const char *in, const pf_export_opts *o);

#endif
