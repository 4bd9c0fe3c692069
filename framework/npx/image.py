"""``npx.image``: MXNet 2.0's image operators on arrays (``to_tensor``, ``normalize``, ``resize``,
``crop``, flips, colour jitter: :mod:`framework.npx.image_ops`, recorded under ``autograd.record()``),
and, as in MXNet 1.9.1 where ``npx.image`` is ``mx.image``, the names of :mod:`framework.image`.

>>> from framework import npx
>>> npx.image.to_tensor(npx.image.flip_left_right(__import__('jax').numpy.ones((2, 2, 3)))).shape
(3, 2, 2)
"""

from __future__ import annotations

from typing import Any

from .. import image as _image
from ..nd import image as _nd_image

__all__ = sorted(set(_nd_image.__all__) | {n for n in dir(_image) if not n.startswith("_")})


def __getattr__(name: str) -> Any:
    if name in _nd_image.__all__:
        return getattr(_nd_image, name)
    if not name.startswith("_") and hasattr(_image, name):
        return getattr(_image, name)
    raise AttributeError(f"framework.npx.image has no attribute {name!r}")


def __dir__() -> list[str]:
    return list(__all__)
