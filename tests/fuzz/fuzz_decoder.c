/*
** fuzz_decoder.c: libFuzzer target for the XSpace decoder core.
**
**   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DXPLANE_FUZZ=ON
**   cmake --build build-fuzz --target xplane_fuzz
**   build-fuzz/tests/fuzz/xplane_fuzz corpus/ -max_len=4194304
** (tests/run_fuzz.sh does all of this with a seed corpus and a time bound.)
**
** Each input goes to xp_profile_from_memory(). A rejected input must come
** back with an error message naming the input. An accepted one is then
** scanned with every scanning API (events of every line, event / plane /
** metadata stats, child ids, both id lookups, every string of the index is
** read byte by byte), which fuzzes profile.h's contract that a validated
** profile is safe to scan; and the scans must agree with the counts and time
** bounds the index recorded, or the target aborts.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "sqlite3.h"

#define FUZZ_NAME "fuzz-input"

/* Abort (a libFuzzer crash) when an invariant of the index does not hold. */
#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      abort();                                                             \
    }                                                                      \
  } while (0)

/* Every byte of every string is read, so ASan sees a pointer out of bounds. */
static volatile uint64_t sink;

static void touch(xp_str s) {
  uint64_t h = 0;
  CHECK(s.p != NULL || s.n == 0);
  for (size_t i = 0; i < s.n; i++) h = h * 31 + (uint8_t)s.p[i];
  sink += h;
}

static void touch_stats(const xp_statvec *sv, xp_origin lo, xp_origin hi) {
  for (int i = 0; i < sv->n; i++) {
    const xp_stat *s = &sv->v[i];
    CHECK(s->type >= XP_V_NONE && s->type <= XP_V_REF);
    CHECK(s->origin >= lo && s->origin <= hi);
    touch(s->name);
    if (s->type == XP_V_STR || s->type == XP_V_BYTES || s->type == XP_V_REF) touch(s->s);
    sink += s->num.u + s->ref;
  }
  /* The last stat of a name is what a lookup finds. */
  if (sv->n > 0 && sv->v[sv->n - 1].name.n > 0 && sv->v[sv->n - 1].name.n < 64) {
    char name[64];
    memcpy(name, sv->v[sv->n - 1].name.p, sv->v[sv->n - 1].name.n);
    name[sv->v[sv->n - 1].name.n] = 0;
    if (strlen(name) == sv->v[sv->n - 1].name.n) CHECK(xp_statvec_find(sv, name) != NULL);
  }
}

/* The events of one line: counts and time bounds agree with the index. */
static void scan_line(const xp_profile *p, const xp_plane *pl, const xp_line *ln, xp_statvec *sv) {
  xp_event_iter it;
  xp_event ev;
  int64_t n = 0, timed = 0;
  int64_t min_off = INT64_MAX, max_off = INT64_MIN, max_end = INT64_MIN;
  touch(ln->name);
  touch(ln->display_name);
  xp_events_begin(p, ln, &it);
  while (xp_events_next(&it, &ev)) {
    n++;
    CHECK(!(ev.has_offset && ev.has_occurrences));
    CHECK(ev.msg >= p->base && ev.msg + ev.msg_n <= p->base + p->size);
    if (ev.has_offset) {
      int64_t end = (int64_t)((uint64_t)ev.offset_ps + (uint64_t)ev.duration_ps);
      timed++;
      if (ev.offset_ps < min_off) min_off = ev.offset_ps;
      if (ev.offset_ps > max_off) max_off = ev.offset_ps;
      if (end > max_end) max_end = end;
    }
    const xp_event_meta *em = xp_plane_event_meta(pl, ev.metadata_id);
    if (em) CHECK(em->id == ev.metadata_id);
    CHECK(xp_event_stats(p, pl, &ev, sv));
    touch_stats(sv, XP_ORIGIN_METADATA, XP_ORIGIN_EVENT);
  }
  CHECK(it.r.err == XP_WIRE_OK);
  CHECK(n == ln->n_events);
  CHECK(timed == ln->n_timed);
  if (timed) {
    uint64_t base = (uint64_t)ln->timestamp_ns * 1000u;
    CHECK(ln->min_start_ps == (int64_t)((uint64_t)min_off + base));
    CHECK(ln->max_start_ps == (int64_t)((uint64_t)max_off + base));
    CHECK(ln->max_end_ps == (int64_t)((uint64_t)max_end + base));
  } else {
    CHECK(ln->min_start_ps == INT64_MAX && ln->max_start_ps == INT64_MIN && ln->max_end_ps == INT64_MIN);
  }
}

