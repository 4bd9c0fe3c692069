"""Image operations in numpy on HWC images (or NHWC batches): resize, crop, and MXNet's crop helpers.

Resizing is separable: each output row (then column) is a fixed weighted sum of a few input rows, the
taps of the interpolation kernel, with OpenCV's sampling conventions (which MXNet uses): half-pixel
centres for bilinear, bicubic (a = -0.75), area and Lanczos-4, ``floor(dst * scale)`` for nearest.
Sums run tap by tap in a fixed order, so a batch gives exactly the values of its images one by one.
uint8 images are rounded and saturated back to uint8 (OpenCV's 11-bit fixed point may differ by 1).

>>> import numpy as onp
>>> img = onp.arange(16, dtype=onp.uint8).reshape(4, 4, 1) * 10
>>> resize(img, 2, 2, 1)[..., 0]
array([[ 25,  45],
       [105, 125]], dtype=uint8)
>>> scale_down((640, 480), (720, 720))
(480, 480)
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as onp

from ..._rng import host_rng

__all__ = ["resize", "crop", "scale_down", "fixed_crop", "center_crop", "resolve_interp", "INTERPOLATIONS"]

INTERPOLATIONS = {0: "nearest", 1: "bilinear", 2: "area", 3: "bicubic", 4: "lanczos"}


def resolve_interp(interp: int, sizes: tuple[int, int, int, int],
                   rng: onp.random.Generator | None = None) -> int:
    """MXNet's interpolation codes: 0-4 as they are; 9 = area to shrink, bicubic to enlarge (bilinear
    when mixed); 10 = one of 0-4 at random. ``sizes`` is (old_h, old_w, new_h, new_w)."""
    if interp == 9:
        oh, ow, nh, nw = sizes
        if nh > oh and nw > ow:
            return 3
        if nh < oh and nw < ow:
            return 2
        return 1
    if interp == 10:
        return int((rng or host_rng()).integers(0, 5))
    if interp not in INTERPOLATIONS:
        raise ValueError(f"interpolation={interp!r} is not supported: use 0 (nearest), 1 (bilinear), "
                         "2 (area), 3 (bicubic), 4 (lanczos), 9 (auto) or 10 (random).")
    return interp


def _cubic(x: onp.ndarray, a: float = -0.75) -> list[onp.ndarray]:
    c0 = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a
    c1 = ((a + 2) * x - (a + 3)) * x * x + 1
    c2 = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1
    return [c0, c1, c2, 1 - c0 - c1 - c2]


def _lanczos(x: onp.ndarray) -> list[onp.ndarray]:
    ws = []
    for k in range(8):
        t = (x + 3 - k) * math.pi
        safe = onp.where(onp.abs(t) < 1e-12, 1.0, t)
        w = onp.where(onp.abs(t) < 1e-12, 1.0, 4 * onp.sin(safe) * onp.sin(safe / 4) / (safe * safe))
        ws.append(w)
    total = sum(ws)
    return [w / total for w in ws]


@lru_cache(maxsize=256)
def _taps(in_size: int, out_size: int, interp: int) -> tuple[onp.ndarray, onp.ndarray]:
    """(indices, weights), both (out_size, k): output i = sum_j weights[i, j] * input[indices[i, j]]."""
    scale = in_size / out_size
    dst = onp.arange(out_size, dtype=onp.float64)
    if interp == 0:
        idx = onp.minimum(onp.floor(dst * scale).astype(onp.int64), in_size - 1)[:, None]
        return idx, onp.ones((out_size, 1), onp.float32)
    if interp == 2 and scale > 1:  # area: the average of the source cells each output cell covers
        lo, hi = dst * scale, (dst + 1) * scale
        k = int(math.ceil(scale)) + 1
        first = onp.floor(lo).astype(onp.int64)
        idx = first[:, None] + onp.arange(k)[None, :]
        overlap = onp.minimum(idx + 1, hi[:, None]) - onp.maximum(idx, lo[:, None])
        w = onp.clip(overlap, 0, None) / scale
        return onp.clip(idx, 0, in_size - 1), w.astype(onp.float32)
    src = (dst + 0.5) * scale - 0.5
    base = onp.floor(src)
    frac = src - base
    base = base.astype(onp.int64)
    if interp in (1, 2):  # bilinear (area when enlarging behaves like bilinear)
        frac = onp.where(base < 0, 0.0, frac)
        base = onp.maximum(base, 0)
        frac = onp.where(base >= in_size - 1, 0.0, frac)
        idx = onp.stack([base, base + 1], axis=1)
        ws = [1 - frac, frac]
    elif interp == 3:
        idx = base[:, None] + onp.arange(-1, 3)[None, :]
        ws = _cubic(frac)
    else:
        idx = base[:, None] + onp.arange(-3, 5)[None, :]
        ws = _lanczos(frac)
    return onp.clip(idx, 0, in_size - 1), onp.stack(ws, axis=1).astype(onp.float32)


def _resample(x: onp.ndarray, axis: int, out_size: int, interp: int) -> onp.ndarray:
    idx, w = _taps(x.shape[axis], out_size, interp)
    shape = [1] * x.ndim
    shape[axis] = out_size
    out = None
    for j in range(idx.shape[1]):
        term = onp.take(x, idx[:, j], axis=axis) * w[:, j].reshape(shape)
        out = term if out is None else onp.add(out, term, out=out)
    return out


def resize(x: onp.ndarray, w: int, h: int, interp: int = 1) -> onp.ndarray:
    """Resize an HWC image or NHWC batch to width ``w`` and height ``h``; keeps the dtype."""
    if w <= 0 or h <= 0:
        raise ValueError(f"resize: the output size must be positive, got width {w} and height {h}.")
    from .....image._budget import check_pixels

    check_pixels(w, h, "resize")
    oh, ow = x.shape[-3], x.shape[-2]
    interp = resolve_interp(interp, (oh, ow, h, w))
    if (oh, ow) == (h, w):
        return x.copy()
    out = x.astype(onp.float32)
    if oh != h:
        out = _resample(out, x.ndim - 3, h, interp)
    if ow != w:
        out = _resample(out, x.ndim - 2, w, interp)
    if x.dtype == onp.uint8:
        return onp.clip(onp.rint(out), 0, 255).astype(onp.uint8)
    if x.dtype.kind in "iu":
        info = onp.iinfo(x.dtype)
        return onp.clip(onp.rint(out), info.min, info.max).astype(x.dtype)
    return out.astype(x.dtype, copy=False)


def crop(x: onp.ndarray, x0: int, y0: int, w: int, h: int) -> onp.ndarray:
    """The ``w`` x ``h`` region at column ``x0``, row ``y0`` of an HWC image or NHWC batch (a copy)."""
    H, W = x.shape[-3], x.shape[-2]
    if not (0 <= x0 and 0 <= y0 and w > 0 and h > 0 and x0 + w <= W and y0 + h <= H):
        raise ValueError(f"crop: the region x={x0}, y={y0}, width={w}, height={h} does not lie inside the "
                         f"{W}x{H} (width x height) image.")
    return x[..., y0:y0 + h, x0:x0 + w, :].copy()


def scale_down(src_size: tuple[int, int], size: tuple[int, int]) -> tuple[int, int]:
    """MXNet's ``image.scale_down``: shrink the crop ``size`` (w, h) to fit ``src_size``, keeping its
    ratio."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def fixed_crop(x: onp.ndarray, x0: int, y0: int, w: int, h: int, size: tuple[int, int] | None = None,
               interp: int = 2) -> onp.ndarray:
    """Crop, then resize to ``size`` (w, h) if given and different."""
    out = crop(x, x0, y0, w, h)
    if size is not None and (w, h) != tuple(size):
        out = resize(out, size[0], size[1], resolve_interp(interp, (h, w, size[1], size[0])))
    return out


def center_crop(x: onp.ndarray, size: tuple[int, int], interp: int = 2) -> onp.ndarray:
    """MXNet's ``image.center_crop``: the largest centred crop of ``size``'s ratio, resized to ``size``."""
    H, W = x.shape[-3], x.shape[-2]
    new_w, new_h = scale_down((W, H), size)
    x0, y0 = int((W - new_w) / 2), int((H - new_h) / 2)
    return fixed_crop(x, x0, y0, new_w, new_h, size, interp)
