"""The relaxed one-hot Categorical (Concrete / Gumbel-softmax) distribution with temperature ``T``.

>>> import jax, jax.numpy as jnp
>>> from framework.gluon.probability import RelaxedOneHotCategorical
>>> x = RelaxedOneHotCategorical(0.5, 3, prob=jnp.array([0.2, 0.3, 0.5])).sample(key=jax.random.key(0))
>>> round(float(x.sum()), 5)
1.0
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp

from ..transformation import ExpTransform
from .constraint import Real, Simplex
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .utils import cached_property, key_data, logit2prob, op, prob2logit, shape_of, size_tuple, wrap_key

__all__ = ["RelaxedOneHotCategorical"]


def _sample(kd, logit, temperature, shape):
    logit = jnp.broadcast_to(logit, shape)
    scores = (logit + jax.random.gumbel(wrap_key(kd), shape, logit.dtype)) / temperature
    return jax.nn.log_softmax(scores, axis=-1)


def _log_prob(logit, temperature, value, num_events):
    y = logit - value * temperature
    log_scale = math.lgamma(num_events) + (num_events - 1) * jnp.log(temperature)
    return (y - jax.nn.logsumexp(y, axis=-1, keepdims=True)).sum(-1) + log_scale


class _LogRelaxedOneHotCategorical(Distribution):
    """The log of a relaxed one-hot categorical draw."""

    has_grad = True
    arg_constraints = {"prob": Simplex(), "logit": Real()}  # noqa: RUF012

    def __init__(self, T: Any, num_events: int, prob: Any = None, logit: Any = None,
                 validate_args: bool | None = None) -> None:
        self.T = T
        if not num_events > 0:
            raise ValueError(f"`num_events` should be greater than zero. Received num_events={num_events}")
        self.num_events = int(num_events)
        if (prob is None) == (logit is None):
            raise ValueError("Either `prob` or `logit` must be specified, but not both. "
                             f"Received prob={prob}, logit={logit}")
        if prob is not None:
            self.prob = prob
        else:
            self.logit = logit
        super().__init__(event_dim=1, validate_args=validate_args)

    @cached_property
    def prob(self) -> Any:
        return logit2prob(self.logit, False)

    @cached_property
    def logit(self) -> Any:
        return prob2logit(self.prob, False)

    def log_prob(self, value: Any) -> Any:
        return op(_log_prob, self.logit, self.T, value, self.num_events)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        event = shape_of(self.logit)
        shape = event if size is None else tuple(jnp.broadcast_shapes(size_tuple(size) + event[-1:], event))
        return op(_sample, key_data(key), self.logit, self.T, shape)

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.logit, self.T, size_tuple(size) + shape_of(self.logit))


class RelaxedOneHotCategorical(TransformedDistribution):
    """Relaxed one-hot categorical on the simplex: a reparameterised, differentiable stand-in for a
    one-hot draw at temperature ``T``."""

    has_grad = True
    arg_constraints = {"prob": Simplex(), "logit": Real()}  # noqa: RUF012

    def __init__(self, T: Any, num_events: int, prob: Any = None, logit: Any = None,
                 validate_args: bool | None = None) -> None:
        super().__init__(_LogRelaxedOneHotCategorical(T, num_events, prob, logit, validate_args),
                         ExpTransform(),
                         validate_args=validate_args)

    @property
    def T(self) -> Any:  # noqa: N802
        return self._base_dist.T

    @property
    def prob(self) -> Any:
        return self._base_dist.prob

    @property
    def logit(self) -> Any:
        return self._base_dist.logit
