"""Functions whose result's shape depends on the values: ``nonzero``, ``flatnonzero``, ``argwhere``,
``extract`` and ``unique``, computed in host memory when called eagerly on a CPU array.

Called outside a trace, ``jax.numpy``'s versions read the count back from the device and then compile a
program for that count and the input's shape: 0.4-0.8 s for ``nonzero`` on each new length on the CPU
this project is measured on (a loop that shrinks an index array, as non-maximum suppression does, pays
it at every step). MXNet computes them without compiling anything. On a CPU device the values are
already in host memory, so these compute them with NumPy and place the result where the input is, with
``jax.numpy``'s dtypes and shapes. Inside a trace (where only ``size=`` makes them traceable), with
``size=``, for arrays on an accelerator, or for arguments JAX would refuse, they are ``jax.numpy``'s.

>>> from framework import np
>>> [i.tolist() for i in np.nonzero(np.array([[0, 1], [2, 0]]))]
[[0, 1], [1, 0]]
>>> np.argwhere(np.array([0, 3, 0, 4])).tolist()
[[1], [3]]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from ._host import host_values as _host
from ._host import put as _put

__all__ = ["nonzero", "flatnonzero", "argwhere", "extract", "unique"]


def _index(host: onp.ndarray, device: jax.Device | None) -> jax.Array:
    """An index array with ``jax.numpy``'s integer dtype (int32 unless 64-bit values are on), placed like
    the input."""
    return _put(host.astype(jax.dtypes.canonicalize_dtype(onp.int64)), device)


def _eager(jnp_fn: Callable[..., Any], host_fn: Callable[..., Any], doc_name: str) -> Callable[..., Any]:
    """``jnp_fn`` with ``host_fn(values, device, *rest, **kwargs)`` taking over where :func:`_host` gives
    the first argument's values (the host function returns None to hand a case back to JAX)."""

    def fn(a: Any, *rest: Any, **kwargs: Any) -> Any:
        if kwargs.get("size") is None:
            found = _host(a)
            if found is not None:
                kwargs.pop("size", None)
                kwargs.pop("fill_value", None)
                out = host_fn(*found, *rest, **kwargs)
                if out is not None:
                    return out
        return jnp_fn(a, *rest, **kwargs)

    fn.__name__ = fn.__qualname__ = doc_name
    fn.__doc__ = f"``jax.numpy.{doc_name}``, computed in host memory when called eagerly on a CPU array."
    fn.__wrapped__ = jnp_fn  # type: ignore[attr-defined]
    return fn


def _nonzero(value: onp.ndarray, device: jax.Device | None) -> tuple[jax.Array, ...] | None:
    if value.ndim == 0:
        return None  # JAX's error
    return tuple(_index(i, device) for i in onp.nonzero(value))


def _flatnonzero(value: onp.ndarray, device: jax.Device | None) -> jax.Array:
    return _index(onp.flatnonzero(value), device)


def _argwhere(value: onp.ndarray, device: jax.Device | None) -> jax.Array | None:
    if value.ndim == 0:
        return None  # JAX's shape (n, 0)
    return _index(onp.argwhere(value), device)


def _extract(condition: onp.ndarray, device: jax.Device | None, arr: Any) -> jax.Array | None:
    found = _host(arr)
    if found is None:
        return None
    values, arr_device = found
    if device is not None and arr_device is not None and device != arr_device:
        return None  # JAX refuses arrays committed to different devices
    flat = values.reshape(-1)
    keep = onp.flatnonzero(condition.reshape(-1))
    if keep.size and keep[-1] >= flat.size:
        return None  # JAX's error
    return _put(flat[keep], arr_device or device)


def _unique(value: onp.ndarray, device: jax.Device | None, return_index: bool = False,
            return_inverse: bool = False, return_counts: bool = False, axis: int | None = None, *,
            equal_nan: bool = True, sorted: bool = True) -> Any:
    if axis is not None or not sorted or value.dtype.kind not in "biuf":
        return None  # JAX's own (bfloat16 and the other ml_dtypes are kind "V" to NumPy)
    values, index, inverse, counts = onp.unique(value.reshape(-1), return_index=True, return_inverse=True,
                                                return_counts=True, equal_nan=equal_nan)
    out = [_put(values, device)]
    if return_index:
        out.append(_index(index, device))
    if return_inverse:
        out.append(_index(inverse.reshape(value.shape), device))
    if return_counts:
        out.append(_index(counts, device))
    return out[0] if len(out) == 1 else tuple(out)


nonzero = _eager(jnp.nonzero, _nonzero, "nonzero")
flatnonzero = _eager(jnp.flatnonzero, _flatnonzero, "flatnonzero")
argwhere = _eager(jnp.argwhere, _argwhere, "argwhere")
extract = _eager(jnp.extract, _extract, "extract")
unique = _eager(jnp.unique, _unique, "unique")
