"""Issue 4: the seed loop's full training step against ONE compiled program, same net, same batch.

- ``gluon_seed``: the tutorial's step on its ``nn.Sequential`` LeNet (not hybridized):
  ``with autograd.record(): l = loss(net(x), y)``; ``l.backward()``; ``trainer.step(256)``;
  ``float(l.sum())``.
- ``gluon_hybrid``: the same step with a hybridized ``HybridSequential``.
- ``compiled``: forward + backward + the SGD update in one ``jax.jit`` with donated parameters, then
  ``float(loss_sum)`` (the same one host sync per step).
- ``gluon_seed_x2`` / ``compiled_x2`` (two CPU devices): ``split_and_load`` + one backward per device
  + ``trainer.step``, against ``framework.parallel.DataParallel`` (one pmap program, psum, update).
- ``gluon_seed_same_x2`` / ``compiled_same_x2``: the seed as written on a one-device machine
  (``devices = [cpu(0), cpu(0)]``: two half batches, two backwards, one ``trainer.step``) against the
  same work in one ``jax.jit`` (each half batch's loss, differentiated together, one update, one host
  sync); also reported against ``compiled`` (the whole batch in one pass).
- ``torch_eager`` (where torch is installed): the same LeNet step in PyTorch eager mode, the peer whose
  loop the seed's resembles (forward, ``loss.backward()``, ``optimizer.step()``, ``float(loss)``).

At ``--batch 8`` (the default) compute is negligible and the step is host overhead. Interleaved
repeats, each after an untimed run of the same variant (PyTorch's spinning threads would otherwise
slow whichever variant runs next), median ms/step; targets: the seed loop within 1.5x of the
compiled program and no slower than PyTorch eager.
``--profile`` adds where the seed step's time goes: host time of each phase, compiles and abstract-eval
cache misses in steady state, and cProfile's top functions. ``python -m benchmarks.step_overhead``.

>>> import jax
>>> step = sgd_program(lambda p, x, y: (p['w'] * x).sum(), lr=0.5, batch_size=2)
>>> p, l = step({'w': jax.numpy.ones(2)}, jax.numpy.ones(2), None); float(p['w'][0]), float(l)
(0.75, 2.0)
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as onp

from .hybridize import (
    CompileCounter,
    batches,
    ensure_cpu_devices,
    init_shapes,
    lenet,
    loss_block,
    ratio_notes,
    timed_variants,
)

__all__ = ["main", "sgd_program", "seed_step", "build", "profile"]

# The entry point's common options this benchmark takes (python -m benchmarks passes these on).
COMMON_OPTIONS = ("--quick", "--repeats", "--out")

LR = 0.1


def sgd_program(objective: Callable, lr: float, batch_size: int) -> Callable:
    """``jit(step, donate params)``: step(params, x, y) -> (params - lr/batch * grad, objective)."""
    def step(params: Any, x: Any, y: Any) -> tuple[Any, Any]:
        lsum, grads = jax.value_and_grad(objective)(params, x, y)
        scale = lr / batch_size
        return jax.tree_util.tree_map(lambda p, g: p - scale * g, params, grads), lsum

    return jax.jit(step, donate_argnums=0)


def seed_step(net: Any, loss: Any, trainer: Any, xs: Sequence[Any], ys: Sequence[Any]) -> float:
    """One step of the tutorial's loop over the device slices ``xs``/``ys``; the summed loss."""
    from framework import autograd

    with autograd.record():
        losses = [loss(net(x), y) for x, y in zip(xs, ys, strict=True)]
    for lv in losses:
        lv.backward()
    trainer.step(sum(int(x.shape[0]) for x in xs))
    return sum(float(lv.sum()) for lv in losses)


def _gluon(hybrid: bool, devices: list[Any], x0: Any, init: dict[str, Any] | None) -> tuple[Any, Any]:
    from framework import gluon

    net = lenet(hybrid)
    init_shapes(net, jax.device_put(x0, devices[0]), devices)
    if init is not None:
        for name, p in net.collect_params().items():
            p.set_data(init[name])
    if hybrid:
        net.hybridize()
    return net, gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": LR})


