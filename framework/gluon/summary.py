"""``Block.summary(*inputs)``: layers, output shapes and parameter counts, computed abstractly.

>>> from framework import gluon, np
>>> net = gluon.nn.HybridSequential(); net.add(gluon.nn.Dense(4), gluon.nn.Dense(2))
>>> net.initialize()
>>> net.summary(np.ones((1, 3)))  # doctest: +ELLIPSIS, +NORMALIZE_WHITESPACE
--------------------------------------------------------------------------------
        Layer (type)                              Output Shape        Param #
================================================================================
               Input                                    (1, 3)              0
             Dense-1                                    (1, 4)             16
             Dense-2                                    (1, 2)             10
...
   Total params: 26
...
"""

from __future__ import annotations

import collections
from typing import Any

import jax
import numpy as onp

from .. import _compile, config
from ..npx.conv import cpu_path

__all__ = ["summary"]


def _shape_str(out: Any) -> str:
    leaves = jax.tree_util.tree_leaves(out)
    shapes = [tuple(x.shape) for x in leaves if hasattr(x, "shape")]
    return str(shapes[0]) if len(shapes) == 1 else str(shapes)


def _rewrites(block: Any) -> list[tuple[str, str, list[str]]]:
    """The compile layer's rewrites planned for the containers of ``block``'s tree."""
    out: list[tuple[str, str, list[str]]] = []
    names = block._structure()[1]

    def visit(b: Any) -> None:
        children = list(b._children.values())
        for name, platform, where in _compile.rewrite_listing(b):
            entry = (name, platform, [names.get(id(children[i]), str(i)) for i in where])
            if entry not in out:
                out.append(entry)

    block.apply(visit)
    return out


def _cpu_convolutions(convs: list[tuple[Any, tuple[int, ...]]], inputs: Any) -> str | None:
    """How the CPU runs the convolutions seen (layer, input shape), or None off the CPU / without any."""
    leaves = [x for x in jax.tree_util.tree_leaves(inputs) if hasattr(x, "shape")]
    if not convs or config.platform(leaves[0] if leaves else None) != "cpu":
        return None
    counts: collections.Counter = collections.Counter()
    if config.get("fast_cpu"):
        counts.update(_fast_path(layer, shape) for layer, shape in convs)
    where = {"eigen": "XLA's Eigen kernels", "ynnpack": "YNNPACK"}[config.get("cpu_conv")]
    text = f"Convolutions (cpu): {where} (cpu_conv={config.get('cpu_conv')!r})"
    for path, how in (("depthwise", "depthwise layers as shifted multiply-adds"),
                      ("pointwise", "1x1 layers as batched matrix products when trained"),
                      ("grouped", "grouped layers as one convolution per group")):
        if counts[path]:
            text += f"; {counts[path]} {how} (fast_cpu)"
    return text


def _fast_path(layer: Any, shape: tuple[int, ...]) -> str | None:
    """:func:`npx.conv.cpu_path` of a convolution layer on an input ``shape``."""
    k = layer._kwargs
    return cpu_path(shape, layer.weight.shape, stride=k["stride"], padding=tuple((p, p) for p in k["pad"]),
                    dilation=k["dilate"], groups=k["num_group"], channel_last=k["layout"].endswith("C"),
                    transposed=k.get("adj") is not None, dtype=layer.weight.dtype)


def summary(block: Any, *inputs: Any) -> None:
    """Print MXNet's summary table for ``block`` on ``inputs`` (no real FLOPs are spent)."""
    block(*inputs)  # finishes deferred initialisation
    rows: list[tuple[str, str, int]] = []
    counters: dict[str, int] = {}
    seen: set[int] = set()
    shared = [0]
    hooked = []
    convs: list[tuple[Any, tuple[int, ...]]] = []

    def hook(b: Any, args: Any, out: Any) -> None:
        kind = type(b).__name__
        if "num_group" in getattr(b, "_kwargs", {}) and args and hasattr(args[0], "shape"):
            convs.append((b, tuple(args[0].shape)))
        counters[kind] = counters.get(kind, 0) + 1
        own = [p for p in b._reg_params.values() if p is not None]
        count = 0
        for p in own:
            size = int(onp.prod(p.shape))
            if id(p) in seen:
                shared[0] += size
            seen.add(id(p))
            count += size
        rows.append((f"{kind}-{counters[kind]}", _shape_str(out), count))

    def attach(b: Any) -> None:
        if b is not block or not b._children:
            hooked.append(b.register_forward_hook(hook))

    block.apply(attach)
    try:
        values = block.collect_params().values_on()
        jax.eval_shape(lambda v, *xs: block.functional_call(v, *xs), values, *inputs)
    finally:
        for handle in hooked:
            handle.detach()
    params = block.collect_params()
    total = sum(int(onp.prod(p.shape)) for p in params.values())
    trainable = sum(int(onp.prod(p.shape)) for p in params.values() if p.grad_req != "null")
    line = "-" * 80
    print(line)
    print(f"{'Layer (type)':>20}{'Output Shape':>42}{'Param #':>15}")
    print("=" * 80)
    print(f"{'Input':>20}{_shape_str(inputs):>42}{0:>15}")
    for name, shape, count in rows:
        print(f"{name:>20}{shape:>42}{count:>15}")
    print("=" * 80)
    print("Parameters in forward computation graph, duplicate included")
    print(f"   Total params: {total}")
    print(f"   Trainable params: {trainable}")
    print(f"   Non-trainable params: {total - trainable}")
    print(f"Shared params in forward computation graph: {shared[0]}")
    print(f"Unique parameters in model: {total}")
    for name, platform, where in _rewrites(block):
        print(f"Rewrite {name} ({platform}): layers {', '.join(where)} run as one")
    cpu = _cpu_convolutions(convs, inputs)
    if cpu is not None:
        print(cpu)
    print(line)
