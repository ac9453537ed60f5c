/*
** hlo.c: HloProto -> instruction rows (see hlo.h).
** The loops after the unpack (instructions, printable runs, votes) ask
** xp_cancelled() every 4096 steps of work (poll()); an interrupted call
** fails with the text XP_CANCELLED_TEXT. The unpack itself is one
** protobuf-c call and is not interruptible.
*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include "hlo.h"

#include <dirent.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "aggregates.h"
#include "cancel.h"
#include "hlo.pb-c.h"
#include "json.h"
#include "util.h"

/* Count n steps of work; every 4096, is the work to stop? */
static int poll(uint64_t *work, uint64_t n) {
  uint64_t before = *work;
  *work += n;
  return (before >> 12) != (*work >> 12) && xp_cancelled();
}

/* Element type names as HLO text writes them. */
static const char *type_name(int t) {
  switch (t) {
    case XLA__PRIMITIVE_TYPE__PRED: return "pred";
    case XLA__PRIMITIVE_TYPE__S4: return "s4";
    case XLA__PRIMITIVE_TYPE__S8: return "s8";
    case XLA__PRIMITIVE_TYPE__S16: return "s16";
    case XLA__PRIMITIVE_TYPE__S32: return "s32";
    case XLA__PRIMITIVE_TYPE__S64: return "s64";
    case XLA__PRIMITIVE_TYPE__U4: return "u4";
    case XLA__PRIMITIVE_TYPE__U8: return "u8";
    case XLA__PRIMITIVE_TYPE__U16: return "u16";
    case XLA__PRIMITIVE_TYPE__U32: return "u32";
    case XLA__PRIMITIVE_TYPE__U64: return "u64";
    case XLA__PRIMITIVE_TYPE__F16: return "f16";
    case XLA__PRIMITIVE_TYPE__F32: return "f32";
    case XLA__PRIMITIVE_TYPE__F64: return "f64";
    case XLA__PRIMITIVE_TYPE__BF16: return "bf16";
    case XLA__PRIMITIVE_TYPE__C64: return "c64";
    case XLA__PRIMITIVE_TYPE__C128: return "c128";
    case XLA__PRIMITIVE_TYPE__F8E5M2: return "f8e5m2";
    case XLA__PRIMITIVE_TYPE__F8E4M3FN: return "f8e4m3fn";
    case XLA__PRIMITIVE_TYPE__TOKEN: return "token";
    case XLA__PRIMITIVE_TYPE__OPAQUE_TYPE: return "opaque";
    default: return NULL;
  }
}

/* Write a shape; depth bounds the recursion of nested tuples. */
static void put_shape(xp_buf *b, const Xla__ShapeProto *s, int depth) {
  if (!s) return;
  if (depth > 64) {
    xp_buf_appendall(b, "...");
    return;
  }
  if (s->element_type == XLA__PRIMITIVE_TYPE__TUPLE) {
    xp_buf_appendall(b, "(");
    for (size_t i = 0; i < s->n_tuple_shapes; i++) {
      if (i) xp_buf_appendall(b, ", ");
      put_shape(b, s->tuple_shapes[i], depth + 1);
    }
    xp_buf_appendall(b, ")");
    return;
  }
  const char *t = type_name(s->element_type);
  if (t) xp_buf_appendall(b, t);
  else xp_buf_appendf(b, "type%d", (int)s->element_type);
  xp_buf_appendall(b, "[");
  for (size_t i = 0; i < s->n_dimensions; i++) xp_buf_appendf(b, "%s%lld", i ? "," : "", (long long)s->dimensions[i]);
  xp_buf_appendall(b, "]");
}

static const char *str_or_empty(const char *z) { return z ? z : ""; }

void xp_hlo_free(xp_hlo *h) {
  if (!h) return;
  for (int64_t i = 0; i < h->n; i++) {
    xp_free(h->rows[i].shape);
    xp_free(h->rows[i].called);
  }
  xp_free(h->rows);
  if (h->msg) xla__hlo_proto__free_unpacked(h->msg, NULL);
  xp_free(h);
}

