"""Image operations in numpy on HWC images (or NHWC batches): resize, crop, and MXNet's crop helpers.

Resizing is OpenCV's (``framework.image._resize``, what MXNet calls): codes 0 nearest, 1 bilinear,
2 bicubic, 3 area, 4 Lanczos-4, with its arithmetic (uint8 in its fixed point), so a batch gives exactly
the values of its images one by one.

>>> import numpy as onp
>>> img = onp.arange(16, dtype=onp.uint8).reshape(4, 4, 1) * 10
>>> resize(img, 2, 2, 1)[..., 0]
array([[ 25,  45],
       [105, 125]], dtype=uint8)
>>> scale_down((640, 480), (720, 720))
(480, 480)
"""

from __future__ import annotations

import numpy as onp

from .....image import _resize
from ..._rng import host_rng

__all__ = ["resize", "crop", "scale_down", "fixed_crop", "center_crop", "resolve_interp", "INTERPOLATIONS"]

INTERPOLATIONS = {0: "nearest", 1: "bilinear", 2: "bicubic", 3: "area", 4: "lanczos"}  # OpenCV's codes


def resolve_interp(interp: int, sizes: tuple[int, int, int, int],
                   rng: onp.random.Generator | None = None) -> int:
    """MXNet's interpolation codes: 0-4 as they are; 9 = area to shrink, bicubic to enlarge (bilinear
    when mixed); 10 = one of 0-4 at random. ``sizes`` is (old_h, old_w, new_h, new_w)."""
    if interp == 9:
        oh, ow, nh, nw = sizes
        if nh > oh and nw > ow:
            return 2
        if nh < oh and nw < ow:
            return 3
        return 1
    if interp == 10:
        return int((rng or host_rng()).integers(0, 5))
    if interp not in INTERPOLATIONS:
        raise ValueError(f"interpolation={interp!r} is not supported: use 0 (nearest), 1 (bilinear), "
                         "2 (bicubic), 3 (area), 4 (lanczos), 9 (auto) or 10 (random).")
    return interp


def resize(x: onp.ndarray, w: int, h: int, interp: int = 1) -> onp.ndarray:
    """Resize an HWC image or NHWC batch to width ``w`` and height ``h``; keeps the dtype."""
    if w <= 0 or h <= 0:
        raise ValueError(f"resize: the output size must be positive, got width {w} and height {h}.")
    from .....image._budget import check_pixels

    check_pixels(w, h, "resize")
    oh, ow = x.shape[-3], x.shape[-2]
    interp = resolve_interp(interp, (oh, ow, h, w))
    if x.dtype == onp.uint8 or x.dtype.kind == "f":
        return _resize.resize(x, w, h, interp)
    out = _resize.resize(x.astype(onp.float32), w, h, interp)
    info = onp.iinfo(x.dtype)
    return onp.clip(onp.rint(out), info.min, info.max).astype(x.dtype)


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
