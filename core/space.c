/*
** space.c: the facts of xplane_space for one profile (see space.h).
*/
#include "space.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cancel.h"
#include "guard.h"
#include "json.h"
#include "sha256.h"


/* The SHA-256 of the file a JSON trace was read from (its bytes on disk, as
** the reference hashes them); 0 if it cannot be read now. */
static int file_sha256(const char *path, char hex[65]) {
  struct stat st;
  int ok = 0, fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    void *m = st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    if (m != MAP_FAILED) {
      /* Guarded (guard.h): a file that shrinks while hashed is a failure, not SIGBUS. */
      volatile int changed = 0;
      int guarded = m && xp_guard_add(m, (size_t)st.st_size, &changed);
      ok = (!m || guarded) && xp_sha256_hex(m, (size_t)st.st_size, hex);
      if (guarded) xp_guard_remove(m);
      if (m) munmap(m, (size_t)st.st_size);
      ok = ok && !changed;
    }
  }
  close(fd);
  return ok;
}

/* A JSON array of strings (xp_malloc'd), NULL when out of memory. */
static char *str_array(const xp_str *v, int n) {
  xp_buf *s = xp_buf_new();
  xp_json_str_array(s, v, n);
  return xp_buf_finish(s);
}

void xp_space_free(xp_space *s) {
  xp_free(s->hostnames);
  xp_free(s->errors);
  xp_free(s->warnings);
  memset(s, 0, sizeof(*s));
}

int xp_space_get(xp_profile *p, int want_sha256, xp_space *s, char **errmsg) {
  memset(s, 0, sizeof(*s));
  *errmsg = NULL;
  s->n_planes = p->n_planes;
  s->n_lines = p->n_lines;
  s->n_events = p->n_events;
  s->n_threads = xp_profile_n_tracks(p);
  s->hostnames = str_array(p->hostnames, p->n_hostnames);
  s->errors = str_array(p->errors, p->n_errors);
  s->warnings = str_array(p->warnings, p->n_warnings);
  if (s->n_threads < 0 || !s->hostnames || !s->errors || !s->warnings) {
    xp_space_free(s);
    *errmsg = xp_mprintf("out of memory");
    return 0;
  }
  s->has_start_time = p->has_start_time;
  s->has_stop_time = p->has_stop_time;
  s->profile_start_time_ns = p->profile_start_time_ns;
  s->profile_stop_time_ns = p->profile_stop_time_ns;
  s->time_base_ns = p->time_base_ns;
  s->size = p->file_size;
  s->source_format = xp_source_format_name(p->source_format);
  s->source_file = p->source_path;
  s->has_trace_events = p->source_format == XP_SOURCE_TRACE_JSON;
  s->trace_events = p->n_trace_events;
  /* 'us' for an XPlane, as the reference summary says */
  s->display_time_unit = p->source_format == XP_SOURCE_XPLANE_PB ? "us" : p->display_time_unit;
  if (want_sha256 && !p->sha256[0]) {
    if (p->source_format == XP_SOURCE_XPLANE_PB) {
      int hashed = xp_sha256_hex(p->base, (size_t)p->size, p->sha256);
      if (!hashed || xp_profile_changed(p)) { /* interrupted, out of memory, or the bytes hashed are not the file's */
        p->sha256[0] = 0;
        xp_space_free(s);
        *errmsg = hashed ? xp_mprintf("%s: %s", p->path, XP_CHANGED_TEXT)
                         : xp_mprintf("%s", xp_cancel_stopped() ? XP_CANCELLED_TEXT : "out of memory while hashing");
        return 0;
      }
    } else if (!file_sha256(p->source_path, p->sha256)) {
      xp_space_free(s);
      *errmsg = xp_mprintf("%s: cannot read it again to hash it", p->source_path);
      return 0;
    }
  }
  if (want_sha256) s->sha256 = p->sha256;
  return 1;
}
