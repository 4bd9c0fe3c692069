"""The Bernoulli distribution (values 0. and 1.).

>>> from framework.gluon.probability import Bernoulli
>>> d = Bernoulli(prob=0.25)
>>> float(d.mean), round(float(d.log_prob(1.0)), 4)
(0.25, -1.3863)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ._binary import _Binary
from .constraint import Boolean, Interval, Real
from .exp_family import ExponentialFamily
from .utils import float_dtype, key_data, op, sample_n_shape, sample_shape, wrap_key

__all__ = ["Bernoulli"]


def _sample(kd, prob, shape):
    return jax.random.bernoulli(wrap_key(kd), prob, shape).astype(float_dtype(prob))


def _log_prob_from_prob(prob, value):
    eps = 1e-12
    return jnp.log(prob + eps) * value + jnp.log1p(-prob + eps) * (1 - value)


def _log_prob_from_logit(logit, value):
    return value * logit - jax.nn.softplus(logit)


def _entropy(logit):
    p = jax.nn.sigmoid(logit)
    return p * jax.nn.softplus(-logit) + (1 - p) * jax.nn.softplus(logit)


def _log_normalizer(x):
    return jax.nn.softplus(x)


class Bernoulli(_Binary, ExponentialFamily):
    """Bernoulli distribution given ``prob`` or ``logit`` (exactly one)."""

    support = Boolean()
    arg_constraints = {"prob": Interval(0, 1), "logit": Real()}  # noqa: RUF012

    def __init__(self, prob: Any = None, logit: Any = None, validate_args: bool | None = None) -> None:
        self._set_prob_logit(prob, logit)
        ExponentialFamily.__init__(self, event_dim=0, validate_args=validate_args)

    @property
    def mean(self) -> Any:
        return self.prob

    @property
    def variance(self) -> Any:
        return self.prob * (1 - self.prob)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Bernoulli:
        return self._new_like(**self._broadcast_given(batch_shape))

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        if self._given() == "prob":
            return op(_log_prob_from_prob, self.prob, value)
        return op(_log_prob_from_logit, self.logit, value)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_sample, key_data(key), self.prob, sample_shape(size, self.prob))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.prob, sample_n_shape(size, self.prob))

    @property
    def _natural_params(self) -> tuple[Any]:
        return (self.logit,)

    def _log_normalizer(self, x: Any) -> Any:
        return op(_log_normalizer, x)

    def entropy(self) -> Any:
        return op(_entropy, self.logit)
