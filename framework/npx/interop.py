"""Exchanging arrays with NumPy and other libraries (MXNet 2.0's ``npx.from_numpy``,
``npx.to_dlpack_for_read``, ``npx.from_dlpack``), through DLPack where the memory can be shared.

A ``jax.Array`` is immutable, so there is no ``to_dlpack_for_write``: a consumer must not write into
JAX's buffers (copy the array first, or build the result in the other library and bring it back with
:func:`from_dlpack`).

>>> import numpy as onp
>>> from framework import npx
>>> a = onp.arange(6, dtype=onp.float32).reshape(2, 3)
>>> x = npx.from_numpy(a)
>>> x.shape, x.dtype
((2, 3), dtype('float32'))
>>> y = npx.from_dlpack(npx.to_dlpack_for_read(x))
>>> y.tolist() == a.tolist()
True
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

__all__ = ["from_numpy", "to_dlpack_for_read", "from_dlpack"]


def from_numpy(ndarray: onp.ndarray, zero_copy: bool = True) -> jax.Array:
    """A ``jax.Array`` (on the CPU) holding a NumPy array's values: with ``zero_copy`` a C-contiguous
    array of a supported dtype is shared through DLPack when XLA can take its buffer (aligned to 64
    bytes; do not change the array afterwards, as in MXNet), otherwise copied."""
    if not isinstance(ndarray, onp.ndarray):
        raise TypeError(f"npx.from_numpy: expected a numpy.ndarray, got {type(ndarray).__name__}")
    if zero_copy and ndarray.flags["C_CONTIGUOUS"] and ndarray.dtype != onp.float64 and ndarray.size:
        try:
            return jax.dlpack.from_dlpack(ndarray)
        except (TypeError, ValueError, RuntimeError):
            pass  # not shareable (alignment, dtype): copy
    return jax.device_put(jnp.asarray(ndarray), jax.devices("cpu")[0])


def to_dlpack_for_read(data: Any) -> Any:
    """A DLPack capsule of ``data`` for a consumer that only reads it (JAX's buffer is shared)."""
    arr = data if isinstance(data, jax.Array) else getattr(data, "value", None)
    if not isinstance(arr, jax.Array):
        raise TypeError(f"npx.to_dlpack_for_read: expected an array, got {type(data).__name__}")
    arr.block_until_ready()
    return arr.__dlpack__()


def from_dlpack(dlpack: Any) -> jax.Array:
    """A ``jax.Array`` sharing the memory of an object with ``__dlpack__`` (a PyTorch tensor, a NumPy
    array, ...) or of a bare DLPack capsule (taken as CPU memory: pass the object itself for GPU data)."""
    try:
        return jax.dlpack.from_dlpack(dlpack)
    except TypeError:
        if type(dlpack).__name__ == "PyCapsule":
            return jnp.from_dlpack(_Capsule(dlpack))
        raise


class _Capsule:
    """A bare capsule presented as a producer (newer JAX takes only objects with ``__dlpack__``)."""

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self._capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # kDLCPU
