"""The Binomial distribution (``n`` trials).

>>> from framework.gluon.probability import Binomial
>>> d = Binomial(4, prob=0.5)
>>> float(d.mean), round(float(d.log_prob(2.0)), 4)
(2.0, -0.9808)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax.scipy.special import gammaln

from ._binary import _Binary
from .constraint import Interval, NonNegativeInteger, Real
from .distribution import Distribution
from .utils import float_dtype, key_data, op, sample_n_shape, sample_shape, wrap_key

__all__ = ["Binomial"]


def _sample(kd, n, prob, shape):
    p = jnp.broadcast_to(jnp.asarray(prob, float_dtype(prob)), shape)
    return jax.random.binomial(wrap_key(kd), jnp.asarray(n, p.dtype), p, shape, p.dtype)


def _log_prob(n, prob, value):
    coef = gammaln(n + 1.0) - gammaln(value + 1.0) - gammaln(n - value + 1.0)
    return coef + value * jnp.log(prob) + (n - value) * jnp.log1p(-prob)


class Binomial(_Binary, Distribution):
    """Binomial distribution: successes in ``n`` trials of probability ``prob`` (or ``logit``)."""

    support = NonNegativeInteger()
    arg_constraints = {"prob": Interval(0, 1), "logit": Real()}  # noqa: RUF012

    def __init__(self, n: int = 1, prob: Any = None, logit: Any = None,
                 validate_args: bool | None = None) -> None:
        if n < 0 or n % 1 != 0:
            raise ValueError(f"Expect `n` to be non-negative integer, received n={n}")
        self._set_prob_logit(prob, logit)
        self.n = n
        Distribution.__init__(self, event_dim=0, validate_args=validate_args)

    @property
    def mean(self) -> Any:
        return self.n * self.prob

    @property
    def variance(self) -> Any:
        return self.n * self.prob * (1 - self.prob)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Binomial:
        return self._new_like(n=self.n, **self._broadcast_given(batch_shape))

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.n, self.prob, value)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_sample, key_data(key), self.n, self.prob, sample_shape(size, self.prob))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.n, self.prob, sample_n_shape(size, self.prob))
