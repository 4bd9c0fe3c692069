"""The binding of parameter values to one call of a Block: the thin seam between state and pure math.

A :class:`Block` holds :class:`Parameter` objects; its math is pure. When a block runs, a ``Binding`` is
active for the duration of the call and tells ``Parameter.data()`` what to return:

- a *pure* binding (``values`` set) maps each Parameter to the value given to ``functional_call`` (a
  tracer under ``jax.jit``/``jax.grad``); ``set_data`` inside it records a state update instead of
  mutating anything. It also sets the training flag of :mod:`framework.autograd.mode` for the call:
  training mode lives in one place, and every compiled call receives it explicitly;
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

from .. import _threefry
from ..autograd import mode
from ..base import FrameworkError
from ..np import random

__all__ = ["Binding", "bindings", "current", "name_key", "parameter_of", "MissingKeyError",
           "StateDroppedError"]


class _Active(threading.local):
    """One thread's active bindings, innermost last (``stack``)."""

    def __init__(self) -> None:
        self.stack: list[Binding] = []


bindings = _Active()


class MissingKeyError(FrameworkError, ValueError):
    """A layer needs randomness inside a traced pure call that was given no ``key``."""


class StateDroppedError(FrameworkError, RuntimeError):
    """A pure call updated state (BatchNorm statistics) that the caller did not ask to get back."""


def current() -> Binding | None:
    """The innermost active binding, or None outside any block call."""
    stack = bindings.stack
    return stack[-1] if stack else None


def parameter_of(value: Any) -> Any:
    """The Parameter whose value in the innermost binding is ``value`` itself (the same object: a bound
    value, or one handed to a 1.x ``hybrid_forward``), or None. An operator that changes an input in
    place (MXNet's auxiliary states) writes the change back through it."""
    bound = current()
    if bound is None:
        return None
    if bound.values is not None:
        for p, v in bound.values.items():
            if v is value:
                return p
    if bound.handed is not None:  # looked for only when asked: handing costs a call nothing
        params, values = bound.handed
        for name, v in values.items():
            if v is value:
                return params[name]
    return None


def name_key(key: jax.Array, name: str) -> jax.Array:
    """A key derived from ``key`` and a structural name: independent of call order and process."""
    return _threefry.fold_in(key, zlib.crc32(name.encode()) & 0x7FFFFFFF)


class Binding:
    """Values, mode and randomness for one call of a block tree."""

    __slots__ = ("values", "device", "training", "key", "state", "block_names", "traced", "owner",
                 "handed", "_key_uses", "_prev_training")

    def __init__(
        self,
        values: dict[Any, jax.Array] | None = None,
        *,
        device: jax.Device | None = None,
        training: bool = False,
        key: jax.Array | None = None,
        block_names: dict[int, str] | None = None,
        traced: bool = False,
        owner: Any = None,
    ) -> None:
        self.values = values
        self.device = device
        self.training = training
        self.key = key
        self.state: dict[Any, jax.Array] = {}
        self.block_names = block_names or {}
        self.traced = traced
        self.owner = owner
        self.handed: tuple[dict[str, Any], dict[str, Any]] | None = None  # (Parameters, values) by name
        self._key_uses: dict[str, int] = {}

    @property
    def pure(self) -> bool:
        return self.values is not None

    def block_key(self, block: object) -> jax.Array:
        """The PRNG key of ``block``'s call: the binding's key folded with the block's structural name
        and how many times that block was called before in this binding."""
        name = self.block_names.get(id(block), type(block).__name__)
        if self.key is None:
            if self.traced:
                where = f"{type(block).__name__} {name!r}" if name else type(block).__name__
                raise MissingKeyError(
                    f"{where} needs randomness in training mode, but "
                    f"{type(self.owner).__name__}.functional_call runs under jax.jit/grad/vmap without a "
                    "key, where a key drawn now would repeat on every call. Pass key=jax.random.key(...) "
                    "(a fresh one per step) to functional_call, or call with training=False."
                )
            return random.next_key()
        uses = self._key_uses.get(name, 0)
        self._key_uses[name] = uses + 1
        return _threefry.fold_in(name_key(self.key, name), uses)

    def hand(self, params: dict[str, Any], values: dict[str, Any]) -> None:
        """Note that ``values[name]`` is ``params[name]``'s value in this call (for :func:`parameter_of`)."""
        self.handed = (params, values)

    def __enter__(self) -> Binding:
        bindings.stack.append(self)
        if self.values is not None:
            self._prev_training = mode.set_training(self.training)
        return self

    def __exit__(self, *exc: object) -> None:
        bindings.stack.pop()
        if self.values is not None:
            mode.set_training(self._prev_training)
