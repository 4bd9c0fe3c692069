"""The half-normal distribution: ``|X|`` for ``X ~ Normal(0, scale)``.

>>> from framework.gluon.probability import HalfNormal
>>> round(float(HalfNormal(1.0).mean), 4)
0.7979
"""

from __future__ import annotations

import math
from typing import Any

import jax.numpy as jnp

from ..transformation import AbsTransform
from .constraint import Positive
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .utils import op

__all__ = ["HalfNormal"]


def _log_prob(base_log_prob, value):
    return jnp.where(value < 0, -jnp.inf, base_log_prob + math.log(2))


class HalfNormal(TransformedDistribution):
    """Half-normal distribution with ``scale``."""

    has_grad = True
    support = Positive()
    arg_constraints = {"scale": Positive()}  # noqa: RUF012

    def __init__(self, scale: Any = 1.0, validate_args: bool | None = None) -> None:
        self.scale = scale
        super().__init__(Normal(0.0, scale), AbsTransform(), validate_args=validate_args)

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self._base_dist.log_prob(value), value)

    def cdf(self, value: Any) -> Any:
        return 2 * self._base_dist.cdf(value) - 1

    def icdf(self, value: Any) -> Any:
        return self._base_dist.icdf((value + 1) / 2)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> HalfNormal:
        return HalfNormal(self._base_dist.broadcast_to(batch_shape).scale, validate_args=False)

    @property
    def loc(self) -> Any:
        return self._base_dist.loc

    @property
    def mean(self) -> Any:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Any:
        return self.scale ** 2 * (1 - 2 / math.pi)

    def entropy(self) -> Any:
        return self._base_dist.entropy() - math.log(2)
