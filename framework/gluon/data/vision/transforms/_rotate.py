"""``Rotate``, ``RandomRotation`` and ``RandomApply``: MXNet's transforms that draw from Python's
``random`` / NumPy's global generator in MXNet's order (so the same seeds give MXNet's choices).
Rotations take float32 CHW images (after ``ToTensor``), as MXNet's do.

>>> import numpy as onp
>>> out = Rotate(90)(onp.ones((1, 3, 3), onp.float32))
>>> out.shape, float(out[0, 1, 1])
((1, 3, 3), 1.0)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as onp

from ._base import Transform

__all__ = ["Rotate", "RandomRotation", "RandomApply"]


def _float32(x: Any, who: str) -> None:
    if onp.dtype(x.dtype) != onp.float32:
        raise TypeError(f"{who}: only float32 images are supported, got {x.dtype}; apply it after ToTensor")


class Rotate(Transform):
    """Rotate a CHW (or NCHW) float32 image by ``rotation_degrees`` counter-clockwise (zeros outside);
    ``zoom_in``/``zoom_out`` as :func:`framework.image.imrotate`."""

    def __init__(self, rotation_degrees: float, zoom_in: bool = False, zoom_out: bool = False) -> None:
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def __call__(self, x: Any) -> Any:
        from .....image import imrotate

        _float32(x, "Rotate")
        return imrotate(x, *self._args)


class RandomRotation(Transform):
    """With probability ``rotate_with_proba``, rotate by an angle drawn uniformly from ``angle_limits``."""

    def __init__(
        self,
        angle_limits: tuple[float, float],
        zoom_in: bool = False,
        zoom_out: bool = False,
        rotate_with_proba: float = 1.0,
    ) -> None:
        lower, upper = angle_limits
        if lower >= upper:
            raise ValueError(
                f"RandomRotation: angle_limits={tuple(angle_limits)} must be (lower, upper) "
                "with lower < upper"
            )
        if not 0 <= rotate_with_proba <= 1:
            raise ValueError(f"RandomRotation: rotate_with_proba={rotate_with_proba} must be in [0, 1]")
        self._args = (angle_limits, zoom_in, zoom_out)
        self._proba = rotate_with_proba

    def __call__(self, x: Any) -> Any:
        from .....image import random_rotate

        if onp.random.random() > self._proba:
            return x
        _float32(x, "RandomRotation")
        return random_rotate(x, *self._args)


class RandomApply(Transform):
    """Apply ``transforms`` with probability ``p`` (else return the input)."""

    def __init__(self, transforms: Callable[[Any], Any], p: float = 0.5) -> None:
        self.transforms, self.p = transforms, p

    def __call__(self, x: Any) -> Any:
        if self.p < random.random():
            return x
        return self.transforms(x)
