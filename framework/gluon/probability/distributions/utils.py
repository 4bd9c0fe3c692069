"""Helpers of the distributions (MXNet 2.0's ``probability.distributions.utils``): probability/logit
conversions, ``cached_property``, the ``sample_n`` shape rule, MXNet's special-function factories, and
the plumbing that keeps every distribution a set of pure functions: :func:`op` runs a pure ``jax.numpy``
function on parameters that may be recorded values (inside ``autograd.record()``) or tracers (inside a
compiled block), and :func:`draw_key` finds the PRNG key of a draw.

>>> import jax.numpy as jnp
>>> [round(float(v), 4) for v in logit2prob(prob2logit(jnp.array([0.25, 0.5])))]
[0.25, 0.5]
>>> sample_n_shape_converter(3)
(-2, 3)
"""

from __future__ import annotations

from collections.abc import Callable
from functools import update_wrapper
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from ....np import random as _random
from ....np.dispatch import recordable
from ... import binding as _binding

__all__ = ["prob2logit", "logit2prob", "cached_property", "sample_n_shape_converter", "constraint_check",
           "digamma", "gammaln", "erfinv", "erf"]

EPS = float(onp.finfo(onp.float32).eps)


def op(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``; recorded as one node when an argument is a recorded value."""
    return recordable(fn)(*args)


def shape_of(x: Any) -> tuple[int, ...]:
    return tuple(getattr(x, "shape", onp.shape(x)))


def batch_shape(*params: Any) -> tuple[int, ...]:
    return tuple(jnp.broadcast_shapes(*(shape_of(p) for p in params)))


def size_tuple(size: Any) -> tuple[int, ...]:
    if size is None:
        return ()
    return (int(size),) if isinstance(size, (int, onp.integer)) else tuple(int(s) for s in size)


class _Sampler:
    """The name under which draws inside a compiled block take their keys."""


_SAMPLER = _Sampler()


def draw_key(key: jax.Array | None = None) -> jax.Array:
    """``key`` when given; inside a block call, the call's key for the next draw (so a hybridized or
    ``functional_call(key=...)`` forward draws afresh each call); else the framework's key stream."""
    if key is not None:
        return key
    bound = _binding.current()
    if bound is not None:
        return bound.block_key(_SAMPLER)
    return _random.next_key()


def key_data(key: jax.Array | None) -> jax.Array:
    """The raw data of the draw's key (what a pure sampling function receives)."""
    return jax.random.key_data(draw_key(key))


def sample_n_shape_converter(size: Any) -> Any:
    """MXNet's rule: ``size`` of ``sample_n`` -> ``(-2,) + size`` (-2 stands for the batch shape)."""
    if size is None:
        return size
    if size == ():
        return None
    return (-2,) + size_tuple(size)


def sum_right_most(x: Any, ndim: int) -> Any:
    """``x`` summed over its last ``ndim`` axes."""
    if ndim == 0:
        return x
    return op(_sum_last, x, int(ndim))


def _sum_last(x, ndim):
    return jnp.sum(x, axis=tuple(range(-ndim, 0)))


def _clip_prob_fn(prob):
    return jnp.clip(prob, EPS, 1 - EPS)


def _prob2logit(prob, binary):
    p = _clip_prob_fn(prob)
    return jnp.log(p) - jnp.log1p(-p) if binary else jnp.log(p)


def _logit2prob(logit, binary):
    return jax.nn.sigmoid(logit) if binary else jax.nn.softmax(logit, axis=-1)


def prob2logit(prob: Any, binary: bool = True) -> Any:
    """``log(p / (1 - p))`` (binary) or ``log(p)`` (categorical), ``p`` clipped to [eps, 1 - eps]."""
    return op(_prob2logit, prob, bool(binary))


def logit2prob(logit: Any, binary: bool = True) -> Any:
    """``sigmoid(logit)`` (binary) or ``softmax`` over the last axis (categorical)."""
    return op(_logit2prob, logit, bool(binary))


def clip_prob(prob: Any) -> Any:
    return op(_clip_prob_fn, prob)


