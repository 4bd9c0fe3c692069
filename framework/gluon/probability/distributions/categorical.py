"""The Categorical distribution over ``num_events`` classes (integer values).

>>> import jax.numpy as jnp
>>> from framework.gluon.probability import Categorical
>>> d = Categorical(3, prob=jnp.array([0.2, 0.3, 0.5]))
>>> round(float(d.log_prob(2)), 4), d.enumerate_support().tolist()
(-0.6931, [0, 1, 2])
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from .constraint import IntegerInterval, Real, Simplex
from .distribution import Distribution
from .utils import (
    broadcast,
    cached_property,
    key_data,
    logit2prob,
    op,
    prob2logit,
    shape_of,
    size_tuple,
    wrap_key,
)

__all__ = ["Categorical"]


def _log_prob(logit, value):
    logp = jax.nn.log_softmax(logit, axis=-1)
    idx = jnp.asarray(value).astype(jnp.int32)[..., None]
    shape = jnp.broadcast_shapes(logp.shape[:-1], idx.shape[:-1])
    logp = jnp.broadcast_to(logp, shape + logp.shape[-1:])
    return jnp.take_along_axis(logp, jnp.broadcast_to(idx, shape + (1,)), axis=-1)[..., 0]


def _sample(kd, logit, shape):
    logit = jnp.broadcast_to(logit, shape + logit.shape[-1:])
    return jax.random.categorical(wrap_key(kd), logit, axis=-1)


def _support(logit, num_events):
    value = jnp.broadcast_to(jnp.arange(num_events), logit.shape)
    return jnp.moveaxis(value, -1, 0)


def _entropy(logit):
    logp = jax.nn.log_softmax(logit, axis=-1)
    return -(jnp.exp(logp) * logp).sum(-1)


class Categorical(Distribution):
    """Categorical distribution given ``prob`` or ``logit`` over the last axis (``num_events``
    classes). ``log_prob`` normalises ``logit`` (MXNet 2.0 reads unnormalised logits as given)."""

    has_enumerate_support = True
    arg_constraints = {"prob": Simplex(), "logit": Real()}  # noqa: RUF012

    def __init__(self, num_events: int, prob: Any = None, logit: Any = None,
                 validate_args: bool | None = None) -> None:
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
        super().__init__(event_dim=0, validate_args=validate_args)

    @cached_property
    def prob(self) -> Any:
        return logit2prob(self.logit, False)

    @cached_property
    def logit(self) -> Any:
        return prob2logit(self.prob, False)

    @property
    def support(self) -> IntegerInterval:  # type: ignore[override]
        return IntegerInterval(0, self.num_events)

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.logit, value)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        batch = shape_of(self.logit)[:-1]
        shape = batch if size is None else tuple(jnp.broadcast_shapes(size_tuple(size), batch))
        return op(_sample, key_data(key), self.logit, shape)

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.logit, size_tuple(size) + shape_of(self.logit)[:-1])

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Categorical:
        shape = tuple(batch_shape) + (self.num_events,)
        new = self._new_like(num_events=self.num_events)
        new.__dict__.update(logit=broadcast(self.logit, shape))
        if "prob" in self.__dict__:
            new.__dict__.update(prob=broadcast(self.prob, shape))
        return new

    def enumerate_support(self) -> Any:
        return op(_support, self.logit, self.num_events)

    def entropy(self) -> Any:
        return op(_entropy, self.logit)
