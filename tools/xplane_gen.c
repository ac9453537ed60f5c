/*
** xplane_gen.c: synthetic XPlane profiles shaped like the ones JAX writes, from
** a few KB up to 2 GB per host file, byte-identical for the same options and
** seed. For tests and benchmarks of the extension and the canned analysis.
**
**   xplane_gen --out DIR [--run NAME] [--style gpu|tpu] [--hosts N]
**              [--devices N] [--steps N] [--ops-per-step N] [--target-mb M]
**              [--seed S] [--heavy-every K]
**
**   --out DIR          logdir root (required); files go to
**                      DIR/plugins/profile/RUN/hostH.xplane.pb, H = 0..N-1,
**                      and the module's HLO proto beside them (below)
**   --run NAME         run directory (default run1)
**   --style gpu|tpu    what the profiler of that platform writes (default gpu)
**   --hosts N          host files, 1..256 (default 1)
**   --devices N        accelerators per host, 1..64 (default 4)
**   --steps N          training steps, 1..10^7 (default 20); a file must stay
**                      under the 2 GiB protobuf limit (else exit 2)
**   --ops-per-step N   HLO ops per step, 16..20000 (default 100)
**   --target-mb M      make each host file about M MB (10^6 bytes), 1..2048:
**                      the NUMBER OF STEPS is chosen (ops per step stay);
**                      an explicit --steps is then a minimum. The size comes
**                      from counting runs of parts of the file: typically
**                      within 1 % (2 % for files under ~10 MB).
**   --seed S           0..2^64-1 (default 1): all timing jitter comes from it
**   --heavy-every K    every K-th step is heavy (0 = none, default 5)
**
** stdout: one JSON line per file written, with the exact counts written:
**   {"path":"DIR/plugins/profile/run1/host0.xplane.pb","host":"host0",
**    "run":"run1","style":"gpu","steps":20,"ops_per_step":100,
**    "bytes":1234567,"planes":6,"lines":17,"events":32840}
** Exit status: 0 ok, 1 write failure, 2 bad command line.
**
** One training program (module jit_train_step, program id 1234) of N ops
** runs S times on D devices per host. Op slot i is one HLO instruction: a
** forward half (name stacks jit(train_step)/jvp(model)/layer_L/...), a
** backward half (jit(train_step)/transpose(jvp(model))/layer_L/...) with the
** gradient all-reduces, and the optimizer (jit(train_step)/optimizer/adam/..)
** in the last W = clamp(N/8, 2, 6) slots. C = the number of all-reduce slots:
** slots in [N/2, N-W) with i % 8 == 7 other than the hot slot, or slot N-W-1
** when there is none.
**
** GPU files (what CUPTI + the JAX tracer record), S steps, D devices:
**   /device:GPU:d (id d), plane stats device_vendor, clock_rate, ...
**     Stream #(16+3d)(Kernel)    N-C kernels per step
**     Stream #(17+3d)(Kernel)    C NCCL all-reduce kernels per step
**     Stream #(18+3d)(MemcpyH2D) one CopyHostToDevice per step
**     kernel stats: correlation_id (uint64), kernel_details, tf_op, hlo_op,
**     hlo_module (all four ref_value: interned in stat_metadata), program_id
**     (int64); the copy: correlation_id, memcpy_details (ref). Kernels are
**     named by their HLO instruction (fusion.3, transpose.4, iota.8, ...),
**     except library kernels: matmuls (hlo_op custom-call.<i>) use 3 shared
**     cuBLAS kernel names, all-reduces ncclDevKernel_AllReduce_Sum_f32_RING_LL.
**     The attn/out matmuls (slots i % 8 == 3 that are plain matmuls) are
**     Triton GEMM fusions instead: kernel and hlo_op gemm_fusion_dot.<i>,
**     tf_op `command_buffer` (a generic path, as kernels replayed from a
**     command buffer are attributed): the HLO proto gives them their name
**     stack (the reference's rewrite, xplane_hlo_op_paths).
**   /host:CPU
**     python                     per step: train (stats step_num int64, _r
**                                int64 1: the StepTraceAnnotation) and
**                                PjitFunction(train_step)
**     Host Threads/<tid> (one per device) per step:
**                                PjRtStreamExecutorLoadedExecutable::Execute,
**                                cuMemcpyHtoDAsync_v2 and N cuLaunchKernel, with
**                                device_id, correlation_id (uint64, equal to
**                                the device event's), hlo_op, hlo_module,
**                                program_id
**     py_xla_execute/<tid> (one per device) memory events (below),
**                                allocator_name GPU_<d>_bfc (ref)
**   Task Environment             profile_start_time, profile_stop_time (uint64 ns)
**   planes D+2, lines 5D+1, events S*(D*(2N+11)+2)+D
** TPU files (what libtpu records):
**   /device:TPU:d (id 2+8d)
**     Steps (id -559038737)      one event per step, named "0", "1", ...
**     XLA Modules                one jit_train_step(1234) event per step
**                                (stats run_id, replica_id)
**     XLA Ops                    N ops per step plus a while.N op nesting the
**                                optimizer slots; all op facts on the event
**                                METADATA (name = the HLO text, display_name
**                                = the short name, stats hlo_category,
**                                program_id, flops, bytes_accessed,
**                                shape_with_layout, tf_op, source); events
**                                carry device_offset_ps, device_duration_ps
**     Async XLA Ops              8 async copies per step (copy-start.0..7),
**                                each partially overlapping the next
**   /host:CPU: main/<tid> (train + PjitFunction(train_step) per step),
**              pjrt-tpu-tasks/<tid> (DoEnqueueProgram per device per step),
**              py_xla_execute/<tid> (one per device: memory events, below,
**              with index_on_host d)
**   Task Environment
**   planes D+2, lines 5D+2, events S*(D*(N+20)+2)+D
**   TPU FLOPs and bytes: flops = f x 197 FLOP/ps x the op's nominal
**   duration, bytes_accessed = b x 0.819 byte/ps x it (the plane's peaks:
**   197 TFLOP/s, 819 GB/s), with (f, b) per op kind: matmul (0.6, 0.15),
**   hot fusion (0.7, 0.1), payload convolution (0.5, 0.2), loop fusion
**   (0.02, 0.6), optimizer (0.01, 0.7), all-reduce (0.01, 0.3), transpose
**   (0, 0.5), iota (0, 0.05). Every occurrence lasts over 0.9x its nominal
**   duration, so achieved rates stay under 78 % of a peak; f/b >= 1 makes
**   an op compute-bound on the roofline (ridge = peak FLOP/s / peak bytes/s).
** Memory events (both styles; MemoryAllocation / MemoryDeallocation instants
** on the device's host memory line): stats bytes_allocated (in use after),
** allocation_bytes = requested_bytes (the buffer), peak_bytes_in_use (the
** running peak), bytes_available (16 GiB TPU / the GPU's memory_size, less
** what is in use), fragmentation 0.0, addr. The weights, W = 2 GiB, are
** allocated 100 us before step 0; in step s, buffers of 1, 2, 3, 4 x 64 MiB
** (x2 in heavy steps) are allocated 2, 4, 6, 8 us after the step starts and
** freed, last first, 8, 6, 4, 2 us before it ends. So per allocator: 1 + 4S
** allocations, 4S deallocations, final in use W, peak W + 640 MiB (reached
** in step 0) or, with a heavy step, W + 1280 MiB, reached 8 us into the
** first heavy step (K-1).
** The HLO proto: DIR/plugins/profile/RUN/jit_train_step.hlo_proto.pb, an
** xla.HloProto (module jit_train_step, id 1234) with one entry computation
** `main`: one instruction per op slot (ids 1..N, named as the device lines
** name the op: TPU display name, GPU hlo_op), plus the while loop on TPU (the
** root); opcode, shape, fusion kind, custom-call target, and metadata
** op_type (the JAX primitive), op_name (the name stack), source_file
** model.py, source_line.
** Every file ends with XSpace.hostnames = [hostH].
**
** Injected features (deterministic; the analysis must find them):
** 1. Dominant hot op: the slot at 5N/8 lasts 0.45x the sum of all other
**    compute ops (31 % of compute), so its name has by far the largest total
**    time on device op lines: TPU `fusion.hot` (hlo_category convolution
**    fusion); GPU kernel (hlo_op `custom-call.hot`)
**    sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas
** 2. Pre-op gap: in every step, on every device, the compute line idles
**    max(8% of the nominal step compute, 400 us GPU / 200 us TPU) (+-10%)
**    before slot N/4, the marker `iota.<N/4>` (8 us), which is immediately
**    followed (start == iota end) by the payload `convolution.payload` (60 us).
**    On GPU the host causes it: the launch thread waits for the device, then
**    stalls, before launching the iota. It is the largest gap of the TPU
**    op lines and of the GPU compute stream (the GPU collective and copy
**    streams idle between their sparse events by nature).
** 3. Heavy steps: step s is heavy when K > 0 and s % K == K-1; every compute
**    op and the injected gap of a heavy step last 2x, so the step is about 2x
**    longer.
** 4. Communication-heavy phase: steps [S/2, S/2 + max(1, S/5)) (integer
**    division) run their all-reduces 4x longer: all-reduce time is 7% of the
**    nominal compute elsewhere, 28% there. On GPU they overlap compute on
**    their own stream; on TPU they are in line and lengthen the step.
** Problems injected on request (--inject LIST, comma-separated; none by
** default, so the default files stay clean for xplane_findings; host-bound,
** transfers, tiny and sync need --style gpu, memory-bound --style tpu). The
** constants are the INJ_* below:
**   recompile  before step 0, the host's python/main line has 3
**              `PjitFunction(train_step)` calls 25 ms apart, each enclosing one
**              `backend_compile` of exactly 20 ms (steps start 75 ms later),
**              which encloses a `PjRtCompiler::Compile` of 10 ms (as libtpu's
**              backend_compile encloses TfrtTpuCompiler::Compile)
**   host-bound in steps s % 4 == 0, the launch thread spends exactly 3 ms in
**              `host_preprocess` (inside Execute) before launching anything
**   transfers  the input copy lasts exactly 600 us (32 MiB, HtoD), and each
**              step ends with a `CopyDeviceToHost` of exactly 300 us (16 MiB,
**              memcpy_details "kind:DtoH size:16777216 ..."), launched by
**              cuMemcpyDtoHAsync_v2 after the last kernel launch
**   tiny       every even slot other than the payload and the hot op runs
**              exactly 2 us (GPU compute kernels; N=100: 48 per step)
**   sync       in steps s % 3 == 2 the python line calls `block_until_ready`
**              from 20 us after the step starts until 10 us before its end
**              (the devices are done), then the host pauses 2 ms more before
**              the next step
**   memory-bound  the hot op `fusion.hot` (TPU) declares flops and
**              bytes_accessed both equal to the bytes its shapes move,
**              2 x (8192x1024 + 1024x4096 + 8192x4096) = 92274688 each run
**              (instead of the fractions of peak below): 1 FLOP per byte, far below
**              the ridge point 197e12 / 819e9 = 240.5 FLOP/byte of the
**              plane's peaks, so the roofline calls it memory-bound
** Durations jitter +-8% per op occurrence (seeded). GPU times are whole ns,
** TPU times whole 1250 ps cycles.
**
** Memory stays small at any size: planes are streamed one line at a time
** (xspace_stream.h) and every random quantity is a pure hash of its
** coordinates (seed, host, device, step, slot), so each line can be generated
** twice (sized, then written) without being kept.
*/
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hlo.pb-c.h"
#include "xspace_stream.h"

#define US 1000000LL /* picoseconds per microsecond */
#define PROGRAM_ID 1234
#define MODULE_NAME "jit_train_step"
#define MIN_OPS 16
#define MAX_OPS 20000
#define TPU_ASYNC 8           /* async copies per step */
#define TPU_CYCLE 1250        /* ps */
#define GPU_TICK 1000         /* ps */
#define STEPS_LINE_ID (-559038737LL)
#define GPU_LAUNCH_LATENCY (5 * US)
#define GPU_HOT_KERNEL                                                                         \
  "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_warpgroupsize2x1x1_execute_"    \
  "segment_k_off_kernel__5x_cublas"