def _check(condition: Any, err_msg: str) -> Any:
    if isinstance(condition, (bool, onp.bool_)):
        if not condition:
            raise ValueError(err_msg)
        return 1.0
    value = concrete(condition)
    if value is not None and not bool(onp.all(value)):
        raise ValueError(err_msg)
    return 1.0


def concrete(x: Any) -> onp.ndarray | None:
    """``x`` on the host, or None when it is a tracer (a check inside a trace cannot be made)."""
    if isinstance(x, jax.core.Tracer):
        return None
    if hasattr(x, "asnumpy"):
        return onp.asarray(x.asnumpy())
    try:
        return onp.asarray(x)
    except (TypeError, jax.errors.TracerArrayConversionError):
        return None


def constraint_check() -> Callable[[Any, str], Any]:
    """MXNet's factory: ``constraint_check()(condition, message)`` raises ``ValueError(message)`` when
    the condition does not hold everywhere (not checked inside a trace), else returns 1.0."""
    return _check


def _special(fn: Callable[[jax.Array], jax.Array]) -> Callable[[], Callable[[Any], Any]]:
    def factory() -> Callable[[Any], Any]:
        def compute(value: Any) -> Any:
            return op(fn, value)
        return compute
    return factory


def _digamma(x):
    return jax.scipy.special.digamma(jnp.asarray(x, jnp.result_type(float, x)))


def _gammaln(x):
    return jax.scipy.special.gammaln(jnp.asarray(x, jnp.result_type(float, x)))


def _erf(x):
    return jax.scipy.special.erf(jnp.asarray(x, jnp.result_type(float, x)))


def _erfinv(x):
    return jax.scipy.special.erfinv(jnp.asarray(x, jnp.result_type(float, x)))


digamma = _special(_digamma)
digamma.__doc__ = "MXNet's factory: ``digamma()(x)``, the digamma function (numbers and arrays)."
gammaln = _special(_gammaln)
gammaln.__doc__ = "MXNet's factory: ``gammaln()(x)``, ``log|Gamma(x)|`` (numbers and arrays)."
erf = _special(_erf)
erf.__doc__ = "MXNet's factory: ``erf()(x)``, the error function."
erfinv = _special(_erfinv)
erfinv.__doc__ = "MXNet's factory: ``erfinv()(x)``, the inverse error function."


class cached_property:  # noqa: N801 (MXNet's name)
    """A property computed once per instance, then stored on it (MXNet's ``cached_property``); a value
    computed under a trace is not stored (a tracer must not outlive its trace)."""

    def __init__(self, func: Callable[[Any], Any]) -> None:
        self._func = func
        update_wrapper(self, func)

    def __get__(self, instance: Any, cls: Any = None) -> Any:
        if instance is None:
            return self
        value = self._func(instance)
        if not any(isinstance(v, jax.core.Tracer) for v in jax.tree_util.tree_leaves(value)):
            setattr(instance, self._func.__name__, value)
        return value


def _broadcast(x, shape):
    return jnp.broadcast_to(jnp.asarray(x), shape)


def broadcast(x: Any, shape: tuple[int, ...]) -> Any:
    """``x`` broadcast to ``shape`` (a recorded value stays recorded)."""
    return op(_broadcast, x, tuple(shape))


def sample_shape(size: Any, *params: Any) -> tuple[int, ...]:
    """The shape of ``sample(size)``: ``size``, or the parameters' broadcast shape."""
    return batch_shape(*params) if size is None else size_tuple(size)


def sample_n_shape(size: Any, *params: Any) -> tuple[int, ...]:
    """The shape of ``sample_n(size)``: ``size + batch_shape``."""
    return size_tuple(size) + batch_shape(*params)


def wrap_key(kd: jax.Array) -> jax.Array:
    return jax.random.wrap_key_data(kd)


def float_dtype(*xs: Any) -> Any:
    return jnp.result_type(float, *xs)


def split_key(key: jax.Array, num: int = 2) -> list[jax.Array]:
    """``num`` independent keys from one (for a distribution that draws from several parts)."""
    return list(jax.random.split(key, num))
