"""The Multinomial distribution: counts of ``total_count`` categorical draws.

>>> import jax, jax.numpy as jnp
>>> from framework.gluon.probability import Multinomial
>>> d = Multinomial(3, prob=jnp.array([0.2, 0.3, 0.5]), total_count=4)
>>> float(d.sample(key=jax.random.key(0)).sum()), d.mean.tolist()
(4.0, [0.800000011920929, 1.2000000476837158, 2.0])
"""

from __future__ import annotations

from numbers import Number
from typing import Any

import jax
import jax.numpy as jnp
from jax.scipy.special import gammaln

from .constraint import IntegerInterval, Real, Simplex
from .distribution import Distribution
from .one_hot_categorical import OneHotCategorical
from .utils import op, size_tuple

__all__ = ["Multinomial"]


def _log_prob(logit, value):
    logp = jax.nn.log_softmax(logit, axis=-1)
    return gammaln(value.sum(-1) + 1) - gammaln(value + 1).sum(-1) + (logp * value).sum(-1)


def _sum0(x):
    return jnp.sum(x, axis=0)


class Multinomial(Distribution):
    """Multinomial distribution over ``num_events`` classes with ``total_count`` trials."""

    arg_constraints = {"prob": Simplex(), "logit": Real()}  # noqa: RUF012

    def __init__(self, num_events: int, prob: Any = None, logit: Any = None, total_count: int = 1,
                 validate_args: bool | None = None) -> None:
        if not isinstance(total_count, Number):
            raise ValueError("Expect `total_count` to be a scalar value")
        self.total_count, self.num_events = total_count, int(num_events)
        self._categorical = OneHotCategorical(num_events, prob, logit, validate_args)
        super().__init__(event_dim=1, validate_args=validate_args)

    @property
    def prob(self) -> Any:
        return self._categorical.prob

    @property
    def logit(self) -> Any:
        return self._categorical.logit

    @property
    def mean(self) -> Any:
        return self.prob * self.total_count

    @property
    def variance(self) -> Any:
        return self.total_count * self.prob * (1 - self.prob)

    @property
    def support(self) -> IntegerInterval:  # type: ignore[override]
        return IntegerInterval(0, self.total_count)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        categorical = self._categorical
        if size is not None:
            categorical = categorical.broadcast_to(size_tuple(size))
        return op(_sum0, categorical.sample_n(int(self.total_count), key=key))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        shape = (int(self.total_count),) + size_tuple(size)
        return op(_sum0, self._categorical.sample_n(shape, key=key))

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.logit, value)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Multinomial:
        return self._new_like(total_count=self.total_count, num_events=self.num_events,
                              _categorical=self._categorical.broadcast_to(batch_shape))
