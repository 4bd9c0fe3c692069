"""OpenCV's ``resize`` (what MXNet's ``imresize``, ``nd.image.resize``, ``transforms.Resize`` and its C++
image iterators call) in NumPy, for the codes MXNet passes through: 0 nearest, 1 bilinear, 2 bicubic
(a = -0.75), 3 area, 4 Lanczos-4. The arithmetic is OpenCV's: pixel centres at half-integers, float32
tap positions and weights, edge pixels repeated, no antialiasing except area's box average; uint8
images use its 11-bit fixed-point weights and its rounding (bilinear and bicubic as its vector code
rounds), area weights in float32. Images are (H, W), (H, W, C) or batches (..., H, W, C).

>>> import numpy as onp
>>> img = onp.arange(16, dtype=onp.uint8).reshape(4, 4, 1) * 10
>>> resize(img, 2, 2, 1)[..., 0].tolist()
[[25, 45], [105, 125]]
>>> resize(img, 2, 2, 0)[..., 0].tolist()
[[0, 20], [80, 100]]
>>> [resize(img, 3, 5, code).shape for code in (2, 3, 4)]
[(5, 3, 1), (5, 3, 1), (5, 3, 1)]
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as onp

__all__ = ["resize", "linear", "nearest"]

_BITS = 11
_ONE = 1 << _BITS
_F32 = onp.float32
_S45 = 0.70710678118654752440084436210485
_LANCZOS_CS = [(1, 0), (-_S45, -_S45), (0, 1), (_S45, -_S45), (-1, 0), (_S45, _S45), (0, -1), (-_S45, _S45)]


def _scales(src: int, dst: int) -> tuple[float, float]:
    inv = dst / src  # OpenCV keeps inv_scale and takes scale = 1 / inv_scale
    return 1.0 / inv, inv


def _cubic(x: onp.ndarray) -> list[onp.ndarray]:
    a = _F32(-0.75)
    one = _F32(1)
    c0 = ((a * (x + one) - _F32(5) * a) * (x + one) + _F32(8) * a) * (x + one) - _F32(4) * a
    c1 = ((a + _F32(2)) * x - (a + _F32(3))) * x * x + one
    c2 = ((a + _F32(2)) * (one - x) - (a + _F32(3))) * (one - x) * (one - x) + one
    return [c0, c1, c2, one - c0 - c1 - c2]


def _lanczos(x: onp.ndarray) -> list[onp.ndarray]:
    with onp.errstate(divide="ignore", invalid="ignore"):  # x = 0 takes the sample itself (below)
        return _lanczos_taps(x)


def _lanczos_taps(x: onp.ndarray) -> list[onp.ndarray]:
    y0 = -(x + _F32(3)).astype(onp.float64) * math.pi * 0.25
    s0, c0 = onp.sin(y0), onp.cos(y0)
    ws = []
    for i, (a, b) in enumerate(_LANCZOS_CS):
        y = -(x + _F32(3) - _F32(i)).astype(onp.float64) * math.pi * 0.25
        ws.append((a * s0 + b * c0) / (y * y))
    ws = [w.astype(_F32) for w in ws]
    total = ws[0]
    for w in ws[1:]:
        total = total + w
    inv = _F32(1) / total
    ws = [w * inv for w in ws]
    tiny = x < onp.finfo(_F32).eps  # at an integer position the kernel is the sample itself
    return [onp.where(tiny, _F32(1 if i == 3 else 0), w) for i, w in enumerate(ws)]


@lru_cache(maxsize=256)
def _taps(src: int, dst: int, code: int, area_mode: bool) -> tuple[onp.ndarray, onp.ndarray]:
    """(indices, weights), both (dst, k): output i = sum_j weights[i, j] * input[indices[i, j]]."""
    scale, inv = _scales(src, dst)
    d = onp.arange(dst, dtype=onp.float64)
    if area_mode:  # area when enlarging: bilinear with weights from the cell overlap
        sx = onp.floor(d * scale).astype(onp.int64)
        fx = ((d + 1) - (sx + 1) * inv).astype(_F32)
        fx = onp.where(fx <= 0, _F32(0), fx - onp.floor(fx)).astype(_F32)
    else:
        f = ((d + 0.5) * scale - 0.5).astype(_F32)
        sx = onp.floor(f).astype(onp.int64)
        fx = (f - sx.astype(_F32)).astype(_F32)
    if code in (1, 3):
        edge = (sx < 0) | (sx >= src - 1)
        fx = onp.where(edge, _F32(0), fx)
        sx = onp.clip(sx, 0, src - 1)
        ws, first = [_F32(1) - fx, fx], 0
    elif code == 2:
        ws, first = _cubic(fx), -1
    else:
        ws, first = _lanczos(fx), -3
    idx = sx[:, None] + onp.arange(first, first + len(ws))[None, :]
    return onp.clip(idx, 0, src - 1), onp.stack(ws, axis=1).astype(_F32)


@lru_cache(maxsize=256)
def _area_taps(src: int, dst: int) -> tuple[onp.ndarray, onp.ndarray]:
    """Area shrinking: each output cell averages the source cells it covers (OpenCV's table)."""
    scale, _ = _scales(src, dst)
    rows: list[list[tuple[int, float]]] = []
    for dx in range(dst):
        f1 = dx * scale
        f2 = f1 + scale
        cell = min(scale, src - f1)
        s1, s2 = math.ceil(f1), math.floor(f2)
        s2 = min(s2, src - 1)
        s1 = min(s1, s2)
        row = []
        if s1 - f1 > 1e-3:
            row.append((s1 - 1, (s1 - f1) / cell))
        row += [(s, 1.0 / cell) for s in range(s1, s2)]
        if f2 - s2 > 1e-3:
            row.append((s2, min(min(f2 - s2, 1.0), cell) / cell))
        rows.append(row)
    k = max(len(r) for r in rows)
    idx = onp.zeros((dst, k), onp.int64)
    w = onp.zeros((dst, k), _F32)
    for i, row in enumerate(rows):
        for j, (s, a) in enumerate(row):
            idx[i, j], w[i, j] = s, a
    return idx, w


def _pass(x: onp.ndarray, axis: int, idx: onp.ndarray, w: onp.ndarray, fixed: bool) -> onp.ndarray:
    """One separable pass: float32 sums tap by tap, or integer sums of 11-bit weights."""
    shape = [1] * x.ndim
    shape[axis] = idx.shape[0]
    weights = onp.rint(w * _F32(_ONE)).astype(onp.int64) if fixed else w
    out = None
    for j in range(idx.shape[1]):
        term = onp.take(x, idx[:, j], axis=axis) * weights[:, j].reshape(shape)
        out = term if out is None else out + term
    return out


def _saturate_u8(v: onp.ndarray) -> onp.ndarray:
    return onp.clip(v, 0, 255).astype(onp.uint8)


def _separable(img: onp.ndarray, w: int, h: int, code: int, area_mode: bool) -> onp.ndarray:
    xi, xw = _taps(img.shape[-2], w, code, area_mode)
    yi, yw = _taps(img.shape[-3], h, code, area_mode)
    if img.dtype != onp.uint8:
        rows = _pass(img.astype(_F32), -2, xi, xw, False)
        return _pass(rows, -3, yi, yw, False).astype(img.dtype)
    rows = _pass(img.astype(onp.int64), -2, xi, xw, True)
    beta = onp.rint(yw * _F32(_ONE)).astype(onp.int64)
    shape = (h, 1, 1)
    if code in (1, 3):  # OpenCV's vector rounding of bilinear rows
        b0, b1 = beta[:, 0].reshape(shape), beta[:, 1].reshape(shape)
        r0, r1 = onp.take(rows, yi[:, 0], axis=-3), onp.take(rows, yi[:, 1], axis=-3)
        return _saturate_u8((((b0 * (r0 >> 4)) >> 16) + ((b1 * (r1 >> 4)) >> 16) + 2) >> 2)
    if code == 2:  # its vector code scales the integer rows back to float and rounds to even
        total = onp.zeros(rows.shape[:-3] + (h,) + rows.shape[-2:], onp.float64)
        scale = 1.0 / (_ONE * _ONE)
        for j in reversed(range(4)):
            b = (beta[:, j].astype(_F32) * _F32(scale)).astype(onp.float64).reshape(shape)
            total = onp.take(rows, yi[:, j], axis=-3).astype(onp.float64) * b + total
        return _saturate_u8(onp.rint(total.astype(_F32)))
    total = _pass(rows, -3, yi, yw, True)
    return _saturate_u8((total + (1 << (2 * _BITS - 1))) >> (2 * _BITS))


def _area(img: onp.ndarray, w: int, h: int) -> onp.ndarray:
    sy, _ = _scales(img.shape[-3], h)
    sx, _ = _scales(img.shape[-2], w)
    ix, iy = round(sx), round(sy)
    if abs(sx - ix) < 2.2e-16 and abs(sy - iy) < 2.2e-16:  # integer factors: block averages
        blocks = img.reshape(img.shape[:-3] + (h, iy, w, ix, img.shape[-1]))
        if img.dtype != onp.uint8:
            total = blocks.astype(_F32).sum(axis=(-4, -2), dtype=_F32)
            return (total * _F32(1.0 / (ix * iy))).astype(img.dtype)
        total = blocks.astype(onp.int64).sum(axis=(-4, -2))
        if ix == iy == 2 and img.shape[-1] in (1, 3, 4):
            return _saturate_u8((total + 2) >> 2)
        return _saturate_u8(onp.rint(total.astype(_F32) * _F32(1.0 / (ix * iy))))
    xi, xw = _area_taps(img.shape[-2], w)
    yi, yw = _area_taps(img.shape[-3], h)
    out = _pass(_pass(img.astype(_F32), -2, xi, xw, False), -3, yi, yw, False)
    if img.dtype == onp.uint8:
        return _saturate_u8(onp.rint(out))
    return out.astype(img.dtype)


def nearest(img: onp.ndarray, w: int, h: int) -> onp.ndarray:
    """Nearest-neighbour resize (OpenCV's: source index ``floor(i * src / dst)``)."""
    ys = onp.minimum(onp.floor(onp.arange(h) * _scales(img.shape[-3], h)[0]).astype(onp.int64),
                     img.shape[-3] - 1)
    xs = onp.minimum(onp.floor(onp.arange(w) * _scales(img.shape[-2], w)[0]).astype(onp.int64),
                     img.shape[-2] - 1)
    return onp.take(onp.take(img, ys, axis=-3), xs, axis=-2)


def linear(img: onp.ndarray, w: int, h: int) -> onp.ndarray:
    """Bilinear resize of an (H, W[, C]) image to (h, w[, C])."""
    return resize(img, w, h, 1)


def resize(img: onp.ndarray, w: int, h: int, code: int) -> onp.ndarray:
    """Resize to width ``w`` and height ``h`` with OpenCV's method ``code`` (0-4); keeps the dtype."""
    img = onp.asarray(img)
    if img.ndim == 2:
        return resize(img[:, :, None], w, h, code)[:, :, 0]
    if img.shape[-3:-1] == (h, w):
        return img.copy()
    if code == 0:
        return nearest(img, w, h)
    sx, _ = _scales(img.shape[-2], w)
    sy, _ = _scales(img.shape[-3], h)
    ix, iy = round(sx), round(sy)
    if code == 1 and ix == iy == 2 and abs(sx - 2) < 2.2e-16 and abs(sy - 2) < 2.2e-16:
        code = 3  # OpenCV: halving with bilinear is the 2x2 box average
    if code == 3:
        if sx >= 1 and sy >= 1:
            return _area(img, w, h)
        return _separable(img, w, h, 1, True)
    if code not in (1, 2, 4):
        raise ValueError(f"resize: interpolation code {code} is not one of OpenCV's 0-4")
    return _separable(img, w, h, code, False)
