"""The F (Fisher-Snedecor) distribution.

>>> from framework.gluon.probability import FisherSnedecor
>>> float(FisherSnedecor(3.0, 6.0).mean)
1.5
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax.scipy.special import gammaln

from .constraint import Positive
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast, draw_key, op, split_key

__all__ = ["FisherSnedecor"]


def _mean(df2):
    df2 = jnp.asarray(df2, jnp.result_type(float, df2))
    return jnp.where(df2 <= 2, jnp.nan, df2 / (df2 - 2))


def _variance(df1, df2):
    df2 = jnp.asarray(df2, jnp.result_type(float, df2))
    v = 2 * df2 ** 2 * (df1 + df2 - 2) / (df1 * (df2 - 2) ** 2 * (df2 - 4))
    return jnp.where(df2 <= 4, jnp.nan, v)


def _log_prob(df1, df2, value):
    h1, h2 = df1 / 2, df2 / 2
    ratio = df1 / df2
    return (gammaln(h1 + h2) - gammaln(h1) - gammaln(h2) + h1 * jnp.log(ratio) + (h1 - 1) * jnp.log(value)
            - (h1 + h2) * jnp.log1p(ratio * value))


class FisherSnedecor(Distribution):
    """F distribution with ``df1`` and ``df2`` degrees of freedom (the ratio of two scaled chi-squared
    draws)."""

    has_grad = True
    support = Positive()
    arg_constraints = {"df1": Positive(), "df2": Positive()}  # noqa: RUF012

    def __init__(self, df1: Any, df2: Any, validate_args: bool | None = None) -> None:
        self.df1, self.df2 = df1, df2
        self._gamma1 = Gamma(0.5 * df1, 1 / df1)
        self._gamma2 = Gamma(0.5 * df2, 1 / df2)
        super().__init__(event_dim=0, validate_args=validate_args)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> FisherSnedecor:
        return self._new_like(df1=broadcast(self.df1, batch_shape), df2=broadcast(self.df2, batch_shape),
                              _gamma1=self._gamma1.broadcast_to(batch_shape),
                              _gamma2=self._gamma2.broadcast_to(batch_shape))

    @property
    def mean(self) -> Any:
        return op(_mean, self.df2)

    @property
    def variance(self) -> Any:
        return op(_variance, self.df1, self.df2)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        k1, k2 = split_key(draw_key(key))
        return self._gamma1.sample(size, key=k1) / self._gamma2.sample(size, key=k2)

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        k1, k2 = split_key(draw_key(key))
        return self._gamma1.sample_n(size, key=k1) / self._gamma2.sample_n(size, key=k2)

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.df1, self.df2, value)
