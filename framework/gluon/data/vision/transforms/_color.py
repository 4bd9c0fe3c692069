"""Random colour transforms on HWC RGB images, as MXNet's ``image.random_*`` operators.

Arithmetic is float32; integer images are saturated back to their type (clipped, then truncated, as
MXNet's ``saturate_cast``; hue rounds). A rank-4 input is a batch: each image gets its own draw.

>>> import numpy as onp
>>> from framework import np
>>> img = onp.full((2, 2, 3), 100, onp.uint8)
>>> np.random.seed(0)
>>> out = RandomColorJitter(brightness=0.5, contrast=0.5, saturation=0.5, hue=0.1)(img)
>>> out.shape, out.dtype.name
((2, 2, 3), 'uint8')
"""

from __future__ import annotations

from typing import Any

import numpy as onp

from ..._rng import host_rng
from ._base import Transform, as_image

__all__ = ["RandomBrightness", "RandomContrast", "RandomSaturation", "RandomHue", "RandomColorJitter",
           "RandomLighting", "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue",
           "adjust_lighting"]

_LUMA = onp.array([0.299, 0.587, 0.114], onp.float32)
_EIG = onp.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                  [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                  [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]], onp.float32)


def _saturate(x: onp.ndarray, dtype: onp.dtype, rounding: bool = False) -> onp.ndarray:
    if dtype.kind in "iu":
        info = onp.iinfo(dtype)
        return onp.clip(onp.rint(x) if rounding else x, info.min, info.max).astype(dtype)
    return x.astype(dtype, copy=False)


def _gray(x: onp.ndarray) -> onp.ndarray:
    """Per-pixel luminance (H, W, 1) of a float RGB image; a single channel is its own gray."""
    if x.shape[-1] == 1:
        return x
    return (x[..., :3] * _LUMA).sum(axis=-1, keepdims=True)


def adjust_brightness(img: onp.ndarray, alpha: float) -> onp.ndarray:
    """``img * alpha``."""
    return _saturate(img.astype(onp.float32) * onp.float32(alpha), img.dtype)


def adjust_contrast(img: onp.ndarray, alpha: float) -> onp.ndarray:
    """Blend with the image's mean luminance: ``img * alpha + (1 - alpha) * mean_gray``."""
    x = img.astype(onp.float32)
    beta = (1 - onp.float32(alpha)) * _gray(x).mean(dtype=onp.float32)
    return _saturate(x * onp.float32(alpha) + beta, img.dtype)


def adjust_saturation(img: onp.ndarray, alpha: float) -> onp.ndarray:
    """Blend each pixel with its luminance: ``img * alpha + (1 - alpha) * gray``.

    (MXNet 1.9's kernel takes only the blue term of the luminance, a bug not copied here.)
    """
    if img.shape[-1] == 1:
        return img.copy()
    x = img.astype(onp.float32)
    return _saturate(x * onp.float32(alpha) + _gray(x) * (1 - onp.float32(alpha)), img.dtype)


def adjust_hue(img: onp.ndarray, alpha: float) -> onp.ndarray:
    """Rotate the hue by ``alpha * 360`` degrees in HLS space (lightness and saturation kept).

    Integer results are rounded (MXNet truncates, which turns the round trip's float error into a
    systematic -1).
    """
    if img.shape[-1] == 1:
        return img.copy()
    x = img.astype(onp.float32) / onp.float32(255)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    vmax, vmin = x.max(axis=-1), x.min(axis=-1)
    diff = vmax - vmin
    light = (vmax + vmin) * 0.5
    sat = onp.where(light < 0.5, diff / onp.maximum(vmax + vmin, 1e-12),
                    diff / onp.maximum(2.0 - vmax - vmin, 1e-12))
    safe = onp.maximum(diff, 1e-12)
    hue = onp.where(vmax == r, (g - b) * 60 / safe,
                    onp.where(vmax == g, (b - r) * 60 / safe + 120, (r - g) * 60 / safe + 240))
    chroma = diff > onp.finfo(onp.float32).eps
    hue = onp.where(chroma, hue, 0.0) + onp.float32(alpha * 360)
    sat = onp.where(chroma, sat, 0.0)
    a = sat * onp.minimum(light, 1 - light)
    out = onp.empty_like(x)
    for c, n in enumerate((0, 8, 4)):  # the closed form of HLS -> RGB for R, G, B
        k = (n + hue / 30) % 12
        out[..., c] = light - a * onp.clip(onp.minimum(k - 3, 9 - k), -1, 1)
    return _saturate(out * onp.float32(255), img.dtype, rounding=True)


