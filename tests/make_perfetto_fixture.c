/*
** make_perfetto_fixture.c: write the small XSpace that tests/test_perfetto.sh
** converts and checks against tests/golden/perfetto/fixture.textproto.
**
**   make_perfetto_fixture OUT.xplane.pb
**
** Every case of the Perfetto mapping (tp_plugin/pf_model.h) once:
**   plane 0 `/host:CPU`: line `python3` (ts 1000 ns): a launch at 500 ps for
**     2000 ps (sub-ns times) with correlation_id 7 (uint64), a ref stat, a
**     bytes stat and a stat of an unknown stat id; an instant (duration 0);
**     an aggregated event (num_occurrences: skipped).
**   plane 1 `/device:GPU:0`, lines 0 `XLA Ops` and 1 `Async XLA Ops` share
**     id 5 (one thread, merged by time). Line 0 (ts 2000 ns), offsets in ps:
**       X fusion [0,100000)  P convolution [10500,50000)
**       U unknown metadata [20000,25000)  E all-reduce [30250,80000): partial
**       overlap with P, spec parent X -> overlap lane 1, annotated parent X
**       F copy-start [35000,45000): spec parent E -> lane 1 under E
**       empty name [40000,41000) -> other lane  G add [60000,70000) under E
**       H multiply [90000,95000) under X  a negative duration (skipped)
**       an instant at 100000 (X has ended: depth 0)
**     line 1: kernel [95000,97000) under X, kernel [150000,170000) with
**       correlation_id 7 (flow from the launch).
**     line 2 `Stream #1` (id 0: key 3, display name `Stream 1 (compute)`):
**       events out of order (the sorted path).
**     line 3: no name (thread `xline:3`).
**     lines 4 and 5 share id 9 and the name `Shared` (line 5 displayed
**       `Shared (second)`): one thread whose category does not tell its
**       lines apart, so each of their slices carries xplane.line_index.
**   plane 2: no name (process `xplane:2`), no lines.
** Built with the shared fixture builder (tests/fixture/fixture.h).
*/
#include <stdint.h>
#include <stdio.h>

#include "fixture.h"

int main(int argc, char **argv) {
  static const uint8_t blob[] = {0x00, 0xff, 0x41};
  fx_program("make_perfetto_fixture");
  if (argc != 2) {
    fprintf(stderr, "usage: make_perfetto_fixture OUT.xplane.pb\n");
    return 2;
  }
  XSpace *sp = fx_space();

  XPlane *host = fx_plane(sp, 0, "/host:CPU");
  fx_smeta(host, 1, "correlation_id", NULL);
  fx_smeta(host, 2, "blob", NULL);
  fx_smeta(host, 3, "kind", NULL);
  fx_smeta(host, 4, "launch", NULL);
  fx_emeta(host, 1, "cuLaunchKernel", NULL);
  fx_emeta(host, 2, "marker", NULL);
  fx_emeta(host, 3, "aggregated", NULL);
  XLine *py = fx_line(host, 100, "python3", NULL, 1000);
  XEvent *launch = fx_event(py, 1, 500, 2000);
  fx_event_stat(launch, fx_stat_uint(1, 7));
  fx_event_stat(launch, fx_stat_ref(3, 4));
  fx_event_stat(launch, fx_stat_bytes(2, blob, sizeof(blob)));
  fx_event_stat(launch, fx_stat_int(42, -1));
  fx_event(py, 2, 5000000, 0);
  fx_event_aggregated(py, 3, 3, 1000);

  XPlane *gpu = fx_plane(sp, 1, "/device:GPU:0");
  fx_smeta(gpu, 1, "correlation_id", NULL);
  fx_smeta(gpu, 2, "flops", NULL);
  fx_smeta(gpu, 3, "tf_op", NULL);
  XEventMetadata *fusion = fx_emeta(gpu, 1, "fusion.1", "%fusion.12");
  fx_emeta_stat(fusion, fx_stat_double(2, 2.5));
  fx_emeta_stat(fusion, fx_stat_str(3, "jit(step)/dense"));
  fx_emeta(gpu, 2, "convolution.2", NULL);
  fx_emeta(gpu, 3, "all-reduce.3", NULL);
  fx_emeta(gpu, 4, "copy-start.4", NULL);
  fx_emeta(gpu, 5, "add.5", NULL);
  fx_emeta(gpu, 6, "multiply.6", NULL);
  fx_emeta(gpu, 7, "kernel", NULL);
  fx_emeta(gpu, 8, "", NULL);
  XLine *ops = fx_line(gpu, 5, "XLA Ops", NULL, 2000);
  fx_event(ops, 1, 0, 100000);          /* X */
  fx_event(ops, 2, 10500, 39500);       /* P */
  fx_event(ops, 99, 20000, 5000);       /* U: unknown metadata */
  fx_event(ops, 3, 30250, 49750);       /* E */
  fx_event(ops, 4, 35000, 10000);       /* F */
  fx_event(ops, 8, 40000, 1000);        /* empty name */
  fx_event(ops, 5, 60000, 10000);       /* G */
  fx_event(ops, 6, 90000, 5000);        /* H */
  fx_event(ops, 6, 92000, -5);          /* negative duration */
  fx_event(ops, 5, 100000, 0);          /* instant */
  XLine *async = fx_line(gpu, 5, "Async XLA Ops", NULL, 2000);
  fx_event(async, 7, 95000, 2000);
  fx_event_stat(fx_event(async, 7, 150000, 20000), fx_stat_int(1, 7));
  XLine *stream = fx_line(gpu, 0, "Stream #1", "Stream 1 (compute)", 2000);
  fx_event(stream, 7, 5000, 1000);
  fx_event(stream, 7, 1000, 2000);
  fx_event(stream, 5, 1000, 1000);
  XLine *anon = fx_line(gpu, 7, "", NULL, 2000);
  fx_event(anon, 5, 0, 1000);
  XLine *shared = fx_line(gpu, 9, "Shared", NULL, 2000);
  fx_event(shared, 5, 0, 1000);
  shared = fx_line(gpu, 9, "Shared", "Shared (second)", 2000);
  fx_event(shared, 6, 3000, 1000);
  fx_event(shared, 6, 5000, 1000);

  fx_plane(sp, 2, "");
  fx_write(sp, argv[1], NULL, 0);
  return 0;
}
