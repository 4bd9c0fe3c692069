"""The Exponential distribution (``scale`` = 1 / rate).

>>> from framework.gluon.probability import Exponential
>>> d = Exponential(2.0)
>>> float(d.mean), round(float(d.cdf(2.0)), 4)
(2.0, 0.6321)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from .constraint import Positive
from .exp_family import ExponentialFamily
from .utils import (
    broadcast,
    cached_property,
    float_dtype,
    key_data,
    op,
    sample_n_shape,
    sample_shape,
    wrap_key,
)

__all__ = ["Exponential"]


def _sample(kd, scale, shape):
    return scale * jax.random.exponential(wrap_key(kd), shape, float_dtype(scale))


def _log_prob(scale, value):
    return -jnp.log(scale) - value / scale


def _cdf(scale, value):
    return -jnp.expm1(-value / scale)


def _icdf(scale, value):
    return -scale * jnp.log1p(-value)


def _entropy(scale):
    return 1.0 + jnp.log(scale)


class Exponential(ExponentialFamily):
    """Exponential distribution with mean ``scale``."""

    has_grad = True
    support = Positive()
    arg_constraints = {"scale": Positive()}  # noqa: RUF012

    def __init__(self, scale: Any = 1.0, validate_args: bool | None = None) -> None:
        self.scale = scale
        super().__init__(event_dim=0, validate_args=validate_args)

    @cached_property
    def rate(self) -> Any:
        return 1 / self.scale

    @property
    def mean(self) -> Any:
        return self.scale

    @property
    def variance(self) -> Any:
        return self.scale ** 2

    @property
    def stddev(self) -> Any:
        return self.scale

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_sample, key_data(key), self.scale, sample_shape(size, self.scale))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.scale, sample_n_shape(size, self.scale))

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Exponential:
        return self._new_like(scale=broadcast(self.scale, batch_shape))

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.scale, value)

    def cdf(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_cdf, self.scale, value)

    def icdf(self, value: Any) -> Any:
        return op(_icdf, self.scale, value)

    def entropy(self) -> Any:
        return op(_entropy, self.scale)

    @property
    def _natural_params(self) -> tuple[Any]:
        return (-1 / self.scale,)

    def _log_normalizer(self, x: Any) -> Any:
        return op(_neg_log_neg, x)


def _neg_log_neg(x):
    return -jnp.log(-x)