#define NCCL_KERNEL "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
/* Peak rates written on TPU device planes (TPU v5 lite): FLOPs per ps and bytes per ps. */
#define TPU_PEAK_TFLOPS 197.0
#define TPU_PEAK_HBM_GBPS 819.0
/* Memory events (one allocator per device; see the header). */
#define MEM_WEIGHTS 2147483648LL     /* the parameters, allocated once */
#define MEM_ACT 67108864LL           /* activation unit: allocations 1..4 units per step */
#define MEM_ACT_SUM (10 * MEM_ACT)   /* (1+2+3+4) units */
#define MEM_CAP_TPU 17179869184LL    /* 16 GiB of HBM */
#define MEM_CAP_GPU 85520809984LL    /* the GPU plane's memory_size */
#define MEM_ADDR_BASE 0x7f0000000000ULL
#define HLO_FILE "jit_train_step.hlo_proto.pb"

/* cuBLAS kernels of the ordinary matmul slots (round robin). */
static const char *const gemm_kernels[3] = {
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize64x128x64_warpgroupsize1x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
};

/* ------------------------------------------------------------------ options */

typedef enum { STYLE_GPU, STYLE_TPU } style_t;

typedef struct options {
  const char *out, *run;
  style_t style;
  int64_t hosts, devices, steps, ops, target_mb, heavy_every;
  int steps_given; /* --steps was on the command line */
  unsigned inject;  /* INJ_* bits (--inject) */
  uint64_t seed;
} options;

static void usage(FILE *f) {
  fputs("usage: xplane_gen --out DIR [--run NAME] [--style gpu|tpu] [--hosts N]\n"
        "                  [--devices N] [--steps N] [--ops-per-step N] [--target-mb M]\n"
        "                  [--seed S] [--heavy-every K] [--inject LIST]\n"
        "Writes synthetic JAX-like XPlane profiles to DIR/plugins/profile/NAME/hostH.xplane.pb\n"
        "and prints one JSON line per file (path, bytes, planes, lines, events).\n"
        "  --out DIR          logdir root (required)\n"
        "  --run NAME         run directory name (default run1)\n"
        "  --style gpu|tpu    profile shape (default gpu)\n"
        "  --hosts N          host files, 1..256 (default 1)\n"
        "  --devices N        devices per host, 1..64 (default 4)\n"
        "  --steps N          training steps, 1..10000000 (default 20)\n"
        "  --ops-per-step N   HLO ops per step, 16..20000 (default 100)\n"
        "  --target-mb M      choose the number of steps so each file is about M MB\n"
        "                     (10^6 bytes), 1..2048; an explicit --steps is then a minimum\n"
        "  --seed S           random seed, 0..2^64-1 (default 1)\n"
        "  --heavy-every K    every K-th step runs 2x longer, 0 = none (default 5)\n"
        "  --inject LIST      inject problems, comma-separated: recompile, host-bound,\n"
        "                     transfers, tiny, sync (these four need --style gpu),\n"
        "                     memory-bound (needs --style tpu)\n"
        "  --help             this text\n"
        "Injected features and file layout: see the header of tools/xplane_gen.c.\n",
        f);
}

static void bad_usage(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void bad_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("xplane_gen: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputs("\nTry 'xplane_gen --help'.\n", stderr);
  va_end(ap);
  exit(2);
}

static int64_t parse_int(const char *flag, const char *v, int64_t lo, int64_t hi) {
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (errno || end == v || *end || x < lo || x > hi)
    bad_usage("%s wants an integer in %lld..%lld, not '%s'", flag, (long long)lo, (long long)hi, v);
  return x;
}

/* --inject: the problems to inject (see the header). */
enum { INJ_RECOMPILE = 1, INJ_HOST_BOUND = 2, INJ_TRANSFERS = 4, INJ_TINY = 8, INJ_SYNC = 16, INJ_MEMORY_BOUND = 32 };
#define INJ_COMPILES 3
#define INJ_COMPILE_PS (20000 * US)
#define INJ_COMPILE_EVERY (25000 * US)
#define INJ_HOST_BOUND_EVERY 4
#define INJ_HOST_PREP_PS (3000 * US)
#define INJ_H2D_PS (600 * US)
#define INJ_D2H_PS (300 * US)
#define INJ_D2H_BYTES 16777216
#define INJ_TINY_PS (2 * US)
#define INJ_SYNC_EVERY 3
#define INJ_SYNC_PAUSE_PS (2000 * US)

static unsigned parse_inject(const char *list) {
  static const char *const names[] = {"recompile", "host-bound", "transfers", "tiny", "sync", "memory-bound"};
  unsigned bits = 0;
  const char *p = list;
  for (;;) {
    size_t n = strcspn(p, ",");
    int k = 0;
    while (k < 6 && !(strlen(names[k]) == n && strncmp(p, names[k], n) == 0)) k++;
    if (k == 6)
      bad_usage("--inject wants recompile, host-bound, transfers, tiny, sync or memory-bound, not '%.*s'", (int)n, p);
    bits |= 1u << k;
    if (!p[n]) break;
    p += n + 1;
  }
  return bits;
}

static void parse_options(int argc, char **argv, options *o) {
  enum { O_OUT = 1, O_RUN, O_STYLE, O_HOSTS, O_DEVICES, O_STEPS, O_OPS, O_TARGET, O_SEED,
         O_HEAVY, O_INJECT, O_HELP };
  static const struct option longopts[] = {
      {"out", required_argument, NULL, O_OUT},
      {"run", required_argument, NULL, O_RUN},
      {"style", required_argument, NULL, O_STYLE},
      {"hosts", required_argument, NULL, O_HOSTS},
      {"devices", required_argument, NULL, O_DEVICES},
      {"steps", required_argument, NULL, O_STEPS},
      {"ops-per-step", required_argument, NULL, O_OPS},
      {"target-mb", required_argument, NULL, O_TARGET},
      {"seed", required_argument, NULL, O_SEED},
      {"heavy-every", required_argument, NULL, O_HEAVY},
      {"inject", required_argument, NULL, O_INJECT},
      {"help", no_argument, NULL, O_HELP},
      {NULL, 0, NULL, 0}};
  *o = (options){.run = "run1", .style = STYLE_GPU, .hosts = 1, .devices = 4, .steps = 20,
                 .ops = 100, .heavy_every = 5, .seed = 1};
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
    const char *flag = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    switch (c) {
      case O_OUT: o->out = optarg; break;
      case O_RUN:
        if (!*optarg || strchr(optarg, '/') || !strcmp(optarg, ".") || !strcmp(optarg, ".."))
          bad_usage("--run wants a plain directory name, not '%s'", optarg);
        o->run = optarg;
        break;
      case O_STYLE:
        if (!strcmp(optarg, "gpu")) o->style = STYLE_GPU;
        else if (!strcmp(optarg, "tpu")) o->style = STYLE_TPU;
        else bad_usage("--style wants gpu or tpu, not '%s'", optarg);
        break;
      case O_HOSTS: o->hosts = parse_int("--hosts", optarg, 1, 256); break;
      case O_DEVICES: o->devices = parse_int("--devices", optarg, 1, 64); break;
      case O_STEPS:
        o->steps = parse_int("--steps", optarg, 1, 10000000);
        o->steps_given = 1;
        break;
      case O_OPS: o->ops = parse_int("--ops-per-step", optarg, MIN_OPS, MAX_OPS); break;
      case O_TARGET: o->target_mb = parse_int("--target-mb", optarg, 1, 2048); break;
      case O_HEAVY: o->heavy_every = parse_int("--heavy-every", optarg, 0, 1000000); break;
      case O_INJECT: o->inject |= parse_inject(optarg); break;
      case O_SEED: {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(optarg, &end, 10);
        if (errno || end == optarg || *end || *optarg == '-')
          bad_usage("--seed wants an integer in 0..2^64-1, not '%s'", optarg);
        o->seed = x;
        break;
      }
      case O_HELP: usage(stdout); exit(0);
      case ':': bad_usage("%s needs a value", flag);
      default: bad_usage("unknown option '%s'", flag);
    }
  }
  if (optind < argc) bad_usage("unexpected argument '%s'", argv[optind]);
  if (!o->out || !*o->out) bad_usage("--out DIR is required");
  if ((o->inject & ~(INJ_RECOMPILE | INJ_MEMORY_BOUND)) && o->style != STYLE_GPU)
    bad_usage("--inject host-bound, transfers, tiny and sync need --style gpu");
  if ((o->inject & INJ_MEMORY_BOUND) && o->style != STYLE_TPU)
    bad_usage("--inject memory-bound needs --style tpu (GPU planes carry no peak FLOP rate)");
}

/* -------------------------------------------------------------------- model */

typedef enum {
  OP_FUSION, OP_DOT, OP_TRANSPOSE, OP_COLLECTIVE, OP_IOTA, OP_PAYLOAD, OP_HOT, OP_OPTIMIZER
} op_kind;

/* One HLO instruction of the training step. */
typedef struct op_slot {
  op_kind kind;
  char hlo[40];         /* instruction name (TPU display name, GPU hlo_op) */
  char gpu_hlo[40];     /* GPU hlo_op (cuBLAS matmuls are custom-calls) */
  const char *kernel;   /* GPU kernel name when not the hlo name (library kernels) */
  char tf_op[112];      /* JAX name stack */
  char *long_name;      /* TPU: the whole HLO instruction text */
  char shape[64];       /* output shape with layout */
  const char *category; /* TPU hlo_category */
  char kernel_details[112];
  int source_line;
  int64_t nominal_ps, flops, bytes_accessed;
  int triton;           /* GPU: a Triton GEMM fusion kernel gemm_fusion_dot.<i> (see the header) */
  int64_t shape_bytes;  /* bytes_accessed as its shapes give it (--inject memory-bound) */
} op_slot;

typedef struct model {
  int n;
  op_slot *ops;
  int iota, payload, hot, while_first, while_last, n_coll;
  int64_t compute_ps; /* nominal compute per step (all but the collectives) */
  int64_t gap_ps;     /* nominal injected idle gap */
  char while_name[48], *while_long;
} model;

/* One layer's op pattern: kind, name scope, JAX primitive, TPU category. */
static const struct {
  op_kind kind;
  const char *scope, *prim, *category;
} layer_pattern[8] = {
    {OP_FUSION, "attn_norm", "mul", "loop fusion"},
    {OP_DOT, "attn/qkv", "dot_general", "convolution"},
    {OP_FUSION, "attn/softmax", "exp", "loop fusion"},
    {OP_DOT, "attn/out", "dot_general", "convolution"},
    {OP_TRANSPOSE, "attn", "transpose", "data formatting"},
    {OP_DOT, "mlp/up", "dot_general", "convolution"},
    {OP_FUSION, "mlp/gelu", "tanh", "loop fusion"},
    {OP_DOT, "mlp/down", "dot_general", "convolution"},
};
static const char *const adam_prims[6] = {"mul", "add", "sqrt", "div", "sub", "mul"};

static uint64_t mix(uint64_t x) { /* splitmix64 */
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static double unit(uint64_t h) {
  return (double)(h >> 11) * 0x1.0p-53;
}

static char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *str_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0) xs_die("out of memory");
  va_end(ap);
  return s;
}

