"""ResNet v1 (He et al., 2015) and v2 (pre-activation, He et al., 2016), 18 to 152 layers.

Architecture and parameter names are MXNet 1.9.1's (``features.4.0.body.0.weight``, ``output.weight``).

>>> from framework import np
>>> resnet18_v1(classes=10).output.weight.shape
(10, 512)
>>> tiny = ResNetV1(BasicBlockV1, [1, 1], [4, 4, 8], classes=3, thumbnail=True)
>>> tiny.initialize()
>>> tiny(np.ones((1, 3, 8, 8))).shape
(1, 3)
"""

from __future__ import annotations

import os
from typing import Any

import jax

from .... import npx  # recordable: a block runs imperatively, on recorded values, until hybridized
from ... import nn
from ...block import HybridBlock
from ._common import finish

__all__ = [
    "ResNetV1",
    "ResNetV2",
    "BasicBlockV1",
    "BasicBlockV2",
    "BottleneckV1",
    "BottleneckV2",
    "get_resnet",
    "resnet18_v1",
    "resnet34_v1",
    "resnet50_v1",
    "resnet101_v1",
    "resnet152_v1",
    "resnet18_v2",
    "resnet34_v2",
    "resnet50_v2",
    "resnet101_v2",
    "resnet152_v2",
]


def _conv3x3(channels: int, stride: int, in_channels: int) -> nn.Conv2D:
    return nn.Conv2D(
        channels, kernel_size=3, strides=stride, padding=1, use_bias=False, in_channels=in_channels
    )


def _seq(*blocks: Any) -> nn.HybridSequential:
    out = nn.HybridSequential()
    out.add(*blocks)
    return out


class _Residual:
    """The residual blocks' sum, written once for arrays (``npx.relu``) and for Symbols (MXNet's
    ``F.Activation``, when the network is called on ``mx.sym`` variables)."""

    def forward(self, x: jax.Array) -> jax.Array:
        return self._run(x, npx.relu)

    def _symbol_forward(self, F: Any, x: Any) -> Any:
        return self._run(x, lambda y: F.Activation(y, act_type="relu"))


class _ResidualV1(_Residual):
    """V1: ``relu(body(x) + shortcut(x))``."""

    def _run(self, x: Any, relu: Any) -> Any:
        residual = self.downsample(x) if self.downsample is not None else x
        return relu(self.body(x) + residual)


class _ResidualV2(_Residual):
    """V2 (pre-activation): BN-ReLU before each convolution; the shortcut reads the activated input."""

    _convs = 2

    def _run(self, x: Any, relu: Any) -> Any:
        residual = x
        x = relu(self.bn1(x))
        if self.downsample is not None:
            residual = self.downsample(x)
        x = self.conv1(x)
        x = self.conv2(relu(self.bn2(x)))
        if self._convs == 3:
            x = self.conv3(relu(self.bn3(x)))
        return x + residual


class BasicBlockV1(_ResidualV1, HybridBlock):
    """Two 3x3 convolutions with BatchNorm, ReLU after the sum with the (projected) input."""

    def __init__(
        self,
        channels: int,
        stride: int,
        downsample: bool = False,
        in_channels: int = 0,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__()
        self.body = _seq(
            _conv3x3(channels, stride, in_channels),
            nn.BatchNorm(),
            nn.Activation("relu"),
            _conv3x3(channels, 1, channels),
            nn.BatchNorm(),
        )
        self.downsample = (
            _seq(
                nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False, in_channels=in_channels),
                nn.BatchNorm(),
            )
            if downsample
            else None
        )


class BottleneckV1(_ResidualV1, HybridBlock):
    """1x1 (strided) -> 3x3 -> 1x1 convolutions with BatchNorm; ReLU after the residual sum."""

    def __init__(
        self,
        channels: int,
        stride: int,
        downsample: bool = False,
        in_channels: int = 0,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__()
        mid = channels // 4
        self.body = _seq(
            nn.Conv2D(mid, kernel_size=1, strides=stride),
            nn.BatchNorm(),
            nn.Activation("relu"),
            _conv3x3(mid, 1, mid),
            nn.BatchNorm(),
            nn.Activation("relu"),
            nn.Conv2D(channels, kernel_size=1, strides=1),
            nn.BatchNorm(),
        )
        self.downsample = (
            _seq(
                nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False, in_channels=in_channels),
                nn.BatchNorm(),
            )
            if downsample
            else None
        )


class BasicBlockV2(_ResidualV2, HybridBlock):
    """Pre-activation basic block: BN -> ReLU -> 3x3 conv, twice; the projection reads the activated input."""

    def __init__(
        self,
        channels: int,
        stride: int,
        downsample: bool = False,
        in_channels: int = 0,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__()
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self.downsample = (
            nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=in_channels) if downsample else None
        )


class BottleneckV2(_ResidualV2, HybridBlock):
    """Pre-activation bottleneck: BN-ReLU-1x1, BN-ReLU-3x3 (strided), BN-ReLU-1x1."""

    _convs = 3

    def __init__(
        self,
        channels: int,
        stride: int,
        downsample: bool = False,
        in_channels: int = 0,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__()
        mid = channels // 4
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(mid, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(mid, stride, mid)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self.downsample = (
            nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=in_channels) if downsample else None
        )


def _stem(features: nn.HybridSequential, channels: int, thumbnail: bool) -> None:
    if thumbnail:
        features.add(_conv3x3(channels, 1, 0))
    else:
        features.add(
            nn.Conv2D(channels, 7, 2, 3, use_bias=False),
            nn.BatchNorm(),
            nn.Activation("relu"),
            nn.MaxPool2D(3, 2, 1),
        )


def _stage(block: type, layers: int, channels: int, stride: int, in_channels: int) -> nn.HybridSequential:
    stage = nn.HybridSequential()
    stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels))
    for _ in range(layers - 1):
        stage.add(block(channels, 1, False, in_channels=channels))
    return stage


