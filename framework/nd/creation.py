"""``mx.nd`` creation functions with MXNet 1.x's signatures: ``zeros(shape, ctx=None, dtype=None)`` (the
device is the second positional argument), float32 by default, even from integer NumPy arrays.

>>> from framework import nd, npx
>>> nd.zeros((2,), npx.cpu(0), 'int32').tolist()
[0, 0]
>>> nd.array([1, 2]).dtype
dtype('float32')
>>> nd.arange(0, 3, repeat=2).tolist()
[0.0, 0.0, 1.0, 1.0, 2.0, 2.0]
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ..device import resolve
from ..np.creation import filled, from_host, place
from ._op import nd_op

__all__ = [
    "array", "zeros", "ones", "full", "empty", "arange", "linspace", "eye", "zeros_like", "ones_like",
    "full_like", "empty_like", "cast", "Cast", "identity",
]

_F32 = jnp.float32


def _dt(dtype: Any) -> Any:
    return _F32 if dtype is None else dtype


def array(source_array: Any, ctx: Any = None, dtype: Any = None) -> jax.Array:
    """``mx.nd.array``: a jax array keeps its dtype; anything else becomes ``dtype`` (float32).

    >>> array([[1, 2]]).shape
    (1, 2)
    """
    if dtype is None:
        dtype = source_array.dtype if isinstance(source_array, jax.Array) else _F32
    made = from_host(source_array, dtype, resolve(ctx))
    if made is not None:
        return made
    return place(jnp.asarray(source_array, dtype=dtype), ctx)


def zeros(shape: Any, ctx: Any = None, dtype: Any = None, **kwargs: Any) -> jax.Array:
    """``mx.nd.zeros(shape, ctx=None, dtype=None)``.

    >>> zeros(2).shape
    (2,)
    """
    _no_stype("zeros", kwargs)
    return full(shape, 0, ctx, dtype)


def ones(shape: Any, ctx: Any = None, dtype: Any = None, **kwargs: Any) -> jax.Array:
    """``mx.nd.ones(shape, ctx=None, dtype=None)``."""
    _no_stype("ones", kwargs)
    return full(shape, 1, ctx, dtype)


def empty(shape: Any, ctx: Any = None, dtype: Any = None) -> jax.Array:
    """``mx.nd.empty``: zeros here (XLA has no uninitialised memory)."""
    return full(shape, 0, ctx, dtype)


def full(shape: Any, val: Any, ctx: Any = None, dtype: Any = None) -> jax.Array:
    """``mx.nd.full(shape, val, ctx=None, dtype=float32)``.

    >>> full((2,), 7).tolist()
    [7.0, 7.0]
    """
    return filled(shape, val, _dt(dtype), resolve(ctx))


def arange(start: float, stop: float | None = None, step: float = 1.0, repeat: int = 1,
           infer_range: bool | None = None, ctx: Any = None, dtype: Any = None) -> jax.Array:
    """``mx.nd.arange``: ``repeat`` repeats each value; float32 by default."""
    if int(repeat) < 1:
        raise ValueError(f"nd.arange: repeat={repeat} must be >= 1")
    values = jnp.arange(start, stop, step, dtype=_dt(dtype))
    if repeat > 1:
        values = jnp.repeat(values, int(repeat))
    return place(values, ctx)


def linspace(start: float, stop: float, num: int, endpoint: bool = True, ctx: Any = None,
             dtype: Any = None) -> jax.Array:
    """``mx.nd.linspace``."""
    return place(jnp.linspace(start, stop, int(num), endpoint=endpoint, dtype=_dt(dtype)), ctx)


def eye(N: int, M: int = 0, k: int = 0, ctx: Any = None, dtype: Any = None) -> jax.Array:
    """``mx.nd.eye(N, M=0, k=0)``: ``M=0`` means square.

    >>> eye(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return place(jnp.eye(int(N), int(M) or None, int(k), dtype=_dt(dtype)), ctx)


def identity(n: int, ctx: Any = None, dtype: Any = None) -> jax.Array:
    """An ``n`` by ``n`` identity matrix."""
    return eye(n, ctx=ctx, dtype=dtype)


def _no_stype(op: str, kwargs: dict[str, Any]) -> None:
    stype = kwargs.pop("stype", None)
    if kwargs:
        raise TypeError(f"nd.{op}: unexpected keyword argument(s) {sorted(kwargs)}")
    if stype not in (None, "default"):
        raise ValueError(
            f"nd.{op}: stype={stype!r}: sparse storage (csr, row_sparse) is not supported; dense "
            "arrays are used (jax.experimental.sparse is the JAX counterpart)"
        )


@nd_op
def zeros_like(data: jax.Array, dtype: Any = None) -> jax.Array:
    """Zeros shaped and typed like ``data``. ``dtype`` is accepted and, as by MXNet 1.9.1's operator,
    not applied (GluonCV passes it); cast the result (``nd.cast``) for another type.

    >>> zeros_like(jnp.ones((2,), 'int32'), dtype='int64').dtype
    dtype('int32')
    """
    return jnp.zeros_like(data)


@nd_op
def ones_like(data: jax.Array, dtype: Any = None) -> jax.Array:
    """Ones shaped and typed like ``data`` (``dtype`` accepted and not applied, as by MXNet 1.9.1)."""
    return jnp.ones_like(data)


@nd_op
def full_like(data: jax.Array, fill_value: float) -> jax.Array:
    """``fill_value`` shaped and typed like ``data``."""
    return jnp.full_like(data, fill_value)


empty_like = zeros_like


@nd_op
def cast(data: jax.Array, dtype: Any) -> jax.Array:
    """``data`` converted to ``dtype`` (MXNet's ``Cast``).

    >>> import jax.numpy as jnp
    >>> cast(jnp.array([1.7]), 'int32').tolist()
    [1]
    """
    return data.astype(dtype)


Cast = cast
