/*
** fuzz_json.c: libFuzzer target for the JSON trace reader and its gzip path
** (core/json_trace.c, core/xspace_build.c), beside fuzz_decoder.c.
**
**   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DXPLANE_FUZZ=ON
**   cmake --build build-fuzz --target xplane_fuzz_json
**   build-fuzz/tests/fuzz/xplane_fuzz_json corpus/ -dict=build-fuzz/fuzz.dict
** (tests/run_fuzz.sh runs it with JSON seeds, after the decoder target.)
**
** Each input is taken as the text of a trace and converted three ways:
**   plain      the bytes as they are;
**   gzip       the bytes gzip-compressed here (zlib): the conversion must
**              give the same answer: both refused, or byte-identical XSpaces;
**   truncated  that gzip stream cut before its end: always refused, with a
**              message (never a partial trace).
** A refusal must come with a message. An accepted trace must index
** (xp_profile_from_memory: the converter's output is always a valid XSpace
** within the time limits of profile.h), and every event must have a duration
** >= 0 and, when timed, a start strictly within +-XP_TIME_LIMIT_PS.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "json_trace.h"
#include "profile.h"
#include "util.h"

#include "fuzz_common.h"

typedef struct result {
  int ok;
  uint8_t *xspace; /* the converted bytes (ok) */
  int64_t size;
} result;

static result convert(const uint8_t *data, size_t size) {
  result r = {0, NULL, 0};
  xp_json_trace t;
  char *err = NULL;
  int fd = memfd_create("xplane-fuzz-json", MFD_CLOEXEC);
  CHECK(fd >= 0);
  write_all(fd, data, size);
  CHECK(lseek(fd, 0, SEEK_SET) == 0);
  r.ok = xp_json_trace_convert(fd, NULL, &t, &err);
  close(fd);
  if (!r.ok) {
    CHECK(err != NULL && err[0] != 0);
    xp_free(err);
    return r;
  }
  /* an empty XSpace (0 bytes) when nothing in the trace makes a plane */
  CHECK(err == NULL && t.fd >= 0 && t.size >= 0);
  r.size = t.size;
  r.xspace = malloc((size_t)t.size + 1);
  CHECK(r.xspace != NULL);
  CHECK(pread(t.fd, r.xspace, (size_t)t.size, 0) == (ssize_t)t.size);
  close(t.fd);
  xp_free(t.display_time_unit);
  return r;
}

/* gzip of data (a complete stream), malloc'd; *n its size. */
static uint8_t *gzip_of(const uint8_t *data, size_t size, size_t *n) {
  z_stream z;
  memset(&z, 0, sizeof(z));
  CHECK(deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  size_t cap = deflateBound(&z, size) + 64;
  uint8_t *out = malloc(cap);
  CHECK(out != NULL);
  z.next_in = (Bytef *)data;
  z.avail_in = (uInt)size;
  z.next_out = out;
  z.avail_out = (uInt)cap;
  CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
  *n = cap - z.avail_out;
  deflateEnd(&z);
  return out;
}

static void check_indexes(const result *r) {
  char *err = NULL;
  xp_profile *p = xp_profile_from_memory("fuzz-json", r->xspace, (size_t)r->size, &err);
  if (!p) fprintf(stderr, "converted JSON trace refused by the index: %s\n", err);
  CHECK(p != NULL);
  for (int32_t i = 0; i < p->n_planes; i++)
    for (int32_t k = 0; k < p->planes[i].n_lines; k++) {
      const xp_line *ln = &p->planes[i].lines[k];
      xp_event_iter it;
      xp_event ev;
      xp_events_begin(p, ln, &it);
      while (xp_events_next(&it, &ev)) {
        CHECK(ev.duration_ps >= 0);
        if (ev.has_offset) {
          int64_t s = xp_event_start(ln, &ev);
          CHECK(s > -XP_TIME_LIMIT_PS && s < XP_TIME_LIMIT_PS);
          CHECK(s + ev.duration_ps < XP_TIME_LIMIT_PS);
        }
      }
    }
  xp_profile_release(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) return 0; /* text only: gzip is made here */
  result plain = convert(data, size);
  size_t gz_n;
  uint8_t *gz = gzip_of(data, size, &gz_n);
  result packed = convert(gz, gz_n);
  CHECK(plain.ok == packed.ok);
  if (plain.ok) {
    CHECK(plain.size == packed.size && memcmp(plain.xspace, packed.xspace, (size_t)plain.size) == 0);
    if (plain.size > 0) check_indexes(&plain); /* an empty XSpace has nothing to index */
  }
  /* cut inside the stream (the 8-byte trailer at least): always refused */
  if (gz_n > 18) {
    result cut = convert(gz, gz_n - 8 - (size % (gz_n - 18)));
    CHECK(!cut.ok);
  }
  free(gz);
  free(plain.xspace);
  free(packed.xspace);
  return 0;
}
