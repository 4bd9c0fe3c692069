"""The multivariate normal distribution, given exactly one of ``cov``, ``precision`` or ``scale_tril``.

>>> import jax.numpy as jnp
>>> from framework.gluon.probability import MultivariateNormal
>>> d = MultivariateNormal(jnp.zeros(2), cov=jnp.array([[4.0, 0.0], [0.0, 1.0]]))
>>> d.variance.tolist(), round(float(d.log_prob(jnp.zeros(2))), 4)
([4.0, 1.0], -2.531)
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp

from .constraint import LowerCholesky, PositiveDefinite, Real
from .distribution import Distribution
from .utils import cached_property, key_data, op, shape_of, size_tuple, wrap_key

__all__ = ["MultivariateNormal"]


def _mT(x):  # noqa: N802
    return jnp.swapaxes(x, -1, -2)


def _chol(cov):
    return jnp.linalg.cholesky(cov)


def _precision_to_scale_tril(p):
    lf = jnp.linalg.cholesky(jnp.flip(p, (-1, -2)))
    return jnp.linalg.inv(_mT(jnp.flip(lf, (-1, -2))))


def _tril_to_cov(scale_tril):
    return scale_tril @ _mT(scale_tril)


def _inv(x):
    return jnp.linalg.inv(x)


def _tril_to_precision(scale_tril):
    inv = jnp.linalg.inv(scale_tril)
    return _mT(inv) @ inv


def _variance(scale_tril):
    return (scale_tril ** 2).sum(-1)


def _batch(loc, scale_tril):
    return jnp.broadcast_shapes(jnp.shape(loc)[:-1], jnp.shape(scale_tril)[:-2])


def _sample(kd, loc, scale_tril, lead):
    shape = tuple(lead) + tuple(_batch(loc, scale_tril)) + (jnp.shape(scale_tril)[-1],)
    eps = jax.random.normal(wrap_key(kd), shape, jnp.result_type(float, loc, scale_tril))
    return loc + jnp.einsum("...jk,...k->...j", scale_tril, eps)


def _log_prob(loc, scale_tril, value):
    diff = value - loc
    z = _solve(scale_tril, diff)
    half_log_det = jnp.log(jnp.diagonal(scale_tril, axis1=-2, axis2=-1)).sum(-1)
    k = scale_tril.shape[-1]
    return -0.5 * (z ** 2).sum(-1) - half_log_det - 0.5 * k * math.log(2 * math.pi)


def _solve(scale_tril, diff):
    shape = jnp.broadcast_shapes(diff.shape[:-1], scale_tril.shape[:-2])
    tril = jnp.broadcast_to(scale_tril, shape + scale_tril.shape[-2:])
    d = jnp.broadcast_to(diff, shape + diff.shape[-1:])
    return jax.scipy.linalg.solve_triangular(tril, d[..., None], lower=True)[..., 0]


def _entropy(scale_tril):
    k = scale_tril.shape[-1]
    return 0.5 * k * (1 + math.log(2 * math.pi)) + jnp.log(jnp.diagonal(scale_tril, axis1=-2,
                                                                        axis2=-1)).sum(-1)


class MultivariateNormal(Distribution):
    """Multivariate normal with mean ``loc`` (..., k) and one of ``cov``, ``precision`` or
    ``scale_tril`` (..., k, k); the others are derived when read. Samples are ``loc + L @ eps``."""

    has_grad = True
    support = Real()
    arg_constraints = {"loc": Real(), "cov": PositiveDefinite(), "precision": PositiveDefinite(),  # noqa: RUF012
                       "scale_tril": LowerCholesky()}

    def __init__(self, loc: Any, cov: Any = None, precision: Any = None, scale_tril: Any = None,
                 validate_args: bool | None = None) -> None:
        if (cov is not None) + (precision is not None) + (scale_tril is not None) != 1:
            raise ValueError("Exactly one of `cov` or `precision` or `scale_tril` may be specified")
        self.loc = loc
        if cov is not None:
            self.cov = cov
        elif precision is not None:
            self.precision = precision
        else:
            self.scale_tril = scale_tril
        super().__init__(event_dim=1, validate_args=validate_args)

    @cached_property
    def scale_tril(self) -> Any:
        if "cov" in self.__dict__:
            return op(_chol, self.cov)
        return op(_precision_to_scale_tril, self.precision)

    @cached_property
    def cov(self) -> Any:
        if "scale_tril" in self.__dict__:
            return op(_tril_to_cov, self.scale_tril)
        return op(_inv, self.precision)

    @cached_property
    def precision(self) -> Any:
        if "cov" in self.__dict__:
            return op(_inv, self.cov)
        return op(_tril_to_precision, self.scale_tril)

    @property
    def mean(self) -> Any:
        return self.loc

    @property
    def variance(self) -> Any:
        return op(_variance, self.scale_tril)

    def sample(self, size: Any = None, *, key: Any = None) -> Any:
        # MXNet: ``size`` is the whole batch shape of the sample (the parameters' broadcast into it)
        size = () if size is None else size_tuple(size)
        batch = tuple(jnp.broadcast_shapes(shape_of(self.loc)[:-1], shape_of(self.scale_tril)[:-2]))
        lead = size[: max(len(size) - len(batch), 0)]
        return op(_sample, key_data(key), self.loc, self.scale_tril, lead)

    def sample_n(self, size: Any = None, *, key: Any = None) -> Any:
        if size is None:
            return self.sample(key=key)
        return op(_sample, key_data(key), self.loc, self.scale_tril, size_tuple(size))

    def log_prob(self, value: Any) -> Any:
        return op(_log_prob, self.loc, self.scale_tril, value)

    def entropy(self) -> Any:
        return op(_entropy, self.scale_tril)
