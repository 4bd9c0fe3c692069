"""Student's t distribution.

>>> from framework.gluon.probability import StudentT
>>> d = StudentT(5.0, 1.0, 2.0)
>>> float(d.mean), round(float(d.variance), 4)
(1.0, 6.6667)
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
from jax.scipy.special import digamma, gammaln

from .chi2 import Chi2
from .constraint import Positive, Real
from .distribution import Distribution
from .utils import broadcast, draw_key, float_dtype, op, sample_n_shape, sample_shape, split_key, wrap_key

__all__ = ["StudentT"]


def _mean(df, loc):
    return jnp.where(jnp.asarray(df) <= 1, jnp.nan, jnp.asarray(loc, jnp.result_type(float, loc)) + 0 * df)


def _variance(df, scale):
    df = jnp.asarray(df, jnp.result_type(float, df))
    v = scale ** 2 * df / (df - 2)
    return jnp.where(df <= 1, jnp.nan, jnp.where(df <= 2, jnp.inf, v))


def _t(kd, df, loc, scale, z, shape):
    x = jax.random.normal(wrap_key(kd), shape, float_dtype(loc, scale, df))
    return loc + scale * x * jnp.sqrt(df / z)


def _log_prob(df, loc, scale, value):
    y = (value - loc) / scale
    return (gammaln((df + 1) / 2) - gammaln(df / 2) - jnp.log(scale) - 0.5 * jnp.log(df * math.pi)
            - 0.5 * (df + 1) * jnp.log1p(y ** 2 / df))


def _entropy(df, scale):
    lbeta = gammaln(0.5 * df) + gammaln(0.5) - gammaln(0.5 * (df + 1))
    return (jnp.log(scale) + 0.5 * (df + 1) * (digamma(0.5 * (df + 1)) - digamma(0.5 * df))
            + 0.5 * jnp.log(df) + lbeta)


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and ``scale``: ``loc + scale * X
    * sqrt(df / Z)``, X normal and Z chi-squared."""

    has_grad = True
    support = Real()
    arg_constraints = {"df": Positive(), "loc": Real(), "scale": Real()}  # noqa: RUF012

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = df, loc, scale
        self._chi2 = Chi2(df)
        super().__init__(event_dim=0, validate_args=validate_args)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> StudentT:
        return self._new_like(df=broadcast(self.df, batch_shape), loc=broadcast(self.loc, batch_shape),
                              scale=broadcast(self.scale,
                                              batch_shape), _chi2=self._chi2.broadcast_to(batch_shape))

    @property
    def mean(self) -> Any:
        return op(_mean, self.df, self.loc)

    @property
    def variance(self) -> Any:
        return op(_variance, self.df, self.scale)

    def _draw(self, shape: tuple[int, ...], key: Any) -> Any:
        k1, k2 = split_key(draw_key(key))
        z = self._chi2.sample(shape, key=k2)
        return op(_t, jax.random.key_data(k1), self.df, self.loc, self.scale, z, shape)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return self._draw(sample_shape(size, self.df, self.loc, self.scale), key)

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return self._draw(sample_n_shape(size, self.df, self.loc, self.scale), key)

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.df, self.loc, self.scale, value)

    def entropy(self) -> Any:
        return op(_entropy, self.df, self.scale)
