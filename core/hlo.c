/*
** hlo.c: HloProto -> instruction rows (see hlo.h).
*/
#include "hlo.h"

#include <string.h>

#include "hlo.pb-c.h"
#include "json.h"
#include "util.h"

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
  for (size_t c = 0; c < m->n_computations; c++) {
    const Xla__HloComputationProto *cp = m->computations[c];
    int entry = (m->entry_computation_id && cp->id == m->entry_computation_id) ||
                (m->entry_computation_name && *m->entry_computation_name && cp->name &&
                 strcmp(cp->name, m->entry_computation_name) == 0);
    for (size_t i = 0; i < cp->n_instructions; i++) {
      const Xla__HloInstructionProto *ip = cp->instructions[i];
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
        xp_hlo_free(h);
        return 0;
      }
      /* the called computations by name (ids resolved within the module) */
      xp_str names[64];
      int k = 0;
      for (size_t j = 0; j < ip->n_called_computation_ids && k < 64; j++)
        for (size_t c2 = 0; c2 < m->n_computations; c2++)
          if (m->computations[c2]->id == ip->called_computation_ids[j]) {
            names[k].p = str_or_empty(m->computations[c2]->name);
            names[k].n = strlen(names[k].p);
            k++;
            break;
          }
      b = xp_buf_new();
      xp_json_str_array(b, names, k);
      bad = xp_buf_errcode(b) != XP_BUF_OK;
      r->called = xp_buf_finish(b);
      if (bad || !r->called) {
        xp_hlo_free(h);
        return 0;
      }
    }
  }
  *out = h;
  return 1;
}