/* A TPU shape with layout: bf16[8,1024]{1,0:T(8,128)(2,1)}. */
static void tpu_shape(char *buf, size_t cap, const char *dtype, const int *dims, int rank) {
  size_t n = (size_t)snprintf(buf, cap, "%s[", dtype);
  for (int k = 0; k < rank; k++) n += (size_t)snprintf(buf + n, cap - n, "%s%d", k ? "," : "", dims[k]);
  n += (size_t)snprintf(buf + n, cap - n, "]{");
  for (int k = rank - 1; k >= 0; k--) n += (size_t)snprintf(buf + n, cap - n, "%d%s", k, k ? "," : "");
  snprintf(buf + n, cap - n, ":T(8,128)%s}", strcmp(dtype, "bf16") ? "" : "(2,1)");
}

/* Shapes and HLO text of slot i (the matmul dims follow a transformer layer:
** tokens 8x1024, hidden 1024, mlp 4096). The flops and bytes set here follow
** the shapes; model_build replaces them by figures derived from the op's
** duration (so that the achieved rates stay under the device's peaks). */
static void describe_op(op_slot *op, int i, int pattern, const char *prev) {
  static const int tok = 8192, hid = 1024, mlp = 4096;
  char in0[64], in1[64];
  int d2[2], d4[4];
  switch (op->kind) {
    case OP_DOT:
    case OP_HOT: {
      int k = pattern == 7 ? mlp : hid;
      int nout = op->kind == OP_HOT || pattern == 5 ? mlp : pattern == 1 ? 3 * hid : hid;
      d2[0] = tok, d2[1] = k;
      tpu_shape(in0, sizeof(in0), "bf16", d2, 2);
      d2[0] = k, d2[1] = nout;
      tpu_shape(in1, sizeof(in1), "bf16", d2, 2);
      d2[0] = tok, d2[1] = nout;
      tpu_shape(op->shape, sizeof(op->shape), "bf16", d2, 2);
      op->flops = 2LL * tok * k * nout;
      op->bytes_accessed = 2LL * ((int64_t)tok * k + (int64_t)k * nout + (int64_t)tok * nout);
      if (op->kind == OP_HOT)
        op->long_name = str_printf("%%%s = %s fusion(%s %%%s, %s %%param.%d), kind=kOutput, "
                                   "calls=%%fused_computation.hot",
                                   op->hlo, op->shape, in0, prev, in1, i);
      else
        op->long_name = str_printf("%%%s = %s convolution(%s %%%s, %s %%param.%d), "
                                   "dim_labels=bf_io->bf",
                                   op->hlo, op->shape, in0, prev, in1, i);
      break;
    }
    case OP_PAYLOAD:
      d4[0] = 8, d4[1] = 128, d4[2] = 128, d4[3] = 256;
      tpu_shape(op->shape, sizeof(op->shape), "bf16", d4, 4);
      d4[0] = 3, d4[1] = 3, d4[2] = 256, d4[3] = 256;
      tpu_shape(in1, sizeof(in1), "bf16", d4, 4);
      op->flops = 2LL * 8 * 128 * 128 * 256 * 9 * 256;
      op->bytes_accessed = 4LL * 8 * 128 * 128 * 256 + 2LL * 9 * 256 * 256;
      op->long_name = str_printf("%%%s = %s convolution(%s %%%s, %s %%param.%d), "
                                 "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
                                 op->hlo, op->shape, op->shape, prev, in1, i);
      break;
    case OP_IOTA:
      d2[0] = 8, d2[1] = 1024;
      tpu_shape(op->shape, sizeof(op->shape), "s32", d2, 2);
      op->flops = 0;
      op->bytes_accessed = 4LL * 8 * 1024;
      op->long_name = str_printf("%%%s = %s iota(), iota_dimension=1", op->hlo, op->shape);
      break;
    case OP_TRANSPOSE:
      d4[0] = 8, d4[1] = 1024, d4[2] = 16, d4[3] = 64;
      tpu_shape(in0, sizeof(in0), "bf16", d4, 4);
      d4[1] = 16, d4[2] = 1024;
      tpu_shape(op->shape, sizeof(op->shape), "bf16", d4, 4);
      op->flops = 0;
      op->bytes_accessed = 4LL * tok * hid;
      op->long_name = str_printf("%%%s = %s transpose(%s %%%s), dimensions={0,2,1,3}", op->hlo,
                                 op->shape, in0, prev);
      break;
    case OP_COLLECTIVE:
      d2[0] = hid, d2[1] = mlp;
      tpu_shape(op->shape, sizeof(op->shape), "f32", d2, 2);
      op->flops = (int64_t)hid * mlp;
      op->bytes_accessed = 8LL * hid * mlp;
      op->long_name = str_printf("%%%s = %s all-reduce(%s %%%s), channel_id=%d, "
                                 "replica_groups={{0,1,2,3}}, use_global_device_ids=true, "
                                 "to_apply=%%region_add.clone",
                                 op->hlo, op->shape, op->shape, prev, i);
      break;
    case OP_FUSION:
    case OP_OPTIMIZER:
      if (op->kind == OP_OPTIMIZER) d2[0] = hid, d2[1] = mlp;
      else d2[0] = tok, d2[1] = pattern == 6 ? mlp : hid;
      tpu_shape(op->shape, sizeof(op->shape), op->kind == OP_OPTIMIZER ? "f32" : "bf16", d2, 2);
      op->flops = 4LL * d2[0] * d2[1];
      op->bytes_accessed = (op->kind == OP_OPTIMIZER ? 12LL : 4LL) * d2[0] * d2[1];
      op->long_name = str_printf("%%%s = %s fusion(%s %%%s, %s %%param.%d), kind=kLoop, "
                                 "calls=%%fused_computation.%d",
                                 op->hlo, op->shape, op->shape, prev, op->shape, i, i);
      break;
  }
}

/* A cuBLAS-, XLA- or NCCL-like launch configuration (fixed per slot). */
static void gpu_kernel_details(op_slot *op, int i) {
  uint64_t h = mix(0x6b64ULL + (uint64_t)i);
  int gemm = op->kind == OP_DOT || op->kind == OP_HOT;
  snprintf(op->kernel_details, sizeof(op->kernel_details),
           "regs:%d static_shared:%d dynamic_shared:%d grid:%d,1,1 block:%d,1,1 occ_pct:%d",
           gemm ? 168 : 32 + (int)(h >> 8) % 4 * 8, gemm ? 0 : 1024, gemm ? 213248 : 0,
           op->kind == OP_IOTA ? 32 : 132 * (1 + (int)(h % 8)), gemm ? 384 : 256,
           gemm ? 12 : 50 + (int)(h >> 16) % 50);
}

/* Kind, names and name stack of slot i. */
static void name_op(const model *m, op_slot *op, int i, int collective, int *dots, int gpu) {
  int half = m->n / 2, fwd = i < half, pattern = i % 8;
  int layer = fwd ? i / 8 : (half + 7) / 8 - 1 - (i - half) / 8;
  const char *stack = fwd ? "jit(train_step)/jvp(model)" : "jit(train_step)/transpose(jvp(model))";
  op->category = layer_pattern[pattern].category;
  op->source_line = 40 + 6 * pattern + (fwd ? 0 : 3);
  if (i == m->iota) {
    op->kind = OP_IOTA;
    snprintf(op->hlo, sizeof(op->hlo), "iota.%d", i);
    snprintf(op->tf_op, sizeof(op->tf_op), "%s/layer_%d/conv/iota", stack, layer);
    op->category = "data formatting";
  } else if (i == m->payload) {
    op->kind = OP_PAYLOAD;
    snprintf(op->hlo, sizeof(op->hlo), "convolution.payload");
    snprintf(op->tf_op, sizeof(op->tf_op), "%s/layer_%d/conv/conv_general_dilated", stack, layer);
    op->category = "convolution";
  } else if (i == m->hot) {
    op->kind = OP_HOT;
    snprintf(op->hlo, sizeof(op->hlo), "fusion.hot");
    snprintf(op->gpu_hlo, sizeof(op->gpu_hlo), "custom-call.hot");
    op->kernel = GPU_HOT_KERNEL;
    snprintf(op->tf_op, sizeof(op->tf_op), "%s/layer_%d/mlp/up/dot_general", stack, layer);
    op->category = "convolution fusion";
  } else if (i >= m->while_first) {
    op->kind = OP_OPTIMIZER;
    snprintf(op->hlo, sizeof(op->hlo), "fusion.%d", i);
    snprintf(op->tf_op, sizeof(op->tf_op), "jit(train_step)/optimizer/adam/%s",
             adam_prims[(i - m->while_first) % 6]);
    op->category = "loop fusion";
    op->source_line = 120 + (i - m->while_first);
  } else if (collective) {
    op->kind = OP_COLLECTIVE;
    snprintf(op->hlo, sizeof(op->hlo), "all-reduce.%d", i);
    snprintf(op->tf_op, sizeof(op->tf_op), "%s/layer_%d/psum", stack, layer);
    op->kernel = NCCL_KERNEL;
    op->category = "all-reduce";
  } else {
    op->kind = layer_pattern[pattern].kind;
    const char *base = op->kind == OP_DOT ? "convolution"
                       : op->kind == OP_TRANSPOSE ? "transpose" : "fusion";
    snprintf(op->hlo, sizeof(op->hlo), "%s.%d", base, i);
    snprintf(op->tf_op, sizeof(op->tf_op), "%s/layer_%d/%s/%s", stack, layer,
             layer_pattern[pattern].scope, layer_pattern[pattern].prim);
    if (op->kind == OP_DOT && gpu && pattern == 3) { /* attn/out: a Triton GEMM fusion */
      op->triton = 1;
      snprintf(op->gpu_hlo, sizeof(op->gpu_hlo), "gemm_fusion_dot.%d", i);
    } else if (op->kind == OP_DOT) {
      snprintf(op->gpu_hlo, sizeof(op->gpu_hlo), "custom-call.%d", i);
      op->kernel = gemm_kernels[(*dots)++ % 3];
    }
  }
  if (!op->gpu_hlo[0]) memcpy(op->gpu_hlo, op->hlo, sizeof(op->hlo));
}

