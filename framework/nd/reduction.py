"""``mx.nd`` reductions with MXNet 1.x's ``axis``/``keepdims``/``exclude``: a result reduced to a scalar
has shape (1,) (1.x has no 0-d arrays); ``argmax``/``argmin`` give float32 indices.

>>> import jax.numpy as jnp
>>> from framework import nd
>>> x = jnp.arange(6.0).reshape(2, 3)
>>> nd.sum(x).tolist(), nd.sum(x, axis=1, exclude=True).tolist()
([15.0], [3.0, 5.0, 7.0])
>>> nd.argmax(x, axis=1).tolist()
[2.0, 2.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from ._op import legacy_scalar, nd_op, norm_axis, reduce_axes

__all__: list[str] = [
    "sum_axis", "max_axis", "min_axis", "norm", "argmax", "argmin", "argmax_channel", "moments",
]


def _reduction(name: str, fn: Callable[..., jax.Array]) -> Callable:
    def op(data: jax.Array, axis: Any = None, keepdims: bool = False, exclude: bool = False) -> jax.Array:
        axes = reduce_axes(data.ndim, axis, exclude, name)
        return legacy_scalar(fn(data, axis=axes, keepdims=keepdims))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"MXNet 1.x ``nd.{name}(data, axis=None, keepdims=False, exclude=False)``; a full "
                  "reduction has shape (1,).")
    return nd_op(op)


for _name, _fn in {"sum": jnp.sum, "mean": jnp.mean, "prod": jnp.prod, "max": jnp.max, "min": jnp.min,
                   "nansum": jnp.nansum, "nanprod": jnp.nanprod}.items():
    globals()[_name] = _reduction(_name, _fn)
    __all__.append(_name)
sum_axis = globals()["sum"]
max_axis = globals()["max"]
min_axis = globals()["min"]


@nd_op
def norm(data: jax.Array, ord: int = 2, axis: Any = None, out_dtype: Any = None,
         keepdims: bool = False) -> jax.Array:
    """The L1 (``ord=1``) or L2 (``ord=2``) norm over ``axis`` (all axes by default: shape (1,)).

    >>> import jax.numpy as jnp
    >>> norm(jnp.array([[3.0, 4.0]])).tolist()
    [5.0]
    """
    if ord not in (1, 2):
        raise ValueError(f"nd.norm: ord={ord} is not supported; MXNet's nd.norm takes ord=1 or ord=2")
    axes = reduce_axes(data.ndim, axis, False, "norm")
    if ord == 1:
        out = jnp.sum(jnp.abs(data), axis=axes, keepdims=keepdims)
    else:
        out = jnp.sqrt(jnp.sum(jnp.square(data), axis=axes, keepdims=keepdims))
    if out_dtype is not None:
        out = out.astype(out_dtype)
    return legacy_scalar(out)


def _arg(name: str, fn: Callable[..., jax.Array]) -> Callable:
    def op(data: jax.Array, axis: int | None = None, keepdims: bool = False) -> jax.Array:
        if axis is None:
            out = fn(data.reshape(-1)).reshape((1,) * data.ndim if keepdims else (1,))
        else:
            ax = norm_axis(axis, data.ndim, name)
            out = fn(data, axis=ax, keepdims=keepdims)
        return out.astype(jnp.float32)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"MXNet 1.x ``nd.{name}(data, axis=None, keepdims=False)``: float32 indices."
    return nd_op(op)


argmax = _arg("argmax", jnp.argmax)
argmin = _arg("argmin", jnp.argmin)


@nd_op
def argmax_channel(data: jax.Array) -> jax.Array:
    """``argmax`` along axis 1, the channels (float32 indices).

    >>> import jax.numpy as jnp
    >>> argmax_channel(jnp.array([[1.0, 3.0, 2.0]])).tolist()
    [1.0]
    """
    return jnp.argmax(data, axis=1).astype(jnp.float32)


@nd_op
def moments(data: jax.Array, axes: Any = None, keepdims: bool = False) -> list[jax.Array]:
    """``[mean, variance]`` (biased) over ``axes``.

    >>> import jax.numpy as jnp
    >>> [v.tolist() for v in moments(jnp.array([1.0, 3.0]), axes=(0,))]
    [[2.0], [1.0]]
    """
    ax = reduce_axes(data.ndim, axes, False, "moments")
    mean = jnp.mean(data, axis=ax, keepdims=keepdims)
    var = jnp.var(data, axis=ax, keepdims=keepdims)
    return [legacy_scalar(mean), legacy_scalar(var)]
