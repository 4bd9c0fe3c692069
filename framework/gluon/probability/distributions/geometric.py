"""The Geometric distribution: failures before the first success.

>>> from framework.gluon.probability import Geometric
>>> d = Geometric(prob=0.25)
>>> float(d.mean), round(float(d.log_prob(1.0)), 4)
(3.0, -1.674)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ._binary import _Binary
from .constraint import Interval, NonNegativeInteger, Real
from .distribution import Distribution
from .utils import float_dtype, key_data, op, sample_n_shape, sample_shape, wrap_key

__all__ = ["Geometric"]


def _sample(kd, prob, shape):
    dtype = float_dtype(prob)
    u = jax.random.uniform(wrap_key(kd), shape, dtype, minval=jnp.finfo(dtype).tiny)
    return jnp.floor(jnp.log(u) / jnp.log1p(-prob))


def _log_prob(prob, value):
    return value * jnp.log1p(-prob) + jnp.log(prob)


def _entropy(logit, prob):
    return (prob * jax.nn.softplus(-logit) + (1 - prob) * jax.nn.softplus(logit)) / prob


class Geometric(_Binary, Distribution):
    """Geometric distribution given ``prob`` or ``logit`` of success."""

    support = NonNegativeInteger()
    arg_constraints = {"prob": Interval(0, 1), "logit": Real()}  # noqa: RUF012

    def __init__(self, prob: Any = None, logit: Any = None, validate_args: bool | None = None) -> None:
        self._set_prob_logit(prob, logit)
        Distribution.__init__(self, event_dim=0, validate_args=validate_args)

    @property
    def mean(self) -> Any:
        return 1 / self.prob - 1

    @property
    def variance(self) -> Any:
        return (1 / self.prob - 1) / self.prob

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Geometric:
        return self._new_like(**self._broadcast_given(batch_shape))

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.prob, value)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_sample, key_data(key), self.prob, sample_shape(size, self.prob))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.prob, sample_n_shape(size, self.prob))

    def entropy(self) -> Any:
        return op(_entropy, self.logit, self.prob)
