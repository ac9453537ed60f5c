/*
** core_sort.c: xp_sort (core/util.h) against an independent stable sort.
**
** xp_sort is a stable merge sort whose first pass sorts runs of 16 by
** insertion (elements up to 64 bytes). The expected order comes from qsort
** on (key, original position), which is the one stable order. Arrays of
** 0 .. 100,000 elements, keys drawn from a small range (many ties, so a
** stability slip shows), elements of 24 bytes (with the insertion runs) and
** of 80 bytes (without), presorted, reversed and random inputs.
**
**   core_sort        # prints "core_sort: N passed, 0 failed"; exit 1 on a failure
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct small { int64_t key, pos, pad; } small;            /* 24 bytes */
typedef struct big { int64_t key, pos, pad[8]; } big;             /* 80 bytes */

static int by_key_small(const void *a, const void *b) {
  const small *x = a, *y = b;
  return x->key < y->key ? -1 : x->key > y->key;
}
static int by_key_pos_small(const void *a, const void *b) {
  const small *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}
static int by_key_big(const void *a, const void *b) {
  const big *x = a, *y = b;
  return x->key < y->key ? -1 : x->key > y->key;
}
static int by_key_pos_big(const void *a, const void *b) {
  const big *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static uint64_t rng = 88172645463325252ull;
static int64_t next_key(int64_t range) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (int64_t)(rng % (uint64_t)range);
}

static int passed, failed;

static int64_t key_of(int shape, int64_t i, int64_t n, int64_t range) {
  if (shape == 0) return i / 3;          /* presorted, with ties */
  if (shape == 1) return (n - i) / 3;    /* reversed, with ties */
  return next_key(range);                /* random */
}

static void check(const char *what, int64_t n, int shape, int ok) {
  if (ok) passed++;
  else {
    failed++;
    printf("FAIL %s n=%lld shape=%d: not the stable order\n", what, (long long)n, shape);
  }
}

int main(void) {
  static const int64_t sizes[] = {0, 1, 2, 15, 16, 17, 31, 33, 100, 4095, 4097, 100000};
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    for (int shape = 0; shape < 3; shape++) {
      int64_t n = sizes[si], range = n / 4 + 1;
      small *a = malloc(sizeof(small) * (size_t)(n + 1)), *want = malloc(sizeof(small) * (size_t)(n + 1));
      big *b = malloc(sizeof(big) * (size_t)(n + 1)), *wantb = malloc(sizeof(big) * (size_t)(n + 1));
      for (int64_t i = 0; i < n; i++) {
        memset(&a[i], 0, sizeof a[i]);
        memset(&b[i], 0, sizeof b[i]);
        a[i].key = b[i].key = key_of(shape, i, n, range);
        a[i].pos = b[i].pos = i;
      }
      memcpy(want, a, sizeof(small) * (size_t)n);
      memcpy(wantb, b, sizeof(big) * (size_t)n);
      qsort(want, (size_t)n, sizeof(small), by_key_pos_small);
      qsort(wantb, (size_t)n, sizeof(big), by_key_pos_big);
      int ok = xp_sort(a, n, sizeof(small), by_key_small) == 1 && memcmp(a, want, sizeof(small) * (size_t)n) == 0;
      check("24-byte elements", n, shape, ok);
      ok = xp_sort(b, n, sizeof(big), by_key_big) == 1 && memcmp(b, wantb, sizeof(big) * (size_t)n) == 0;
      check("80-byte elements", n, shape, ok);
      free(a), free(want), free(b), free(wantb);
    }
  printf("core_sort: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
