"""Array creation with MXNet's ``ctx=`` / ``device=`` and float32 defaults.

>>> from framework import np, npx
>>> np.zeros((2,), device=npx.cpu()).tolist()
[0.0, 0.0]
>>> np.array([1, 2]).dtype  # MXNet: Python numbers become float32
dtype('float32')
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from ..device import current_device, resolve

__all__ = [
    "array", "asarray", "zeros", "ones", "full", "empty", "arange", "linspace", "logspace",
    "eye", "identity", "zeros_like", "ones_like", "full_like", "empty_like", "place",
]

_DEFAULT_FLOAT = jnp.float32


def place(x: jax.Array, ctx: Any = None, device: Any = None) -> jax.Array:
    """Commit ``x`` to the device named by ``ctx``/``device`` (or the current device)."""
    dev = resolve(ctx, device) or current_device()
    return jax.device_put(x, dev)


def _is_array(obj: Any) -> bool:
    return isinstance(obj, (jax.Array, onp.ndarray, onp.generic))


def array(object: Any, dtype: Any = None, ctx: Any = None, *, device: Any = None,
          copy: bool = True) -> jax.Array:
    """``np.array``: arrays keep their dtype; Python numbers and lists become float32 (MXNet)."""
    if dtype is None and not _is_array(object):
        as_np = onp.asarray(object)
        dtype = onp.bool_ if as_np.dtype == onp.bool_ else _DEFAULT_FLOAT
    return place(jnp.array(object, dtype=dtype, copy=copy), ctx, device)


def asarray(obj: Any, dtype: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    """``np.asarray``: like :func:`array`; an array already on the device is returned as is."""
    if isinstance(obj, jax.Array) and dtype in (None, obj.dtype) and ctx is None and device is None:
        return obj
    return array(obj, dtype=dtype, ctx=ctx, device=device, copy=False)


def zeros(shape: Any, dtype: Any = None, order: str = "C", ctx: Any = None, *,
          device: Any = None) -> jax.Array:
    return place(jnp.zeros(shape, dtype or _DEFAULT_FLOAT), ctx, device)


def ones(shape: Any, dtype: Any = None, order: str = "C", ctx: Any = None, *,
         device: Any = None) -> jax.Array:
    return place(jnp.ones(shape, dtype or _DEFAULT_FLOAT), ctx, device)


def empty(shape: Any, dtype: Any = None, order: str = "C", ctx: Any = None, *,
          device: Any = None) -> jax.Array:
    """``np.empty``: XLA has no uninitialised memory, so this is zeros."""
    return zeros(shape, dtype, order, ctx, device=device)


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C", ctx: Any = None, *,
         device: Any = None) -> jax.Array:
    if dtype is None and not _is_array(fill_value):
        dtype = onp.bool_ if isinstance(fill_value, bool) else _DEFAULT_FLOAT
    return place(jnp.full(shape, fill_value, dtype), ctx, device)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None, ctx: Any = None, *,
           device: Any = None) -> jax.Array:
    """``np.arange``: float32 unless ``dtype`` says otherwise, as in MXNet."""
    return place(jnp.arange(start, stop, step, dtype=dtype or _DEFAULT_FLOAT), ctx, device)


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype: Any = None, axis: int = 0, ctx: Any = None, *, device: Any = None):
    out = jnp.linspace(start, stop, num, endpoint=endpoint, retstep=retstep,
                       dtype=dtype or _DEFAULT_FLOAT, axis=axis)
    if retstep:
        return place(out[0], ctx, device), out[1]
    return place(out, ctx, device)


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: float = 10.0,
             dtype: Any = None, axis: int = 0, ctx: Any = None, *, device: Any = None) -> jax.Array:
    out = jnp.logspace(start, stop, num, endpoint=endpoint, base=base,
                       dtype=dtype or _DEFAULT_FLOAT, axis=axis)
    return place(out, ctx, device)


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None, ctx: Any = None, *,
        device: Any = None) -> jax.Array:
    return place(jnp.eye(N, M, k, dtype=dtype or _DEFAULT_FLOAT), ctx, device)


def identity(n: int, dtype: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    return eye(n, dtype=dtype, ctx=ctx, device=device)


def _like_device(a: Any, ctx: Any, device: Any) -> Any:
    if ctx is None and device is None and isinstance(a, jax.Array):
        devs = a.devices()
        if len(devs) == 1:
            return next(iter(devs))
    return resolve(ctx, device)


def zeros_like(a: Any, dtype: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    return place(jnp.zeros_like(a, dtype=dtype), device=_like_device(a, ctx, device))


def ones_like(a: Any, dtype: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    return place(jnp.ones_like(a, dtype=dtype), device=_like_device(a, ctx, device))


def full_like(a: Any, fill_value: Any, dtype: Any = None, ctx: Any = None, *,
              device: Any = None) -> jax.Array:
    return place(jnp.full_like(a, fill_value, dtype=dtype), device=_like_device(a, ctx, device))


def empty_like(a: Any, dtype: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    return zeros_like(a, dtype, ctx, device=device)
