"""MobileNet v1 (Howard et al., 2017) and v2 (Sandler et al., 2018) with width multipliers, as in
MXNet 1.9.1.

>>> net = mobilenet0_25(classes=10)
>>> net.collect_params()['features.3.weight'].shape  # depthwise: in_channels/groups known at first call
(8, 0, 3, 3)
"""

from __future__ import annotations

import os
from typing import Any

import jax

from ... import nn
from ...block import HybridBlock
from ._common import ReLU6, finish

__all__ = [
    "MobileNet",
    "MobileNetV2",
    "LinearBottleneck",
    "get_mobilenet",
    "get_mobilenet_v2",
    "mobilenet1_0",
    "mobilenet0_75",
    "mobilenet0_5",
    "mobilenet0_25",
    "mobilenet_v2_1_0",
    "mobilenet_v2_0_75",
    "mobilenet_v2_0_5",
    "mobilenet_v2_0_25",
]


def _conv(
    out: nn.HybridSequential,
    channels: int,
    kernel: int = 1,
    stride: int = 1,
    pad: int = 0,
    groups: int = 1,
    active: bool = True,
    relu6: bool = False,
) -> None:
    out.add(nn.Conv2D(channels, kernel, stride, pad, groups=groups, use_bias=False), nn.BatchNorm(scale=True))
    if active:
        out.add(ReLU6() if relu6 else nn.Activation("relu"))


class LinearBottleneck(HybridBlock):
    """MobileNetV2's inverted residual: 1x1 expand (x t), 3x3 depthwise, 1x1 linear projection;
    the input is added back when the stride is 1 and the widths agree."""

    def __init__(
        self,
        in_channels: int,
        channels: int,
        t: int,
        stride: int,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__()
        self.use_shortcut = stride == 1 and in_channels == channels
        self.out = nn.HybridSequential()
        _conv(self.out, in_channels * t, relu6=True)
        _conv(self.out, in_channels * t, kernel=3, stride=stride, pad=1, groups=in_channels * t, relu6=True)
        _conv(self.out, channels, active=False)

    def forward(self, x: jax.Array) -> jax.Array:
        out = self.out(x)
        return out + x if self.use_shortcut else out


class MobileNet(HybridBlock):
    """MobileNet v1: depthwise-separable convolutions, widths scaled by ``multiplier``."""

    def __init__(
        self, multiplier: float = 1.0, classes: int = 1000, prefix: str | None = None, params: Any = None
    ) -> None:
        super().__init__()
        self.features = nn.HybridSequential()
        _conv(self.features, int(32 * multiplier), kernel=3, pad=1, stride=2)
        dw = [int(c * multiplier) for c in [32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024]]
        pw = [int(c * multiplier) for c in [64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2]
        strides = [1, 2] * 3 + [1] * 5 + [2, 1]
        for dwc, c, s in zip(dw, pw, strides, strict=True):
            _conv(self.features, dwc, kernel=3, stride=s, pad=1, groups=dwc)
            _conv(self.features, c)
        self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
        self.output = nn.Dense(classes)

    def forward(self, x: jax.Array) -> jax.Array:
        return self.output(self.features(x))


class MobileNetV2(HybridBlock):
    """MobileNet v2: inverted residual bottlenecks, widths scaled by ``multiplier``; the head is a 1x1
    convolution to ``classes`` (``output.0.weight``)."""

    def __init__(
        self, multiplier: float = 1.0, classes: int = 1000, prefix: str | None = None, params: Any = None
    ) -> None:
        super().__init__()
        self.features = nn.HybridSequential()
        _conv(self.features, int(32 * multiplier), kernel=3, stride=2, pad=1, relu6=True)
        ins = [
            int(c * multiplier) for c in [32] + [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3
        ]
        outs = [
            int(c * multiplier) for c in [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3 + [320]
        ]
        ts = [1] + [6] * 16
        strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
        for in_c, c, t, s in zip(ins, outs, ts, strides, strict=True):
            self.features.add(LinearBottleneck(in_c, c, t, s))
        _conv(self.features, int(1280 * multiplier) if multiplier > 1.0 else 1280, relu6=True)
        self.features.add(nn.GlobalAvgPool2D())
        self.output = nn.HybridSequential()
        self.output.add(nn.Conv2D(classes, 1, use_bias=False), nn.Flatten())

    def forward(self, x: jax.Array) -> jax.Array:
        return self.output(self.features(x))


def _suffix(multiplier: float) -> str:
    s = f"{multiplier:.2f}"
    return s[:-1] if s in ("1.00", "0.50") else s


def get_mobilenet(
    multiplier: float,
    pretrained: bool = False,
    ctx: Any = None,
    root: str | os.PathLike | None = None,
    *,
    classes: int = 1000,
    prefix: str | None = None,
    params: Any = None,
) -> MobileNet:
    """MobileNet v1 with width ``multiplier`` (MXNet publishes 1.0, 0.75, 0.5, 0.25)."""
    net = MobileNet(multiplier, classes=classes)
    return finish(net, f"mobilenet{_suffix(multiplier)}", pretrained, ctx, root)


def get_mobilenet_v2(
    multiplier: float,
    pretrained: bool = False,
    ctx: Any = None,
    root: str | os.PathLike | None = None,
    *,
    classes: int = 1000,
    prefix: str | None = None,
    params: Any = None,
) -> MobileNetV2:
    """MobileNet v2 with width ``multiplier`` (MXNet publishes 1.0, 0.75, 0.5, 0.25)."""
    net = MobileNetV2(multiplier, classes=classes)
    return finish(net, f"mobilenetv2_{_suffix(multiplier)}", pretrained, ctx, root)


def _maker(multiplier: float, v2: bool):
    def make(
        pretrained: bool = False, ctx: Any = None, root: str | os.PathLike | None = None, **kwargs: Any
    ) -> HybridBlock:
        return (get_mobilenet_v2 if v2 else get_mobilenet)(multiplier, pretrained, ctx, root, **kwargs)

    tag = str(multiplier).replace(".", "_")
    make.__name__ = make.__qualname__ = f"mobilenet_v2_{tag}" if v2 else f"mobilenet{tag}"
    make.__doc__ = f"MobileNet {'v2' if v2 else 'v1'} with width multiplier {multiplier}."
    return make


mobilenet1_0, mobilenet0_75, mobilenet0_5, mobilenet0_25 = (_maker(m, False) for m in (1.0, 0.75, 0.5, 0.25))
mobilenet_v2_1_0, mobilenet_v2_0_75, mobilenet_v2_0_5, mobilenet_v2_0_25 = (
    _maker(m, True) for m in (1.0, 0.75, 0.5, 0.25)
)

RELU6 = ReLU6  # MXNet's name for the block


def __getattr__(name: str):
    """MXNet's module also offers ``cpu``, which it imports."""
    if name == "cpu":
        from ....device import cpu

        return cpu
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
