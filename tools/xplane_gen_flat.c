/*
** xplane_gen_flat.c: a synthetic XPlane profile of a shape other than
** xplane_gen's, for the benchmark beside xprof and xprof-rs (issue 40).
**
**   xplane_gen_flat --out FILE [--events N] [--ops K] [--lines L] [--seed S]
**
** The shape: one device plane and nothing else, many small events, few
** stats each. xplane_gen writes what JAX writes for a training job (a host
** plane with launches and python, several device planes, rich op metadata,
** about 100 bytes per event); this file is the other end of real profiles:
**   /device:GPU:0 (id 1)
**     L lines (default 8) "Stream #k(Kernel)", ids 1..L, all starting at the
**       same timestamp, each a back-to-back run of N / L events (default
**       N = 4,000,000): event j of a line starts where event j-1 ended plus a
**       gap of 0..255 ns and lasts 1..16 us (whole ns), both from the seed;
**     K event metadata entries (default 2,000) named "fusion.<k>"; event j
**       of line l uses op (j * 7 + l * 131 + r) % K, r from the seed;
**     four stats per event: correlation_id (uint64, the event's number in
**       the file from 1), group_id (int64: j / 1000, a "step" of 1,000 ops
**       per line), program_id (int64 42) and hlo_op (a reference stat: the
**       interned op name, the same as the metadata's name);
**   XSpace.hostnames = ["flat0"].
** About 46 bytes per event, so the default file is about 185 MB. Everything
** is deterministic in the seed. On exit it prints one JSON line: path,
** bytes, planes, lines, events (the same fields as xplane_gen's).
*/
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xspace_stream.h"

#define NS 1000 /* ps */

typedef struct flat {
  int64_t events, ops, lines;
  uint64_t seed;
  int64_t *meta;  /* event metadata id of op k */
  int64_t *name;  /* interned name of op k (the hlo_op reference target) */
  int64_t st_corr, st_group, st_program, st_hlo;
} flat;

/* splitmix64: the jitter of event j of line l, a pure function of the seed,
** so the writer's two runs over a line agree. */
static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static int64_t line_events(const flat *f, size_t line) {
  /* N / L each, the first N % L lines one more */
  return f->events / f->lines + ((int64_t)line < f->events % f->lines ? 1 : 0);
}

static void emit(void *ctx, const xs_plane *p, size_t line, xs_sink *s) {
  (void)p;
  const flat *f = ctx;
  int64_t n = line_events(f, line);
  /* correlation ids count events over the file: lines before this one hold
  ** line_events() each */
  uint64_t corr = 1;
  for (size_t l = 0; l < line; l++) corr += (uint64_t)line_events(f, l);
  uint64_t r = mix(f->seed ^ 0x51ed) % (uint64_t)f->ops;
  xs_stat st[4], *ptr[4] = {&st[0], &st[1], &st[2], &st[3]};
  int64_t t = 0;
  for (int64_t j = 0; j < n; j++) {
    uint64_t h = mix(f->seed ^ ((uint64_t)line << 40) ^ (uint64_t)j);
    int64_t gap = (int64_t)(h & 0xff) * NS, dur = (int64_t)(1000 + ((h >> 8) % 15001)) * NS;
    int64_t op = (int64_t)(((uint64_t)j * 7 + (uint64_t)line * 131 + r) % (uint64_t)f->ops);
    t += gap;
    xs_ev ev = TENSORFLOW__PROFILER__XEVENT__INIT;
    ev.metadata_id = f->meta[op];
    ev.data_case = TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS;
    ev.offset_ps = t;
    ev.duration_ps = dur;
    xs_stat_uint(&st[0], f->st_corr, corr + (uint64_t)j);
    xs_stat_int(&st[1], f->st_group, j / 1000);
    xs_stat_int(&st[2], f->st_program, 42);
    xs_stat_ref(&st[3], f->st_hlo, f->name[op]);
    ev.stats = ptr;
    ev.n_stats = 4;
    xs_event(s, &ev);
    t += dur;
  }
}

