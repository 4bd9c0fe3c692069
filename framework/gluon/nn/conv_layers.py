"""Convolution layers: Conv1D/2D/3D and Conv1DTranspose/2DTranspose/3DTranspose (NCW/NCHW/NCDHW).

Weights are (channels, in_channels/groups, *kernel) for convolutions and
(in_channels, channels/groups, *kernel) for transposed ones, as in MXNet; ``in_channels=0`` defers
the weight's shape to the first input. Pooling layers live in :mod:`.pool_layers`.

>>> from framework import np
>>> from framework.gluon import nn
>>> conv = nn.Conv2D(6, kernel_size=5, activation='relu')
>>> conv
Conv2D(None -> 6, kernel_size=(5, 5), stride=(1, 1), Activation(relu))
>>> conv.initialize()
>>> conv(np.ones((2, 1, 28, 28))).shape, conv.weight.shape
((2, 6, 24, 24), (6, 1, 5, 5))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax

from ...npx import conv as _conv
from ..block import HybridBlock
from ..name_scope import internal_scope
from ..parameter import Parameter
from . import padding as _padding
from . import pool_layers as _pool_layers
from ._geometry import LAYOUTS as _LAYOUTS
from ._geometry import _tuple
from .activations import Activation

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose"]

class _Conv(HybridBlock):
    """Shared implementation of the convolution layers (private)."""

    _compiled_leaf = True
    _alias_1x = "conv"  # its MXNet 1.x prefix: conv0_, conv1_, ...
    _nd = 2
    _transpose = False

    def __init__(self, channels: int, kernel_size: int | Sequence[int], strides: Any, padding: Any,
                 dilation: Any, groups: int, layout: str, activation: str | None, use_bias: bool,
                 weight_initializer: Any, bias_initializer: Any, in_channels: int,
                 output_padding: Any = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        nd, name = self._nd, type(self).__name__
        if layout not in _LAYOUTS[nd]:
            raise ValueError(f"{name}: layout={layout!r}; only {' and '.join(map(repr, _LAYOUTS[nd]))} are "
                             "supported")
        if not isinstance(channels, int) or channels < 1:
            raise ValueError(f"{name}: channels={channels!r} must be a positive int")
        if groups < 1 or channels % groups or (in_channels and in_channels % groups):
            raise ValueError(f"{name}: groups={groups} must divide channels={channels} and "
                             f"in_channels={in_channels}")
        self._channels, self._in_channels = channels, in_channels
        self._channel_last = layout.endswith("C")
        # MXNet's own record of the operator's arguments, the one this layer reads: code written for
        # MXNet reads and edits it (GluonCV's pruned ResNets set num_filter, with _channels)
        self._kwargs: dict[str, Any] = {
            "kernel": _tuple("kernel_size", kernel_size, nd, name),
            "stride": _tuple("strides", strides, nd, name),
            "dilate": _tuple("dilation", dilation, nd, name),
            "pad": _tuple("padding", padding, nd, name),
            "num_filter": channels, "num_group": groups, "no_bias": not use_bias, "layout": layout}
        if self._transpose:
            self._kwargs["adj"] = _tuple("output_padding", output_padding, nd, name)
        self.weight = Parameter("weight", shape=self._weight_shape(in_channels), init=weight_initializer,
                                allow_deferred_init=True)
        self.bias = (Parameter("bias", shape=(channels,), init=bias_initializer, allow_deferred_init=True)
                     if use_bias else None)
        self.act = None
        if activation is not None:
            with internal_scope(self):  # named <prefix><act_type>_, as MXNet 1.x names it
                self.act = Activation(activation, prefix=f"{activation}_")

    def _weight_shape(self, in_channels: int) -> tuple[int, ...]:
        groups, kernel = self._kwargs["num_group"], self._kwargs["kernel"]
        if self._transpose:
            lead, per_group = in_channels, self._channels // groups
        else:
            lead, per_group = self._channels, in_channels // groups
        if self._channel_last:
            return (lead, *kernel, per_group)
        return (lead, per_group, *kernel)

    def infer_shape(self, x: Any, *args: Any) -> None:
        if x.ndim != self._nd + 2:
            raise ValueError(
                f"{type(self).__name__} expects {self._nd + 2}-D input ({self._kwargs['layout']}), got shape "
                f"{tuple(x.shape)}"
            )
        in_channels = x.shape[-1] if self._channel_last else x.shape[1]
        groups = self._kwargs["num_group"]
        if in_channels % groups:
            raise ValueError(f"{type(self).__name__}: groups={groups} must divide the input's "
                             f"{in_channels} channels")
        self.weight.shape = self._weight_shape(in_channels)

    def forward(self, x: jax.Array) -> jax.Array:
        bias = None if self.bias is None else self.bias.data()
        kwargs = {**self._kwargs, "no_bias": bias is None}
        if self._transpose:
            out = _conv.deconvolution(x, self.weight.data(), bias, **kwargs)
        else:
            out = _conv.convolution(x, self.weight.data(), bias, **kwargs)
        return self.act(out) if self.act is not None else out

    def _symbol_forward(self, F: Any, x: Any, weight: Any, bias: Any = None) -> Any:
        op = F.Deconvolution if self._transpose else F.Convolution
        args = (x, weight) if bias is None else (x, weight, bias)
        out = op(*args, name="fwd", **{**self._kwargs, "no_bias": bias is None})
        return self.act(out) if self.act is not None else out

    def __repr__(self) -> str:
        nd = self._nd
        k = self._kwargs
        s = f"kernel_size={k['kernel']}, stride={k['stride']}"
        if k["pad"] != (0,) * nd:
            s += f", padding={k['pad']}"
        if k["dilate"] != (1,) * nd:
            s += f", dilation={k['dilate']}"
        if self._transpose and k["adj"] != (0,) * nd:
            s += f", output_padding={k['adj']}"
        if k["num_group"] != 1:
            s += f", groups={k['num_group']}"
        if self.bias is None:
            s += ", bias=False"
        if self.act is not None:
            s += f", {self.act}"
        # MXNet's mapping: weight dims (in/groups -> out) for convolutions, (in -> out/groups) transposed.
        shape = self.weight.shape
        inner = shape[-1 if self._channel_last else 1]
        left, right = (shape[0], inner) if self._transpose else (inner, shape[0])
        return f"{type(self).__name__}({left or None} -> {right}, {s})"


class Conv1D(_Conv):
    """1-D convolution over (N, C, W) data.

    >>> layer = Conv1D(4, 3, in_channels=2)
    >>> layer.weight.shape
    (4, 2, 3)
    """

    _nd = 1

    def __init__(self, channels: int, kernel_size: int | Sequence[int], strides: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, layout: str = "NCW", activation: str | None = None,
                 use_bias: bool = True, weight_initializer: Any = None, bias_initializer: Any = "zeros",
                 in_channels: int = 0, **kwargs: Any) -> None:
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, activation,
                         use_bias, weight_initializer, bias_initializer, in_channels, **kwargs)


class Conv2D(_Conv):
    """2-D convolution over (N, C, H, W) data; out = floor((H + 2p - d(k-1) - 1) / s) + 1.

    >>> Conv2D(16, (3, 3), padding=1, groups=2, in_channels=4).weight.shape
    (16, 2, 3, 3)
    """

    _nd = 2

    def __init__(self, channels: int, kernel_size: int | Sequence[int], strides: Any = (1, 1),
                 padding: Any = (0, 0), dilation: Any = (1, 1), groups: int = 1, layout: str = "NCHW",
                 activation: str | None = None, use_bias: bool = True, weight_initializer: Any = None,
                 bias_initializer: Any = "zeros", in_channels: int = 0, **kwargs: Any) -> None:
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, activation,
                         use_bias, weight_initializer, bias_initializer, in_channels, **kwargs)


class Conv3D(_Conv):
    """3-D convolution over (N, C, D, H, W) data.

    >>> Conv3D(2, 3, in_channels=1).weight.shape
    (2, 1, 3, 3, 3)
    """

    _nd = 3

    def __init__(self, channels: int, kernel_size: int | Sequence[int], strides: Any = (1, 1, 1),
                 padding: Any = (0, 0, 0), dilation: Any = (1, 1, 1), groups: int = 1, layout: str = "NCDHW",
                 activation: str | None = None, use_bias: bool = True, weight_initializer: Any = None,
                 bias_initializer: Any = "zeros", in_channels: int = 0, **kwargs: Any) -> None:
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, activation,
                         use_bias, weight_initializer, bias_initializer, in_channels, **kwargs)


class Conv1DTranspose(_Conv):
    """Transposed 1-D convolution; out = (W - 1) * s - 2p + d(k-1) + 1 + output_padding.

    >>> Conv1DTranspose(4, 3, strides=2, in_channels=2).weight.shape
    (2, 4, 3)
    """

    _nd = 1
    _transpose = True

    def __init__(self, channels: int, kernel_size: int | Sequence[int], strides: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, dilation: Any = 1, groups: int = 1, layout: str = "NCW",
                 activation: str | None = None, use_bias: bool = True, weight_initializer: Any = None,
                 bias_initializer: Any = "zeros", in_channels: int = 0, **kwargs: Any) -> None:
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, activation,
                         use_bias, weight_initializer, bias_initializer, in_channels,
                         output_padding=output_padding, **kwargs)


class Conv2DTranspose(_Conv):
    """Transposed 2-D convolution (the gradient of Conv2D with respect to its input).

    >>> from framework import np
    >>> layer = Conv2DTranspose(3, 4, strides=2, padding=1)
    >>> layer.initialize()
    >>> layer(np.ones((1, 2, 5, 5))).shape, layer.weight.shape
    ((1, 3, 10, 10), (2, 3, 4, 4))
    """

    _nd = 2
    _transpose = True

    def __init__(self, channels: int, kernel_size: int | Sequence[int], strides: Any = (1, 1),
                 padding: Any = (0, 0), output_padding: Any = (0, 0), dilation: Any = (1, 1), groups: int = 1,
                 layout: str = "NCHW", activation: str | None = None, use_bias: bool = True,
                 weight_initializer: Any = None, bias_initializer: Any = "zeros", in_channels: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, activation,
                         use_bias, weight_initializer, bias_initializer, in_channels,
                         output_padding=output_padding, **kwargs)


class Conv3DTranspose(_Conv):
    """Transposed 3-D convolution.

    >>> Conv3DTranspose(2, 2, strides=2, in_channels=4).weight.shape
    (4, 2, 2, 2, 2)
    """

    _nd = 3
    _transpose = True

    def __init__(self, channels: int, kernel_size: int | Sequence[int], strides: Any = (1, 1, 1),
                 padding: Any = (0, 0, 0), output_padding: Any = (0, 0, 0), dilation: Any = (1, 1, 1),
                 groups: int = 1, layout: str = "NCDHW", activation: str | None = None, use_bias: bool = True,
                 weight_initializer: Any = None, bias_initializer: Any = "zeros", in_channels: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, activation,
                         use_bias, weight_initializer, bias_initializer, in_channels,
                         output_padding=output_padding, **kwargs)


# MXNet 1.x defines its pooling and padding layers in this module too, and code reaches them here
# (``nn.conv_layers.GlobalAvgPool2D``: GluonCV's CenterNet).
for _module in (_pool_layers, _padding):
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
    __all__ += _module.__all__
