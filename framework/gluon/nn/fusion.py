"""The Conv2D + MaxPool2D rewrite: a registered pass of the compile layer for arrays on the CPU.

Where a container runs a ``Conv2D`` (no activation, or one that never decreases: ReLU, sigmoid, tanh,
...) directly followed by a ``MaxPool2D`` whose stride equals its window, XLA:CPU computes the pair much
faster as ``fast_cpu.conv2d_maxpool2d``: one banded GEMM per convolution, pooled before the bias and the
activation (``max(relu(z + b)) == relu(max(z) + b)``),
about 2x the two layers one after the other (notes/speed.md), with the same values and gradients within
float32 rounding. The pass (:func:`match`) leaves the container's children as the user added them: it
only plans how a sequence runs, through a :class:`ConvPool` stand-in over the two layers' own
Parameters. It is chosen by the platform of the arrays (``'cpu'``), skips layers with hooks (hooks see
each layer), is listed by ``framework._compile.rewrite_listing(container)`` and ``net.summary()``, and
``FRAMEWORK_FAST_CPU=0`` (the one switch) turns it off. ``optimize_for(x, backend='conv_pool')``
asks for it explicitly on any platform.

>>> from framework import np
>>> from framework import _compile
>>> from framework.gluon import nn
>>> net = nn.HybridSequential()
>>> net.add(nn.Conv2D(4, 3, activation='relu'), nn.MaxPool2D(2, 2))
>>> net.initialize()
>>> fused = net(np.ones((2, 1, 10, 10)))
>>> _compile.rewrite_listing(net), len(net)
([('conv_pool', 'cpu', (0, 1))], 2)
>>> separate = net[1](net[0](np.ones((2, 1, 10, 10))))
>>> bool(np.allclose(fused, separate, atol=1e-6))
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import _compile
from ...npx import fast_cpu
from ..block import Block, HybridBlock
from .conv_layers import Conv2D
from .pool_layers import MaxPool2D

__all__ = ["ConvPool", "pairable", "match", "NAME"]

NAME = "conv_pool"


def pairable(conv: Block, pool: Block) -> bool:
    """Whether ``conv`` then ``pool`` compute what :class:`ConvPool` does (configuration only)."""
    if not (isinstance(conv, Conv2D) and isinstance(pool, MaxPool2D)):
        return False
    if type(conv).forward is not Conv2D.forward or type(pool).forward is not MaxPool2D.forward:
        return False  # a subclass with its own math
    if conv._forward_hooks or conv._forward_pre_hooks or pool._forward_hooks or pool._forward_pre_hooks:
        return False  # hooks must see both layers
    act = None if conv.act is None else conv.act._act_type
    k = pool._kwargs
    monotone = act is None or act in fast_cpu.MONOTONE_ACTIVATIONS
    return (conv._kwargs["layout"] == "NCHW" and monotone and k["layout"] == "NCHW"
            and k["stride"] == k["kernel"] and k["pad"] == (0, 0) and k["pooling_convention"] == "valid")


class ConvPool(HybridBlock):
    """One compiled call for a ``Conv2D`` and the ``MaxPool2D`` after it (their own Parameters).

    A stand-in made by the rewrite, never a child of the user's container.
    """

    _compiled_leaf = True
    _transient = True

    def __init__(self, conv: Conv2D, pool: MaxPool2D, platform: str = "cpu") -> None:
        super().__init__()
        self.conv = conv
        self.pool = pool
        object.__setattr__(self, "rewrites_of", (conv, pool))
        object.__setattr__(self, "_platform", platform)

    def forward(self, x: Any) -> Any:
        conv, pool = self.conv, self.pool
        c = conv._kwargs
        if conv.weight._data is None:  # deferred shapes: the layers infer them one by one
            return pool(conv(x))
        w = conv.weight.data()
        shape_ok = (getattr(x, "ndim", 0) == 4 and fast_cpu.supports_conv2d_maxpool2d(
            x.shape, w.shape, c["stride"], c["pad"], c["dilate"], c["num_group"],
            pool._kwargs["kernel"], x.dtype))
        if not shape_ok:
            return pool(conv(x))
        bias = None if conv.bias is None else conv.bias.data()
        act = None if conv.act is None else conv.act._act_type
        return fast_cpu.conv2d_maxpool2d(x, w, bias, c["stride"], c["pad"], c["dilate"],
                                         c["num_group"], pool=pool._kwargs["kernel"], activation=act)

    def __repr__(self) -> str:
        return f"ConvPool(\n  {self.conv!r}\n  {self.pool!r}\n)"


def match(steps: Sequence[Any], platform: str) -> list[Any] | None:
    """The pass: each pairable (Conv2D, MaxPool2D) in ``steps`` becomes one :class:`ConvPool`."""
    out: list[Any] = []
    i, changed = 0, False
    while i < len(steps):
        if i + 1 < len(steps) and pairable(steps[i], steps[i + 1]):
            out.append(ConvPool(steps[i], steps[i + 1], platform))
            i, changed = i + 2, True
        else:
            out.append(steps[i])
            i += 1
    return out if changed else None


_compile.register_rewrite(NAME, ("cpu",), match)
