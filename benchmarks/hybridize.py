"""Issue 3: what Gluon's shell costs. LeNet forward + backward per batch of 256, four ways, ONE run.

- ``plain_jax``: a hand-written JAX LeNet (``lax.conv`` NCHW, ``reduce_window`` pool), jitted
  ``value_and_grad``: the floor.
- ``hybrid_pure``: ``jax.jit(jax.value_and_grad(loss(net.functional_call(p, x), y).sum()))``.
- ``hybrid_recorded``: ``net.hybridize()``; ``with autograd.record(): l = loss(net(x), y)``;
  ``l.backward()`` (two recorded nodes: the net and the loss).
- ``unhybrid_recorded``: the same, not hybridized (one recorded node per layer).

Variants share the parameter values, are interleaved, and each timed call ends by waiting for every
gradient; ms/batch is the median over repeats. Compiles during the timed phase are counted (steady
state should be 0) and the gradients are checked to agree. Targets: hybridized within 1.1x of plain
JAX; un-hybridized within 1.5x of hybridized. ``python -m benchmarks.hybridize [--quick]``.

>>> import jax.numpy as jnp
>>> params = plain_params(jax.random.key(0))
>>> sorted(params)[:2], float(plain_loss(params, jnp.zeros((2, 1, 28, 28)), jnp.zeros(2, jnp.int32))) > 0
(['0.bias', '0.weight'], True)
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp
from jax import lax

from train.lenet import lenet

__all__ = ["main", "lenet", "init_shapes", "loss_block", "plain_params", "plain_loss", "batches",
           "CompileCounter", "ensure_cpu_devices", "interleaved_clocks", "summarize", "timed_variants"]

# The entry point's common options this benchmark takes (python -m benchmarks passes these on).
COMMON_OPTIONS = ("--quick", "--repeats", "--out")

BATCH = 256
SHAPES = {"0.weight": (6, 1, 5, 5), "0.bias": (6,), "2.weight": (16, 6, 3, 3), "2.bias": (16,),
          "4.weight": (120, 400), "4.bias": (120,), "5.weight": (84, 120), "5.bias": (84,),
          "6.weight": (10, 84), "6.bias": (10,)}


# ------------------------------------------------------------------------------------------ setup
def ensure_cpu_devices(n: int = 2) -> None:
    """Ask for ``n`` host CPU devices when JAX has not started yet (no effect afterwards)."""
    try:
        if int(jax.config.jax_num_cpu_devices or 0) < n:
            jax.config.update("jax_num_cpu_devices", n)
    except RuntimeError:  # the backend is already up: keep what it has
        pass


class CompileCounter:
    """Counts XLA backend compiles (``/jax/core/compile/backend_compile_duration`` events).

    >>> c = CompileCounter.get(); n = c.count; _ = jax.jit(lambda v: v * 3.5)(1.0); c.count > n
    True
    """

    EVENT = "/jax/core/compile/backend_compile_duration"
    _instance: CompileCounter | None = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        self.count = 0
        self.seconds = 0.0

    def _listen(self, event: str, duration: float, **kwargs: Any) -> None:
        if event == self.EVENT:
            self.count += 1
            self.seconds += duration

    @classmethod
    def get(cls) -> CompileCounter:
        """The process's one counter (registered once)."""
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
                jax.monitoring.register_event_duration_secs_listener(cls._instance._listen)
            return cls._instance



def init_shapes(net: Any, x: jax.Array, devices: Sequence[Any] | None = None) -> None:
    """``net.initialize(ctx=devices)`` and resolve its deferred shapes from ``x`` without running or
    compiling a forward pass: inside ``autograd.record()`` a call is only recorded (shapes come from
    abstract evaluation), and the recording is dropped unused."""
    from framework import autograd

    net.initialize(ctx=list(devices) if devices else None)
    with autograd.record():
        net(x)


def loss_block() -> Any:
    """The seed's loss, ``gluon.loss.SoftmaxCrossEntropyLoss()``."""
    from framework import gluon

    return gluon.loss.SoftmaxCrossEntropyLoss()


# ------------------------------------------------------------------------------------ plain JAX
def plain_params(key: jax.Array) -> dict[str, jax.Array]:
    """LeNet parameters under Gluon's structural names, U(-0.07, 0.07) weights and zero biases."""
    keys = jax.random.split(key, len(SHAPES))
    return {n: (jax.random.uniform(k, s, jnp.float32, -0.07, 0.07) if n.endswith("weight")
                else jnp.zeros(s, jnp.float32)) for (n, s), k in zip(SHAPES.items(), keys, strict=True)}


