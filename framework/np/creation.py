"""Array creation with MXNet's ``ctx=`` / ``device=`` and float32 defaults.

Outside a trace, fills and ranges for a CPU device are made in host memory and placed: ``jnp.zeros`` or
``jnp.arange`` called eagerly compile a program for every new shape (tens of milliseconds each on
XLA:CPU), MXNet's creation functions none. For an accelerator, and inside a trace, JAX makes them.

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

from .. import _jax_compat
from .. import device as _device
from ..device import current_device, resolve

__all__ = [
    "array", "asarray", "zeros", "ones", "full", "empty", "arange", "linspace", "logspace",
    "eye", "identity", "zeros_like", "ones_like", "full_like", "empty_like", "place", "made_on_host",
    "filled", "from_host",
]

_DEFAULT_FLOAT = jnp.float32


def place(x: jax.Array, ctx: Any = None, device: Any = None) -> jax.Array:
    """Commit ``x`` to the device named by ``ctx``/``device`` (or the current device)."""
    dev = resolve(ctx, device) or current_device()
    return jax.device_put(x, dev)


def made_on_host(make: Any, device: jax.Device | None, *args: Any) -> jax.Array | None:
    """``make(*args)`` (a NumPy function) placed on ``device`` (or the current device), or None where it
    must be made by JAX: inside a trace, for an argument JAX must see (a tracer), for a device that is
    not a CPU, or for a value NumPy refuses.

    >>> made_on_host(onp.zeros, None, (2,), onp.float32).tolist()
    [0.0, 0.0]
    """
    if not _jax_compat.evaluates_eagerly() or any(_jax_compat.is_tracer(a) for a in args):
        return None
    device = device or current_device()
    if device.platform != "cpu":
        return None
    try:
        host = make(*args)
    except (TypeError, ValueError, OverflowError):
        return None
    return _device.host_to_device(host, device)  # made here: nobody else holds it


def _dtype(dtype: Any) -> onp.dtype:
    return jax.dtypes.canonicalize_dtype(jnp.dtype(dtype))


def filled(shape: Any, value: Any, dtype: Any, device: jax.Device | None = None) -> jax.Array:
    """``jnp.full(shape, value, dtype)`` on ``device`` (or the current device), made in host memory
    where :func:`made_on_host` can.

    >>> filled((2,), 3, "int32").tolist()
    [3, 3]
    """
    dtype = _dtype(dtype)
    made = made_on_host(onp.full, device, shape, value, dtype)
    if made is not None:
        return made
    return place(jnp.full(shape, jnp.asarray(value, dtype), dtype), device=device)


def _is_array(obj: Any) -> bool:
    return isinstance(obj, (jax.Array, onp.ndarray, onp.generic))


def array(object: Any, dtype: Any = None, ctx: Any = None, *, device: Any = None,
          copy: bool = True) -> jax.Array:
    """``np.array``: arrays keep their dtype; Python numbers and lists become float32 (MXNet)."""
    if dtype is None and not _is_array(object):
        object = onp.asarray(object)  # host data (a list ...), converted once
        dtype = onp.bool_ if object.dtype == onp.bool_ else _DEFAULT_FLOAT
    made = from_host(object, dtype, resolve(ctx, device))
    if made is not None:
        return made
    return place(jnp.array(object, dtype=dtype, copy=copy), ctx, device)


def from_host(obj: Any, dtype: Any, device: jax.Device | None) -> jax.Array | None:
    """Host data (a list, a NumPy array, a number) as an array of ``dtype`` (None: JAX's dtype for it)
    placed on ``device`` (or the current device), where :func:`made_on_host` can; None for a jax array
    or where JAX must make it. ``jnp.array`` of host data runs a program of each new shape (JAX 0.10-0.12),
    placing a NumPy array none.

    >>> from_host([1, 2], "int32", None).dtype
    dtype('int32')
    """
    if isinstance(obj, jax.Array):
        return None
    return made_on_host(_host_array, device, obj, dtype)


def _host_array(obj: Any, dtype: Any) -> onp.ndarray:
    return onp.array(obj, dtype=_dtype(onp.asarray(obj).dtype if dtype is None else dtype))


def asarray(obj: Any, dtype: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    """``np.asarray``: like :func:`array`; an array already on the device is returned as is."""
    if isinstance(obj, jax.Array) and dtype in (None, obj.dtype) and ctx is None and device is None:
        return obj
    return array(obj, dtype=dtype, ctx=ctx, device=device, copy=False)


def zeros(shape: Any, dtype: Any = None, order: str = "C", ctx: Any = None, *,
          device: Any = None) -> jax.Array:
    return filled(shape, 0, dtype or _DEFAULT_FLOAT, resolve(ctx, device))


def ones(shape: Any, dtype: Any = None, order: str = "C", ctx: Any = None, *,
         device: Any = None) -> jax.Array:
    return filled(shape, 1, dtype or _DEFAULT_FLOAT, resolve(ctx, device))


def empty(shape: Any, dtype: Any = None, order: str = "C", ctx: Any = None, *,
          device: Any = None) -> jax.Array:
    """``np.empty``: XLA has no uninitialised memory, so this is zeros."""
    return zeros(shape, dtype, order, ctx, device=device)


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C", ctx: Any = None, *,
         device: Any = None) -> jax.Array:
    if dtype is None and not _is_array(fill_value):
        dtype = onp.bool_ if isinstance(fill_value, bool) else _DEFAULT_FLOAT
    if dtype is None:
        return place(jnp.full(shape, fill_value), ctx, device)
    return filled(shape, fill_value, dtype, resolve(ctx, device))


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None, ctx: Any = None, *,
           device: Any = None) -> jax.Array:
    """``np.arange``: float32 unless ``dtype`` says otherwise, as in MXNet."""
    dtype = _dtype(dtype or _DEFAULT_FLOAT)
    made = made_on_host(onp.arange, resolve(ctx, device), start, stop, step, dtype)
    return made if made is not None else place(jnp.arange(start, stop, step, dtype=dtype), ctx, device)


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
    if ctx is None and device is None and isinstance(a, jax.Array) and not _jax_compat.is_tracer(a):
        devs = a.devices()
        if len(devs) == 1:
            return next(iter(devs))
    return resolve(ctx, device)


def full_like(a: Any, fill_value: Any, dtype: Any = None, ctx: Any = None, *,
              device: Any = None) -> jax.Array:
    dev = _like_device(a, ctx, device)
    if _jax_compat.is_tracer(a) or not hasattr(a, "shape"):
        return place(jnp.full_like(a, fill_value, dtype=dtype), device=dev)
    return filled(a.shape, fill_value, dtype or a.dtype, dev)


def zeros_like(a: Any, dtype: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    return full_like(a, 0, dtype, ctx, device=device)


def ones_like(a: Any, dtype: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    return full_like(a, 1, dtype, ctx, device=device)


def empty_like(a: Any, dtype: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    return zeros_like(a, dtype, ctx, device=device)
