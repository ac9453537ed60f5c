/*
** discover.c: find the profiles under a path (see discover.h).
*/
#include "discover.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#define XP_PROFILE_SUFFIX ".xplane.pb"
/* Deeper than any TensorBoard layout; bounds a walk through odd trees. */
#define XP_MAX_DEPTH 24

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The last path component of the directory part of `path` ("" if none). */
static char *parent_name(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return sqlite3_mprintf("");
  const char *end = slash;
  while (end > path && end[-1] == '/') end--;
  const char *start = end;
  while (start > path && start[-1] != '/') start--;
  return sqlite3_mprintf("%.*s", (int)(end - start), start);
}

static char *host_name(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  size_t n = strlen(base);
  if (ends_with(base, XP_PROFILE_SUFFIX)) n -= strlen(XP_PROFILE_SUFFIX);
  else if (ends_with(base, ".pb")) n -= 3;
  return sqlite3_mprintf("%.*s", (int)n, base);
}

static int add_file(xp_filelist *l, const char *path, const struct stat *st) {
  if (l->n == l->cap) {
    int nc = l->cap ? l->cap * 2 : 8;
    xp_file *v = sqlite3_realloc64(l->v, (sqlite3_uint64)nc * sizeof(xp_file));
    if (!v) return 0;
    l->v = v;
    l->cap = nc;
  }
  xp_file *f = &l->v[l->n];
  f->path = sqlite3_mprintf("%s", path);
  f->run = parent_name(path);
  f->host = host_name(path);
  f->size = (int64_t)st->st_size;
  f->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
  l->n++;
  return f->path && f->run && f->host;
}

/* Recursive walk; symbolic links to directories are not followed (no cycles). */
static int walk_dir(const char *dir, int depth, xp_filelist *l, char **errmsg) {
  DIR *d = opendir(dir);
  if (!d) {
    *errmsg = sqlite3_mprintf("%s: cannot read directory: %s", dir, strerror(errno));
    return 0;
  }
  int ok = 1;
  struct dirent *e;
  while (ok && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char *child = sqlite3_mprintf("%s%s%s", dir, ends_with(dir, "/") ? "" : "/", e->d_name);
    struct stat st;
    if (!child) { ok = 0; *errmsg = sqlite3_mprintf("out of memory"); break; }
    if (lstat(child, &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        if (depth < XP_MAX_DEPTH) ok = walk_dir(child, depth + 1, l, errmsg);
      } else if (ends_with(e->d_name, XP_PROFILE_SUFFIX)) {
        if (S_ISLNK(st.st_mode) && stat(child, &st) != 0) st.st_size = 0;
        if (!add_file(l, child, &st)) { ok = 0; *errmsg = sqlite3_mprintf("out of memory"); }
      }
    }
    sqlite3_free(child);
  }
  closedir(d);
  return ok;
}

static int cmp_path(const void *a, const void *b) {
  return strcmp(((const xp_file *)a)->path, ((const xp_file *)b)->path);
}

int xp_discover(const char *root, xp_filelist *out, char **errmsg) {
  struct stat st;
  memset(out, 0, sizeof(*out));
  *errmsg = NULL;
  if (!root || !root[0]) {
    *errmsg = sqlite3_mprintf("empty path: give a .xplane.pb file, a run directory or a logdir");
    return 0;
  }
  if (stat(root, &st) != 0) {
    *errmsg = sqlite3_mprintf("%s: %s", root, errno == ENOENT ? "no such file or directory" : strerror(errno));
    return 0;
  }
  if (S_ISDIR(st.st_mode)) {
    if (!walk_dir(root, 0, out, errmsg)) { xp_filelist_free(out); return 0; }
    if (out->n == 0) {
      *errmsg = sqlite3_mprintf("%s: no *" XP_PROFILE_SUFFIX " profile in this directory or below", root);
      return 0;
    }
    qsort(out->v, (size_t)out->n, sizeof(xp_file), cmp_path);
    return 1;
  }
  if (!add_file(out, root, &st)) {
    xp_filelist_free(out);
    *errmsg = sqlite3_mprintf("out of memory");
    return 0;
  }
  return 1;
}

void xp_filelist_free(xp_filelist *l) {
  for (int i = 0; i < l->n; i++) {
    sqlite3_free(l->v[i].path);
    sqlite3_free(l->v[i].run);
    sqlite3_free(l->v[i].host);
  }
  sqlite3_free(l->v);
  memset(l, 0, sizeof(*l));
}
