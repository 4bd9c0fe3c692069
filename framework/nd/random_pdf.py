"""MXNet 1.x's ``mx.nd.random_pdf_*``: densities (or log densities, ``is_log=True``) of samples under
per-row distribution parameters. ``sample`` is (batch..., n) and each parameter (batch...): row ``i`` of
the samples is scored under parameters ``i``. Gamma and exponential take rates; the generalized negative
binomial is the negative binomial with limit ``1/alpha`` and probability ``1/(mu*alpha + 1)``.

>>> import framework as mx
>>> pdf = mx.nd.random_pdf_normal(mx.nd.array([[0.0]]), mx.nd.array([0.0]), mx.nd.array([1.0]))
>>> round(float(pdf[0, 0]), 4)
0.3989
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from jax.scipy.special import gammaln

from ._op import nd_op

__all__ = ["random_pdf_uniform", "random_pdf_normal", "random_pdf_gamma", "random_pdf_exponential",
           "random_pdf_poisson", "random_pdf_negative_binomial", "random_pdf_generalized_negative_binomial",
           "random_pdf_dirichlet"]


def _rows(p: jax.Array, sample: jax.Array) -> jax.Array:
    """A parameter (batch...) broadcast against ``sample`` (batch..., n)."""
    return jnp.expand_dims(jnp.asarray(p), -1)


def _out(lpdf: jax.Array, is_log: bool) -> jax.Array:
    return lpdf if is_log else jnp.exp(lpdf)


@nd_op
def random_pdf_uniform(sample: jax.Array, low: jax.Array, high: jax.Array, is_log: bool = False) -> jax.Array:
    """``1/(high - low)`` (no check that the sample lies in the support, as in MXNet)."""
    lo, hi = _rows(low, sample), _rows(high, sample)
    return _out(jnp.broadcast_to(-jnp.log(hi - lo), sample.shape) + 0 * sample, is_log)


@nd_op
def random_pdf_normal(sample: jax.Array, mu: jax.Array, sigma: jax.Array, is_log: bool = False) -> jax.Array:
    m, s = _rows(mu, sample), _rows(sigma, sample)
    return _out(-((sample - m) ** 2) / (2 * s * s) - jnp.log(jnp.sqrt(2 * math.pi) * s), is_log)


@nd_op
def random_pdf_gamma(sample: jax.Array, alpha: jax.Array, beta: jax.Array, is_log: bool = False) -> jax.Array:
    a, b = _rows(alpha, sample), _rows(beta, sample)
    return _out(a * jnp.log(b) + (a - 1) * jnp.log(sample) - b * sample - gammaln(a), is_log)


@nd_op
def random_pdf_exponential(sample: jax.Array, lam: jax.Array, is_log: bool = False) -> jax.Array:
    lm = _rows(lam, sample)
    return _out(jnp.log(lm) - lm * sample, is_log)


@nd_op
def random_pdf_poisson(sample: jax.Array, lam: jax.Array, is_log: bool = False) -> jax.Array:
    lm = _rows(lam, sample)
    return _out(sample * jnp.log(lm) - gammaln(sample + 1) - lm, is_log)


def _nb(sample, limit, prob):
    return (gammaln(sample + limit) - gammaln(sample + 1) - gammaln(limit) + limit * jnp.log(prob)
            + sample * jnp.log(1 - prob))


@nd_op
def random_pdf_negative_binomial(sample: jax.Array, k: jax.Array, p: jax.Array,
                                 is_log: bool = False) -> jax.Array:
    return _out(_nb(sample, _rows(k, sample), _rows(p, sample)), is_log)


@nd_op
def random_pdf_generalized_negative_binomial(sample: jax.Array, mu: jax.Array, alpha: jax.Array,
                                             is_log: bool = False) -> jax.Array:
    m, a = _rows(mu, sample), _rows(alpha, sample)
    return _out(_nb(sample, 1.0 / a, 1.0 / (m * a + 1.0)), is_log)


@nd_op
def random_pdf_dirichlet(sample: jax.Array, alpha: jax.Array, is_log: bool = False) -> jax.Array:
    """``sample`` (batch..., n, k) on the simplex, ``alpha`` (batch..., k): output (batch..., n)."""
    a = jnp.expand_dims(alpha, -2)
    lpdf = jnp.sum((a - 1) * jnp.log(sample), axis=-1) + gammaln(jnp.sum(alpha, -1))[..., None] \
        - jnp.sum(gammaln(alpha), -1)[..., None]
    return _out(lpdf, is_log)
