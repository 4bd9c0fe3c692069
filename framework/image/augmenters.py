"""MXNet's image augmenters (``mx.image.*Aug``, ``CreateAugmenter``) on HWC images, NumPy or
``jax.Array`` (the result is of the same kind; an augmenter returns a new array, never changes its input).

Random choices come from Python's ``random`` module (and NumPy's global generator for
``LightingAug``), drawn in MXNet's order: after ``random.seed(s)`` (and ``numpy.random.seed(s)``) a list
of augmenters gives MXNet 1.9.1's crops, flips and jitters.

>>> import numpy as onp
>>> from framework import image
>>> augs = image.CreateAugmenter((3, 4, 4), resize=6, mean=True, std=True)
>>> [type(a).__name__ for a in augs]
['ResizeAug', 'CenterCropAug', 'CastAug', 'ColorNormalizeAug']
>>> out = onp.zeros((8, 10, 3), onp.uint8)
>>> for a in augs:
...     out = a(out)
>>> out.shape, out.dtype
((4, 4, 3), dtype('float32'))
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import numpy as onp

from .image import _interp, center_crop, imresize, random_crop, random_size_crop, resize_short

__all__ = [
    "Augmenter",
    "SequentialAug",
    "ResizeAug",
    "ForceResizeAug",
    "RandomCropAug",
    "RandomSizedCropAug",
    "CenterCropAug",
    "RandomOrderAug",
    "BrightnessJitterAug",
    "ContrastJitterAug",
    "SaturationJitterAug",
    "HueJitterAug",
    "ColorJitterAug",
    "LightingAug",
    "ColorNormalizeAug",
    "RandomGrayAug",
    "HorizontalFlipAug",
    "CastAug",
    "CreateAugmenter",
]

_GRAY = onp.asarray([0.299, 0.587, 0.114], onp.float32)


def _np_of(x: Any):
    import jax
    import jax.numpy as jnp

    return jnp if isinstance(x, jax.Array) else onp


def _plain(v: Any) -> Any:
    if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):
        return onp.asarray(v).tolist()
    return v


class Augmenter:
    """Base class: ``aug(src)`` returns the augmented image; ``dumps()`` describes it as JSON."""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = {k: _plain(v) for k, v in kwargs.items()}

    def dumps(self) -> str:
        """``[class name in lower case, its arguments]`` as JSON."""
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, src: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __call__")


class SequentialAug(Augmenter):
    """Apply ``ts`` in order."""

    def __init__(self, ts: Sequence[Augmenter]) -> None:
        super().__init__()
        self.ts = list(ts)

    def dumps(self):
        return [type(self).__name__.lower(), [t.dumps() for t in self.ts]]

    def __call__(self, src):
        for t in self.ts:
            src = t(src)
        return src


class RandomOrderAug(SequentialAug):
    """Apply ``ts`` in a random order (``random.shuffle`` of the list, as MXNet)."""

    def __call__(self, src):
        random.shuffle(self.ts)
        return super().__call__(src)


class ResizeAug(Augmenter):
    """Resize the shorter edge to ``size``."""

    def __init__(self, size: int, interp: int = 2) -> None:
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(Augmenter):
    """Resize to ``size`` (w, h), ignoring the aspect ratio."""

    def __init__(self, size: tuple[int, int], interp: int = 2) -> None:
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        sizes = (src.shape[0], src.shape[1], self.size[1], self.size[0])
        return imresize(src, *self.size, interp=_interp(self.interp, sizes))


class RandomCropAug(Augmenter):
    """A random ``size`` (w, h) window (:func:`framework.image.random_crop`)."""

    def __init__(self, size: tuple[int, int], interp: int = 2) -> None:
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """A random-area, random-ratio window resized to ``size`` (:func:`framework.image.random_size_crop`)."""

    def __init__(
        self, size: tuple[int, int], area: Any, ratio: tuple[float, float], interp: int = 2, **kwargs: Any
    ) -> None:
        if "min_area" in kwargs:
            area = kwargs.pop("min_area")
        if kwargs:
            raise TypeError(f"RandomSizedCropAug() got unexpected keyword arguments {sorted(kwargs)}")
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size, self.area, self.ratio, self.interp = size, area, ratio, interp

    def __call__(self, src):
        return random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(Augmenter):
    """The centre ``size`` (w, h) window."""

    def __init__(self, size: tuple[int, int], interp: int = 2) -> None:
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return center_crop(src, self.size, self.interp)[0]


class BrightnessJitterAug(Augmenter):
    """Multiply by ``1 + uniform(-brightness, brightness)``."""

    def __init__(self, brightness: float) -> None:
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        return src * (1.0 + random.uniform(-self.brightness, self.brightness))


class ContrastJitterAug(Augmenter):
    """Blend with the image's mean gray level: ``src * a + (1 - a) * mean(gray)``."""

    def __init__(self, contrast: float) -> None:
        super().__init__(contrast=contrast)
        self.contrast = contrast

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.contrast, self.contrast)
        xp = _np_of(src)
        gray = src * xp.asarray(_GRAY)
        gray = (3.0 * (1.0 - alpha) / gray.size) * xp.sum(gray)
        return src * alpha + gray


