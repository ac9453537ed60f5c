/*
** hostile_mutate.c: bytes that change after validation, inside one open
** profile (issue 12 item 2), for tests/hostile/changing.sh.
**
**   hostile_mutate A B     (two XSpace files of the same size)
**
** Opens A from a heap buffer (xp_profile_from_memory: validated and indexed),
** then copies B's bytes over the buffer, as a file rewritten in place under
** its mapping would be, and runs every re-walk of the bytes: the events of
** each line, the self times, the ops analysis and the track aggregates.
** Prints "changed=<flag> ops=<xp_ops result> aggs=<xp_track_aggs result>
** events=<events read>". With B holding more events per line than A's
** index counted, the re-walks must stay within the index's arrays (ASan in
** the sanitized build checks it), stop at the indexed count, flag the
** profile changed and make the analysis fail (-1).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregates.h"
#include "analysis.h"
#include "profile.h"
#include "util.h"

static unsigned char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long k = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc(k > 0 ? (size_t)k : 1);
  if (b && fread(b, 1, (size_t)k, f) != (size_t)k) { free(b); b = NULL; }
  fclose(f);
  *n = (size_t)k;
  return b;
}

int main(int argc, char **argv) {
  size_t na = 0, nb = 0;
  if (argc != 3) { fprintf(stderr, "usage: hostile_mutate A B\n"); return 2; }
  unsigned char *a = slurp(argv[1], &na), *b = slurp(argv[2], &nb);
  if (!a || !b || na != nb) { fprintf(stderr, "hostile_mutate: cannot read two files of one size\n"); return 2; }
  char *err = NULL;
  xp_profile *p = xp_profile_from_memory(argv[1], a, na, &err);
  if (!p) { fprintf(stderr, "%s\n", err); return 1; }
  memcpy(a, b, nb); /* the bytes change after validation */
  int64_t events = 0;
  for (int32_t i = 0; i < p->n_planes; i++)
    for (int32_t k = 0; k < p->planes[i].n_lines; k++) {
      xp_event_iter it;
      xp_event ev;
      xp_events_begin(p, &p->planes[i].lines[k], &it);
      while (xp_events_next(&it, &ev)) events++;
    }
  int changed_by_scan = xp_profile_changed(p);
  p->changed = 0; /* let the analysis meet the changed bytes itself */
  const xp_op *ops;
  int64_t n_ops = xp_ops(p, &ops);
  int changed_by_ops = xp_profile_changed(p);
  p->changed = 0;
  const xp_track_agg *aggs;
  const xp_hint *hints;
  int64_t n_hints = 0;
  int64_t n_aggs = xp_track_aggs(p, &aggs, &hints, &n_hints);
  printf("scan: changed=%d events=%lld; ops: changed=%d result=%lld; aggs: changed=%d\n", changed_by_scan,
         (long long)events, changed_by_ops, (long long)n_ops, xp_profile_changed(p));
  (void)n_aggs;
  xp_profile_release(p);
  free(a);
  free(b);
  return 0;
}
