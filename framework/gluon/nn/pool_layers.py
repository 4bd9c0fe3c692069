"""Pooling layers: MaxPool1D/2D/3D, AvgPool1D/2D/3D, GlobalMaxPool1D/2D/3D, GlobalAvgPool1D/2D/3D.

``strides=None`` means the pool size; ``ceil_mode=True`` is MXNet's 'full' convention;
``count_include_pad`` (AvgPool, default True) divides by the window clipped to the padded input.

>>> from framework import np
>>> from framework.gluon import nn
>>> pool = nn.MaxPool2D(pool_size=2, strides=2)
>>> repr(pool)[:60]
'MaxPool2D(size=(2, 2), stride=(2, 2), padding=(0, 0), ceil_m'
>>> pool(np.ones((1, 3, 7, 7))).shape
(1, 3, 3, 3)
"""

from __future__ import annotations

from typing import Any

import jax

from ...npx import pool as _pool
from ..block import HybridBlock
from ._geometry import LAYOUTS as _LAYOUTS
from ._geometry import _tuple

__all__ = [
    "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
    "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalAvgPool1D", "GlobalAvgPool2D",
    "GlobalAvgPool3D",
]

class _Pooling(HybridBlock):
    """Shared implementation of the pooling layers (private)."""

    _compiled_leaf = True
    _alias_1x = "pool"  # its MXNet 1.x prefix: pool0_, pool1_, ...
    _nd = 2
    _pool_type = "max"
    _global = False

    def __init__(self, pool_size: Any = 2, strides: Any = None, padding: Any = 0, layout: str | None = None,
                 ceil_mode: bool = False, count_include_pad: bool | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        nd, name = self._nd, type(self).__name__
        layout = layout or _LAYOUTS[nd][0]
        if layout not in _LAYOUTS[nd]:
            raise ValueError(f"{name}: layout={layout!r}; only {' and '.join(_LAYOUTS[nd])} layouts are "
                             f"valid for {nd}D pooling")
        size = _tuple("pool_size", pool_size, nd, name)
        self._kwargs = {
            "kernel": size,
            "stride": size if strides is None else _tuple("strides", strides, nd, name),
            "pad": _tuple("padding", padding, nd, name),
            "global_pool": self._global,
            "pool_type": self._pool_type,
            "layout": layout,
            "pooling_convention": "full" if ceil_mode else "valid",
        }
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def forward(self, x: jax.Array) -> jax.Array:
        return _pool.pooling(x, **self._kwargs)

    def _symbol_forward(self, F: Any, x: Any) -> Any:
        return F.Pooling(x, name="fwd", **self._kwargs)

    def __repr__(self) -> str:
        k = self._kwargs
        return (f"{type(self).__name__}(size={k['kernel']}, stride={k['stride']}, padding={k['pad']}, "
                f"ceil_mode={k['pooling_convention'] == 'full'}, global_pool={k['global_pool']}, "
                f"pool_type={k['pool_type']}, layout={k['layout']})")


class _Max(_Pooling):
    def __init__(self, pool_size: Any = 2, strides: Any = None, padding: Any = 0, layout: str | None = None,
                 ceil_mode: bool = False, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, layout, ceil_mode, **kwargs)


class _Avg(_Pooling):
    _pool_type = "avg"

    def __init__(self, pool_size: Any = 2, strides: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 layout: str | None = None, count_include_pad: bool = True, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, layout, ceil_mode, count_include_pad, **kwargs)


class _Global(_Pooling):
    _global = True

    def __init__(self, layout: str | None = None, **kwargs: Any) -> None:
        super().__init__(1, None, 0, layout, True, **kwargs)


class MaxPool1D(_Max):
    """Max pooling over (N, C, W): ``MaxPool1D(pool_size=2, strides=None, padding=0, layout='NCW',
    ceil_mode=False)``."""

    _nd = 1


class MaxPool2D(_Max):
    """Max pooling over (N, C, H, W); out = floor((H + 2p - k) / s) + 1 (ceil with ``ceil_mode``).

    >>> from framework import np
    >>> MaxPool2D(3, 2, padding=1, ceil_mode=True)(np.ones((1, 1, 8, 8))).shape
    (1, 1, 5, 5)
    """

    _nd = 2


class MaxPool3D(_Max):
    """Max pooling over (N, C, D, H, W)."""

    _nd = 3


class AvgPool1D(_Avg):
    """Average pooling over (N, C, W): ``AvgPool1D(pool_size=2, strides=None, padding=0,
    ceil_mode=False, layout='NCW', count_include_pad=True)``."""

    _nd = 1


class AvgPool2D(_Avg):
    """Average pooling over (N, C, H, W); padding counts in the divisor unless
    ``count_include_pad=False``.

    >>> from framework import np
    >>> AvgPool2D(2, padding=1)(np.ones((1, 1, 2, 2))).tolist()
    [[[[0.25, 0.25], [0.25, 0.25]]]]
    >>> AvgPool2D(2, padding=1, count_include_pad=False)(np.ones((1, 1, 2, 2))).tolist()
    [[[[1.0, 1.0], [1.0, 1.0]]]]
    """

    _nd = 2


class AvgPool3D(_Avg):
    """Average pooling over (N, C, D, H, W)."""

    _nd = 3


class GlobalMaxPool1D(_Global):
    """Max over the whole W axis; keeps it as size 1: (N, C, 1)."""

    _nd = 1


class GlobalMaxPool2D(_Global):
    """Max over each feature map: (N, C, H, W) -> (N, C, 1, 1).

    >>> from framework import np
    >>> GlobalMaxPool2D()(np.arange(8.0).reshape(1, 2, 2, 2)).ravel().tolist()
    [3.0, 7.0]
    """

    _nd = 2


class GlobalMaxPool3D(_Global):
    """Max over each 3-D feature map: (N, C, 1, 1, 1)."""

    _nd = 3


class GlobalAvgPool1D(_Global):
    """Mean over the whole W axis: (N, C, 1)."""

    _nd = 1
    _pool_type = "avg"


class GlobalAvgPool2D(_Global):
    """Mean over each feature map: (N, C, H, W) -> (N, C, 1, 1).

    >>> from framework import np
    >>> GlobalAvgPool2D()(np.arange(8.0).reshape(1, 2, 2, 2)).ravel().tolist()
    [1.5, 5.5]
    """

    _nd = 2
    _pool_type = "avg"


class GlobalAvgPool3D(_Global):
    """Mean over each 3-D feature map: (N, C, 1, 1, 1)."""

    _nd = 3
    _pool_type = "avg"
