/*
** discover.c: find the profiles under a path (see discover.h).
*/
#include "discover.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_trace.h"
#include "util.h"

#define XP_PROFILE_SUFFIX ".xplane.pb"
/* Deeper than any TensorBoard layout; bounds a walk through odd trees. */
#define XP_MAX_DEPTH 24
#define XP_STR2(x) #x
#define XP_STR(x) XP_STR2(x)
#define XP_DEPTH_TEXT "not searched: more than " XP_STR(XP_MAX_DEPTH) " directory levels below the path given " \
                      "(the depth limit of a directory walk); name this directory, or one nearer to it, instead"

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The JSON trace names a directory walk accepts, in order of preference
** (the reference summarizer's); -1 for other names. */
static int json_rank(const char *name) {
  if (strcmp(name, "perfetto_trace.json.gz") == 0) return 0;
  if (ends_with(name, ".trace.json.gz")) return 1;
  if (ends_with(name, ".trace.json")) return 2;
  return -1;
}

/* The last path component of the directory part of `path` ("" if none). */
static char *parent_name(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return xp_mprintf("%s", "");
  const char *end = slash;
  while (end > path && end[-1] == '/') end--;
  const char *start = end;
  while (start > path && start[-1] != '/') start--;
  return xp_mprintf("%.*s", (int)(end - start), start);
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static char *host_name(const char *path) {
  static const char *const suffixes[] = {XP_PROFILE_SUFFIX, ".trace.json.gz", ".trace.json", ".json.gz", ".json", ".pb"};
  const char *base = base_name(path);
  size_t n = strlen(base);
  for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
    if (ends_with(base, suffixes[i]) && strlen(suffixes[i]) < n) {
      n -= strlen(suffixes[i]);
      break;
    }
  return xp_mprintf("%.*s", (int)n, base);
}

/* Room for one more file in l (0 when out of memory). */
static int reserve_file(xp_filelist *l) {
  return xp_grow32((void **)&l->v, &l->cap, l->n + 1, sizeof(xp_file));
}

/* A descriptor's name, /dev/fd/N or /proc/self/fd/N (a file its caller opened
** and handed down, as the TensorBoard plugin does so that no path is looked up
** twice): the absolute path of the file it refers to, which names its run and
** host, or NULL (another name; a pipe, a deleted file, no /proc). The path
** read stays the descriptor's. */
static char *descriptor_target(const char *path) {
  const char *digits = NULL;
  if (strncmp(path, "/dev/fd/", 8) == 0) digits = path + 8;
  else if (strncmp(path, "/proc/self/fd/", 14) == 0) digits = path + 14;
  if (!digits || !digits[0] || strspn(digits, "0123456789") != strlen(digits)) return NULL;
  char target[4096];
  ssize_t n = readlink(path, target, sizeof target - 1);
  if (n <= 0 || target[0] != '/') return NULL;
  target[n] = 0;
  if (ends_with(target, " (deleted)")) return NULL;
  return xp_mprintf("%s", target);
}

static int add_file(xp_filelist *l, const char *path, const struct stat *st) {
  if (!reserve_file(l)) return 0;
  xp_file *f = &l->v[l->n];
  memset(f, 0, sizeof(*f));
  f->path = xp_mprintf("%s", path);
  char *target = descriptor_target(path);
  f->run = parent_name(target ? target : path);
  f->host = host_name(target ? target : path);
  xp_free(target);
  f->size = (int64_t)st->st_size;
  f->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
  f->is_json = f->path && xp_is_json_trace(f->path);
  l->n++;
  return f->path && f->run && f->host;
}

/* The profile candidates of one directory (its own files). */
typedef struct dir_files {
  xp_filelist xplanes;
  char *json;           /* its preferred JSON trace (full path), or NULL */
  struct stat json_st;
  int json_rank;
} dir_files;

static void dir_files_free(dir_files *df) {
  xp_filelist_free(&df->xplanes);
  xp_free(df->json);
}

static int keep_json(dir_files *df, const char *path, int rank, const struct stat *st) {
  if (df->json && (rank > df->json_rank ||
                   (rank == df->json_rank && strcmp(base_name(path), base_name(df->json)) >= 0)))
    return 1;
  xp_free(df->json);
  df->json = xp_mprintf("%s", path);
  df->json_rank = rank;
  df->json_st = *st;
  return df->json != NULL;
}

static int walk_dir(const char *dir, int depth, xp_filelist *l, char **errmsg);

/* Add an entry that cannot be read, with its reason (printf-style). */
static int add_error_entry(xp_filelist *l, const char *path, int is_dir, const char *fmt, const char *why) {
  struct stat st;
  memset(&st, 0, sizeof(st));
  if (!add_file(l, path, &st)) return 0;
  xp_file *f = &l->v[l->n - 1];
  f->is_dir = is_dir;
  if (is_dir) f->is_json = 0;
  return (f->error = xp_mprintf(fmt, why)) != NULL;
}

/* Read a directory's candidates into df; with l, walk its subdirectories
** into l (recursively). Symbolic links to directories are not followed. */
static int read_dir(const char *dir, int depth, dir_files *df, xp_filelist *l, char **errmsg) {
  DIR *d = opendir(dir);
  if (!d) {
    int e = errno;
    if (l && depth > 0) {
      /* A subdirectory: gone since it was listed (nothing to read), or an
      ** entry of its own that the tables report (discover.h). */
      if (e == ENOENT || e == ENOTDIR) return 1;
      if (!add_error_entry(l, dir, 1, "cannot read directory: %s", strerror(e))) {
        *errmsg = xp_mprintf("out of memory");
        return 0;
      }
      return 1;
    }
    *errmsg = xp_mprintf("%s: cannot read directory: %s", dir, strerror(e));
    return 0;
  }
  int ok = 1;
  struct dirent *e;
  while (ok && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    int rank = json_rank(e->d_name), is_xplane = ends_with(e->d_name, XP_PROFILE_SUFFIX);
    if (!l && rank < 0 && !is_xplane) continue;
    char *child = xp_mprintf("%s%s%s", dir, ends_with(dir, "/") ? "" : "/", e->d_name);
    struct stat st;
    if (!child) { ok = 0; *errmsg = xp_mprintf("out of memory"); break; }
    if (lstat(child, &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        if (l && depth < XP_MAX_DEPTH) ok = walk_dir(child, depth + 1, l, errmsg);
        /* Below the depth limit: not searched, listed as an entry of its own
        ** so that nothing under it is left out silently (discover.h). */
        else if (l && !add_error_entry(l, child, 1, "%s", XP_DEPTH_TEXT)) {
          ok = 0;
          *errmsg = xp_mprintf("out of memory");
        }
      } else if (is_xplane || rank >= 0) {
        /* A name that cannot be opened (dangling link, no permission) is
        ** listed with its reason (only XPlanes: a JSON trace that cannot be
        ** opened is not picked by the rule). */
        int e = 0;
        if (S_ISLNK(st.st_mode) && stat(child, &st) != 0) { e = errno; st.st_size = 0; }
        else if (access(child, R_OK) != 0) e = errno;
        if (is_xplane ? !add_file(&df->xplanes, child, &st) || (e && !(df->xplanes.v[df->xplanes.n - 1].error =
                                                                         xp_mprintf("cannot open: %s", strerror(e))))
                      : !e && !keep_json(df, child, rank, &st)) {
          ok = 0;
          *errmsg = xp_mprintf("out of memory");
        }
      }
    }
    xp_free(child);
  }
  closedir(d);
  return ok;
}

/* Move the profiles the rule picks from df into l. */
static int apply_rule(dir_files *df, xp_filelist *l) {
  if (df->json && df->xplanes.n != 1) return add_file(l, df->json, &df->json_st);
  for (int i = 0; i < df->xplanes.n; i++) {
    if (!reserve_file(l)) return 0;
    l->v[l->n++] = df->xplanes.v[i];
    memset(&df->xplanes.v[i], 0, sizeof(xp_file));
  }
  return 1;
}

static int walk_dir(const char *dir, int depth, xp_filelist *l, char **errmsg) {
  dir_files df;
  memset(&df, 0, sizeof(df));
  int ok = read_dir(dir, depth, &df, l, errmsg);
  if (ok && !apply_rule(&df, l)) {
    ok = 0;
    *errmsg = xp_mprintf("out of memory");
  }
  dir_files_free(&df);
  return ok;
}

static int cmp_path(const void *a, const void *b) {
  return strcmp(((const xp_file *)a)->path, ((const xp_file *)b)->path);
}

int xp_discover_companion(const char *path, char **fallback, char **note) {
  dir_files df;
  char *err = NULL;
  const char *base = base_name(path);
  const char *end = base;
  while (end > path + 1 && end[-1] == '/') end--; /* the directory without its trailing slash ("/" stays) */
  char *dir = base == path ? xp_mprintf(".") : xp_mprintf("%.*s", (int)(end - path), path);
  *fallback = *note = NULL;
  if (!dir) return 0;
  memset(&df, 0, sizeof(df));
  int ok = 1;
  if (read_dir(dir, 0, &df, NULL, &err) && df.json) {
    if (df.xplanes.n == 1 && strcmp(base_name(df.xplanes.v[0].path), base) == 0) {
      ok = (*fallback = xp_mprintf("%s", df.json)) != NULL;
    } else if (df.xplanes.n > 1 && strcmp(base_name(df.json), base) == 0) {
      *note = xp_mprintf("%s holds %d XPlane files (one per host): its JSON trace %s was read "
                              "instead, as the reference summarizer does (name an .xplane.pb file to read it)",
                              dir, df.xplanes.n, base);
      ok = *note != NULL;
    }
  }
  xp_free(err); /* an unreadable directory has no companions */
  xp_free(dir);
  dir_files_free(&df);
  return ok;
}

/* A file found under the directory root: its run is the path of its
** directory relative to root, without the `plugins/profile/` segments of the
** TensorBoard layout, so `train/plugins/profile/T/` and
** `eval/plugins/profile/T/` are the runs `train/T` and `eval/T` (never one
** run), `<logdir>/plugins/profile/T/` is `T`, and a run directory given
** itself keeps its own name. */
static char *run_under(const char *root, const char *path) {
  const char *rel = path + strlen(root);
  while (*rel == '/') rel++;
  const char *slash = strrchr(rel, '/');
  if (!slash) return parent_name(path); /* directly in root */
  char *run = xp_malloc((uint64_t)(slash - rel) + 1);
  if (!run) return NULL;
  size_t n = 0;
  const char *p = rel;
  while (p < slash) {
    const char *end = memchr(p, '/', (size_t)(slash - p));
    if (!end) end = slash;
    size_t len = (size_t)(end - p);
    if (len == 7 && !memcmp(p, "plugins", 7) && end < slash && (size_t)(slash - end) >= 8 &&
        !memcmp(end, "/profile", 8) && (end + 8 == slash || end[8] == '/')) {
      p = end + 8 < slash ? end + 9 : slash; /* past "plugins/profile/" */
      continue;
    }
    if (len) {
      if (n) run[n++] = '/';
      memcpy(run + n, p, len);
      n += len;
    }
    p = end + 1;
  }
  run[n] = 0;
  if (n == 0) {
    xp_free(run);
    return parent_name(path);
  }
  return run;
}

int xp_discover(const char *root, xp_filelist *out, char **errmsg) {
  struct stat st;
  memset(out, 0, sizeof(*out));
  *errmsg = NULL;
  if (!root || !root[0]) {
    *errmsg = xp_mprintf("empty path: give a .xplane.pb file, a run directory or a logdir (or a JSON trace)");
    return 0;
  }
  if (stat(root, &st) != 0) {
    *errmsg = xp_mprintf("%s: %s", root, errno == ENOENT ? "no such file or directory" : strerror(errno));
    return 0;
  }
  if (S_ISDIR(st.st_mode)) {
    if (!walk_dir(root, 0, out, errmsg)) { xp_filelist_free(out); return 0; }
    if (out->n == 0) {
      *errmsg = xp_mprintf("%s: no *" XP_PROFILE_SUFFIX " profile in this directory or below, and no JSON "
                                "trace (perfetto_trace.json.gz, *.trace.json.gz, *.trace.json)", root);
      return 0;
    }
    for (int i = 0; i < out->n; i++) {
      char *run = run_under(root, out->v[i].path);
      if (!run) { xp_filelist_free(out); *errmsg = xp_mprintf("out of memory"); return 0; }
      xp_free(out->v[i].run);
      out->v[i].run = run;
    }
    qsort(out->v, (size_t)out->n, sizeof(xp_file), cmp_path);
    return 1;
  }
  if (!add_file(out, root, &st)) {
    xp_filelist_free(out);
    *errmsg = xp_mprintf("out of memory");
    return 0;
  }
  return 1;
}

void xp_filelist_free(xp_filelist *l) {
  for (int i = 0; i < l->n; i++) {
    xp_free(l->v[i].path);
    xp_free(l->v[i].run);
    xp_free(l->v[i].host);
    xp_free(l->v[i].error);
  }
  xp_free(l->v);
  memset(l, 0, sizeof(*l));
}

/* ---- opening with the directory rule ----------------------------------- */

/* The XPlane at `path` could not be read (*why): read its directory's JSON
** trace instead when the rule gives it one. Returns the new profile (keyed,
** for the cache, by the trace and the XPlane: profile.h), or NULL with *why extended
** when the fallback fails too, or unchanged when there is none. */
static xp_profile *open_fallback(const char *path, int threads, char **why) {
  char *fallback = NULL, *note = NULL, *why2 = NULL, *reason = NULL;
  xp_profile *q = NULL;
  if (!xp_discover_companion(path, &fallback, &note) || !fallback) goto out;
  reason = xp_mprintf("%s: %s; read the JSON trace %s instead", path, *why, fallback);
  if (!reason) goto out;
  q = xp_profile_load(path, fallback, 1, reason, threads, &why2);
  if (!q) {
    char *both = xp_mprintf("%s; its directory's JSON trace %s could not be read either: %s", *why, fallback,
                            why2 ? why2 : "out of memory");
    if (both) {
      xp_free(*why);
      *why = both;
    }
    goto out;
  }
  /* The cache's key: the JSON trace read (q->key, set when it was loaded),
  ** and the XPlane (zero if it cannot be stat'ed), whose repair must be seen
  ** too (profile.h). */
  struct stat st;
  int have = stat(path, &st) == 0;
  q->file_size = have ? (int64_t)st.st_size : 0;
  q->mtime_ns = have ? (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec : 0;
  xp_file_key_of(path, &q->key_xplane);
out:
  xp_free(why2);
  xp_free(reason);
  xp_free(fallback);
  xp_free(note);
  return q;
}

xp_profile *xp_profile_open(const char *path, int threads, char **errmsg) {
  char *why = NULL, *fallback = NULL, *note = NULL;
  xp_profile *p = NULL;
  int as_json = xp_is_json_trace(path);
  *errmsg = NULL;
  if (as_json && !xp_discover_companion(path, &fallback, &note)) why = xp_mprintf("out of memory");
  else p = xp_profile_load(path, path, as_json, note, threads, &why);
  xp_free(fallback);
  xp_free(note);
  if (!p && !as_json && why) p = open_fallback(path, threads, &why);
  if (p) {
    xp_free(why);
    return p;
  }
  *errmsg = xp_mprintf("%s: %s", path, why ? why : "out of memory");
  xp_free(why);
  return NULL;
}
