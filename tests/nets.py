"""Networks the library tests build for themselves (the application's ``train`` package is not used).

``lenet`` is the LeNet of ``tools/mxnet_reference/gen_core.py`` (the ``lenet_*`` reference case):
parameters '0.weight' ... '6.bias' in the order MXNet's HybridSequential names them.

>>> [type(b).__name__ for b in lenet()]
['Conv2D', 'MaxPool2D', 'Conv2D', 'MaxPool2D', 'Dense', 'Dense', 'Dense']
"""

from __future__ import annotations

from framework.gluon import nn


def lenet(hybrid: bool = True) -> nn.Sequential:
    """Conv2D(6, 5, relu), MaxPool2D(2, 2), Conv2D(16, 3, relu), MaxPool2D(2, 2), Dense(120, relu),
    Dense(84, relu), Dense(10); a HybridSequential unless ``hybrid`` is False. Not initialised."""
    net = nn.HybridSequential() if hybrid else nn.Sequential()
    net.add(nn.Conv2D(6, 5, activation="relu"), nn.MaxPool2D(2, 2),
            nn.Conv2D(16, 3, activation="relu"), nn.MaxPool2D(2, 2),
            nn.Dense(120, activation="relu"), nn.Dense(84, activation="relu"), nn.Dense(10))
    return net


def reference_lenet(ref: dict, hybrid: bool = True) -> nn.Sequential:
    """``lenet`` initialised with the reference case's parameters before its SGD step."""
    import numpy as onp

    net = lenet(hybrid)
    net.initialize()
    net(onp.zeros((1, 1, 28, 28), onp.float32))
    for name, p in net.collect_params().items():
        p.set_data(ref[f"lenet_param0__{name}"])
    return net
