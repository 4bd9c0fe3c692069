"""The Dirichlet distribution over the simplex (last axis).

>>> import jax.numpy as jnp
>>> from framework.gluon.probability import Dirichlet
>>> Dirichlet(jnp.array([1.0, 3.0])).mean.tolist()
[0.25, 0.75]
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax.scipy.special import digamma, gammaln

from .constraint import Positive, Simplex
from .exp_family import ExponentialFamily
from .utils import EPS, broadcast, key_data, op, shape_of, size_tuple, wrap_key

__all__ = ["Dirichlet"]


def _sample(kd, alpha, shape):
    a = jnp.broadcast_to(jnp.asarray(alpha, jnp.result_type(float, alpha)), shape)
    g = jax.random.gamma(wrap_key(kd), a, shape, a.dtype)
    return jnp.maximum(g / g.sum(-1, keepdims=True), EPS)


def _log_prob(alpha, value):
    return (jnp.log(value) * (alpha - 1.0)).sum(-1) + gammaln(alpha.sum(-1)) - gammaln(alpha).sum(-1)


def _mean(alpha):
    return alpha / alpha.sum(-1, keepdims=True)


def _variance(alpha):
    s = alpha.sum(-1, keepdims=True)
    return alpha * (s - alpha) / ((s + 1) * s ** 2)


def _entropy(alpha):
    a0 = alpha.sum(-1)
    k = alpha.shape[-1]
    return (gammaln(alpha).sum(-1) - gammaln(a0) + (a0 - k) * digamma(a0)
            - ((alpha - 1) * digamma(alpha)).sum(-1))


class Dirichlet(ExponentialFamily):
    """Dirichlet distribution with concentration ``alpha`` (..., K); events are K-vectors."""

    has_grad = True
    support = Simplex()
    arg_constraints = {"alpha": Positive()}  # noqa: RUF012

    def __init__(self, alpha: Any, validate_args: bool | None = None) -> None:
        self.alpha = alpha
        super().__init__(event_dim=1, validate_args=validate_args)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        event = shape_of(self.alpha)
        shape = event if size is None else size_tuple(size) + event[-1:]
        return op(_sample, key_data(key), self.alpha, tuple(jnp.broadcast_shapes(shape, event)))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.alpha, size_tuple(size) + shape_of(self.alpha))

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Dirichlet:
        return self._new_like(alpha=broadcast(self.alpha, tuple(batch_shape) + shape_of(self.alpha)[-1:]))

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.alpha, value)

    @property
    def mean(self) -> Any:
        return op(_mean, self.alpha)

    @property
    def variance(self) -> Any:
        return op(_variance, self.alpha)

    def entropy(self) -> Any:
        return op(_entropy, self.alpha)
