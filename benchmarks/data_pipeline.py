"""One Fashion-MNIST training epoch of batches: the framework's DataLoader beside a plain NumPy loop.

The pipeline is the seed's: ``FashionMNIST(train=True).transform_first(Compose([ToTensor(),
Normalize(0.13, 0.31)]))``, batch 256, shuffled. The NumPy loop fancy-indexes the same arrays and
normalises in place (it yields numpy arrays; the DataLoader yields ``jax.Array``s on the CPU device).
Rounds are interleaved and each variant's median is reported, with the ratio to NumPy from the same
run. MXNet 1.9.1's DataLoader takes 0.6-1.2 s for this epoch on these 2-core machines
(the project's measurement); the budget is 10% of that, 0.06 s.

Run from the repository root::

    python -m benchmarks.data_pipeline [--root DIR] [--rounds 7] [--workers 2] [--per-sample]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as onp

MXNET_EPOCH_S = (0.6, 1.2)
BUDGET_S = 0.06
BATCH = 256
MEAN, STD = 0.13, 0.31

# The entry point's common options this benchmark takes (python -m benchmarks passes these on).
COMMON_OPTIONS = ("--quick", "--repeats", "--data-root")


def _numpy_epoch(images: onp.ndarray, labels: onp.ndarray, seed: int) -> int:
    perm = onp.random.default_rng(seed).permutation(len(labels))
    n = 0
    for start in range(0, len(perm), BATCH):
        idx = perm[start:start + BATCH]
        x = images[idx].reshape(-1, 1, 28, 28).astype(onp.float32)
        x /= onp.float32(255)
        x -= onp.float32(MEAN)
        x /= onp.float32(STD)
        y = labels[idx]
        n += len(y)
    return n


def _loader_epoch(loader: Any) -> int:
    n, last = 0, None
    for last in loader:
        n += last[1].shape[0]
    last[0].block_until_ready()
    return n


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the benchmark, print a table, and return the measured numbers (seconds per epoch)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.data_pipeline",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--root", "--data-root", dest="root", default=None,
                        help="directory of the Fashion-MNIST files")
    parser.add_argument("--rounds", "--repeats", dest="rounds", type=int, default=7,
                        help="interleaved timing rounds (default 7)")
    parser.add_argument("--quick", action="store_true", help="two rounds (the smoke test)")
    parser.add_argument("--workers", type=int, default=0, help="also time the loader with N worker processes")
    parser.add_argument("--per-sample", action="store_true",
                        help="also time the per-sample path (a transform the loader cannot batch)")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds = min(args.rounds, 2)

    import jax

    from framework import np
    from framework.gluon import data as gdata

    T = gdata.vision.transforms
    t0 = time.perf_counter()
    dataset = gdata.vision.FashionMNIST(root=args.root, train=True)
    load_s = time.perf_counter() - t0
    transformer = T.Compose([T.ToTensor(), T.Normalize(MEAN, STD)])
    np.random.seed(0)
    loader = gdata.DataLoader(dataset.transform_first(transformer), BATCH, shuffle=True)
    variants: dict[str, Callable[[int], int]] = {
        "numpy fancy-indexing loop": lambda r: _numpy_epoch(dataset._data, dataset._label, r),
        "framework DataLoader": lambda r: _loader_epoch(loader),
    }
    if args.workers:
        workers = gdata.DataLoader(dataset.transform_first(transformer), BATCH, shuffle=True,
                                   num_workers=args.workers)
        variants[f"framework DataLoader, {args.workers} workers"] = lambda r: _loader_epoch(workers)
    if args.per_sample:
        per_sample = gdata.DataLoader(dataset.transform_first(lambda x: transformer(x)), BATCH, shuffle=True)
        variants["framework DataLoader, per-sample transform"] = lambda r: _loader_epoch(per_sample)

    times: dict[str, list[float]] = {name: [] for name in variants}
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    for run in variants.values():  # warm-up: starts worker pools, fills caches
        assert run(10**6) == len(dataset)
    for r in range(args.rounds):
        for name, run in variants.items():
            t, c = time.perf_counter(), time.process_time()
            run(r)
            times[name].append(time.perf_counter() - t)
            cpu[name].append(time.process_time() - c)

    base = statistics.median(times["numpy fancy-indexing loop"])
    print(f"Fashion-MNIST train, batch {BATCH}, shuffled, ToTensor+Normalize; {args.rounds} interleaved "
          f"rounds; jax {jax.__version__}, {os.cpu_count()} CPUs; dataset load {load_s:.2f} s")
    cpu_base = statistics.median(cpu["numpy fancy-indexing loop"])
    print(f"{'variant':46s} {'median s':>9s} {'min s':>8s} {'x numpy':>8s} {'main CPU s':>11s} "
          f"{'x numpy':>8s}")
    for name, ts in times.items():
        med, med_cpu = statistics.median(ts), statistics.median(cpu[name])
        print(f"{name:46s} {med:9.4f} {min(ts):8.4f} {med / base:8.2f} {med_cpu:11.4f} "
              f"{med_cpu / cpu_base:8.2f}")
    print("(main CPU s: this process's CPU time, steadier than wall time on a shared machine; it leaves out "
          "the workers' own CPU time)")
    ours = statistics.median(times["framework DataLoader"])
    mx_lo, mx_hi = MXNET_EPOCH_S
    print(f"budget: {BUDGET_S:.2f} s per epoch (10% of MXNet 1.9.1's {mx_lo}-{mx_hi} s); "
          f"framework DataLoader {ours:.4f} s: {'within' if ours <= BUDGET_S else 'OVER'} budget, "
          f"{MXNET_EPOCH_S[0] / ours:.0f}x faster than MXNet's best")
    result = {"numpy_s": base, "framework_s": ours, "ratio_to_numpy": ours / base, "budget_s": BUDGET_S,
              "within_budget": ours <= BUDGET_S, "load_s": load_s,
              "medians_s": {k: statistics.median(v) for k, v in times.items()},
              "mins_s": {k: min(v) for k, v in times.items()},
              "main_cpu_medians_s": {k: statistics.median(v) for k, v in cpu.items()}}
    return result


if __name__ == "__main__":
    main()