class SaturationJitterAug(Augmenter):
    """Blend with each pixel's gray level: ``src * a + (1 - a) * gray``."""

    def __init__(self, saturation: float) -> None:
        super().__init__(saturation=saturation)
        self.saturation = saturation

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.saturation, self.saturation)
        xp = _np_of(src)
        gray = xp.sum(src * xp.asarray(_GRAY), axis=2, keepdims=True) * (1.0 - alpha)
        return src * alpha + gray


class HueJitterAug(Augmenter):
    """Rotate the hue by ``uniform(-hue, hue) * 180`` degrees in YIQ space."""

    _TYIQ = onp.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321], [0.211, -0.523, 0.311]])
    _ITYIQ = onp.array([[1.0, 0.956, 0.621], [1.0, -0.272, -0.647], [1.0, -1.107, 1.705]])

    def __init__(self, hue: float) -> None:
        super().__init__(hue=hue)
        self.hue = hue

    def __call__(self, src):
        alpha = random.uniform(-self.hue, self.hue)
        u, w = onp.cos(alpha * onp.pi), onp.sin(alpha * onp.pi)
        bt = onp.array([[1.0, 0.0, 0.0], [0.0, u, -w], [0.0, w, u]])
        t = (self._ITYIQ @ bt @ self._TYIQ).T
        xp = _np_of(src)
        return xp.dot(src, xp.asarray(t, dtype=onp.float32)).astype(src.dtype)


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitters (those > 0) in a random order."""

    def __init__(self, brightness: float, contrast: float, saturation: float) -> None:
        ts: list[Augmenter] = []
        if brightness > 0:
            ts.append(BrightnessJitterAug(brightness))
        if contrast > 0:
            ts.append(ContrastJitterAug(contrast))
        if saturation > 0:
            ts.append(SaturationJitterAug(saturation))
        super().__init__(ts)


class LightingAug(Augmenter):
    """AlexNet's PCA lighting noise: add ``eigvec @ (alpha * eigval)``, ``alpha ~ N(0, alphastd)``
    (NumPy's global generator)."""

    def __init__(self, alphastd: float, eigval: Any, eigvec: Any) -> None:
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd, self.eigval, self.eigvec = alphastd, onp.asarray(eigval), onp.asarray(eigvec)

    def __call__(self, src):
        alpha = onp.random.normal(0, self.alphastd, size=(3,))
        rgb = onp.dot(self.eigvec * alpha, self.eigval)
        return src + _np_of(src).asarray(rgb, dtype=onp.float32)


class ColorNormalizeAug(Augmenter):
    """``(src - mean) / std`` (either may be None)."""

    def __init__(self, mean: Any, std: Any) -> None:
        super().__init__(mean=mean, std=std)
        self.mean = None if mean is None else onp.asarray(mean, onp.float32)
        self.std = None if std is None else onp.asarray(std, onp.float32)

    def __call__(self, src):
        xp = _np_of(src)
        if self.mean is not None:
            src = src - xp.asarray(self.mean)
        if self.std is not None:
            src = src / xp.asarray(self.std)
        return src


class RandomGrayAug(Augmenter):
    """With probability ``p``, replace every channel by the gray level (weights 0.21, 0.72, 0.07)."""

    _MAT = onp.array([[0.21, 0.21, 0.21], [0.72, 0.72, 0.72], [0.07, 0.07, 0.07]], onp.float32)

    def __init__(self, p: float) -> None:
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if random.random() < self.p:
            xp = _np_of(src)
            src = xp.dot(src, xp.asarray(self._MAT)).astype(src.dtype)
        return src


class HorizontalFlipAug(Augmenter):
    """With probability ``p``, mirror left-right."""

    def __init__(self, p: float) -> None:
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if random.random() < self.p:
            src = src[:, ::-1]
        return src


class CastAug(Augmenter):
    """Cast to ``typ`` (float32 by default)."""

    def __init__(self, typ: str = "float32") -> None:
        super().__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        return src.astype(self.typ)


_PCA_EIGVAL = onp.array([55.46, 4.794, 1.148])
_PCA_EIGVEC = onp.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])


