"""Indices the way MXNet takes them, for arrays whose own ``[]`` is JAX's.

MXNet casts a floating-point index array to integers (``x[np.array([1., 2.7])]`` is ``x[[1, 2]]``:
truncation, as ``astype(int)``), and takes a Python ``range`` or list as an index array; JAX refuses all
three. :func:`normalize_index` turns such index parts into integer arrays and leaves every other part
(ints, slices, ``None``, ``...``, boolean and integer arrays) as it is. :func:`getitem` is
``x[index]`` with that index for the framework's arrays (``jax.Array``, recorded values, Variables)
and plain ``x[index]`` for anything else; the porter writes ``npx.getitem(x, i)`` for a read whose index
may need it. :func:`nd_getitem` is MXNet 1.x's ``NDArray.__getitem__``: the same, except that a read which
would give a 0-d array gives shape ``(1,)`` (an NDArray has at least one axis: ``x[0, 1]`` of a matrix is
``[x01]``); the porter writes it for reads of values that are NDArrays by construction.

>>> from framework import np, npx
>>> x = np.arange(10)
>>> npx.getitem(x, np.array([1.0, 2.7, -1.5])).tolist()
[1.0, 2.0, 9.0]
>>> y = np.array([[0.3, 0.6, 0.1], [0.2, 0.3, 0.5]])
>>> npx.getitem(y, (range(2), np.array([0, 2]))).tolist()
[0.30000001192092896, 0.5]
>>> npx.getitem({"a": 1}, "a")
1
>>> npx.nd_getitem(y, (1, 2)).shape, npx.nd_getitem(y, 1).shape
((1,), (3,))
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as onp

from ..autograd import tape

__all__ = ["getitem", "nd_getitem", "normalize_index", "is_framework_array"]

_NUMBERS = (int, float, bool, onp.number, onp.bool_)


def is_framework_array(x: Any) -> bool:
    """A ``jax.Array``, a recorded value or a Variable."""
    return isinstance(x, (jax.Array, tape.Value))


def _part(part: Any) -> Any:
    if isinstance(part, range):
        return onp.arange(part.start, part.stop, part.step)
    if isinstance(part, list) and part and all(isinstance(p, _NUMBERS) for p in part):
        part = onp.asarray(part)
    if isinstance(part, tape.Value):
        part = tape.values_of(part)
    dtype = getattr(part, "dtype", None)
    if dtype is not None and getattr(part, "ndim", 0) >= 0 and onp.issubdtype(dtype, onp.floating):
        return part.astype(onp.int32)
    return part


def normalize_index(index: Any) -> Any:
    """``index`` with float arrays cast to integers and ranges/lists of numbers made arrays.

    >>> normalize_index((range(3), slice(None)))[0].tolist()
    [0, 1, 2]
    """
    if isinstance(index, tuple):
        return tuple(_part(p) for p in index)
    return _part(index)


def getitem(x: Any, index: Any) -> Any:
    """MXNet's ``x[index]``: see the module's description."""
    if is_framework_array(x):
        return x[normalize_index(index)]
    return x[index]


def nd_getitem(x: Any, index: Any) -> Any:
    """MXNet 1.x's ``NDArray`` read: :func:`getitem`, with a 0-d result given shape ``(1,)``."""
    out = getitem(x, index)
    if is_framework_array(x) and getattr(out, "ndim", None) == 0:
        return out.reshape((1,))
    return out
