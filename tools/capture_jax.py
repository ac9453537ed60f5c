"""tools/capture_jax.py: profile a small but real JAX training loop on the CPU.

A data-parallel MLP over N CPU devices (--xla_force_host_platform_device_count):
the batch is sharded over the devices and the weights replicated, so XLA
reduces the gradients with an all-reduce between the devices. Each step is a
`jax.profiler.StepTraceAnnotation("train", step_num=i)`; the model runs under
`jax.named_scope` regions (mlp/layer_0, mlp/layer_1, loss, optimizer). The
profile lands where TensorBoard and xprof look for it:
OUT/plugins/profile/<run>/<host>.xplane.pb.

Variants plant one performance killer each, or all of them:
  clean       nothing planted
  recompile   the batch shape changes every other step (a recompilation)
  h2d         a fresh host batch (32 MiB at the defaults) is copied to the devices every step
  sync        the loss is read back on the host every step (a blocking sync)
  tiny        100 tiny ops dispatched one by one every step
  hostbound   slow host-side input preparation (150 ms) before every step
  all         all of the above

Usage (the project venv, tools/venv.sh):
  build/venv/bin/python tools/capture_jax.py --out LOGDIR [--variant clean]
      [--steps 12] [--width 1024] [--batch 256] [--devices 2] [--run NAME]
The size grows with --steps, most with the variants that add events (tiny:
100 program runs a step): `--variant tiny --steps 4000` wrote 312,583,174
bytes in 139 s here (the clean run: about 10 KB a step). Prints the path of the profile written.
"""
import argparse
import glob
import os
import sys
import time

VARIANTS = ("clean", "recompile", "h2d", "sync", "tiny", "hostbound", "all")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="the logdir to write")
    ap.add_argument("--variant", default="clean", choices=VARIANTS)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--width", type=int, default=1024)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--run", default=None, help="the run directory's name (default: the variant)")
    args = ap.parse_args()
    if args.steps < 1 or args.width < 1 or args.batch < 1 or args.devices < 1 or args.batch % args.devices:
        ap.error("--steps, --width, --batch, --devices must be positive; --batch a multiple of --devices")
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               f" --xla_force_host_platform_device_count={args.devices}").strip()
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    planted = set(VARIANTS[1:-1]) if args.variant == "all" else {args.variant} - {"clean"}
    mesh = Mesh(np.array(jax.devices()[:args.devices]), ("data",))
    batch_sharding = NamedSharding(mesh, P("data"))
    replicated = NamedSharding(mesh, P())

    def loss_fn(params, x, y):
        with jax.named_scope("mlp"):
            with jax.named_scope("layer_0"):
                h = jnp.tanh(x @ params["w0"] + params["b0"])
            with jax.named_scope("layer_1"):
                out = h @ params["w1"]
        with jax.named_scope("loss"):
            return jnp.mean((out - y) ** 2)

    @jax.jit
    def train_step(params, x, y, aux):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        loss = loss + 1e-9 * jnp.mean(aux)  # the step reads its whole input
        with jax.named_scope("optimizer"):
            params = jax.tree_util.tree_map(lambda p, g: p - 1e-3 * g, params, grads)
        return params, loss

    rng = np.random.default_rng(0)
    w = args.width
    params = jax.device_put({"w0": jnp.asarray(rng.normal(size=(w, w)), jnp.float32) * 0.05,
                             "b0": jnp.zeros((w,), jnp.float32),
                             "w1": jnp.asarray(rng.normal(size=(w, 8)), jnp.float32) * 0.05}, replicated)

    aux_host = np.empty((args.batch, 32 * w), np.float32) if "h2d" in planted else None

    def batch(step):
        n = args.batch
        if "recompile" in planted:
            n += args.devices * (step + 1)  # a new shape every step: a new compilation
        x = rng.normal(size=(n, w)).astype(np.float32)
        y = rng.normal(size=(n, 8)).astype(np.float32)
        if "hostbound" in planted:
            t = time.perf_counter()
            # slow host-side preprocessing, 150 ms of wall time: about 3x a step's device
            # work here, so the devices idle ~2/3 of their wall. At 50 ms the idle share was
            # 0.29-0.37 against the rule's 0.25, and a loaded machine (CI) stretched the
            # device work enough to miss it on one device
            while time.perf_counter() - t < 0.15:
                x = np.tanh(x)
        # h2d: each step's input also carries a raw 32 x width float32 block per
        # example (32 MiB at the defaults), refilled on the host in place
        aux = aux_host[:n] if "h2d" in planted else np.zeros((args.devices,), np.float32)
        aux.fill(step)
        return x, y, aux

    resident = tuple(jax.device_put(a, batch_sharding) for a in batch(0))
    params, loss = train_step(params, *resident)  # compile before the trace
    jax.block_until_ready(params)
    zero = jax.device_put(np.float32(0))
    if "tiny" in planted:
        jax.block_until_ready(zero + 1)  # compile the tiny op before the trace too

    jax.profiler.start_trace(args.out)
    try:
        for step in range(args.steps):
            with jax.profiler.StepTraceAnnotation("train", step_num=step):
                if planted & {"h2d", "recompile", "hostbound"}:
                    inputs = tuple(jax.device_put(a, batch_sharding) for a in batch(step))
                else:
                    inputs = resident
                params, loss = train_step(params, *inputs)
                if "tiny" in planted:
                    v = zero
                    for _ in range(100):
                        v = v + 1  # one tiny op dispatched at a time
                if "sync" in planted:
                    float(loss)  # a blocking read back to the host
        jax.block_until_ready(params)  # once, after the loop (the clean habit)
    finally:
        jax.profiler.stop_trace()
    run_dirs = sorted(glob.glob(os.path.join(args.out, "plugins", "profile", "*")), key=os.path.getmtime)
    if not run_dirs:
        sys.exit(f"capture_jax: no profile written under {args.out}")
    run_dir = run_dirs[-1]
    if args.run is None:
        args.run = args.variant
    if os.path.basename(run_dir) != args.run:
        target = os.path.join(os.path.dirname(run_dir), args.run)
        if os.path.exists(target):
            sys.exit(f"capture_jax: {target} exists already (choose another --run or --out)")
        os.rename(run_dir, target)
        run_dir = target
    for f in sorted(glob.glob(os.path.join(run_dir, "*.xplane.pb"))):
        print(f)


if __name__ == "__main__":
    main()
