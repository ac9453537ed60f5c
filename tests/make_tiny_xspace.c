/*
** make_tiny_xspace.c: write a tiny XSpace profile that uses every field and
** every oneof case of schema/xplane.proto, for the SQL tests (tests/sql/tiny.sql).
**
**   make_tiny_xspace OUT.xplane.pb
**
** The first part of the file is one XSpace serialized by protobuf-c (the
** generated xplane.pb-c.h). protobuf-c always writes `repeated int64 child_id`
** packed (proto3), so a last plane, whose event metadata lists its child ids
** unpacked, packed and unpacked again in one message, is hand-encoded with the
** raw writer below and appended: concatenated protobuf messages merge, so
** the appended bytes (`XSpace.planes` field 1 holding one XPlane) add a fourth
** plane. `protoc --decode=tensorflow.profiler.XSpace -I schema xplane.proto`
** prints the whole file, including that plane.
**
** Contents (each value is what tests/sql/tiny.expected checks):
**   XSpace: hostnames ["tiny-host"], errors ["collector: 1 event dropped"],
**           warnings ["clock \"skew\"", "line\nbreak"]
**   plane 0 `/device:GPU:0` id 0: stats of every value type (double 2.5, uint64
**     2^64-1 and 7, int64 -42, str, bytes 00 ff fe 41, ref to the interned
**     string id -100); event metadata with negative ids, a display name, bytes
**     metadata, stats and packed child ids; line 0 with a 64-bit hash id
**     (0xAAAAAAAAAAAAAAAA), display id/name, unsorted and partially
**     overlapping events, an instant event with an unknown metadata id and a
**     stat with an unknown stat id; line 1 with another timestamp_ns, an event
**     whose flops stat overrides its metadata's flops, an aggregated event
**     (num_occurrences), and a ref to an unknown stat id.
**   plane 1 `/host:CPU` id 0 (a duplicate plane id): a `python` line with an
**     event holding a stat without a value (oneof value not set) and an event
**     with neither offset nor num_occurrences (oneof data not set); a line
**     without events.
**   plane 2 `Task Environment` id 2: profile_start_time / profile_stop_time.
**   plane 3 `/device:CUSTOM:raw` id -5 (hand-encoded): child ids unpacked.
**
** Built with the shared fixture builder (tests/fixture/fixture.h).
*/
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"

/* Stat ids of plane 0. */
enum { S_RATIO = 1, S_BIG, S_NEG, S_LABEL, S_BLOB, S_KIND, S_HLO_CATEGORY, S_FLOPS, S_KERNEL_DETAILS,
       S_INTERNED_DETAILS = 10, S_COUNT = 11, S_INTERNED_KIND = -100, S_UNKNOWN = 777,
       S_UNKNOWN_REF = 555 };

static void gpu_plane(XSpace *s) {
  static const uint8_t blob[] = {0x00, 0xff, 0xfe, 0x41};
  static const uint8_t hlo_bytes[] = {0x0a, 0x02, 0x80, 0xff};
  static int64_t children[] = {-2, 3};
  XPlane *p = fx_plane(s, 0, "/device:GPU:0");
  fx_smeta(p, S_RATIO, "ratio", "a double stat");
  fx_smeta(p, S_BIG, "big", NULL);
  fx_smeta(p, S_NEG, "neg", NULL);
  fx_smeta(p, S_LABEL, "label", NULL);
  fx_smeta(p, S_BLOB, "blob", NULL);
  fx_smeta(p, S_KIND, "kind", NULL);
  fx_smeta(p, S_HLO_CATEGORY, "hlo_category", NULL);
  fx_smeta(p, S_FLOPS, "flops", NULL);
  fx_smeta(p, S_KERNEL_DETAILS, "kernel_details", NULL);
  fx_smeta(p, S_INTERNED_DETAILS, "regs:32 grid:1,1,1", NULL);
  fx_smeta(p, S_COUNT, "count", NULL);
  fx_smeta(p, S_INTERNED_KIND, "interned kind", NULL);
  fx_plane_stat(p, fx_stat_double(S_RATIO, 2.5));
  fx_plane_stat(p, fx_stat_uint(S_BIG, UINT64_MAX));
  fx_plane_stat(p, fx_stat_uint(S_COUNT, 7));
  fx_plane_stat(p, fx_stat_int(S_NEG, -42));
  fx_plane_stat(p, fx_stat_str(S_LABEL, "GPU zero"));
  fx_plane_stat(p, fx_stat_bytes(S_BLOB, blob, sizeof(blob)));
  fx_plane_stat(p, fx_stat_ref(S_KIND, (uint64_t)(int64_t)S_INTERNED_KIND));

  XEventMetadata *fusion = fx_emeta(p, -1, "%fusion.1 = f32[8]{0} fusion(f32[8]{0} %p0), kind=kLoop", "fusion.1");
  fusion->metadata.data = (uint8_t *)hlo_bytes;
  fusion->metadata.len = sizeof(hlo_bytes);
  fx_emeta_stat(fusion, fx_stat_str(S_HLO_CATEGORY, "loop fusion"));
  fx_emeta_stat(fusion, fx_stat_int(S_FLOPS, 100));
  fusion->child_id = children;
  fusion->n_child_id = 2;
  fx_emeta(p, -2, "gemm", NULL);
  fx_emeta(p, 3, "memcpy", "MemcpyH2D");

  /* Line 0: events out of order; [1000,7000) and [5000,8000) partly overlap. */
  XLine *l0 = fx_line(p, (int64_t)0xAAAAAAAAAAAAAAAAull, "Stream #1(Kernel)", "Stream 1", 1000);
  l0->display_id = 1;
  l0->duration_ps = 9000;
  fx_event_stat(fx_event(l0, -1, 5000, 3000), fx_stat_ref(S_KERNEL_DETAILS, S_INTERNED_DETAILS));
  fx_event(l0, -2, 1000, 6000);
  fx_event_stat(fx_event(l0, 999, 2000, 0), fx_stat_int(S_UNKNOWN, 5)); /* unknown metadata id, instant */

  XLine *l1 = fx_line(p, 2, "Stream #2(Kernel)", NULL, 2000);
  fx_event_stat(fx_event(l1, -1, 0, 10), fx_stat_int(S_FLOPS, 250));
  fx_event_aggregated(l1, 3, 3, 40);
  fx_event_stat(fx_event(l1, -2, 20, 5), fx_stat_ref(S_KERNEL_DETAILS, S_UNKNOWN_REF));
}

