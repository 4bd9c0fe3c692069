"""``npx.pooling`` for 1-3 spatial dimensions with MXNet's size, ceil-mode and divisor rules.

Output size per axis: ``floor((x + 2*pad - kernel) / stride) + 1`` ('valid') or the same with ceil
('full'); the ceil-mode overhang past the padding is ignored by every pool type. Average pooling divides
by the window clipped to the padded extent ``[-pad, x+pad)`` when ``count_include_pad`` (MXNet's
default) and by the number of real cells otherwise. Every pooling goes through :func:`_pool_nd`, the one
place a backend-specific fast path can be dispatched from.

>>> import jax.numpy as jnp
>>> from framework import npx
>>> x = jnp.arange(16.0).reshape(1, 1, 4, 4)
>>> npx.pooling(x, kernel=(2, 2), stride=(2, 2), pool_type='max').tolist()
[[[[5.0, 7.0], [13.0, 15.0]]]]
>>> npx.pooling(x, kernel=(3, 3), stride=(2, 2), pooling_convention='full').shape
(1, 1, 2, 2)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as onp
from jax import lax

from . import fast_cpu
from ._utils import _check_ndim, _layout, _spatial

__all__ = ["pooling"]

_POOL_TYPES = ("max", "avg", "sum", "lp")
_CONVENTIONS = ("valid", "full", "same")


def _out_size(size: int, k: int, s: int, p: int, convention: str) -> int:
    if convention == "same":
        return -(-size // s)
    span = size + 2 * p - k
    return (span // s if convention == "valid" else -(-span // s)) + 1


def _divisor(size: int, k: int, s: int, p_lo: int, p_hi: int, out: int, include_pad: bool) -> onp.ndarray:
    """Per output position along one axis: the cells MXNet divides an average by."""
    starts = onp.arange(out) * s - p_lo
    ends = starts + k
    lo, hi = (-p_lo, size + p_hi) if include_pad else (0, size)
    return onp.maximum(onp.minimum(ends, hi) - onp.maximum(starts, lo), 1).astype(onp.float32)


def _pool_nd(
    x: jax.Array,
    *,
    kernel: tuple[int, ...],
    stride: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    pool_type: str,
    channel_last: bool = False,
) -> jax.Array:
    """The single pooling kernel: max or sum over windows; ``padding`` cells never win a max.

    A backend-specific fast path (e.g. for CPU) is dispatched from here and only here.
    """
    if (pool_type == "max" and len(kernel) == 2 and not channel_last and fast_cpu.enabled()
            and fast_cpu.supports_max_pool2d(x.shape, kernel, stride, padding, False, x.dtype)):
        return fast_cpu.max_pool2d(x, kernel, stride, padding)
    if channel_last:
        dims, strides = (1, *kernel, 1), (1, *stride, 1)
        pads = ((0, 0), *padding, (0, 0))
    else:
        dims, strides = (1, 1, *kernel), (1, 1, *stride)
        pads = ((0, 0), (0, 0), *padding)
    # Concrete (NumPy) init values let lax pick reduce_window_max / _sum, which are differentiable.
    if pool_type == "max":
        if jnp.issubdtype(x.dtype, jnp.floating):
            init = onp.array(-onp.inf, x.dtype)
        else:
            init = onp.array(jnp.iinfo(x.dtype).min, x.dtype)
        return lax.reduce_window(x, init, lax.max, dims, strides, pads)
    return lax.reduce_window(x, onp.array(0, x.dtype), lax.add, dims, strides, pads)


def pooling(
    data: jax.Array,
    kernel: int | Sequence[int] | None = None,
    pool_type: str = "max",
    global_pool: bool = False,
    cudnn_off: bool = False,
    pooling_convention: str = "valid",
    stride: int | Sequence[int] | None = (),
    pad: int | Sequence[int] | None = (),
    p_value: int | None = None,
    count_include_pad: bool | None = None,
    layout: str | None = None,
) -> jax.Array:
    """MXNet's Pooling: 'max', 'avg', 'sum' or 'lp' over windows of NCW/NCHW/NCDHW data.

    ``stride`` defaults to 1 and ``pad`` to 0 per axis (Gluon's pool layers pass stride=pool size).
    ``global_pool=True`` pools each whole feature map to size 1 (kernel, stride, pad ignored).
    ``count_include_pad`` (None = True) only affects 'avg'. ``p_value`` (default 2) is for 'lp'.

    >>> import jax.numpy as jnp
    >>> x = jnp.ones((1, 1, 3, 3))
    >>> pooling(x, kernel=(2, 2), stride=2, pad=1, pool_type='avg', count_include_pad=False).tolist()
    [[[[1.0, 1.0], [1.0, 1.0]]]]
    >>> pooling(x, kernel=(2, 2), stride=2, pad=1, pool_type='avg').tolist()
    [[[[0.25, 0.5], [0.5, 1.0]]]]
    """
    op = "pooling"
    if pool_type not in _POOL_TYPES:
        raise ValueError(f"{op}: pool_type={pool_type!r} is not one of {_POOL_TYPES}")
    if pooling_convention not in _CONVENTIONS:
        raise ValueError(f"{op}: pooling_convention={pooling_convention!r} is not one of {_CONVENTIONS}")
    nd = data.ndim - 2
    if nd not in (1, 2, 3):
        raise ValueError(
            f"{op}: data must be 3-D, 4-D or 5-D (N, C, spatial...), got shape {tuple(data.shape)}"
        )
    channel_last = _layout(layout, nd, op)
    spatial = tuple(data.shape[1:-1] if channel_last else data.shape[2:])
    if global_pool:
        kernel, stride, pad = spatial, (1,) * nd, (0,) * nd
        convention = "valid"
    else:
        if kernel is None or (isinstance(kernel, Sequence) and len(kernel) == 0):
            raise ValueError(f"{op}: kernel is required unless global_pool=True")
        knd = len(kernel) if isinstance(kernel, Sequence) else nd
        if knd != nd:
            _check_ndim(data, knd, op)
        kernel = _spatial("kernel", kernel, nd, default=1, op=op)
        stride = _spatial("stride", stride, nd, default=1, op=op)
        pad = _spatial("pad", pad, nd, default=0, op=op)
        convention = pooling_convention
    if any(k < 1 for k in kernel) or any(s < 1 for s in stride) or any(p < 0 for p in pad):
        raise ValueError(f"{op}: kernel={kernel} and stride={stride} must be >= 1, pad={pad} >= 0")
    padding, outs = [], []
    for i in range(nd):
        if convention == "same":
            out = _out_size(spatial[i], kernel[i], stride[i], 0, "same")
            total = max((out - 1) * stride[i] + kernel[i] - spatial[i], 0)
            lo = total // 2
            padding.append((lo, total - lo))
        else:
            if spatial[i] + 2 * pad[i] < kernel[i]:
                raise ValueError(
                    f"{op}: kernel={kernel} is larger than the padded input {spatial} + 2*{pad} on "
                    f"spatial axis {i}; use a smaller kernel, more padding or global_pool=True"
                )
            out = _out_size(spatial[i], kernel[i], stride[i], pad[i], convention)
            # ceil mode: extend the high side so the last window fits; the extension never counts.
            hi = max((out - 1) * stride[i] + kernel[i] - spatial[i] - pad[i], pad[i])
            padding.append((pad[i], hi))
        outs.append(out)
    padding = tuple(padding)

    if pool_type == "max":
        return _pool_nd(data, kernel=kernel, stride=stride, padding=padding, pool_type="max",
                        channel_last=channel_last)
    if pool_type == "lp":
        p = 2 if p_value is None else int(p_value)
        if p < 1:
            raise ValueError(f"{op}: p_value={p_value} must be a positive integer for pool_type='lp'")
        powered = data * data if p == 2 else data**p
        summed = _pool_nd(powered, kernel=kernel, stride=stride, padding=padding, pool_type="sum",
                          channel_last=channel_last)
        return jnp.sqrt(summed) if p == 2 else summed ** (1.0 / p)
    summed = _pool_nd(data, kernel=kernel, stride=stride, padding=padding, pool_type="sum",
                      channel_last=channel_last)
    if pool_type == "sum":
        return summed
    include = True if count_include_pad is None else bool(count_include_pad)
    if global_pool:
        return summed / jnp.asarray(math.prod(spatial), summed.dtype)
    if convention == "same":
        include = False
    div = onp.ones((), onp.float32)
    for i in range(nd):
        d = _divisor(spatial[i], kernel[i], stride[i], padding[i][0], pad[i] if convention != "same"
                     else padding[i][1], outs[i], include)
        div = onp.multiply.outer(div, d)
    if channel_last:
        div = div[..., None]
    return summed / jnp.asarray(div, summed.dtype)
