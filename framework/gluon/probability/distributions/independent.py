"""``Independent``: reinterpret batch axes of a distribution as event axes.

>>> import jax.numpy as jnp
>>> from framework.gluon.probability import Independent, Normal
>>> d = Independent(Normal(jnp.zeros(3), 1.0), 1)
>>> d.event_dim, d.log_prob(jnp.zeros(3)).shape
(1, ())
"""

from __future__ import annotations

from typing import Any

from .constraint import dependent_property
from .distribution import Distribution
from .utils import sum_right_most

__all__ = ["Independent"]


class Independent(Distribution):
    """``base_distribution`` with its ``reinterpreted_batch_ndims`` rightmost batch axes treated as
    part of one event: ``log_prob`` and ``entropy`` sum over them."""

    arg_constraints = {}  # noqa: RUF012

    def __init__(self, base_distribution: Distribution, reinterpreted_batch_ndims: int,
                 validate_args: bool | None = None) -> None:
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = int(reinterpreted_batch_ndims)
        super().__init__(event_dim=self.reinterpreted_batch_ndims + base_distribution.event_dim,
                         validate_args=validate_args)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Independent:
        base_shape = tuple(getattr(self.base_dist.mean, "shape", ()))
        n = self.reinterpreted_batch_ndims
        kept = base_shape[len(base_shape) - n:] if n else ()
        return Independent(self.base_dist.broadcast_to(tuple(batch_shape) + kept),
                           self.reinterpreted_batch_ndims)

    @property
    def has_enumerate_support(self) -> bool:  # type: ignore[override]
        return False if self.reinterpreted_batch_ndims > 0 else self.base_dist.has_enumerate_support

    @dependent_property
    def support(self) -> Any:
        return self.base_dist.support

    @property
    def mean(self) -> Any:
        return self.base_dist.mean

    @property
    def variance(self) -> Any:
        return self.base_dist.variance

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return self.base_dist.sample(size, key=key)

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        return self.base_dist.sample_n(size, key=key)

    def log_prob(self, value: Any) -> Any:
        return sum_right_most(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Any:
        return sum_right_most(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self) -> Any:
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support()