def adjust_lighting(img: onp.ndarray, alpha: Any) -> onp.ndarray:
    """AlexNet's PCA lighting: add ``eigvec * eigval @ alpha`` (alpha for R, G, B) to every pixel."""
    if img.shape[-1] == 1:
        return img.copy()
    pca = _EIG @ onp.asarray(alpha, onp.float32)
    return _saturate(img.astype(onp.float32) + pca, img.dtype)


class _RandomPerImage(Transform):
    """Applies ``self._one(image, rng)`` to an image, or to each image of a batch."""

    def forward(self, x: Any) -> onp.ndarray:
        x = as_image(x, type(self).__name__)
        rng = host_rng()
        if x.ndim == 3:
            return self._one(x, rng)
        return onp.stack([self._one(img, rng) for img in x])

    def _one(self, img: onp.ndarray, rng: onp.random.Generator) -> onp.ndarray:
        raise NotImplementedError


def _factor_range(value: float, who: str) -> tuple[float, float]:
    if value < 0:
        raise ValueError(f"{who}: the jitter amount must be non-negative, got {value!r}.")
    return max(0.0, 1.0 - value), 1.0 + value


class RandomBrightness(_RandomPerImage):
    """Scale the brightness by a factor drawn from [max(0, 1 - brightness), 1 + brightness]."""

    def __init__(self, brightness: float) -> None:
        self._args = _factor_range(brightness, "RandomBrightness")

    def _one(self, img: onp.ndarray, rng: onp.random.Generator) -> onp.ndarray:
        return adjust_brightness(img, rng.uniform(*self._args))


class RandomContrast(_RandomPerImage):
    """Scale the contrast by a factor drawn from [max(0, 1 - contrast), 1 + contrast]."""

    def __init__(self, contrast: float) -> None:
        self._args = _factor_range(contrast, "RandomContrast")

    def _one(self, img: onp.ndarray, rng: onp.random.Generator) -> onp.ndarray:
        return adjust_contrast(img, rng.uniform(*self._args))


class RandomSaturation(_RandomPerImage):
    """Scale the saturation by a factor drawn from [max(0, 1 - saturation), 1 + saturation]."""

    def __init__(self, saturation: float) -> None:
        self._args = _factor_range(saturation, "RandomSaturation")

    def _one(self, img: onp.ndarray, rng: onp.random.Generator) -> onp.ndarray:
        return adjust_saturation(img, rng.uniform(*self._args))


class RandomHue(_RandomPerImage):
    """Rotate the hue by ``alpha * 360`` degrees, alpha drawn from [-hue, hue]."""

    def __init__(self, hue: float) -> None:
        if hue < 0:
            raise ValueError(f"RandomHue: the jitter amount must be non-negative, got {hue!r}.")
        self._hue = float(hue)

    def _one(self, img: onp.ndarray, rng: onp.random.Generator) -> onp.ndarray:
        return adjust_hue(img, rng.uniform(-self._hue, self._hue))


class RandomColorJitter(_RandomPerImage):
    """Brightness, contrast, saturation and hue jitter, in a random order per image (as MXNet)."""

    def __init__(self, brightness: float = 0, contrast: float = 0, saturation: float = 0,
                 hue: float = 0) -> None:
        for name, v in (("brightness", brightness), ("contrast", contrast), ("saturation", saturation),
                        ("hue", hue)):
            if v < 0:
                raise ValueError(f"RandomColorJitter: {name} must be non-negative, got {v!r}.")
        self._amounts = (float(brightness), float(contrast), float(saturation), float(hue))

    def _one(self, img: onp.ndarray, rng: onp.random.Generator) -> onp.ndarray:
        b, c, s, h = self._amounts
        out = img
        for step in rng.permutation(4):
            if step == 0 and b > 0:
                out = adjust_brightness(out, 1 + rng.uniform(-b, b))
            elif step == 1 and c > 0:
                out = adjust_contrast(out, 1 + rng.uniform(-c, c))
            elif step == 2 and s > 0:
                out = adjust_saturation(out, 1 + rng.uniform(-s, s))
            elif step == 3 and h > 0:
                out = adjust_hue(out, rng.uniform(-h, h))
        return out.copy() if out is img else out


class RandomLighting(_RandomPerImage):
    """AlexNet-style PCA lighting noise with alphas drawn from N(0, ``alpha``)."""

    def __init__(self, alpha: float) -> None:
        if alpha < 0:
            raise ValueError(f"RandomLighting: alpha (the noise's std) must be non-negative, got {alpha!r}.")
        self._alpha = float(alpha)

    def _one(self, img: onp.ndarray, rng: onp.random.Generator) -> onp.ndarray:
        return adjust_lighting(img, rng.normal(0.0, self._alpha, size=3))
