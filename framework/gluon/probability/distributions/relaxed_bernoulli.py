"""The relaxed (Concrete / Gumbel-softmax) Bernoulli distribution with temperature ``T``.

>>> import jax
>>> from framework.gluon.probability import RelaxedBernoulli
>>> x = RelaxedBernoulli(0.5, prob=0.3).sample((4,), key=jax.random.key(0))
>>> bool(((x > 0) & (x < 1)).all())
True
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ..transformation import SigmoidTransform
from ._binary import _Binary
from .constraint import Interval, OpenInterval, Real
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .utils import broadcast, float_dtype, key_data, op, sample_n_shape, sample_shape, wrap_key

__all__ = ["RelaxedBernoulli"]


def _sample(kd, logit, temperature, shape):
    noise = jax.random.logistic(wrap_key(kd), shape, float_dtype(logit))
    return (logit + noise) / temperature


def _log_prob(logit, temperature, value):
    diff = logit - temperature * value
    return jnp.log(temperature) + diff - 2 * jax.nn.softplus(diff)


class _LogitRelaxedBernoulli(_Binary, Distribution):
    """The logit of a relaxed Bernoulli draw: ``(logit + Logistic noise) / T``."""

    has_grad = True
    support = Real()
    arg_constraints = {"prob": Interval(0, 1), "logit": Real()}  # noqa: RUF012

    def __init__(self, T: Any, prob: Any = None, logit: Any = None,
                 validate_args: bool | None = None) -> None:
        self.T = T
        self._set_prob_logit(prob, logit)
        Distribution.__init__(self, event_dim=0, validate_args=validate_args)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        return op(_sample, key_data(key), self.logit, self.T, sample_shape(size, self.logit))

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.logit, self.T, sample_n_shape(size, self.logit))

    def log_prob(self, value: Any) -> Any:
        return op(_log_prob, self.logit, self.T, value)


class RelaxedBernoulli(TransformedDistribution):
    """Relaxed Bernoulli (Maddison et al., 2017) on (0, 1): a reparameterised, differentiable
    stand-in for a Bernoulli draw at temperature ``T`` (given ``prob`` or ``logit``)."""

    has_grad = True
    support = OpenInterval(0, 1)
    arg_constraints = {"prob": Interval(0, 1), "logit": Real()}  # noqa: RUF012

    def __init__(self, T: Any, prob: Any = None, logit: Any = None,
                 validate_args: bool | None = None) -> None:
        super().__init__(_LogitRelaxedBernoulli(T, prob, logit, validate_args), SigmoidTransform(),
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

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> RelaxedBernoulli:
        return RelaxedBernoulli(self.T, logit=broadcast(self.logit, batch_shape), validate_args=False)
