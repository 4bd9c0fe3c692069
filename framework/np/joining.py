"""``np.stack`` / ``np.concatenate`` that join host data on the host.

MXNet code often stacks thousands of NumPy arrays or scalars (``np.stack([x[0] for x in dataset])``).
``jax.numpy`` turns each into a device array and compiles one join over all of them, which takes minutes
for a few thousand parts; joined on the host and sent once it takes milliseconds. Device arrays (and
recorded values, under ``autograd.record()``) are joined by ``jax.numpy`` as before.

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

from .dispatch import recordable

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


def _stack(arrays: Sequence[Any], axis: int = 0, out: None = None, dtype: Any = None) -> Any:
    if out is not None:
        raise TypeError("np.stack(out=...): arrays cannot be written into here; use the result")
    host = _on_host(arrays)
    if host is not None:
        return _send(onp.stack(host, axis=axis), dtype)
    return jnp.stack(arrays, axis=axis, dtype=dtype)


def _concatenate(arrays: Sequence[Any], axis: int | None = 0, out: None = None, dtype: Any = None) -> Any:
    if out is not None:
        raise TypeError("np.concatenate(out=...): arrays cannot be written into here; use the result")
    host = _on_host(arrays)
    if host is not None and all(isinstance(a, onp.ndarray) for a in host):
        return _send(onp.concatenate(host, axis=axis), dtype)
    return jnp.concatenate(arrays, axis=axis, dtype=dtype)


stack = recordable(_stack)
concatenate = recordable(_concatenate)
