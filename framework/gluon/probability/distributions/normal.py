"""The Normal distribution.

>>> from framework.gluon.probability import Normal
>>> d = Normal(1.0, 2.0)
>>> float(d.mean), float(d.stddev), round(float(d.cdf(1.0)), 3)
(1.0, 2.0, 0.5)
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp

from .constraint import Positive, Real
from .exp_family import ExponentialFamily
from .utils import broadcast, float_dtype, key_data, op, sample_n_shape, sample_shape, wrap_key

__all__ = ["Normal"]


def _log_prob(loc, scale, value):
    return -((value - loc) ** 2) / (2 * scale ** 2) - jnp.log(scale) - 0.5 * math.log(2 * math.pi)


def _sample(kd, loc, scale, shape):
    return loc + scale * jax.random.normal(wrap_key(kd), shape, float_dtype(loc, scale))


def _cdf(loc, scale, value):
    return 0.5 * (1 + jax.scipy.special.erf((value - loc) / (math.sqrt(2) * scale)))


def _icdf(loc, scale, value):
    return loc + scale * jax.scipy.special.erfinv(2 * value - 1) * math.sqrt(2)


def _entropy(scale):
    return 0.5 + 0.5 * math.log(2 * math.pi) + jnp.log(scale)


def _log_normalizer(x, y):
    return -0.25 * x ** 2 / y + 0.5 * jnp.log(-math.pi / y)


class Normal(ExponentialFamily):
    """Normal (Gaussian) distribution with mean ``loc`` and standard deviation ``scale``."""

    has_grad = True
    support = Real()
    arg_constraints = {"loc": Real(), "scale": Positive()}  # noqa: RUF012 (MXNet's class attribute)

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

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Normal:
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
        return self.scale

    @property
    def variance(self) -> Any:
        return self.scale ** 2

    def entropy(self) -> Any:
        return op(_entropy, self.scale)

    @property
    def _natural_params(self) -> tuple[Any, Any]:
        return self.loc / self.scale ** 2, -0.5 / self.scale ** 2

    def _log_normalizer(self, x: Any, y: Any) -> Any:
        return op(_log_normalizer, x, y)
