"""np names jax.numpy lacks (NumPy's older spellings, constants, MXNet 2.0's dtype groups) and the extra
np.random distributions (checked by their moments with mx.test_utils' checks, since MXNet's random
streams cannot be reproduced)."""

from __future__ import annotations

import math

import numpy as onp
import pytest

import framework as mx
from framework import autograd, np


def test_old_numpy_spellings_match_numpy():
    x = onp.array([[1.5, -2.5, 0.0], [3.0, 0.5, -1.0]], onp.float32)
    assert np.fix(x).tolist() == onp.trunc(x).tolist()
    assert bool(np.alltrue(x > -3)) and not bool(np.sometrue(x > 5))
    assert float(np.product(np.array([1.0, 2.0, 3.0]))) == 6.0
    assert np.round_(np.array([1.26]), 1).tolist() == pytest.approx([1.3])
    assert np.row_stack([np.ones(2), np.zeros(2)]).shape == (2, 2)
    assert np.in1d(np.array([[1, 2], [3, 4]]), np.array([2, 4])).tolist() == [False, True, False, True]
    assert np.msort(np.array([[3, 1], [1, 2]])).tolist() == [[1, 1], [3, 2]]
    assert float(np.trapz(np.array([1.0, 2.0, 3.0]))) == 4.0
    assert math.isnan(np.NAN) and np.NINF == -math.inf and math.copysign(1, np.NZERO) == -1
    assert onp.dtype("float32") in np.floating_dtypes and onp.dtype("int64") in np.numeric_dtypes


def test_old_spellings_record_under_autograd():
    x = autograd.attach_grad(np.array([1.0, 2.0, 3.0]))
    with autograd.record():
        y = np.product(x)
    y.backward()
    assert x.grad.tolist() == [6.0, 3.0, 2.0]


MOMENTS = {  # name: (draw n samples, mean, standard deviation)
    "pareto": (lambda n: np.random.pareto(5.0, size=(n,)), 1 / 4, math.sqrt(5 / (16 * 3))),
    "power": (lambda n: np.random.power(2.0, size=(n,)), 2 / 3, math.sqrt(2 / 4 - 4 / 9)),
    "rayleigh": (
        lambda n: np.random.rayleigh(2.0, size=(n,)),
        2 * math.sqrt(math.pi / 2),
        math.sqrt((4 - math.pi) / 2 * 4),
    ),
    "weibull": (
        lambda n: np.random.weibull(2.0, size=(n,)),
        math.gamma(1.5),
        math.sqrt(1 - math.gamma(1.5) ** 2),
    ),
    "f": (lambda n: np.random.f(6.0, 20.0, size=(n,)), 20 / 18, math.sqrt(2 * 400 * 24 / (6 * 18**2 * 16))),
}


@pytest.mark.parametrize("name", sorted(MOMENTS))
def test_distributions_have_their_moments(name):
    draw, mean, sd = MOMENTS[name]
    np.random.seed(7)
    assert mx.test_utils.mean_check(lambda n: onp.asarray(draw(n)), mean, sd, nsamples=20000)
    assert mx.test_utils.var_check(lambda n: onp.asarray(draw(n)), sd, nsamples=20000)
    assert not mx.test_utils.mean_check(lambda n: onp.asarray(draw(n)) * 1.1, mean, sd, nsamples=20000)


def test_multivariate_normal_shape_and_covariance():
    np.random.seed(3)
    x = onp.asarray(np.random.multivariate_normal([1.0, -2.0], [[1.0, 0.6], [0.6, 2.0]], size=(20000,)))
    assert x.shape == (20000, 2)
    onp.testing.assert_allclose(x.mean(axis=0), [1.0, -2.0], atol=0.05)
    onp.testing.assert_allclose(onp.cov(x.T), [[1.0, 0.6], [0.6, 2.0]], atol=0.08)
    assert np.random.multivariate_normal([0.0, 0.0], onp.eye(2)).shape == (2,)
    assert np.random.multivariate_normal([0.0, 0.0], onp.eye(2), size=(3, 4)).shape == (3, 4, 2)
