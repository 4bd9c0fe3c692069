"""MXNet's ``mx.image`` functions on HWC images (NumPy or ``jax.Array``; the result is of the same
kind): decode, read, resize, crop, border, rotate, normalise.

Interpolation codes are MXNet's (OpenCV's): 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos, 9 auto
(area to shrink, bicubic to enlarge, else bilinear), 10 random, with OpenCV's arithmetic
(``framework.image._resize``: MXNet's pixels, bilinear enlargements within 1). Decoding goes through
Pillow (``_codec``). The random crops draw from Python's ``random`` module, as MXNet's do: the same
``random.seed`` gives MXNet's crops.

>>> import numpy as onp
>>> from framework import image
>>> img = onp.zeros((40, 60, 3), onp.uint8)
>>> image.resize_short(img, 20).shape
(20, 30, 3)
>>> out, box = image.center_crop(img, (16, 16))
>>> out.shape, box
((16, 16, 3), (22, 12, 16, 16))
"""

from __future__ import annotations

import math
import numbers
import os
import random
from typing import Any

import numpy as onp

from .._files import read_bytes
from . import _resize
from ._budget import check_pixels
from ._codec import decode as _decode

__all__ = ["imdecode", "imread", "imresize", "resize_short", "center_crop", "fixed_crop", "scale_down",
           "color_normalize", "random_crop", "random_size_crop", "copyMakeBorder", "imrotate",
           "random_rotate"]

_INTERP = {0: "nearest", 1: "bilinear", 2: "bicubic", 3: "area", 4: "lanczos"}  # OpenCV's codes


def imdecode(buf: bytes | Any, flag: int = 1, to_rgb: bool = True, out: Any = None, *,
             max_pixels: int | None = None) -> onp.ndarray:
    """Decode JPEG/PNG bytes to a uint8 HWC array: ``flag=1`` 3 channels (RGB, or BGR with
    ``to_rgb=False``), ``flag=0`` one channel (H, W, 1), as MXNet's ``imdecode``. An image above the
    pixel budget (:func:`set_max_pixels`; ``max_pixels`` for this call) is refused before decoding."""
    if out is not None:
        raise ValueError("imdecode: out= is not supported (arrays are immutable); use the return value")
    data = buf.tobytes() if hasattr(buf, "tobytes") else bytes(buf)
    img = _decode(data, flag=1 if flag else 0, bgr=bool(flag) and not to_rgb, max_pixels=max_pixels)
    return img[:, :, None] if img.ndim == 2 else img


def imread(filename: str | os.PathLike, flag: int = 1, to_rgb: bool = True) -> onp.ndarray:
    """Read and decode an image file (see :func:`imdecode`)."""
    return imdecode(read_bytes(filename, what="image file"), flag, to_rgb)


def _interp(interp: int, sizes: tuple[int, int, int, int] | None) -> int:
    if interp == 9:  # auto: area to shrink, cubic to enlarge, bilinear otherwise
        if sizes is None:
            return 2
        oh, ow, nh, nw = sizes
        if nh > oh and nw > ow:
            return 2
        if nh < oh and nw < ow:
            return 3
        return 1
    if interp == 10:
        return random.randint(0, 4)
    if interp not in _INTERP:
        raise ValueError(f"imresize: interp={interp} is not one of 0-4, 9 (auto) or 10 (random)")
    return interp


def _get_interp_method(interp: int, sizes: tuple[int, ...] = ()) -> int:
    """MXNet 1.x's name for :func:`_interp` (libraries import it from ``mxnet.image.image``); ``sizes``
    is ``(old_h, old_w, new_h, new_w)`` or empty.

    >>> [_get_interp_method(9, s) for s in ((10, 10, 20, 20), (20, 20, 10, 10), ())]
    [2, 3, 2]
    """
    if sizes and len(sizes) != 4:
        raise ValueError(f"_get_interp_method: sizes must be (old_h, old_w, new_h, new_w), got {sizes!r}")
    return _interp(interp, tuple(sizes) if sizes else None)


def imresize(src: Any, w: int, h: int, interp: int = 1) -> Any:
    """Resize an HWC uint8 (or float) image to width ``w`` and height ``h``; MXNet's interp codes
    (see the module docstring)."""
    arr = onp.asarray(src)
    if arr.ndim not in (2, 3):
        raise ValueError(f"imresize: expected an (H, W, C) image, got shape {arr.shape}")
    if w <= 0 or h <= 0:
        raise ValueError(f"imresize: target size w={w}, h={h} must be positive")
    check_pixels(w, h, "imresize")
    code = _interp(interp, (arr.shape[0], arr.shape[1], h, w))
    return _like(src, _resize.resize(arr, int(w), int(h), code))


