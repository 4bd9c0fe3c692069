"""MXNet's ``mx.image`` basics on HWC images (NumPy or ``jax.Array``): decode, read, resize, crop,
normalise. Decoding and resizing go through Pillow (``framework.image._codec``); MXNet used OpenCV, so
resized pixels may differ by rounding, while shapes, crop boxes and channel orders follow MXNet.

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

import os
from typing import Any

import numpy as onp

from .._files import read_bytes
from ._budget import check_pixels, get_max_pixels, set_max_pixels
from ._codec import decode as _decode

__all__ = ["imdecode", "imread", "imresize", "resize_short", "center_crop", "fixed_crop", "scale_down",
           "color_normalize", "set_max_pixels", "get_max_pixels"]

_INTERP = {0: "NEAREST", 1: "BILINEAR", 2: "BOX", 3: "BICUBIC", 4: "LANCZOS"}


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
        if sizes is not None:
            oh, ow, nh, nw = sizes
            if nh > oh and nw > ow:
                return 3
            if nh < oh and nw < ow:
                return 2
        return 1
    if interp == 10:
        return 1
    if interp not in _INTERP:
        raise ValueError(f"imresize: interp={interp} is not one of 0-4, 9 (auto) or 10 (random)")
    return interp


def imresize(src: Any, w: int, h: int, interp: int = 1) -> Any:
    """Resize an HWC uint8 (or float) image to width ``w`` and height ``h``; MXNet's interp codes
    (0 nearest, 1 bilinear, 2 area, 3 bicubic, 4 lanczos, 9 auto)."""
    from PIL import Image

    arr = onp.asarray(src)
    if arr.ndim not in (2, 3):
        raise ValueError(f"imresize: expected an (H, W, C) image, got shape {arr.shape}")
    if w <= 0 or h <= 0:
        raise ValueError(f"imresize: target size w={w}, h={h} must be positive")
    check_pixels(w, h, "imresize")
    method = getattr(Image.Resampling, _INTERP[_interp(interp, (arr.shape[0], arr.shape[1], h, w))])
    chans = [arr] if arr.ndim == 2 else [arr[:, :, c] for c in range(arr.shape[2])]
    dtype = arr.dtype
    outs = []
    for ch in chans:
        pil = Image.fromarray(ch if dtype == onp.uint8 else ch.astype(onp.float32))
        outs.append(onp.asarray(pil.resize((int(w), int(h)), method)).astype(dtype))
    out = outs[0] if arr.ndim == 2 else onp.stack(outs, axis=-1)
    return _like(src, out)


def _like(src: Any, out: onp.ndarray) -> Any:
    if isinstance(src, onp.ndarray):
        return out
    import jax.numpy as jnp

    return jnp.asarray(out)


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
