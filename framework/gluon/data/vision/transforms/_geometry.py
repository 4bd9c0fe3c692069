"""Geometric transforms on HWC images: resizes, crops and flips (MXNet's signatures and conventions).

Sizes are ``(width, height)`` as in MXNet; an int means a square. Random ones draw from
:func:`framework.gluon.data.host_rng` (per batch inside a DataLoader, from the framework key stream
otherwise).

>>> import numpy as onp
>>> img = onp.zeros((40, 60, 3), onp.uint8)
>>> Resize(20, keep_ratio=True)(img).shape
(20, 30, 3)
>>> CenterCrop((30, 10))(img).shape
(10, 30, 3)
>>> RandomResizedCrop(16)(img).shape
(16, 16, 3)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as onp

from ..._rng import host_rng
from ._base import BatchSafeTransform, Transform, as_image
from ._image import center_crop, crop, fixed_crop, resize, scale_down

__all__ = ["Resize", "CenterCrop", "CropResize", "RandomResizedCrop", "RandomCrop", "RandomFlipLeftRight",
           "RandomFlipTopBottom"]


def _wh(size: Any, who: str) -> tuple[int, int]:
    if isinstance(size, int | onp.integer) and not isinstance(size, bool):
        pair = (int(size), int(size))
    elif isinstance(size, Sequence) and len(size) == 2:
        pair = (int(size[0]), int(size[1]))
    else:
        raise ValueError(f"{who}: size must be an int or a (width, height) pair, got {size!r}.")
    if min(pair) <= 0:
        raise ValueError(f"{who}: size must be positive, got {size!r}.")
    return pair


class Resize(BatchSafeTransform):
    """Resize to ``size`` = (width, height), or an int: a square, or with ``keep_ratio`` the shorter side.

    ``interpolation`` (OpenCV's codes): 0 nearest, 1 bilinear (default), 2 bicubic, 3 area, 4 Lanczos,
    9 auto, 10 random.

    >>> Resize((8, 4))(onp.zeros((2, 2, 1), 'uint8')).shape
    (4, 8, 1)
    """

    def __init__(self, size: int | tuple[int, int], keep_ratio: bool = False, interpolation: int = 1) -> None:
        _wh(size, "Resize")
        self._size = size
        self._keep = keep_ratio
        self._interpolation = interpolation

    def _apply(self, x: onp.ndarray, owned: bool) -> onp.ndarray:
        x = as_image(x, "Resize")
        h, w = x.shape[-3], x.shape[-2]
        if isinstance(self._size, int | onp.integer):
            size = int(self._size)
            if not self._keep:
                ww, hh = size, size
            elif h > w:
                ww, hh = size, size * h // w
            else:
                ww, hh = size * w // h, size
        else:
            ww, hh = _wh(self._size, "Resize")
        return resize(x, ww, hh, self._interpolation)


class CenterCrop(BatchSafeTransform):
    """Crop the centre ``size`` = (width, height) (an int: a square); a smaller image is cropped to the
    size's ratio and resized up, as MXNet's ``image.center_crop``.

    >>> CenterCrop(2)(onp.arange(16).reshape(4, 4, 1))[..., 0]
    array([[ 5,  6],
           [ 9, 10]])
    """

    def __init__(self, size: int | tuple[int, int], interpolation: int = 1) -> None:
        self._size = _wh(size, "CenterCrop")
        self._interpolation = interpolation

    def _apply(self, x: onp.ndarray, owned: bool) -> onp.ndarray:
        return center_crop(as_image(x, "CenterCrop"), self._size, self._interpolation)


class CropResize(BatchSafeTransform):
    """Crop the ``width`` x ``height`` region at (``x``, ``y``), then resize it to ``size`` if given.

    >>> CropResize(1, 1, 2, 2)(onp.arange(16).reshape(4, 4, 1))[..., 0]
    array([[ 5,  6],
           [ 9, 10]])
    """

    def __init__(self, x: int, y: int, width: int, height: int, size: int | tuple[int, int] | None = None,
                 interpolation: int | None = None) -> None:
        self._args = (int(x), int(y), int(width), int(height))
        self._size = None if size is None else _wh(size, "CropResize")
        self._interpolation = 1 if interpolation is None else interpolation

    def _apply(self, x: onp.ndarray, owned: bool) -> onp.ndarray:
        out = crop(as_image(x, "CropResize"), *self._args)
        if self._size is not None:
            out = resize(out, self._size[0], self._size[1], self._interpolation)
        return out


class RandomResizedCrop(Transform):
    """Crop a random region of ``scale`` x the area and aspect ratio in ``ratio``, resized to ``size``.

    Ten tries, then the centre crop, as MXNet's ``image.random_size_crop``.
    """

    def __init__(self, size: int | tuple[int, int], scale: tuple[float, float] = (0.08, 1.0),
                 ratio: tuple[float, float] = (3.0 / 4.0, 4.0 / 3.0), interpolation: int = 1) -> None:
        self._size = _wh(size, "RandomResizedCrop")
        if not 0 < scale[0] <= scale[1]:
            raise ValueError(f"RandomResizedCrop: scale must be (min, max) with 0 < min <= max, "
                             f"got {scale!r}.")
        if not 0 < ratio[0] <= ratio[1]:
            raise ValueError(f"RandomResizedCrop: ratio must be (min, max) with 0 < min <= max, "
                             f"got {ratio!r}.")
        self._scale = (float(scale[0]), float(scale[1]))
        self._ratio = (float(ratio[0]), float(ratio[1]))
        self._interpolation = interpolation

    def forward(self, x: Any) -> onp.ndarray:
        x = as_image(x, "RandomResizedCrop", batch=False)
        h, w = x.shape[0], x.shape[1]
        rng = host_rng()
        log_ratio = (math.log(self._ratio[0]), math.log(self._ratio[1]))
        for _ in range(10):
            target_area = rng.uniform(*self._scale) * h * w
            new_ratio = math.exp(rng.uniform(*log_ratio))
            new_w = int(round(math.sqrt(target_area * new_ratio)))
            new_h = int(round(math.sqrt(target_area / new_ratio)))
            if 0 < new_w <= w and 0 < new_h <= h:
                x0 = int(rng.integers(0, w - new_w + 1))
                y0 = int(rng.integers(0, h - new_h + 1))
                return fixed_crop(x, x0, y0, new_w, new_h, self._size, self._interpolation)
        return center_crop(x, self._size, self._interpolation)


class RandomCrop(Transform):
    """Pad by ``pad`` (an int for every side of H and W, or numpy.pad widths) with ``pad_value``, then
    crop a random ``size`` region (resized to ``size`` when the image is smaller).

    >>> RandomCrop(28, pad=4)(onp.zeros((28, 28, 1), 'uint8')).shape
    (28, 28, 1)
    """

    def __init__(self, size: int | tuple[int, int], pad: Any = None, pad_value: float = 0,
                 interpolation: int = 1) -> None:
        self._size = _wh(size, "RandomCrop")
        self._pad = ((pad, pad), (pad, pad), (0, 0)) if isinstance(pad, int) else pad
        self._pad_value = pad_value
        self._interpolation = interpolation

    def forward(self, x: Any) -> onp.ndarray:
        x = as_image(x, "RandomCrop", batch=False)
        if self._pad:
            x = onp.pad(x, self._pad, mode="constant", constant_values=self._pad_value)
        h, w = x.shape[0], x.shape[1]
        new_w, new_h = scale_down((w, h), self._size)
        rng = host_rng()
        x0 = int(rng.integers(0, w - new_w + 1))
        y0 = int(rng.integers(0, h - new_h + 1))
        return fixed_crop(x, x0, y0, new_w, new_h, self._size, self._interpolation)


class _RandomFlip(Transform):
    _axis = 0

    def __init__(self, *, p: float = 0.5) -> None:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{type(self).__name__}: p must be a probability in [0, 1], got {p!r}.")
        self._p = float(p)

    def forward(self, x: Any) -> onp.ndarray:
        x = as_image(x, type(self).__name__)
        rng = host_rng()
        if x.ndim == 3:
            return onp.flip(x, axis=self._axis).copy() if rng.random() < self._p else x.copy()
        flip = rng.random(x.shape[0]) < self._p  # a batch: one draw per image
        out = x.copy()
        out[flip] = onp.flip(x[flip], axis=self._axis + 1)
        return out


class RandomFlipLeftRight(_RandomFlip):
    """Mirror the image horizontally with probability ``p`` (0.5; ``p`` is a new keyword-only option)."""

    _axis = 1


class RandomFlipTopBottom(_RandomFlip):
    """Flip the image vertically with probability ``p`` (0.5; ``p`` is a new keyword-only option)."""

    _axis = 0
