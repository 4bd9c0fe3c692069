"""Variables: what MXNet's ``x.attach_grad()`` made of an array, as a mutable leaf of the recorder.

``jax.Array`` cannot carry a gradient slot nor change in place, so ``autograd.attach_grad(x)`` returns a
:class:`Variable`: an array-like holder of a value (a leaf like a Parameter without a Block). It takes
part in arithmetic, indexing and ``np``/``npx`` functions like an array (the results are plain
``jax.Array`` values outside ``record()``), it can be changed in place (``v[:] = ...``, ``v += ...``),
and ``backward()`` inside ``record()`` fills ``v.grad``.

>>> from framework import autograd, np
>>> x = autograd.attach_grad(np.array([1.0, 2.0, 3.0]))
>>> with autograd.record():
...     y = (x * x).sum()
>>> y.backward()
>>> x.grad.tolist()
[2.0, 4.0, 6.0]
>>> x[:] = x - 0.5 * x.grad
>>> x.tolist()
[0.0, 0.0, 0.0]
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from . import tape
from .graph import Node
from .lazy import Deferred
from .tape import Recorded

__all__ = ["Variable", "attach_grad"]

_GRAD_REQS = ("write", "add", "null")


def _plain(x: Any) -> Any:
    return tape.values_of(x) if isinstance(x, Recorded) else x


def _beside(like: jax.Array, x: Any) -> jax.Array:
    """``x`` as an array on ``like``'s device(s)."""
    x = jnp.asarray(_plain(x))
    return x if x.devices() == like.devices() else jax.device_put(x, like.sharding)


def _inplace(fn: Callable) -> Callable:
    def method(self: Variable, other: Any) -> Variable:
        self._assign(fn(self._value, _beside(self._value, other)))
        return self

    return method


