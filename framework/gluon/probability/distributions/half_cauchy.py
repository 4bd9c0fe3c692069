"""The half-Cauchy distribution: ``|X|`` for ``X ~ Cauchy(0, scale)``.

>>> from framework.gluon.probability import HalfCauchy
>>> float(HalfCauchy(1.0).cdf(1.0))
0.5
"""

from __future__ import annotations

import math
from typing import Any

import jax.numpy as jnp

from ..transformation import AbsTransform
from .cauchy import Cauchy
from .constraint import Positive
from .transformed_distribution import TransformedDistribution
from .utils import op

__all__ = ["HalfCauchy"]


def _log_prob(base_log_prob, value):
    return jnp.where(value < 0, -jnp.inf, base_log_prob + math.log(2))


def _inf(scale):
    return jnp.full(jnp.shape(scale), jnp.inf)


class HalfCauchy(TransformedDistribution):
    """Half-Cauchy distribution with ``scale`` (its mean and variance are infinite)."""

    has_grad = True
    support = Positive()
    arg_constraints = {"scale": Positive()}  # noqa: RUF012

    def __init__(self, scale: Any = 1.0, validate_args: bool | None = None) -> None:
        self.scale = scale
        super().__init__(Cauchy(0.0, scale), AbsTransform(), validate_args=validate_args)

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self._base_dist.log_prob(value), value)

    def cdf(self, value: Any) -> Any:
        return 2 * self._base_dist.cdf(value) - 1

    def icdf(self, value: Any) -> Any:
        return self._base_dist.icdf((value + 1) / 2)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> HalfCauchy:
        return HalfCauchy(self._base_dist.broadcast_to(batch_shape).scale, validate_args=False)

    def entropy(self) -> Any:
        return self._base_dist.entropy() - math.log(2)

    @property
    def mean(self) -> Any:
        return op(_inf, self.scale)

    @property
    def variance(self) -> Any:
        return op(_inf, self.scale)
