"""DenseNet 121/161/169/201 (Huang et al., 2016) as in MXNet 1.9.1 (224x224 inputs: the head averages a
7x7 map).

>>> net = densenet121(classes=10)
>>> 'features.4.0.1.2.weight' in net.collect_params()
True
"""

from __future__ import annotations

import os
from typing import Any

import jax

from ... import nn
from ...block import HybridBlock
from ._common import finish

__all__ = ["DenseNet", "get_densenet", "densenet121", "densenet161", "densenet169", "densenet201"]

_SPEC = {
    121: (64, 32, [6, 12, 24, 16]),
    161: (96, 48, [6, 12, 36, 24]),
    169: (64, 32, [6, 12, 32, 32]),
    201: (64, 32, [6, 12, 48, 32]),
}


def _dense_layer(growth_rate: int, bn_size: int, dropout: float) -> nn.HybridConcatenate:
    new = nn.HybridSequential()
    new.add(
        nn.BatchNorm(),
        nn.Activation("relu"),
        nn.Conv2D(bn_size * growth_rate, kernel_size=1, use_bias=False),
        nn.BatchNorm(),
        nn.Activation("relu"),
        nn.Conv2D(growth_rate, kernel_size=3, padding=1, use_bias=False),
    )
    if dropout:
        new.add(nn.Dropout(dropout))
    out = nn.HybridConcatenate(axis=1)
    out.add(nn.Identity(), new)
    return out


def _transition(channels: int) -> nn.HybridSequential:
    out = nn.HybridSequential()
    out.add(
        nn.BatchNorm(),
        nn.Activation("relu"),
        nn.Conv2D(channels, kernel_size=1, use_bias=False),
        nn.AvgPool2D(pool_size=2, strides=2),
    )
    return out


class DenseNet(HybridBlock):
    """Dense blocks of ``block_config`` layers (each adds ``growth_rate`` channels through a
    ``bn_size * growth_rate`` bottleneck), halving transitions between them, ``output`` Dense(classes)."""

    def __init__(
        self,
        num_init_features: int,
        growth_rate: int,
        block_config: list[int],
        bn_size: int = 4,
        dropout: float = 0,
        classes: int = 1000,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__()
        self.features = nn.HybridSequential()
        self.features.add(
            nn.Conv2D(num_init_features, kernel_size=7, strides=2, padding=3, use_bias=False),
            nn.BatchNorm(),
            nn.Activation("relu"),
            nn.MaxPool2D(pool_size=3, strides=2, padding=1),
        )
        channels = num_init_features
        for i, num_layers in enumerate(block_config):
            block = nn.HybridSequential()
            for _ in range(num_layers):
                block.add(_dense_layer(growth_rate, bn_size, dropout))
            self.features.add(block)
            channels += num_layers * growth_rate
            if i != len(block_config) - 1:
                channels //= 2
                self.features.add(_transition(channels))
        self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.AvgPool2D(pool_size=7), nn.Flatten())
        self.output = nn.Dense(classes)

    def forward(self, x: jax.Array) -> jax.Array:
        return self.output(self.features(x))


def get_densenet(
    num_layers: int,
    pretrained: bool = False,
    ctx: Any = None,
    root: str | os.PathLike | None = None,
    *,
    bn_size: int = 4,
    dropout: float = 0,
    classes: int = 1000,
    prefix: str | None = None,
    params: Any = None,
) -> DenseNet:
    """DenseNet with ``num_layers`` in 121, 161, 169, 201."""
    if num_layers not in _SPEC:
        raise ValueError(
            f"get_densenet: num_layers={num_layers} is not supported; options are {sorted(_SPEC)}"
        )
    net = DenseNet(*_SPEC[num_layers], bn_size=bn_size, dropout=dropout, classes=classes)
    return finish(net, f"densenet{num_layers}", pretrained, ctx, root)


def _maker(num_layers: int):
    def make(
        pretrained: bool = False, ctx: Any = None, root: str | os.PathLike | None = None, **kwargs: Any
    ) -> DenseNet:
        return get_densenet(num_layers, pretrained, ctx, root, **kwargs)

    make.__name__ = make.__qualname__ = f"densenet{num_layers}"
    make.__doc__ = f"DenseNet-{num_layers} (MXNet's ``densenet{num_layers}``)."
    return make


densenet121, densenet161, densenet169, densenet201 = (_maker(n) for n in (121, 161, 169, 201))


def __getattr__(name: str):
    """MXNet's module also offers the names it imports: ``cpu``, ``HybridConcurrent``, ``Identity``."""
    if name == "cpu":
        from ....device import cpu

        return cpu
    if name in ("HybridConcurrent", "Identity"):
        from ...contrib import nn as contrib_nn

        return getattr(contrib_nn, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
