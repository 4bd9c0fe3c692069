"""The Laplace distribution.

>>> from framework.gluon.probability import Laplace
>>> d = Laplace(1.0, 2.0)
>>> float(d.variance), float(d.cdf(1.0))
(8.0, 0.5)
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp

from .constraint import Positive, Real
from .distribution import Distribution
from .utils import broadcast, float_dtype, key_data, op, sample_n_shape, sample_shape, wrap_key

__all__ = ["Laplace"]


def _sample(kd, loc, scale, shape):
    return loc + scale * jax.random.laplace(wrap_key(kd), shape, float_dtype(loc, scale))


def _log_prob(loc, scale, value):
    return -jnp.log(2 * scale) - jnp.abs(value - loc) / scale


def _cdf(loc, scale, value):
    z = value - loc
    return 0.5 - 0.5 * jnp.sign(z) * jnp.expm1(-jnp.abs(z) / scale)


def _icdf(loc, scale, value):
    z = value - 0.5
    return loc - scale * jnp.sign(z) * jnp.log1p(-2 * jnp.abs(z))


def _entropy(scale):
    return 1 + jnp.log(2 * scale)


class Laplace(Distribution):
    """Laplace (double exponential) distribution with location ``loc`` and ``scale``."""

    has_grad = True
    support = Real()
    arg_constraints = {"loc": Real(), "scale": Positive()}  # noqa: RUF012

    def __init__(self, loc: Any = 0.0, scale: Any = 1.0, validate_args: bool | None = None) -> None:
        self.loc, self.scale = loc, scale
        super().__init__(event_dim=0, validate_args=validate_args)

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.loc, self.scale, value)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_sample, key_data(key), self.loc, self.scale, sample_shape(size, self.loc, self.scale))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.loc, self.scale, sample_n_shape(size, self.loc, self.scale))

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Laplace:
        return self._new_like(loc=broadcast(self.loc, batch_shape), scale=broadcast(self.scale, batch_shape))

    def cdf(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_cdf, self.loc, self.scale, value)

    def icdf(self, value: Any) -> Any:
        return op(_icdf, self.loc, self.scale, value)

    @property
    def mean(self) -> Any:
        return self.loc

    @property
    def stddev(self) -> Any:
        return math.sqrt(2) * self.scale

    @property
    def variance(self) -> Any:
        return 2 * self.scale ** 2

    def entropy(self) -> Any:
        return op(_entropy, self.scale)
