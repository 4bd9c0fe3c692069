"""``np.stack`` / ``np.concatenate`` that join host data on the host.

MXNet code often stacks thousands of NumPy arrays or scalars (``np.stack([x[0] for x in dataset])``).
``jax.numpy`` turns each into a device array and compiles one join over all of them, which takes minutes
for a few thousand parts; joined on the host and sent once it takes milliseconds. Device arrays (and
recorded values, under ``autograd.record()``) are joined by ``jax.numpy``, except eager CPU arrays on the
first runs of a signature, which are joined in host memory too (:mod:`framework.np.eager`).

>>> import numpy as onp
>>> from framework import np
>>> x = np.stack([onp.full((2,), i, dtype=onp.uint8) for i in range(3)])
>>> x.dtype, x.shape, x[2].tolist()
(dtype('uint8'), (3, 2), [2, 2])
>>> np.concatenate([onp.ones(2), onp.zeros(1)]).tolist()
[1.0, 1.0, 0.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from ._host import put
from .dispatch import recordable
from .eager import host_operand, host_runs_left, is_array, result_device, signature

__all__ = ["stack", "concatenate"]

_HOST = (onp.ndarray, onp.generic, int, float, bool, complex)


def _on_host(arrays: Any) -> list | None:
    if isinstance(arrays, (list, tuple)) and len(arrays) > 1 and all(isinstance(a, _HOST) for a in arrays):
        return list(arrays)
    return None


def _send(host: onp.ndarray, dtype: Any) -> Any:
    # device_put, not jnp.asarray: the latter compiles a conversion for every new shape
    target = jax.dtypes.canonicalize_dtype(dtype if dtype is not None else host.dtype)
    return jax.device_put(onp.asarray(host, dtype=target))


def _joined_on_host(name: str, join: Any, arrays: Any, axis: Any, dtype: Any) -> jax.Array | None:
    """Eager CPU arrays joined in host memory on the first runs of a signature (framework.np.eager),
    with ``jax.numpy``'s promotion; None where ``jax.numpy`` joins them."""
    if dtype is not None or not isinstance(arrays, (list, tuple)) or not arrays or \
            not all(is_array(a) for a in arrays) or \
            not host_runs_left((name, tuple(signature(a) for a in arrays), axis)):
        return None
    found = [host_operand(a) for a in arrays]
    if any(f is None for f in found):
        return None
    agree, device = result_device(*(f[1] for f in found))
    if not agree:
        return None
    target = jax.dtypes.result_type(*arrays)
    try:
        out = join([f[0].astype(target, copy=False) for f in found], axis=axis)
    except (ValueError, TypeError, IndexError):
        return None  # shapes that do not join, an axis out of range: JAX's error
    return put(out, device)


def _stack(arrays: Sequence[Any], axis: int = 0, out: None = None, dtype: Any = None) -> Any:
    if out is not None:
        raise TypeError("np.stack(out=...): arrays cannot be written into here; use the result")
    host = _on_host(arrays)
    if host is not None:
        return _send(onp.stack(host, axis=axis), dtype)
    joined = _joined_on_host("stack", onp.stack, arrays, axis, dtype)
    return joined if joined is not None else jnp.stack(arrays, axis=axis, dtype=dtype)


def _concatenate(arrays: Sequence[Any], axis: int | None = 0, out: None = None, dtype: Any = None) -> Any:
    if out is not None:
        raise TypeError("np.concatenate(out=...): arrays cannot be written into here; use the result")
    host = _on_host(arrays)
    if host is not None and all(isinstance(a, onp.ndarray) for a in host):
        return _send(onp.concatenate(host, axis=axis), dtype)
    joined = _joined_on_host("concatenate", onp.concatenate, arrays, axis, dtype)
    return joined if joined is not None else jnp.concatenate(arrays, axis=axis, dtype=dtype)


stack = recordable(_stack)
concatenate = recordable(_concatenate)
