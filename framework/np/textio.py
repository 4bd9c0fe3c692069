"""MXNet's ``np.genfromtxt``: NumPy reads the text, the result is an array (float32 for float data,
JAX's 64-bit types being off).

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

__all__ = ["genfromtxt"]


def genfromtxt(*args: Any, **kwargs: Any) -> Any:
    """``numpy.genfromtxt`` read into an array."""
    return jnp.asarray(onp.genfromtxt(*args, **kwargs))
