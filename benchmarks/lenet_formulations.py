"""Which formulation of the seed's LeNet training step is fastest on XLA:CPU (issue 7 research).

One jitted train step (forward, backward, SGD lr 0.1 with MXNet's 1/batch rescale, parameters donated)
per formulation on a fixed batch of 256, timed in interleaved rounds; per formulation: ms/step (median,
10th percentile and process CPU time), the projected 60,000-image epoch (x235), GFLOP/s and the ratio
to the plain NCHW lax step, plus a correctness check (loss and gradients against the plain-lax
reference of the default-flag run, and the loss after 20 training steps). XLA flag sets, one CPU core
and two CPU devices (data parallel with shard_map) each run in a subprocess, because XLA reads its
flags once. PyTorch eager is timed too when ``--torch PYTHON`` names an interpreter that has torch.

    python -m benchmarks.lenet_formulations                  # all formulations, 1 core, 2 devices (~5 min)
    python -m benchmarks.lenet_formulations --flags all      # ... and every XLA flag set (~10 min)
    python -m benchmarks.lenet_formulations --quick          # 3 rounds, default flags and 2 devices
    python -m benchmarks.lenet_formulations --variants nchw_lax,fast_cpu_fused --flags default,onednn

The numbers and the decision are in notes/speed.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as onp

BATCH, STEPS_PER_EPOCH, LR = 256, 235, 0.1
TOLERANCE = 1e-4  # relative: float32 rounding of a different summation order stays far below
FLOP_PER_SAMPLE = 1_217_520  # forward 463,440 + backward 754,080 (FACTS.md)
SHAPES = {"0.weight": (6, 1, 5, 5), "0.bias": (6,), "2.weight": (16, 6, 3, 3), "2.bias": (16,),
          "4.weight": (120, 400), "4.bias": (120,), "5.weight": (84, 120), "5.bias": (84,),
          "6.weight": (10, 84), "6.bias": (10,)}
FLAG_SETS = {
    "default": "",
    "no_concurrency_sched": "--xla_cpu_enable_concurrency_optimized_scheduler=false",
    "sched_memory": "--xla_cpu_scheduler_type=CPU_SCHEDULER_TYPE_MEMORY_OPTIMIZED",
    "sched_concurrency": "--xla_cpu_scheduler_type=CPU_SCHEDULER_TYPE_CONCURRENCY_OPTIMIZED",
    "onednn": "--xla_cpu_use_onednn=true",
    "no_xnnpack": "--xla_cpu_use_xnnpack=false",
    "xnn_graph_greedy": "--xla_cpu_experimental_xnn_graph_fusion_mode=XNN_GRAPH_FUSION_MODE_GREEDY",
    "eigen_1_thread": "--xla_cpu_multi_thread_eigen=false",
    "vector_512": "--xla_cpu_prefer_vector_width=512",
    "fast_math": "--xla_cpu_enable_fast_math=true",
    "one_core": "",  # run under `taskset -c 0`: XLA's intra-op pool gets one core
    "two_devices": "--xla_force_host_platform_device_count=2",
}
FLAG_VARIANTS = ("nchw_lax", "nhwc_reshape_pool", "fast_cpu_ops", "fast_cpu_fused", "row_layout")

# The entry point's common options this benchmark takes (python -m benchmarks passes these on).
COMMON_OPTIONS = ("--quick", "--repeats")


# ------------------------------------------------------------------------------------ formulations
def _formulations() -> dict[str, Callable]:
    """name -> fwd(params, x_nchw) -> logits. Built lazily: JAX must start after XLA_FLAGS is set."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    from framework.npx import fast_cpu

    relu = jax.nn.relu
    nchw, nhwc = ("NCHW", "OIHW", "NCHW"), ("NHWC", "HWIO", "NHWC")

    def tail(p, h):  # h: (N, 400) in MXNet's (c, h, w) flatten order
        h = relu(h @ p["4.weight"].T + p["4.bias"])
        h = relu(h @ p["5.weight"].T + p["5.bias"])
        return h @ p["6.weight"].T + p["6.bias"]

    def conv(x, w, dn):
        return lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=dn)

    def hwio(w):
        return jnp.transpose(w, (2, 3, 1, 0))

    def pool_rw(h, axes):
        dims = tuple(2 if a in axes else 1 for a in range(4))
        return lax.reduce_window(h, -jnp.inf, lax.max, dims, dims, "VALID")

    def pool_reshape_nhwc(h):
        n, hh, ww, c = h.shape
        return h.reshape(n, hh // 2, 2, ww // 2, 2, c).max(axis=(2, 4))

    def nchw_lax(p, x):
        h = pool_rw(relu(conv(x, p["0.weight"], nchw) + p["0.bias"][:, None, None]), (2, 3))
        h = pool_rw(relu(conv(h, p["2.weight"], nchw) + p["2.bias"][:, None, None]), (2, 3))
        return tail(p, h.reshape(h.shape[0], -1))

    def nchw_reshape_pool(p, x):
        def pool(h):
            n, c, hh, ww = h.shape
            return h.reshape(n, c, hh // 2, 2, ww // 2, 2).max(axis=(3, 5))
        h = pool(relu(conv(x, p["0.weight"], nchw) + p["0.bias"][:, None, None]))
        h = pool(relu(conv(h, p["2.weight"], nchw) + p["2.bias"][:, None, None]))
        return tail(p, h.reshape(h.shape[0], -1))

    def nhwc_net(conv_fn, pool):
        def fwd(p, x):
            h = jnp.transpose(x, (0, 2, 3, 1))
            h = pool(relu(conv_fn(h, p["0.weight"]) + p["0.bias"]))
            h = pool(relu(conv_fn(h, p["2.weight"]) + p["2.bias"]))
            return tail(p, jnp.transpose(h, (0, 3, 1, 2)).reshape(h.shape[0], -1))
        return fwd

    def lax_nhwc(h, w):
        return conv(h, hwio(w), nhwc)

    def im2col_patches(h, w):  # patches feature order is (c, i, j), as OIHW flattens
        o, c, k, _ = w.shape
        pt = lax.conv_general_dilated_patches(h, (k, k), (1, 1), "VALID", dimension_numbers=nhwc)
        return pt @ w.reshape(o, c * k * k).T

    def shifted_gemm(h, w):  # sum over taps of (N*Ho*Wo, C) @ (C, O)
        o, c, k, _ = w.shape
        ho, wo = h.shape[1] - k + 1, h.shape[2] - k + 1
        return sum(h[:, i:i + ho, j:j + wo, :] @ w[:, :, i, j].T for i in range(k) for j in range(k))

    def patches_nhwc(h, k):  # (N, Ho, Wo, k*k*C), feature order (i, j, c)
        ho, wo = h.shape[1] - k + 1, h.shape[2] - k + 1
        return jnp.concatenate([h[:, i:i + ho, j:j + wo, :] for i in range(k) for j in range(k)], axis=-1)

    def gemm_bwd(shifted: bool):
        @jax.custom_vjp
        def f(h, w):
            return lax_nhwc(h, w)

        def fwd(h, w):
            return lax_nhwc(h, w), (h, w)

        def bwd(res, g):
            h, w = res
            o, c, k, _ = w.shape
            ho, wo = g.shape[1:3]
            g2 = g.reshape(-1, o)
            if shifted:  # weight gradient as k*k GEMMs (O, M) @ (M, C)
                dw = jnp.stack([g2.T @ h[:, i:i + ho, j:j + wo, :].reshape(-1, c)
                                for i in range(k) for j in range(k)], axis=-1).reshape(o, c, k, k)
            else:  # one GEMM over (N*Ho*Wo, k*k*C) patches
                dw = (g2.T @ patches_nhwc(h, k).reshape(-1, k * k * c)).reshape(o, k, k, c)
                dw = jnp.transpose(dw, (0, 3, 1, 2))
            # input gradient as a transposed convolution: full padding, flipped kernel
            wt = jnp.transpose(w[:, :, ::-1, ::-1], (2, 3, 0, 1))
            dh = lax.conv_general_dilated(g, wt, (1, 1), [(k - 1, k - 1)] * 2, dimension_numbers=nhwc)
            return dh, dw

        f.defvjp(fwd, bwd)
        return f

    def im2col_chwn(p, x):  # batch-minor (C, H, W, N): slices + one GEMM per convolution
        n = x.shape[0]
        xc = jnp.transpose(x[:, 0], (1, 2, 0))
        pt = jnp.stack([xc[i:i + 24, j:j + 24] for i in range(5) for j in range(5)], 0).reshape(25, -1)
        y = (p["0.weight"].reshape(6, 25) @ pt).reshape(6, 12, 2, 12, 2, n)
        h = relu(y.max(axis=(2, 4)) + p["0.bias"][:, None, None, None])
        pt = jnp.stack([h[:, i:i + 10, j:j + 10] for i in range(3) for j in range(3)], 1).reshape(54, -1)
        y = (p["2.weight"].reshape(16, 54) @ pt).reshape(16, 5, 2, 5, 2, n)
        h = relu(y.max(axis=(2, 4)) + p["2.bias"][:, None, None, None]).reshape(400, n)
        return tail(p, h.T)

    def fast_cpu_ops(p, x):  # drop-in NCHW ops: what npx can dispatch to per operator
        h = fast_cpu.max_pool2d(relu(fast_cpu.conv2d(x, p["0.weight"], p["0.bias"])), 2)
        h = fast_cpu.max_pool2d(relu(fast_cpu.conv2d(h, p["2.weight"], p["2.bias"])), 2)
        return tail(p, h.reshape(h.shape[0], -1))

    def fast_cpu_ops_pool_first(p, x):  # relu(pool(z) + b) == pool(relu(z + b)), also in gradient
        h = fast_cpu.max_pool2d(fast_cpu.conv2d(x, p["0.weight"]), 2)
        h = relu(h + p["0.bias"][:, None, None])
        h = fast_cpu.max_pool2d(fast_cpu.conv2d(h, p["2.weight"]), 2)
        h = relu(h + p["2.bias"][:, None, None])
        return tail(p, h.reshape(h.shape[0], -1))

    def fast_cpu_fused(p, x):  # Conv2D(relu) + MaxPool2D pairs as one op each, NCHW between them
        h = fast_cpu.conv2d_maxpool2d(x, p["0.weight"], p["0.bias"], activation="relu")
        h = fast_cpu.conv2d_maxpool2d(h, p["2.weight"], p["2.bias"], activation="relu")
        return tail(p, h.reshape(h.shape[0], -1))

    def row_layout(bw1: int):
        """The whole network in row layout (N, H, features): banded GEMMs whose output columns are
        ordered (w parity, channel, w // 2) so 2x2 pooling is a max of four contiguous blocks, with
        bias and relu after the pool (4x fewer elements). Weights stay OIHW outside the step."""
        nb = 24 // bw1

        def band(w, in_cols, out_cols, k):  # T[(i, f), q] = w[o_q, c_f, i, x_f - wo_q]
            e = onp.zeros((w.shape[1], k, len(in_cols), len(out_cols)), onp.float32)
            for f, (c, xw) in enumerate(in_cols):
                for q, (_, wo) in enumerate(out_cols):
                    if 0 <= xw - wo < k:
                        e[c, xw - wo, f, q] = 1
            wq = jnp.transpose(w, (1, 2, 3, 0))[..., onp.array([o for o, _ in out_cols])]
            return jnp.einsum("cijq,cjfq->ifq", wq, e).reshape(k * len(in_cols), len(out_cols))

        in1 = [(0, xw) for xw in range(bw1 + 4)]
        out1 = [(o, 2 * v + par) for par in range(2) for o in range(6) for v in range(bw1 // 2)]
        in2 = [(o, b * bw1 // 2 + v) for b in range(nb) for o in range(6) for v in range(bw1 // 2)]
        out2 = [(o, 2 * v + par) for par in range(2) for o in range(16) for v in range(5)]

        def pool(y, ha, wa):  # first-max gradient, like reduce_window
            return fast_cpu._tiled_max(y, (ha, wa))

        def fwd(p, x):
            n = x.shape[0]
            x2 = x[:, 0]
            pieces = [x2[:, i:i + 24, b * bw1:b * bw1 + bw1 + 4] for b in range(nb) for i in range(5)]
            pt = jnp.stack(pieces, axis=2).reshape(n * 24 * nb, 5 * (bw1 + 4))
            y = (pt @ band(p["0.weight"], in1, out1, 5)).reshape(n, 12, 2, nb, 2, 6 * bw1 // 2)
            h = pool(y, 2, 4).reshape(n, 12, nb, 6, bw1 // 2)
            h = relu(h + p["0.bias"][:, None]).reshape(n, 12, 6 * 12)
            pt = jnp.stack([h[:, i:i + 10] for i in range(3)], axis=2).reshape(n * 10, 216)
            y = (pt @ band(p["2.weight"], in2, out2, 3)).reshape(n, 5, 2, 2, 80)
            h = pool(y, 2, 3).reshape(n, 5, 16, 5)
            h = relu(h + p["2.bias"][:, None]).reshape(n, 400)  # (h, c, w) order
            w4 = p["4.weight"].reshape(120, 16, 5, 5).transpose(0, 2, 1, 3).reshape(120, 400)
            return tail({**p, "4.weight": w4}, h)
        return fwd

    gemm_one, gemm_shift = gemm_bwd(False), gemm_bwd(True)
    return {
        "nchw_lax": nchw_lax,
        "nchw_reshape_pool": nchw_reshape_pool,
        "nhwc_lax": nhwc_net(lax_nhwc, lambda h: pool_rw(h, (1, 2))),
        "nhwc_reshape_pool": nhwc_net(lax_nhwc, pool_reshape_nhwc),
        "im2col_patches": nhwc_net(im2col_patches, pool_reshape_nhwc),
        "shifted_gemm": nhwc_net(shifted_gemm, pool_reshape_nhwc),
        "gemm_bwd_one": nhwc_net(gemm_one, pool_reshape_nhwc),
        "gemm_bwd_shifted": nhwc_net(gemm_shift, pool_reshape_nhwc),
        "im2col_chwn": im2col_chwn,
        "fast_cpu_ops": fast_cpu_ops,
        "fast_cpu_pool_first": fast_cpu_ops_pool_first,
        "fast_cpu_fused": fast_cpu_fused,
        "row_layout": row_layout(8),
        "row_layout_bw24": row_layout(24),
    }


# ------------------------------------------------------------------------------------ child process
def _init(seed: int = 0):
    rng = onp.random.RandomState(seed)
    params = {k: rng.uniform(-0.07, 0.07, s).astype(onp.float32) for k, s in SHAPES.items()}
    x = rng.uniform(0, 1, (BATCH, 1, 28, 28)).astype(onp.float32)
    y = rng.randint(0, 10, BATCH).astype(onp.int32)
    return params, x, y


def _loss(logits, y):
    import jax

    return -jax.numpy.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1).sum()


def _make_step(fwd, devices: int):
    """jit(step) with the parameters donated; with 2+ devices, data parallel via shard_map."""
    import jax
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    def local(p, x, y):
        loss, g = jax.value_and_grad(lambda q: _loss(fwd(q, x), y))(p)
        if devices > 1:
            g, loss = jax.lax.psum((g, loss), "d")
        return jax.tree.map(lambda w, d: w - LR / BATCH * d, p, g), loss

    if devices == 1:
        return jax.jit(local, donate_argnums=0), lambda a: jax.device_put(a)
    mesh = Mesh(onp.array(jax.devices()[:devices]), ("d",))
    body = jax.shard_map(local, mesh=mesh, in_specs=(P(), P("d"), P("d")), out_specs=(P(), P()),
                         check_vma=False)

    def put(a, spec=None):
        return jax.device_put(a, NamedSharding(mesh, P() if spec is None else spec))
    return jax.jit(body, donate_argnums=0), put


def _child(args) -> dict:
    import jax

    forms = _formulations()
    p0, x0, y0 = _init()
    runs = [(n, 1) for n in args.variants] + [(n, args.devices) for n in args.variants if args.devices > 1]
    if ("nchw_lax", 1) not in runs:
        runs.insert(0, ("nchw_lax", 1))
    ref = dict(onp.load(args.ref_in)) if args.ref_in else None
    out = {"flags": os.environ.get("XLA_FLAGS", ""), "devices": jax.device_count(), "runs": {}}
    steps, state = {}, {}
    for name, ndev in runs:
        key = name if ndev == 1 else f"{name}@{ndev}dev"
        fwd = forms[name]
        loss, grads = jax.jit(jax.value_and_grad(lambda p, f=fwd: _loss(f(p, x0), y0)))(p0)
        step, put = _make_step(fwd, ndev)
        xs, ys = (put(x0), put(y0)) if ndev == 1 else (put(x0, jax.sharding.PartitionSpec("d")),
                                                         put(y0, jax.sharding.PartitionSpec("d")))
        p = {k: put(onp.array(v)) for k, v in p0.items()}
        for _ in range(20):  # the 20-step training check doubles as the warm-up
            p, last = step(p, xs, ys)
            last.block_until_ready()
        info = {"loss": float(loss), "loss20": float(last)}
        if ref is None and key == "nchw_lax":  # the default run's plain-lax step is the reference
            ref = {"loss": float(loss), "loss20": float(last),
                   **{f"g:{k}": onp.asarray(v) for k, v in grads.items()}}
            if args.ref_out:
                onp.savez(args.ref_out, **ref)
        if ref is not None:
            info["loss_err"] = abs(float(loss) - float(ref["loss"])) / abs(float(ref["loss"]))
            info["grad_err"] = max(float(onp.max(onp.abs(onp.asarray(grads[k]) - ref["g:" + k]))
                                         / onp.max(onp.abs(ref["g:" + k]))) for k in SHAPES)
            info["loss20_err"] = abs(float(last) - float(ref["loss20"])) / abs(float(ref["loss20"]))
        steps[key], state[key] = (step, xs, ys), p
        out["runs"][key] = info
    wall = {k: [] for k in steps}
    cpu = {k: [] for k in steps}
    for _ in range(args.rounds):
        for key, (step, xs, ys) in steps.items():
            p = state[key]
            for _ in range(args.inner):
                t0, c0 = time.perf_counter(), time.process_time()
                p, loss = step(p, xs, ys)
                loss.block_until_ready()  # one step at a time: multi-device CPU collectives need it
                wall[key].append(time.perf_counter() - t0)
                cpu[key].append(time.process_time() - c0)
            state[key] = p
    for key in steps:
        out["runs"][key].update(med=float(onp.median(wall[key])), p10=float(onp.percentile(wall[key], 10)),
                                cpu=float(onp.median(cpu[key])))
    return out


# ------------------------------------------------------------------------------------ PyTorch eager
_TORCH_SCRIPT = r"""
import json, sys, time
import numpy as onp, torch
from torch import nn
rounds, inner, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
if threads:
    torch.set_num_threads(threads)
net = nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 3), nn.ReLU(),
                    nn.MaxPool2d(2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84),
                    nn.ReLU(), nn.Linear(84, 10))
opt = torch.optim.SGD(net.parameters(), lr=0.1 / 256)   # MXNet: sum loss, rescale 1/batch
rng = onp.random.RandomState(0)
x = torch.tensor(rng.uniform(0, 1, (256, 1, 28, 28)).astype("f4"))
y = torch.tensor(rng.randint(0, 10, 256)).long()
lossf = nn.CrossEntropyLoss(reduction="sum")
def step():
    opt.zero_grad(); loss = lossf(net(x), y); loss.backward(); opt.step(); return float(loss.detach())
for _ in range(20): step()
ts = []
for _ in range(rounds * inner):
    t = time.perf_counter(); step(); ts.append(time.perf_counter() - t)
print("RESULT " + json.dumps({"med": float(onp.median(ts)), "p10": float(onp.percentile(ts, 10)),
                              "threads": torch.get_num_threads(), "version": torch.__version__}))
"""


# ------------------------------------------------------------------------------------ parent process
def _run_child(flag_set: str, args, ref_in: str | None, ref_out: str | None) -> dict | None:
    env = dict(os.environ)
    flags = FLAG_SETS[flag_set]
    env["XLA_FLAGS"] = " ".join(f for f in (env.get("XLA_FLAGS", ""), flags) if f)
    env.setdefault("JAX_PLATFORMS", "cpu")
    variants = args.variants if flag_set == "default" else [v for v in args.variants if v in FLAG_VARIANTS]
    cmd = [sys.executable, "-m", "benchmarks.lenet_formulations", "--child", "--variants", ",".join(variants),
           "--rounds", str(args.rounds), "--inner", str(args.inner)]
    if flag_set == "two_devices":
        cmd += ["--devices", "2"]
    if ref_in:
        cmd += ["--ref-in", ref_in]
    if ref_out:
        cmd += ["--ref-out", ref_out]
    if flag_set == "one_core":
        if not any(os.access(os.path.join(d, "taskset"), os.X_OK) for d in os.environ["PATH"].split(":")):
            print("  (taskset not found: one_core skipped)")
            return None
        cmd = ["taskset", "-c", "0", *cmd]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    print(f"  flag set {flag_set!r} failed (rc {proc.returncode}): {proc.stderr.strip()[-600:]}")
    return None


def _print_table(flag_set: str, res: dict) -> None:
    runs = res["runs"]
    base = runs["nchw_lax"]
    print(f"\n== {flag_set}: XLA_FLAGS={res['flags'] or '(none)'}  devices={res['devices']}")
    print(f"{'formulation':24s} {'ms/step':>8s} {'p10':>7s} {'cpu':>7s} {'epoch s':>8s} {'ep p10':>7s} "
          f"{'GFLOP/s':>8s} {'x lax':>6s} {'x p10':>6s} {'grad err':>9s} {'loss20 err':>10s}  check")
    for key, r in runs.items():
        flops = FLOP_PER_SAMPLE * BATCH / r["p10"] / 1e9
        errs = f"{'-':>9s} {'-':>10s}  -"
        if "grad_err" in r:
            ok = max(r["grad_err"], r["loss_err"], r["loss20_err"]) < TOLERANCE
            errs = f"{r['grad_err']:9.1e} {r['loss20_err']:10.1e}  {'ok' if ok else 'WRONG'}"
        print(f"{key:24s} {r['med'] * 1e3:8.2f} {r['p10'] * 1e3:7.2f} {r['cpu'] * 1e3:7.2f} "
              f"{r['med'] * STEPS_PER_EPOCH:8.2f} {r['p10'] * STEPS_PER_EPOCH:7.2f} {flops:8.1f} "
              f"{r['med'] / base['med']:6.2f} {r['p10'] / base['p10']:6.2f} {errs}")


def _parse(argv):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.lenet_formulations",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--variants", default="all", help="comma-separated formulations, or 'all'")
    ap.add_argument("--flags", default=None,
                    help=f"comma-separated flag sets ({', '.join(FLAG_SETS)}) or 'all'; "
                         "default: default,one_core,two_devices")
    ap.add_argument("--rounds", "--repeats", dest="rounds", type=int, default=8,
                    help="interleaved rounds per formulation")
    ap.add_argument("--inner", type=int, default=5, help="consecutive timed steps per round")
    ap.add_argument("--quick", action="store_true", help="3 rounds, default flags and two devices only")
    ap.add_argument("--torch", default=os.environ.get("TORCH_PYTHON"), help="a Python that has torch")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per subprocess")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--devices", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--ref-in", help=argparse.SUPPRESS)
    ap.add_argument("--ref-out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    known = ["nchw_lax", "nchw_reshape_pool", "nhwc_lax", "nhwc_reshape_pool", "im2col_patches",
             "shifted_gemm", "gemm_bwd_one", "gemm_bwd_shifted", "im2col_chwn", "fast_cpu_ops",
             "fast_cpu_pool_first", "fast_cpu_fused", "row_layout", "row_layout_bw24"]
    args.variants = known if args.variants == "all" else args.variants.split(",")
    unknown = [v for v in args.variants if v not in known]
    if unknown:
        ap.error(f"unknown formulation(s) {unknown}; choose from {known}")
    if args.quick:
        args.rounds = 3
    if args.flags is None:
        args.flags = "default,two_devices" if args.quick else "default,one_core,two_devices"
    args.flags = list(FLAG_SETS) if args.flags == "all" else args.flags.split(",")
    bad = [f for f in args.flags if f not in FLAG_SETS]
    if bad:
        ap.error(f"unknown flag set(s) {bad}; choose from {list(FLAG_SETS)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    if args.child:
        print("RESULT " + json.dumps(_child(args)), flush=True)
        return 0
    print(f"LeNet train step, batch {BATCH}, {args.rounds} interleaved rounds x {args.inner} steps; "
          f"epoch = {STEPS_PER_EPOCH} steps; x lax = ratio to nchw_lax in the same process")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "ref.npz")
        flag_sets = ["default"] + [f for f in args.flags if f != "default"]
        for fs in flag_sets:
            res = _run_child(fs, args, None if fs == "default" else ref, ref if fs == "default" else None)
            if res is None:
                if fs == "default":
                    return 1
                continue
            results[fs] = res
            _print_table(fs, res)
    if args.torch:  # 1 thread, and torch's default (its OpenMP threads spin: slow on a busy machine)
        for threads in (1, 0):
            proc = subprocess.run([args.torch, "-c", _TORCH_SCRIPT, str(args.rounds), str(args.inner * 4),
                                   str(threads)], capture_output=True, text=True, timeout=args.timeout)
            line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
            if line is None:
                print(f"\nPyTorch run failed: {proc.stderr.strip()[-400:]}")
                break
            t = json.loads(line[7:])
            print(f"\n== PyTorch {t['version']} eager, {t['threads']} thread(s): "
                  f"{t['med'] * 1e3:.2f} ms/step "
                  f"(p10 {t['p10'] * 1e3:.2f}), epoch {t['med'] * STEPS_PER_EPOCH:.2f} s "
                  f"(p10 {t['p10'] * STEPS_PER_EPOCH:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