static void model_build(model *m, const options *o) {
  int n = (int)o->ops;
  memset(m, 0, sizeof(*m));
  m->n = n;
  m->ops = calloc((size_t)n, sizeof(op_slot));
  if (!m->ops) xs_die("out of memory");
  int w = n / 8 < 2 ? 2 : n / 8 > 6 ? 6 : n / 8;
  m->iota = n / 4;
  m->payload = m->iota + 1;
  m->hot = 5 * n / 8;
  m->while_first = n - w;
  m->while_last = n - 1;
  /* All-reduce slots (at least one per step). */
  int fallback = m->while_first - 1;
  for (int i = n / 2; i < m->while_first; i++)
    if (i % 8 == 7 && i != m->hot) fallback = -1;
  int dots = 0;
  for (int i = 0; i < n; i++) {
    int collective = i == fallback || (i >= n / 2 && i % 8 == 7 && i != m->hot);
    name_op(m, &m->ops[i], i, collective, &dots, o->style == STYLE_GPU);
    describe_op(&m->ops[i], i, i % 8, i ? m->ops[i - 1].hlo : "Arg_0.1");
    gpu_kernel_details(&m->ops[i], i);
    m->n_coll += m->ops[i].kind == OP_COLLECTIVE;
  }
  /* Nominal durations: a fixed per-slot spread (seed-independent), then the
  ** hot op and the collectives as shares of the rest. */
  static const int64_t base_ps[] = {
      [OP_FUSION] = 18 * US, [OP_DOT] = 45 * US, [OP_TRANSPOSE] = 9 * US,
      [OP_OPTIMIZER] = 12 * US};
  int64_t other = 0;
  for (int i = 0; i < n; i++) {
    op_slot *op = &m->ops[i];
    double spread = 0.6 + 0.8 * unit(mix(0x5eedULL + (uint64_t)i));
    switch (op->kind) {
      case OP_IOTA: op->nominal_ps = 8 * US; break;
      case OP_PAYLOAD: op->nominal_ps = 60 * US; break;
      case OP_HOT:
      case OP_COLLECTIVE: continue;
      default: op->nominal_ps = (int64_t)((double)base_ps[op->kind] * spread); break;
    }
    other += op->nominal_ps;
  }
  m->ops[m->hot].nominal_ps = (int64_t)(0.45 * (double)other);
  m->compute_ps = other + m->ops[m->hot].nominal_ps;
  for (int i = 0; i < n; i++)
    if (m->ops[i].kind == OP_COLLECTIVE)
      m->ops[i].nominal_ps = (int64_t)(0.07 * (double)m->compute_ps / m->n_coll);
  /* FLOPs and bytes accessed (TPU stats): the fractions of the device's peak
  ** rates below, sustained over the op's nominal duration. An occurrence lasts
  ** at least 0.92x its nominal duration less one cycle (over 0.9x), so no op
  ** reaches 0.7 / 0.9 = 78 % of a peak. */
  static const double flop_frac[] = {[OP_FUSION] = 0.02, [OP_DOT] = 0.60, [OP_TRANSPOSE] = 0.0,
                                     [OP_COLLECTIVE] = 0.01, [OP_IOTA] = 0.0, [OP_PAYLOAD] = 0.50,
                                     [OP_HOT] = 0.70, [OP_OPTIMIZER] = 0.01};
  static const double byte_frac[] = {[OP_FUSION] = 0.60, [OP_DOT] = 0.15, [OP_TRANSPOSE] = 0.50,
                                     [OP_COLLECTIVE] = 0.30, [OP_IOTA] = 0.05, [OP_PAYLOAD] = 0.20,
                                     [OP_HOT] = 0.10, [OP_OPTIMIZER] = 0.70};
  for (int i = 0; i < n; i++) {
    op_slot *op = &m->ops[i];
    op->shape_bytes = op->bytes_accessed;
    op->flops = (int64_t)(flop_frac[op->kind] * TPU_PEAK_TFLOPS * (double)op->nominal_ps);
    op->bytes_accessed = (int64_t)(byte_frac[op->kind] * (TPU_PEAK_HBM_GBPS / 1000.0) * (double)op->nominal_ps);
  }
  if (o->inject & INJ_MEMORY_BOUND) { /* 1 FLOP/byte: the bytes its shapes move, as FLOPs too */
    op_slot *hot = &m->ops[m->hot];
    hot->flops = hot->bytes_accessed = hot->shape_bytes;
  }
  int64_t min_gap = o->style == STYLE_GPU ? 400 * US : 200 * US;
  m->gap_ps = (int64_t)(0.08 * (double)m->compute_ps);
  if (m->gap_ps < min_gap) m->gap_ps = min_gap;
  snprintf(m->while_name, sizeof(m->while_name), "while.%d", n);
  m->while_long = str_printf("%%%s = (s32[], %s) while((s32[], %s) %%tuple.%d), "
                             "condition=%%region_cond.%d, body=%%region_body.%d",
                             m->while_name, m->ops[n - 1].shape, m->ops[n - 1].shape, n, n, n);
}

static void model_free(model *m) {
  for (int i = 0; i < m->n; i++) free(m->ops[i].long_name);
  free(m->ops);
  free(m->while_long);
}

/* ------------------------------------------------------------ the timeline */

/* What one device does in one step (session-clock picoseconds). */
typedef struct step_tl {
  int64_t *start, *dur;          /* per slot: the device op */
  int64_t *launch, *launch_dur;  /* GPU, per slot: the host launch */
  int64_t exec_start, exec_end;  /* GPU: the launch thread's Execute */
  int64_t copy_launch, copy_launch_dur, copy_start, copy_dur; /* GPU input copy */
  int64_t module_start, module_end, while_start, while_dur;   /* TPU */
  int64_t end;                   /* device busy until */
  int64_t prep_start, prep_dur;  /* --inject host-bound: host preprocessing (0 = none) */
  int64_t d2h_launch, d2h_start; /* --inject transfers: the DtoH copy */
} step_tl;

/* Stat name ids (interned per plane) and per-plane metadata ids. */
enum {
  ST_CORRELATION_ID, ST_KERNEL_DETAILS, ST_TF_OP, ST_HLO_OP, ST_HLO_MODULE, ST_PROGRAM_ID,
  ST_MEMCPY_DETAILS, ST_DEVICE_ID, ST_STEP_NUM, ST_R, ST_DEVICE_OFFSET, ST_DEVICE_DURATION,
  ST_RUN_ID, ST_REPLICA_ID, ST_HLO_CATEGORY, ST_FLOPS, ST_BYTES_ACCESSED, ST_SHAPE, ST_SOURCE,
  ST_BYTES_ALLOCATED, ST_ALLOCATION_BYTES, ST_REQUESTED_BYTES, ST_PEAK_BYTES, ST_BYTES_AVAILABLE,
  ST_FRAGMENTATION, ST_ADDR, ST_INDEX_ON_HOST, ST_ALLOCATOR_NAME,
  ST_N
};
static const char *const stat_names[ST_N] = {
    "correlation_id", "kernel_details", "tf_op", "hlo_op", "hlo_module", "program_id",
    "memcpy_details", "device_id", "step_num", "_r", "device_offset_ps", "device_duration_ps",
    "run_id", "replica_id", "hlo_category", "flops", "bytes_accessed", "shape_with_layout",
    "source", "bytes_allocated", "allocation_bytes", "requested_bytes", "peak_bytes_in_use",
    "bytes_available", "fragmentation", "addr", "index_on_host", "allocator_name"};

typedef struct plane_ids {
  int64_t st[ST_N];
  int64_t *op_meta, *op_hlo, *op_tf, *op_kd;  /* per slot */
  int64_t module_ref, copy_details;
  int64_t m_train, m_pjit, m_exec, m_copy_launch, m_launch, m_copy, m_module, m_while,
      m_enqueue, m_steps0, m_async[TPU_ASYNC];
  int64_t m_compile, m_compile_inner, m_prep, m_d2h, m_d2h_launch, m_sync, d2h_details; /* --inject */
  int64_t m_alloc, m_dealloc, allocator[64];  /* memory events; GPU allocator names (refs) */
} plane_ids;

/* Line kinds (xs_add_line's kind). */
enum {
  LK_GPU_KERNELS, LK_GPU_COLLECTIVES, LK_GPU_MEMCPY, LK_GPU_LAUNCH, LK_PYTHON, LK_TPU_STEPS,
  LK_TPU_MODULES, LK_TPU_OPS, LK_TPU_ASYNC, LK_TPU_TASKS, LK_MEMORY
};

typedef struct gen {
  const options *o;
  const model *m;
  int host;
  char hostname[32];
  uint64_t key;       /* hash of seed and host */
  int64_t steps;
  int64_t emit_lo, emit_hi; /* the steps whose events are written: all but when sizing */
  int64_t *t0, *t1;   /* per step: start, and when every device is done */
  int64_t base_ns;    /* timestamp_ns of the GPU and host lines */
  int64_t quantum;    /* GPU_TICK or TPU_CYCLE */
  int64_t tid;        /* first host thread id */
  step_tl tl;         /* scratch: one device-step */
  plane_ids ids;      /* of the plane being written */
} gen;

/* What each random draw is for (part of its hash key). */
enum { R_DUR = 1, R_GAP, R_TINY, R_LAUNCH, R_SPACING, R_COPY, R_COPY_LAUNCH, R_IDLE, R_PJIT, R_T0 };

static double rnd(const gen *g, int what, int d, int64_t s, int i) {
  uint64_t k = ((uint64_t)what << 56) ^ ((uint64_t)d << 40) ^ mix((uint64_t)s * 1000003u + (uint64_t)i);
  return unit(mix(g->key ^ mix(k)));
}

static int64_t quant(const gen *g, double ps) {
  int64_t q = (int64_t)(ps / (double)g->quantum) * g->quantum;
  return q < g->quantum ? g->quantum : q;
}

static int64_t max64(int64_t a, int64_t b) {
  return a > b ? a : b;
}

static int heavy_step(const gen *g, int64_t s) {
  int64_t k = g->o->heavy_every;
  return k > 0 && s % k == k - 1;
}

static int comm_phase(const gen *g, int64_t s) {
  int64_t lo = g->steps / 2, len = g->steps / 5 > 1 ? g->steps / 5 : 1;
  return s >= lo && s < lo + len;
}

/* --inject tiny: is slot i one of the 2 us kernels? */
static int inj_tiny_slot(const gen *g, int i) {
  const model *m = g->m;
  return (g->o->inject & INJ_TINY) && i % 2 == 0 && i != m->payload && i != m->hot &&
         m->ops[i].kind != OP_COLLECTIVE;
}

static int64_t op_dur(const gen *g, int d, int64_t s, int i) {
  const op_slot *op = &g->m->ops[i];
  if (inj_tiny_slot(g, i)) return INJ_TINY_PS;
  double f = 0.92 + 0.16 * rnd(g, R_DUR, d, s, i);
  if (op->kind == OP_COLLECTIVE) {
    if (comm_phase(g, s)) f *= 4.0;
  } else if (heavy_step(g, s)) {
    f *= 2.0;
  }
  return quant(g, (double)op->nominal_ps * f);
}

static int64_t injected_gap(const gen *g, int d, int64_t s) {
  double f = (0.9 + 0.2 * rnd(g, R_GAP, d, s, 0)) * (heavy_step(g, s) ? 2.0 : 1.0);
  return quant(g, (double)g->m->gap_ps * f);
}

/* --inject host-bound: the launch thread's preprocessing from h; returns
** where the launches resume. */
static int64_t inj_host_prep(gen *g, int64_t s, int64_t h) {
  g->tl.prep_start = h;
  g->tl.prep_dur = 0;
  if (!(g->o->inject & INJ_HOST_BOUND) || s % INJ_HOST_BOUND_EVERY != 0) return h;
  g->tl.prep_dur = INJ_HOST_PREP_PS;
  return h + INJ_HOST_PREP_PS;
}

/* --inject transfers: the DtoH copy launched at h once the device is done
** (device_done); returns where the launch thread goes on. */
static int64_t inj_d2h(gen *g, int64_t h, int64_t device_done) {
  if (!(g->o->inject & INJ_TRANSFERS)) return h;
  g->tl.d2h_launch = h;
  g->tl.d2h_start = max64(h + GPU_LAUNCH_LATENCY, device_done + US);
  return h + 3 * US;
}

/* --inject sync: does step s end with a block_until_ready? */
static int inj_sync_step(const gen *g, int64_t s) {
  return (g->o->inject & INJ_SYNC) && s % INJ_SYNC_EVERY == INJ_SYNC_EVERY - 1;
}

/* GPU: the launch thread of device d issues the copy and the N kernels; the
** compute stream runs kernels in order once launched, the collective stream
** runs each all-reduce once its producer is done (overlapping compute). */
static void gpu_walk(gen *g, int d, int64_t s) {
  const model *m = g->m;
  step_tl *tl = &g->tl;
  int64_t h = g->t0[s] + 20 * US + d * 3 * US;
  tl->exec_start = h;
  h += 5 * US;
  h = inj_host_prep(g, s, h);
  tl->copy_launch = h;
  tl->copy_launch_dur = quant(g, 3 * US + 2 * US * rnd(g, R_COPY_LAUNCH, d, s, 0));
  h += tl->copy_launch_dur + US;
  tl->copy_start = tl->copy_launch + GPU_LAUNCH_LATENCY;
  tl->copy_dur = quant(g, 30 * US + 20 * US * rnd(g, R_COPY, d, s, 0));
  if (g->o->inject & INJ_TRANSFERS) tl->copy_dur = INJ_H2D_PS;
  int64_t busy = 0, comm_free = 0;
  for (int i = 0; i < m->n; i++) {
    if (i == m->iota) h = max64(h, busy + injected_gap(g, d, s)); /* sync, then stall */
    tl->launch[i] = h;
    tl->launch_dur[i] = quant(g, 2.5 * US + 2 * US * rnd(g, R_LAUNCH, d, s, i));
    h += tl->launch_dur[i] + quant(g, 0.5 * US + US * rnd(g, R_SPACING, d, s, i));
    int64_t ready = tl->launch[i] + GPU_LAUNCH_LATENCY, dur = op_dur(g, d, s, i), st;
    if (m->ops[i].kind == OP_COLLECTIVE) {
      st = max64(ready, max64(busy, comm_free));
      comm_free = st + dur;
    } else {
      /* The payload starts the moment the iota ends: its launch (<= 6 us
      ** after the iota's) is ready before the >= 7.3 us iota is done. */
      int64_t idle = i == m->payload ? 0 : quant(g, US + 2 * US * rnd(g, R_TINY, d, s, i));
      st = max64(ready, busy + idle);
      busy = st + dur;
    }
    tl->start[i] = st;
    tl->dur[i] = dur;
  }
  h = inj_d2h(g, h, max64(busy, comm_free));
  tl->exec_end = h + 2 * US;
  tl->end = max64(max64(busy, comm_free), tl->copy_start + tl->copy_dur);
  if (g->o->inject & INJ_TRANSFERS) tl->end = max64(tl->end, tl->d2h_start + INJ_D2H_PS);
}

