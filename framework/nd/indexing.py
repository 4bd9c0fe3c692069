"""``mx.nd`` indexing operators: ``slice``, ``slice_axis``, ``slice_like``, ``take``, ``batch_take``,
``pick``, ``one_hot``, ``where``, ``gather_nd``, ``scatter_nd``, ``diag``. Indices may be float arrays
(MXNet 1.x's default dtype); out-of-range indices are clipped (``mode='clip'``) or wrapped.

>>> import jax.numpy as jnp
>>> from framework import nd
>>> x = jnp.arange(12.0).reshape(3, 4)
>>> nd.slice(x, begin=(1, None), end=(3, None), step=(1, 2)).tolist()
[[4.0, 6.0], [8.0, 10.0]]
>>> nd.take(x, jnp.array([5.0, 0.0])).shape
(2, 4)
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from ..npx import indexing as _npx
from ._op import nd_op, norm_axis

__all__ = [
    "slice", "slice_axis", "slice_like", "take", "batch_take", "pick", "one_hot", "where", "gather_nd",
    "scatter_nd", "diag", "crop",
]


def _opt(seq: Sequence[Any] | None, i: int) -> Any:
    if seq is None or i >= len(seq):
        return None
    return seq[i]


@nd_op
def slice(data: jax.Array, begin: Sequence[Any], end: Sequence[Any], step: Sequence[Any] = ()) -> jax.Array:  # noqa: A001
    """``data[begin[0]:end[0]:step[0], ...]``; ``None`` entries take the whole axis.

    >>> import jax.numpy as jnp
    >>> slice(jnp.arange(5.0), begin=(None,), end=(None,), step=(-2,)).tolist()
    [4.0, 2.0, 0.0]
    """
    if len(begin) != len(end) or len(begin) > data.ndim:
        raise ValueError(
            f"nd.slice: begin={tuple(begin)} and end={tuple(end)} must have one length, at most the "
            f"{data.ndim} axes of data"
        )
    index = tuple(builtins.slice(begin[i], end[i], _opt(step, i)) for i in range(len(begin)))
    return data[index]


crop = slice


@nd_op
def slice_axis(data: jax.Array, axis: int, begin: int, end: int | None) -> jax.Array:
    """``data[..., begin:end, ...]`` on ``axis`` (``end=None``: to the end).

    >>> import jax.numpy as jnp
    >>> slice_axis(jnp.arange(6.0).reshape(2, 3), axis=1, begin=-2, end=None).tolist()
    [[1.0, 2.0], [4.0, 5.0]]
    """
    ax = norm_axis(axis, data.ndim, "slice_axis")
    n = data.shape[ax]
    b, e, _ = builtins.slice(begin, end).indices(n)
    if e <= b:
        raise ValueError(f"nd.slice_axis: begin={begin}, end={end} select nothing on axis {axis} of size {n}")
    return jax.lax.slice_in_dim(data, b, e, axis=ax)


@nd_op
def slice_like(data: jax.Array, shape_like: jax.Array, axes: int | Sequence[int] = ()) -> jax.Array:
    """``data`` cut (from index 0) to ``shape_like``'s size on ``axes`` (an axis or several; all axes
    when empty)."""
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    axes = axes or tuple(range(min(data.ndim, shape_like.ndim)))
    index = [builtins.slice(None)] * data.ndim
    for a in axes:
        ax = norm_axis(a, data.ndim, "slice_like")
        if shape_like.shape[a] > data.shape[ax]:
            raise ValueError(
                f"nd.slice_like: shape_like {tuple(shape_like.shape)} is larger than data "
                f"{tuple(data.shape)} on axis {a}"
            )
        index[ax] = builtins.slice(0, shape_like.shape[a])
    return data[tuple(index)]


def _index(indices: Any, n: int, mode: str, op: str) -> jax.Array:
    if mode not in ("clip", "wrap"):
        raise ValueError(f"nd.{op}: mode={mode!r} must be 'clip' or 'wrap' (out-of-range indices cannot "
                         "raise inside a compiled program)")
    idx = jnp.asarray(indices).astype(jnp.int32)
    return jnp.clip(idx, 0, n - 1) if mode == "clip" else jnp.mod(idx, n)


@nd_op
def take(a: jax.Array, indices: Any, axis: int = 0, mode: str = "clip") -> jax.Array:
    """Entries of ``a`` along ``axis`` at ``indices``; output shape a.shape[:axis] + indices.shape +
    a.shape[axis+1:]."""
    ax = norm_axis(axis, a.ndim, "take")
    return jnp.take(a, _index(indices, a.shape[ax], mode, "take"), axis=ax)


@nd_op
def batch_take(a: jax.Array, indices: Any) -> jax.Array:
    """``a[i, indices[i]]`` for a 2-D ``a`` (clipped indices).

    >>> import jax.numpy as jnp
    >>> batch_take(jnp.array([[1.0, 2.0], [3.0, 4.0]]), jnp.array([1, 0])).tolist()
    [2.0, 3.0]
    """
    idx = _index(indices, a.shape[-1], "clip", "batch_take")
    return jnp.take_along_axis(a.reshape(-1, a.shape[-1]), idx.reshape(-1, 1), axis=1).reshape(idx.shape)


@nd_op
def pick(data: jax.Array, index: Any, axis: int | None = -1, keepdims: bool = False,
         mode: str = "clip") -> jax.Array:
    """``data[..., index, ...]`` along ``axis``, one entry per position of the other axes."""
    return _npx.pick(data, index, axis=axis, mode=mode, keepdims=keepdims)


@nd_op
def one_hot(indices: Any, depth: int, on_value: float = 1.0, off_value: float = 0.0,
            dtype: Any = "float32") -> jax.Array:
    """One-hot rows of length ``depth`` (float32 by default)."""
    return _npx.one_hot(indices, depth, on_value, off_value, dtype)


@nd_op
def where(condition: jax.Array, x: jax.Array, y: jax.Array) -> jax.Array:
    """``x`` where ``condition`` is non-zero, else ``y``; a 1-D condition selects whole rows.

    >>> import jax.numpy as jnp
    >>> where(jnp.array([1.0, 0.0]), jnp.ones((2, 2)), jnp.zeros((2, 2))).tolist()
    [[1.0, 1.0], [0.0, 0.0]]
    """
    if x.shape != y.shape:
        raise ValueError(f"nd.where: x {tuple(x.shape)} and y {tuple(y.shape)} must have one shape")
    cond = condition != 0
    if cond.shape != x.shape:
        if cond.ndim == 1 and cond.shape[0] == x.shape[0]:
            cond = cond.reshape((-1,) + (1,) * (x.ndim - 1))
        else:
            raise ValueError(
                f"nd.where: condition {tuple(condition.shape)} must have x's shape {tuple(x.shape)} or be "
                f"1-D of length {x.shape[0]}"
            )
    return jnp.where(cond, x, y)


@nd_op
def gather_nd(data: jax.Array, indices: Any) -> jax.Array:
    """``out[y] = data[indices[0, y], ..., indices[M-1, y]]``: shape indices.shape[1:] + data.shape[M:].

    >>> import jax.numpy as jnp
    >>> gather_nd(jnp.array([[1.0, 2.0], [3.0, 4.0]]), jnp.array([[1, 0], [0, 1]])).tolist()
    [3.0, 2.0]
    """
    idx = jnp.asarray(indices).astype(jnp.int32)
    m = idx.shape[0]
    if m > data.ndim:
        raise ValueError(f"nd.gather_nd: indices index {m} axes but data has {data.ndim}")
    return data[tuple(idx[i] for i in range(m))]


@nd_op
def scatter_nd(data: jax.Array, indices: Any, shape: Sequence[int]) -> jax.Array:
    """The inverse of :func:`gather_nd`: zeros of ``shape`` with ``data`` written at ``indices``."""
    idx = jnp.asarray(indices).astype(jnp.int32)
    out = jnp.zeros(tuple(shape), data.dtype)
    return out.at[tuple(idx[i] for i in range(idx.shape[0]))].set(data)


@nd_op
def diag(data: jax.Array, k: int = 0, axis1: int = 0, axis2: int = 1) -> jax.Array:
    """A 1-D input becomes a diagonal matrix; an N-D input gives its ``k``-th diagonal."""
    if data.ndim == 1:
        return jnp.diag(data, k)
    return jnp.diagonal(data, offset=k, axis1=axis1, axis2=axis2)
