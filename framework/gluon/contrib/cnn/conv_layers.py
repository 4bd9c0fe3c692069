"""MXNet 1.9.1's ``contrib.cnn`` layers: ``DeformableConvolution`` (v1) and
``ModulatedDeformableConvolution`` (v2), each a convolution that predicts the offsets (and, for v2,
the modulation masks ``2 * sigmoid(.)``) from the input, and the deformable convolution that uses them.

>>> layer = DeformableConvolution(4, kernel_size=3, padding=1, in_channels=3)
>>> layer, layer.offset_weight.shape
(DeformableConvolution(3 -> 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1)), (18, 3, 3, 3))
"""

from __future__ import annotations

from typing import Any

import jax

from .... import npx
from ...block import HybridBlock
from ...nn import Activation
from ...parameter import Parameter
from .deformable import deformable_convolution, modulated_deformable_convolution

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]


def _two(name: str, v: Any, who: str) -> tuple[int, int]:
    out = (int(v),) * 2 if isinstance(v, int) else tuple(int(a) for a in v)
    if len(out) != 2:
        raise ValueError(f"{who}: {name}={v!r} must be an int or 2 ints (2-D convolution)")
    return out  # type: ignore[return-value]


class _Deformable(HybridBlock):
    _compiled_leaf = True
    _version = 1
    _offsets_per_point = 2

    def __init__(self, channels: int, kernel_size: Any = (1, 1), strides: Any = (1, 1), padding: Any = (0, 0),
                 dilation: Any = (1, 1), groups: int = 1, num_deformable_group: int = 1, layout: str = "NCHW",
                 use_bias: bool = True, in_channels: int = 0, activation: str | None = None,
                 weight_initializer: Any = None, bias_initializer: Any = "zeros",
                 offset_weight_initializer: Any = "zeros", offset_bias_initializer: Any = "zeros",
                 offset_use_bias: bool = True, op_name: str | None = None, adj: Any = None,
                 prefix: str | None = None, params: Any = None) -> None:
        super().__init__(prefix, params)
        who = type(self).__name__
        if layout not in ("NCHW", "NHWC"):
            raise ValueError(f"{who}: Only supports 'NCHW' and 'NHWC' layout for now (got {layout!r})")
        if layout == "NHWC":
            raise ValueError(f"{who}: layout='NHWC': MXNet 1.9.1's deformable convolution computes NCHW only "
                             "(its operator rejects NHWC); transpose the data to NCHW")
        if not isinstance(channels, int) or channels < 1:
            raise ValueError(f"{who}: channels={channels!r} must be a positive int")
        if adj:
            raise ValueError(f"{who}: adj={adj!r} (a transposed convolution's output adjustment) does not "
                             "apply to a deformable convolution")
        kernel = _two("kernel_size", kernel_size, who)
        self._kw = {"kernel": kernel, "stride": _two("strides", strides, who),
                    "pad": _two("padding", padding, who), "dilate": _two("dilation", dilation, who),
                    "num_group": int(groups), "num_deformable_group": int(num_deformable_group)}
        self._channels, self._use_bias, self._offset_use_bias = channels, use_bias, offset_use_bias
        self._split = 2 * num_deformable_group * kernel[0] * kernel[1]
        offset_channels = self._offsets_per_point * num_deformable_group * kernel[0] * kernel[1]
        in_per_group = in_channels // groups if in_channels else 0
        offset = [Parameter("offset_weight", shape=(offset_channels, in_per_group, *kernel),
                            init=offset_weight_initializer, allow_deferred_init=True),
                  Parameter("offset_bias", shape=(offset_channels,), init=offset_bias_initializer,
                            allow_deferred_init=True) if offset_use_bias else None]
        main = [Parameter("deformable_conv_weight", shape=(channels, in_per_group, *kernel),
                          init=weight_initializer, allow_deferred_init=True),
                Parameter("deformable_conv_bias", shape=(channels,), init=bias_initializer,
                          allow_deferred_init=True) if use_bias else None]
        # MXNet's registration order: v1 the offset layer first, v2 the main one
        names = ("offset_weight", "offset_bias", "deformable_conv_weight", "deformable_conv_bias")
        pairs = list(zip(names, offset + main, strict=True))
        for name, p in pairs if self._version == 1 else pairs[2:] + pairs[:2]:
            setattr(self, name, p)
        self.act = Activation(activation) if activation else None

    def infer_shape(self, x: Any, *args: Any) -> None:
        c = x.shape[1]
        if c % self._kw["num_group"]:
            raise ValueError(f"{type(self).__name__}: the {c} input channels do not divide by "
                             f"groups={self._kw['num_group']}")
        per = c // self._kw["num_group"]
        for p in (self.offset_weight, self.deformable_conv_weight):
            p.shape = (p.shape[0], per, *p.shape[2:])

    def _offsets(self, x: jax.Array) -> jax.Array:
        k = self._kw
        bias = self.offset_bias.data() if self.offset_bias is not None else None
        return npx.convolution(x, self.offset_weight.data(), bias, kernel=k["kernel"], stride=k["stride"],
                               dilate=k["dilate"], pad=k["pad"], num_filter=self.offset_weight.shape[0],
                               num_group=k["num_group"], no_bias=bias is None)

    def _finish(self, out: jax.Array) -> jax.Array:
        return self.act(out) if self.act is not None else out

    def __repr__(self) -> str:
        k = self._kw
        shape = self.deformable_conv_weight.shape
        s = (f"{type(self).__name__}({shape[1] or None} -> {shape[0]}, "
             f"kernel_size={k['kernel']}, stride={k['stride']}")
        if k["pad"] != (0, 0):
            s += f", padding={k['pad']}"
        if k["dilate"] != (1, 1):
            s += f", dilation={k['dilate']}"
        if k["num_group"] != 1:
            s += f", groups={k['num_group']}"
        if self.deformable_conv_bias is None:
            s += ", bias=False"
        if self.act is not None:
            s += f", {self.act}"
        return s + ")"