static int64_t tpu_skew(int d) { /* the device's start offset in a step */
  return (int64_t)d * 1200 * TPU_CYCLE;
}

static int64_t tpu_clock(int d) { /* session clock - device clock */
  return (180000 + 9000 * (int64_t)d) * TPU_CYCLE;
}

/* TPU: ops run back to back (sometimes one idle cycle apart); the optimizer
** slots run inside a while op. */
static void tpu_walk(gen *g, int d, int64_t s) {
  const model *m = g->m;
  step_tl *tl = &g->tl;
  tl->module_start = g->t0[s] + tpu_skew(d) + TPU_CYCLE;
  int64_t t = tl->module_start + TPU_CYCLE;
  for (int i = 0; i < m->n; i++) {
    if (i == m->iota) t += injected_gap(g, d, s);
    if (i == m->while_first) {
      tl->while_start = t;
      t += 2 * TPU_CYCLE;
    }
    tl->start[i] = t;
    tl->dur[i] = op_dur(g, d, s, i);
    t += tl->dur[i];
    if (i == m->while_last) {
      t += TPU_CYCLE;
      tl->while_dur = t - tl->while_start;
    }
    if (i + 1 < m->n && i + 1 != m->payload && rnd(g, R_TINY, d, s, i) < 0.3) t += TPU_CYCLE;
  }
  tl->module_end = t + TPU_CYCLE;
  tl->end = tl->module_end;
}

static void walk(gen *g, int d, int64_t s) {
  if (g->o->style == STYLE_GPU) gpu_walk(g, d, s);
  else tpu_walk(g, d, s);
}

/* Step starts and ends: a step starts when the host is done with the last one. */
static void schedule(gen *g) {
  int64_t t = quant(g, 2000 * US + 1000 * US * rnd(g, R_T0, 0, 0, 0));
  if (g->o->inject & INJ_RECOMPILE) t += INJ_COMPILES * INJ_COMPILE_EVERY;
  for (int64_t s = 0; s < g->steps; s++) {
    g->t0[s] = t;
    int64_t end = 0;
    for (int d = 0; d < g->o->devices; d++) {
      walk(g, d, s);
      if (g->o->style == STYLE_GPU) end = max64(end, max64(g->tl.end, g->tl.exec_end));
      else end = max64(end, g->tl.end - tpu_skew(d));
    }
    if (g->o->style == STYLE_GPU) {
      g->t1[s] = end + 15 * US;
      t = g->t1[s] + quant(g, 40 * US + 40 * US * rnd(g, R_IDLE, 0, s, 0));
      if (inj_sync_step(g, s)) t += INJ_SYNC_PAUSE_PS;
    } else {
      g->t1[s] = end + TPU_CYCLE;
      t = g->t1[s] + quant(g, 12.5 * US + 17.5 * US * rnd(g, R_IDLE, 0, s, 0));
    }
  }
}

static void *alloc_array(int64_t n, size_t sz) {
  void *p = calloc((size_t)(n > 0 ? n : 1), sz);
  if (!p) xs_die("out of memory (%lld entries)", (long long)n);
  return p;
}

static void gen_init(gen *g, const options *o, const model *m, int host, int64_t steps) {
  memset(g, 0, sizeof(*g));
  g->o = o;
  g->m = m;
  g->host = host;
  snprintf(g->hostname, sizeof(g->hostname), "host%d", host);
  g->key = mix(mix(o->seed) + (uint64_t)host);
  g->steps = steps;
  g->emit_lo = 0;
  g->emit_hi = steps;
  g->quantum = o->style == STYLE_GPU ? GPU_TICK : TPU_CYCLE;
  g->base_ns = 800000 + (int64_t)(200000 * rnd(g, R_T0, 1, 0, 0));
  g->tid = 2000 + (int64_t)(60000 * rnd(g, R_T0, 2, 0, 0));
  g->t0 = alloc_array(steps, sizeof(int64_t));
  g->t1 = alloc_array(steps, sizeof(int64_t));
  int64_t **per_slot[] = {&g->tl.start, &g->tl.dur, &g->tl.launch, &g->tl.launch_dur,
                          &g->ids.op_meta, &g->ids.op_hlo, &g->ids.op_tf, &g->ids.op_kd};
  for (size_t k = 0; k < sizeof(per_slot) / sizeof(per_slot[0]); k++)
    *per_slot[k] = alloc_array(m->n, sizeof(int64_t));
  schedule(g);
}

static void gen_free(gen *g) {
  free(g->t0);
  free(g->t1);
  free(g->tl.start);
  free(g->tl.dur);
  free(g->tl.launch);
  free(g->tl.launch_dur);
  free(g->ids.op_meta);
  free(g->ids.op_hlo);
  free(g->ids.op_tf);
  free(g->ids.op_kd);
}

/* ------------------------------------------------------------ event output */

#define EV_MAX_STATS 10

typedef struct evb {
  xs_ev ev;
  xs_stat st[EV_MAX_STATS];
  xs_stat *ptr[EV_MAX_STATS];
} evb;

static void ev_begin(evb *b, int64_t meta, int64_t offset_ps, int64_t dur_ps) {
  b->ev = (xs_ev)TENSORFLOW__PROFILER__XEVENT__INIT;
  b->ev.metadata_id = meta;
  b->ev.data_case = TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS;
  b->ev.offset_ps = offset_ps;
  b->ev.duration_ps = dur_ps;
  for (int k = 0; k < EV_MAX_STATS; k++) b->ptr[k] = &b->st[k];
  b->ev.stats = b->ptr;
}

static xs_stat *ev_stat(evb *b) {
  return &b->st[b->ev.n_stats++];
}

/* Correlation id of slot i (slot N = the input copy) of device d in step s:
** unique per host, shared by the host launch and the device event. */
static uint64_t corr_id(const gen *g, int d, int64_t s, int i) {
  return 1 + ((uint64_t)s * (uint64_t)g->o->devices + (uint64_t)d) * (uint64_t)(g->m->n + 1) +
         (uint64_t)i;
}

/* Correlation id of the injected DtoH copy: above every corr_id. */
static uint64_t inj_d2h_corr(const gen *g, int d, int64_t s) {
  return ((uint64_t)1 << 48) + (uint64_t)s * (uint64_t)g->o->devices + (uint64_t)d;
}

static void emit_gpu_stream(gen *g, int d, int64_t ts_ps, int line_kind, xs_sink *out) {
  const model *m = g->m;
  const plane_ids *id = &g->ids;
  evb b;
  for (int64_t s = g->emit_lo; s < g->emit_hi; s++) {
    gpu_walk(g, d, s);
    if (line_kind == LK_GPU_MEMCPY) {
      ev_begin(&b, id->m_copy, g->tl.copy_start - ts_ps, g->tl.copy_dur);
      xs_stat_uint(ev_stat(&b), id->st[ST_CORRELATION_ID], corr_id(g, d, s, m->n));
      xs_stat_ref(ev_stat(&b), id->st[ST_MEMCPY_DETAILS], id->copy_details);
      xs_event(out, &b.ev);
      if (g->o->inject & INJ_TRANSFERS) {
        ev_begin(&b, id->m_d2h, g->tl.d2h_start - ts_ps, INJ_D2H_PS);
        xs_stat_uint(ev_stat(&b), id->st[ST_CORRELATION_ID], inj_d2h_corr(g, d, s));
        xs_stat_ref(ev_stat(&b), id->st[ST_MEMCPY_DETAILS], id->d2h_details);
        xs_event(out, &b.ev);
      }
      continue;
    }
    for (int i = 0; i < m->n; i++) {
      if ((m->ops[i].kind == OP_COLLECTIVE) != (line_kind == LK_GPU_COLLECTIVES)) continue;
      ev_begin(&b, id->op_meta[i], g->tl.start[i] - ts_ps, g->tl.dur[i]);
      xs_stat_uint(ev_stat(&b), id->st[ST_CORRELATION_ID], corr_id(g, d, s, i));
      xs_stat_ref(ev_stat(&b), id->st[ST_KERNEL_DETAILS], id->op_kd[i]);
      xs_stat_ref(ev_stat(&b), id->st[ST_TF_OP], id->op_tf[i]);
      xs_stat_ref(ev_stat(&b), id->st[ST_HLO_OP], id->op_hlo[i]);
      xs_stat_ref(ev_stat(&b), id->st[ST_HLO_MODULE], id->module_ref);
      xs_stat_int(ev_stat(&b), id->st[ST_PROGRAM_ID], PROGRAM_ID);
      xs_event(out, &b.ev);
    }
  }
}

static void emit_gpu_launches(gen *g, int d, int64_t ts_ps, xs_sink *out) {
  const model *m = g->m;
  const plane_ids *id = &g->ids;
  evb b;
  for (int64_t s = g->emit_lo; s < g->emit_hi; s++) {
    gpu_walk(g, d, s);
    const step_tl *tl = &g->tl;
    ev_begin(&b, id->m_exec, tl->exec_start - ts_ps, tl->exec_end - tl->exec_start);
    xs_event(out, &b.ev);
    if (tl->prep_dur) {
      ev_begin(&b, id->m_prep, tl->prep_start - ts_ps, tl->prep_dur);
      xs_event(out, &b.ev);
    }
    ev_begin(&b, id->m_copy_launch, tl->copy_launch - ts_ps, tl->copy_launch_dur);
    xs_stat_uint(ev_stat(&b), id->st[ST_DEVICE_ID], (uint64_t)d);
    xs_stat_uint(ev_stat(&b), id->st[ST_CORRELATION_ID], corr_id(g, d, s, m->n));
    xs_event(out, &b.ev);
    for (int i = 0; i < m->n; i++) {
      ev_begin(&b, id->m_launch, tl->launch[i] - ts_ps, tl->launch_dur[i]);
      xs_stat_uint(ev_stat(&b), id->st[ST_DEVICE_ID], (uint64_t)d);
      xs_stat_uint(ev_stat(&b), id->st[ST_CORRELATION_ID], corr_id(g, d, s, i));
      xs_stat_ref(ev_stat(&b), id->st[ST_HLO_OP], id->op_hlo[i]);
      xs_stat_ref(ev_stat(&b), id->st[ST_HLO_MODULE], id->module_ref);
      xs_stat_int(ev_stat(&b), id->st[ST_PROGRAM_ID], PROGRAM_ID);
      xs_event(out, &b.ev);
    }
    if (g->o->inject & INJ_TRANSFERS) {
      ev_begin(&b, id->m_d2h_launch, tl->d2h_launch - ts_ps, 2 * US);
      xs_stat_uint(ev_stat(&b), id->st[ST_DEVICE_ID], (uint64_t)d);
      xs_stat_uint(ev_stat(&b), id->st[ST_CORRELATION_ID], inj_d2h_corr(g, d, s));
      xs_event(out, &b.ev);
    }
  }
}

