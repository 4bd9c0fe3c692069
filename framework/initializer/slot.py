"""The mutable ``arr`` that MXNet-style initializers fill: ``def _init_weight(self, name, arr):
arr[:] = ...`` runs unchanged.

A ``jax.Array`` cannot be written into, so an initializer written for MXNet (whose rule methods take
``(name, arr)`` and fill ``arr`` in place) receives an :class:`ArraySlot` instead: it has the shape,
dtype and device of the parameter, ``arr[...] = value`` rebinds the slot's value (an immutable array,
replaced by ``.at[...].set`` for partial writes), and reading it (``arr[0]``, ``arr.asnumpy()``,
``jnp.asarray(arr)``, ``np`` functions, arithmetic and comparisons) sees the current value, and the
in-place operators (``arr *= mask``, ``arr += 1``) change it, as they change MXNet's array. The
framework reads the value back when the method returns.

>>> import jax.numpy as jnp
>>> slot = ArraySlot((2, 3), jnp.float32)
>>> slot[:] = 2
>>> slot[0, 1] = 5
>>> slot.value.tolist()
[[2.0, 5.0, 2.0], [2.0, 2.0, 2.0]]
>>> slot *= slot >= 3
>>> slot.value.tolist()
[[0.0, 5.0, 0.0], [0.0, 0.0, 0.0]]
"""

from __future__ import annotations

import inspect
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

__all__ = ["ArraySlot", "takes_array"]


def _whole(index: Any) -> bool:
    if index is Ellipsis:
        return True
    if isinstance(index, slice):
        return index == slice(None)
    return isinstance(index, tuple) and all(_whole(i) for i in index)


class ArraySlot:
    """A parameter-shaped, writable stand-in for MXNet's NDArray during initialisation."""

    __array_priority__ = 100

    def __init__(self, shape: tuple[int, ...], dtype: Any, device: jax.Device | None = None) -> None:
        self.shape = tuple(int(d) for d in shape)
        self.dtype = onp.dtype(jnp.dtype(dtype))
        self.device = device
        self._value: jax.Array | None = None
        self.written = False

    @property
    def value(self) -> jax.Array:
        """The current value (zeros before the first write)."""
        if self._value is None:
            self._value = jnp.zeros(self.shape, self.dtype)
        return self._value

    def _coerce(self, value: Any) -> jax.Array:
        if isinstance(value, ArraySlot):
            value = value.value
        if hasattr(value, "asnumpy") and not isinstance(value, jax.Array):
            value = value.asnumpy()
        return jnp.asarray(value).astype(self.dtype)

    def __setitem__(self, index: Any, value: Any) -> None:
        new = self._coerce(value)
        if _whole(index):
            try:
                self._value = jnp.broadcast_to(new, self.shape)
            except ValueError as err:
                raise ValueError(
                    f"arr[:] = value: a value of shape {tuple(new.shape)} cannot fill the parameter of "
                    f"shape {self.shape}"
                ) from err
        else:
            self._value = self.value.at[index].set(new)
        self.written = True

    def __getitem__(self, index: Any) -> jax.Array:
        return self.value[index]

    def __jax_array__(self) -> jax.Array:
        return self.value

    def __array__(self, dtype: Any = None, copy: Any = None) -> onp.ndarray:
        out = onp.asarray(self.value)
        return out.astype(dtype) if dtype is not None else out

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(onp.prod(self.shape, dtype=onp.int64))

    @property
    def context(self) -> jax.Device:
        """The device the parameter is created on (MXNet's ``arr.context``)."""
        from ..device import current_device

        return self.device or current_device()

    ctx = context

    def asnumpy(self) -> onp.ndarray:
        return onp.asarray(self.value)

    def wait_to_read(self) -> None:
        """Nothing to wait for."""

    def __repr__(self) -> str:
        return f"ArraySlot(shape={self.shape}, dtype={self.dtype})"

    def __len__(self) -> int:
        return self.shape[0]

    def __getattr__(self, name: str) -> Any:
        # array methods and properties (sum, reshape, astype, T, ...) of the current value
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.value, name)

    __hash__ = object.__hash__


def _value_of(x: Any) -> Any:
    return x.value if isinstance(x, ArraySlot) else x


def _binary(op: Any, reflected: bool = False) -> Any:
    if reflected:
        return lambda self, other: op(_value_of(other), self.value)
    return lambda self, other: op(self.value, _value_of(other))


def _inplace(op: Any) -> Any:
    def method(self: ArraySlot, other: Any) -> ArraySlot:
        self._value = jnp.asarray(op(self.value, _value_of(other))).astype(self.dtype)
        self.written = True
        return self
    return method


def _install() -> None:
    import operator as o

    for name, op in (("add", o.add), ("sub", o.sub), ("mul", o.mul), ("truediv", o.truediv),
                     ("floordiv", o.floordiv), ("mod", o.mod), ("pow", o.pow), ("matmul", o.matmul)):
        setattr(ArraySlot, f"__{name}__", _binary(op))
        setattr(ArraySlot, f"__r{name}__", _binary(op, reflected=True))
        setattr(ArraySlot, f"__i{name}__", _inplace(op))
    for name, op in (("lt", o.lt), ("le", o.le), ("gt", o.gt), ("ge", o.ge), ("eq", o.eq), ("ne", o.ne)):
        setattr(ArraySlot, f"__{name}__", _binary(op))
    for name, op in (("neg", o.neg), ("pos", o.pos), ("abs", abs)):
        setattr(ArraySlot, f"__{name}__", lambda self, _op=op: _op(self.value))


_install()


def takes_array(method: Any) -> bool:
    """True when a rule method has MXNet's ``(name, arr)`` form rather than ``(name, shape, dtype, key)``."""
    try:
        params = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) == 2 and not any(p.kind == p.VAR_POSITIONAL for p in params)
