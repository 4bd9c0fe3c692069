"""Resizing and adaptive pooling of NCHW maps: MXNet's ``contrib.BilinearResize2D`` (every mode) and
``contrib.AdaptiveAvgPooling2D``.

Both are separable linear maps, so each is two small matrix products with interpolation (or averaging)
matrices built once per shape in float32 the way MXNet computes its weights; gradients are exact.

>>> import jax.numpy as jnp
>>> x = jnp.arange(4.0).reshape(1, 1, 2, 2)
>>> bilinear_resize_2d(x, height=3, width=3)[0, 0].tolist()
[[0.0, 0.5, 1.0], [1.0, 1.5, 2.0], [2.0, 2.5, 3.0]]
>>> adaptive_avg_pooling_2d(x, output_size=1)[0, 0].tolist()
[[1.5]]
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

__all__ = ["bilinear_resize_2d", "adaptive_avg_pooling_2d", "resize_shape"]

_MODES = ("size", "odd_scale", "like", "to_even_down", "to_even_up", "to_odd_down", "to_odd_up")


def _check4(data: jax.Array, op: str) -> None:
    if data.ndim != 4:
        raise ValueError(f"{op}: data must be 4-D (N, C, H, W), got shape {tuple(data.shape)}")


def resize_shape(h: int, w: int, mode: str, height: int, width: int, scale_height: float | None,
                 scale_width: float | None, like: Any = None) -> tuple[int, int]:
    """The output (height, width) of BilinearResize2D for an (h, w) input, by MXNet's rules."""
    f32 = onp.float32
    if mode == "size":
        if scale_height is not None or scale_width is not None:
            if scale_height is None or scale_width is None:
                raise ValueError("BilinearResize2D: give both scale_height and scale_width (or neither)")
            return int(f32(scale_height) * f32(h)), int(f32(scale_width) * f32(w))
        return int(height), int(width)
    if mode == "odd_scale":
        if scale_height is None or scale_width is None:
            raise ValueError("BilinearResize2D: mode='odd_scale' needs scale_height and scale_width")
        oh = int(f32(h) * f32(scale_height)) if h % 2 == 0 else int(f32(h - 1) * f32(scale_height)) + 1
        ow = int(f32(w) * f32(scale_width)) if w % 2 == 0 else int(f32(w - 1) * f32(scale_width)) + 1
        return oh, ow
    if mode == "like":
        if like is None or jnp.ndim(like) != 4:
            raise ValueError("BilinearResize2D: mode='like' needs a 4-D `like` array whose height and width "
                             "the output takes")
        return int(like.shape[2]), int(like.shape[3])
    even = mode.startswith("to_even")
    up = mode.endswith("_up")

    def fix(n: int) -> int:
        ok = (n % 2 == 0) == even
        return n if ok else (n + 1 if up else n - 1)

    return fix(h), fix(w)


def _interp_matrix(n_in: int, n_out: int, align_corners: bool) -> onp.ndarray:
    """(n_out, n_in) bilinear weights, computed in float32 as MXNet's CPU kernel does."""
    f32 = onp.float32
    m = onp.zeros((n_out, n_in), f32)
    if n_in == n_out:
        return onp.eye(n_in, dtype=f32)
    if n_out > 1:
        scale = f32(n_in - 1) / f32(n_out - 1) if align_corners else f32(n_in) / f32(n_out)
    else:
        scale = f32(0)
    for o in range(n_out):
        if align_corners:
            src = f32(scale * f32(o))
        else:
            src = f32(scale * (f32(o) + f32(0.5)) - f32(0.5))
            src = f32(0) if src < 0 else src
        i0 = int(src)
        step = 1 if i0 < n_in - 1 else 0
        lam1 = f32(src - f32(i0))
        m[o, i0] += f32(1) - lam1
        m[o, i0 + step] += lam1
    return m


def bilinear_resize_2d(data: jax.Array, like: jax.Array | None = None, height: int = 1, width: int = 1,
                       scale_height: float | None = None, scale_width: float | None = None,
                       mode: str = "size", align_corners: bool = True) -> jax.Array:
    """Bilinear resize of (N, C, H, W) ``data``: to ``height`` x ``width``, or by ``scale_*``
    (``mode='size'``); like ``like``'s last two axes (``'like'``); ``'odd_scale'``; to the nearest even
    or odd size (``'to_even_down'``, ``'to_even_up'``, ``'to_odd_down'``, ``'to_odd_up'``).
    ``align_corners`` (MXNet's default True) maps corner pixels onto corner pixels.

    >>> import jax.numpy as jnp
    >>> bilinear_resize_2d(jnp.ones((1, 2, 3, 5)), mode='to_even_up').shape
    (1, 2, 4, 6)
    """
    op = "BilinearResize2D"
    _check4(data, op)
    if mode not in _MODES:
        raise ValueError(f"{op}: mode={mode!r} is not one of {list(_MODES)}")
    h, w = data.shape[2], data.shape[3]
    oh, ow = resize_shape(h, w, mode, height, width, scale_height, scale_width, like)
    if oh < 1 or ow < 1:
        raise ValueError(f"{op}: the output size ({oh}, {ow}) must be positive")
    mh = jnp.asarray(_interp_matrix(h, oh, align_corners), data.dtype)
    mw = jnp.asarray(_interp_matrix(w, ow, align_corners), data.dtype)
    return jnp.einsum("oh,nchw,pw->ncop", mh, data, mw)


def _pool_matrix(n_in: int, n_out: int) -> onp.ndarray:
    m = onp.zeros((n_out, n_in), onp.float32)
    for o in range(n_out):
        start = int(math.floor(onp.float32(o * n_in) / onp.float32(n_out)))
        end = int(math.ceil(onp.float32((o + 1) * n_in) / onp.float32(n_out)))
        m[o, start:end] = onp.float32(1) / onp.float32(end - start)
    return m


def adaptive_avg_pooling_2d(data: jax.Array, output_size: Any = None) -> jax.Array:
    """Average pooling of (N, C, H, W) ``data`` to ``output_size`` (an int, a pair, or nothing for 1x1):
    output cell ``o`` averages input rows ``floor(o*H/oh)`` to ``ceil((o+1)*H/oh)`` (and columns alike).

    >>> import jax.numpy as jnp
    >>> adaptive_avg_pooling_2d(jnp.ones((2, 3, 7, 5)), output_size=(3, 2)).shape
    (2, 3, 3, 2)
    """
    op = "AdaptiveAvgPooling2D"
    _check4(data, op)
    if output_size is None or (isinstance(output_size, (tuple, list)) and len(output_size) == 0):
        oh = ow = 1
    elif isinstance(output_size, int):
        oh = ow = int(output_size)
    elif len(output_size) == 1:
        oh = ow = int(output_size[0])
    elif len(output_size) == 2:
        oh, ow = (int(v) for v in output_size)
    else:
        raise ValueError(f"{op}: output_size={output_size!r} must be an int or (height, width)")
    if oh < 1 or ow < 1:
        raise ValueError(f"{op}: output_size={output_size!r} must be positive")
    mh = jnp.asarray(_pool_matrix(data.shape[2], oh), data.dtype)
    mw = jnp.asarray(_pool_matrix(data.shape[3], ow), data.dtype)
    return jnp.einsum("oh,nchw,pw->ncop", mh, data, mw)
