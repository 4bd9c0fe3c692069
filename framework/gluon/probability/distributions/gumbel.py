"""The Gumbel (type-I extreme value) distribution.

>>> from framework.gluon.probability import Gumbel
>>> round(float(Gumbel(0.0, 1.0).mean), 4)
0.5772
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp

from .constraint import Positive, Real
from .distribution import Distribution
from .utils import broadcast, float_dtype, key_data, op, sample_n_shape, sample_shape, wrap_key

__all__ = ["Gumbel"]

EULER_GAMMA = 0.5772156649015329


def _sample(kd, loc, scale, shape):
    return loc + scale * jax.random.gumbel(wrap_key(kd), shape, float_dtype(loc, scale))


def _log_prob(loc, scale, value):
    y = (loc - value) / scale
    return y - jnp.exp(y) - jnp.log(scale)


def _cdf(loc, scale, value):
    return jnp.exp(-jnp.exp(-(value - loc) / scale))


def _icdf(loc, scale, value):
    return loc - scale * jnp.log(-jnp.log(value))


def _entropy(scale):
    return jnp.log(scale) + (1 + EULER_GAMMA)


class Gumbel(Distribution):
    """Gumbel distribution with location ``loc`` and ``scale``."""

    has_grad = True
    support = Real()
    arg_constraints = {"loc": Real(), "scale": Positive()}  # noqa: RUF012

    def __init__(self, loc: Any, scale: Any = 1, validate_args: bool | None = None) -> None:
        self.loc, self.scale = loc, scale
        super().__init__(event_dim=0, validate_args=validate_args)

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.loc, self.scale, value)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Gumbel:
        return self._new_like(loc=broadcast(self.loc, batch_shape), scale=broadcast(self.scale, batch_shape))

    def cdf(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_cdf, self.loc, self.scale, value)

    def icdf(self, value: Any) -> Any:
        return op(_icdf, self.loc, self.scale, value)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_sample, key_data(key), self.loc, self.scale, sample_shape(size, self.loc, self.scale))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.loc, self.scale, sample_n_shape(size, self.loc, self.scale))

    @property
    def mean(self) -> Any:
        return self.loc + self.scale * EULER_GAMMA

    @property
    def stddev(self) -> Any:
        return math.pi / math.sqrt(6) * self.scale

    @property
    def variance(self) -> Any:
        return self.stddev ** 2

    def entropy(self) -> Any:
        return op(_entropy, self.scale)
