"""``mx.nd`` ordering: ``sort``, ``argsort`` and ``topk`` with MXNet 1.x's arguments (ascending sort by
default; indices as float32 unless ``dtype`` says otherwise).

>>> import jax.numpy as jnp
>>> from framework import nd
>>> x = jnp.array([[3.0, 1.0, 2.0]])
>>> nd.sort(x, is_ascend=False).tolist(), nd.argsort(x).tolist()
([[3.0, 2.0, 1.0]], [[1.0, 2.0, 0.0]])
>>> nd.topk(x, k=2, ret_typ='value').tolist()
[[3.0, 2.0]]
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ..npx import indexing as _npx
from ._op import nd_op

__all__ = ["sort", "argsort", "topk"]


def _flat(data: jax.Array, axis: int | None) -> tuple[jax.Array, int]:
    return (data.reshape(-1), 0) if axis is None else (data, axis)


@nd_op
def sort(data: jax.Array, axis: int | None = -1, is_ascend: bool = True) -> jax.Array:
    """Values sorted along ``axis`` (the flattened array when None)."""
    x, ax = _flat(data, axis)
    out = jnp.sort(x, axis=ax, stable=True)
    return out if is_ascend else jnp.flip(out, ax)


@nd_op
def argsort(data: jax.Array, axis: int | None = -1, is_ascend: bool = True,
            dtype: Any = "float32") -> jax.Array:
    """The indices that sort ``data`` along ``axis`` (ties keep their order)."""
    x, ax = _flat(data, axis)
    idx = jnp.argsort(x if is_ascend else -x, axis=ax, stable=True)
    return idx.astype(dtype)


@nd_op
def topk(data: jax.Array, axis: int | None = -1, k: int = 1, ret_typ: str = "indices",
         is_ascend: bool = False, dtype: Any = "float32") -> Any:
    """The ``k`` largest (smallest with ``is_ascend``) entries: ret_typ 'indices', 'value', 'both', 'mask'."""
    return _npx.topk(data, axis=axis, k=k, ret_typ=ret_typ, is_ascend=is_ascend, dtype=dtype)