static void host_plane(XSpace *s) {
  XPlane *p = fx_plane(s, 0, "/host:CPU");
  fx_smeta(p, 1, "step_num", NULL);
  fx_smeta(p, 2, "empty", NULL);
  fx_emeta(p, 1, "train", NULL);
  XLine *py = fx_line(p, 0, "python", NULL, 500);
  XEvent *e = fx_event(py, 1, 0, 100);
  fx_event_stat(e, fx_stat_int(1, 3));
  fx_event_stat(e, fx_stat_unset(2));
  fx_event_untimed(py, 1, 50);
  fx_line(p, 1, "idle thread", NULL, 0);
}

static void task_environment_plane(XSpace *s) {
  XPlane *p = fx_plane(s, 2, "Task Environment");
  fx_smeta(p, 1, "profile_start_time", NULL);
  fx_smeta(p, 2, "profile_stop_time", NULL);
  fx_plane_stat(p, fx_stat_uint(1, 1700000000000000000ull));
  fx_plane_stat(p, fx_stat_uint(2, 1700000000500000000ull));
}

/* ---- the hand-encoded part ---------------------------------------------- */

/* XSpace{ planes: XPlane{ id: -5, name: "/device:CUSTOM:raw", event_metadata
** { key: 5, value: { id: 5, name: "parent", child_id: 1 (unpacked),
** child_id: [-2, 300] (packed), child_id: 4 (unpacked) } } } }. */
static fx_buf raw_plane(void) {
  fx_buf packed = {0}, em = {0}, entry = {0}, plane = {0}, space = {0};
  fx_put_varint(&packed, (uint64_t)(int64_t)-2);
  fx_put_varint(&packed, 300);
  fx_put_varint_field(&em, 1, 5);
  fx_put_len_field(&em, 2, "parent", 6);
  fx_put_varint_field(&em, 6, 1);
  fx_put_len_field(&em, 6, packed.p, packed.n);
  fx_put_varint_field(&em, 6, 4);
  fx_put_varint_field(&entry, 1, 5);
  fx_put_len_field(&entry, 2, em.p, em.n);
  fx_put_varint_field(&plane, 1, (uint64_t)(int64_t)-5);
  fx_put_len_field(&plane, 2, "/device:CUSTOM:raw", strlen("/device:CUSTOM:raw"));
  fx_put_len_field(&plane, 4, entry.p, entry.n);
  fx_put_len_field(&space, 1, plane.p, plane.n);
  return space;
}

int main(int argc, char **argv) {
  fx_program("make_tiny_xspace");
  if (argc != 2) {
    fprintf(stderr, "usage: make_tiny_xspace OUT.xplane.pb\n");
    return 2;
  }
  XSpace *space = fx_space();
  gpu_plane(space);
  host_plane(space);
  task_environment_plane(space);
  FX_PUSH(space->hostnames, space->n_hostnames, "tiny-host");
  FX_PUSH(space->errors, space->n_errors, "collector: 1 event dropped");
  FX_PUSH(space->warnings, space->n_warnings, "clock \"skew\"");
  FX_PUSH(space->warnings, space->n_warnings, "line\nbreak");
  fx_buf raw = raw_plane();
  fx_write(space, argv[1], raw.p, raw.n);
  return 0;
}
