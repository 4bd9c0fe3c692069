"""NumPy names MXNet's ``np`` offers that ``jax.numpy`` dropped (older NumPy spellings and constants),
plus MXNet 2.0's dtype groups.

>>> from framework import np
>>> np.fix(np.array([-1.5, 1.5])).tolist(), bool(np.alltrue(np.ones(2)))
([-1.0, 1.0], True)
>>> np.in1d(np.array([1, 2, 3]), np.array([2])).tolist()
[False, True, False]
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

__all__ = [
    "NAN",
    "NINF",
    "NZERO",
    "NaN",
    "PINF",
    "PZERO",
    "alltrue",
    "sometrue",
    "product",
    "round_",
    "row_stack",
    "fix",
    "in1d",
    "msort",
    "trapz",
    "boolean_dtypes",
    "integer_dtypes",
    "floating_dtypes",
    "numeric_dtypes",
]

NAN = NaN = float("nan")
PINF = float("inf")
NINF = float("-inf")
PZERO = 0.0
NZERO = -0.0

boolean_dtypes = (onp.dtype("bool"),)
integer_dtypes = tuple(
    onp.dtype(t) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
)
floating_dtypes = tuple(onp.dtype(t) for t in ("float16", "float32", "float64"))
numeric_dtypes = integer_dtypes + floating_dtypes


def alltrue(a: Any, axis: Any = None, keepdims: bool = False) -> jax.Array:
    """``np.all`` (NumPy's old name)."""
    return jnp.all(a, axis=axis, keepdims=keepdims)


def sometrue(a: Any, axis: Any = None, keepdims: bool = False) -> jax.Array:
    """``np.any`` (NumPy's old name)."""
    return jnp.any(a, axis=axis, keepdims=keepdims)


def product(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> jax.Array:
    """``np.prod`` (NumPy's old name)."""
    return jnp.prod(a, axis=axis, dtype=dtype, keepdims=keepdims)


def round_(a: Any, decimals: int = 0) -> jax.Array:
    """``np.round`` (NumPy's old name)."""
    return jnp.round(a, decimals)


def row_stack(tup: Any) -> jax.Array:
    """``np.vstack`` (NumPy's old name)."""
    return jnp.vstack(tup)


def fix(x: Any) -> jax.Array:
    """Round towards zero."""
    return jnp.trunc(x)


def in1d(ar1: Any, ar2: Any, assume_unique: bool = False, invert: bool = False) -> jax.Array:
    """Whether each element of ``ar1`` (flattened) is in ``ar2``."""
    return jnp.isin(jnp.ravel(ar1), ar2, assume_unique=assume_unique, invert=invert)


def msort(a: Any) -> jax.Array:
    """Sort along the first axis."""
    return jnp.sort(a, axis=0)


def trapz(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> jax.Array:
    """The trapezoidal rule (``np.trapezoid``'s old name)."""
    return jnp.trapezoid(y, x=x, dx=dx, axis=axis)