def _check_spec(layers: list[int], channels: list[int], who: str) -> None:
    if len(layers) != len(channels) - 1:
        raise ValueError(
            f"{who}: channels needs one more entry than layers (the stem's), got "
            f"layers={layers} and channels={channels}"
        )


class ResNetV1(HybridBlock):
    """ResNet v1: ``block`` is BasicBlockV1 or BottleneckV1, ``layers`` the blocks per stage,
    ``channels`` the stem's and each stage's width; ``thumbnail`` uses a 3x3 stem for small images."""

    def __init__(
        self,
        block: type,
        layers: list[int],
        channels: list[int],
        classes: int = 1000,
        thumbnail: bool = False,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__()
        _check_spec(layers, channels, "ResNetV1")
        self.features = nn.HybridSequential()
        _stem(self.features, channels[0], thumbnail)
        for i, num in enumerate(layers):
            self.features.add(_stage(block, num, channels[i + 1], 1 if i == 0 else 2, channels[i]))
        self.features.add(nn.GlobalAvgPool2D())
        self.output = nn.Dense(classes, in_units=channels[-1])

    def forward(self, x: jax.Array) -> jax.Array:
        return self.output(self.features(x))


class ResNetV2(HybridBlock):
    """ResNet v2 (pre-activation); arguments as :class:`ResNetV1` with BasicBlockV2/BottleneckV2."""

    def __init__(
        self,
        block: type,
        layers: list[int],
        channels: list[int],
        classes: int = 1000,
        thumbnail: bool = False,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__()
        _check_spec(layers, channels, "ResNetV2")
        self.features = nn.HybridSequential()
        self.features.add(nn.BatchNorm(scale=False, center=False))
        _stem(self.features, channels[0], thumbnail)
        in_channels = channels[0]
        for i, num in enumerate(layers):
            self.features.add(_stage(block, num, channels[i + 1], 1 if i == 0 else 2, in_channels))
            in_channels = channels[i + 1]
        self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.GlobalAvgPool2D(), nn.Flatten())
        self.output = nn.Dense(classes, in_units=in_channels)

    def forward(self, x: jax.Array) -> jax.Array:
        return self.output(self.features(x))


_SPEC = {
    18: ("basic", [2, 2, 2, 2], [64, 64, 128, 256, 512]),
    34: ("basic", [3, 4, 6, 3], [64, 64, 128, 256, 512]),
    50: ("bottle", [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
    101: ("bottle", [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
    152: ("bottle", [3, 8, 36, 3], [64, 256, 512, 1024, 2048]),
}
_NETS = {1: ResNetV1, 2: ResNetV2}
_BLOCKS = {
    1: {"basic": BasicBlockV1, "bottle": BottleneckV1},
    2: {"basic": BasicBlockV2, "bottle": BottleneckV2},
}


def get_resnet(
    version: int,
    num_layers: int,
    pretrained: bool = False,
    ctx: Any = None,
    root: str | os.PathLike | None = None,
    *,
    classes: int = 1000,
    thumbnail: bool = False,
    prefix: str | None = None,
    params: Any = None,
) -> HybridBlock:
    """ResNet ``version`` (1 or 2) with ``num_layers`` in 18, 34, 50, 101, 152."""
    if num_layers not in _SPEC:
        raise ValueError(f"get_resnet: num_layers={num_layers} is not supported; options are {sorted(_SPEC)}")
    if version not in _NETS:
        raise ValueError(f"get_resnet: version={version} is not supported; options are 1 and 2")
    kind, layers, channels = _SPEC[num_layers]
    net = _NETS[version](_BLOCKS[version][kind], layers, channels, classes=classes, thumbnail=thumbnail)
    return finish(net, f"resnet{num_layers}_v{version}", pretrained, ctx, root)


def _maker(version: int, num_layers: int):
    def make(
        pretrained: bool = False, ctx: Any = None, root: str | os.PathLike | None = None, **kwargs: Any
    ) -> HybridBlock:
        return get_resnet(version, num_layers, pretrained, ctx, root, **kwargs)

    make.__name__ = make.__qualname__ = f"resnet{num_layers}_v{version}"
    make.__doc__ = (
        f"ResNet-{num_layers} v{version} (MXNet's ``{make.__name__}``); keyword arguments as "
        ":func:`get_resnet` (``classes``, ``thumbnail``)."
    )
    return make


resnet18_v1 = _maker(1, 18)
resnet34_v1 = _maker(1, 34)
resnet50_v1 = _maker(1, 50)
resnet101_v1 = _maker(1, 101)
resnet152_v1 = _maker(1, 152)
resnet18_v2 = _maker(2, 18)
resnet34_v2 = _maker(2, 34)
resnet50_v2 = _maker(2, 50)
resnet101_v2 = _maker(2, 101)
resnet152_v2 = _maker(2, 152)
