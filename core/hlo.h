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

#endif
