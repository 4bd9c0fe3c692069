"""MXNet's files: what a SymbolBlock and RecordIO cost, each against a peer in the same run.

- ``symbol``: the seed's LeNet, hybridized, forward + backward (recorded) per batch of 256, against the
  same network exported (``net.export``) and imported back as a ``SymbolBlock`` (the graph interpreted
  as one pure JAX function). Target: the SymbolBlock within 1.2x of the native block.
- ``recordio``: reading 4096 records of 808 bytes (a Fashion-MNIST image + IRHeader) with
  ``MXRecordIO`` and ``unpack``, against slicing the same file's bytes with the record sizes known in
  advance (the floor: no header parsing or checking).

``python -m benchmarks mxnet_files [--quick] [--repeats N]``; prints and writes
``benchmarks/results/mxnet_files.{json,md,png}``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from typing import Any

import numpy as onp

from .common import write_results

__all__ = ["main"]

COMMON_OPTIONS = ("--quick", "--repeats", "--out")


def _timed(fns: dict[str, Any], repeats: int) -> dict[str, float]:
    for fn in fns.values():
        fn()
    out: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            t = time.perf_counter()
            fn()
            out[k].append(time.perf_counter() - t)
    return {k: statistics.median(v) for k, v in out.items()}


def bench_symbol(repeats: int, batch: int) -> list[dict[str, Any]]:
    import jax
    import jax.numpy as jnp

    from framework import autograd, gluon
    from framework.gluon.loss import SoftmaxCrossEntropyLoss
    from train.lenet import lenet

    x = jnp.asarray(onp.random.RandomState(0).uniform(-1, 1, (batch, 1, 28, 28)).astype(onp.float32))
    y = jnp.asarray(onp.arange(batch) % 10, jnp.int32)
    net = lenet()
    net.initialize()
    net.hybridize()
    net(x)
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        sym, params = net.export(os.path.join(d, "lenet"))
        export_s = time.perf_counter() - t
        imported = gluon.SymbolBlock.imports(sym, ["data"], params)
    imported.hybridize()
    loss = SoftmaxCrossEntropyLoss()

    def step(block):
        def run():
            with autograd.record():
                out = loss(block(x), y)
            out.backward()
            jax.block_until_ready([p.grad() for p in block.collect_params().values()])
        return run

    times = _timed({"native": step(net), "symbolblock": step(imported)}, repeats)
    base = times["native"]
    return [{"benchmark": "symbol", "variant": k, "ms": 1e3 * v, "ratio": v / base,
             "note": f"export took {export_s:.2f} s" if k == "symbolblock" else "gluon layers"}
            for k, v in times.items()]


def bench_recordio(repeats: int, n: int) -> list[dict[str, Any]]:
    from framework import recordio

    rs = onp.random.RandomState(0)
    payloads = [rs.randint(0, 256, 784).astype(onp.uint8).tobytes() for _ in range(n)]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "x.rec")
        w = recordio.MXRecordIO(path, "w")
        for i, p in enumerate(payloads):
            w.write(recordio.pack(recordio.IRHeader(0, float(i % 10), i, 0), p))
        w.close()
        size = 8 + 24 + 784

        def ours():
            r = recordio.MXRecordIO(path, "r")
            out = [recordio.unpack(rec) for rec in r]
            r.close()
            assert len(out) == n

        def floor():
            with open(path, "rb") as f:
                data = f.read()
            out = [data[k * size + 32:(k + 1) * size] for k in range(n)]
            assert len(out) == n

        times = _timed({"recordio": ours, "raw_slices": floor}, repeats)
    base = times["raw_slices"]
    return [{"benchmark": "recordio", "variant": k, "ms": 1e3 * v, "ratio": v / base,
             "note": f"{n / v:.0f} records/s"} for k, v in times.items()]


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.mxnet_files", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="small sizes, few repeats (the smoke test)")
    p.add_argument("--repeats", type=int, default=None, help="timed repeats per variant")
    p.add_argument("--out", default=None, help="results directory")
    args = p.parse_args(argv)
    repeats = args.repeats or (2 if args.quick else 20)
    rows = bench_symbol(repeats, 32 if args.quick else 256)
    rows += bench_recordio(repeats, 256 if args.quick else 4096)
    for r in rows:
        print(f"{r['benchmark']:9s} {r['variant']:12s} {r['ms']:9.2f} ms  {r['ratio']:.2f}x  {r['note']}")
    write_results("mxnet_files", rows, ["benchmark", "variant", "ms", "ratio", "note"],
                  {"repeats": repeats, "quick": args.quick}, out=args.out, bar_key="ms",
                  title="MXNet's files: SymbolBlock and RecordIO against their peers")
    return {"ok": True, "rows": rows}


if __name__ == "__main__":
    main()
