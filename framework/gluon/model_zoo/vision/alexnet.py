"""AlexNet (Krizhevsky et al., 2012), MXNet 1.9.1's single-tower variant.

>>> net = alexnet(classes=10)
>>> len(net.collect_params())
16
"""

from __future__ import annotations

import os
from typing import Any

import jax

from ... import nn
from ...block import HybridBlock
from ._common import finish

__all__ = ["AlexNet", "alexnet"]


class AlexNet(HybridBlock):
    """Five convolutions, three max-pools, two 4096-unit Dense+Dropout layers, ``output`` Dense(classes)."""

    def __init__(self, classes: int = 1000, prefix: str | None = None, params: Any = None) -> None:
        super().__init__()
        self.features = nn.HybridSequential()
        self.features.add(
            nn.Conv2D(64, kernel_size=11, strides=4, padding=2, activation="relu"),
            nn.MaxPool2D(pool_size=3, strides=2),
            nn.Conv2D(192, kernel_size=5, padding=2, activation="relu"),
            nn.MaxPool2D(pool_size=3, strides=2),
            nn.Conv2D(384, kernel_size=3, padding=1, activation="relu"),
            nn.Conv2D(256, kernel_size=3, padding=1, activation="relu"),
            nn.Conv2D(256, kernel_size=3, padding=1, activation="relu"),
            nn.MaxPool2D(pool_size=3, strides=2),
            nn.Flatten(),
            nn.Dense(4096, activation="relu"),
            nn.Dropout(0.5),
            nn.Dense(4096, activation="relu"),
            nn.Dropout(0.5),
        )
        self.output = nn.Dense(classes)

    def forward(self, x: jax.Array) -> jax.Array:
        return self.output(self.features(x))


def alexnet(
    pretrained: bool = False,
    ctx: Any = None,
    root: str | os.PathLike | None = None,
    *,
    classes: int = 1000,
    prefix: str | None = None,
    params: Any = None,
) -> AlexNet:
    """AlexNet (MXNet's ``alexnet``); ``pretrained`` loads MXNet's file from ``root``."""
    return finish(AlexNet(classes=classes), "alexnet", pretrained, ctx, root)
