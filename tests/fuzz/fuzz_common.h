/*
** fuzz_common.h: what the libFuzzer targets share (fuzz_decoder.c,
** fuzz_json.c): CHECK, which aborts (a libFuzzer crash) when an invariant
** does not hold, and write_all into a descriptor.
*/
#ifndef XPLANE_FUZZ_COMMON_H
#define XPLANE_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      abort();                                                                      \
    }                                                                               \
  } while (0)

static inline void write_all(int fd, const uint8_t *data, size_t size) {
  for (size_t off = 0; off < size;) {
    ssize_t w = write(fd, data + off, size - off);
    CHECK(w > 0);
    off += (size_t)w;
  }
}

#endif
