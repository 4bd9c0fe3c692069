"""MXNet's ``mx.image``: decoding, resizing, cropping and rotating HWC images (NumPy or ``jax.Array``),
the augmenters (``CreateAugmenter``, ``*Aug``), ``ImageIter``, and detection's augmenters and
``ImageDetIter``. See :mod:`framework.image.image` for interpolation codes and randomness.

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

from ..util import is_np_array as is_np_array
from . import detection, image
from ._budget import get_max_pixels, set_max_pixels
from .augmenters import (
    Augmenter,
    BrightnessJitterAug,
    CastAug,
    CenterCropAug,
    ColorJitterAug,
    ColorNormalizeAug,
    ContrastJitterAug,
    CreateAugmenter,
    ForceResizeAug,
    HorizontalFlipAug,
    HueJitterAug,
    LightingAug,
    RandomCropAug,
    RandomGrayAug,
    RandomOrderAug,
    RandomSizedCropAug,
    ResizeAug,
    SaturationJitterAug,
    SequentialAug,
)
from .detection import (
    CreateDetAugmenter,
    CreateMultiRandCropAugmenter,
    DetAugmenter,
    DetBorrowAug,
    DetHorizontalFlipAug,
    DetRandomCropAug,
    DetRandomPadAug,
    DetRandomSelectAug,
    ImageDetIter,
)
from .image import (
    center_crop,
    color_normalize,
    copyMakeBorder,
    fixed_crop,
    imdecode,
    imread,
    imresize,
    imrotate,
    random_crop,
    random_rotate,
    random_size_crop,
    resize_short,
    scale_down,
)
from .image_iter import ImageIter

det = detection

__all__ = [
    "set_max_pixels",
    "get_max_pixels",
    "imdecode",
    "imread",
    "imresize",
    "resize_short",
    "center_crop",
    "fixed_crop",
    "scale_down",
    "color_normalize",
    "random_crop",
    "random_size_crop",
    "copyMakeBorder",
    "imrotate",
    "random_rotate",
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
    "ImageIter",
    "DetAugmenter",
    "DetBorrowAug",
    "DetRandomSelectAug",
    "DetHorizontalFlipAug",
    "DetRandomCropAug",
    "DetRandomPadAug",
    "CreateMultiRandCropAugmenter",
    "CreateDetAugmenter",
    "ImageDetIter",
    "image",
    "detection",
    "det",
]
