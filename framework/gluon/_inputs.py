"""Checks of what a Block is called with, made before anything runs, with the fix in the message.

Two mistakes otherwise fail deep inside a JAX primitive: a Python list of numbers passed where an array
is expected, and raw ``uint8`` images (what datasets return) fed to a layer with floating-point
weights. Both are cheap to recognise: the check looks at each positional argument once.

>>> from framework import gluon, np
>>> layer = gluon.nn.Dense(2, in_units=3); layer.initialize()
>>> layer([[1.0, 2.0, 3.0]])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: Dense: input 0 is a Python list; a Block takes arrays ... e.g. np.array([[1.0, 2.0, 3.0]])
"""

from __future__ import annotations

from typing import Any

import numpy as onp

__all__ = ["check_inputs"]

_UINT8 = onp.dtype(onp.uint8)


def _holds_scalars(seq: list | tuple) -> bool:
    """True when the (nested) sequence has a Python number or bool among its leaves."""
    for item in seq:
        if isinstance(item, (bool, int, float, complex)):
            return True
        if isinstance(item, (list, tuple)) and _holds_scalars(item):
            return True
    return False


def _shown(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + " ...]"


def _takes_integers(block: Any) -> bool:
    return bool(getattr(block, "_integer_inputs", False))  # Embedding: indices, not values


def _owns_float_weights(block: Any) -> bool:
    for p in block._reg_params.values():
        dtype = getattr(p, "dtype", None)
        if p is not None and dtype is not None and onp.dtype(dtype).kind == "f":
            return True
    return False


def check_inputs(block: Any, args: tuple) -> None:
    """Raise a clear error for a Python list of numbers, or ``uint8`` data into a float layer."""
    for i, a in enumerate(args):
        if isinstance(a, (list, tuple)):
            if _holds_scalars(a):
                kind = type(a).__name__
                raise ValueError(
                    f"{type(block).__name__}: input {i} is a Python {kind}; a Block takes arrays "
                    f"(jax.Array or numpy.ndarray). Convert it first, e.g. np.array({_shown(a)})")
            continue
        dtype = getattr(a, "dtype", None)
        if dtype is not None and dtype == _UINT8 and block._reg_params and _owns_float_weights(block) \
                and not _takes_integers(block):
            shape = tuple(getattr(a, "shape", ()))
            raise TypeError(
                f"{type(block).__name__}: input {i} is uint8 with shape {shape}, but this layer's weights "
                "are floating point. Images from a dataset are uint8 (H, W, C) in [0, 255]: convert them "
                "with gluon.data.vision.transforms.ToTensor() (float32 (C, H, W) in [0, 1]), e.g. "
                "dataset.transform_first(ToTensor()), or cast with x.astype('float32')")