def CreateAugmenter(
    data_shape: Sequence[int],
    resize: int = 0,
    rand_crop: bool = False,
    rand_resize: bool = False,
    rand_mirror: bool = False,
    mean: Any = None,
    std: Any = None,
    brightness: float = 0,
    contrast: float = 0,
    saturation: float = 0,
    hue: float = 0,
    pca_noise: float = 0,
    rand_gray: float = 0,
    inter_method: int = 2,
) -> list[Augmenter]:
    """MXNet's standard augmenter list for ``data_shape`` (c, h, w): resize, crop (random, random-sized
    or centre), mirror, cast to float32, color jitter, hue, PCA lighting, gray, normalisation
    (``mean=True``/``std=True`` take ImageNet's statistics)."""
    augs: list[Augmenter] = []
    if resize > 0:
        augs.append(ResizeAug(resize, inter_method))
    crop = (data_shape[2], data_shape[1])
    if rand_resize:
        if not rand_crop:
            raise ValueError("CreateAugmenter: rand_resize=True needs rand_crop=True")
        augs.append(RandomSizedCropAug(crop, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method))
    elif rand_crop:
        augs.append(RandomCropAug(crop, inter_method))
    else:
        augs.append(CenterCropAug(crop, inter_method))
    if rand_mirror:
        augs.append(HorizontalFlipAug(0.5))
    augs.append(CastAug())
    if brightness or contrast or saturation:
        augs.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        augs.append(HueJitterAug(hue))
    if pca_noise > 0:
        augs.append(LightingAug(pca_noise, _PCA_EIGVAL, _PCA_EIGVEC))
    if rand_gray > 0:
        augs.append(RandomGrayAug(rand_gray))
    if mean is True:
        mean = onp.array([123.68, 116.28, 103.53])
    elif mean is not None and onp.shape(mean)[0] not in (1, 3):
        raise ValueError(f"CreateAugmenter: mean must hold 1 or 3 values, got shape {onp.shape(mean)}")
    if std is True:
        std = onp.array([58.395, 57.12, 57.375])
    elif std is not None and onp.shape(std)[0] not in (1, 3):
        raise ValueError(f"CreateAugmenter: std must hold 1 or 3 values, got shape {onp.shape(std)}")
    if mean is not None or std is not None:
        augs.append(ColorNormalizeAug(mean, std))
    return augs
