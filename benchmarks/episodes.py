"""A recorded graph that changes every step: RL-like episodes of new lengths, ours against MXNet 1.9.1.

Each episode calls a two-layer MLP ``T`` times under ``autograd.record()``, reads a value at every step
(the sign of the output's sum picks the "action", as an RL loop samples one from the probabilities),
then runs ``backward()`` and ``trainer.step(1)``. Ten warm-up episodes of lengths 5..14, then thirty
timed episodes of thirty new lengths 15..44 (every graph is new). The framework runs a graph seen for
the first time node by node from cached per-node programs (tiered compilation), so it compiles nothing
after the warm-up; the compiles are counted with ``jax.monitoring``. The same loop runs under MXNet 1.9.1
in a subprocess (``--mxnet-python``, default ``/tmp/mx/bin/python``; skipped when absent), in the same
run, and the ratio is printed. ``python -m benchmarks.episodes [--repeats N] [--no-read]``.

>>> episode_lengths(quick=True)
([5, 6], [15, 16, 17])
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from typing import Any

__all__ = ["main", "episode_lengths", "run_framework", "MXNET_LOOP"]

COMMON_OPTIONS = ("--quick", "--repeats", "--out")


def episode_lengths(quick: bool = False) -> tuple[list[int], list[int]]:
    """(warm-up lengths, timed lengths)."""
    if quick:
        return [5, 6], [15, 16, 17]
    return list(range(5, 15)), list(range(15, 45))


# The loop, written once for both frameworks: `mx` is `mxnet` or `framework`, `asscalar` the host read.
LOOP = """
def build(mx, gluon, seed):
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(16, in_units=8, activation="relu"), gluon.nn.Dense(4, in_units=16))
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
    return net, trainer


def episode(net, trainer, autograd, array, asscalar, rs, steps, read):
    states = [array(rs.uniform(-1, 1, (1, 8)).astype("float32")) for _ in range(steps)]
    with autograd.record():
        total = 0.0
        for x in states:
            out = net(x)
            action = (1.0 if asscalar(out.sum()) > 0 else -1.0) if read else 1.0
            total = total + (out * out).sum() * action
    total.backward()
    trainer.step(1)
    return asscalar(total)
"""

MXNET_LOOP = LOOP + """
import json, sys, time
import numpy as onp
import mxnet as mx
from mxnet import autograd, gluon, nd

warm, timed, repeats, read = json.loads(sys.argv[1])
mx.random.seed(0)
times, cpu = [], []
for r in range(repeats):
    rs = onp.random.RandomState(r)
    net, trainer = build(mx, gluon, r)
    for t in warm:
        episode(net, trainer, autograd, nd.array, lambda v: float(v.asscalar()), rs, t, read)
    tic, cpu0 = time.perf_counter(), time.process_time()
    for t in timed:
        episode(net, trainer, autograd, nd.array, lambda v: float(v.asscalar()), rs, t, read)
    times.append(time.perf_counter() - tic)
    cpu.append(time.process_time() - cpu0)
print(json.dumps({"times": times, "cpu": cpu}))
"""


def run_framework(warm: Sequence[int], timed: Sequence[int], repeats: int, read: bool) -> dict[str, Any]:
    """Times (s) of the timed episodes per repeat, and the compiles counted during them."""
    import jax
    import numpy as onp

    import framework as mx
    from framework import autograd, gluon, np, npx

    scope: dict[str, Any] = {}
    exec(LOOP, scope)  # noqa: S102 - the benchmark's own loop text, shared with the MXNet subprocess
    compiles = [0]

    def listen(event: str, duration: float, **kwargs: Any) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            compiles[0] += 1

    times, cpu, counts = [], [], []
    for r in range(repeats):
        rs = onp.random.RandomState(r)
        net, trainer = scope["build"](mx, gluon, r)
        for t in warm:
            scope["episode"](net, trainer, autograd, np.array, lambda v: float(npx.asscalar(v)), rs, t, read)
        jax.monitoring.register_event_duration_secs_listener(listen)
        compiles[0] = 0
        tic, cpu0 = time.perf_counter(), time.process_time()
        for t in timed:
            scope["episode"](net, trainer, autograd, np.array, lambda v: float(npx.asscalar(v)), rs, t, read)
        times.append(time.perf_counter() - tic)
        cpu.append(time.process_time() - cpu0)
        jax.monitoring.unregister_event_duration_listener(listen)
        counts.append(compiles[0])
    return {"times": times, "cpu": cpu, "compiles": counts}


def run_mxnet(python: str, warm: Sequence[int], timed: Sequence[int], repeats: int,
              read: bool) -> dict[str, Any] | None:
    if not os.path.exists(python):
        return None
    args = json.dumps([list(warm), list(timed), repeats, read])
    out = subprocess.run([python, "-c", MXNET_LOOP, args], capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        print(textwrap.indent(out.stderr[-2000:], "  mxnet: "), file=sys.stderr)
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.episodes", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="two warm-up and three timed episodes")
    p.add_argument("--repeats", type=int, default=None, help="repeats of the timed episodes (default 3)")
    p.add_argument("--no-read", action="store_true", help="do not read a value at each step")
    p.add_argument("--mxnet-python", default="/tmp/mx/bin/python", help="a Python with MXNet 1.9.1")
    p.add_argument("--out", default=None, help="results directory (default benchmarks/results)")
    args = p.parse_args(argv)
    warm, timed = episode_lengths(args.quick)
    repeats = args.repeats or (1 if args.quick else 3)
    read = not args.no_read
    load = os.getloadavg()[0]
    ours = run_framework(warm, timed, repeats, read)
    theirs = run_mxnet(args.mxnet_python, warm, timed, repeats, read)
    ours_s, ours_cpu = statistics.median(ours["times"]), statistics.median(ours["cpu"])
    result: dict[str, Any] = {"ok": True, "episodes": len(timed), "lengths": [timed[0], timed[-1]],
                              "read_each_step": read, "load_average": load, "framework_s": ours_s,
                              "framework_cpu_s": ours_cpu, "framework_compiles": ours["compiles"],
                              "framework_times": ours["times"]}
    print(f"{len(timed)} episodes of new lengths {timed[0]}..{timed[-1]} (read each step: {read}); "
          f"load average {load:.1f}; wall and process CPU seconds, medians of {repeats}")
    print(f"  framework:   wall {ours_s:.3f} s, CPU {ours_cpu:.3f} s; compiles after warm-up "
          f"{ours['compiles']}")
    if theirs is not None:
        mx_s, mx_cpu = statistics.median(theirs["times"]), statistics.median(theirs["cpu"])
        result.update(mxnet_s=mx_s, mxnet_cpu_s=mx_cpu, mxnet_times=theirs["times"], ratio=ours_s / mx_s,
                      cpu_ratio=ours_cpu / mx_cpu)
        print(f"  MXNet 1.9.1: wall {mx_s:.3f} s, CPU {mx_cpu:.3f} s")
        print(f"  framework / MXNet: {ours_s / mx_s:.2f}x wall, {ours_cpu / mx_cpu:.2f}x CPU")
    else:
        print("  MXNet 1.9.1: not available (--mxnet-python)")
    out_dir = args.out or os.path.join(os.path.dirname(__file__), "results")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "episodes.json"), "w") as f:
        json.dump(result, f, indent=1)
    return result


if __name__ == "__main__":
    main()
