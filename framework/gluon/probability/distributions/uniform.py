"""The continuous uniform distribution on [low, high).

>>> from framework.gluon.probability import Uniform
>>> d = Uniform(1.0, 3.0)
>>> float(d.mean), round(float(d.log_prob(2.0)), 4), float(d.log_prob(5.0))
(2.0, -0.6931, -inf)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from .constraint import Interval, Real
from .distribution import Distribution
from .utils import broadcast, float_dtype, key_data, op, sample_n_shape, sample_shape, wrap_key

__all__ = ["Uniform"]


def _sample(kd, low, high, shape):
    return low + (high - low) * jax.random.uniform(wrap_key(kd), shape, float_dtype(low, high))


def _log_prob(low, high, value):
    inside = (value > low) & (value < high)
    return jnp.where(inside, 0.0, -jnp.inf) - jnp.log(high - low)


def _cdf(low, high, value):
    return jnp.clip((value - low) / (high - low), 0, 1)


def _entropy(low, high):
    return jnp.log(high - low)


class Uniform(Distribution):
    """Uniform distribution between ``low`` and ``high`` (log density -inf outside, as MXNet)."""

    has_grad = True
    arg_constraints = {"low": Real(), "high": Real()}  # noqa: RUF012

    def __init__(self, low: Any = 0.0, high: Any = 1.0, validate_args: bool | None = None) -> None:
        self.low, self.high = low, high
        super().__init__(event_dim=0, validate_args=validate_args)

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.low, self.high, value)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_sample, key_data(key), self.low, self.high, sample_shape(size, self.low, self.high))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.low, self.high, sample_n_shape(size, self.low, self.high))

    @property
    def support(self) -> Interval:  # type: ignore[override]
        return Interval(self.low, self.high)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Uniform:
        return self._new_like(low=broadcast(self.low, batch_shape), high=broadcast(self.high, batch_shape))

    def cdf(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_cdf, self.low, self.high, value)

    def icdf(self, value: Any) -> Any:
        return value * (self.high - self.low) + self.low

    @property
    def mean(self) -> Any:
        return (self.high + self.low) / 2

    @property
    def variance(self) -> Any:
        return (self.high - self.low) ** 2 / 12

    def entropy(self) -> Any:
        return op(_entropy, self.low, self.high)
