"""MXNet's ``np`` interface over :mod:`jax.numpy`.

Every ``jax.numpy`` function is reachable here. Creation functions take MXNet's ``ctx=`` or MXNet 2.0's
``device=`` and return arrays committed to that device; like MXNet they default to float32. Arrays are
plain :class:`jax.Array` values.

>>> from framework import np, npx
>>> x = np.ones((3, 4), ctx=npx.cpu())
>>> x.dtype, x.shape
(dtype('float32'), (3, 4))
>>> float((x + np.arange(4)).sum())
30.0
"""

from __future__ import annotations

import jax.numpy as _jnp

from . import linalg, random
from .compat import *  # noqa: F403  (NumPy names jax.numpy dropped)
from .compat import __all__ as _compat_all
from .creation import (
    arange,
    array,
    asarray,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    identity,
    linspace,
    logspace,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from .dispatch import recordable as _recordable
from .eager import clip, maximum, minimum
from .eager import functions as _eager_functions
from .joining import concatenate, stack
from .selection import argwhere, extract, flatnonzero, nonzero, unique
from .textio import genfromtxt, min_scalar_type

ndarray = _jnp.ndarray
newaxis = None
pi = _jnp.pi
e = _jnp.e
inf = _jnp.inf
nan = _jnp.nan

__all__ = [
    "linalg",
    "random",
    "arange",
    "array",
    "asarray",
    "empty",
    "empty_like",
    "eye",
    "full",
    "full_like",
    "identity",
    "linspace",
    "logspace",
    "ones",
    "ones_like",
    "zeros",
    "zeros_like",
    "ndarray",
    "stack",
    "concatenate",
    "nonzero",
    "flatnonzero",
    "argwhere",
    "extract",
    "unique",
    "maximum",
    "minimum",
    "clip",
    "genfromtxt",
    "min_scalar_type",
    *_compat_all,
]


def _make_recordable() -> None:
    eager = _eager_functions()
    globals().update(eager)
    for _name in (*_compat_all, "nonzero", "flatnonzero", "argwhere", "extract", "unique", "maximum",
                  "minimum", "clip", *eager):
        if callable(globals()[_name]):
            globals()[_name] = _recordable(globals()[_name])


_make_recordable()


def __getattr__(name: str):
    """Any other ``jax.numpy`` name; functions are made aware of autograd recording."""
    try:
        value = getattr(_jnp, name)
    except AttributeError:
        raise AttributeError(
            f"framework.np has no attribute {name!r} (neither has jax.numpy)"
        ) from None
    if callable(value) and not isinstance(value, type):
        value = _recordable(value)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(dir(_jnp)))