def _like(src: Any, out: onp.ndarray) -> Any:
    if isinstance(src, onp.ndarray):
        return out
    import jax

    return jax.device_put(out)  # jnp.asarray would run a program of each new image shape (JAX 0.10-0.12)


def resize_short(src: Any, size: int, interp: int = 2) -> Any:
    """Resize so the shorter edge is ``size``, keeping the aspect ratio (MXNet's integer rounding)."""
    h, w = src.shape[0], src.shape[1]
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=_interp(interp, (h, w, new_h, new_w)))


def scale_down(src_size: tuple[int, int], size: tuple[int, int]) -> tuple[int, int]:
    """Shrink ``size`` (w, h) to fit in ``src_size`` (w, h), keeping its aspect ratio."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def fixed_crop(src: Any, x0: int, y0: int, w: int, h: int, size: tuple[int, int] | None = None,
               interp: int = 2) -> Any:
    """Crop ``src[y0:y0+h, x0:x0+w]``, then resize to ``size`` (w, h) when given and different."""
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        out = imresize(out, size[0], size[1], interp=_interp(interp, (h, w, size[1], size[0])))
    return out


def center_crop(src: Any, size: tuple[int, int], interp: int = 2) -> tuple[Any, tuple[int, int, int, int]]:
    """Crop the centre to ``size`` (w, h) (scaled down to fit, then resized): ``(out, (x0, y0, w, h))``."""
    h, w = src.shape[0], src.shape[1]
    new_w, new_h = scale_down((w, h), size)
    x0 = int((w - new_w) / 2)
    y0 = int((h - new_h) / 2)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def color_normalize(src: Any, mean: Any, std: Any = None) -> Any:
    """``(src - mean) / std`` (either may be None), as a new array."""
    if mean is not None:
        src = src - mean
    if std is not None:
        src = src / std
    return src


def random_crop(src: Any, size: tuple[int, int], interp: int = 2) -> tuple[Any, tuple[int, int, int, int]]:
    """A random window of ``size`` (w, h) (scaled down to fit, then resized to ``size``):
    ``(out, (x0, y0, w, h))``."""
    h, w = src.shape[0], src.shape[1]
    new_w, new_h = scale_down((w, h), size)
    x0 = random.randint(0, w - new_w)
    y0 = random.randint(0, h - new_h)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def random_size_crop(src: Any, size: tuple[int, int], area: float | tuple[float, float],
                     ratio: tuple[float, float], interp: int = 2, **kwargs: Any
                     ) -> tuple[Any, tuple[int, int, int, int]]:
    """A window of a random fraction ``area`` of the image and random aspect ratio (log-uniform in
    ``ratio``), resized to ``size``; ten tries, then :func:`center_crop`."""
    if "min_area" in kwargs:
        area = kwargs.pop("min_area")
    if kwargs:
        raise TypeError(f"random_size_crop() got unexpected keyword arguments {sorted(kwargs)}")
    h, w = src.shape[0], src.shape[1]
    if isinstance(area, numbers.Number):
        area = (area, 1.0)
    for _ in range(10):
        target = random.uniform(area[0], area[1]) * h * w
        new_ratio = math.exp(random.uniform(math.log(ratio[0]), math.log(ratio[1])))
        new_w = int(round(math.sqrt(target * new_ratio)))
        new_h = int(round(math.sqrt(target / new_ratio)))
        if new_w <= w and new_h <= h:
            x0 = random.randint(0, w - new_w)
            y0 = random.randint(0, h - new_h)
            return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)


_BORDERS = {0: "constant", 1: "edge", 2: "symmetric", 3: "wrap", 4: "reflect"}


def copyMakeBorder(src: Any, top: int, bot: int, left: int, right: int, type: int = 0, value: float = 0.0,
                   values: Any = None) -> Any:
    """Pad an HWC image: ``type`` 0 constant (``value``, or per-channel ``values``), 1 replicate,
    2 reflect, 3 wrap, 4 reflect-101 (OpenCV's border codes)."""
    type = type & ~16  # OpenCV's BORDER_ISOLATED flag changes nothing for a whole image
    if type not in _BORDERS:
        raise ValueError(f"copyMakeBorder: type={type} is not one of {sorted(_BORDERS)} (OpenCV's codes)")
    arr = onp.asarray(src)
    widths = [(top, bot), (left, right)] + [(0, 0)] * (arr.ndim - 2)
    if type != 0:
        return _like(src, onp.pad(arr, widths, mode=_BORDERS[type]))
    if values is not None and arr.ndim == 3:
        fill = onp.asarray(values, arr.dtype).reshape(-1)
        chans = [onp.pad(arr[..., c], widths[:2], constant_values=fill[c % len(fill)])
                 for c in range(arr.shape[2])]
        return _like(src, onp.stack(chans, axis=-1))
    return _like(src, onp.pad(arr, widths, constant_values=value))


def imrotate(src: Any, rotation_degrees: Any, zoom_in: bool = False, zoom_out: bool = False) -> Any:
    """Rotate float32 CHW images (or an NCHW batch, with one angle or one per image) counter-clockwise
    about their centre by bilinear sampling (zeros outside), as MXNet's ``BilinearSampler`` does;
    ``zoom_in`` scales so no border shows, ``zoom_out`` so the whole image stays inside. Computed on
    the host; a ``jax.Array`` input gives a ``jax.Array``."""
    if zoom_in and zoom_out:
        raise ValueError("imrotate: zoom_in and zoom_out cannot both be True")
    x = onp.asarray(src)
    if x.dtype != onp.float32:
        raise TypeError(f"imrotate: only float32 images are supported, got {x.dtype}; cast first")
    single = x.ndim == 3
    if single:
        if not isinstance(rotation_degrees, numbers.Number):
            raise TypeError("imrotate: one image takes one (scalar) angle")
        x = x[None]
    elif x.ndim != 4:
        raise ValueError(f"imrotate: expected CHW or NCHW, got shape {x.shape}")
    angles = onp.broadcast_to(onp.asarray(rotation_degrees, onp.float32), (x.shape[0],))
    n, c, h, w = x.shape
    rad = (angles * onp.float32(math.pi / 180.0))[:, None, None]
    hs, ws = onp.float32((h - 1) / 2.0), onp.float32((w - 1) / 2.0)
    yy = onp.arange(h, dtype=onp.float32)[:, None] - hs
    xx = onp.arange(w, dtype=onp.float32)[None, :] - ws
    gx = (xx * onp.cos(rad) - yy * onp.sin(rad)) / ws
    gy = (xx * onp.sin(rad) + yy * onp.cos(rad)) / hs
    if zoom_in or zoom_out:
        rho, base = math.hypot(h, w), math.atan(h / w)
        a = onp.abs(rad)
        max_x = onp.maximum(onp.abs(rho * onp.cos(base + a)), onp.abs(rho * onp.cos(base - a)))
        max_y = onp.maximum(onp.abs(rho * onp.sin(base + a)), onp.abs(rho * onp.sin(base - a)))
        scale = onp.maximum(max_x / w, max_y / h) if zoom_out else onp.minimum(w / max_x, h / max_y)
        gx, gy = gx * scale, gy * scale
    out = _bilinear_sample(x, (gx + 1) * (w - 1) / 2, (gy + 1) * (h - 1) / 2).astype(onp.float32)
    return _like(src, out[0] if single else out)


def _bilinear_sample(x: onp.ndarray, px: onp.ndarray, py: onp.ndarray) -> onp.ndarray:
    """Sample NCHW ``x`` at pixel coordinates (N, H, W); zero outside (MXNet's BilinearSampler)."""
    n, c, h, w = x.shape
    x0, y0 = onp.floor(px), onp.floor(py)
    out = onp.zeros((n, c) + px.shape[1:], onp.float64)
    flat = x.reshape(n, c, h * w)
    for dx in (0, 1):
        for dy in (0, 1):
            xi, yi = x0 + dx, y0 + dy
            wgt = (1 - onp.abs(px - xi)) * (1 - onp.abs(py - yi))
            ok = (xi >= 0) & (xi <= w - 1) & (yi >= 0) & (yi <= h - 1)
            pos = (onp.clip(yi, 0, h - 1) * w + onp.clip(xi, 0, w - 1)).astype(onp.int64).reshape(n, 1, -1)
            vals = onp.take_along_axis(flat, onp.broadcast_to(pos, (n, c, pos.shape[2])), axis=2)
            out += vals.reshape(out.shape) * onp.where(ok, wgt, 0.0)[:, None]
    return out


def random_rotate(src: Any, angle_limits: tuple[float, float], zoom_in: bool = False,
                  zoom_out: bool = False) -> Any:
    """:func:`imrotate` by an angle drawn uniformly from ``angle_limits`` (one per image of a batch),
    from NumPy's global generator as MXNet does."""
    n = None if onp.ndim(src) == 3 else src.shape[0]
    angles = onp.random.uniform(*angle_limits, size=n)
    return imrotate(src, float(angles) if n is None else angles, zoom_in=zoom_in, zoom_out=zoom_out)
