/*
** findings_impl.h: what the findings rules share inside core/ (findings.c,
** the rules over device planes; findings_cpu.c, the rules on the JAX CPU
** backend). Not an interface: findings.h is.
*/
#ifndef XPLANE_FINDINGS_IMPL_H
#define XPLANE_FINDINGS_IMPL_H

#include "findings.h"
#include "util.h"

/* The rows found so far. */
typedef struct flist {
  xp_finding *v;
  int64_t n, cap;
  int oom; /* out of memory, or the query was interrupted (cancel.h): give up */
} flist;

/* Every 4096 items of a long loop: has the query been interrupted? (sets oom) */
int xp_fl_stop(flist *fl, int64_t k);
/* A new row with id (plane -1, of -1, bytes -1); NULL (and oom) when out of memory. */
xp_finding *xp_fl_add(flist *fl, const char *id);
/* Take a finished buffer's text; marks oom on failure. */
char *xp_fl_take(flist *fl, xp_buf *b);
/* End an evidence object with its last number (a share threshold) and take it. */
char *xp_fl_evidence_end(flist *fl, xp_buf *b, double last);
/* Whether needle is in p[0..n) (case-sensitive). */
int xp_fl_has(const char *p, size_t n, const char *needle);
/* The span of the profile: first start to last end of any line, 0 if none. */
int64_t xp_fl_profile_span(const xp_profile *p);

/* What a host event's name says (xp_fl_name_class), worked out once per
** event name: the rules test it on every event, and a substring search per
** event and rule was a third of the findings' time on a JAX CPU capture. */
enum {
  HEV_SYNC = 1, /* a blocking host call (xp_find_is_sync) */
  HEV_WAIT = 2, /* the host waits: HEV_SYNC, a name starting `Wait` or holding `wait for` */
  HEV_H2D = 4   /* a host-to-device transfer call: DevicePut, BufferFromPyval, TransferToDevice */
};
uint8_t xp_fl_name_class(xp_str n);

/* A host event (analysis event of a host plane). */
typedef struct hev {
  int64_t start, dur;
  int32_t plane, line;
  xp_str name;
  uint8_t cls; /* HEV_* of its name */
} hev;

/* Every host event, ordered by (plane, line, start, dur desc). */
typedef struct hevvec {
  hev *v;
  int64_t n, cap;
} hevvec;

/* One device's merged busy intervals, in order. */
typedef struct pbusy {
  int64_t *s, *e;
  int64_t n, cap;
} pbusy;
/* Add [s, e) to b; intervals come in start order and one that touches or
** overlaps the last is merged into it. 0 when out of memory. */
int xp_fl_busy_add(pbusy *b, int64_t s, int64_t e);

/* The synchronization rule over n_pb devices (findings.c). */
void xp_fl_sync(xp_profile *p, const xp_find_params *fp, const pbusy *pb, int64_t n_pb, const hevvec *hv,
                flist *fl);

/* The host_bound, transfers, tiny_kernels and synchronization rules on the
** JAX CPU backend (findings_cpu.c). */
void xp_fl_cpu_rules(xp_profile *p, const xp_find_params *fp, const hevvec *hv, flist *fl);

#endif
