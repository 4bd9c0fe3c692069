"""Laziness held in values: a slot (a gradient, a layer's state, a recorded value) holds an array or a
:class:`Deferred` result, and a read forces it.

A Deferred names what computes it -- its ``source``, a pending computation with a ``result(kind,
index)`` method (:class:`framework.autograd.pending.Pending`) -- and which of its results it is. A
gradient accumulated across backwards (``grad_req='add'``) keeps the slot's previous content as
``base``: forcing computes both and adds them. Nothing is kept anywhere else: a computation nobody's slot
refers to any more is simply dropped, and two threads' computations never meet.

>>> import jax.numpy as jnp
>>> class Source:  # a stand-in for a pending backward
...     runs = 0
...     def result(self, kind, index):
...         Source.runs += 1
...         return jnp.float32(10.0 * index)
>>> d = Deferred(Source(), "grad", 2, base=jnp.float32(1.0))
>>> Source.runs, float(force(d)), Source.runs
(0, 21.0, 1)
>>> force(3.0)
3.0
"""

from __future__ import annotations

from typing import Any, Protocol

import jax

__all__ = ["Deferred", "Source", "force", "is_deferred", "GRAD", "STATE", "VALUE", "TOTAL"]

# the kinds of result a pending backward computes
GRAD, STATE, VALUE, TOTAL = "grad", "state", "value", "total"


class Source(Protocol):
    """What a :class:`Deferred` comes from: a computation that can produce each of its results."""

    def result(self, kind: str, index: int) -> jax.Array: ...


class Deferred:
    """Result ``index`` of ``kind`` of ``source``, not computed yet; plus ``base`` when accumulated."""

    __slots__ = ("source", "kind", "index", "base")

    def __init__(self, source: Source, kind: str, index: int, base: Any = None) -> None:
        self.source, self.kind, self.index, self.base = source, kind, index, base

    def force(self) -> jax.Array:
        value = self.source.result(self.kind, self.index)
        if self.base is not None:
            value = force(self.base) + value
        return value

    def __repr__(self) -> str:
        return f"Deferred({self.kind} {self.index} of {type(self.source).__name__})"


def force(x: Any) -> Any:
    """``x`` itself, or the value it defers to."""
    return x.force() if type(x) is Deferred else x


def is_deferred(x: Any) -> bool:
    return type(x) is Deferred
