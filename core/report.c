/*
** report.c: the report pass, and the readers of what it builds.
**
** The reports (steps, hierarchical regions, hints, op names, gap groups, op
** regions) are built together: one stats walk (facts.c) feeds every builder
** (steps.c, regions.c, aggregates.c) whose result is not built yet, then its
** facts are freed. The builders are independent of one another and run on
** up to p->threads threads (xp_analysis_threads), taking the next builder as
** they finish one; each writes only its own result, so the thread count
** changes no byte of any. Any reader below builds the whole pass on first use and
** returns what it built; the results stay with the analysis (analysis.h).
** This file sits above the builders: they never call back into it.
*/
#include "aggregates.h"
#include "analysis_internal.h"
#include "cancel.h"
#include "util.h"

/* The builders as jobs (xp_cancel_run_jobs): job 0 the steps (which free the
** launch table, read by them alone, as soon as they are done), job 1 the
** scopes, job 2 + k aggregate k. */
typedef struct report_jobs {
  xp_profile *p;
  xp_facts *f;
} report_jobs;

static int run_job(void *ctx, int64_t k, int worker) {
  report_jobs *j = ctx;
  (void)worker;
  if (j->p->changed) return 0;
  if (k == 0) {
    int ok = xp_steps_build(j->p, j->f);
    xp_facts_free_launches(j->f);
    return ok;
  }
  if (k == 1) return xp_scopes_build(j->p, j->f);
  return xp_aggregate_build(j->p, j->f, (int)k - 2);
}

int xp_report_pass(xp_profile *p) {
  xp_analysis *a = xp_analysis_get(p);
  if (!a) return 0;
  int done = a->n_steps >= 0 && a->n_scopes >= 0 && a->slot[XP_SLOT_TRACKS] && a->slot[XP_SLOT_OP_NAMES] &&
             a->slot[XP_SLOT_GAPS] && a->slot[XP_SLOT_OP_REGIONS];
  if (done) return 1;
  xp_facts f;
  if (!xp_facts_build(p, &f)) return 0;
  report_jobs j = {p, &f};
  int64_t n = 2 + xp_aggregates_n();
  int ok = xp_cancel_run_jobs(xp_analysis_threads(p, n), n, run_job, &j);
  xp_facts_free(&f);
  return ok && !p->changed;
}

int64_t xp_steps(xp_profile *p, const xp_step **steps) {
  if (!xp_report_pass(p)) return -1;
  const xp_analysis *a = p->analysis;
  *steps = a->steps;
  return a->n_steps;
}

int64_t xp_scopes(xp_profile *p, const xp_scope **scopes) {
  if (!xp_report_pass(p)) return -1;
  const xp_analysis *a = p->analysis;
  *scopes = a->scopes;
  return a->n_scopes;
}

int64_t xp_track_aggs(xp_profile *p, const xp_track_agg **aggs, const xp_hint **hints, int64_t *n_hints) {
  return xp_report_pass(p) ? xp_built_track_aggs(p, aggs, hints, n_hints) : -1;
}

int64_t xp_op_groups(xp_profile *p, const xp_op_group **names) {
  return xp_report_pass(p) ? xp_built_op_groups(p, names) : -1;
}

int64_t xp_op_tf_ops(xp_profile *p, const xp_tf_count **rows) {
  return xp_report_pass(p) ? xp_built_op_tf_ops(p, rows) : -1;
}

int64_t xp_gap_groups(xp_profile *p, const xp_gap_group **rows) {
  return xp_report_pass(p) ? xp_built_gap_groups(p, rows) : -1;
}

int64_t xp_op_regions(xp_profile *p, const xp_op_region **rows, int64_t *n_windows) {
  return xp_report_pass(p) ? xp_built_op_regions(p, rows, n_windows) : -1;
}
