"""The binding of parameter values to one call of a Block: the thin seam between state and pure math.

A :class:`Block` holds :class:`Parameter` objects; its math is pure. When a block runs, a ``Binding`` is
active for the duration of the call and tells ``Parameter.data()`` what to return:

- a *pure* binding (``values`` set) maps each Parameter to the value given to ``functional_call`` (a
  tracer under ``jax.jit``/``jax.grad``); ``set_data`` inside it records a state update instead of
  mutating anything;
- a *device* binding (``values`` None) only says which device the call runs on, so that ``data()`` with
  no argument picks the replica next to the input.

>>> b = Binding(device=None)
>>> with b:
...     current() is b
True
>>> current() is None
True
"""

from __future__ import annotations

import threading
import zlib
from typing import Any

import jax

__all__ = ["Binding", "current", "name_key"]

_local = threading.local()


def current() -> Binding | None:
    """The innermost active binding, or None outside any block call."""
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


def name_key(key: jax.Array, name: str) -> jax.Array:
    """A key derived from ``key`` and a structural name: independent of call order and process."""
    return jax.random.fold_in(key, zlib.crc32(name.encode()) & 0x7FFFFFFF)


class Binding:
    """Values, mode and randomness for one call of a block tree."""

    __slots__ = ("values", "device", "training", "key", "state", "block_names", "_key_uses")

    def __init__(
        self,
        values: dict[Any, jax.Array] | None = None,
        *,
        device: jax.Device | None = None,
        training: bool = False,
        key: jax.Array | None = None,
        block_names: dict[int, str] | None = None,
    ) -> None:
        self.values = values
        self.device = device
        self.training = training
        self.key = key
        self.state: dict[Any, jax.Array] = {}
        self.block_names = block_names or {}
        self._key_uses: dict[str, int] = {}

    @property
    def pure(self) -> bool:
        return self.values is not None

    def block_key(self, block: object) -> jax.Array:
        """The PRNG key of ``block``'s call: the binding's key folded with the block's structural name
        and how many times that block was called before in this binding."""
        if self.key is None:
            from ..np import random

            return random.next_key()
        name = self.block_names.get(id(block), type(block).__name__)
        uses = self._key_uses.get(name, 0)
        self._key_uses[name] = uses + 1
        return jax.random.fold_in(name_key(self.key, name), uses)

    def __enter__(self) -> Binding:
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _local.stack.pop()
