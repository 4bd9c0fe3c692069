"""The Weibull distribution: ``scale * E ** (1 / concentration)`` for ``E ~ Exponential(1)``.

>>> from framework.gluon.probability import Weibull
>>> float(Weibull(1.0, 2.0).mean)
2.0
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax.scipy.special import gammaln

from ..transformation import AffineTransform, PowerTransform
from .constraint import Positive
from .exponential import Exponential
from .gumbel import EULER_GAMMA
from .transformed_distribution import TransformedDistribution
from .utils import broadcast, float_dtype, key_data, op, sample_n_shape, sample_shape, wrap_key

__all__ = ["Weibull"]


def _sample(kd, concentration, scale, shape):
    e = jax.random.exponential(wrap_key(kd), shape, float_dtype(concentration, scale))
    return scale * e ** (1 / concentration)


def _mean(concentration, scale):
    return scale * jnp.exp(gammaln(1 + 1 / concentration))


def _variance(concentration, scale):
    first, second = gammaln(1 + 1 / concentration), gammaln(1 + 2 / concentration)
    return scale ** 2 * (jnp.exp(second) - jnp.exp(2 * first))


def _entropy(concentration, scale):
    return EULER_GAMMA * (1 - 1 / concentration) + jnp.log(scale / concentration) + 1


class Weibull(TransformedDistribution):
    """Weibull distribution with shape ``concentration`` and ``scale``."""

    has_grad = True
    support = Positive()
    arg_constraints = {"scale": Positive(), "concentration": Positive()}  # noqa: RUF012

    def __init__(self, concentration: Any, scale: Any = 1.0, validate_args: bool | None = None) -> None:
        self.concentration, self.scale = concentration, scale
        super().__init__(Exponential(), [PowerTransform(1 / concentration), AffineTransform(0, scale)],
                         validate_args=validate_args)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Weibull:
        return Weibull(broadcast(self.concentration, batch_shape), broadcast(self.scale, batch_shape),
                       validate_args=False)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        shape = sample_shape(size, self.concentration, self.scale)
        return op(_sample, key_data(key), self.concentration, self.scale, shape)

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        shape = sample_n_shape(size, self.concentration, self.scale)
        return op(_sample, key_data(key), self.concentration, self.scale, shape)

    @property
    def mean(self) -> Any:
        return op(_mean, self.concentration, self.scale)

    @property
    def variance(self) -> Any:
        return op(_variance, self.concentration, self.scale)

    def entropy(self) -> Any:
        return op(_entropy, self.concentration, self.scale)
