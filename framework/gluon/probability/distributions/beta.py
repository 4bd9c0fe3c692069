"""The Beta distribution.

>>> from framework.gluon.probability import Beta
>>> d = Beta(2.0, 3.0)
>>> float(d.mean), round(float(d.variance), 4)
(0.4, 0.04)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax.scipy.special import digamma, gammaln

from .constraint import Positive, UnitInterval
from .exp_family import ExponentialFamily
from .utils import EPS, broadcast, float_dtype, key_data, op, sample_n_shape, sample_shape, wrap_key

__all__ = ["Beta"]


def _sample(kd, a, b, shape):
    dtype = float_dtype(a, b)
    ka, kb = jax.random.split(wrap_key(kd))
    x = jax.random.gamma(ka, jnp.broadcast_to(jnp.asarray(a, dtype), shape), shape, dtype)
    y = jax.random.gamma(kb, jnp.broadcast_to(jnp.asarray(b, dtype), shape), shape, dtype)
    return jnp.clip(x / (x + y), EPS, 1 - EPS)


def _lbeta(a, b):
    return gammaln(a) + gammaln(b) - gammaln(a + b)


def _log_prob(a, b, value):
    return (a - 1) * jnp.log(value) + (b - 1) * jnp.log1p(-value) - _lbeta(a, b)


def _entropy(a, b):
    return _lbeta(a, b) - (a - 1) * digamma(a) - (b - 1) * digamma(b) + (a + b - 2) * digamma(a + b)


class Beta(ExponentialFamily):
    """Beta distribution on (0, 1) with concentrations ``alpha`` and ``beta`` (samples from two Gamma
    draws, clipped into [eps, 1 - eps] as MXNet)."""

    has_grad = True
    support = UnitInterval()
    arg_constraints = {"alpha": Positive(), "beta": Positive()}  # noqa: RUF012

    def __init__(self, alpha: Any, beta: Any, validate_args: bool | None = None) -> None:
        self.alpha, self.beta = alpha, beta
        super().__init__(event_dim=0, validate_args=validate_args)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_sample, key_data(key), self.alpha, self.beta, sample_shape(size, self.alpha, self.beta))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.alpha, self.beta, sample_n_shape(size, self.alpha, self.beta))

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Beta:
        return self._new_like(alpha=broadcast(self.alpha, batch_shape), beta=broadcast(self.beta,
                                                                                       batch_shape))

    @property
    def mean(self) -> Any:
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self) -> Any:
        a, b = self.alpha, self.beta
        return a * b / ((a + b) ** 2 * (a + b + 1))

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.alpha, self.beta, value)

    def entropy(self) -> Any:
        return op(_entropy, self.alpha, self.beta)
