"""Max pooling of NCHW data on XLA:CPU (same values and gradients as ``lax.reduce_window``), the
pooling half of :mod:`framework.npx.fast_cpu` (which re-exports it).

Non-overlapping windows (stride equal to the kernel) are a reshape and a maximum over two axes; other
windows a maximum over strided slices. Each window's gradient goes to its *first* maximum in row-major
order, as ``jax.grad`` of ``lax.reduce_window(max)`` does, found by a reduction (materialised at
pooled size: written as element-wise compares, XLA recomputes the producer of the input per cell).

>>> import jax.numpy as jnp
>>> max_pool2d(jnp.arange(16.0).reshape(1, 1, 4, 4), (2, 2)).tolist()
[[[[5.0, 7.0], [13.0, 15.0]]]]
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as onp
from jax import lax
from jax.typing import DTypeLike

__all__ = ["max_pool2d", "supports_max_pool2d", "IntPair", "Padding"]

IntPair = int | Sequence[int]
Padding = int | Sequence[int] | Sequence[Sequence[int]]


def _pair(name: str, value: IntPair) -> tuple[int, int]:
    if isinstance(value, int):
        return (int(value), int(value))
    out = tuple(int(v) for v in value)
    if len(out) != 2:
        raise ValueError(f"fast_cpu: {name}={value!r} must be an int or 2 ints (height, width)")
    return out  # type: ignore[return-value]


def _padding(value: Padding) -> tuple[tuple[int, int], tuple[int, int]]:
    """int, (ph, pw) or ((lo, hi), (lo, hi)) -> ((lo, hi), (lo, hi))."""
    if isinstance(value, int):
        return ((value, value), (value, value))
    items = list(value)
    if len(items) == 2 and all(isinstance(v, int) for v in items):
        return ((items[0], items[0]), (items[1], items[1]))
    if len(items) == 2 and all(not isinstance(v, int) and len(v) == 2 for v in items):
        return ((int(items[0][0]), int(items[0][1])), (int(items[1][0]), int(items[1][1])))
    raise ValueError(
        f"fast_cpu: pad={value!r} must be an int, (pad_h, pad_w) or ((lo_h, hi_h), (lo_w, hi_w))"
    )



# ----------------------------------------------------------------------------------------- max pooling
def _lowest(dtype) -> onp.ndarray:
    if jnp.issubdtype(dtype, jnp.floating):
        return onp.array(-onp.inf, dtype)
    return onp.array(jnp.iinfo(dtype).min, dtype)


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def _tiled_max(xr: jax.Array, axes: tuple[int, int]) -> jax.Array:
    return jnp.max(xr, axis=axes)


def _tiled_max_fwd(xr, axes):
    m = _tiled_max(xr, axes)
    return m, (xr, m)


def _tiled_max_bwd(axes, res, g):
    xr, m = res
    ha, wa = axes
    kh, kw = xr.shape[ha], xr.shape[wa]
    shape = [1] * xr.ndim
    shape[ha], shape[wa] = kh, kw
    pos = kw * lax.broadcasted_iota(jnp.int32, shape, ha) + lax.broadcasted_iota(jnp.int32, shape, wa)
    # Each window's first maximum as a reduction: XLA materialises it at pooled size. Written as
    # elementwise compares instead, XLA fuses the producer of ``xr`` (often a transpose + bias + relu)
    # into the full-size select and recomputes it ~4x per cell (measured 3x slower steps).
    first = jnp.min(jnp.where(xr == jnp.expand_dims(m, axes), pos, kh * kw), axis=axes, keepdims=True)
    return (jnp.where(pos == first, jnp.expand_dims(g, axes), jnp.zeros((), g.dtype)),)


_tiled_max.defvjp(_tiled_max_fwd, _tiled_max_bwd)


@functools.partial(jax.custom_vjp, nondiff_argnums=(1, 2, 3))
def _strided_max(xp: jax.Array, kernel, stride, out) -> jax.Array:
    return functools.reduce(jnp.maximum, _windows(xp, kernel, stride, out))


def _windows(xp, kernel, stride, out):
    n, c = xp.shape[:2]
    (kh, kw), (sh, sw), (ho, wo) = kernel, stride, out
    return [
        lax.slice(xp, (0, 0, i, j), (n, c, i + (ho - 1) * sh + 1, j + (wo - 1) * sw + 1), (1, 1, sh, sw))
        for i in range(kh)
        for j in range(kw)
    ]


def _strided_max_fwd(xp, kernel, stride, out):
    m = _strided_max(xp, kernel, stride, out)
    return m, (xp, m)


def _strided_max_bwd(kernel, stride, out, res, g):
    xp, m = res
    (kh, kw), (sh, sw), (ho, wo) = kernel, stride, out
    hp, wp = xp.shape[2:]
    wins = jnp.stack(_windows(xp, kernel, stride, out))
    pos = lax.broadcasted_iota(jnp.int32, wins.shape, 0)
    first = jnp.min(jnp.where(wins == m, pos, kh * kw), axis=0)  # a reduction: see _tiled_max_bwd
    zero = jnp.zeros((), g.dtype)
    grad = None
    for idx in range(kh * kw):
        i, j = divmod(idx, kw)
        part = jnp.where(first == idx, g, zero)
        hi_h, hi_w = hp - i - (ho - 1) * sh - 1, wp - j - (wo - 1) * sw - 1
        part = lax.pad(part, zero, ((0, 0, 0), (0, 0, 0), (i, hi_h, sh - 1), (j, hi_w, sw - 1)))
        grad = part if grad is None else grad + part
    return (grad,)


_strided_max.defvjp(_strided_max_fwd, _strided_max_bwd)


def _pool_geometry(shape, kernel, stride, pad, ceil_mode):
    h, w = shape[2:]
    out, pads = [], []
    for size, k, s, (lo, hi) in zip((h, w), kernel, stride, pad, strict=True):
        span = size + lo + hi - k
        o = (-(-span // s) if ceil_mode else span // s) + 1
        out.append(o)
        pads.append((lo, (o - 1) * s + k - size - lo))  # the high side reaches the last window exactly
    return tuple(out), tuple(pads)


def supports_max_pool2d(
    x_shape: Sequence[int],
    kernel: IntPair,
    stride: IntPair | None = None,
    pad: Padding = 0,
    ceil_mode: bool = False,
    dtype: DTypeLike = jnp.float32,
) -> bool:
    """Whether :func:`max_pool2d` handles this pooling: 4-D integer or floating data, any kernel,
    stride, padding and ceil mode that leave at least one output cell.

    >>> supports_max_pool2d((256, 6, 24, 24), 2), supports_max_pool2d((1, 1, 2, 2), 3)
    (True, False)
    """
    try:
        kernel = _pair("kernel", kernel)
        stride = kernel if stride is None else _pair("stride", stride)
        pad = _padding(pad)
    except (TypeError, ValueError):
        return False
    if len(x_shape) != 4 or min(kernel + stride) < 1 or min(pad[0] + pad[1]) < 0:
        return False
    if not (jnp.issubdtype(dtype, jnp.floating) or jnp.issubdtype(dtype, jnp.integer)):
        return False
    for size, k, (lo, hi) in zip(x_shape[2:], kernel, pad, strict=True):
        if size + lo + hi < k:
            return False
    return min(_pool_geometry(x_shape, kernel, stride, pad, ceil_mode)[0]) >= 1


def max_pool2d(
    x: jax.Array,
    kernel: IntPair,
    stride: IntPair | None = None,
    pad: Padding = (0, 0),
    ceil_mode: bool = False,
) -> jax.Array:
    """Max pooling of NCHW data; padded cells never win; the gradient goes to each window's first max.

    Output size per axis is ``floor((size + pad_lo + pad_hi - k) / s) + 1`` (``ceil`` with
    ``ceil_mode``), MXNet's rule; ``stride`` defaults to ``kernel``. Values and gradients equal
    ``lax.reduce_window(x, -inf, lax.max, ...)`` with the high padding extended to the last window.

    >>> import jax.numpy as jnp
    >>> max_pool2d(jnp.arange(25.0).reshape(1, 1, 5, 5), 2, ceil_mode=True).tolist()
    [[[[6.0, 8.0, 9.0], [16.0, 18.0, 19.0], [21.0, 23.0, 24.0]]]]
    """
    kernel = _pair("kernel", kernel)
    stride = kernel if stride is None else _pair("stride", stride)
    pad = _padding(pad)
    if not supports_max_pool2d(x.shape, kernel, stride, pad, ceil_mode, x.dtype):
        raise ValueError(
            f"fast_cpu.max_pool2d: cannot pool data of shape {tuple(x.shape)} with kernel={kernel}, "
            f"stride={stride}, pad={pad}, ceil_mode={ceil_mode}; data must be 4-D NCHW with the "
            f"padded input at least as large as the kernel"
        )
    out, pads = _pool_geometry(x.shape, kernel, stride, pad, ceil_mode)
    cfg = ((0, 0, 0), (0, 0, 0), (pads[0][0], pads[0][1], 0), (pads[1][0], pads[1][1], 0))
    xp = lax.pad(x, _lowest(x.dtype), cfg)
    n, c = x.shape[:2]
    (kh, kw), (ho, wo) = kernel, out
    if kernel == stride:
        return _tiled_max(xp.reshape(n, c, ho, kh, wo, kw), (3, 5))
    return _strided_max(xp, kernel, stride, out)
