/*
** wire.c: the bounds-checked protobuf wire reader declared in wire.h.
*/
#include "wire.h"

void xp_wire_init(xp_wire *r, const uint8_t *base, const uint8_t *msg, size_t n) {
  r->base = base;
  r->p = msg;
  r->end = msg + n;
  r->err = XP_WIRE_OK;
  r->err_at = 0;
  r->err_need = 0;
}

static int wire_fail(xp_wire *r, xp_wire_err e, const uint8_t *at, uint64_t need) {
  if (r->err == XP_WIRE_OK) {
    r->err = e;
    r->err_at = (uint64_t)(at - r->base);
    r->err_need = need;
  }
  r->p = r->end;
  return 0;
}

/* Decode a varint at r->p; on success advance and return 1. */
static int read_varint(xp_wire *r, uint64_t *out) {
  const uint8_t *p = r->p;
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (p >= r->end)
      return wire_fail(r, XP_WIRE_TRUNCATED, r->p, (uint64_t)(r->end - r->base) + 1);
    uint8_t b = *p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      r->p = p;
      *out = v;
      return 1;
    }
  }
  return wire_fail(r, XP_WIRE_BAD_VARINT, r->p, 0);
}

static int read_fixed(xp_wire *r, int width, uint64_t *out) {
  if ((size_t)(r->end - r->p) < (size_t)width)
    return wire_fail(r, XP_WIRE_TRUNCATED, r->p, (uint64_t)(r->p - r->base) + (uint64_t)width);
  uint64_t v = 0;
  for (int i = width - 1; i >= 0; i--) v = (v << 8) | r->p[i];
  r->p += width;
  *out = v;
  return 1;
}

int xp_wire_next_slow(xp_wire *r, xp_field *f) {
  if (r->err || r->p >= r->end) return 0;
  f->at = r->p;
  uint64_t tag;
  if (!read_varint(r, &tag)) return 0;
  f->num = (uint32_t)(tag >> 3);
  f->wt = (uint32_t)(tag & 7);
  f->p = 0;
  f->n = 0;
  f->u = 0;
  if (f->num == 0 || (tag >> 3) > 0x1fffffff)
    return wire_fail(r, XP_WIRE_BAD_FIELDNUM, f->at, 0);
  switch (f->wt) {
    case XP_WT_VARINT: return read_varint(r, &f->u);
    case XP_WT_I64: return read_fixed(r, 8, &f->u);
    case XP_WT_I32: return read_fixed(r, 4, &f->u);
    case XP_WT_LEN: {
      uint64_t n;
      if (!read_varint(r, &n)) return 0;
      if (n > (uint64_t)(r->end - r->p))
        return wire_fail(r, XP_WIRE_TRUNCATED, f->at, (uint64_t)(r->p - r->base) + n);
      f->p = r->p;
      f->n = (size_t)n;
      r->p += n;
      return 1;
    }
    default: return wire_fail(r, XP_WIRE_BAD_WIRETYPE, f->at, 0);
  }
}

void xp_wire_mismatch(xp_wire *r, const xp_field *f) {
  wire_fail(r, XP_WIRE_TYPE_MISMATCH, f->at, 0);
}

int xp_wire_expect(xp_wire *r, const xp_field *f, uint32_t wt) {
  if (f->wt == wt) return 1;
  xp_wire_mismatch(r, f);
  return 0;
}

void xp_packed_init(xp_packed *it, const xp_wire *r, const xp_field *f) {
  if (f->wt == XP_WT_LEN) {
    xp_wire_init(&it->sub, r->base, f->p, f->n);
    it->single = 0;
  } else {
    xp_wire_init(&it->sub, r->base, f->at, 0);
    it->single = 1;
    it->value = f->u;
  }
}

int xp_packed_next(xp_packed *it, int64_t *out, xp_wire *errs) {
  if (it->single) {
    it->single = 0;
    *out = (int64_t)it->value;
    it->sub.p = it->sub.end;
    return 1;
  }
  uint64_t v;
  if (it->sub.p >= it->sub.end) return 0;
  if (!read_varint(&it->sub, &v)) {
    if (errs && !errs->err) {
      errs->err = it->sub.err;
      errs->err_at = it->sub.err_at;
      errs->err_need = it->sub.err_need;
    }
    return 0;
  }
  *out = (int64_t)v;
  return 1;
}

const char *xp_wire_errstr(xp_wire_err e) {
  switch (e) {
    case XP_WIRE_OK: return "ok";
    case XP_WIRE_TRUNCATED: return "truncated";
    case XP_WIRE_BAD_VARINT: return "malformed varint";
    case XP_WIRE_BAD_WIRETYPE: return "invalid wire type";
    case XP_WIRE_BAD_FIELDNUM: return "invalid field number";
    case XP_WIRE_TYPE_MISMATCH: return "field has the wrong wire type for XSpace";
  }
  return "unknown error";
}
