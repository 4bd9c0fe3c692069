"""MXNet's NumPy-fallback functions: ``np.genfromtxt`` (NumPy reads the text, the result is an array:
float32 for float data, JAX's 64-bit types being off) and ``np.min_scalar_type``.

>>> import io
>>> from framework import np
>>> a = np.genfromtxt(io.StringIO("1\\t2.5\\n3\\t4\\n"), dtype=np.float32, delimiter="\\t")
>>> a.dtype, a.tolist()
(dtype('float32'), [[1.0, 2.5], [3.0, 4.0]])
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as onp

__all__ = ["genfromtxt", "min_scalar_type"]


def genfromtxt(*args: Any, **kwargs: Any) -> Any:
    """``numpy.genfromtxt`` read into an array."""
    return jnp.asarray(onp.genfromtxt(*args, **kwargs))


def min_scalar_type(a: Any) -> onp.dtype:
    """``numpy.min_scalar_type``: the smallest dtype that holds the value ``a`` (a scalar or array,
    whose dtype is returned as it is for non-scalars).

    >>> from framework import np
    >>> np.min_scalar_type(10), np.min_scalar_type(-260), np.min_scalar_type(np.ones(2))
    (dtype('uint8'), dtype('int16'), dtype('float32'))
    """
    return onp.min_scalar_type(onp.asarray(a))
