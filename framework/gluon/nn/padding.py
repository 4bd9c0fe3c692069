"""``ReflectionPad2D``: pad NCHW data by reflection (MXNet's ``pad(mode='reflect')``).

>>> from framework import np
>>> from framework.gluon import nn
>>> nn.ReflectionPad2D(1)(np.arange(4.0).reshape(1, 1, 2, 2))[0, 0].tolist()
[[3.0, 2.0, 3.0, 2.0], [1.0, 0.0, 1.0, 0.0], [3.0, 2.0, 3.0, 2.0], [1.0, 0.0, 1.0, 0.0]]
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

from ... import np as _np
from ..block import HybridBlock

__all__ = ["ReflectionPad2D"]


class ReflectionPad2D(HybridBlock):
    """``padding``: an int (each side of H and W) or MXNet's 8-tuple ``pad_width`` (before/after per axis
    of NCHW; the N and C entries must be 0)."""

    def __init__(self, padding: int | Sequence[int] = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(padding, numbers.Integral):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        padding = tuple(int(p) for p in padding)
        if len(padding) != 8 or any(padding[:4]):
            raise ValueError(
                f"ReflectionPad2D: padding={padding}; expected an int or 8 values with the first "
                "four (batch and channel axes) 0"
            )
        self._padding = padding

    def forward(self, x: Any) -> Any:
        if x.ndim != 4:
            raise ValueError(f"ReflectionPad2D: expected NCHW data, got shape {tuple(x.shape)}")
        p = self._padding
        return _np.pad(x, ((0, 0), (0, 0), (p[4], p[5]), (p[6], p[7])), mode="reflect")
