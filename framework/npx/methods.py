"""What were MXNet NDArray methods, as functions: ``x.asnumpy()`` is ``npx.asnumpy(x)``.

``jax.Array`` is immutable and is never patched, so MXNet's array methods that have no JAX counterpart
live here as functions of the array. They accept a ``jax.Array``, a recorded value, an
:class:`~framework.autograd.Variable` (an array with ``attach_grad``), or a NumPy array.
``python -m framework.port`` rewrites MXNet code to these forms.

>>> from framework import np, npx
>>> x = np.ones((2, 3))
>>> float(npx.asnumpy(x).sum())
6.0
>>> npx.asscalar(x.sum())
6.0
>>> npx.setitem(x, (0, slice(None)), 5.0)[0].tolist()
[5.0, 5.0, 5.0]
>>> npx.context_of(x) == npx.cpu(0)
True
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .. import device as _device
from ..autograd import tape
from ..autograd.tape import Recorded
from ..autograd.variable import Variable
from ..device import AbsentDevice, as_device
from ..np._indexing import is_framework_array, normalize_index

__all__ = [
    "asnumpy", "asscalar", "item", "wait_to_read", "copyto", "copy_into", "as_in_context", "context_of",
    "device_type", "device_id", "setitem", "detach", "NDArray",
]


class _NDArrayMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, (jax.Array, Recorded))

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, (jax.Array, Recorded))


class NDArray(metaclass=_NDArrayMeta):
    """For ``isinstance``: what MXNet's ``NDArray`` was here (a ``jax.Array``, a Variable or a recorded
    value). Not constructible; make arrays with ``np.array``.

    >>> from framework import autograd, np, npx
    >>> isinstance(np.ones(2), npx.NDArray), isinstance(autograd.attach_grad(np.ones(2)), npx.NDArray)
    (True, True)
    >>> isinstance([1.0], npx.NDArray)
    False
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> NDArray:
        raise TypeError("npx.NDArray is for isinstance checks only; create arrays with np.array(...).")


def _value(x: Any) -> Any:
    return x.value if isinstance(x, Recorded) else x


def asnumpy(x: Any) -> onp.ndarray:
    """``x.asnumpy()``: a NumPy copy on the host (waits for the value), writable as MXNet's is (a view
    of a ``jax.Array``'s buffer would be read-only)."""
    return onp.array(_value(x))


def asscalar(x: Any) -> Any:
    """``x.asscalar()``: the Python scalar of a one-element array.

    >>> from framework import np, npx
    >>> npx.asscalar(np.ones((2,)))
    Traceback (most recent call last):
    ValueError: asscalar: the array has shape (2,), not one element. Reduce it first (x.sum()) or index it.
    """
    v = asnumpy(x)
    if v.size != 1:
        raise ValueError(f"asscalar: the array has shape {v.shape}, not one element. "
                         "Reduce it first (x.sum()) or index it.")
    return v.reshape(()).item()


def item(x: Any) -> Any:
    """``x.item()`` (``asscalar``'s MXNet 2.0 name)."""
    return asscalar(x)


def detach(x: Any) -> Any:
    """``x.detach()``: the value cut off the recorded graph, as MXNet's (a new array with no history: a
    backward through it neither reaches nor frees what made ``x``); a plain array is returned as is, and
    any other object's own ``detach()`` is called (the porter writes this for receivers it cannot type).

    >>> from framework import autograd, np, npx
    >>> x = autograd.attach_grad(np.ones(2))
    >>> with autograd.record():
    ...     y = npx.detach(x * 2)
    >>> type(y).__name__, y.tolist()
    ('ArrayImpl', [2.0, 2.0])
    """
    if isinstance(x, jax.Array):
        return x
    return x.detach()  # a recorded value or Variable, or any object's own method (else AttributeError)


def wait_to_read(x: Any) -> None:
    """``x.wait_to_read()``: block until ``x`` is computed."""
    v = _value(x)
    if isinstance(v, jax.Array):
        v.block_until_ready()


def _is_device(target: Any) -> bool:
    return isinstance(target, (jax.Device, AbsentDevice))


def copyto(x: Any, target: Any) -> Any:
    """``x.copyto(target)``: ``target`` a device -> a copy of ``x`` there; ``target`` a Variable -> its
    value is replaced by ``x`` (in place, on its device) and it is returned; ``target`` a ``jax.Array``
    -> a new array with ``x``'s values on ``target``'s device and dtype (``jax.Array`` cannot change).

    >>> from framework import autograd, np, npx
    >>> v = autograd.attach_grad(np.zeros(3))
    >>> npx.copyto(np.ones(3), v) is v, v.tolist()
    (True, [1.0, 1.0, 1.0])
    """
    if _is_device(target):
        return jax.device_put(_value(x), as_device(target))
    if isinstance(target, Variable):
        target[...] = x
        return target
    tv = _value(target)
    if not isinstance(tv, (jax.Array, onp.ndarray)):
        raise TypeError(f"copyto: target is {type(target).__name__}; expected a device (npx.cpu(0), "
                        "npx.gpu(0)), an array or a Variable.")
    xv = jnp.asarray(_value(x))
    if tuple(xv.shape) != tuple(tv.shape):
        raise ValueError(f"copyto: shape {tuple(xv.shape)} does not match the target's {tuple(tv.shape)}; "
                         "copy into an array of the same shape.")
    if isinstance(tv, onp.ndarray):
        tv[...] = onp.asarray(xv)
        return tv
    return jax.device_put(xv.astype(tv.dtype), next(iter(tv.devices())))