class Variable(Recorded):
    """A mutable array with a gradient slot (MXNet's array after ``attach_grad``).

    ``grad_req`` is ``'write'`` (each ``backward`` replaces ``grad``), ``'add'`` (gradients accumulate
    until you reset ``v.grad``) or ``'null'`` (no gradient). ``v.value`` is the current ``jax.Array``.
    """

    __slots__ = ("_grad", "_grad_req", "_leaf")

    def __init__(self, value: Any, grad_req: str = "write") -> None:
        value = _plain(value)
        if isinstance(value, Variable):
            value = value.value
        arr = value if isinstance(value, jax.Array) else jnp.asarray(value)
        if grad_req not in _GRAD_REQS:
            raise ValueError(f"attach_grad: grad_req={grad_req!r}; expected one of {_GRAD_REQS}.")
        if not jnp.issubdtype(arr.dtype, jnp.inexact) and grad_req != "null":
            raise TypeError(f"attach_grad: the array has dtype {arr.dtype}; gradients need a floating "
                            "dtype. Cast it first (x.astype('float32')).")
        self._grad_req = grad_req
        self._grad: jax.Array | None = None
        self._assign(arr)
        self._grad = None if grad_req == "null" else jnp.zeros_like(arr)

    # ------------------------------------------------------------------ state
    def _assign(self, value: jax.Array) -> None:
        """Install a new value (a fresh leaf, so graphs recorded earlier keep the old one)."""
        old = getattr(self, "_value", None)
        if old is not None:
            if value.shape != old.shape:
                value = jnp.broadcast_to(value, old.shape)
            value = value.astype(old.dtype)
            if value.devices() != old.devices():
                value = jax.device_put(value, old.sharding)
        devs = value.devices()
        dev = next(iter(devs)) if len(devs) == 1 else None
        leaf = tape.parameter_leaf(self, dev, value)
        node = leaf._node
        node.outputs = [weakref.ref(self)]
        Recorded.__init__(self, node, 0, node.out_avals[0])
        self._value = value

    @property  # type: ignore[override]
    def _node(self) -> Node:
        # A backward frees the nodes it used; a Variable lives on, so it gets a fresh leaf.
        if self._leaf.freed:
            self._assign(self._value)
        return self._leaf

    @_node.setter
    def _node(self, node: Node) -> None:
        self._leaf = node

    @property
    def grad_req(self) -> str:
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req: str) -> None:
        if req not in _GRAD_REQS:
            raise ValueError(f"Variable: grad_req={req!r}; expected one of {_GRAD_REQS}.")
        self._grad_req = req
        if req == "null":
            self._grad = None
        elif self._grad is None:
            self._grad = jnp.zeros_like(self._value)

    @property
    def grad(self) -> jax.Array | None:
        """The gradient written by the last ``backward`` (zeros before; ``None`` for ``grad_req='null'``),
        computed when first read."""
        g = self._grad
        if type(g) is Deferred:
            g = self._grad = g.force().astype(self._value.dtype)
        return g

    @grad.setter
    def grad(self, g: Any) -> None:
        if g is None:
            self._grad = None
            return
        self._grad = jnp.broadcast_to(jnp.asarray(_plain(g), self._value.dtype), self._value.shape)

    # ------------------------------------------------------------------ what a backward writes
    def accept_grad(self, device: Any, grad: Deferred) -> None:
        """A backward's (deferred) gradient: it replaces the slot ('write') or adds to it ('add')."""
        if self._grad_req == "null":
            return
        if self._grad_req == "add" and self._grad is not None:
            grad = Deferred(grad.source, grad.kind, grad.index, base=self._grad)
        self._grad = grad

    def settle_grad(self, device: Any, grad: Deferred, value: jax.Array) -> None:
        if self._grad is grad:
            self._grad = value.astype(self._value.dtype)

    def attach_grad(self, grad_req: str = "write", stype: Any = None) -> Variable:
        """Reset the gradient slot (zeros) with a new ``grad_req``; returns the Variable."""
        self.grad_req = grad_req
        if grad_req != "null":
            self._grad = jnp.zeros_like(self._value)
        return self

    # ------------------------------------------------------------------ array protocol
    @property
    def __jax_array__(self) -> Callable[[], jax.Array]:
        # Absent while recording: `jax_array * v` then defers to v.__rmul__ and stays in the graph
        # instead of silently using the value.
        if tape.is_recording():
            raise AttributeError("__jax_array__")
        return lambda: self._value

    def __array__(self, dtype: Any = None, copy: Any = None) -> onp.ndarray:
        out = onp.asarray(self._value)
        return out.astype(dtype) if dtype is not None else out

    def __repr__(self) -> str:
        return f"Variable({self._value!r}, grad_req={self._grad_req!r})"

    # ------------------------------------------------------------------ in place
    def __setitem__(self, index: Any, value: Any) -> None:
        value = _beside(self._value, value)
        self._assign(self._value.at[_plain(index)].set(value.astype(self._value.dtype)))

    __iadd__ = _inplace(jnp.add)
    __isub__ = _inplace(jnp.subtract)
    __imul__ = _inplace(jnp.multiply)
    __itruediv__ = _inplace(jnp.true_divide)
    __ifloordiv__ = _inplace(jnp.floor_divide)
    __ipow__ = _inplace(jnp.power)

    def detach(self) -> jax.Array:
        """The current value as a plain array, outside any recorded graph."""
        return jax.lax.stop_gradient(self._value)

    def copy(self) -> jax.Array:
        return jnp.array(self._value, copy=True)


def attach_grad(x: Any, grad_req: str = "write", stype: Any = None) -> Variable:
    """MXNet's ``x.attach_grad(grad_req)``, as a function: a :class:`Variable` holding ``x``.

    Use the returned Variable where ``x`` was used (``python -m framework.port`` rewrites
    ``x.attach_grad()`` to ``x = autograd.attach_grad(x)``). A Variable passed in gets a fresh gradient
    slot and is returned itself. ``stype`` (sparse storage) is accepted for compatibility and must be
    ``None`` or ``'default'``.

    >>> from framework import autograd, np
    >>> w = autograd.attach_grad(np.ones(2), grad_req="add")
    >>> for _ in range(2):
    ...     with autograd.record():
    ...         (3 * w).sum().backward()
    >>> w.grad.tolist()
    [6.0, 6.0]
    """
    if stype not in (None, "default"):
        raise ValueError(f"attach_grad: stype={stype!r}; only dense storage ('default') is supported.")
    if isinstance(x, Variable):
        return x.attach_grad(grad_req)
    return Variable(x, grad_req=grad_req)