int xp_hlo_decode(const uint8_t *buf, size_t n, xp_hlo **out, char **err) {
  *out = NULL;
  *err = NULL;
  xp_hlo *h = xp_malloc(sizeof(*h));
  if (!h) return 0;
  memset(h, 0, sizeof(*h));
  Xla__HloProto *p = xla__hlo_proto__unpack(NULL, n, buf);
  if (!p) {
    *err = xp_mprintf("not an HloProto (the protobuf does not parse)");
    xp_free(h);
    return 0;
  }
  h->msg = p;
  const Xla__HloModuleProto *m = p->hlo_module;
  if (!m || m->n_computations == 0) {
    *err = xp_mprintf("not an HloProto (no module with computations)");
    xp_hlo_free(h);
    return 0;
  }
  int64_t total = 0;
  for (size_t c = 0; c < m->n_computations; c++) total += (int64_t)m->computations[c]->n_instructions;
  h->rows = xp_malloc(sizeof(xp_hlo_row) * (uint64_t)(total + 1));
  if (!h->rows) {
    xp_hlo_free(h);
    return 0;
  }
  /* computation id -> its first index, for the called computations */
  xp_idmap by_id = {0};
  for (size_t c = 0; c < m->n_computations; c++)
    if (xp_idmap_get(&by_id, m->computations[c]->id) < 0 &&
        (c > (size_t)INT32_MAX || !xp_idmap_put(&by_id, m->computations[c]->id, (int32_t)c))) {
      xp_idmap_free(&by_id);
      xp_hlo_free(h);
      return 0;
    }
  uint64_t work = 0;
  for (size_t c = 0; c < m->n_computations; c++) {
    const Xla__HloComputationProto *cp = m->computations[c];
    int entry = (m->entry_computation_id && cp->id == m->entry_computation_id) ||
                (m->entry_computation_name && *m->entry_computation_name && cp->name &&
                 strcmp(cp->name, m->entry_computation_name) == 0);
    for (size_t i = 0; i < cp->n_instructions; i++) {
      const Xla__HloInstructionProto *ip = cp->instructions[i];
      if (poll(&work, 1 + ip->n_called_computation_ids)) {
        xp_idmap_free(&by_id);
        xp_hlo_free(h);
        *err = xp_mprintf("%s", XP_CANCELLED_TEXT);
        return 0;
      }
      xp_hlo_row *r = &h->rows[h->n];
      memset(r, 0, sizeof(*r));
      h->n++;
      r->module = str_or_empty(m->name);
      r->module_id = m->id;
      r->computation = str_or_empty(cp->name);
      r->computation_id = cp->id;
      r->is_entry = entry;
      r->name = str_or_empty(ip->name);
      r->opcode = str_or_empty(ip->opcode);
      r->id = ip->id;
      r->is_root = cp->root_id != 0 && ip->id == cp->root_id;
      r->fusion_kind = str_or_empty(ip->fusion_kind);
      r->custom_call_target = str_or_empty(ip->custom_call_target);
      if (ip->metadata) {
        r->op_type = str_or_empty(ip->metadata->op_type);
        r->op_name = str_or_empty(ip->metadata->op_name);
        r->source_file = str_or_empty(ip->metadata->source_file);
        r->source_line = ip->metadata->source_line;
      } else {
        r->op_type = r->op_name = r->source_file = "";
      }
      xp_buf *b = xp_buf_new();
      put_shape(b, ip->shape, 0);
      int bad = xp_buf_errcode(b) != XP_BUF_OK;
      r->shape = xp_buf_finish(b);
      if (bad) {
        xp_idmap_free(&by_id);
        xp_hlo_free(h);
        return 0;
      }
      /* the called computations by name (ids resolved within the module, the
      ** first computation of an id), at most 64 */
      xp_str names[64];
      int k = 0;
      for (size_t j = 0; j < ip->n_called_computation_ids && k < 64; j++) {
        int32_t c2 = xp_idmap_get(&by_id, ip->called_computation_ids[j]);
        if (c2 < 0) continue;
        names[k].p = str_or_empty(m->computations[c2]->name);
        names[k].n = strlen(names[k].p);
        k++;
      }
      b = xp_buf_new();
      xp_json_str_array(b, names, k);
      bad = xp_buf_errcode(b) != XP_BUF_OK;
      r->called = xp_buf_finish(b);
      if (bad || !r->called) {
        xp_idmap_free(&by_id);
        xp_hlo_free(h);
        return 0;
      }
    }
  }
  xp_idmap_free(&by_id);
  *out = h;
  return 1;
}

