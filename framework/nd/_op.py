"""What every ``mx.nd`` operator shares: MXNet 1.x's ``out=``/``name=`` arguments, recording, axes.

>>> import jax.numpy as jnp
>>> from framework.nd._op import nd_op, reduce_axes
>>> @nd_op
... def twice(data):
...     return data * 2
>>> twice(jnp.ones(2), name='x').tolist()
[2.0, 2.0]
>>> reduce_axes(3, (1,), exclude=True)
(0, 2)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from ..np.dispatch import recordable

__all__ = ["nd_op", "reduce_axes", "as_array", "legacy_scalar", "norm_axis"]


def nd_op(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Accept MXNet 1.x's ``name=`` (a symbol name: ignored) and ``out=`` (refused: jax arrays are
    immutable), and record the call under ``autograd.record()``. A ``ValueError``/``TypeError``/
    ``IndexError`` raised inside by JAX or NumPy is raised again naming the operator and its arguments
    (a try block: nothing is added to a call that succeeds)."""
    rec = recordable(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, name: str | None = None, out: Any = None, **kwargs: Any) -> Any:
        if out is not None:
            raise TypeError(
                f"nd.{fn.__name__}(..., out=...): jax arrays are immutable, so an operator cannot write "
                f"into an existing array. Use the returned value: y = nd.{fn.__name__}(...)."
            )
        try:
            return rec(*args, **kwargs)
        except (ValueError, TypeError, IndexError) as err:
            if type(err) not in (ValueError, TypeError, IndexError) or str(err).startswith("nd."):
                raise  # the operator's own message, or an error type of its own
            raise type(err)(f"nd.{fn.__name__}({_describe(args, kwargs)}): {err}") from err

    wrapper.__wrapped__ = fn
    return wrapper


def _describe(args: tuple, kwargs: dict[str, Any]) -> str:
    """The arguments of a failed call, arrays by shape and dtype: ``data: float32 (2, 3), dim=1``."""
    def show(v: Any) -> str:
        if hasattr(v, "shape") and hasattr(v, "dtype"):
            return f"{v.dtype} {tuple(v.shape)}"
        text = repr(v)
        return text if len(text) <= 40 else text[:37] + "..."
    parts = [show(a) for a in args[:6]] + (["..."] if len(args) > 6 else [])
    parts += [f"{k}={show(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)


def as_array(x: Any) -> jax.Array:
    """``x`` as a jax array (Python numbers become float32, as MXNet's NDArrays are)."""
    if isinstance(x, jax.Array):
        return x
    if isinstance(x, (int, float)):
        return jnp.asarray(x, jnp.float32)
    if isinstance(x, onp.ndarray):  # placed: jnp.asarray runs a program of each new shape (JAX 0.10-0.12)
        return jax.device_put(x)
    return jnp.asarray(x)


def norm_axis(axis: int, ndim: int, op: str) -> int:
    """``axis`` in ``[0, ndim)``; an error naming ``op`` otherwise."""
    if not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"nd.{op}: axis={axis} is out of range for {ndim}-D data")
    return axis % max(ndim, 1)


def reduce_axes(ndim: int, axis: Any, exclude: bool = False, op: str = "reduce") -> tuple[int, ...]:
    """The axes an MXNet 1.x reduction acts on: ``axis`` None or () means all; ``exclude`` inverts."""
    if axis is None or (isinstance(axis, Sequence) and len(axis) == 0):
        axes: tuple[int, ...] = tuple(range(ndim)) if not exclude else ()
        return axes
    axes = tuple(axis) if isinstance(axis, Sequence) else (int(axis),)
    axes = tuple(norm_axis(a, ndim, op) for a in axes)
    if exclude:
        axes = tuple(i for i in range(ndim) if i not in axes)
    return axes


def legacy_scalar(x: jax.Array) -> jax.Array:
    """MXNet 1.x has no 0-d NDArray: a result reduced to a scalar has shape (1,)."""
    return x.reshape(1) if x.ndim == 0 else x
