"""The Poisson distribution.

>>> from framework.gluon.probability import Poisson
>>> round(float(Poisson(2.0).log_prob(1.0)), 4)
-1.3069
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax.scipy.special import gammaln

from .constraint import NonNegativeInteger, Positive
from .exp_family import ExponentialFamily
from .utils import broadcast, float_dtype, key_data, op, sample_n_shape, sample_shape, wrap_key

__all__ = ["Poisson"]


def _sample(kd, rate, shape):
    lam = jnp.broadcast_to(jnp.asarray(rate, float_dtype(rate)), shape)
    return jax.random.poisson(wrap_key(kd), lam, shape).astype(lam.dtype)


def _log_prob(rate, value):
    return value * jnp.log(rate) - rate - gammaln(value + 1.0)


class Poisson(ExponentialFamily):
    """Poisson distribution with ``rate`` (samples are float counts, as MXNet's)."""

    arg_constraints = {"rate": Positive()}  # noqa: RUF012
    support = NonNegativeInteger()

    def __init__(self, rate: Any = 1.0, validate_args: bool | None = None) -> None:
        self.rate = rate
        super().__init__(event_dim=0, validate_args=validate_args)

    @property
    def mean(self) -> Any:
        return self.rate

    @property
    def variance(self) -> Any:
        return self.rate

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Poisson:
        return self._new_like(rate=broadcast(self.rate, batch_shape))

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_sample, key_data(key), self.rate, sample_shape(size, self.rate))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.rate, sample_n_shape(size, self.rate))

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.rate, value)

    @property
    def _natural_params(self) -> tuple[Any]:
        return (op(jnp.log, self.rate),)

    def _log_normalizer(self, x: Any) -> Any:
        return op(jnp.exp, x)
