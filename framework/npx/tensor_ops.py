"""MXNet's array-level ``npx`` extras: ``batch_dot``, ``gather_nd``, ``nonzero``, ``reshape_like``,
``slice``, ``smooth_l1``, ``cast``, ``shape_array``, ``constraint_check``.

Integer results that MXNet gives as int64 are int32 here unless ``jax_enable_x64`` is on (JAX's default
integer width).

>>> import jax.numpy as jnp
>>> from framework import npx
>>> npx.batch_dot(jnp.ones((2, 3, 4)), jnp.ones((2, 4, 5))).shape
(2, 3, 5)
>>> npx.gather_nd(jnp.arange(6.0).reshape(2, 3), jnp.array([[1, 0], [2, -1]])).tolist()
[5.0, 2.0]
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

__all__ = ["batch_dot", "gather_nd", "nonzero", "reshape_like", "slice", "smooth_l1", "cast",
           "shape_array", "constraint_check"]

_INDEX = jax.dtypes.canonicalize_dtype(jnp.int64)


def batch_dot(lhs: jax.Array, rhs: jax.Array, transpose_a: bool = False, transpose_b: bool = False,
              forward_stype: Any = None) -> jax.Array:
    """Matrix products over the last two axes of N-D operands (N >= 3) with equal leading axes.

    >>> import jax.numpy as jnp
    >>> batch_dot(jnp.ones((2, 4, 3)), jnp.ones((2, 4, 5)), transpose_a=True).shape
    (2, 3, 5)
    """
    if forward_stype not in (None, "default"):
        raise ValueError(f"batch_dot: forward_stype={forward_stype!r}: only dense ('default') storage exists "
                         "here; leave it out")
    if lhs.ndim < 3 or rhs.ndim < 3 or lhs.ndim != rhs.ndim:
        raise ValueError(
            f"batch_dot: both operands must be N-D with the same N >= 3 (batch..., rows, cols), got shapes "
            f"{tuple(lhs.shape)} and {tuple(rhs.shape)}. For 2-D operands use np.dot."
        )
    a = jnp.swapaxes(lhs, -1, -2) if transpose_a else lhs
    b = jnp.swapaxes(rhs, -1, -2) if transpose_b else rhs
    if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2]:
        raise ValueError(
            f"batch_dot: shapes {tuple(a.shape)} and {tuple(b.shape)} (after transpose_a={transpose_a}, "
            f"transpose_b={transpose_b}) do not multiply as batched matrices"
        )
    return jnp.matmul(a, b)


def gather_nd(data: jax.Array, indices: Any) -> jax.Array:
    """``out[y...] = data[indices[0, y...], ..., indices[M-1, y...]]``; negative indices count from the
    end (out-of-range ones are clamped: no error inside a compiled program).

    >>> import jax.numpy as jnp
    >>> gather_nd(jnp.arange(4.0).reshape(2, 2), jnp.array([[1], [0]])).tolist()
    [2.0]
    """
    idx = jnp.asarray(indices)
    if idx.ndim < 1 or idx.shape[0] > data.ndim:
        m = idx.shape[0] if idx.ndim else 0
        raise ValueError(f"gather_nd: indices of shape {tuple(idx.shape)} index {m} "
                         f"axes, but data has {data.ndim} (shape {tuple(data.shape)}); the first axis of "
                         "indices counts the indexed axes")
    idx = idx.astype(jnp.int32)
    return data[tuple(idx[i] for i in range(idx.shape[0]))]


def nonzero(a: Any) -> jax.Array:
    """The indices of the non-zero entries, one row per entry: shape (count, max(a.ndim, 1)).

    The count depends on the values, so this runs on concrete arrays only (not inside ``jax.jit``).

    >>> import jax.numpy as jnp
    >>> nonzero(jnp.array([[0, 1], [2, 0]])).tolist()
    [[0, 1], [1, 0]]
    """
    if isinstance(a, jax.core.Tracer):
        raise TypeError("npx.nonzero: the number of non-zero entries decides the output shape, so it "
                        "cannot run inside jax.jit or a hybridized block. Call it on a concrete array, or "
                        "use np.nonzero(x, size=N) with a fixed size.")
    host = onp.asarray(a)
    host = host.reshape(1) if host.ndim == 0 else host
    # placed, not jnp.asarray'd: JAX (0.10-0.12) runs a program of each new shape for the latter
    return jax.device_put(onp.ascontiguousarray(onp.stack(onp.nonzero(host), axis=1), dtype=_INDEX))


def reshape_like(lhs: jax.Array, rhs: jax.Array, lhs_begin: int | None = None, lhs_end: int | None = None,
                 rhs_begin: int | None = None, rhs_end: int | None = None) -> jax.Array:
    """``lhs`` reshaped so that its axes ``[lhs_begin, lhs_end)`` become ``rhs.shape[rhs_begin:rhs_end]``.

    >>> import jax.numpy as jnp
    >>> reshape_like(jnp.ones((2, 3, 4)), jnp.ones((6, 2)), lhs_begin=1, lhs_end=3, rhs_begin=0).shape
    (2, 6, 2)
    """
    ls, rs = list(lhs.shape), list(rhs.shape)
    lb, le = builtins.slice(lhs_begin, lhs_end).indices(len(ls))[:2]
    rb, re_ = builtins.slice(rhs_begin, rhs_end).indices(len(rs))[:2]
    new = ls[:lb] + rs[rb:re_] + ls[le:]
    if math.prod(new) != math.prod(ls):
        raise ValueError(f"reshape_like: lhs of shape {tuple(ls)} cannot take the shape {tuple(new)} "
                         f"(lhs[{lhs_begin}:{lhs_end}] replaced by rhs{tuple(rs)}[{rhs_begin}:{rhs_end}]): "
                         "the sizes differ")
    return jnp.reshape(lhs, new)


def _entry(seq: Sequence[Any] | None, i: int) -> Any:
    if seq is None or i >= len(seq):
        return None
    return seq[i]


def slice(  # noqa: A001
    data: jax.Array, begin: Sequence[Any], end: Sequence[Any], step: Sequence[Any] | None = None
) -> jax.Array:
    """``data[begin[0]:end[0]:step[0], ...]`` over the first ``len(begin)`` axes; ``None`` entries take
    Python's defaults.

    >>> import jax.numpy as jnp
    >>> slice(jnp.arange(10), begin=(8,), end=(2,), step=(-2,)).tolist()
    [8, 6, 4]
    """
    begin, end = tuple(begin), tuple(end)
    if len(begin) != len(end) or len(begin) > data.ndim:
        raise ValueError(f"slice: begin={begin} and end={end} must have the same length, at most the "
                         f"{data.ndim} axes of data")
    step = tuple(step) if step else ()
    if len(step) > len(begin):
        raise ValueError(f"slice: step={step} is longer than begin={begin}")
    for s in step:
        if s == 0:
            raise ValueError("slice: a step of 0 is not allowed")
    index = tuple(builtins.slice(begin[i], end[i], _entry(step, i)) for i in range(len(begin)))
    return data[index]


def smooth_l1(data: jax.Array, scalar: float = 1.0) -> jax.Array:
    """MXNet's smooth L1 with sigma = ``scalar``: ``0.5 (sigma x)^2`` where ``|x| < 1/sigma^2``, else
    ``|x| - 0.5/sigma^2``.

    >>> import jax.numpy as jnp
    >>> smooth_l1(jnp.array([-2.0, 0.5])).tolist()
    [1.5, 0.125]
    """
    s2 = float(scalar) ** 2
    ax = jnp.abs(data)
    return jnp.where(ax < 1.0 / s2, 0.5 * s2 * data * data, ax - 0.5 / s2)


def cast(data: jax.Array, dtype: Any) -> jax.Array:
    """``data`` converted to ``dtype``.

    >>> import jax.numpy as jnp
    >>> cast(jnp.array([1.7, -1.7]), 'int32').tolist()
    [1, -1]
    """
    return jnp.asarray(data).astype(dtype)


def shape_array(data: jax.Array) -> jax.Array:
    """The shape of ``data`` as a 1-D integer array.

    >>> import jax.numpy as jnp
    >>> shape_array(jnp.ones((2, 3))).tolist()
    [2, 3]
    """
    return jnp.asarray(jnp.shape(data), dtype=_INDEX)


def constraint_check(x: jax.Array, msg: str = "Constraint violated.") -> jax.Array:
    """``True`` (a 0-d bool array) when every entry of the boolean ``x`` holds; raises ``ValueError(msg)``
    when one does not. Inside ``jax.jit`` the values are unknown: the check passes through as
    ``all(x)`` without raising.

    >>> import jax.numpy as jnp
    >>> constraint_check(jnp.array([True, True]), 'positive').item()
    True
    """
    x = jnp.asarray(x)
    if x.dtype != jnp.bool_:
        raise TypeError(f"constraint_check: the condition must be a boolean array, got dtype {x.dtype}; "
                        "compare first (e.g. x > 0)")
    ok = jnp.all(x)
    if not isinstance(ok, jax.core.Tracer) and not bool(ok):
        raise ValueError(msg)
    return ok
