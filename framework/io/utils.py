"""Helpers of the iterators: inputs in canonical form (a sorted list of ``(name, array)``), slicing,
joining and reordering along the batch axis, for NumPy and ``jax.Array`` inputs alike (NumPy inputs stay
on the host until a batch is cut).

>>> import numpy as onp
>>> [name for name, _ in init_data([onp.zeros(2), onp.ones(2)], False, 'data')]
['_0_data', '_1_data']
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

__all__ = ["init_data", "getdata_by_idx", "slice_along_batch_axis", "concat_along", "to_batch_array"]


def _canonical(value: Any, key: str) -> Any:
    """A ``jax.Array`` (MXNet's NDArray) keeps its dtype; anything else becomes float32, as MXNet's
    ``nd.array`` makes it."""
    if isinstance(value, jax.Array):
        return value
    stype = getattr(value, "stype", "default")
    if stype != "default":
        raise TypeError(
            f"NDArrayIter: {key} has storage type {stype!r}; only dense arrays exist here "
            "(convert it with .toarray() / .asnumpy() first)"
        )
    if hasattr(value, "asnumpy"):
        return onp.asarray(value.asnumpy())
    if isinstance(value, onp.ndarray):
        return value.astype(onp.float32)
    try:
        out = onp.asarray(value)
    except Exception as e:
        raise TypeError(
            f"NDArrayIter: invalid type {type(value).__name__} for {key}; expected an array, "
            "a list of arrays or a dict of name -> array"
        ) from e
    if out.dtype == object:
        raise TypeError(f"NDArrayIter: {key} is not a rectangular numeric array")
    return out.astype(onp.float32)


def init_data(data: Any, allow_empty: bool, default_name: str) -> list[tuple[str, Any]]:
    """``[(name, array)]`` sorted by name: one array is named ``default_name``, a list of several
    ``_<i>_<default_name>``, a dict keeps its names (MXNet's rule)."""
    if data is None:
        if not allow_empty:
            raise ValueError(f"NDArrayIter: {default_name} is None; pass an array, a list or a dict of them")
        data = []
    if isinstance(data, (onp.ndarray, jax.Array)) or hasattr(data, "asnumpy"):
        data = [data]
    if isinstance(data, (list, tuple)):
        if not data and not allow_empty:
            raise ValueError(f"NDArrayIter: {default_name} is an empty list")
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict((f"_{i}_{default_name}", d) for i, d in enumerate(data))
    if not isinstance(data, dict):
        raise TypeError(
            f"NDArrayIter: {default_name} must be an array, a list of arrays or a dict of "
            f"name -> array, got {type(data).__name__}"
        )
    return sorted((k, _canonical(v, k)) for k, v in data.items())


def slice_along_batch_axis(x: Any, start: int, stop: int, axis: int) -> Any:
    """``x[start:stop]`` along ``axis``."""
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, stop)
    return x[tuple(index)]


def concat_along(a: Any, b: Any, axis: int) -> Any:
    if isinstance(a, onp.ndarray) and isinstance(b, onp.ndarray):
        return onp.concatenate([a, b], axis=axis)
    return jnp.concatenate([jnp.asarray(a), jnp.asarray(b)], axis=axis)


def getdata_by_idx(data: list[tuple[str, Any]], idx: onp.ndarray, axis: int = 0) -> list[tuple[str, Any]]:
    """Every array reordered by ``idx`` along ``axis``."""
    out = []
    for k, v in data:
        out.append(
            (
                k,
                onp.take(v, idx, axis=axis)
                if isinstance(v, onp.ndarray)
                else jnp.take(v, jnp.asarray(idx), axis=axis),
            )
        )
    return out


def to_batch_array(x: Any, device: jax.Device | None = None) -> jax.Array:
    """A batch as a ``jax.Array``: host arrays go to ``device`` (default: the first CPU, where MXNet's
    iterators put their batches); device arrays stay where they are."""
    if isinstance(x, jax.Array):
        return x
    return jax.device_put(onp.ascontiguousarray(x), device or jax.devices("cpu")[0])