def copy_into(x: Any, target: Any) -> Any:
    """What ``target`` holds after MXNet's statement ``x.copyto(target)``: the porter writes
    ``t = npx.copy_into(x, t)``. A device stays the device (the copy is discarded, as the statement
    discarded it), a Variable is updated in place, a ``jax.Array`` is replaced by the copy.

    >>> from framework import np, npx
    >>> t = np.zeros(2)
    >>> t = npx.copy_into(np.ones(2), t)
    >>> t.tolist()
    [1.0, 1.0]
    >>> npx.copy_into(t, npx.cpu(0)) == npx.cpu(0)
    True
    """
    if _is_device(target):
        return target
    return copyto(x, target)


def as_in_context(x: Any, ctx: Any) -> Any:
    """``x.as_in_context(ctx)`` / ``as_in_ctx``: ``x`` itself if it is on ``ctx`` already, else a copy."""
    if not _is_device(ctx):
        raise TypeError(f"as_in_context: ctx is {ctx!r}; expected a device such as npx.cpu(0) or "
                        "npx.gpu(0).")
    try:
        if context_of(x) == ctx:
            return x
    except ValueError:
        pass
    return jax.device_put(_value(x), as_device(ctx))


def context_of(x: Any) -> jax.Device:
    """``x.context`` / ``x.ctx``: the device ``x`` lives on (NumPy arrays: ``cpu(0)``)."""
    if isinstance(x, Recorded):
        return x.device
    if isinstance(x, jax.Array):
        devs = x.devices()
        if len(devs) != 1:
            raise ValueError(f"context_of: the array is sharded over {len(devs)} devices; MXNet arrays "
                             "live on one. Use x.sharding, or take one shard.")
        return next(iter(devs))
    if isinstance(x, (onp.ndarray, onp.generic, float, int)):
        return jax.devices("cpu")[0]
    raise TypeError(f"context_of: {type(x).__name__} is not an array.")


def device_type(ctx: Any) -> str:
    """``ctx.device_type``: ``'cpu'`` or ``'gpu'`` (JAX's ``cuda``/``rocm`` platforms are ``'gpu'``).

    >>> from framework import npx
    >>> npx.device_type(npx.cpu())
    'cpu'
    """
    if not _is_device(ctx):
        raise TypeError(f"device_type: {ctx!r} is not a device.")
    return _device.device_type(ctx)


def device_id(ctx: Any) -> int:
    """``ctx.device_id``: the index among the local devices of its kind (``npx.cpu(2)`` -> 2)."""
    if not _is_device(ctx):
        raise TypeError(f"device_id: {ctx!r} is not a device.")
    return _device.device_id(ctx)


def setitem(x: Any, index: Any, value: Any) -> Any:
    """``x[index] = value``: a Variable (or NumPy array, list, dict) is changed in place and returned;
    a ``jax.Array`` cannot change, so the updated copy is returned (the porter writes
    ``x = npx.setitem(x, index, value)``). The value is cast to ``x``'s dtype, as MXNet does, and so is
    the index of an array: float index arrays are cast to integers, ranges and lists made index arrays.

    >>> from framework import np, npx
    >>> x = np.zeros((2, 2))
    >>> x = npx.setitem(x, (1, 1), 7)
    >>> x.tolist()
    [[0.0, 0.0], [0.0, 7.0]]
    """
    if is_framework_array(x):
        index = normalize_index(index)
    if isinstance(x, Variable):
        x[index] = value
        return x
    if isinstance(x, Recorded):
        return tape.record_call(_set, (x, index, value), {})
    if isinstance(x, jax.Array):
        return _set(x, index, _value(value))
    x[index] = tape.values_of(value) if isinstance(value, Recorded) else value
    return x


def _set(x: jax.Array, index: Any, value: Any) -> jax.Array:
    value = jnp.asarray(value).astype(x.dtype)
    try:
        return x.at[index].set(value)
    except ValueError:
        # MXNet (as NumPy) drops a value's leading length-1 axes the slot does not have: z[2] = (1, 1)
        while value.ndim and value.shape[0] == 1:
            value = value[0]
        return x.at[index].set(value)