def build(data: list[tuple[Any, Any]], steps: int, two: bool) -> tuple[dict[str, Callable[[], float]],
                                                                      dict[str, float]]:
    """The variants, each a callable running ``steps`` training steps and returning the last loss, and
    the check that one seed-loop step and one compiled step from the same parameters agree."""
    from framework import gluon, parallel

    loss = loss_block()
    dev0 = jax.devices()[0]
    seed_net, seed_tr = _gluon(False, [dev0], data[0][0], None)
    init = {n: p.data() for n, p in seed_net.collect_params().items()}
    hyb_net, hyb_tr = _gluon(True, [dev0], data[0][0], init)

    def loop(net: Any, trainer: Any, devices: list[Any]) -> Callable[[], float]:
        def run() -> float:
            total = 0.0
            for i in range(steps):
                x, y = data[i % len(data)]
                if len(devices) > 1:
                    xs, ys = gluon.utils.split_and_load(x, devices), gluon.utils.split_and_load(y, devices)
                else:
                    xs, ys = [x], [y]
                total = seed_step(net, trainer=trainer, loss=loss, xs=xs, ys=ys)
            return total
        return run

    def objective(p: Any, x: Any, y: Any) -> Any:
        return loss.functional_call({}, seed_net.functional_call(p, x, training=True), y).sum()

    def jitted_loop(program: Callable) -> Callable[[], float]:
        # a private copy: the program donates (deletes) its input buffers, which the nets must not share
        state = {"params": {n: jax.device_put(v, dev0).copy() for n, v in init.items()}}

        def run() -> float:
            total = 0.0
            for i in range(steps):
                x, y = data[i % len(data)]
                state["params"], lsum = program(state["params"], x, y)
                total = float(lsum)
            return total
        return run

    program = sgd_program(objective, LR, int(data[0][0].shape[0]))
    compiled = jitted_loop(program)
    x, y = data[0]  # the check (and the first warm-up of both): same parameters, same batch, one step
    new, lsum = program({n: v.copy() for n, v in init.items()}, x, y)
    total = seed_step(seed_net, loss, seed_tr, [x], [y])
    check = {"loss_diff": abs(total - float(lsum)) / max(abs(total), 1.0),
             "max_param_diff": max(float(onp.max(onp.abs(onp.asarray(p.data()) - onp.asarray(new[n]))))
                                   for n, p in seed_net.collect_params().items())}
    runs = {"gluon_seed": loop(seed_net, seed_tr, [dev0]), "gluon_hybrid": loop(hyb_net, hyb_tr, [dev0]),
            "compiled": compiled}
    if two and len(jax.devices()) >= 2:
        devs = jax.devices()[:2]
        net2, tr2 = _gluon(False, devs, data[0][0], init)
        net3, tr3 = _gluon(True, devs, data[0][0], init)
        dp = parallel.DataParallel(net3, loss, tr3, devices=devs)

        def compiled_x2() -> float:
            total = 0.0
            for i in range(steps):
                x, y = data[i % len(data)]
                total = float(dp(x, y))
            return total

        runs.update({"gluon_seed_x2": loop(net2, tr2, devs), "compiled_x2": compiled_x2})
    if two:  # the seed as written on a machine with one device: devices = [cpu(0), cpu(0)]
        twice = [dev0, dev0]
        net4, tr4 = _gluon(False, twice, data[0][0], init)
        runs["gluon_seed_same_x2"] = loop(net4, tr4, twice)

        def objective_halves(p: Any, x: Any, y: Any) -> Any:  # the same work: two half batches
            half = x.shape[0] // 2
            return objective(p, x[:half], y[:half]) + objective(p, x[half:], y[half:])

        runs["compiled_same_x2"] = jitted_loop(sgd_program(objective_halves, LR, int(data[0][0].shape[0])))
    eager = torch_step(data, steps)
    if eager is not None:
        runs["torch_eager"] = eager
        if two:
            runs["torch_eager_x2"] = torch_step(data, steps, slices=2)
    return runs, check


