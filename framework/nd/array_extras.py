"""The rest of MXNet 1.x's ``mx.nd`` array functions: ``cumsum``, ``moveaxis``, ``histogram``,
``khatri_rao``, ``ravel_multi_index``/``unravel_index``, ``split_v2``, ``true_divide``, the legacy
``choose_element_0index``/``fill_element_0index``/``onehot_encode``, ``concatenate``, the mixed-precision
casts ``amp_cast``/``amp_multicast``, and ``cast_storage`` (dense storage only).

>>> import framework as mx
>>> mx.nd.cumsum(mx.nd.array([[1, 2], [3, 4]]), axis=1).tolist()
[[1.0, 3.0], [3.0, 7.0]]
>>> mx.nd.khatri_rao(mx.nd.array([[1, 2]]), mx.nd.array([[3, 4]])).tolist()
[[3.0, 8.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from ..autograd.variable import Variable
from ._op import nd_op

__all__ = ["cumsum", "moveaxis", "histogram", "khatri_rao", "ravel_multi_index", "unravel_index", "split_v2",
           "true_divide", "choose_element_0index", "fill_element_0index", "onehot_encode", "concatenate",
           "amp_cast", "amp_multicast", "cast_storage"]

_INDEX = jax.dtypes.canonicalize_dtype(jnp.int64)


@nd_op
def cumsum(a: jax.Array, axis: int | None = None, dtype: Any = None) -> jax.Array:
    """Cumulative sum along ``axis`` (of the flattened array when None)."""
    return jnp.cumsum(a, axis=axis, dtype=dtype)


@nd_op
def moveaxis(tensor: jax.Array, source: int | Sequence[int], destination: int | Sequence[int]) -> jax.Array:
    """Axes ``source`` moved to ``destination``."""
    return jnp.moveaxis(tensor, source, destination)


@nd_op
def histogram(a: jax.Array, bins: Any = 10, range: tuple[float, float] | None = None) -> list[jax.Array]:  # noqa: A002
    """``[counts (integer), bin edges]``: ``bins`` equal bins over ``range`` (default: the data's range),
    or the edges given as an array; values outside are not counted."""
    if isinstance(bins, int):
        if range is None:
            lo, hi = jnp.min(a), jnp.max(a)
        else:
            lo, hi = (jnp.asarray(v, jnp.float32) for v in range)
        edges = lo + (hi - lo) * jnp.arange(bins + 1, dtype=jnp.float32) / bins
    else:
        edges = jnp.asarray(bins, jnp.float32)
    counts, _ = jnp.histogram(jnp.asarray(a, jnp.float32).reshape(-1), bins=edges)
    return [counts.astype(_INDEX), edges.astype(a.dtype)]


@nd_op
def khatri_rao(*args: jax.Array) -> jax.Array:
    """Column-wise Kronecker product of matrices with one number of columns: (prod of rows, columns)."""
    if not args or any(m.ndim != 2 or m.shape[1] != args[0].shape[1] for m in args):
        raise ValueError("khatri_rao: give 2-D matrices with the same number of columns, got shapes "
                         f"{[tuple(m.shape) for m in args]}")
    out = args[0]
    for m in args[1:]:
        out = (out[:, None, :] * m[None, :, :]).reshape(-1, out.shape[1])
    return out


@nd_op
def ravel_multi_index(data: jax.Array, shape: Sequence[int] = ()) -> jax.Array:
    """Flat indices (n,) of the coordinates ``data`` (ndim, n) in an array of ``shape``."""
    strides = onp.cumprod((1,) + tuple(shape)[:0:-1])[::-1].astype(onp.int64)
    idx = jnp.asarray(data).astype(jnp.int32)
    return jnp.sum(idx * jnp.asarray(strides, jnp.int32).reshape((-1,) + (1,) * (idx.ndim - 1)),
                   axis=0).astype(jnp.asarray(data).dtype)


@nd_op
def unravel_index(data: jax.Array, shape: Sequence[int] = ()) -> jax.Array:
    """Coordinates (ndim, n) of the flat indices ``data`` in an array of ``shape``."""
    idx = jnp.asarray(data).astype(jnp.int32)
    return jnp.stack(jnp.unravel_index(idx, tuple(int(s) for s in shape))).astype(jnp.asarray(data).dtype)


@nd_op
def split_v2(ary: jax.Array, indices_or_sections: int | Sequence[int], axis: int = 0,
             squeeze_axis: bool = False) -> list[jax.Array]:
    """NumPy's ``split`` (equal sections, or at the given indices); ``squeeze_axis`` drops ``axis`` from
    pieces of size 1."""
    parts = jnp.split(ary, indices_or_sections if isinstance(indices_or_sections, int)
                      else list(indices_or_sections), axis=axis)
    if squeeze_axis:
        parts = [jnp.squeeze(p, axis=axis) for p in parts]
    return parts


@nd_op
def true_divide(lhs: Any, rhs: Any) -> jax.Array:
    """``lhs / rhs``; integer operands give the integer quotient truncated toward zero, as in MXNet."""
    a, b = jnp.asarray(lhs), jnp.asarray(rhs)
    if jnp.issubdtype(a.dtype, jnp.integer) and jnp.issubdtype(b.dtype, jnp.integer):
        return jnp.trunc(a / b).astype(a.dtype)
    return a / b


@nd_op
def choose_element_0index(data: jax.Array, index: jax.Array, axis: int = -1, keepdims: bool = False,
                          mode: str = "clip") -> jax.Array:
    """``data[i, index[i]]`` (the legacy ``pick`` on the last axis)."""
    idx = jnp.clip(jnp.asarray(index).astype(jnp.int32), 0, data.shape[-1] - 1)
    out = jnp.take_along_axis(data, idx[..., None], axis=-1)
    return out if keepdims else out[..., 0]


@nd_op
def fill_element_0index(lhs: jax.Array, mhs: jax.Array, rhs: jax.Array) -> jax.Array:
    """``lhs`` with ``lhs[i, rhs[i]] = mhs[i]``."""
    idx = jnp.asarray(rhs).astype(jnp.int32)
    return lhs.at[jnp.arange(lhs.shape[0]), idx].set(jnp.asarray(mhs).astype(lhs.dtype))


def onehot_encode(indices: Any, out: Any) -> Any:
    """The legacy one-hot encoder: rows of ``out``'s shape with 1 at ``indices``. ``out`` is returned
    updated when it is a Variable; otherwise the new array is returned (JAX arrays are immutable)."""
    shape, dtype = jnp.shape(out), jnp.asarray(out).dtype
    hot = (jnp.asarray(indices).astype(jnp.int32)[:, None] == jnp.arange(shape[1])).astype(dtype)
    if isinstance(out, Variable):
        out[...] = hot
        return out
    return hot


@nd_op
def concatenate(arrays: Sequence[jax.Array], axis: int = 0, always_copy: bool = True) -> jax.Array:
    """``arrays`` joined along ``axis``."""
    return jnp.concatenate(list(arrays), axis=axis)


@nd_op
def amp_cast(data: jax.Array, dtype: Any = None) -> jax.Array:
    """``data`` in ``dtype`` (floating inputs only are cast, as in MXNet's mixed precision)."""
    if dtype is None:
        raise TypeError("amp_cast: dtype is required")
    return data.astype(dtype) if jnp.issubdtype(data.dtype, jnp.floating) else data


@nd_op
def amp_multicast(*data: jax.Array, num_outputs: int | None = None,
                  cast_narrow: bool = False) -> list[jax.Array]:
    """Every floating input cast to the widest floating type among them (the narrowest with
    ``cast_narrow``)."""
    if num_outputs is not None and num_outputs != len(data):
        raise ValueError(f"amp_multicast: num_outputs={num_outputs} but {len(data)} arrays were given")
    floats = [d.dtype for d in data if jnp.issubdtype(d.dtype, jnp.floating)]
    if not floats:
        return list(data)
    sizes = sorted(floats, key=lambda t: jnp.dtype(t).itemsize)
    target = sizes[0] if cast_narrow else sizes[-1]
    return [d.astype(target) if jnp.issubdtype(d.dtype, jnp.floating) else d for d in data]


@nd_op
def cast_storage(data: jax.Array, stype: str = "default") -> jax.Array:
    """Dense (``'default'``) storage only: JAX arrays are dense."""
    if stype != "default":
        raise ValueError(f"cast_storage: stype={stype!r} (sparse storage) is not supported: JAX arrays are "
                         "dense. Keep 'default'.")
    return data
