"""The operator table's machinery: :class:`OpSpec` entries registered by name, what an operator sees
(:class:`Call`), and the size check for attribute-sized arrays. ``_ops`` (neural-network operators) and
``_ops_math`` (element-wise, reduction and shape operators) fill :data:`OPS`; import the table from
``_ops``, which loads both.

>>> @register("_doc_identity")
... def _identity(c, xs, a):
...     return xs[0]
>>> OPS.pop("_doc_identity").outputs
1
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax

from ._attrs import Attrs

__all__ = ["OPS", "OpSpec", "Call", "LazyZeros", "num_outputs", "supported_ops", "register",
           "check_size", "MAX_ELEMENTS"]


@dataclass(frozen=True)
class OpSpec:
    fn: Callable
    outputs: int | Callable[[Attrs], int] = 1
    aux: tuple[int, ...] | Callable[[Attrs], tuple[int, ...]] = ()


class Call:
    """What an operator sees besides its inputs: the mode, its key, and a sink for state updates."""

    def __init__(self, training: bool, key: jax.Array | None) -> None:
        self.training = training
        self.key = key
        self.updates: dict[int, jax.Array] = {}


@dataclass(frozen=True)
class LazyZeros:
    """``_zeros`` with unknown (0) dimensions: resolved by the consumer (RNN's begin state)."""

    shape: tuple[int, ...]
    dtype: Any


OPS: dict[str, OpSpec] = {}


def supported_ops() -> list[str]:
    """Every operator name the interpreter runs, sorted."""
    return sorted(OPS)


def num_outputs(op: str, raw: dict[str, str]) -> int:
    spec = OPS.get(op)
    if spec is None:
        return 1
    return spec.outputs(Attrs(raw, "?", op)) if callable(spec.outputs) else spec.outputs


def register(*names: str, outputs: Any = 1, aux: Any = ()):
    def deco(fn):
        for n in names:
            OPS[n] = OpSpec(fn, outputs, aux)
        return fn
    return deco


MAX_ELEMENTS = 1 << 30  # an array a graph attribute asks for: a file's attribute, not its data, sizes it


def check_size(a: Attrs, shape) -> None:
    """Refuse shapes from attributes that are negative or larger than MAX_ELEMENTS elements."""
    total = 1
    for s in shape:
        if s is None or s < 0:
            raise ValueError(f"symbol node {a.node!r} (op {a.op!r}): shape {tuple(shape)} has a negative or "
                             "unknown size")
        total *= s
    if total > MAX_ELEMENTS:
        raise ValueError(f"symbol node {a.node!r} (op {a.op!r}): shape {tuple(shape)} asks for {total} "
                         f"elements, above the {MAX_ELEMENTS} allowed for an attribute-sized array")
