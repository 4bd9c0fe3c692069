"""npx activations and softmax family vs NumPy formulas."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import npx

X = onp.linspace(-3, 3, 13).astype(onp.float32)


@pytest.mark.parametrize(
    "act,fn",
    [
        ("relu", lambda x: onp.maximum(x, 0)),
        ("sigmoid", lambda x: 1 / (1 + onp.exp(-x))),
        ("tanh", onp.tanh),
        ("softrelu", lambda x: onp.log1p(onp.exp(x))),
        ("softsign", lambda x: x / (1 + onp.abs(x))),
        ("log_sigmoid", lambda x: -onp.log1p(onp.exp(-x))),
        ("mish", lambda x: x * onp.tanh(onp.log1p(onp.exp(x)))),
    ],
)
def test_activation_formulas(act, fn):
    want = fn(X.astype(onp.float64))
    onp.testing.assert_allclose(npx.activation(X, act_type=act), want, rtol=1e-5, atol=1e-6)


def test_relu_sigmoid_shortcuts():
    onp.testing.assert_allclose(npx.relu(X), onp.maximum(X, 0))
    onp.testing.assert_allclose(npx.sigmoid(X), 1 / (1 + onp.exp(-X.astype(onp.float64))), rtol=1e-6)


def test_leaky_relu_family():
    x = X.astype(onp.float64)
    onp.testing.assert_allclose(npx.leaky_relu(X, slope=0.1), onp.where(x > 0, x, 0.1 * x), rtol=1e-6)
    elu = onp.where(x > 0, x, onp.expm1(x))
    onp.testing.assert_allclose(npx.leaky_relu(X, act_type="elu", slope=1.0), elu, rtol=1e-5, atol=1e-6)
    selu = 1.0507009873554805 * onp.where(x > 0, x, 1.6732632423543772 * onp.expm1(x))
    onp.testing.assert_allclose(npx.leaky_relu(X, act_type="selu"), selu, rtol=1e-5, atol=1e-6)
    gelu = onp.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])
    onp.testing.assert_allclose(npx.leaky_relu(X, act_type="gelu"), gelu, rtol=1e-5, atol=1e-6)
    tanh_gelu = 0.5 * x * (1 + onp.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    onp.testing.assert_allclose(npx.leaky_relu(X, act_type="gelu_tanh"), tanh_gelu, rtol=1e-5, atol=1e-6)
    data = onp.stack([X, X])[None]  # (1, 2, 13): prelu slope per channel on axis 1
    out = npx.leaky_relu(data, onp.array([0.1, 0.5], onp.float32), act_type="prelu")
    onp.testing.assert_allclose(out[0, 1], onp.where(x > 0, x, 0.5 * x), rtol=1e-6)
    rr = npx.leaky_relu(X, act_type="rrelu", training=False)
    onp.testing.assert_allclose(rr, onp.where(x > 0, x, (0.125 + 0.334) / 2 * x), rtol=1e-5)
    rt = onp.asarray(npx.leaky_relu(-jnp.ones(1000), act_type="rrelu", key=jax.random.key(0), training=True))
    assert -0.334 <= rt.min() and rt.max() <= -0.125


def test_leaky_relu_errors():
    with pytest.raises(ValueError, match="act_type='swish' is not supported"):
        npx.leaky_relu(X, act_type="swish")
    with pytest.raises(ValueError, match="needs gamma"):
        npx.leaky_relu(X, act_type="prelu")
    with pytest.raises(ValueError, match="prelu gamma of shape"):
        npx.leaky_relu(jnp.ones((2, 3)), jnp.ones(2), act_type="prelu")
    with pytest.raises(ValueError, match="act_type='leaky' is not supported.*npx.leaky_relu"):
        npx.activation(X, act_type="leaky")


def _np_softmax(x, axis):
    e = onp.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def test_softmax_log_softmax_temperature():
    x = onp.random.RandomState(0).randn(3, 5).astype(onp.float32)
    onp.testing.assert_allclose(npx.softmax(x), _np_softmax(x, -1), rtol=1e-5)
    onp.testing.assert_allclose(npx.softmax(x, axis=0), _np_softmax(x, 0), rtol=1e-5)
    onp.testing.assert_allclose(npx.softmax(x, temperature=2.0), _np_softmax(x / 2, -1), rtol=1e-5)
    onp.testing.assert_allclose(npx.log_softmax(x), onp.log(_np_softmax(x, -1)), rtol=1e-5, atol=1e-6)
    assert npx.softmax(x, dtype="float16").dtype == jnp.float16


def test_softmax_with_length_and_masks():
    x = onp.random.RandomState(1).randn(2, 4).astype(onp.float32)
    length = onp.array([2, 4])
    out = npx.softmax(x, length=length, use_length=True)
    onp.testing.assert_allclose(out[0, :2], _np_softmax(x[0, :2], -1), rtol=1e-5)
    onp.testing.assert_array_equal(out[0, 2:], 0.0)
    onp.testing.assert_allclose(out[1], _np_softmax(x[1], -1), rtol=1e-5)
    lout = npx.log_softmax(x, length=length, use_length=True)
    onp.testing.assert_allclose(lout[0, :2], onp.log(_np_softmax(x[0, :2], -1)), rtol=1e-5)
    mask = onp.array([[1, 0, 1, 0], [0, 0, 0, 0]])
    ms = npx.masked_softmax(x, mask)
    onp.testing.assert_allclose(ms[0, [0, 2]], _np_softmax(x[0, [0, 2]], -1), rtol=1e-5)
    onp.testing.assert_array_equal(ms[1], 0.0)  # a fully masked row is 0, not NaN
    mls = npx.masked_log_softmax(x, mask)
    assert onp.isneginf(mls[0, 1]) and onp.isfinite(mls[0, 0])
    g = jax.grad(lambda x: npx.masked_softmax(x, mask)[0, 0])(jnp.asarray(x))
    assert onp.isfinite(g).all() and g[0, 1] == 0.0
    with pytest.raises(ValueError, match="length has shape"):
        npx.softmax(x, length=onp.array([1, 2, 3]), use_length=True)
    with pytest.raises(ValueError, match="needs a length"):
        npx.softmax(x, use_length=True)
