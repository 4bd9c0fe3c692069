"""Conv2D followed by MaxPool2D as one call: the fast XLA:CPU formulation of the pair.

Sequential containers run such a pair through a :class:`ConvPool` (same Parameters, same values and
gradients within float32 rounding). On the CPU backend it computes ``fast_cpu.conv2d_maxpool2d``: one
banded GEMM per convolution, pooled before the bias and ReLU (``max(relu(z + b)) == relu(max(z) + b)``),
about 2x the speed of the two layers one after the other (notes/speed.md). Elsewhere, or for shapes the
fast path does not take, it runs the two layers as they are. ``FRAMEWORK_FAST_CPU=0`` turns it off.

>>> from framework import np
>>> from framework.gluon import nn
>>> net = nn.HybridSequential()
>>> net.add(nn.Conv2D(4, 3, activation='relu'), nn.MaxPool2D(2, 2))
>>> net.initialize()
>>> fused = net(np.ones((2, 1, 10, 10)))
>>> separate = net[1](net[0](np.ones((2, 1, 10, 10))))
>>> bool(np.allclose(fused, separate, atol=1e-6))
True
"""

from __future__ import annotations

from typing import Any

import jax

from ...npx import fast_cpu
from ..block import Block, HybridBlock
from .conv_layers import Conv2D
from .pool_layers import MaxPool2D

__all__ = ["ConvPool", "pairable"]


def pairable(conv: Block, pool: Block) -> bool:
    """Whether ``conv`` then ``pool`` can run as one :class:`ConvPool` (configuration only)."""
    if not (type(conv) is Conv2D and type(pool) is MaxPool2D) or not fast_cpu.enabled():
        return False
    if conv._forward_hooks or conv._forward_pre_hooks or pool._forward_hooks or pool._forward_pre_hooks:
        return False  # hooks must see both layers (summary() uses them)
    act = None if conv.act is None else conv.act._act_type
    k = pool._kwargs
    return (conv._layout == "NCHW" and act in (None, "relu") and k["layout"] == "NCHW"
            and k["stride"] == k["kernel"] and k["pad"] == (0, 0) and k["pooling_convention"] == "valid")


class ConvPool(HybridBlock):
    """One compiled call for a ``Conv2D`` and the ``MaxPool2D`` after it (their own Parameters)."""

    _compiled_leaf = True
    _transient = True

    def __init__(self, conv: Conv2D, pool: MaxPool2D) -> None:
        super().__init__()
        self.conv = conv
        self.pool = pool

    def forward(self, x: Any) -> Any:
        conv, pool = self.conv, self.pool
        if conv.weight._data is None:  # deferred shapes: the layers infer them one by one
            return pool(conv(x))
        w = conv.weight.data()
        shape_ok = (jax.default_backend() == "cpu" and getattr(x, "ndim", 0) == 4
                    and fast_cpu.supports_conv2d_maxpool2d(
                        x.shape, w.shape, conv._strides, conv._padding, conv._dilation, conv._groups,
                        pool._kwargs["kernel"], x.dtype))
        if not shape_ok:
            return pool(conv(x))
        bias = None if conv.bias is None else conv.bias.data()
        act = None if conv.act is None else conv.act._act_type
        return fast_cpu.conv2d_maxpool2d(x, w, bias, conv._strides, conv._padding, conv._dilation,
                                         conv._groups, pool=pool._kwargs["kernel"], activation=act)

    def __repr__(self) -> str:
        return f"ConvPool(\n  {self.conv!r}\n  {self.pool!r}\n)"