/* --inject recompile: the compiles before step 0 (python/main line). */
static void inj_emit_compiles(gen *g, int64_t ts_ps, xs_sink *out) {
  if (!(g->o->inject & INJ_RECOMPILE) || g->emit_lo != 0) return;
  evb b;
  for (int k = 0; k < INJ_COMPILES; k++) {
    int64_t c = 1000 * US + k * INJ_COMPILE_EVERY;
    ev_begin(&b, g->ids.m_pjit, c - ts_ps, INJ_COMPILE_PS + 2 * US);
    xs_event(out, &b.ev);
    ev_begin(&b, g->ids.m_compile, c + US - ts_ps, INJ_COMPILE_PS);
    xs_event(out, &b.ev);
    ev_begin(&b, g->ids.m_compile_inner, c + 2 * US - ts_ps, INJ_COMPILE_PS / 2);
    xs_event(out, &b.ev);
  }
}

/* The python thread: the StepTraceAnnotation `train` of each step and the
** jitted call's dispatch inside it. */
static void emit_python(gen *g, int64_t ts_ps, xs_sink *out) {
  const plane_ids *id = &g->ids;
  int tpu = g->o->style == STYLE_TPU;
  evb b;
  inj_emit_compiles(g, ts_ps, out);
  for (int64_t s = g->emit_lo; s < g->emit_hi; s++) {
    int64_t start = g->t0[s] - (tpu ? 8 * US : 0), end = g->t1[s] + (tpu ? 2 * US : 0);
    ev_begin(&b, id->m_train, start - ts_ps, end - start);
    xs_stat_int(ev_stat(&b), id->st[ST_STEP_NUM], s);
    xs_stat_int(ev_stat(&b), id->st[ST_R], 1);
    xs_event(out, &b.ev);
    ev_begin(&b, id->m_pjit, start + US - ts_ps, quant(g, 5 * US + 10 * US * rnd(g, R_PJIT, 0, s, 0)));
    xs_event(out, &b.ev);
    if (inj_sync_step(g, s)) { /* --inject sync */
      ev_begin(&b, id->m_sync, g->t0[s] + 20 * US - ts_ps, g->t1[s] - 10 * US - (g->t0[s] + 20 * US));
      xs_event(out, &b.ev);
    }
  }
}

static void emit_tpu_tasks(gen *g, int64_t ts_ps, xs_sink *out) {
  evb b;
  for (int64_t s = g->emit_lo; s < g->emit_hi; s++)
    for (int d = 0; d < g->o->devices; d++) {
      ev_begin(&b, g->ids.m_enqueue, g->t0[s] - 6 * US + d * US - ts_ps, 800000);
      xs_event(out, &b.ev);
    }
}

static void tpu_op_event(gen *g, evb *b, int d, int64_t meta, int64_t start, int64_t dur,
                         xs_sink *out) {
  ev_begin(b, meta, start, dur); /* TPU lines have timestamp_ns 0 */
  xs_stat_uint(ev_stat(b), g->ids.st[ST_DEVICE_OFFSET], (uint64_t)(start - tpu_clock(d)));
  xs_stat_uint(ev_stat(b), g->ids.st[ST_DEVICE_DURATION], (uint64_t)dur);
  xs_event(out, &b->ev);
}

static void emit_tpu_line(gen *g, int d, int kind, xs_sink *out) {
  const model *m = g->m;
  const plane_ids *id = &g->ids;
  evb b;
  for (int64_t s = g->emit_lo; s < g->emit_hi; s++) {
    if (kind == LK_TPU_STEPS) {
      int64_t end = s + 1 < g->steps ? g->t0[s + 1] : g->t1[s];
      ev_begin(&b, id->m_steps0 + s, g->t0[s] + tpu_skew(d), end - g->t0[s]);
      xs_event(out, &b.ev);
      continue;
    }
    tpu_walk(g, d, s);
    const step_tl *tl = &g->tl;
    if (kind == LK_TPU_MODULES) {
      ev_begin(&b, id->m_module, tl->module_start, tl->module_end - tl->module_start);
      xs_stat_uint(ev_stat(&b), id->st[ST_RUN_ID], (uint64_t)s + 1);
      xs_stat_int(ev_stat(&b), id->st[ST_REPLICA_ID], d);
      xs_event(out, &b.ev);
    } else if (kind == LK_TPU_OPS) {
      for (int i = 0; i < m->n; i++) {
        if (i == m->while_first) tpu_op_event(g, &b, d, id->m_while, tl->while_start, tl->while_dur, out);
        tpu_op_event(g, &b, d, id->op_meta[i], tl->start[i], tl->dur[i], out);
      }
    } else { /* LK_TPU_ASYNC: copies tiling the module, each overlapping the next */
      int64_t span = tl->module_end - tl->module_start;
      for (int j = 0; j < TPU_ASYNC; j++) {
        int64_t a = tl->module_start + span * j / TPU_ASYNC / TPU_CYCLE * TPU_CYCLE;
        int64_t next = tl->module_start + span * (j + 1) / TPU_ASYNC / TPU_CYCLE * TPU_CYCLE;
        int64_t end = j + 1 < TPU_ASYNC ? next + (next - a) / 4 / TPU_CYCLE * TPU_CYCLE : tl->module_end;
        tpu_op_event(g, &b, d, id->m_async[j], a, end - a, out);
      }
    }
  }
}

/* The peak in use of device d's allocator before step s (see the header). */
static int64_t mem_prior_peak(const gen *g, int64_t s) {
  int64_t k = g->o->heavy_every;
  if (s == 0) return MEM_WEIGHTS;
  return MEM_WEIGHTS + MEM_ACT_SUM * (k > 0 && s >= k ? 2 : 1);
}

static void mem_event(gen *g, evb *b, int d, int dealloc, int64_t at, int64_t size, int64_t in_use,
                      int64_t peak, uint64_t addr) {
  const plane_ids *id = &g->ids;
  int tpu = g->o->style == STYLE_TPU;
  ev_begin(b, dealloc ? id->m_dealloc : id->m_alloc, at, 0);
  if (tpu) xs_stat_int(ev_stat(b), id->st[ST_INDEX_ON_HOST], d);
  else xs_stat_ref(ev_stat(b), id->st[ST_ALLOCATOR_NAME], id->allocator[d]);
  xs_stat_int(ev_stat(b), id->st[ST_BYTES_ALLOCATED], in_use);
  xs_stat_int(ev_stat(b), id->st[ST_BYTES_AVAILABLE], (tpu ? MEM_CAP_TPU : MEM_CAP_GPU) - in_use);
  xs_stat_double(ev_stat(b), id->st[ST_FRAGMENTATION], 0.0);
  xs_stat_int(ev_stat(b), id->st[ST_PEAK_BYTES], peak);
  xs_stat_int(ev_stat(b), id->st[ST_REQUESTED_BYTES], size);
  xs_stat_int(ev_stat(b), id->st[ST_ALLOCATION_BYTES], size);
  xs_stat_uint(ev_stat(b), id->st[ST_ADDR], addr);
}

/* Device d's allocator: the weights once before step 0, then per step four
** activation buffers allocated as the step starts and freed as it ends. */
static void emit_memory(gen *g, int d, int64_t ts_ps, xs_sink *out) {
  evb b;
  if (g->emit_lo == 0) {
    mem_event(g, &b, d, 0, g->t0[0] - 100 * US - ts_ps, MEM_WEIGHTS, MEM_WEIGHTS, MEM_WEIGHTS, MEM_ADDR_BASE);
    xs_event(out, &b.ev);
  }
  for (int64_t s = g->emit_lo; s < g->emit_hi; s++) {
    int64_t h = heavy_step(g, s) ? 2 : 1, prior = mem_prior_peak(g, s), in_use = MEM_WEIGHTS;
    uint64_t addr[4];
    for (int j = 0; j < 4; j++) {
      int64_t size = MEM_ACT * (j + 1) * h;
      addr[j] = MEM_ADDR_BASE + (uint64_t)in_use;
      in_use += size;
      mem_event(g, &b, d, 0, g->t0[s] + (j + 1) * 2 * US - ts_ps, size, in_use, max64(prior, in_use), addr[j]);
      xs_event(out, &b.ev);
    }
    int64_t peak = max64(prior, in_use);
    for (int j = 3; j >= 0; j--) {
      int64_t size = MEM_ACT * (j + 1) * h;
      in_use -= size;
      mem_event(g, &b, d, 1, g->t1[s] - (j + 1) * 2 * US - ts_ps, size, in_use, peak, addr[j]);
      xs_event(out, &b.ev);
    }
  }
}

static void emit_line(void *ctx, const xs_plane *p, size_t line, xs_sink *out) {
  gen *g = ctx;
  int arg = xs_line_arg(p, line), kind = xs_line_kind(p, line);
  int64_t ts_ps = xs_line_timestamp_ns(p, line) * 1000;
  switch (kind) {
    case LK_GPU_KERNELS:
    case LK_GPU_COLLECTIVES:
    case LK_GPU_MEMCPY: emit_gpu_stream(g, arg, ts_ps, kind, out); break;
    case LK_GPU_LAUNCH: emit_gpu_launches(g, arg, ts_ps, out); break;
    case LK_PYTHON: emit_python(g, ts_ps, out); break;
    case LK_TPU_TASKS: emit_tpu_tasks(g, ts_ps, out); break;
    case LK_MEMORY: emit_memory(g, arg, ts_ps, out); break;
    default: emit_tpu_line(g, arg, kind, out); break;
  }
}

/* ------------------------------------------------------------------ planes */

static void intern_stats(gen *g, xs_plane *p, const int *which, int n) {
  for (int k = 0; k < n; k++) g->ids.st[which[k]] = xs_intern(p, stat_names[which[k]]);
}

static xs_plane *gpu_device_plane(gen *g, int d) {
  const model *m = g->m;
  plane_ids *id = &g->ids;
  char name[64];
  snprintf(name, sizeof(name), "/device:GPU:%d", d);
  xs_plane *p = xs_plane_new(d, name);
  int stream = 16 + 3 * d;
  snprintf(name, sizeof(name), "Stream #%d(Kernel)", stream);
  xs_add_line(p, stream, name, g->base_ns, LK_GPU_KERNELS, d);
  snprintf(name, sizeof(name), "Stream #%d(Kernel)", stream + 1);
  xs_add_line(p, stream + 1, name, g->base_ns, LK_GPU_COLLECTIVES, d);
  snprintf(name, sizeof(name), "Stream #%d(MemcpyH2D)", stream + 2);
  xs_add_line(p, stream + 2, name, g->base_ns, LK_GPU_MEMCPY, d);
  /* Plane stats (device capabilities), then the event stat names and the
  ** interned string values. */
  static const char *const caps[] = {"device_vendor", "clock_rate", "core_count",
                                     "memory_bandwidth", "memory_size", "compute_cap_major",
                                     "compute_cap_minor"};
  int64_t c[7];
  for (int k = 0; k < 7; k++) c[k] = xs_intern(p, caps[k]);
  xs_plane_str(p, c[0], "Nvidia");
  xs_stat_int(xs_plane_stat(p), c[1], 1980000);
  xs_stat_int(xs_plane_stat(p), c[2], 132);
  xs_stat_uint(xs_plane_stat(p), c[3], 3352320000000ull);
  xs_stat_uint(xs_plane_stat(p), c[4], 85520809984ull);
  xs_stat_int(xs_plane_stat(p), c[5], 9);
  xs_stat_int(xs_plane_stat(p), c[6], 0);
  static const int used[] = {ST_CORRELATION_ID, ST_KERNEL_DETAILS, ST_TF_OP, ST_HLO_OP,
                             ST_HLO_MODULE, ST_PROGRAM_ID, ST_MEMCPY_DETAILS};
  intern_stats(g, p, used, (int)(sizeof(used) / sizeof(used[0])));
  id->module_ref = xs_intern(p, MODULE_NAME);
  /* Kernel metadata: one per kernel name (library kernels are shared). */
  int64_t gemm_meta[3] = {0, 0, 0}, nccl_meta = 0;
  for (int i = 0; i < m->n; i++) {
    const op_slot *op = &m->ops[i];
    int64_t *shared = NULL;
    if (op->kind == OP_COLLECTIVE) shared = &nccl_meta;
    for (int k = 0; k < 3; k++)
      if (op->kernel == gemm_kernels[k]) shared = &gemm_meta[k];
    if (shared && !*shared) *shared = xs_event_meta(p, op->kernel, NULL);
    id->op_meta[i] = shared ? *shared : xs_event_meta(p, op->kernel ? op->kernel : op->gpu_hlo, NULL);
    id->op_kd[i] = xs_intern(p, op->kernel_details);
    id->op_tf[i] = xs_intern(p, op->triton ? "command_buffer" : op->tf_op);
    id->op_hlo[i] = xs_intern(p, op->gpu_hlo);
  }
  id->m_copy = xs_event_meta(p, "CopyHostToDevice", NULL);
  snprintf(name, sizeof(name), "kind:HtoD size:33554432 dest:%d async:1", d);
  id->copy_details = xs_intern(p, name);
  if (g->o->inject & INJ_TRANSFERS) {
    id->m_d2h = xs_event_meta(p, "CopyDeviceToHost", NULL);
    snprintf(name, sizeof(name), "kind:DtoH size:%d dest:%d async:0", INJ_D2H_BYTES, d);
    id->d2h_details = xs_intern(p, name);
  }
  return p;
}

