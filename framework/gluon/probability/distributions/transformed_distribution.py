"""``TransformedDistribution``: a base distribution pushed through transformations.

>>> import jax.numpy as jnp
>>> from framework.gluon.probability import Normal, TransformedDistribution, ExpTransform
>>> lognormal = TransformedDistribution(Normal(0.0, 1.0), ExpTransform())
>>> round(float(lognormal.log_prob(jnp.array(1.0))), 4)   # log N(0; 0, 1) - log(1)
-0.9189
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from ..transformation import Transformation
from .distribution import Distribution
from .utils import op, sum_right_most

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """``y = t_n(...t_1(x))`` with ``x`` drawn from ``base_dist``; ``log_prob`` applies the change of
    variables, ``cdf``/``icdf`` use the transformations' signs (monotone transformations)."""

    def __init__(self, base_dist: Distribution, transforms: Any, validate_args: bool | None = None) -> None:
        self._base_dist = base_dist
        if isinstance(transforms, Transformation):
            transforms = [transforms]
        self._transforms = list(transforms)
        event_dim = max([base_dist.event_dim] + [t.event_dim for t in self._transforms])
        super().__init__(event_dim=event_dim, validate_args=validate_args)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        x = self._base_dist.sample(size, key=key)
        for t in self._transforms:
            x = t(x)
        return x

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        x = self._base_dist.sample_n(size, key=key)
        for t in self._transforms:
            x = t(x)
        return x

    def log_prob(self, value: Any) -> Any:
        log_prob: Any = 0.0
        y = value
        for t in reversed(self._transforms):
            x = t.inv(y)
            log_prob = log_prob - sum_right_most(t.log_det_jacobian(x, y), self.event_dim - t.event_dim)
            y = x
        return log_prob + sum_right_most(self._base_dist.log_prob(y),
                                         self.event_dim - self._base_dist.event_dim)

    def cdf(self, value: Any) -> Any:
        sign: Any = op(jnp.ones_like, value)
        for t in reversed(self._transforms):
            value = t.inv(value)
            sign = sign * t.sign
        return sign * (self._base_dist.cdf(value) - 0.5) + 0.5

    def icdf(self, value: Any) -> Any:
        sign: Any = op(jnp.ones_like, value)
        for t in self._transforms:
            sign = sign * t.sign
        x = self._base_dist.icdf(sign * (value - 0.5) + 0.5)
        for t in self._transforms:
            x = t(x)
        return x
