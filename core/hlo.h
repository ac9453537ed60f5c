/*
** hlo.h: decode an HloProto (`*.hlo_proto.pb`, XLA's serialized optimized
** module) into flat instruction rows, with protobuf-c over schema/hlo.proto
** (no SQLite here; bound by sqlite_ext/tables_hlo.c as
** xplane_hlo_instructions).
**
**   xp_hlo *h; char *err;
**   if (!xp_hlo_decode(bytes, n, &h, &err)) { ... err (xp_free it) ... }
**   for (i = 0; i < h->n; i++) h->rows[i] ...;  xp_hlo_free(h);
**
** One row per instruction of every computation, in file order. Shapes are
** written as HLO text writes them: `f32[8,128]`, `(f32[2], s32[])`, `token[]`.
*/
#ifndef XPLANE_HLO_H
#define XPLANE_HLO_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

typedef struct xp_hlo_row {
  const char *module;          /* HloModuleProto.name */
  int64_t module_id;
  const char *computation;     /* HloComputationProto.name */
  int64_t computation_id;
  int is_entry;                /* the module's entry computation */
  const char *name;            /* instruction name, e.g. fusion.3 */
  const char *opcode;          /* e.g. fusion, dot, all-reduce */
  int64_t id;
  char *shape;                 /* the shape as text (owned) */
  const char *fusion_kind;     /* kLoop, kOutput, ... ("" if none) */
  const char *custom_call_target;
  const char *op_type;         /* metadata.op_type */
  const char *op_name;         /* metadata.op_name: the framework name stack */
  const char *source_file;     /* metadata.source_file */
  int32_t source_line;
  int is_root;                 /* the computation's root instruction */
  char *called;                /* JSON array of the called computations' names (owned) */
} xp_hlo_row;

typedef struct xp_hlo {
  void *msg;                   /* the unpacked protobuf-c message the rows point into */
  xp_hlo_row *rows;
  int64_t n;
} xp_hlo;

/* 1 on success; 0 with *err (a message to xp_free) when the bytes are not an
** HloProto or memory runs out. */
int xp_hlo_decode(const uint8_t *buf, size_t n, xp_hlo **out, char **err);
void xp_hlo_free(xp_hlo *h);

/* ---- the reference's HLO-proto path rewrite (hot ops, op regions) ----
**
** The reference summarizer reads the HloProto files beside a profile as raw
** bytes, not as protobuf: runs of 4+ printable ASCII characters in file order;
** a run holding "jit(train_step)" gives the path from the first
** "jit(train_step)/" at or after it to the end of the first "dot_general"
** after that; each run 1 to 4 positions before or after it that holds a
** kernel name `gemm_fusion_dot[._]N` or `gemm_fusion_dot_general[._]N`
** (normalized to `..._N`) counts one vote of that kernel for that path.
** Each kernel maps to its most voted path (ties: the smaller path). Files:
** `jit_train_step*.hlo_proto.pb` in the directory, else every
** `*.hlo_proto.pb`, in path order. */
typedef struct xp_hlo_kernel_path {
  char *kernel;                /* gemm_fusion_dot_N / gemm_fusion_dot_general_N */
  char *path;                  /* jit(train_step)/...dot_general */
  int64_t votes;
} xp_hlo_kernel_path;

/* Scan the directory `dir`. 1 on success (*out sorted by kernel, *n rows, 0
** when there is no HLO proto); 0 with *err (xp_free it) when a file cannot
** be read. */
int xp_hlo_kernel_paths(const char *dir, xp_hlo_kernel_path **out, int64_t *n, char **err);
void xp_hlo_kernel_paths_free(xp_hlo_kernel_path *v, int64_t n);
/* The lookup name of a kernel (`gemm_fusion_dot_3` for `gemm_fusion_dot.3`)
** into buf; 0 when the name holds none. */
int xp_hlo_kernel_lookup_name(const char *p, size_t n, char *buf, size_t cap);

/* The rewrite of one profile (xplane_hlo_op_paths, and the converter's
** xplane.source.hlo_op_paths record arg, so both engines have the same
** rows): each device-op name (xp_op_groups, in its order) whose lookup name
** the HloProto files in the directory of profile_path (the profile's file)
** vote a path for. The rows point into *map (free
** it with xp_hlo_kernel_paths_free) and into the profile's names; free the
** rows with xp_free. Returns the row count; -1 with *err (xp_free it) on a
** bad file, or with *err NULL when memory runs out. No HloProto there: 0. */
typedef struct xp_hlo_op_path {
  xp_str name;                 /* the op name */
  char kernel[96];             /* its lookup name */
  const char *path;            /* the voted path */
  int64_t votes;
} xp_hlo_op_path;
int64_t xp_hlo_op_paths(xp_profile *p, const char *profile_path, xp_hlo_kernel_path **map, int64_t *n_map,
                        xp_hlo_op_path **rows, char **err);

#endif
