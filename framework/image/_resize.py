"""Nearest and bilinear resizing with OpenCV's conventions (what MXNet's ``imresize`` and its C++ image
iterators use), in NumPy: pixel centres at half-integers, no antialiasing when shrinking, and for uint8
OpenCV's 11-bit fixed-point weights, so the results match OpenCV's to the last bit in most pixels
(Pillow's filters widen their support when shrinking and would not).

>>> import numpy as onp
>>> img = onp.arange(16, dtype=onp.uint8).reshape(4, 4, 1) * 10
>>> linear(img, 2, 2)[..., 0].tolist()
[[25, 45], [105, 125]]
>>> nearest(img, 2, 2)[..., 0].tolist()
[[0, 20], [80, 100]]
"""

from __future__ import annotations

import numpy as onp

__all__ = ["linear", "nearest"]

_BITS = 11
_ONE = 1 << _BITS


def _taps(src: int, dst: int) -> tuple[onp.ndarray, onp.ndarray, onp.ndarray]:
    """Per output index: the two source indices and the first weight (a fraction of 1)."""
    scale = src / dst
    f = (onp.arange(dst) + 0.5) * scale - 0.5
    i0 = onp.floor(f).astype(onp.int64)
    frac = f - i0
    low = i0 < 0
    frac[low], i0[low] = 0.0, 0
    high = i0 >= src - 1
    frac[high], i0[high] = 0.0, src - 1
    i1 = onp.minimum(i0 + 1, src - 1)
    return i0, i1, 1.0 - frac


def linear(img: onp.ndarray, w: int, h: int) -> onp.ndarray:
    """Bilinear resize of an (H, W[, C]) image to (h, w[, C])."""
    y0, y1, wy = _taps(img.shape[0], h)
    x0, x1, wx = _taps(img.shape[1], w)
    if img.dtype == onp.uint8:
        ax = onp.rint(wx * _ONE).astype(onp.int64)
        ay = onp.rint(wy * _ONE).astype(onp.int64)
        shape = (1, w) + (1,) * (img.ndim - 2)
        src = img.astype(onp.int64)
        rows = src[:, x0] * ax.reshape(shape) + src[:, x1] * (_ONE - ax).reshape(shape)
        shape = (h,) + (1,) * (img.ndim - 1)
        b0, b1 = ay.reshape(shape), (_ONE - ay).reshape(shape)
        out = (((b0 * (rows[y0] >> 4)) >> 16) + ((b1 * (rows[y1] >> 4)) >> 16) + 2) >> 2  # OpenCV's rounding
        return out.clip(0, 255).astype(onp.uint8)
    src = img.astype(onp.float64)
    shape = (1, w) + (1,) * (img.ndim - 2)
    rows = src[:, x0] * wx.reshape(shape) + src[:, x1] * (1 - wx).reshape(shape)
    shape = (h,) + (1,) * (img.ndim - 1)
    out = rows[y0] * wy.reshape(shape) + rows[y1] * (1 - wy).reshape(shape)
    return out.astype(img.dtype)


def nearest(img: onp.ndarray, w: int, h: int) -> onp.ndarray:
    """Nearest-neighbour resize (OpenCV's: source index ``floor(i * src / dst)``)."""
    ys = onp.minimum(onp.floor(onp.arange(h) * (img.shape[0] / h)).astype(onp.int64), img.shape[0] - 1)
    xs = onp.minimum(onp.floor(onp.arange(w) * (img.shape[1] / w)).astype(onp.int64), img.shape[1] - 1)
    return img[ys][:, xs]
