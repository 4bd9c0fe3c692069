"""The Cauchy distribution (no mean or variance: both NaN).

>>> from framework.gluon.probability import Cauchy
>>> float(Cauchy(0.0, 1.0).cdf(1.0))
0.75
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp

from .constraint import Positive, Real
from .distribution import Distribution
from .utils import broadcast, float_dtype, key_data, op, sample_n_shape, sample_shape, wrap_key

__all__ = ["Cauchy"]


def _icdf(loc, scale, value):
    return jnp.tan(math.pi * (value - 0.5)) * scale + loc


def _sample(kd, loc, scale, shape):
    u = jax.random.uniform(wrap_key(kd), shape, float_dtype(loc, scale))
    return _icdf(loc, scale, u)


def _log_prob(loc, scale, value):
    return -math.log(math.pi) - jnp.log(scale) - jnp.log1p(((value - loc) / scale) ** 2)


def _cdf(loc, scale, value):
    return jnp.arctan((value - loc) / scale) / math.pi + 0.5


def _entropy(scale):
    return math.log(4 * math.pi) + jnp.log(scale)


def _nan(*params):
    return jnp.full(jnp.broadcast_shapes(*(jnp.shape(p) for p in params)), jnp.nan)


class Cauchy(Distribution):
    """Cauchy distribution with location ``loc`` and ``scale`` (sampled by the inverse cdf)."""

    has_grad = True
    support = Real()
    arg_constraints = {"loc": Real(), "scale": Positive()}  # noqa: RUF012

    def __init__(self, loc: Any = 0.0, scale: Any = 1.0, validate_args: bool | None = None) -> None:
        self.loc, self.scale = loc, scale
        super().__init__(event_dim=0, validate_args=validate_args)

    @property
    def mean(self) -> Any:
        return op(_nan, self.loc, self.scale)

    @property
    def variance(self) -> Any:
        return op(_nan, self.loc, self.scale)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_sample, key_data(key), self.loc, self.scale, sample_shape(size, self.loc, self.scale))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.loc, self.scale, sample_n_shape(size, self.loc, self.scale))

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Cauchy:
        return self._new_like(loc=broadcast(self.loc, batch_shape), scale=broadcast(self.scale, batch_shape))

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.loc, self.scale, value)

    def cdf(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_cdf, self.loc, self.scale, value)

    def icdf(self, value: Any) -> Any:
        return op(_icdf, self.loc, self.scale, value)

    def entropy(self) -> Any:
        return op(_entropy, self.scale)