def torch_step(data: list[tuple[Any, Any]], steps: int, slices: int = 1) -> Callable[[], float] | None:
    """The same LeNet training step in PyTorch eager mode (None where torch is not installed). A torch
    installed in a side environment is found through ``$TORCH_SITE`` (its site-packages directory,
    appended to ``sys.path`` so that this environment's own packages come first)."""
    try:
        import torch
    except ImportError:
        site = os.environ.get("TORCH_SITE")
        if not site or not os.path.isdir(site):
            return None
        sys.path.append(site)
        try:
            import torch
        except ImportError:
            return None
    from torch import nn as tnn

    # one intra-op thread: at batch 8 the step is host overhead, and a pool of spinning threads only
    # competes with the machine's other load (one thread is the faster setting for this peer here)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    net = tnn.Sequential(tnn.Conv2d(1, 6, 5), tnn.ReLU(), tnn.MaxPool2d(2, 2), tnn.Conv2d(6, 16, 3),
                         tnn.ReLU(), tnn.MaxPool2d(2, 2), tnn.Flatten(), tnn.Linear(400, 120), tnn.ReLU(),
                         tnn.Linear(120, 84), tnn.ReLU(), tnn.Linear(84, 10))
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    loss_fn = tnn.CrossEntropyLoss(reduction="sum")
    host = [(torch.from_numpy(onp.asarray(x)), torch.from_numpy(onp.asarray(y)).long()) for x, y in data]

    def run() -> float:
        total = 0.0
        for i in range(steps):
            x, y = host[i % len(host)]
            opt.zero_grad()
            losses = [loss_fn(net(xs), ys) / x.shape[0]  # slices > 1: the seed's per-slice backwards
                      for xs, ys in zip(x.chunk(slices), y.chunk(slices), strict=True)]
            for loss in losses:
                loss.backward()
            opt.step()
            total = sum(float(loss.detach()) for loss in losses)
        return total

    return run


# --------------------------------------------------------------------------------------- profile
PHASES = ("record", "backward", "trainer_step", "sum_float")