static void scan_plane(const xp_profile *p, const xp_plane *pl, xp_statvec *sv) {
  int64_t n_events = 0;
  touch(pl->name);
  CHECK(xp_plane_stats(p, pl, sv));
  CHECK(sv->n == pl->n_stats);
  touch_stats(sv, XP_ORIGIN_PLANE, XP_ORIGIN_PLANE);
  for (int32_t i = 0; i < pl->n_lines; i++) {
    scan_line(p, pl, &pl->lines[i], sv);
    n_events += pl->lines[i].n_events;
  }
  CHECK(n_events == pl->n_events);
  for (int32_t i = 0; i < pl->n_emeta; i++) {
    const xp_event_meta *em = &pl->emeta[i];
    const xp_event_meta *found = xp_plane_event_meta(pl, em->id);
    CHECK(found != NULL && found->id == em->id);
    touch(em->name);
    touch(em->display_name);
    touch(em->metadata);
    CHECK(xp_meta_stats(p, pl, em, sv));
    CHECK(sv->n == em->n_stats);
    touch_stats(sv, XP_ORIGIN_METADATA, XP_ORIGIN_METADATA);
    CHECK(em->n_children >= 0);
    if (em->n_children > 0) {
      /* One sentinel past the end: xp_meta_children must stop at n_children. */
      int64_t *kids = malloc(((size_t)em->n_children + 1) * sizeof(int64_t));
      CHECK(kids != NULL);
      kids[em->n_children] = 0x5a5a5a5a;
      xp_meta_children(p, em, kids);
      CHECK(kids[em->n_children] == 0x5a5a5a5a);
      for (int32_t k = 0; k < em->n_children; k++) sink += (uint64_t)kids[k];
      free(kids);
    }
  }
  for (int32_t i = 0; i < pl->n_smeta; i++) {
    const xp_stat_meta *sm = &pl->smeta[i];
    const xp_stat_meta *found = xp_plane_stat_meta(pl, sm->id);
    CHECK(found != NULL && found->id == sm->id);
    touch(sm->name);
    touch(sm->description);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *err = NULL;
  xp_profile *p = xp_profile_from_memory(FUZZ_NAME, data, size, &err);
  if (!p) {
    CHECK(err != NULL);
    CHECK(strncmp(err, FUZZ_NAME ": ", strlen(FUZZ_NAME ": ")) == 0);
    CHECK(strlen(err) > strlen(FUZZ_NAME ": "));
    sqlite3_free(err);
    return 0;
  }
  CHECK(err == NULL);
  xp_statvec sv = {0};
  int64_t n_lines = 0, n_events = 0;
  for (int32_t i = 0; i < p->n_planes; i++) {
    scan_plane(p, &p->planes[i], &sv);
    n_lines += p->planes[i].n_lines;
    n_events += p->planes[i].n_events;
  }
  CHECK(n_lines == p->n_lines);
  CHECK(n_events == p->n_events);
  for (int32_t i = 0; i < p->n_errors; i++) touch(p->errors[i]);
  for (int32_t i = 0; i < p->n_warnings; i++) touch(p->warnings[i]);
  for (int32_t i = 0; i < p->n_hostnames; i++) touch(p->hostnames[i]);
  xp_statvec_free(&sv);
  xp_profile_release(p);
  return 0;
}