static void usage(FILE *to) {
  fputs("usage: xplane_gen_flat --out FILE [--events N] [--ops K] [--lines L] [--seed S]\n"
        "  --out FILE   the .xplane.pb to write (required)\n"
        "  --events N   events in the file, 1..100000000 (default 4000000)\n"
        "  --ops K      distinct op names, 1..1000000 (default 2000)\n"
        "  --lines L    device lines, 1..1024 (default 8)\n"
        "  --seed S     0..2^64-1 (default 1)\n",
        to);
}

static int64_t num(const char *opt, const char *v, int64_t lo, int64_t hi) {
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (errno || end == v || *end || x < lo || x > hi) {
    fprintf(stderr, "xplane_gen_flat: %s wants an integer in %" PRId64 "..%" PRId64 ", not '%s'\n",
            opt, lo, hi, v);
    exit(2);
  }
  return x;
}

int main(int argc, char **argv) {
  flat f = {.events = 4000000, .ops = 2000, .lines = 8, .seed = 1};
  const char *out = NULL;
  static const struct option longopts[] = {{"out", required_argument, NULL, 'o'},
                                           {"events", required_argument, NULL, 'n'},
                                           {"ops", required_argument, NULL, 'k'},
                                           {"lines", required_argument, NULL, 'l'},
                                           {"seed", required_argument, NULL, 's'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    switch (c) {
      case 'o': out = optarg; break;
      case 'n': f.events = num("--events", optarg, 1, 100000000); break;
      case 'k': f.ops = num("--ops", optarg, 1, 1000000); break;
      case 'l': f.lines = num("--lines", optarg, 1, 1024); break;
      case 's': {
        char *end;
        errno = 0;
        f.seed = strtoull(optarg, &end, 10);
        if (errno || end == optarg || *end || *optarg == '-') {
          fprintf(stderr, "xplane_gen_flat: --seed wants 0..2^64-1, not '%s'\n", optarg);
          return 2;
        }
        break;
      }
      case 'h': usage(stdout); return 0;
      default: usage(stderr); return 2;
    }
  }
  if (!out || optind < argc) {
    usage(stderr);
    return 2;
  }
  xs_plane *p = xs_plane_new(1, "/device:GPU:0");
  f.st_corr = xs_intern(p, "correlation_id");
  f.st_group = xs_intern(p, "group_id");
  f.st_program = xs_intern(p, "program_id");
  f.st_hlo = xs_intern(p, "hlo_op");
  f.meta = malloc((size_t)f.ops * sizeof *f.meta);
  f.name = malloc((size_t)f.ops * sizeof *f.name);
  if (!f.meta || !f.name) xs_die("out of memory");
  for (int64_t k = 0; k < f.ops; k++) {
    char nm[32];
    snprintf(nm, sizeof nm, "fusion.%" PRId64, k);
    f.meta[k] = xs_event_meta(p, nm, NULL);
    f.name[k] = xs_intern(p, nm);
  }
  for (int64_t l = 0; l < f.lines; l++) {
    char nm[48];
    snprintf(nm, sizeof nm, "Stream #%" PRId64 "(Kernel)", l + 1);
    xs_add_line(p, l + 1, nm, 1700000000000000000LL, 0, 0);
  }
  FILE *fp = fopen(out, "wb");
  if (!fp) xs_die("cannot create %s: %s", out, strerror(errno));
  xs_sink s;
  if (xs_sink_file(&s, fp)) xs_die("out of memory");
  xs_counts counts = {0, 0, 0};
  xs_write_plane(&s, p, emit, &f, &counts);
  xs_string_field(&s, 4, "flat0");
  uint64_t bytes = s.bytes;
  int err = xs_sink_close(&s);
  if (fclose(fp) && !err) err = errno;
  if (err) xs_die("writing %s: %s", out, strerror(err));
  printf("{\"path\":");
  xs_print_json_string(out);
  printf(",\"bytes\":%" PRIu64 ",\"planes\":%" PRIu64 ",\"lines\":%" PRIu64
         ",\"events\":%" PRIu64 "}\n",
         bytes, counts.planes, counts.lines, counts.events);
  xs_plane_free(p);
  free(f.meta);
  free(f.name);
  return 0;
}
