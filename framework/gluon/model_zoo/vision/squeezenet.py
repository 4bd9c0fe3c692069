"""SqueezeNet 1.0 and 1.1 (Iandola et al., 2016) as in MXNet 1.9.1 (expects 224x224 inputs: the head
averages a 13x13 map).

>>> net = squeezenet1_1(classes=10)
>>> sorted(net.collect_params())[:2]
['features.0.bias', 'features.0.weight']
"""

from __future__ import annotations

import os
from typing import Any

import jax

from ... import nn
from ...block import HybridBlock
from ._common import finish

__all__ = ["SqueezeNet", "get_squeezenet", "squeezenet1_0", "squeezenet1_1"]


def _fire_conv(channels: int, kernel_size: int, padding: int = 0) -> nn.HybridSequential:
    out = nn.HybridSequential()
    out.add(nn.Conv2D(channels, kernel_size, padding=padding), nn.Activation("relu"))
    return out


def _fire(squeeze: int, expand1x1: int, expand3x3: int) -> nn.HybridSequential:
    out = nn.HybridSequential()
    out.add(_fire_conv(squeeze, 1))
    paths = nn.HybridConcatenate(axis=1)
    paths.add(_fire_conv(expand1x1, 1), _fire_conv(expand3x3, 3, 1))
    out.add(paths)
    return out


def _pool() -> nn.MaxPool2D:
    return nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)


class SqueezeNet(HybridBlock):
    """``version`` '1.0' or '1.1'; ``output`` is a 1x1 convolution to ``classes`` then a 13x13 average."""

    def __init__(
        self, version: str, classes: int = 1000, prefix: str | None = None, params: Any = None
    ) -> None:
        super().__init__()
        if version not in ("1.0", "1.1"):
            raise ValueError(f"SqueezeNet: unsupported version {version!r}; '1.0' or '1.1' expected")
        self.features = nn.HybridSequential()
        f = self.features
        if version == "1.0":
            f.add(
                nn.Conv2D(96, kernel_size=7, strides=2),
                nn.Activation("relu"),
                _pool(),
                _fire(16, 64, 64),
                _fire(16, 64, 64),
                _fire(32, 128, 128),
                _pool(),
                _fire(32, 128, 128),
                _fire(48, 192, 192),
                _fire(48, 192, 192),
                _fire(64, 256, 256),
                _pool(),
                _fire(64, 256, 256),
            )
        else:
            f.add(
                nn.Conv2D(64, kernel_size=3, strides=2),
                nn.Activation("relu"),
                _pool(),
                _fire(16, 64, 64),
                _fire(16, 64, 64),
                _pool(),
                _fire(32, 128, 128),
                _fire(32, 128, 128),
                _pool(),
                _fire(48, 192, 192),
                _fire(48, 192, 192),
                _fire(64, 256, 256),
                _fire(64, 256, 256),
            )
        f.add(nn.Dropout(0.5))
        self.output = nn.HybridSequential()
        self.output.add(
            nn.Conv2D(classes, kernel_size=1), nn.Activation("relu"), nn.AvgPool2D(13), nn.Flatten()
        )

    def forward(self, x: jax.Array) -> jax.Array:
        return self.output(self.features(x))


def get_squeezenet(
    version: str,
    pretrained: bool = False,
    ctx: Any = None,
    root: str | os.PathLike | None = None,
    *,
    classes: int = 1000,
    prefix: str | None = None,
    params: Any = None,
) -> SqueezeNet:
    """SqueezeNet ``version`` ('1.0' or '1.1')."""
    return finish(SqueezeNet(version, classes=classes), f"squeezenet{version}", pretrained, ctx, root)


def squeezenet1_0(
    pretrained: bool = False, ctx: Any = None, root: str | os.PathLike | None = None, **kwargs: Any
) -> SqueezeNet:
    """SqueezeNet 1.0 (MXNet's ``squeezenet1_0``, model name ``'squeezenet1.0'``)."""
    return get_squeezenet("1.0", pretrained, ctx, root, **kwargs)


def squeezenet1_1(
    pretrained: bool = False, ctx: Any = None, root: str | os.PathLike | None = None, **kwargs: Any
) -> SqueezeNet:
    """SqueezeNet 1.1 (MXNet's ``squeezenet1_1``, model name ``'squeezenet1.1'``)."""
    return get_squeezenet("1.1", pretrained, ctx, root, **kwargs)


def __getattr__(name: str):
    """MXNet's module also offers the names it imports: ``cpu``, ``HybridConcurrent``, ``Identity``."""
    if name == "cpu":
        from ....device import cpu

        return cpu
    if name in ("HybridConcurrent", "Identity"):
        from ...contrib import nn as contrib_nn

        return getattr(contrib_nn, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
