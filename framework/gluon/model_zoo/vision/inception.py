"""Inception v3 (Szegedy et al., 2015) as in MXNet 1.9.1 (299x299 inputs: the head averages an 8x8 map).

>>> net = inception_v3(classes=10)
>>> net.collect_params()['features.0.1.running_var'].shape
(0,)
"""

from __future__ import annotations

import os
from typing import Any

import jax

from ... import nn
from ...block import HybridBlock
from ._common import finish

__all__ = ["Inception3", "inception_v3"]

_SETTING = ("channels", "kernel_size", "strides", "padding")


def _basic_conv(**kwargs: Any) -> nn.HybridSequential:
    out = nn.HybridSequential()
    out.add(nn.Conv2D(use_bias=False, **kwargs), nn.BatchNorm(epsilon=0.001), nn.Activation("relu"))
    return out


def _branch(pool: str | None, *convs: tuple) -> nn.HybridSequential:
    """An optional pool ('avg': 3x3/1 padded, 'max': 3x3/2), then basic convolutions, each given as
    (channels, kernel_size, strides, padding) with None for the default."""
    out = nn.HybridSequential()
    if pool == "avg":
        out.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif pool == "max":
        out.add(nn.MaxPool2D(pool_size=3, strides=2))
    for conv in convs:
        out.add(_basic_conv(**{k: v for k, v in zip(_SETTING, conv, strict=False) if v is not None}))
    return out


def _concat(*branches: HybridBlock) -> nn.HybridConcatenate:
    out = nn.HybridConcatenate(axis=1)
    out.add(*branches)
    return out


def _seq(*blocks: HybridBlock) -> nn.HybridSequential:
    out = nn.HybridSequential()
    out.add(*blocks)
    return out


def _block_a(pool_features: int) -> nn.HybridConcatenate:
    return _concat(
        _branch(None, (64, 1)),
        _branch(None, (48, 1), (64, 5, None, 2)),
        _branch(None, (64, 1), (96, 3, None, 1), (96, 3, None, 1)),
        _branch("avg", (pool_features, 1)),
    )


def _block_b() -> nn.HybridConcatenate:
    return _concat(
        _branch(None, (384, 3, 2)), _branch(None, (64, 1), (96, 3, None, 1), (96, 3, 2)), _branch("max")
    )


def _block_c(c7: int) -> nn.HybridConcatenate:
    return _concat(
        _branch(None, (192, 1)),
        _branch(None, (c7, 1), (c7, (1, 7), None, (0, 3)), (192, (7, 1), None, (3, 0))),
        _branch(
            None,
            (c7, 1),
            (c7, (7, 1), None, (3, 0)),
            (c7, (1, 7), None, (0, 3)),
            (c7, (7, 1), None, (3, 0)),
            (192, (1, 7), None, (0, 3)),
        ),
        _branch("avg", (192, 1)),
    )


def _block_d() -> nn.HybridConcatenate:
    return _concat(
        _branch(None, (192, 1), (320, 3, 2)),
        _branch(None, (192, 1), (192, (1, 7), None, (0, 3)), (192, (7, 1), None, (3, 0)), (192, 3, 2)),
        _branch("max"),
    )


def _split_1x3_3x1() -> nn.HybridConcatenate:
    return _concat(_branch(None, (384, (1, 3), None, (0, 1))), _branch(None, (384, (3, 1), None, (1, 0))))


def _block_e() -> nn.HybridConcatenate:
    return _concat(
        _branch(None, (320, 1)),
        _seq(_branch(None, (384, 1)), _split_1x3_3x1()),
        _seq(_branch(None, (448, 1), (384, 3, None, 1)), _split_1x3_3x1()),
        _branch("avg", (192, 1)),
    )


class Inception3(HybridBlock):
    """Inception v3: stem, 3 A blocks, B, 4 C blocks, D, 2 E blocks, 8x8 average, Dropout, Dense(classes)."""

    def __init__(self, classes: int = 1000, prefix: str | None = None, params: Any = None) -> None:
        super().__init__()
        self.features = nn.HybridSequential()
        self.features.add(
            _basic_conv(channels=32, kernel_size=3, strides=2),
            _basic_conv(channels=32, kernel_size=3),
            _basic_conv(channels=64, kernel_size=3, padding=1),
            nn.MaxPool2D(pool_size=3, strides=2),
            _basic_conv(channels=80, kernel_size=1),
            _basic_conv(channels=192, kernel_size=3),
            nn.MaxPool2D(pool_size=3, strides=2),
            _block_a(32),
            _block_a(64),
            _block_a(64),
            _block_b(),
            _block_c(128),
            _block_c(160),
            _block_c(160),
            _block_c(192),
            _block_d(),
            _block_e(),
            _block_e(),
            nn.AvgPool2D(pool_size=8),
            nn.Dropout(0.5),
        )
        self.output = nn.Dense(classes)

    def forward(self, x: jax.Array) -> jax.Array:
        return self.output(self.features(x))


def inception_v3(
    pretrained: bool = False,
    ctx: Any = None,
    root: str | os.PathLike | None = None,
    *,
    classes: int = 1000,
    prefix: str | None = None,
    params: Any = None,
) -> Inception3:
    """Inception v3 (MXNet's ``inception_v3``, model name ``'inceptionv3'``)."""
    return finish(Inception3(classes=classes), "inceptionv3", pretrained, ctx, root)


def __getattr__(name: str):
    """MXNet's module also offers the names it imports: ``cpu``, ``HybridConcurrent``, ``Identity``."""
    if name == "cpu":
        from ....device import cpu

        return cpu
    if name in ("HybridConcurrent", "Identity"):
        from ...contrib import nn as contrib_nn

        return getattr(contrib_nn, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_aux(classes: int) -> nn.HybridSequential:
    """MXNet's auxiliary classifier head for Inception v3 (average pool 5/3, 1x1 conv 128, 5x5 conv 768,
    flatten, dense ``classes``); Inception3 itself does not use it."""
    out = nn.HybridSequential()
    out.add(nn.AvgPool2D(pool_size=5, strides=3))
    out.add(_basic_conv(channels=128, kernel_size=1))
    out.add(_basic_conv(channels=768, kernel_size=5))
    out.add(nn.Flatten())
    out.add(nn.Dense(classes))
    return out
