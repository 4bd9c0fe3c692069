"""The negative binomial distribution: successes (probability ``prob``) before ``n`` failures.

>>> from framework.gluon.probability import NegativeBinomial
>>> d = NegativeBinomial(3.0, prob=0.25)
>>> round(float(d.mean), 4), round(float(d.log_prob(0.0)), 4)
(1.0, -0.863)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax.scipy.special import gammaln

from ._binary import _Binary
from .constraint import GreaterThanEq, Interval, NonNegativeInteger, Real
from .distribution import Distribution
from .utils import broadcast, float_dtype, key_data, op, sample_n_shape, sample_shape, wrap_key

__all__ = ["NegativeBinomial"]


def _sample(kd, n, logit, shape):
    dtype = float_dtype(n, logit)
    kg, kp = jax.random.split(wrap_key(kd))
    rate = jax.random.gamma(kg, jnp.broadcast_to(jnp.asarray(n, dtype), shape), shape, dtype) * jnp.exp(logit)
    return jax.random.poisson(kp, rate, shape).astype(dtype)


def _log_prob(n, prob, value):
    coef = gammaln(value + n) - gammaln(value + 1.0) - gammaln(n)
    return coef + n * jnp.log1p(-prob) + value * jnp.log(prob)


class NegativeBinomial(_Binary, Distribution):
    """Negative binomial with ``n`` failures and success probability ``prob`` (or ``logit``): mean
    ``n * prob / (1 - prob)``, sampled as Poisson(Gamma(n, prob / (1 - prob))). MXNet 2.0's
    ``log_prob`` swaps ``prob`` and ``1 - prob`` against its own mean and sampler; here all three
    agree (the mass function of the samples)."""

    support = NonNegativeInteger()
    arg_constraints = {"n": GreaterThanEq(0), "prob": Interval(0, 1), "logit": Real()}  # noqa: RUF012

    def __init__(self, n: Any, prob: Any = None, logit: Any = None,
                 validate_args: bool | None = None) -> None:
        self._set_prob_logit(prob, logit)
        self.n = n
        Distribution.__init__(self, event_dim=0, validate_args=validate_args)

    @property
    def mean(self) -> Any:
        return self.n * op(jnp.exp, self.logit)

    @property
    def variance(self) -> Any:
        return self.n * self.prob / (1 - self.prob) ** 2

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> NegativeBinomial:
        return self._new_like(n=broadcast(self.n, batch_shape), **self._broadcast_given(batch_shape))

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.n, self.prob, value)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_sample, key_data(key), self.n, self.logit, sample_shape(size, self.n, self.logit))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.n, self.logit, sample_n_shape(size, self.n, self.logit))
