"""The one-hot Categorical distribution (values are one-hot vectors, ``event_dim`` 1).

>>> import jax, jax.numpy as jnp
>>> from framework.gluon.probability import OneHotCategorical
>>> d = OneHotCategorical(3, prob=jnp.array([0.2, 0.3, 0.5]))
>>> round(float(d.log_prob(jnp.array([0.0, 0.0, 1.0]))), 4), d.sample(key=jax.random.key(0)).shape
(-0.6931, (3,))
"""

from __future__ import annotations

from typing import Any

import jax

from .categorical import Categorical
from .constraint import Real, Simplex
from .distribution import Distribution
from .utils import op

__all__ = ["OneHotCategorical"]


def _one_hot(indices, num_events):
    return jax.nn.one_hot(indices, num_events)


def _log_prob(logit, value):
    return (value * jax.nn.log_softmax(logit, axis=-1)).sum(-1)


class OneHotCategorical(Distribution):
    """Categorical distribution whose values are one-hot vectors of length ``num_events``."""

    has_enumerate_support = True
    arg_constraints = {"prob": Simplex(), "logit": Real()}  # noqa: RUF012

    def __init__(self, num_events: int, prob: Any = None, logit: Any = None,
                 validate_args: bool | None = None) -> None:
        if not num_events > 0:
            raise ValueError(f"`num_events` should be greater than zero. Received num_events={num_events}")
        self.num_events = int(num_events)
        self._categorical = Categorical(num_events, prob, logit, validate_args)
        super().__init__(event_dim=1, validate_args=validate_args)

    @property
    def prob(self) -> Any:
        return self._categorical.prob

    @property
    def logit(self) -> Any:
        return self._categorical.logit

    @property
    def mean(self) -> Any:
        return self._categorical.prob

    @property
    def variance(self) -> Any:
        prob = self.prob
        return prob * (1 - prob)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_one_hot, self._categorical.sample(size, key=key), self.num_events)

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_one_hot, self._categorical.sample_n(size, key=key), self.num_events)

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.logit, value)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> OneHotCategorical:
        return self._new_like(num_events=self.num_events,
                              _categorical=self._categorical.broadcast_to(batch_shape))

    def enumerate_support(self) -> Any:
        return op(_one_hot, self._categorical.enumerate_support(), self.num_events)

    def entropy(self) -> Any:
        return self._categorical.entropy()
