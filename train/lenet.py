"""The seed's LeNet (MXNet "Use GPUs" tutorial), as a HybridSequential so it can be compiled whole.

>>> net = lenet()
>>> [type(b).__name__ for b in net]
['Conv2D', 'MaxPool2D', 'Conv2D', 'MaxPool2D', 'Dense', 'Dense', 'Dense']
"""

from __future__ import annotations

from typing import Any

__all__ = ["lenet"]


def lenet(hybrid: bool = True) -> Any:
    """Conv(6, 5, relu) - MaxPool(2, 2) - Conv(16, 3, relu) - MaxPool(2, 2) - Dense(120, relu) -
    Dense(84, relu) - Dense(10): the seed's network, parameters named '0.weight' ... '6.bias'.
    A HybridSequential (``hybrid``) or a Sequential (the seed's own), not initialised."""
    from framework.gluon import nn

    net = nn.HybridSequential() if hybrid else nn.Sequential()
    net.add(nn.Conv2D(channels=6, kernel_size=5, activation="relu"),
            nn.MaxPool2D(pool_size=2, strides=2),
            nn.Conv2D(channels=16, kernel_size=3, activation="relu"),
            nn.MaxPool2D(pool_size=2, strides=2),
            nn.Dense(120, activation="relu"),
            nn.Dense(84, activation="relu"),
            nn.Dense(10))
    return net