class DeformableConvolution(_Deformable):
    """2-D deformable convolution v1 (Dai et al., 2017): offsets from a convolution of the input
    (``offset_weight``, zeros by default: a plain convolution at the start), then the deformable
    convolution (``deformable_conv_weight``). Parameters and defaults are MXNet 1.9.1's."""

    def forward(self, x: jax.Array) -> jax.Array:
        k = self._kw
        bias = self.deformable_conv_bias.data() if self.deformable_conv_bias is not None else None
        out = deformable_convolution(x, self._offsets(x), self.deformable_conv_weight.data(), bias,
                                     kernel=k["kernel"], stride=k["stride"], dilate=k["dilate"], pad=k["pad"],
                                     num_filter=self._channels, num_group=k["num_group"],
                                     num_deformable_group=k["num_deformable_group"], no_bias=bias is None)
        return self._finish(out)


class ModulatedDeformableConvolution(_Deformable):
    """2-D modulated deformable convolution v2 (Zhu et al., 2019): one convolution predicts the offsets
    and the masks (``2 * sigmoid``), each sample is weighted by its mask.

    >>> ModulatedDeformableConvolution(2, kernel_size=3, in_channels=4).offset_weight.shape
    (27, 4, 3, 3)
    """

    _version = 2
    _offsets_per_point = 3

    def forward(self, x: jax.Array) -> jax.Array:
        k = self._kw
        both = self._offsets(x)
        offset, mask = both[:, : self._split], jax.nn.sigmoid(both[:, self._split:]) * 2
        bias = self.deformable_conv_bias.data() if self.deformable_conv_bias is not None else None
        out = modulated_deformable_convolution(x, offset, mask, self.deformable_conv_weight.data(), bias,
                                               kernel=k["kernel"], stride=k["stride"], dilate=k["dilate"],
                                               pad=k["pad"], num_filter=self._channels,
                                               num_group=k["num_group"],
                                               num_deformable_group=k["num_deformable_group"],
                                               no_bias=bias is None)
        return self._finish(out)
