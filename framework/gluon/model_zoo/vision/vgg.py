"""VGG 11/13/16/19 (Simonyan & Zisserman, 2014), optionally with BatchNorm, as in MXNet 1.9.1.

>>> net = vgg11(classes=10)
>>> [k for k in net.collect_params()][:3]
['features.0.weight', 'features.0.bias', 'features.3.weight']
"""

from __future__ import annotations

import os
from typing import Any

import jax

from .... import initializer as _init
from ... import nn
from ...block import HybridBlock
from ._common import finish

__all__ = [
    "VGG",
    "get_vgg",
    "vgg11",
    "vgg13",
    "vgg16",
    "vgg19",
    "vgg11_bn",
    "vgg13_bn",
    "vgg16_bn",
    "vgg19_bn",
]

_SPEC = {
    11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
    13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
    16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
    19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512]),
}


class VGG(HybridBlock):
    """``layers[i]`` 3x3 convolutions of ``filters[i]`` channels then a 2x2 max-pool, per block; two
    4096-unit Dense+Dropout layers; ``output`` Dense(classes)."""

    def __init__(
        self,
        layers: list[int],
        filters: list[int],
        classes: int = 1000,
        batch_norm: bool = False,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__()
        if len(layers) != len(filters):
            raise ValueError(f"VGG: layers ({layers}) and filters ({filters}) must have the same length")
        self.features = nn.HybridSequential()
        for num, channels in zip(layers, filters, strict=True):
            for _ in range(num):
                self.features.add(
                    nn.Conv2D(
                        channels,
                        kernel_size=3,
                        padding=1,
                        bias_initializer="zeros",
                        weight_initializer=_init.Xavier(rnd_type="gaussian", factor_type="out", magnitude=2),
                    )
                )
                if batch_norm:
                    self.features.add(nn.BatchNorm())
                self.features.add(nn.Activation("relu"))
            self.features.add(nn.MaxPool2D(strides=2))
        for _ in range(2):
            self.features.add(
                nn.Dense(4096, activation="relu", weight_initializer="normal", bias_initializer="zeros"),
                nn.Dropout(rate=0.5),
            )
        self.output = nn.Dense(classes, weight_initializer="normal", bias_initializer="zeros")

    def forward(self, x: jax.Array) -> jax.Array:
        return self.output(self.features(x))


def get_vgg(
    num_layers: int,
    pretrained: bool = False,
    ctx: Any = None,
    root: str | os.PathLike | None = None,
    *,
    classes: int = 1000,
    batch_norm: bool = False,
    prefix: str | None = None,
    params: Any = None,
) -> VGG:
    """VGG with ``num_layers`` in 11, 13, 16, 19."""
    if num_layers not in _SPEC:
        raise ValueError(f"get_vgg: num_layers={num_layers} is not supported; options are {sorted(_SPEC)}")
    net = VGG(*_SPEC[num_layers], classes=classes, batch_norm=batch_norm)
    return finish(net, f"vgg{num_layers}{'_bn' if batch_norm else ''}", pretrained, ctx, root)


def _maker(num_layers: int, batch_norm: bool):
    def make(
        pretrained: bool = False, ctx: Any = None, root: str | os.PathLike | None = None, **kwargs: Any
    ) -> VGG:
        if batch_norm:
            kwargs["batch_norm"] = True
        return get_vgg(num_layers, pretrained, ctx, root, **kwargs)

    make.__name__ = make.__qualname__ = f"vgg{num_layers}{'_bn' if batch_norm else ''}"
    make.__doc__ = f"VGG-{num_layers}{' with BatchNorm' if batch_norm else ''} (MXNet's ``{make.__name__}``)."
    return make


vgg11, vgg13, vgg16, vgg19 = (_maker(n, False) for n in (11, 13, 16, 19))
vgg11_bn, vgg13_bn, vgg16_bn, vgg19_bn = (_maker(n, True) for n in (11, 13, 16, 19))
