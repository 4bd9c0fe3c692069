"""Python numbers from arrays the way MXNet gives them: ``float(x)`` / ``int(x)`` of any array with one
element, whatever its number of axes (JAX converts only 0-d arrays). The porter writes
``npx.to_float(x)`` / ``npx.to_int(x)`` for MXNet's ``float(x)`` / ``int(x)``; for anything that is not
one of the framework's arrays they are Python's ``float`` / ``int``.

>>> from framework import np, npx
>>> npx.to_float(np.array([3.5])), npx.to_int(np.array([[-3.5]])), npx.to_int("12")
(3.5, -3, 12)
"""

from __future__ import annotations

from typing import Any

from ..autograd import tape
from ._indexing import is_framework_array

__all__ = ["to_float", "to_int"]


def _one(x: Any) -> Any:
    value = tape.values_of(x) if isinstance(x, tape.Value) else x
    if getattr(value, "size", None) == 1 and getattr(value, "ndim", 0) > 0:
        return value.reshape(())
    return value


def to_float(x: Any = 0.0) -> float:
    """MXNet's ``float(x)``: also for a one-element array of any rank."""
    return float(_one(x)) if is_framework_array(x) else float(x)


def to_int(x: Any = 0, *base: int) -> int:
    """MXNet's ``int(x)``: also for a one-element array of any rank (truncated toward zero)."""
    return int(_one(x)) if is_framework_array(x) and not base else int(x, *base)
