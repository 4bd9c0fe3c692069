"""``gluon.utils.split_and_load`` of a batch already on the device it is split onto, named twice (the
seed's ``devices = [gpu, gpu_1]`` on a machine with one device), against plain JAX's two ways to make
the same two slices, measured in the same run:

- ``jax_in_place``: the array's memory read as NumPy and each half placed with
  ``jax.make_array_from_callback`` (on a CPU, JAX shares the memory: no copy);
- ``jax_program``: one ``jax.jit`` returning both halves (``jax.lax.slice_in_dim``: a copy).

Batches of N Fashion-MNIST-shaped float32 images (N x 1 x 28 x 28), interleaved rounds, median wall
microseconds a call including ``block_until_ready``; the ratio is ``split_and_load`` over the faster peer
at that size (the framework picks the program below 512 KiB on a CPU, the in-place route above).
``python -m benchmarks.split [--quick]``.

>>> sizes(quick=True)
(8, 256)
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as onp

__all__ = ["main", "sizes", "variants"]

COMMON_OPTIONS = ("--quick", "--repeats", "--out")


def sizes(quick: bool = False) -> tuple[int, ...]:
    """The batch sizes measured."""
    return (8, 256) if quick else (8, 32, 64, 128, 256, 512)


def variants(x: jax.Array) -> dict[str, Callable[[], Any]]:
    """The three ways to cut ``x`` (on one device) into two halves on that device, each a callable."""
    from framework import gluon

    dev = next(iter(x.devices()))
    half = x.shape[0] // 2
    sharding = jax.sharding.SingleDeviceSharding(dev)
    program = jax.jit(lambda a: (jax.lax.slice_in_dim(a, 0, half), jax.lax.slice_in_dim(a, half, a.shape[0])))

    def in_place() -> list[jax.Array]:
        host = onp.asarray(x)
        return [jax.make_array_from_callback(h.shape, sharding, lambda _, h=h: h) for h in (host[:half],
                                                                                           host[half:])]

    return {"split_and_load": lambda: gluon.utils.split_and_load(x, [dev, dev]),
            "jax_in_place": in_place, "jax_program": lambda: program(x)}


def _mean_us(fn: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        jax.block_until_ready(fn())
    return (time.perf_counter() - start) / calls * 1e6


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.split", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="two sizes, few calls (smoke test)")
    p.add_argument("--repeats", type=int, default=None, help="interleaved rounds (default 5)")
    p.add_argument("--out", default=None, help="results directory (default benchmarks/results)")
    p.add_argument("--no-write", action="store_true", help="print only; write no result files")
    args = p.parse_args(argv)
    from .common import markdown_table, write_results

    rounds, calls = args.repeats or (1 if args.quick else 5), 20 if args.quick else 500
    dev = jax.devices()[0]
    cases = {n: variants(jax.device_put(onp.random.default_rng(n).random((n, 1, 28, 28), onp.float32), dev))
             for n in sizes(args.quick)}
    for runs in cases.values():  # a process's first calls run slower: warm every case before timing any
        for fn in runs.values():  # (the framework compiles its program on the second split)
            _mean_us(fn, 5 if args.quick else 200)
    times: dict[int, dict[str, list[float]]] = {n: {k: [] for k in runs} for n, runs in cases.items()}
    for _ in range(rounds):
        for n, runs in cases.items():
            for name, fn in runs.items():
                times[n][name].append(_mean_us(fn, calls))
    rows = []
    for n, by_name in times.items():
        row: dict[str, Any] = {"batch": n, **{k: statistics.median(v) for k, v in by_name.items()}}
        row["ratio"] = row["split_and_load"] / min(row["jax_in_place"], row["jax_program"])
        rows.append(row)
    columns = ["batch", "split_and_load", "jax_in_place", "jax_program", "ratio"]
    print(markdown_table(rows, columns))
    print("note: us a call (two halves, block_until_ready), median of interleaved rounds; ratio: "
          "split_and_load / the faster plain-JAX route")
    if not args.no_write:
        write_results("split", rows, columns, {"rounds": rounds, "calls": calls}, out=args.out,
                      bar_key="ratio", label_key="batch", title="split_and_load onto one device named twice")
    return {"rows": rows}


if __name__ == "__main__":
    main()
