/*
** pf_export.c: profiles -> trace files (see pf_export.h).
*/
#include "pf_export.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/random.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cancel.h"
#include "chrome_json_writer.h"
#include "discover.h"
#include "perfetto_writer.h"

#include "util.h"

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

static const char *suffix_of(const pf_export_opts *o) { return o->format == PF_FORMAT_JSON ? ".json" : ".pftrace"; }

/* `path` with a trailing .xplane.pb (or .pb) replaced by the output suffix. */
static char *swap_suffix(const char *path, const pf_export_opts *o) {
  size_t n = strlen(path);
  if (ends_with(path, ".xplane.pb")) n -= strlen(".xplane.pb");
  else if (ends_with(path, ".pb")) n -= 3;
  return xp_mprintf("%.*s%s", (int)n, path, suffix_of(o));
}

char *pf_default_output(const char *in, const pf_export_opts *o) {
  struct stat st;
  if (stat(in, &st) != 0 || !S_ISDIR(st.st_mode)) return swap_suffix(in, o);
  size_t n = strlen(in);
  while (n > 1 && in[n - 1] == '/') n--;
  if (o->merged) return xp_mprintf("%.*s%s", (int)n, in, suffix_of(o));
  return xp_mprintf("%.*s", (int)n, in);
}

/* mkdir -p of the directory part of `path`. */
static int make_parents(const char *path, char **errmsg) {
  char *d = xp_mprintf("%s", path);
  if (!d) return 0;
  for (char *c = d + 1; *c; c++) {
    if (*c != '/') continue;
    *c = 0;
    if (mkdir(d, 0777) != 0 && errno != EEXIST) {
      *errmsg = xp_mprintf("%s: cannot create directory: %s", d, strerror(errno));
      xp_free(d);
      return 0;
    }
    *c = '/';
  }
  xp_free(d);
  return 1;
}

/* Refuse outputs that could be taken for, or overwrite, an input. */
static int check_output(const char *out, const xp_filelist *files, char **errmsg) {
  struct stat so;
  size_t on = strlen(out);
  if (on >= 3 && strcasecmp(out + on - 3, ".pb") == 0) { /* .pb, .PB, .Pb: any case */
    *errmsg = xp_mprintf("%s: refusing to write a trace to a .pb name (it would pass for an XPlane "
                              "profile, and trace processor would misread an XPlane given in its place); "
                              "use .pftrace or .json", out);
    return 0;
  }
  if (stat(out, &so) != 0) return 1;
  if (S_ISDIR(so.st_mode)) {
    *errmsg = xp_mprintf("%s: is a directory, not a trace file", out);
    return 0;
  }
  for (int i = 0; i < files->n; i++) {
    struct stat si;
    if (stat(files->v[i].path, &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
      *errmsg = xp_mprintf("%s: refusing to write over the input profile %s", out, files->v[i].path);
      return 0;
    }
  }
  return 1;
}

/* Create a new temporary file beside `out`, exclusively: `<dir>/.<base>.<16
** hex digits>.partial`, opened O_CREAT|O_EXCL|O_NOFOLLOW (a name that exists,
** a planted symlink included, is never opened: another random name is tried).
** Mode 0666 less the umask, like any new file. Returns the stream, with its
** name in *tmp (xp_malloc'd), or NULL with *errmsg. */
static FILE *create_temp(const char *out, char **tmp, char **errmsg) {
  const char *slash = strrchr(out, '/');
  int dir_n = slash ? (int)(slash - out + 1) : 0;
  for (int attempt = 0; attempt < 16; attempt++) {
    uint64_t r = 0;
    if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r)) r ^= (uint64_t)getpid() << 32 ^ (uint64_t)attempt;
    *tmp = xp_mprintf("%.*s.%s.%016llx.partial", dir_n, out, out + dir_n, (unsigned long long)r);
    if (!*tmp) return NULL;
    int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      FILE *f = fdopen(fd, "wb");
      if (f) return f;
      close(fd);
      unlink(*tmp);
    }
    if (fd >= 0 || errno != EEXIST) {
      *errmsg = xp_mprintf("%s: cannot create a temporary file beside it: %s", out, strerror(errno));
      xp_free(*tmp);
      *tmp = NULL;
      return NULL;
    }
    xp_free(*tmp);
    *tmp = NULL;
  }
  *errmsg = xp_mprintf("%s: cannot create a temporary file beside it (16 names taken)", out);
  return NULL;
}

/* Move the finished temporary file to `out`: rename(2) when replacing is
** allowed; otherwise renameat2(RENAME_NOREPLACE) (or link(2) where the file
** system lacks it), which fails when `out` exists, even if it appeared after
** the first check. */
static int publish(const char *tmp, const char *out, const pf_export_opts *o, char **err) {
  int rc;
  if (o->replace) {
    rc = rename(tmp, out);
  } else {
    rc = renameat2(AT_FDCWD, tmp, AT_FDCWD, out, RENAME_NOREPLACE);
    if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
      rc = link(tmp, out);
      if (rc == 0) unlink(tmp);
    }
  }
  if (rc == 0) return 1;
  if (errno == EEXIST && !o->replace)
    *err = xp_mprintf("%s: exists (%s)", out, o->no_replace_why ? o->no_replace_why : "not replaced");
  else *err = xp_mprintf("%s: cannot rename %s to it: %s", out, tmp, strerror(errno));
  return 0;
}