def plain_loss(p: dict[str, jax.Array], x: jax.Array, y: jax.Array) -> jax.Array:
    """Summed softmax cross-entropy of the LeNet written directly in JAX (NCHW, weights (out, in))."""
    dn = ("NCHW", "OIHW", "NCHW")

    def conv(h: jax.Array, i: int) -> jax.Array:
        h = lax.conv_general_dilated(h, p[f"{i}.weight"], (1, 1), "VALID", dimension_numbers=dn)
        return jax.nn.relu(h + p[f"{i}.bias"][None, :, None, None])

    def pool(h: jax.Array) -> jax.Array:
        return lax.reduce_window(h, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def dense(h: jax.Array, i: int) -> jax.Array:
        return lax.dot_general(h, p[f"{i}.weight"], (((1,), (1,)), ((), ()))) + p[f"{i}.bias"]

    h = pool(conv(pool(conv(x, 0)), 2)).reshape(x.shape[0], -1)
    logits = dense(jax.nn.relu(dense(jax.nn.relu(dense(h, 4)), 5)), 6)
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.take_along_axis(logp, y[:, None], axis=-1).sum()


def batches(n: int, device: Any = None, seed: int = 0) -> list[tuple[jax.Array, jax.Array]]:
    """``n`` synthetic (x, y) batches of 256 Fashion-MNIST-shaped samples, resident on ``device``."""
    key = jax.random.key(seed)
    out = []
    for k in jax.random.split(key, n):
        kx, ky = jax.random.split(k)
        x = jax.random.normal(kx, (BATCH, 1, 28, 28), jnp.float32)
        y = jax.random.randint(ky, (BATCH,), 0, 10, jnp.int32)
        out.append(jax.device_put((x, y), device) if device is not None else (x, y))
    return out


def interleaved_clocks(runs: dict[str, Callable[[], Any]], repeats: int, *,
                       warm_each: bool = False) -> dict[str, dict[str, list[float]]]:
    """Run each callable ``repeats`` times, round-robin; per run three clocks in seconds: ``wall``,
    ``cpu`` (this process, every thread: the work done, XLA's included) and ``host`` (the calling
    thread only: Python and dispatch). The CPU clocks barely move when other processes share the
    cores; the wall clock does. With ``warm_each``, each timed run follows an untimed run of the same
    callable: for runs of a few milliseconds, a library's worker threads that spin after their work
    (PyTorch's OpenMP pool does) would otherwise take the cores from the next variant and bill it for
    the previous one's work."""
    out = {k: {"wall": [], "cpu": [], "host": []} for k in runs}
    for _ in range(repeats):
        for name, fn in runs.items():
            if warm_each:
                fn()
            w, c, h = time.perf_counter(), time.process_time(), time.thread_time()
            fn()
            out[name]["host"].append(time.thread_time() - h)
            out[name]["cpu"].append(time.process_time() - c)
            out[name]["wall"].append(time.perf_counter() - w)
    return out


def summarize(clocks: dict[str, dict[str, list[float]]], steps: int) -> dict[str, dict[str, float]]:
    """Median milliseconds per step of each variant, per clock."""
    return {k: {c: 1e3 * statistics.median(v) / steps for c, v in d.items()} for k, d in clocks.items()}


# ------------------------------------------------------------------------------------ variants
def _variants(data: list[tuple[jax.Array, jax.Array]], steps: int) -> tuple[dict[str, Callable], dict]:
    from framework import autograd

    hnet, unet, loss = lenet(), lenet(), loss_block()
    init_shapes(hnet, data[0][0])
    unet.share_parameters(hnet.collect_params())  # the same Parameters: every variant computes alike
    hnet.hybridize()
    params = hnet.collect_params().values_on()

    def pure(p, x, y):
        return loss.functional_call({}, hnet.functional_call(p, x, training=True), y).sum()

    plain_vg = jax.jit(jax.value_and_grad(plain_loss))
    pure_vg = jax.jit(jax.value_and_grad(pure))

    def fn_pure(vg: Callable) -> Callable[[], Any]:
        def run() -> Any:
            for i in range(steps):
                x, y = data[i % len(data)]
                out = vg(params, x, y)
            return jax.block_until_ready(out)
        return run

    def fn_recorded(net: Any) -> Callable[[], Any]:
        plist = list(net.collect_params().values())

        def run() -> Any:
            for i in range(steps):
                x, y = data[i % len(data)]
                with autograd.record():
                    lv = loss(net(x), y)
                lv.backward()
            return jax.block_until_ready([p.list_grad() for p in plist])
        return run

    runs = {"plain_jax": fn_pure(plain_vg), "hybrid_pure": fn_pure(pure_vg),
            "hybrid_recorded": fn_recorded(hnet), "unhybrid_recorded": fn_recorded(unet)}
    # agreement of the gradients on one batch (a wrong benchmark is worse than a slow one)
    x, y = data[0]
    ref = plain_vg(params, x, y)[1]
    diffs = {"hybrid_pure": _maxdiff(ref, pure_vg(params, x, y)[1])}
    for name, net in (("hybrid_recorded", hnet), ("unhybrid_recorded", unet)):
        with autograd.record():
            lv = loss(net(x), y)
        lv.backward()
        diffs[name] = _maxdiff(ref, {n: p.grad() for n, p in net.collect_params().items()})
    return runs, diffs


def _maxdiff(a: dict[str, jax.Array], b: dict[str, jax.Array]) -> float:
    return max(float(onp.max(onp.abs(onp.asarray(a[k]) - onp.asarray(b[k])))) for k in a)


def timed_variants(runs: dict[str, Callable[[], Any]], repeats: int, steps: int, *,
                   warm_each: bool = False) -> tuple[dict, dict]:
    """Warm each variant up (compiles), then time them interleaved; (ms per step per clock, steady-state
    compiles per variant)."""
    counter = CompileCounter.get()
    for fn in runs.values():
        fn()
    compiles = dict.fromkeys(runs, 0)

    def counted(name: str, fn: Callable) -> Callable:
        def run() -> Any:
            n = counter.count
            out = fn()
            compiles[name] += counter.count - n
            return out
        return run

    clocks = interleaved_clocks({k: counted(k, f) for k, f in runs.items()}, repeats, warm_each=warm_each)
    return summarize(clocks, steps), compiles


def ratio_notes(ratios: dict[str, dict[str, float]], targets: dict[str, float]) -> list[str]:
    """One line per ratio: wall and CPU, and the target verdict (on the wall clock)."""
    out = []
    for k, r in ratios.items():
        line = f"{k} = {r['wall']:.3f}x wall, {r['cpu']:.3f}x process CPU"
        if k in targets:
            line += f" (target <= {targets[k]}x: {'met' if r['wall'] <= targets[k] else 'NOT met'})"
        out.append(line)
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """``python -m benchmarks.hybridize``: time, print the table and ratios; the result document."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.hybridize", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="two repeats of one batch (smoke test)")
    p.add_argument("--repeats", type=int, default=None, help="interleaved repeats (default 15)")
    p.add_argument("--steps", type=int, default=None, help="batches per timed call (default 10)")
    p.add_argument("--out", default=None, help="results directory (default benchmarks/results)")
    p.add_argument("--no-write", action="store_true", help="print only; write no result files")
    args = p.parse_args(argv)
    ensure_cpu_devices(2)
    from .common import markdown_table, write_results

    repeats = args.repeats or (2 if args.quick else 15)
    steps = args.steps or (1 if args.quick else 10)
    data = batches(4, jax.devices()[0])
    runs, diffs = _variants(data, steps)
    ms, compiles = timed_variants(runs, repeats, steps)
    pairs = {"hybrid_pure / plain_jax": ("hybrid_pure", "plain_jax"),
             "hybrid_recorded / plain_jax": ("hybrid_recorded", "plain_jax"),
             "unhybrid_recorded / hybrid_recorded": ("unhybrid_recorded", "hybrid_recorded"),
             "unhybrid_recorded / plain_jax": ("unhybrid_recorded", "plain_jax")}
    ratios = {k: {c: ms[a][c] / ms[b][c] for c in ("wall", "cpu")} for k, (a, b) in pairs.items()}
    targets = {"hybrid_recorded / plain_jax": 1.1, "hybrid_pure / plain_jax": 1.1,
               "unhybrid_recorded / hybrid_recorded": 1.5}
    base = ms["plain_jax"]
    rows = [{"variant": k, "ms_per_batch": v["wall"], "cpu_ms": v["cpu"], "host_ms": v["host"],
             "vs_plain_jax": v["wall"] / base["wall"], "cpu_vs_plain_jax": v["cpu"] / base["cpu"],
             "max_grad_diff": diffs.get(k, 0.0), "steady_compiles": compiles[k]} for k, v in ms.items()]
    cols = ["variant", "ms_per_batch", "cpu_ms", "host_ms", "vs_plain_jax", "cpu_vs_plain_jax",
            "max_grad_diff", "steady_compiles"]
    notes = ratio_notes(ratios, targets) + [
        "ms_per_batch: wall-clock median; cpu_ms: this process's CPU time (all threads, XLA's included); "
        "host_ms: the calling thread's CPU time (Python + dispatch). Medians of interleaved repeats."]
    print(markdown_table(rows, cols))
    for n in notes:
        print("note:", n)
    info = {"settings": {"batch_size": BATCH, "repeats": repeats, "steps": steps, "quick": args.quick},
            "ratios": ratios, "targets": targets, "notes": notes}
    paths = {} if args.no_write else write_results(
        "hybridize", rows, cols, info, out=args.out, bar_key="ms_per_batch",
        title="LeNet forward+backward, ms per batch of 256: Gluon shell vs plain JAX")
    return {"rows": rows, "ms": ms, "ratios": ratios, "targets": targets, "diffs": diffs,
            "compiles": compiles, "paths": paths, "ok": all(d < 1e-3 for d in diffs.values())}


if __name__ == "__main__":
    main()
