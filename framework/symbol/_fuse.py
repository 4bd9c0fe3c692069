"""Convolution -> Activation -> max Pooling chains of a symbol graph, run on the CPU as one
``fast_cpu.conv2d_maxpool2d``.

A symbolic LeNet (MXNet's image-classification example: ``Convolution``, ``Activation('tanh')``,
``Pooling(max, 2x2, stride 2)``, twice) spends most of its step in the two convolutions and poolings;
fused, the pooling is taken inside the convolution's GEMM and the activation after it (exact for the
activations that never decrease: ``max(tanh(z)) == tanh(max(z))``), about 1.8x faster forward and
backward on XLA:CPU (notes/speed.md). A chain qualifies when each intermediate result feeds only the
next node (not a head, not another node's input), the convolution is 2-D NCHW, the activation is one of
``fast_cpu.MONOTONE_ACTIVATIONS`` (or absent), and the pooling is a max over windows equal to its
stride, without padding, in MXNet's 'valid' convention. Whether it runs fused is decided per call from
the shapes (``fast_cpu.supports_conv2d_maxpool2d``) and the ``fast_cpu`` switch of
:mod:`framework.config`; otherwise the three operators run one by one.

>>> from framework.symbol._graph import parse_graph
>>> from framework.symbol._interp import Program
>>> g = parse_graph('{"nodes": [{"op": "null", "name": "x", "inputs": []},'
...     ' {"op": "null", "name": "w", "inputs": []}, {"op": "null", "name": "b", "inputs": []},'
...     ' {"op": "Convolution", "name": "c", "attrs": {"kernel": "(3, 3)", "num_filter": "4"},'
...     '  "inputs": [[0, 0], [1, 0], [2, 0]]},'
...     ' {"op": "Activation", "name": "a", "attrs": {"act_type": "tanh"}, "inputs": [[3, 0]]},'
...     ' {"op": "Pooling", "name": "p", "attrs": {"kernel": "(2, 2)", "stride": "(2, 2)"},'
...     '  "inputs": [[4, 0]]}], "heads": [[5, 0]]}')
>>> find_chains(g, Program(g, ["x"]).attrs)
{3: ConvPoolChain(conv=3, act=4, pool=5)}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jax

from ..npx import fast_cpu
from ._attrs import Attrs
from ._graph import Graph
from ._ops import OPS, pooling_outputs

__all__ = ["ConvPoolChain", "find_chains", "run_chain"]


@dataclass(frozen=True)
class ConvPoolChain:
    """Node ids of a fusable chain (``act`` is None when the pooling reads the convolution directly)."""

    conv: int
    act: int | None
    pool: int


def _is(op: str, name: str) -> bool:
    return op in OPS and OPS[op] is OPS[name]


def _nchw(a: Attrs) -> bool:
    return a.str("layout", "None") in ("None", "NCHW")


def _pool_fusable(a: Attrs) -> bool:
    kernel = a.shape("kernel", ())
    return (len(kernel) == 2 and a.str("pool_type", "max") == "max" and not a.bool("global_pool")
            and a.str("pooling_convention", "valid") == "valid" and tuple(a.shape("stride", ())) == kernel
            and not any(a.shape("pad", ())) and _nchw(a))


def find_chains(graph: Graph, attrs: Mapping[int, Attrs]) -> dict[int, ConvPoolChain]:
    """The fusable chains of ``graph`` by their convolution's node id (``attrs``: the parsed attributes
    of every operator node the program runs)."""
    nodes = graph.nodes
    uses: Counter = Counter(tuple(e) for e in graph.heads)
    for nid in attrs:
        uses.update(tuple(e) for e in nodes[nid].inputs)
    chains = {}
    for pid, a in attrs.items():
        pool = nodes[pid]
        if not _is(pool.op, "Pooling") or not pool.inputs or not _pool_fusable(a):
            continue
        src, idx = pool.inputs[0]
        act = None
        if src in attrs and _is(nodes[src].op, "Activation"):
            monotone = attrs[src].str("act_type") in fast_cpu.MONOTONE_ACTIVATIONS
            if (idx, uses[(src, 0)]) != (0, 1) or not monotone:
                continue
            act, (src, idx) = src, nodes[src].inputs[0]
        if src not in attrs or not _is(nodes[src].op, "Convolution") or (idx, uses[(src, 0)]) != (0, 1):
            continue
        c = attrs[src]
        if len(c.shape("kernel")) == 2 and _nchw(c):
            chains[src] = ConvPoolChain(src, act, pid)
    return chains


def run_chain(chain: ConvPoolChain, xs: Sequence[Any],
              attrs: Mapping[int, Attrs]) -> tuple[jax.Array, ...] | None:
    """The pooling node's outputs for ``chain`` on the convolution's inputs ``xs`` when the fused kernel
    applies to these shapes on this platform, else None (run the nodes one by one)."""
    if not fast_cpu.enabled():
        return None
    c, p = attrs[chain.conv], attrs[chain.pool]
    x, w = xs[0], xs[1]
    stride, pad = c.shape("stride", ()) or (1, 1), c.shape("pad", ()) or (0, 0)
    dilate, groups, pool = c.shape("dilate", ()) or (1, 1), c.int("num_group", 1), p.shape("kernel")
    if not fast_cpu.supports_conv2d_maxpool2d(x.shape, w.shape, stride, pad, dilate, groups, pool, x.dtype):
        return None
    bias = None if c.bool("no_bias") else xs[2]
    act = None if chain.act is None else attrs[chain.act].str("act_type")
    return pooling_outputs(p, fast_cpu.conv2d_maxpool2d(x, w, bias, stride, pad, dilate, groups, pool=pool,
                                                        activation=act))