/* Host event names of the injected problems (only those injected). */
static void inj_host_meta(gen *g, xs_plane *p) {
  unsigned j = g->o->inject;
  if (j & INJ_RECOMPILE) {
    g->ids.m_compile = xs_event_meta(p, "backend_compile", NULL);
    g->ids.m_compile_inner = xs_event_meta(p, "PjRtCompiler::Compile", NULL);
  }
  if (j & INJ_HOST_BOUND) g->ids.m_prep = xs_event_meta(p, "host_preprocess", NULL);
  if (j & INJ_TRANSFERS) g->ids.m_d2h_launch = xs_event_meta(p, "cuMemcpyDtoHAsync_v2", NULL);
  if (j & INJ_SYNC) g->ids.m_sync = xs_event_meta(p, "block_until_ready", NULL);
}

/* The memory lines of a host plane: one per device (its allocator's events),
** with the event names and stat names they use. */
static void memory_lines(gen *g, xs_plane *p) {
  char name[64];
  for (int d = 0; d < g->o->devices; d++) {
    int64_t tid = g->tid + 40 + d;
    snprintf(name, sizeof(name), "py_xla_execute/%lld", (long long)tid);
    xs_add_line(p, tid, name, g->base_ns / 20, LK_MEMORY, d);
    if (g->o->style == STYLE_GPU) {
      snprintf(name, sizeof(name), "GPU_%d_bfc", d);
      g->ids.allocator[d] = xs_intern(p, name);
    }
  }
  g->ids.m_alloc = xs_event_meta(p, "MemoryAllocation", NULL);
  g->ids.m_dealloc = xs_event_meta(p, "MemoryDeallocation", NULL);
  static const int used[] = {ST_BYTES_ALLOCATED, ST_ALLOCATION_BYTES, ST_REQUESTED_BYTES, ST_PEAK_BYTES,
                             ST_BYTES_AVAILABLE, ST_FRAGMENTATION, ST_ADDR, ST_INDEX_ON_HOST, ST_ALLOCATOR_NAME};
  intern_stats(g, p, used, (int)(sizeof(used) / sizeof(used[0])));
}

static xs_plane *gpu_host_plane(gen *g) {
  const model *m = g->m;
  plane_ids *id = &g->ids;
  xs_plane *p = xs_plane_new(0, "/host:CPU");
  char name[64];
  xs_add_line(p, g->tid, "python", g->base_ns / 20, LK_PYTHON, 0);
  for (int d = 0; d < g->o->devices; d++) {
    int64_t tid = g->tid + 17 + 3 * d;
    snprintf(name, sizeof(name), "Host Threads/%lld", (long long)tid);
    xs_add_line(p, tid, name, g->base_ns, LK_GPU_LAUNCH, d);
  }
  id->m_train = xs_event_meta(p, "train", NULL);
  id->m_pjit = xs_event_meta(p, "PjitFunction(train_step)", NULL);
  id->m_exec = xs_event_meta(p, "PjRtStreamExecutorLoadedExecutable::Execute", NULL);
  id->m_copy_launch = xs_event_meta(p, "cuMemcpyHtoDAsync_v2", NULL);
  id->m_launch = xs_event_meta(p, "cuLaunchKernel", NULL);
  inj_host_meta(g, p);
  memory_lines(g, p);
  static const int used[] = {ST_STEP_NUM, ST_R, ST_DEVICE_ID, ST_CORRELATION_ID, ST_HLO_OP,
                             ST_HLO_MODULE, ST_PROGRAM_ID};
  intern_stats(g, p, used, (int)(sizeof(used) / sizeof(used[0])));
  for (int i = 0; i < m->n; i++) id->op_hlo[i] = xs_intern(p, m->ops[i].gpu_hlo);
  id->module_ref = xs_intern(p, MODULE_NAME);
  return p;
}

static xs_plane *tpu_device_plane(gen *g, int d) {
  const model *m = g->m;
  plane_ids *id = &g->ids;
  char name[64];
  snprintf(name, sizeof(name), "/device:TPU:%d", d);
  xs_plane *p = xs_plane_new(2 + 8 * d, name);
  xs_add_line(p, STEPS_LINE_ID, "Steps", 0, LK_TPU_STEPS, d);
  xs_add_line(p, 2, "XLA Modules", 0, LK_TPU_MODULES, d);
  xs_add_line(p, 3, "XLA Ops", 0, LK_TPU_OPS, d);
  xs_add_line(p, 4, "Async XLA Ops", 0, LK_TPU_ASYNC, d);
  int64_t c0 = xs_intern(p, "device_type_string"), c1 = xs_intern(p, "peak_teraflops_per_second"),
          c2 = xs_intern(p, "peak_hbm_bw_gigabytes_per_second");
  xs_plane_str(p, c0, "TPU v5 lite");
  xs_stat_double(xs_plane_stat(p), c1, TPU_PEAK_TFLOPS);
  xs_stat_double(xs_plane_stat(p), c2, TPU_PEAK_HBM_GBPS);
  static const int used[] = {ST_RUN_ID, ST_REPLICA_ID, ST_DEVICE_OFFSET, ST_DEVICE_DURATION,
                             ST_HLO_CATEGORY, ST_PROGRAM_ID, ST_FLOPS, ST_BYTES_ACCESSED,
                             ST_SHAPE, ST_TF_OP, ST_SOURCE};
  intern_stats(g, p, used, (int)(sizeof(used) / sizeof(used[0])));
  snprintf(name, sizeof(name), "%s(%d)", MODULE_NAME, PROGRAM_ID);
  id->m_module = xs_event_meta(p, name, NULL);
  for (int i = 0; i < m->n; i++) {
    const op_slot *op = &m->ops[i];
    int64_t k = id->op_meta[i] = xs_event_meta(p, op->long_name, op->hlo);
    xs_meta_str(p, k, id->st[ST_HLO_CATEGORY], op->category);
    xs_stat_uint(xs_meta_stat(p, k), id->st[ST_PROGRAM_ID], PROGRAM_ID);
    xs_stat_int(xs_meta_stat(p, k), id->st[ST_FLOPS], op->flops);
    xs_stat_int(xs_meta_stat(p, k), id->st[ST_BYTES_ACCESSED], op->bytes_accessed);
    xs_meta_str(p, k, id->st[ST_SHAPE], op->shape);
    xs_meta_str(p, k, id->st[ST_TF_OP], op->tf_op);
    snprintf(name, sizeof(name), "model.py:%d", op->source_line);
    xs_meta_str(p, k, id->st[ST_SOURCE], name);
  }
  id->m_while = xs_event_meta(p, m->while_long, m->while_name);
  xs_meta_str(p, id->m_while, id->st[ST_HLO_CATEGORY], "control flow");
  xs_stat_uint(xs_meta_stat(p, id->m_while), id->st[ST_PROGRAM_ID], PROGRAM_ID);
  xs_meta_str(p, id->m_while, id->st[ST_TF_OP], "jit(train_step)/optimizer/while");
  for (int j = 0; j < TPU_ASYNC; j++) {
    char display[32], *text;
    snprintf(display, sizeof(display), "copy-start.%d", j);
    text = str_printf("%%%s = (bf16[1024,4096]{1,0:T(8,128)(2,1)}, "
                      "bf16[1024,4096]{1,0:T(8,128)(2,1)S(1)}, u32[]{:S(2)}) "
                      "copy-start(bf16[1024,4096]{1,0:T(8,128)(2,1)} %%param.%d)",
                      display, 100 + j);
    int64_t k = id->m_async[j] = xs_event_meta(p, text, display);
    free(text);
    xs_meta_str(p, k, id->st[ST_HLO_CATEGORY], "data formatting");
    xs_stat_uint(xs_meta_stat(p, k), id->st[ST_PROGRAM_ID], PROGRAM_ID);
    xs_stat_int(xs_meta_stat(p, k), id->st[ST_BYTES_ACCESSED], 2LL * 2 * 1024 * 4096);
    snprintf(name, sizeof(name), "jit(train_step)/jvp(model)/layer_%d/prefetch", j);
    xs_meta_str(p, k, id->st[ST_TF_OP], name);
  }
  id->m_steps0 = xs_event_meta_numbered(p, g->steps, 0);
  return p;
}

static xs_plane *tpu_host_plane(gen *g) {
  plane_ids *id = &g->ids;
  xs_plane *p = xs_plane_new(0, "/host:CPU");
  char name[64];
  snprintf(name, sizeof(name), "main/%lld", (long long)g->tid);
  xs_add_line(p, g->tid, name, g->base_ns, LK_PYTHON, 0);
  snprintf(name, sizeof(name), "pjrt-tpu-tasks/%lld", (long long)(g->tid + 560));
  xs_add_line(p, g->tid + 560, name, g->base_ns, LK_TPU_TASKS, 0);
  id->m_train = xs_event_meta(p, "train", NULL);
  id->m_pjit = xs_event_meta(p, "PjitFunction(train_step)", NULL);
  id->m_enqueue = xs_event_meta(p, "DoEnqueueProgram", NULL);
  inj_host_meta(g, p);
  memory_lines(g, p);
  static const int used[] = {ST_STEP_NUM, ST_R};
  intern_stats(g, p, used, 2);
  return p;
}

static xs_plane *task_env_plane(gen *g) {
  xs_plane *p = xs_plane_new(0, "Task Environment");
  int64_t a = xs_intern(p, "profile_start_time"), b = xs_intern(p, "profile_stop_time");
  /* One session for all hosts: the seed fixes the day, hosts start 137 us apart. */
  uint64_t start = 1760000000000000000ull + mix(g->o->seed) % 86400000000000ull +
                   (uint64_t)g->host * 137000;
  xs_stat_uint(xs_plane_stat(p), a, start);
  xs_stat_uint(xs_plane_stat(p), b, start + (uint64_t)(g->t1[g->steps - 1] / 1000) + 1000000);
  return p;
}