/* ---- the reference's HLO-proto path rewrite (see hlo.h) ---- */

int xp_hlo_kernel_lookup_name(const char *p, size_t n, char *buf, size_t cap) {
  static const char base[] = "gemm_fusion_dot";
  const size_t bn = sizeof(base) - 1;
  for (size_t i = 0; i + bn <= n; i++) {
    if (memcmp(p + i, base, bn) != 0) continue;
    /* greedy "_general" first, then without it; then [._] and digits */
    for (int with_general = 1; with_general >= 0; with_general--) {
      size_t j = i + bn;
      if (with_general) {
        if (j + 8 > n || memcmp(p + j, "_general", 8) != 0) continue;
        j += 8;
      }
      if (j >= n || (p[j] != '_' && p[j] != '.')) continue;
      size_t d = j + 1, e = d;
      while (e < n && p[e] >= '0' && p[e] <= '9') e++;
      if (e == d) continue;
      int len = snprintf(buf, cap, "%s%s_%.*s", base, with_general ? "_general" : "", (int)(e - d), p + d);
      return len > 0 && (size_t)len < cap;
    }
  }
  return 0;
}

typedef struct pstr {
  const char *p;
  size_t n;
} pstr;

/* The path of a printable run, or 0. */
static int train_step_path(pstr s, pstr *out) {
  static const char anchor[] = "jit(train_step)", slash[] = "jit(train_step)/", dg[] = "dot_general";
  const char *a = memmem(s.p, s.n, anchor, sizeof(anchor) - 1);
  if (!a) return 0;
  size_t rest = s.n - (size_t)(a - s.p);
  const char *p = memmem(a, rest, slash, sizeof(slash) - 1);
  if (!p) return 0;
  const char *from = p + sizeof(slash) - 1;
  const char *q = memmem(from, s.n - (size_t)(from - s.p), dg, sizeof(dg) - 1);
  if (!q) return 0;
  out->p = p;
  out->n = (size_t)(q + sizeof(dg) - 1 - p);
  return 1;
}

typedef struct vote {
  char *kernel, *path;
  int64_t count;
} vote;

static int add_vote(vote **v, int64_t *n, int64_t *cap, const char *kernel, pstr path) {
  for (int64_t i = 0; i < *n; i++)
    if (strcmp((*v)[i].kernel, kernel) == 0 && strlen((*v)[i].path) == path.n &&
        memcmp((*v)[i].path, path.p, path.n) == 0) {
      (*v)[i].count++;
      return 1;
    }
  if (!xp_grow((void **)v, cap, *n + 1, sizeof(vote))) return 0;
  vote *e = &(*v)[*n];
  e->kernel = xp_mprintf("%s", kernel);
  e->path = xp_mprintf("%.*s", (int)path.n, path.p);
  e->count = 1;
  if (!e->kernel || !e->path) {
    xp_free(e->kernel);
    xp_free(e->path);
    return 0;
  }
  (*n)++;
  return 1;
}

