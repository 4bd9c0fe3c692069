"""Values of eager CPU arrays in host memory, and host results placed back as arrays: the two halves of
every computation the framework does with NumPy instead of compiling a program for a new shape
(:mod:`framework.np.selection`, :mod:`framework.np.eager`).

>>> import jax, numpy
>>> values, device = host_values(jax.device_put(numpy.arange(3, dtype="float32")))
>>> put(values * 2, device).tolist()
[0.0, 2.0, 4.0]
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as onp

from .. import _jax_compat

__all__ = ["host_values", "put"]


def host_values(a: Any, weak: bool = False) -> tuple[onp.ndarray, jax.Device | None] | None:
    """``a``'s values in host memory and the device to place results on (None: JAX's default device,
    uncommitted), or None where ``jax.numpy`` must compute: inside a trace, for a value that is not an
    array, or for one that is not on a single CPU device. A weakly typed array (a Python number's type,
    which only JAX's promotion carries) is taken only where ``weak`` says the caller promotes as JAX
    does."""
    if not _jax_compat.evaluates_eagerly():
        return None
    if isinstance(a, jax.Array):
        if _jax_compat.is_tracer(a) or not a.is_fully_addressable or a.weak_type and not weak:
            return None
        devices = a.devices()
        if len(devices) != 1:
            return None
        (device,) = devices
        if device.platform != "cpu":
            return None
        return onp.asarray(a), device if a.committed else None
    if isinstance(a, (onp.ndarray, onp.generic)):
        return onp.asarray(a), None
    return None


def put(host: onp.ndarray, device: jax.Device | None) -> jax.Array:
    """``host`` as an array on ``device`` (None: JAX's default device, uncommitted, as JAX leaves the
    result of uncommitted inputs).

    ``jax.device_put``, not ``jnp.asarray``: JAX (0.10-0.12) runs a program of the array's shape for the
    latter."""
    return jax.device_put(host if host.flags.c_contiguous else host.copy(order="C"), device)
