"""``mx.nd.random``: MXNet 1.x's samplers (``shape=``, ``ctx=``, ``dtype=``) over the framework's key
stream (``mx.random.seed(n)`` makes them reproducible). Draws differ from MXNet's own generator.

>>> import framework as mx
>>> mx.random.seed(1)
>>> a = mx.nd.random.uniform(0, 1, shape=(2, 3), ctx=mx.cpu(0))
>>> mx.random.seed(1)
>>> bool((a == mx.nd.random.uniform(0, 1, shape=(2, 3))).all()), a.shape, str(a.dtype)
(True, (2, 3), 'float32')
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .. import _draw
from ..autograd.variable import Variable
from ..device import current_context
from ..np.creation import place
from ..np.random import next_key, seed
from ._op import nd_op

__all__ = [
    "seed", "uniform", "normal", "randn", "randint", "poisson", "exponential", "gamma", "multinomial",
    "shuffle", "negative_binomial", "generalized_negative_binomial", "uniform_like", "normal_like",
    "gamma_like", "exponential_like", "poisson_like", "negative_binomial_like",
    "generalized_negative_binomial_like", "NDArray", "numeric_types", "current_context",
]

NDArray = jax.Array
numeric_types = (float, int, onp.generic)


def _shape(shape: Any, *params: Any) -> tuple[int, ...]:
    base = jnp.broadcast_shapes(*(jnp.shape(p) for p in params))
    if shape is None or shape == ():
        return tuple(base) if base else (1,)
    extra = (shape,) if isinstance(shape, int) else tuple(shape)
    return tuple(base) + extra


def _expand(p: Any, shape: tuple[int, ...]) -> Any:
    p = jnp.asarray(p)
    return p.reshape(p.shape + (1,) * (len(shape) - p.ndim))


def _sampler(fn: Any) -> Any:
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, out: Any = None, **kwargs: Any) -> jax.Array:
        if out is None:
            return fn(*args, **kwargs)
        writable = isinstance(out, Variable) or (hasattr(out, "written") and hasattr(out, "__setitem__"))
        if writable:  # a Variable, or an initializer's ArraySlot: fill it, shape and dtype from it
            bound = sig.bind_partial(*args, **kwargs)
            for name, value in (("shape", out.shape), ("dtype", out.dtype)):
                if name in sig.parameters and bound.arguments.get(name) is None:
                    bound.arguments[name] = value
            out[...] = fn(*bound.args, **bound.kwargs)
            return out
        raise TypeError(f"nd.random.{fn.__name__}(..., out=...): jax arrays are immutable; use the "
                        "returned array")

    return wrapper


def _dt(dtype: Any) -> Any:
    return jnp.float32 if dtype is None else dtype


@_sampler
def uniform(low: Any = 0.0, high: Any = 1.0, shape: Any = None, dtype: Any = None,
        ctx: Any = None) -> jax.Array:
    """Uniform on [low, high); array ``low``/``high`` give ``low.shape + shape`` samples."""
    s = _shape(shape, low, high)
    # drawn and scaled without a program of this shape (low > high: values in (high, low], as MXNet's np)
    if _draw.scalar_parameters(low, high) and bool(low <= high):
        return place(_draw.uniform(next_key(), s, _dt(dtype), low, high), ctx)
    u = _draw.uniform(next_key(), s, _dt(dtype))
    lo, hi = _expand(low, s), _expand(high, s)
    return place((lo + (hi - lo) * u).astype(_dt(dtype)), ctx)


@_sampler
def normal(loc: Any = 0.0, scale: Any = 1.0, shape: Any = None, dtype: Any = None,
        ctx: Any = None) -> jax.Array:
    """Normal with mean ``loc`` and standard deviation ``scale``."""
    s = _shape(shape, loc, scale)
    if _draw.scalar_parameters(loc, scale):
        return place(_draw.normal(next_key(), s, _dt(dtype), scale, loc), ctx)
    z = _draw.normal(next_key(), s, _dt(dtype))
    return place((_expand(loc, s) + _expand(scale, s) * z).astype(_dt(dtype)), ctx)


@_sampler
def randn(*shape: int, loc: float = 0.0, scale: float = 1.0, dtype: Any = None, ctx: Any = None) -> jax.Array:
    """``normal(loc, scale, shape)`` with the shape as positional arguments."""
    return normal(loc, scale, shape or (1,), dtype, ctx)


@_sampler
def randint(low: int, high: int, shape: Any = None, dtype: Any = "int32", ctx: Any = None) -> jax.Array:
    """Integers in [low, high)."""
    s = _shape(shape)
    return place(jax.random.randint(next_key(), s, low, high, dtype=dtype), ctx)


@_sampler
def poisson(lam: Any = 1.0, shape: Any = None, dtype: Any = None,
        ctx: Any = None) -> jax.Array:
    """Poisson counts (as float32, MXNet's default)."""
    s = _shape(shape, lam)
    return place(jax.random.poisson(next_key(), _expand(lam, s), s).astype(_dt(dtype)), ctx)


@_sampler
def exponential(scale: Any = 1.0, shape: Any = None, dtype: Any = None,
        ctx: Any = None) -> jax.Array:
    """Exponential with mean ``scale`` (MXNet 1.x's parameter is the scale, 1/lambda)."""
    s = _shape(shape, scale)
    return place((jax.random.exponential(next_key(), s, _dt(dtype)) * _expand(scale, s)).astype(_dt(dtype)),
                 ctx)


@_sampler
def gamma(alpha: Any = 1.0, beta: Any = 1.0, shape: Any = None, dtype: Any = None,
        ctx: Any = None) -> jax.Array:
    """Gamma with shape ``alpha`` and scale ``beta``."""
    s = _shape(shape, alpha, beta)
    g = jax.random.gamma(next_key(), _expand(alpha, s), s, _dt(dtype))
    return place((g * _expand(beta, s)).astype(_dt(dtype)), ctx)


@_sampler
def negative_binomial(k: Any = 1, p: Any = 1.0, shape: Any = None, dtype: Any = None,
        ctx: Any = None) -> jax.Array:
    """Failures before ``k`` successes of probability ``p`` (a gamma-Poisson mixture)."""
    s = _shape(shape, k, p)
    k1, k2 = jax.random.split(next_key())
    pe = _expand(p, s)
    lam = jax.random.gamma(k1, _expand(k, s), s) * (1 - pe) / pe
    return place(jax.random.poisson(k2, lam, s).astype(_dt(dtype)), ctx)


@_sampler
def generalized_negative_binomial(mu: Any = 1.0, alpha: Any = 1.0, shape: Any = None, dtype: Any = None,
                                  ctx: Any = None) -> jax.Array:
    """Negative binomial with mean ``mu`` and dispersion ``alpha``."""
    s = _shape(shape, mu, alpha)
    k1, k2 = jax.random.split(next_key())
    a, m = _expand(alpha, s), _expand(mu, s)
    lam = jax.random.gamma(k1, 1.0 / a, s) * a * m
    return place(jax.random.poisson(k2, lam, s).astype(_dt(dtype)), ctx)


@nd_op
def multinomial(data: jax.Array, shape: Any = None, get_prob: bool = False, dtype: Any = "int32") -> Any:
    """Category indices drawn from the probabilities in the last axis of ``data``; ``get_prob`` also
    returns their log-probabilities."""
    extra = () if shape is None else ((shape,) if isinstance(shape, int) else tuple(shape))
    logits = jnp.log(data)
    batch = data.shape[:-1]
    draws = jax.random.categorical(next_key(), logits.reshape(batch + (1,) * len(extra) + data.shape[-1:]),
                                   shape=batch + extra)
    idx = draws.astype(dtype)
    if not get_prob:
        return idx
    flat = jnp.take_along_axis(logits.reshape(batch + (-1,)),
                               draws.reshape(batch + (-1,)).astype(jnp.int32), axis=-1)
    return [idx, flat.reshape(draws.shape)]


@_sampler
def shuffle(data: jax.Array) -> jax.Array:
    """A copy of ``data`` with its first axis permuted (jax arrays are immutable)."""
    return jax.random.permutation(next_key(), data, axis=0)


def _like(sampler: Any, names: tuple[str, ...]) -> Any:
    def like(data: jax.Array, *params: Any, out: Any = None, name: str | None = None, **kwargs: Any) -> Any:
        values = dict(zip(names, params, strict=False))
        values.update(kwargs)
        return sampler(**values, shape=tuple(jnp.shape(data)), dtype=jnp.asarray(data).dtype, out=out)

    like.__name__ = like.__qualname__ = sampler.__name__ + "_like"
    like.__doc__ = f"``{sampler.__name__}`` samples with ``data``'s shape and dtype (parameters {names})."
    return like


uniform_like = _like(uniform, ("low", "high"))
normal_like = _like(normal, ("loc", "scale"))
gamma_like = _like(gamma, ("alpha", "beta"))
poisson_like = _like(poisson, ("lam",))
negative_binomial_like = _like(negative_binomial, ("k", "p"))
generalized_negative_binomial_like = _like(generalized_negative_binomial, ("mu", "alpha"))


def exponential_like(data: jax.Array, lam: float = 1.0, out: Any = None, name: str | None = None) -> Any:
    """Exponential samples of rate ``lam`` with ``data``'s shape and dtype."""
    return exponential(1.0 / lam, shape=tuple(jnp.shape(data)), dtype=jnp.asarray(data).dtype, out=out)
