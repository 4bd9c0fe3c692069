"""Issue 14: a 2-layer LSTM (256 hidden, 35 steps, batch 32, 256 inputs) forward + backward, tokens/s,
beside PyTorch eager in the same run. ``python -m benchmarks lstm [--quick] [--repeats N]``.

Variants (TNC input, loss = sum of the outputs, gradients of every weight):

- ``framework compiled``: ``jax.jit(jax.value_and_grad(...functional_call...))`` of ``gluon.rnn.LSTM``
  (each layer one ``lax.scan`` over the 35 steps);
- ``framework gluon``: ``with autograd.record(): layer(x).sum()``; ``backward()``;
- ``pytorch eager``: ``torch.nn.LSTM(256, 256, 2)``.

Medians of interleaved repeats after a warm-up; wall and process-CPU clocks; the ratio is tokens/s
(35 x 32 per step) against PyTorch. ``--quick``: 5 steps, batch 4, 1 repeat.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from benchmarks.common import markdown_table, write_results
from benchmarks.hybridize import interleaved_clocks

__all__ = ["main"]

COMMON_OPTIONS = ("--quick", "--repeats", "--out")


def _variants(steps: int, batch: int, hidden: int, layers: int) -> dict[str, Any]:
    from framework import autograd, np
    from framework.gluon import rnn

    x_np = onp.random.RandomState(0).uniform(-1, 1, (steps, batch, hidden)).astype(onp.float32)
    layer = rnn.LSTM(hidden, num_layers=layers, input_size=hidden)
    layer.initialize()
    params = layer.collect_params()
    values = params.values_on()
    x = jnp.asarray(x_np)
    h0 = layer.begin_state(batch)
    step = jax.jit(jax.value_and_grad(lambda p, x: jnp.sum(layer.functional_call(p, x, *h0)[0])))

    def compiled() -> None:
        jax.block_until_ready(step(values, x))

    xa = np.array(x_np)

    def gluon_loop() -> None:
        with autograd.record():
            loss = layer(xa).sum()
        loss.backward()
        jax.block_until_ready([p.grad() for p in params.values()])

    runs = {"framework compiled": compiled, "framework gluon": gluon_loop}
    try:
        import torch
    except ImportError:
        print("note: PyTorch is not installed: no peer in this run (pip install torch==2.13.0).")
        return runs
    tl = torch.nn.LSTM(hidden, hidden, layers)
    tx = torch.from_numpy(x_np)

    def torch_eager() -> None:
        tl.zero_grad(set_to_none=True)
        tl(tx)[0].sum().backward()

    runs["pytorch eager"] = torch_eager
    return runs


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.lstm", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--repeats", type=int, default=None)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    steps, batch = (5, 4) if args.quick else (35, 32)
    hidden, layers = 256, 2
    repeats = args.repeats or (1 if args.quick else 10)
    runs = _variants(steps, batch, hidden, layers)
    for fn in runs.values():
        fn()
        fn()
    clocks = interleaved_clocks(runs, repeats)
    peer = clocks.get("pytorch eager")
    rows = []
    for name, c in clocks.items():
        wall, cpu = statistics.median(c["wall"]), statistics.median(c["cpu"])
        row = {"variant": name, "tokens_per_s": steps * batch / wall, "ms_per_step": 1e3 * wall,
               "cpu_s_per_step": cpu}
        if peer is not None:
            row["vs_pytorch"] = statistics.median(peer["wall"]) / wall
            row["vs_pytorch_cpu"] = statistics.median(peer["cpu"]) / cpu
        rows.append(row)
    columns = ["variant", "tokens_per_s", "ms_per_step", "cpu_s_per_step", "vs_pytorch", "vs_pytorch_cpu"]
    print(markdown_table(rows, columns))
    notes = [f"LSTM {layers} layers, {hidden} hidden, {steps} steps, batch {batch}: forward+backward; "
             f"median of {repeats} interleaved repeats after warm-up.",
             "vs_pytorch > 1 means more tokens/s than PyTorch eager (wall clock); vs_pytorch_cpu compares "
             "process CPU seconds per step."]
    write_results("lstm", rows, columns, {"notes": notes}, out=args.out, bar_key="ms_per_step",
                  title="LSTM forward+backward")
    return {"rows": rows}


if __name__ == "__main__":
    main()
