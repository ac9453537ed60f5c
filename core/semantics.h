/*
** semantics.h: the naming and classification rules of the analysis
** (docs/ANALYSIS.md), as pure functions on strings.
**
** The ops table (tables_ops.c) and the SQL scalar functions
** (functions_semantics.c) both call these, so each rule has one home.
** Inputs are (pointer, length) strings; outputs are appended to an
** xp_buf or returned as static strings.
*/
#ifndef XPLANE_SEMANTICS_H
#define XPLANE_SEMANTICS_H

#include <stddef.h>

#include "util.h"

/* Case-insensitive: any of wait|barrier|dependency-wait|donation holds|
** semaphore|acquire|idle|blocked|sleep. */
int xp_is_stall(const char *p, size_t n);
/* Lower-cased name contains a collective keyword (all-reduce, nccl, ...). */
int xp_is_communication(const char *p, size_t n);
/* all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute,
** async-collective, send-recv or other-collective. */
const char *xp_collective_kind(const char *p, size_t n);
/* stall, host, communication, compute or other (plane decides host/compute). */
const char *xp_event_category(const char *plane, size_t plane_n, const char *p, size_t n);
/* stall, communication or compute. */
const char *xp_op_category(const char *p, size_t n);

/* Strip white space and a leading '%', drop one trailing ".<digits>". */
void xp_canonical_name(xp_buf *out, const char *p, size_t n);
/* Cheap setup op that marks the end of an idle period (iota, constant, ...). */
int xp_marker_like_n(const char *p, size_t n);
int xp_marker_like(const char *z);

/* Name-scope path of an op: its parts joined with "=>" (at most max_depth
** parts; 0 = all). Parts come from tf_op split on "/" (wrappers such as
** jit(...) unwrapped, runtime noise dropped); failing that from the name
** split on "=>" or "::"; failing that the single canonical name (the
** "fallback", recognisable as path == canonical name). Returns the number of
** parts written. */
int xp_scope_path(xp_buf *out, const char *tf_op, size_t tf_n, const char *name, size_t name_n,
                  int max_depth);

/* The tf_op to use for an op: a tf_op of `XlaModule` (the module, not a name
** scope) is replaced by the `name` stat when there is one. */
const char *xp_effective_tf_op(const char *tf_op, size_t tf_n, const char *name_stat, size_t name_n,
                               size_t *out_n);

/* dtype[dims] tokens of a long HLO name joined with "|" ("" when none). */
void xp_shape_signature(xp_buf *out, const char *p, size_t n);
/* FLOP proxy per invocation of an op of `family` with shape signature sig:
** attention 2*b*h*s*s*(d_qk+d_v) from rank-4 shapes, loss_xent 2*rows*cols,
** else the largest shape's element count. Returns 0 when there is none. */
double xp_flop_proxy(const char *family, const char *sig, size_t sig_n);
/* Semantic family of a text (the canonical name, or "canonical path"): the
** first matching rule of optimizer_muon ... collective, else "other". */
const char *xp_semantic_family(const char *p, size_t n);

#endif
