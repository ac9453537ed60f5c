/*
** wire.h: a bounds-checked reader of the protobuf wire format, in place.
**
** The XPlane hot path never unpacks whole messages: it walks the bytes of an
** mmap'd file with this reader, one field at a time, and keeps pointers into
** the mapping. Every read checks its bounds; a malformed input sets the
** reader's error (what went wrong and at which absolute file byte) and every
** later read fails, so callers check once after a loop.
**
**   xp_wire r; xp_wire_init(&r, base, msg, msg_len);
**   xp_field f;
**   while( xp_wire_next(&r, &f) ){
**     switch( f.num ){ case 1: ... f.u (varint) / f.p,f.n (bytes) ... }
**   }
**   if( r.err ) ... report r.err and r.err_at ...
*/
#ifndef XPLANE_WIRE_H
#define XPLANE_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* Protobuf wire types this reader knows. Groups (3, 4) are not used by
** XPlane and are rejected as malformed. */
enum { XP_WT_VARINT = 0, XP_WT_I64 = 1, XP_WT_LEN = 2, XP_WT_I32 = 5 };

/* What went wrong; see xp_wire_errstr(). */
typedef enum {
  XP_WIRE_OK = 0,
  XP_WIRE_TRUNCATED,     /* a field runs past the end of its message/file */
  XP_WIRE_BAD_VARINT,    /* a varint longer than 10 bytes */
  XP_WIRE_BAD_WIRETYPE,  /* wire type 3, 4, 6 or 7 */
  XP_WIRE_BAD_FIELDNUM,  /* field number 0 */
  XP_WIRE_TYPE_MISMATCH  /* a known field with the wrong wire type */
} xp_wire_err;

/* One decoded field. For XP_WT_LEN, p/n is the payload; otherwise u holds the
** raw value (varint, or the little-endian fixed64/fixed32 bits). */
typedef struct xp_field {
  uint32_t num;
  uint32_t wt;
  uint64_t u;
  const uint8_t *p;
  size_t n;
  const uint8_t *at;     /* where the field's tag starts */
} xp_field;

typedef struct xp_wire {
  const uint8_t *base;   /* start of the file: errors report offsets from it */
  const uint8_t *p;      /* next byte to read */
  const uint8_t *end;    /* end of the current message */
  xp_wire_err err;
  uint64_t err_at;       /* absolute byte offset of the failing read */
  uint64_t err_need;     /* for XP_WIRE_TRUNCATED: the byte the field needed */
} xp_wire;

void xp_wire_init(xp_wire *r, const uint8_t *base, const uint8_t *msg, size_t n);

/* Read the next field into *f. Returns 1 on success, 0 at the end of the
** message or on error (then r->err is set). The inline part handles the
** common shapes (one-byte tag, one-byte varint or length); the rest and
** every error go to xp_wire_next_slow. */
int xp_wire_next_slow(xp_wire *r, xp_field *f);

/* Decode a varint of at most 10 bytes at p (< end); returns the byte after
** it, or NULL when it is cut off or too long (the slow path reports). */
static inline const uint8_t *xp_varint(const uint8_t *p, const uint8_t *end, uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70 && p < end; shift += 7) {
    uint8_t b = *p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (b < 0x80) {
      *out = v;
      return p;
    }
  }
  return 0;
}

static inline int xp_wire_next(xp_wire *r, xp_field *f) {
  const uint8_t *p = r->p;
  if (p < r->end && p[0] < 0x80 && p[0] >= 8) {
    uint32_t wt = p[0] & 7u;
    uint64_t v;
    const uint8_t *q;
    if (wt == XP_WT_VARINT && (q = xp_varint(p + 1, r->end, &v)) != 0) {
      f->at = p;
      f->num = p[0] >> 3;
      f->wt = wt;
      f->u = v;
      f->p = 0;
      f->n = 0;
      r->p = q;
      return 1;
    }
    if (wt == XP_WT_LEN && (q = xp_varint(p + 1, r->end, &v)) != 0 && v <= (uint64_t)(r->end - q)) {
      f->at = p;
      f->num = p[0] >> 3;
      f->wt = wt;
      f->u = 0;
      f->p = q;
      f->n = (size_t)v;
      r->p = q + v;
      return 1;
    }
  }
  return xp_wire_next_slow(r, f);
}

/* Flag a known field whose wire type is wrong (not an XPlane message). */
void xp_wire_mismatch(xp_wire *r, const xp_field *f);

/* Require wire type wt for field f; flags a mismatch and returns 0 if not. */
int xp_wire_expect(xp_wire *r, const xp_field *f, uint32_t wt);

/* Iterate the int64 values of a repeated int64 field that may be packed (a
** LEN payload of varints) or unpacked (one varint per field). */
typedef struct xp_packed {
  xp_wire sub;           /* over the packed payload */
  int single;            /* 1: one unpacked value not yet returned */
  uint64_t value;
} xp_packed;
void xp_packed_init(xp_packed *it, const xp_wire *r, const xp_field *f);
int xp_packed_next(xp_packed *it, int64_t *out, xp_wire *errs);

/* Human-readable name of an error code. */
const char *xp_wire_errstr(xp_wire_err e);

static inline double xp_u64_as_double(uint64_t u) {
  union { uint64_t u; double d; } c;
  c.u = u;
  return c.d;
}

#endif
