"""Issues 14 and 32: convolution nets forward + backward on the model zoo's ResNet-18 (``resnet18_v1``,
the default), ResNet-50, MobileNet v2 and DenseNet-121, images/s beside PyTorch eager in the same run.
``python -m benchmarks resnet [--models resnet18,resnet50,mobilenet_v2,densenet121|all] [--quick]
[--repeats N] [--batch N] [--size N]``.

Variants (same batch, NCHW float32, softmax cross-entropy, gradients of every parameter):

- ``framework compiled``: ``jax.jit(jax.value_and_grad(loss(net.functional_call(p, x, training=True))),
  compiler_options=config.xla_options())`` (the pure path: the whole step one XLA program, compiled with
  the options the framework's own programs get);
- ``framework gluon``: ``net.hybridize()``; ``with autograd.record(): loss(net(x), y)``; ``backward()``;
- ``pytorch eager``: the same net written with ``torch.nn`` (``benchmarks.torch_models``: torchvision is
  not installed), ``loss.backward()``, train mode.

Default: batch 32, 224x224, 1000 classes (``--quick``: batch 4, 64x64, 1 repeat). Timings are medians
of interleaved repeats after a warm-up (compiles excluded); ``wall`` and ``cpu`` (process CPU time: what
a shared machine's load distorts least) are both reported, and the ratio is images/s against PyTorch.
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

__all__ = ["main", "MODELS"]

COMMON_OPTIONS = ("--quick", "--repeats", "--out")


# model name -> the framework's model zoo name (the PyTorch peer: benchmarks.torch_models.CONV_NETS)
MODELS = {"resnet18": "resnet18_v1", "resnet50": "resnet50_v1", "mobilenet_v2": "mobilenetv2_1.0",
          "densenet121": "densenet121"}


def _variants(model: str, batch: int, size: int, classes: int) -> dict[str, Any]:
    from framework import autograd, config, gluon, np
    from framework.gluon.model_zoo import vision

    rs = onp.random.RandomState(0)
    x_np = rs.uniform(-1, 1, (batch, 3, size, size)).astype(onp.float32)
    y_np = rs.randint(0, classes, batch).astype(onp.int32)
    x, y = jnp.asarray(x_np), jnp.asarray(y_np)

    net = vision.get_model(MODELS[model], classes=classes)
    net.initialize()
    net.hybridize()
    net(x)  # shapes
    params = net.collect_params()
    trainable = {k: v for k, v in params.values_on().items() if params[k].grad_req != "null"}
    frozen = {k: v for k, v in params.values_on().items() if params[k].grad_req == "null"}

    def loss_fn(p: dict, x: jax.Array, y: jax.Array) -> jax.Array:
        out, _ = net.functional_call({**p, **frozen}, x, training=True, key=jax.random.key(0),
                                     return_state=True)
        return jnp.mean(jax.nn.logsumexp(out, -1) - jnp.take_along_axis(out, y[:, None], -1)[:, 0])

    step = jax.jit(jax.value_and_grad(loss_fn), compiler_options=config.xla_options())

    def compiled() -> None:
        jax.block_until_ready(step(trainable, x, y))

    ce = gluon.loss.SoftmaxCrossEntropyLoss()
    xa, ya = np.array(x_np), np.array(y_np)

    def gluon_loop() -> None:
        with autograd.record():
            loss = ce(net(xa), ya)
        loss.backward()
        jax.block_until_ready([p.grad() for p in params.values() if p.grad_req != "null"])

    runs = {"framework compiled": compiled, "framework gluon": gluon_loop}
    try:
        import torch
    except ImportError:
        print("note: PyTorch is not installed: no peer in this run (pip install torch==2.13.0).")
        return runs
    from benchmarks.torch_models import CONV_NETS

    tnet = CONV_NETS[model](classes=classes).train()
    tx, ty = torch.from_numpy(x_np), torch.from_numpy(y_np.astype(onp.int64))
    tloss = torch.nn.CrossEntropyLoss()

    def torch_eager() -> None:
        tnet.zero_grad(set_to_none=True)
        tloss(tnet(tx), ty).backward()

    runs["pytorch eager"] = torch_eager
    return runs


def run(model: str, batch: int, size: int, classes: int, repeats: int) -> list[dict[str, Any]]:
    """Rows of images/s per variant (wall and CPU clocks) and the ratio to PyTorch eager."""
    runs = _variants(model, batch, size, classes)
    for fn in runs.values():  # warm-up: compiles, allocator
        fn()
        fn()
    clocks = interleaved_clocks(runs, repeats)
    rows = []
    peer = clocks.get("pytorch eager")
    for name, c in clocks.items():
        wall, cpu = statistics.median(c["wall"]), statistics.median(c["cpu"])
        row = {"model": model, "variant": name, "images_per_s": batch / wall, "ms_per_step": 1e3 * wall,
               "cpu_s_per_step": cpu}
        if peer is not None:
            row["vs_pytorch"] = statistics.median(peer["wall"]) / wall
            row["vs_pytorch_cpu"] = statistics.median(peer["cpu"]) / cpu
        rows.append(row)
    return rows


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.resnet", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--repeats", type=int, default=None)
    p.add_argument("--batch", type=int, default=None)
    p.add_argument("--size", type=int, default=None)
    p.add_argument("--out", default=None)
    p.add_argument("--models", default="resnet18",
                   help=f"comma-separated, of {', '.join(MODELS)} (or 'all'); default resnet18")
    args = p.parse_args(argv)
    models = list(MODELS) if args.models == "all" else args.models.split(",")
    for m in models:
        if m not in MODELS:
            p.error(f"--models: {m!r} is not one of {', '.join(MODELS)}")
    batch = args.batch or (4 if args.quick else 32)
    size = args.size or (64 if args.quick else 224)
    repeats = args.repeats or (1 if args.quick else 5)
    rows = [row for m in models for row in run(m, batch, size, 1000, repeats)]
    columns = ["model", "variant", "images_per_s", "ms_per_step", "cpu_s_per_step", "vs_pytorch",
               "vs_pytorch_cpu"]
    print(markdown_table(rows, columns))
    notes = [f"{', '.join(models)} forward+backward, batch {batch}, {size}x{size}, 1000 classes, train mode; "
             f"median of {repeats} interleaved repeats after warm-up.",
             "vs_pytorch > 1 means faster than PyTorch eager (images/s ratio, wall clock); vs_pytorch_cpu "
             "compares process CPU seconds per step."]
    write_results("resnet", rows, columns, {"notes": notes}, out=args.out, bar_key="ms_per_step",
                  title="Convolution nets forward+backward")
    return {"rows": rows}


if __name__ == "__main__":
    main()
