"""The Gamma distribution (``shape`` k, ``scale`` theta).

>>> from framework.gluon.probability import Gamma
>>> d = Gamma(2.0, 3.0)
>>> float(d.mean), float(d.variance)
(6.0, 18.0)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax.scipy.special import digamma, gammaln

from .constraint import Positive
from .exp_family import ExponentialFamily
from .utils import broadcast, float_dtype, key_data, op, sample_n_shape, sample_shape, wrap_key

__all__ = ["Gamma"]


def _sample(kd, shape_param, scale, shape):
    a = jnp.broadcast_to(jnp.asarray(shape_param, float_dtype(shape_param)), shape)
    return jax.random.gamma(wrap_key(kd), a, shape, a.dtype) * scale


def _log_prob(a, scale, value):
    return -a * jnp.log(scale) + (a - 1) * jnp.log(value) - value / scale - gammaln(a)


def _entropy(a, scale):
    return a + jnp.log(scale) + gammaln(a) + (1 - a) * digamma(a)


class Gamma(ExponentialFamily):
    """Gamma distribution with ``shape`` (concentration) and ``scale``; sampling is reparameterised
    (JAX's implicit gradients), so ``has_grad`` is True here."""

    has_grad = True
    support = Positive()
    arg_constraints = {"shape": Positive(), "scale": Positive()}  # noqa: RUF012

    def __init__(self, shape: Any, scale: Any = 1.0, validate_args: bool | None = None) -> None:
        self.shape, self.scale = shape, scale
        super().__init__(event_dim=0, validate_args=validate_args)

    def log_prob(self, value: Any) -> Any:
        self._validate_samples(value)
        return op(_log_prob, self.shape, self.scale, value)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> Gamma:
        return self._new_like(shape=broadcast(self.shape, batch_shape), scale=broadcast(self.scale,
                                                                                        batch_shape))

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_sample, key_data(key), self.shape, self.scale, sample_shape(size, self.shape, self.scale))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.shape, self.scale, sample_n_shape(size, self.shape,
                                                                                 self.scale))

    @property
    def mean(self) -> Any:
        return self.shape * self.scale

    @property
    def variance(self) -> Any:
        return self.shape * self.scale ** 2

    def entropy(self) -> Any:
        return op(_entropy, self.shape, self.scale)

    @property
    def _natural_params(self) -> tuple[Any, Any]:
        return self.shape - 1, -1 / self.scale
