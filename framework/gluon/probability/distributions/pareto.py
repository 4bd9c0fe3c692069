"""The Pareto (type I) distribution: ``scale * exp(E)`` for ``E ~ Exponential(1 / alpha)``.

>>> from framework.gluon.probability import Pareto
>>> float(Pareto(3.0, 2.0).mean)
3.0
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ..transformation import AffineTransform, ExpTransform
from .constraint import GreaterThan, Positive, dependent_property
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .utils import broadcast, float_dtype, key_data, op, sample_n_shape, sample_shape, wrap_key

__all__ = ["Pareto"]


def _sample(kd, alpha, scale, shape):
    e = jax.random.exponential(wrap_key(kd), shape, float_dtype(alpha, scale))
    return scale * jnp.exp(e / alpha)


def _mean(alpha, scale):
    a = jnp.asarray(alpha, jnp.result_type(float, alpha))
    return jnp.where(a <= 1, jnp.inf, a * scale / (a - 1))


def _variance(alpha, scale):
    a = jnp.asarray(alpha, jnp.result_type(float, alpha))
    return jnp.where(a <= 2, jnp.inf, scale ** 2 * a / ((a - 1) ** 2 * (a - 2)))


def _entropy(alpha, scale):
    return jnp.log(scale / alpha) + 1 / alpha + 1


class Pareto(TransformedDistribution):
    """Pareto distribution with shape ``alpha`` and ``scale`` (the minimum); support ``x > scale``."""

    has_grad = True
    arg_constraints = {"scale": Positive(), "alpha": Positive()}  # noqa: RUF012

    def __init__(self, alpha: Any, scale: Any = 1.0, validate_args: bool | None = None) -> None:
        self.alpha, self.scale = alpha, scale
        super().__init__(Exponential(1 / alpha), [ExpTransform(), AffineTransform(0, scale)],
                         validate_args=validate_args)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Pareto:
        return Pareto(broadcast(self.alpha, batch_shape), broadcast(self.scale, batch_shape),
                      validate_args=False)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_sample, key_data(key), self.alpha, self.scale, sample_shape(size, self.alpha, self.scale))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.alpha, self.scale, sample_n_shape(size, self.alpha,
                                                                                 self.scale))

    @dependent_property
    def support(self) -> GreaterThan:
        return GreaterThan(self.scale)

    @property
    def mean(self) -> Any:
        return op(_mean, self.alpha, self.scale)

    @property
    def variance(self) -> Any:
        return op(_variance, self.alpha, self.scale)

    def entropy(self) -> Any:
        return op(_entropy, self.alpha, self.scale)