/* The whole XSpace of g's host into out. */
static void write_host(gen *g, xs_sink *out, xs_counts *counts) {
  int tpu = g->o->style == STYLE_TPU;
  for (int d = 0; d < g->o->devices; d++) {
    xs_plane *p = tpu ? tpu_device_plane(g, d) : gpu_device_plane(g, d);
    xs_write_plane(out, p, emit_line, g, counts);
    xs_plane_free(p);
  }
  xs_plane *p = tpu ? tpu_host_plane(g) : gpu_host_plane(g);
  xs_write_plane(out, p, emit_line, g, counts);
  xs_plane_free(p);
  p = task_env_plane(g);
  xs_write_plane(out, p, emit_line, g, counts);
  xs_plane_free(p);
  xs_string_field(out, 4, g->hostname);
}

/* ------------------------------------------------------------------ sizing */

/* Bytes of host 0's file of `steps` steps if only the events of steps
** [lo, hi) were written. */
static uint64_t host_size(const options *o, const model *m, int64_t steps, int64_t lo, int64_t hi) {
  gen g;
  gen_init(&g, o, m, 0, steps);
  g.emit_lo = lo;
  g.emit_hi = hi;
  xs_sink s;
  xs_counts c = {0, 0, 0};
  xs_sink_count(&s);
  write_host(&g, &s, &c);
  gen_free(&g);
  return s.bytes;
}

/* The size of a host file as fixed + per_step * steps, from two short runs.
** It runs low by up to ~5 % for long runs: a step's bytes grow slowly with
** its time, as offsets need longer varints later on. */
static void size_model(const options *o, const model *m, double *fixed, double *per_step) {
  const int64_t s1 = 8, s2 = 24;
  double z1 = (double)host_size(o, m, s1, 0, s1), z2 = (double)host_size(o, m, s2, 0, s2);
  *per_step = (z2 - z1) / (double)(s2 - s1);
  *fixed = z1 - *per_step * (double)s1;
}

/* Steps for --target-mb: a first guess from size_model, then the fixed part
** and the mean step size of a run of that length, measured on four windows
** of it (midpoint rule). Typically within 1 %. */
static int64_t steps_for_target(const options *o, const model *m) {
  const int64_t win = 16;
  double want = (double)o->target_mb * 1e6, fixed, per_step;
  size_model(o, m, &fixed, &per_step);
  int64_t steps = (int64_t)ceil((want - fixed) / per_step);
  if (steps > 8 * win) {
    fixed = (double)host_size(o, m, steps, 0, 0);
    double sum = 0;
    for (int q = 0; q < 4; q++) {
      int64_t lo = steps * (2 * q + 1) / 8 - win / 2;
      sum += (double)host_size(o, m, steps, lo, lo + win) - fixed;
    }
    steps = (int64_t)ceil((want - fixed) / (sum / (4.0 * (double)win)));
  }
  return steps > 1 ? steps : 1;
}

/* Refuse (exit 2) a file that would pass the 2 GiB protobuf limit. */
static void check_size_limit(const options *o, const model *m, int64_t steps) {
  double fixed, per_step;
  size_model(o, m, &fixed, &per_step);
  double mb = 1.05 * (fixed + per_step * (double)steps) / 1e6;
  if (mb > (double)INT32_MAX / 1e6)
    bad_usage("%lld steps of %lld ops on %lld devices make about %.0f MB per host file, over "
              "the 2 GiB protobuf limit; lower --steps, --devices or --ops-per-step",
              (long long)steps, (long long)o->ops, (long long)o->devices, mb);
}

/* ---------------------------------------------------------------- output */

static void mkdirs(const char *path) {
  char *p = strdup(path);
  if (!p) xs_die("out of memory");
  for (char *c = p + 1;; c++) {
    if (*c != '/' && *c) continue;
    char saved = *c;
    *c = 0;
    if (mkdir(p, 0777) && errno != EEXIST) xs_die("cannot create directory %s: %s", p, strerror(errno));
    *c = saved;
    if (!saved) break;
  }
  free(p);
}

/* ------------------------------------------------------------ the HLO proto */

/* A shape's text (bf16[8192,1024]{1,0:...}) as an xla.ShapeProto; dims
** must hold 8. */
static void hlo_shape(const char *text, Xla__ShapeProto *sh, int64_t *dims) {
  xla__shape_proto__init(sh);
  static const struct { const char *name; Xla__PrimitiveType t; } types[] = {
      {"bf16", XLA__PRIMITIVE_TYPE__BF16}, {"f32", XLA__PRIMITIVE_TYPE__F32}, {"s32", XLA__PRIMITIVE_TYPE__S32}};
  size_t tn = strcspn(text, "[");
  for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++)
    if (strlen(types[k].name) == tn && strncmp(text, types[k].name, tn) == 0) sh->element_type = types[k].t;
  const char *c = text + tn;
  size_t n = 0;
  while (*c == '[' || *c == ',') {
    c++;
    if (*c == ']') break;
    dims[n++] = strtoll(c, (char **)&c, 10);
    if (n == 8) break;
  }
  sh->dimensions = dims;
  sh->n_dimensions = n;
}

/* The training step's optimized module, as XLA dumps it
** (<run>/jit_train_step.hlo_proto.pb): one entry computation `main` whose
** instructions are the op slots in order (ids 1..N) and, on TPU, the while
** loop (id N+1, the root), each with its name (the op name the device
** lines carry: the TPU display name, the GPU hlo_op), opcode, shape and
** metadata (op_type = the JAX primitive, op_name = the name stack,
** source_file model.py and the slot's source_line). GPU library matmuls are
** custom-calls to __cublas$gemm; Triton GEMM fusions are kCustom fusions. */
static void write_hlo(const options *o, const model *m, const char *dir) {
  int tpu = o->style == STYLE_TPU, n = m->n + (tpu ? 1 : 0);
  Xla__HloInstructionProto *ins = calloc((size_t)n, sizeof(*ins));
  Xla__HloInstructionProto **insp = calloc((size_t)n, sizeof(*insp));
  Xla__ShapeProto *shapes = calloc((size_t)n, sizeof(*shapes));
  Xla__OpMetadata *meta = calloc((size_t)n, sizeof(*meta));
  int64_t *dims = calloc((size_t)n * 8, sizeof(int64_t)), *operands = calloc((size_t)n, sizeof(int64_t));
  if (!ins || !insp || !shapes || !meta || !dims || !operands) xs_die("out of memory");
  for (int i = 0; i < n; i++) {
    Xla__HloInstructionProto *h = &ins[i];
    xla__hlo_instruction_proto__init(h);
    xla__op_metadata__init(&meta[i]);
    insp[i] = h;
    h->id = i + 1;
    if (i > 0) {
      operands[i] = i;
      h->operand_ids = &operands[i];
      h->n_operand_ids = 1;
    }
    h->metadata = &meta[i];
    meta[i].source_file = "model.py";
    if (i == m->n) { /* TPU: the optimizer's while loop */
      h->name = (char *)m->while_name;
      h->opcode = "while";
      hlo_shape(m->ops[m->n - 1].shape, &shapes[i], &dims[8 * i]);
      h->shape = &shapes[i];
      meta[i].op_type = "while";
      meta[i].op_name = "jit(train_step)/optimizer/while";
      continue;
    }
    const op_slot *op = &m->ops[i];
    h->name = (char *)(tpu ? op->hlo : op->gpu_hlo);
    const char *slash = strrchr(op->tf_op, '/');
    meta[i].op_type = (char *)(slash ? slash + 1 : op->tf_op);
    meta[i].op_name = (char *)op->tf_op;
    meta[i].source_line = op->source_line;
    hlo_shape(op->shape, &shapes[i], &dims[8 * i]);
    h->shape = &shapes[i];
    switch (op->kind) {
      case OP_FUSION:
      case OP_OPTIMIZER: h->opcode = "fusion"; h->fusion_kind = "kLoop"; break;
      case OP_TRANSPOSE: h->opcode = "transpose"; break;
      case OP_COLLECTIVE: h->opcode = "all-reduce"; break;
      case OP_IOTA: h->opcode = "iota"; break;
      case OP_PAYLOAD: h->opcode = "convolution"; break;
      case OP_HOT:
      case OP_DOT:
        if (tpu) {
          h->opcode = op->kind == OP_HOT ? "fusion" : "convolution";
          if (op->kind == OP_HOT) h->fusion_kind = "kOutput";
        } else if (op->triton) {
          h->opcode = "fusion";
          h->fusion_kind = "kCustom";
        } else {
          h->opcode = "custom-call";
          h->custom_call_target = "__cublas$gemm";
        }
        break;
    }
  }
  Xla__HloComputationProto comp = XLA__HLO_COMPUTATION_PROTO__INIT, *compp = &comp;
  comp.name = "main";
  comp.id = 1;
  comp.instructions = insp;
  comp.n_instructions = (size_t)n;
  comp.root_id = n;
  Xla__HloModuleProto mod = XLA__HLO_MODULE_PROTO__INIT;
  mod.name = MODULE_NAME;
  mod.id = PROGRAM_ID;
  mod.entry_computation_name = "main";
  mod.entry_computation_id = 1;
  mod.computations = &compp;
  mod.n_computations = 1;
  Xla__HloProto hp = XLA__HLO_PROTO__INIT;
  hp.hlo_module = &mod;
  size_t len = xla__hlo_proto__get_packed_size(&hp);
  uint8_t *buf = malloc(len ? len : 1);
  if (!buf) xs_die("out of memory");
  xla__hlo_proto__pack(&hp, buf);
  char *path = str_printf("%s/%s", dir, HLO_FILE);
  FILE *f = fopen(path, "wb");
  if (!f) xs_die("cannot create %s: %s", path, strerror(errno));
  int err = fwrite(buf, 1, len, f) == len ? 0 : errno;
  if (fclose(f) && !err) err = errno;
  if (err) xs_die("writing %s: %s", path, strerror(err));
  free(path);
  free(buf);
  free(ins);
  free(insp);
  free(shapes);
  free(meta);
  free(dims);
  free(operands);
}

int main(int argc, char **argv) {
  options o;
  parse_options(argc, argv, &o);
  model m;
  model_build(&m, &o);
  /* The step count: --steps, or what --target-mb needs (an explicit --steps
  ** being a minimum). Only a count from --steps can pass the 2 GiB limit. */
  int64_t steps = o.target_mb ? steps_for_target(&o, &m) : 0;
  if (!o.target_mb || (o.steps_given && o.steps > steps)) {
    check_size_limit(&o, &m, o.steps);
    steps = o.steps;
  }
  char *dir = str_printf("%s/plugins/profile/%s", o.out, o.run);
  mkdirs(dir);
  write_hlo(&o, &m, dir);
  for (int h = 0; h < o.hosts; h++) {
    gen g;
    gen_init(&g, &o, &m, h, steps);
    char *path = str_printf("%s/%s.xplane.pb", dir, g.hostname);
    FILE *f = fopen(path, "wb");
    if (!f) xs_die("cannot create %s: %s", path, strerror(errno));
    xs_sink out;
    if (xs_sink_file(&out, f)) xs_die("out of memory");
    xs_counts c = {0, 0, 0};
    write_host(&g, &out, &c);
    int err = xs_sink_close(&out);
    if (fclose(f) && !err) err = errno;
    if (err) xs_die("writing %s: %s", path, strerror(err));
    printf("{\"path\":");
    xs_print_json_string(path);
    printf(",\"host\":\"%s\",\"run\":", g.hostname);
    xs_print_json_string(o.run);
    printf(",\"style\":\"%s\",\"steps\":%" PRId64 ",\"ops_per_step\":%" PRId64
           ",\"bytes\":%" PRIu64 ",\"planes\":%" PRIu64 ",\"lines\":%" PRIu64
           ",\"events\":%" PRIu64 "}\n",
           o.style == STYLE_GPU ? "gpu" : "tpu", steps, o.ops, out.bytes, c.planes, c.lines,
           c.events);
    fflush(stdout);
    free(path);
    gen_free(&g);
  }
  free(dir);
  model_free(&m);
  return 0;
}
