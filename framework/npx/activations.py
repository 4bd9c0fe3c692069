"""Activations and softmax family: ``npx.activation``, ``relu``, ``sigmoid``, ``leaky_relu``, ``softmax``...

>>> import jax.numpy as jnp
>>> from framework import npx
>>> npx.activation(jnp.array([-1.0, 2.0]), act_type='relu').tolist()
[0.0, 2.0]
>>> npx.leaky_relu(jnp.array([-1.0, 2.0]), slope=0.1).tolist()
[-0.10000000149011612, 2.0]
>>> [round(v, 4) for v in npx.softmax(jnp.array([1.0, 1.0])).tolist()]
[0.5, 0.5]
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp

from ..np import random as _random
from ._utils import _is_training

__all__ = [
    "activation", "relu", "sigmoid", "leaky_relu", "softmax", "log_softmax", "masked_softmax",
    "masked_log_softmax",
]

_SELU_LAMBDA = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717


def _mish(x: jax.Array) -> jax.Array:
    return x * jnp.tanh(jax.nn.softplus(x))


_ACTIVATIONS = {
    "relu": jax.nn.relu,
    "sigmoid": jax.nn.sigmoid,
    "tanh": jnp.tanh,
    "softrelu": jax.nn.softplus,
    "softsign": jax.nn.soft_sign,
    "log_sigmoid": jax.nn.log_sigmoid,
    "mish": _mish,
}


def activation(data: jax.Array, act_type: str = "relu", **kwargs: Any) -> jax.Array:
    """Element-wise activation: 'relu', 'sigmoid', 'tanh', 'softrelu', 'softsign', 'log_sigmoid', 'mish'.

    >>> import jax.numpy as jnp
    >>> activation(jnp.zeros(2), act_type='sigmoid').tolist()
    [0.5, 0.5]
    """
    fn = _ACTIVATIONS.get(act_type)
    if fn is None:
        raise ValueError(
            f"activation: act_type={act_type!r} is not supported; choose one of {sorted(_ACTIVATIONS)} "
            "(use npx.leaky_relu for 'leaky', 'elu', 'selu', 'gelu', 'prelu')"
        )
    return fn(data)


def relu(data: jax.Array) -> jax.Array:
    """``max(data, 0)``.

    >>> import jax.numpy as jnp
    >>> relu(jnp.array([-1.0, 1.0])).tolist()
    [0.0, 1.0]
    """
    return jax.nn.relu(data)


def sigmoid(data: jax.Array) -> jax.Array:
    """``1 / (1 + exp(-data))``.

    >>> import jax.numpy as jnp
    >>> sigmoid(jnp.zeros(1)).tolist()
    [0.5]
    """
    return jax.nn.sigmoid(data)


def leaky_relu(
    data: jax.Array,
    gamma: jax.Array | None = None,
    act_type: str = "leaky",
    slope: float = 0.25,
    lower_bound: float = 0.125,
    upper_bound: float = 0.334,
    *,
    key: jax.Array | None = None,
    training: bool | None = None,
) -> jax.Array:
    """MXNet's LeakyReLU family: 'leaky', 'prelu' (slope ``gamma`` per channel, axis 1), 'elu', 'selu',
    'gelu' (erf), 'gelu_tanh', 'rrelu' (random slope in training, the mean slope otherwise).

    >>> import jax.numpy as jnp
    >>> leaky_relu(jnp.array([[-2.0, 3.0]]), jnp.array([0.5, 0.5]), act_type='prelu').tolist()
    [[-1.0, 3.0]]
    """
    if act_type == "leaky":
        return jnp.where(data > 0, data, data * slope)
    if act_type == "prelu":
        if gamma is None:
            raise ValueError("leaky_relu: act_type='prelu' needs gamma (the learnt slope)")
        if gamma.size != 1 and data.ndim >= 2:
            if gamma.shape[-1] != data.shape[1]:
                raise ValueError(
                    f"leaky_relu: prelu gamma of shape {tuple(gamma.shape)} does not match the "
                    f"{data.shape[1]} channels on axis 1 of data {tuple(data.shape)}"
                )
            gamma = gamma.reshape((-1,) + (1,) * (data.ndim - 2))
        elif gamma.size == 1:
            gamma = gamma.reshape(())
        return jnp.where(data > 0, data, data * gamma)
    if act_type == "elu":
        return jnp.where(data > 0, data, slope * jnp.expm1(jnp.minimum(data, 0)))
    if act_type == "selu":
        return _SELU_LAMBDA * jnp.where(data > 0, data, _SELU_ALPHA * jnp.expm1(jnp.minimum(data, 0)))
    if act_type == "gelu":
        return 0.5 * data * (1.0 + jax.lax.erf(data / math.sqrt(2.0)))
    if act_type == "gelu_tanh":
        return jax.nn.gelu(data, approximate=True)
    if act_type == "rrelu":
        if _is_training(training):
            if key is None:
                key = _random.next_key()
            s = jax.random.uniform(key, data.shape, data.dtype, lower_bound, upper_bound)
        else:
            s = (lower_bound + upper_bound) / 2.0
        return jnp.where(data > 0, data, data * s)
    raise ValueError(
        f"leaky_relu: act_type={act_type!r} is not supported; choose one of "
        "'leaky', 'prelu', 'elu', 'selu', 'gelu', 'gelu_tanh', 'rrelu'"
    )


def _length_mask(data: jax.Array, length: Any, axis: int) -> jax.Array:
    axis = axis % data.ndim
    length = jnp.asarray(length)
    expected = data.shape[:axis] + data.shape[axis + 1:]
    if tuple(length.shape) != expected:
        raise ValueError(
            f"softmax: length has shape {tuple(length.shape)}, expected {expected} (the data's shape "
            f"without axis {axis})"
        )
    pos = jax.lax.broadcasted_iota(jnp.int32, data.shape, axis)
    return pos < jnp.expand_dims(length.astype(jnp.int32), axis)


def _softmax_core(data, mask, axis, temperature, log, masked_value):
    x = data if temperature is None or temperature == 1.0 else data / temperature
    if mask is None:
        return jax.nn.log_softmax(x, axis=axis) if log else jax.nn.softmax(x, axis=axis)
    mask = jnp.broadcast_to(mask.astype(bool), x.shape)
    big_neg = jnp.finfo(x.dtype).min
    m = jax.lax.stop_gradient(jnp.max(jnp.where(mask, x, big_neg), axis=axis, keepdims=True))
    shifted = jnp.where(mask, x - m, 0.0)
    e = jnp.where(mask, jnp.exp(shifted), 0.0)
    s = jnp.sum(e, axis=axis, keepdims=True)
    safe = jnp.where(s > 0, s, 1.0)
    if log:
        return jnp.where(mask, shifted - jnp.log(safe), masked_value)
    return e / safe


def _out_dtype(out: jax.Array, dtype: Any) -> jax.Array:
    return out if dtype is None else out.astype(dtype)


def softmax(
    data: jax.Array,
    axis: int = -1,
    length: jax.Array | None = None,
    temperature: float | None = None,
    use_length: bool = False,
    dtype: Any = None,
) -> jax.Array:
    """``exp(x/t) / sum(exp(x/t))`` along ``axis``; with ``use_length`` only the first ``length``
    entries take part and the rest are 0.

    >>> import jax.numpy as jnp
    >>> softmax(jnp.zeros((1, 4)), length=jnp.array([2]), use_length=True).tolist()
    [[0.5, 0.5, 0.0, 0.0]]
    """
    if use_length and length is None:
        raise ValueError("softmax: use_length=True needs a length array")
    mask = _length_mask(data, length, axis) if use_length else None
    return _out_dtype(_softmax_core(data, mask, axis, temperature, False, 0.0), dtype)


def log_softmax(
    data: jax.Array,
    axis: int = -1,
    length: jax.Array | None = None,
    temperature: float | None = None,
    use_length: bool = False,
    dtype: Any = None,
) -> jax.Array:
    """Log of :func:`softmax`, computed stably; entries past ``length`` are 0 (as in MXNet).

    >>> import jax.numpy as jnp
    >>> [round(v, 4) for v in log_softmax(jnp.array([1.0, 2.0, 0.1])).tolist()]
    [-1.417, -0.417, -2.317]
    """
    if use_length and length is None:
        raise ValueError("log_softmax: use_length=True needs a length array")
    mask = _length_mask(data, length, axis) if use_length else None
    return _out_dtype(_softmax_core(data, mask, axis, temperature, True, 0.0), dtype)


def masked_softmax(
    data: jax.Array,
    mask: jax.Array,
    axis: int = -1,
    temperature: float = 1.0,
    dtype: Any = None,
    normalize: bool = True,
) -> jax.Array:
    """Softmax over the entries where ``mask`` is nonzero; masked entries are 0.

    >>> import jax.numpy as jnp
    >>> masked_softmax(jnp.zeros(4), jnp.array([1, 0, 1, 0])).tolist()
    [0.5, 0.0, 0.5, 0.0]
    """
    return _out_dtype(_softmax_core(data, jnp.asarray(mask), axis, temperature, False, 0.0), dtype)


def masked_log_softmax(
    data: jax.Array,
    mask: jax.Array,
    axis: int = -1,
    temperature: float = 1.0,
    dtype: Any = None,
    normalize: bool = True,
) -> jax.Array:
    """Log of :func:`masked_softmax`; masked entries are ``-inf``.

    >>> import jax.numpy as jnp
    >>> masked_log_softmax(jnp.zeros(2), jnp.array([1, 0])).tolist()
    [0.0, -inf]
    """
    return _out_dtype(_softmax_core(data, jnp.asarray(mask), axis, temperature, True, -jnp.inf), dtype)