/* Run model m over the profiles files[lo..hi). */
static int add_profiles(pf_model *m, const xp_filelist *files, int lo, int hi, char **err) {
  int ok = 1;
  for (int i = lo; ok && i < hi; i++) {
    xp_profile *p = xp_profile_open(files->v[i].path, 2, err);
    ok = p && pf_model_add(m, &files->v[i], p, err);
    if (p && (xp_profile_changed(p) || xp_cancel_stopped())) {
      /* shrank or rewritten while converted (the trace would be wrong), or interrupted (cancel.h) */
      xp_free(*err);
      *err = xp_mprintf("%s", xp_cancel_stopped() ? XP_CANCELLED_TEXT : XP_CHANGED_TEXT);
      ok = 0;
    }
    if (p && !ok) {
      char *e = xp_mprintf("%s: %s", files->v[i].path, *err);
      xp_free(*err);
      *err = e;
    }
    if (p) xp_profile_release(p);
  }
  return ok;
}

/* One trace file: the profiles files[lo..hi) into `out`. */
static int write_trace(const char *out, const xp_filelist *files, int lo, int hi, const pf_export_opts *o,
                       pf_export_result *r, char **errmsg) {
  if (!check_output(out, files, errmsg)) return 0;
  struct stat so;
  if (!o->replace && lstat(out, &so) == 0) {
    *errmsg = xp_mprintf("%s: exists (%s)", out, o->no_replace_why ? o->no_replace_why : "not replaced");
    return 0;
  }
  if (!make_parents(out, errmsg)) return 0;
  char *tmp = NULL;
  FILE *f = create_temp(out, &tmp, errmsg);
  if (!f) return 0;
  pf_sink sink;
  pf_writer *pw = NULL;
  pf_json *jw = NULL;
  if (o->format == PF_FORMAT_JSON) {
    if ((jw = pf_json_new(f))) pf_json_sink(jw, &sink);
  } else {
    if ((pw = pf_writer_new(f))) pf_writer_sink(pw, &sink);
  }
  char *err = NULL;
  int ok = pw || jw;
  if (ok && jw) { /* JSON flows: a planning pass finds the slice each flow starts at */
    pf_sink plan;
    pf_json_plan_sink(jw, &plan);
    pf_model *pm = pf_model_new(&plan, o->merged);
    ok = pm && add_profiles(pm, files, lo, hi, &err) && pf_json_plan_finish(jw, &err);
    pf_model_free(pm);
  }
  pf_model *m = ok ? pf_model_new(&sink, o->merged) : NULL;
  ok = m && add_profiles(m, files, lo, hi, &err);
  if (ok) ok = pw ? pf_writer_finish(pw, &err) : pf_json_finish(jw, &err);
  if (m) {
    const pf_counts *c = pf_model_counts(m);
    r->counts.slices += c->slices;
    r->counts.instants += c->instants;
    r->counts.skipped_untimed += c->skipped_untimed;
    r->counts.skipped_invalid += c->skipped_invalid;
    r->counts.processes += c->processes;
    r->counts.threads += c->threads;
    r->counts.tracks += c->tracks;
    r->counts.sources += c->sources;
  }
  r->records += pw ? pf_writer_packets(pw) : jw ? pf_json_events(jw) : 0;
  pf_model_free(m);
  pf_writer_free(pw);
  pf_json_free(jw);
  if (fclose(f) != 0 && ok) {
    ok = 0;
    err = xp_mprintf("%s: %s", tmp, strerror(errno));
  }
  if (ok && !publish(tmp, out, o, &err)) ok = 0;
  if (!ok) {
    unlink(tmp);
    *errmsg = err ? err : xp_mprintf("%s: out of memory", out);
  } else {
    r->files_out++;
  }
  xp_free(tmp);
  return ok;
}

int pf_export(const char *in, const char *out, const pf_export_opts *o, pf_export_result *r, char **errmsg) {
  xp_filelist files;
  struct stat st;
  memset(r, 0, sizeof(*r));
  *errmsg = NULL;
  if (!xp_discover(in, &files, errmsg)) return 0;
  r->files_in = files.n;
  int ok;
  if (stat(in, &st) == 0 && S_ISDIR(st.st_mode) && !o->merged) {
    size_t root_n = strlen(in);
    ok = 1;
    for (int i = 0; ok && i < files.n; i++) {
      const char *rel = files.v[i].path + root_n;
      while (*rel == '/') rel++;
      char *base = xp_mprintf("%s%s%s", out, ends_with(out, "/") ? "" : "/", rel);
      char *path = base ? swap_suffix(base, o) : NULL;
      ok = path && write_trace(path, &files, i, i + 1, o, r, errmsg);
      if (!path && !*errmsg) *errmsg = xp_mprintf("out of memory");
      xp_free(base);
      xp_free(path);
    }
  } else {
    ok = write_trace(out, &files, 0, files.n, o, r, errmsg);
  }
  xp_filelist_free(&files);
  return ok;
}