static int scan_file(const char *file, vote **v, int64_t *nv, int64_t *cap, char **err) {
  FILE *f = fopen(file, "rb");
  if (!f) {
    *err = xp_mprintf("%s: cannot be read", file);
    return 0;
  }
  uint8_t *buf = NULL;
  size_t n = 0, bcap = 0;
  for (;;) {
    if (n == bcap) {
      if (bcap >= ((size_t)1 << 31)) {
        fclose(f);
        xp_free(buf);
        *err = xp_mprintf("%s: larger than 2 GiB", file);
        return 0;
      }
      size_t nc = bcap ? bcap * 2 : 65536;
      uint8_t *b = xp_realloc(buf, nc);
      if (!b) {
        fclose(f);
        xp_free(buf);
        return 0;
      }
      buf = b;
      bcap = nc;
    }
    size_t got = fread(buf + n, 1, bcap - n, f);
    n += got;
    if (got == 0) break;
  }
  int rerr = ferror(f);
  fclose(f);
  if (rerr) {
    xp_free(buf);
    *err = xp_mprintf("%s: read error", file);
    return 0;
  }
  /* the printable runs, in order */
  pstr *runs = NULL;
  int64_t nr = 0, rcap = 0;
  uint64_t work = 0;
  for (size_t i = 0; i < n;) {
    if (poll(&work, 1)) {
      xp_free(runs);
      xp_free(buf);
      *err = xp_mprintf("%s", XP_CANCELLED_TEXT);
      return 0;
    }
    size_t j = i;
    while (j < n && buf[j] >= 0x20 && buf[j] <= 0x7e) j++;
    if (j - i >= 4) {
      if (!xp_grow((void **)&runs, &rcap, nr + 1, sizeof(pstr))) {
        xp_free(runs);
        xp_free(buf);
        return 0;
      }
      runs[nr].p = (const char *)buf + i;
      runs[nr].n = j - i;
      nr++;
    }
    i = j + 1;
  }
  int ok = 1;
  for (int64_t i = 0; ok && i < nr; i++) {
    if (poll(&work, 1 + (uint64_t)*nv)) { /* add_vote scans the votes */
      *err = xp_mprintf("%s", XP_CANCELLED_TEXT);
      ok = 0;
      break;
    }
    pstr path;
    if (!train_step_path(runs[i], &path)) continue;
    /* the distinct kernels 1..4 runs away */
    char names[8][96];
    int k = 0;
    for (int d = 1; d <= 4; d++)
      for (int side = -1; side <= 1; side += 2) {
        int64_t c = i + side * d;
        if (c < 0 || c >= nr) continue;
        char nm[96];
        if (!xp_hlo_kernel_lookup_name(runs[c].p, runs[c].n, nm, sizeof(nm))) continue;
        int seen = 0;
        for (int t = 0; t < k && !seen; t++) seen = strcmp(names[t], nm) == 0;
        if (!seen) memcpy(names[k++], nm, sizeof(nm));
      }
    for (int t = 0; ok && t < k; t++) ok = add_vote(v, nv, cap, names[t], path);
  }
  xp_free(runs);
  xp_free(buf);
  return ok;
}

static int by_strptr(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

static int ends_with(const char *z, const char *suffix) {
  size_t a = strlen(z), b = strlen(suffix);
  return a >= b && strcmp(z + a - b, suffix) == 0;
}

void xp_hlo_kernel_paths_free(xp_hlo_kernel_path *v, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    xp_free(v[i].kernel);
    xp_free(v[i].path);
  }
  xp_free(v);
}

static int by_kernel(const void *x, const void *y) {
  return strcmp(((const xp_hlo_kernel_path *)x)->kernel, ((const xp_hlo_kernel_path *)y)->kernel);
}