def profile(data: list[tuple[Any, Any]], steps: int, top: int = 25) -> dict[str, Any]:
    """Where the seed step's time goes, for the Sequential (seed) and the hybridized net: per phase the
    median wall ms and host ms (the calling thread's CPU time: Python and dispatch, immune to other
    processes), steady-state compiles and abstract-eval cache misses, and cProfile's top functions
    timed by the thread's CPU clock."""
    import statistics

    from framework import autograd
    from framework.autograd import graph

    loss = loss_block()
    counter = CompileCounter.get()
    out: dict[str, Any] = {}
    for label, hybrid in (("seed", False), ("hybrid", True)):
        net, trainer = _gluon(hybrid, [jax.devices()[0]], data[0][0], None)
        wall: dict[str, list[float]] = {k: [] for k in PHASES}
        host: dict[str, list[float]] = {k: [] for k in PHASES}
        for i in range(steps + 3):
            x, y = data[i % len(data)]
            if i == 3:
                compiles0, cache0 = counter.count, len(graph._ABSTRACT)
            marks = [(time.perf_counter(), time.thread_time())]
            with autograd.record():
                lv = loss(net(x), y)
            marks.append((time.perf_counter(), time.thread_time()))
            lv.backward()
            marks.append((time.perf_counter(), time.thread_time()))
            trainer.step(int(x.shape[0]))
            marks.append((time.perf_counter(), time.thread_time()))
            float(lv.sum())
            marks.append((time.perf_counter(), time.thread_time()))
            if i >= 3:
                for k, (w0, h0), (w1, h1) in zip(PHASES, marks[:-1], marks[1:], strict=True):
                    wall[k].append(w1 - w0)
                    host[k].append(h1 - h0)
        d: dict[str, Any] = {f"{k}_wall_ms": 1e3 * statistics.median(v) for k, v in wall.items()}
        d.update({f"{k}_host_ms": 1e3 * statistics.median(v) for k, v in host.items()})
        d["host_ms_per_step"] = sum(d[f"{k}_host_ms"] for k in PHASES)
        d["steady_compiles"] = counter.count - compiles0
        d["abstract_cache_misses"] = len(graph._ABSTRACT) - cache0
        prof = cProfile.Profile(time.thread_time)
        prof.enable()
        for i in range(steps):
            x, y = data[i % len(data)]
            seed_step(net, loss, trainer, [x], [y])
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(top)
        d["cprofile"] = buf.getvalue()
        out[label] = d
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """``python -m benchmarks.step_overhead``: time, print the table and ratios; the result document."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.step_overhead",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="two repeats of one step (smoke test)")
    p.add_argument("--repeats", type=int, default=None, help="interleaved repeats (default 15)")
    p.add_argument("--steps", type=int, default=None, help="training steps per timed call (default 10)")
    p.add_argument("--batch", type=int, default=8, help="samples per step (default 8: host overhead)")
    p.add_argument("--no-x2", action="store_true", help="skip the two-device variants")
    p.add_argument("--profile", action="store_true", help="also profile the seed step (phases, cProfile)")
    p.add_argument("--out", default=None, help="results directory (default benchmarks/results)")
    p.add_argument("--no-write", action="store_true", help="print only; write no result files")
    args = p.parse_args(argv)
    ensure_cpu_devices(2)
    from .common import markdown_table, write_results

    repeats = args.repeats or (2 if args.quick else 15)
    steps = args.steps or (1 if args.quick else 10)
    data = [(x[:args.batch], y[:args.batch]) for x, y in batches(4, jax.devices()[0])]
    runs, check = build(data, steps, not args.no_x2)
    failed: dict[str, str] = {}
    for name, fn in list(runs.items()):  # first warm-up; a variant broken in this checkout is reported
        try:
            fn()
        except Exception as err:
            failed[name] = f"{type(err).__name__}: {str(err).splitlines()[0][:300]}"
            del runs[name]
    ms, compiles = timed_variants(runs, repeats, steps, warm_each=True)  # runs of ~10 ms: see there
    pairs = (("gluon_seed", "compiled"), ("gluon_hybrid", "compiled"), ("gluon_seed_x2", "compiled_x2"),
             ("gluon_seed_same_x2", "compiled"), ("gluon_seed_same_x2", "compiled_same_x2"),
             ("gluon_seed", "torch_eager"),
             ("gluon_seed_x2", "torch_eager_x2"), ("gluon_seed_same_x2", "torch_eager_x2"))
    ratios = {f"{a} / {b}": {c: ms[a][c] / ms[b][c] for c in ("wall", "cpu")}
              for a, b in pairs if a in ms and b in ms}
    targets = {"gluon_seed / compiled": 1.5, "gluon_hybrid / compiled": 1.5,
               "gluon_seed_x2 / compiled_x2": 1.5, "gluon_seed_same_x2 / compiled": 1.5,
               "gluon_seed_same_x2 / compiled_same_x2": 1.5,
               "gluon_seed / torch_eager": 1.0, "gluon_seed_x2 / torch_eager_x2": 1.0,
               "gluon_seed_same_x2 / torch_eager_x2": 1.0}
    base = {k: ms.get("compiled_x2" if k in ("gluon_seed_x2", "compiled_x2") else "compiled") for k in ms}
    rows = [{"variant": k, "ms_per_step": v["wall"], "cpu_ms": v["cpu"], "host_ms": v["host"],
             "vs_compiled": v["wall"] / base[k]["wall"] if base[k] else None,
             "cpu_vs_compiled": v["cpu"] / base[k]["cpu"] if base[k] else None,
             "steady_compiles": compiles[k]} for k, v in ms.items()]
    cols = ["variant", "ms_per_step", "cpu_ms", "host_ms", "vs_compiled", "cpu_vs_compiled",
            "steady_compiles"]
    notes = ratio_notes(ratios, targets) + [f"{k} FAILED in this checkout: {e}" for k, e in failed.items()]
    agree = check["loss_diff"] < 1e-5 and check["max_param_diff"] < 1e-5
    notes.append(f"one seed-loop step vs one compiled step from the same parameters: relative loss diff "
                 f"{check['loss_diff']:.1e}, max parameter difference {check['max_param_diff']:.1e} "
                 f"({'agree' if agree else 'DISAGREE'})")
    notes.append("ms_per_step: wall-clock median; cpu_ms: this process's CPU time (all threads); host_ms: "
                 "the calling thread's CPU time (Python + dispatch). Medians of interleaved repeats.")
    print(markdown_table(rows, cols))
    for n in notes:
        print("note:", n)
    result: dict[str, Any] = {"rows": rows, "ms": ms, "ratios": ratios, "targets": targets,
                              "compiles": compiles, "failed": failed, "check": check,
                              "ok": not failed and agree}
    if args.profile:
        result["profile"] = prof = profile(data, 3 if args.quick else 40)
        for label, d in prof.items():
            print(f"\n## profile: {label} step (median ms per phase; host = calling thread's CPU time)")
            print(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in d.items()
                           if k != "cprofile"))
            print(d["cprofile"])
    info = {"settings": {"batch_size": args.batch, "lr": LR, "repeats": repeats, "steps": steps,
                         "quick": args.quick}, "ratios": ratios, "targets": targets, "notes": notes}
    if "profile" in result:
        info["profile"] = {k: {n: v for n, v in d.items() if n != "cprofile"}
                           for k, d in result["profile"].items()}
    result["paths"] = {} if args.no_write else write_results(
        "step_overhead", rows, cols, info, out=args.out, bar_key="ms_per_step",
        title="LeNet training step, ms: the seed's Gluon loop vs one compiled program")
    return result


if __name__ == "__main__":
    main()
