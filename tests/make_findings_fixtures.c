/*
** make_findings_fixtures.c: the edge cases of xplane_findings' rules that the
** generator cannot produce (tests/test_findings.sh checks each by hand).
**
**   make_findings_fixtures OUT_DIR   -> OUT_DIR/annotation_only.xplane.pb,
**                                       OUT_DIR/host_busy.xplane.pb
**
** Times in microseconds from 0 (every line has timestamp_ns 0). Both files:
**   /device:TPU:0  Steps: "0" [0,1000)
**                  XLA Ops: fusion.1 [0,400), fusion.2 [700,1000): the step
**                  idles 300 of 1000 (30 %)
**   /host:CPU      main: train [0,1000) (covers the whole step),
**                  block_until_ready [100,200) (returns while fusion.1 runs:
**                  no idle counted), block_until_ready [410,450) (returns
**                  in the idle: 700 - 450 = 250 counted)
** host_busy.xplane.pb also has, on a second host line `worker`,
**   host_work [0,600) and host_work [600,700): host busy [0,700) = 70 %.
** So: annotation_only has no host_bound row (only the step-covering train
** annotation and 140 us of calls are busy: 14 %); host_busy has one (idle
** 300 us, host busy 700 us); both have one synchronization row: 2 calls,
** 250 us of device idle after them.
*/
#include <stdio.h>

#include "fixture.h"

#define US INT64_C(1000000)

static void write_case(const char *dir, const char *name, int host_busy) {
  XSpace *s = fx_space();
  XPlane *d = fx_plane(s, 0, "/device:TPU:0");
  fx_emeta(d, 1, "0", NULL);
  fx_emeta(d, 2, "fusion.1", NULL);
  fx_emeta(d, 3, "fusion.2", NULL);
  XLine *steps = fx_line(d, 1, "Steps", NULL, 0);
  fx_event(steps, 1, 0, 1000 * US);
  XLine *ops = fx_line(d, 2, "XLA Ops", NULL, 0);
  fx_event(ops, 2, 0, 400 * US);
  fx_event(ops, 3, 700 * US, 300 * US);
  XPlane *h = fx_plane(s, 1, "/host:CPU");
  fx_emeta(h, 1, "train", NULL);
  fx_emeta(h, 2, "block_until_ready", NULL);
  fx_emeta(h, 3, "host_work", NULL);
  XLine *main_line = fx_line(h, 1, "main", NULL, 0);
  fx_event(main_line, 1, 0, 1000 * US);
  fx_event(main_line, 2, 100 * US, 100 * US);
  fx_event(main_line, 2, 410 * US, 40 * US);
  if (host_busy) {
    XLine *worker = fx_line(h, 2, "worker", NULL, 0);
    fx_event(worker, 3, 0, 600 * US);
    fx_event(worker, 3, 600 * US, 100 * US);
  }
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s.xplane.pb", dir, name);
  fx_write(s, path, NULL, 0);
}

int main(int argc, char **argv) {
  fx_program("make_findings_fixtures");
  if (argc != 2) fx_die("usage: make_findings_fixtures OUT_DIR");
  write_case(argv[1], "annotation_only", 0);
  write_case(argv[1], "host_busy", 1);
  return 0;
}
