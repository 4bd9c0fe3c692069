"""Index-driven operators: ``embedding``, ``one_hot``, ``pick``, ``topk``, ``sequence_mask``.

>>> import jax.numpy as jnp
>>> from framework import npx
>>> npx.one_hot(jnp.array([0, 2]), 3).tolist()
[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
>>> npx.pick(jnp.array([[1.0, 2.0], [3.0, 4.0]]), jnp.array([1, 0])).tolist()
[2.0, 3.0]
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

__all__ = ["embedding", "one_hot", "pick", "topk", "sequence_mask"]


def embedding(
    data: jax.Array,
    weight: jax.Array,
    input_dim: int | None = None,
    output_dim: int | None = None,
    dtype: Any = "float32",
    sparse_grad: bool = False,
    **kwargs: Any,
) -> jax.Array:
    """Rows of ``weight`` (input_dim, output_dim) picked by the integer (or integral float) indices
    in ``data``; out-of-range indices are clipped to [0, input_dim - 1] as in MXNet.

    >>> import jax.numpy as jnp
    >>> w = jnp.arange(6.0).reshape(3, 2)
    >>> embedding(jnp.array([[2.0, 0.0]]), w, 3, 2).tolist()
    [[[4.0, 5.0], [0.0, 1.0]]]
    """
    op = "embedding"
    if weight.ndim != 2:
        raise ValueError(f"{op}: weight must be (input_dim, output_dim), got shape {tuple(weight.shape)}")
    input_dim = weight.shape[0] if input_dim is None else int(input_dim)
    output_dim = weight.shape[1] if output_dim is None else int(output_dim)
    if tuple(weight.shape) != (input_dim, output_dim):
        raise ValueError(
            f"{op}: weight has shape {tuple(weight.shape)}, expected (input_dim, output_dim) = "
            f"({input_dim}, {output_dim})"
        )
    idx = jnp.clip(jnp.asarray(data).astype(jnp.int32), 0, input_dim - 1)
    return jnp.take(weight, idx, axis=0)


def one_hot(
    data: jax.Array,
    depth: int,
    on_value: float = 1.0,
    off_value: float = 0.0,
    dtype: Any = "float32",
) -> jax.Array:
    """One-hot encoding along a new last axis of size ``depth``; out-of-range indices give all
    ``off_value``.

    >>> import jax.numpy as jnp
    >>> one_hot(jnp.array([1, 5]), 3, on_value=2.0, off_value=-1.0).tolist()
    [[-1.0, 2.0, -1.0], [-1.0, -1.0, -1.0]]
    """
    if int(depth) < 1:
        raise ValueError(f"one_hot: depth={depth} must be a positive integer")
    idx = jnp.asarray(data).astype(jnp.int32)[..., None]
    hot = idx == jnp.arange(int(depth), dtype=jnp.int32)
    return jnp.where(hot, jnp.asarray(on_value, dtype), jnp.asarray(off_value, dtype))


def pick(
    data: jax.Array,
    index: jax.Array,
    axis: int | None = -1,
    mode: str = "clip",
    keepdims: bool = False,
) -> jax.Array:
    """``data[..., index[...], ...]`` along ``axis``: one element per position of the other axes.

    ``index`` has data's shape without ``axis`` (or with it as 1). ``mode='clip'`` clips
    out-of-range indices, ``'wrap'`` wraps them. ``axis=None`` picks from the flattened data.

    >>> import jax.numpy as jnp
    >>> pick(jnp.array([[1.0, 2.0], [3.0, 4.0]]), jnp.array([5, -1]), mode='wrap').tolist()
    [2.0, 4.0]
    """
    op = "pick"
    if mode not in ("clip", "wrap"):
        raise ValueError(f"{op}: mode={mode!r} must be 'clip' or 'wrap'")
    index = jnp.asarray(index)
    if axis is None:
        data = data.reshape(-1)
        axis = 0
        index = index.reshape(-1) if index.ndim else index
    if not -data.ndim <= axis < data.ndim:
        raise ValueError(f"{op}: axis={axis} is out of range for data of shape {tuple(data.shape)}")
    ax = axis % data.ndim
    n = data.shape[ax]
    idx = index.astype(jnp.int32)
    idx = jnp.clip(idx, 0, n - 1) if mode == "clip" else jnp.mod(idx, n)
    reduced = data.shape[:ax] + data.shape[ax + 1:]
    kept = data.shape[:ax] + (1,) + data.shape[ax + 1:]
    if tuple(idx.shape) == reduced:
        idx = jnp.expand_dims(idx, ax)
    elif tuple(idx.shape) != kept:
        raise ValueError(
            f"{op}: index has shape {tuple(index.shape)}, expected {reduced} (data {tuple(data.shape)} "
            f"without axis {axis})"
        )
    out = jnp.take_along_axis(data, idx, axis=ax)
    return out if keepdims else jnp.squeeze(out, ax)


def topk(
    data: jax.Array,
    axis: int | None = -1,
    k: int = 1,
    ret_typ: str = "indices",
    is_ascend: bool = False,
    dtype: Any = "float32",
) -> jax.Array | list[jax.Array]:
    """The ``k`` largest (or smallest, ``is_ascend``) entries along ``axis``, sorted.

    ``ret_typ``: 'indices' (as ``dtype``, float32 by default like MXNet), 'value', 'both'
    ([values, indices]) or 'mask' (1 at the top-k positions). ``k < 1`` sorts the whole axis.

    >>> import jax.numpy as jnp
    >>> x = jnp.array([[3.0, 2.0, 4.0], [1.0, 3.0, 2.0]])
    >>> topk(x).tolist()
    [[2.0], [1.0]]
    >>> topk(x, ret_typ='value', k=2, is_ascend=True).tolist()
    [[2.0, 3.0], [1.0, 2.0]]
    """
    op = "topk"
    if ret_typ not in ("indices", "value", "both", "mask"):
        raise ValueError(f"{op}: ret_typ={ret_typ!r} must be 'indices', 'value', 'both' or 'mask'")
    if axis is None:
        data = data.reshape(-1)
        axis = 0
    if not -data.ndim <= axis < data.ndim:
        raise ValueError(f"{op}: axis={axis} is out of range for data of shape {tuple(data.shape)}")
    ax = axis % data.ndim
    n = data.shape[ax]
    k = n if k < 1 else int(k)
    if k > n:
        raise ValueError(f"{op}: k={k} is larger than the {n} elements on axis {axis}")
    moved = jnp.moveaxis(data, ax, -1)
    if is_ascend:
        neg, idx = lax.top_k(-moved, k)
        values = -neg
    else:
        values, idx = lax.top_k(moved, k)
    if ret_typ == "mask":
        hot = jnp.sum(jax.nn.one_hot(idx, n, dtype=data.dtype), axis=-2)
        return jnp.moveaxis(hot, -1, ax)
    values = jnp.moveaxis(values, -1, ax)
    indices = jnp.moveaxis(idx, -1, ax).astype(dtype)
    if ret_typ == "value":
        return values
    if ret_typ == "indices":
        return indices
    return [values, indices]


def sequence_mask(
    data: jax.Array,
    sequence_length: jax.Array | None = None,
    use_sequence_length: bool = False,
    value: float = 0.0,
    axis: int = 0,
) -> jax.Array:
    """Set the steps at or after each sequence's length to ``value``.

    ``axis`` is the time axis: 0 for (time, batch, ...) data, 1 for (batch, time, ...) data;
    ``sequence_length`` is (batch,). Without ``use_sequence_length`` the data is returned unchanged.

    >>> import jax.numpy as jnp
    >>> sequence_mask(jnp.ones((2, 3)), jnp.array([1, 3]), use_sequence_length=True, axis=1).tolist()
    [[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
    """
    op = "sequence_mask"
    if not use_sequence_length:
        return data
    if sequence_length is None:
        raise ValueError(f"{op}: use_sequence_length=True needs sequence_length")
    if axis not in (0, 1) or data.ndim < 2:
        raise ValueError(f"{op}: axis={axis} must be 0 or 1 and data at least 2-D, got {tuple(data.shape)}")
    batch_axis = 1 - axis
    lengths = jnp.asarray(sequence_length)
    if lengths.shape != (data.shape[batch_axis],):
        raise ValueError(
            f"{op}: sequence_length has shape {tuple(lengths.shape)}, expected ({data.shape[batch_axis]},) "
            f"(the batch axis {batch_axis} of data {tuple(data.shape)})"
        )
    steps = lax.broadcasted_iota(jnp.int32, data.shape[:2], axis)
    lens = jnp.expand_dims(lengths.astype(jnp.int32), axis)
    keep = (steps < lens).reshape(data.shape[:2] + (1,) * (data.ndim - 2))
    return jnp.where(keep, data, jnp.asarray(value, data.dtype))
