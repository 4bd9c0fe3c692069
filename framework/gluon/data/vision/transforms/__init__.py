"""``gluon.data.vision.transforms``: MXNet's image transforms as host-side numpy callables.

Images are HWC uint8 (as the vision datasets give them); :class:`ToTensor` makes CHW float32 in
[0, 1] and :class:`Normalize` works on CHW. Transforms that treat every sample alike (ToTensor,
Normalize, Cast, Resize, CenterCrop, CropResize, and a Compose of them) also run on whole batches,
which the DataLoader uses for ``dataset.transform_first(...)``. Random ones draw from
:func:`framework.gluon.data.host_rng`, so ``framework.np.random.seed`` makes them reproducible.

>>> import numpy as onp
>>> t = Compose([Resize(32), RandomFlipLeftRight(), ToTensor(), Normalize(0.13, 0.31)])
>>> t(onp.zeros((28, 28, 1), onp.uint8)).shape
(1, 32, 32)
"""

from __future__ import annotations

from ._base import BatchSafeTransform, Cast, Compose, Normalize, ToTensor, Transform
from ._color import (
    RandomBrightness,
    RandomColorJitter,
    RandomContrast,
    RandomHue,
    RandomLighting,
    RandomSaturation,
)
from ._geometry import (
    CenterCrop,
    CropResize,
    RandomCrop,
    RandomFlipLeftRight,
    RandomFlipTopBottom,
    RandomResizedCrop,
    Resize,
)
from ._rotate import RandomApply, RandomRotation, Rotate

__all__ = [
    "Transform", "BatchSafeTransform", "Compose", "Cast", "ToTensor", "Normalize", "Resize", "CenterCrop",
    "CropResize", "RandomResizedCrop", "RandomCrop", "RandomFlipLeftRight", "RandomFlipTopBottom",
    "RandomBrightness", "RandomContrast", "RandomSaturation", "RandomHue", "RandomColorJitter",
    "RandomLighting",
    "Rotate", "RandomRotation", "RandomApply",
]


def __getattr__(name: str):
    """MXNet's transforms module also offers the Block classes and ``is_np_array`` it imports."""
    if name in ("Block", "HybridBlock"):
        from .... import block

        return getattr(block, name)
    if name in ("Sequential", "HybridSequential"):
        from .... import nn

        return getattr(nn, name)
    if name == "is_np_array":
        from .....util import is_np_array

        return is_np_array
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