int xp_hlo_kernel_paths(const char *dir, xp_hlo_kernel_path **out, int64_t *n_out, char **err) {
  *out = NULL;
  *n_out = 0;
  *err = NULL;
  DIR *d = opendir(dir);
  if (!d) return 1; /* no directory listing, no HLO proto: nothing to rewrite */
  char **all = NULL, **train = NULL;
  int64_t na = 0, nt = 0, ca = 0, ct = 0;
  int ok = 1;
  struct dirent *e;
  while (ok && (e = readdir(d)) != NULL) {
    if (!ends_with(e->d_name, ".hlo_proto.pb")) continue;
    char *full = xp_mprintf("%s/%s", dir, e->d_name);
    if (!full || !xp_grow((void **)&all, &ca, na + 1, sizeof(char *))) { xp_free(full); ok = 0; break; }
    all[na++] = full;
    if (strncmp(e->d_name, "jit_train_step", 14) == 0) {
      if (!xp_grow((void **)&train, &ct, nt + 1, sizeof(char *))) { ok = 0; break; }
      train[nt++] = full;
    }
  }
  closedir(d);
  char **files = nt ? train : all;
  int64_t nf = nt ? nt : na;
  if (ok && nf) qsort(files, (size_t)nf, sizeof(char *), by_strptr);
  vote *v = NULL;
  int64_t nv = 0, cv = 0;
  for (int64_t i = 0; ok && i < nf; i++) ok = scan_file(files[i], &v, &nv, &cv, err);
  /* each kernel's most voted path (ties: the smaller path) */
  xp_hlo_kernel_path *res = NULL;
  int64_t nres = 0, cres = 0;
  uint64_t work = 0;
  for (int64_t i = 0; ok && i < nv; i++) {
    if (poll(&work, 1 + (uint64_t)nres)) {
      *err = xp_mprintf("%s", XP_CANCELLED_TEXT);
      ok = 0;
      break;
    }
    int64_t j = 0;
    while (j < nres && strcmp(res[j].kernel, v[i].kernel) != 0) j++;
    if (j == nres) {
      if (!xp_grow((void **)&res, &cres, nres + 1, sizeof(*res))) { ok = 0; break; }
      res[nres].kernel = v[i].kernel;
      res[nres].path = v[i].path;
      res[nres].votes = v[i].count;
      v[i].kernel = v[i].path = NULL;
      nres++;
    } else if (v[i].count > res[j].votes || (v[i].count == res[j].votes && strcmp(v[i].path, res[j].path) < 0)) {
      xp_free(res[j].path);
      res[j].path = v[i].path;
      res[j].votes = v[i].count;
      v[i].path = NULL;
    }
  }
  for (int64_t i = 0; i < nv; i++) {
    xp_free(v[i].kernel);
    xp_free(v[i].path);
  }
  xp_free(v);
  for (int64_t i = 0; i < na; i++) xp_free(all[i]);
  xp_free(all);
  xp_free(train);
  if (!ok) {
    xp_hlo_kernel_paths_free(res, nres);
    return 0;
  }
  if (nres > 1 && !xp_sort(res, nres, sizeof(*res), by_kernel)) {
    if (xp_cancel_stopped()) *err = xp_mprintf("%s", XP_CANCELLED_TEXT);
    xp_hlo_kernel_paths_free(res, nres);
    return 0;
  }
  *out = res;
  *n_out = nres;
  return 1;
}

static int by_map_kernel(const void *key, const void *elt) {
  return strcmp((const char *)key, ((const xp_hlo_kernel_path *)elt)->kernel);
}

int64_t xp_hlo_op_paths(xp_profile *p, const char *profile_path, xp_hlo_kernel_path **map, int64_t *n_map,
                        xp_hlo_op_path **rows, char **err) {
  *rows = NULL;
  *err = NULL;
  char *copy = xp_mprintf("%s", profile_path); /* dirname may write into its argument */
  if (!copy) return -1;
  int ok = xp_hlo_kernel_paths(dirname(copy), map, n_map, err);
  xp_free(copy);
  if (!ok) return -1;
  if (!*n_map) return 0; /* no HloProto votes: the op analysis is not built for nothing */
  const xp_op_group *g;
  int64_t ng = xp_op_groups(p, &g), n = 0, cap = 0;
  if (ng < 0) return -1;
  for (int64_t i = 0; i < ng; i++) {
    xp_hlo_op_path r;
    if (!xp_hlo_kernel_lookup_name(g[i].name.p, g[i].name.n, r.kernel, sizeof(r.kernel))) continue;
    const xp_hlo_kernel_path *m = bsearch(r.kernel, *map, (size_t)*n_map, sizeof(**map), by_map_kernel);
    if (!m) continue;
    if (!xp_grow((void **)rows, &cap, n + 1, sizeof(xp_hlo_op_path))) {
      xp_free(*rows);
      *rows = NULL;
      return -1;
    }
    r.name = g[i].name;
    r.path = m->path;
    r.votes = m->votes;
    (*rows)[n++] = r;
  }
  return n;
}
