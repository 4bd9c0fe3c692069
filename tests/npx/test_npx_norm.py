"""npx.batch_norm vs MXNet 1.9.1; layer/group/instance norm vs NumPy formulas; gradients."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest
from jax.test_util import check_grads

from framework import npx

ONES, ZEROS = onp.ones(3, onp.float32), onp.zeros(3, onp.float32)


def _bn(ref, running=(ZEROS, ONES), **kw):
    g, b = ref["bn_gamma"], ref["bn_beta"]
    return npx.batch_norm(ref["x"], g, b, *running, eps=1e-5, fix_gamma=False, **kw)


def test_batch_norm_training_matches_mxnet(ref):
    onp.testing.assert_allclose(_bn(ref, training=True), ref["bn_train_out"], rtol=1e-5, atol=1e-5)
    onp.testing.assert_allclose(_bn(ref, training=True), ref["bn_train_mode_no_record_out"], rtol=1e-5,
                                atol=1e-5)


def test_batch_norm_inference_matches_mxnet(ref):
    onp.testing.assert_allclose(_bn(ref, training=False), ref["bn_eval_before_out"], rtol=1e-5, atol=1e-5)
    after = (ref["bn_running_mean_after1"], ref["bn_running_var_after1"])
    onp.testing.assert_allclose(_bn(ref, after, training=False), ref["bn_eval_after_out"], rtol=1e-5,
                                atol=1e-5)
    onp.testing.assert_allclose(_bn(ref, after, training=True, use_global_stats=True),
                                ref["bn_record_trainmodeFalse_out"], rtol=1e-5, atol=1e-5)
    assert _bn(ref, training=None).shape == ref["x"].shape  # autograd not training -> running stats


def test_batch_norm_running_update_matches_mxnet(ref):
    _, mean, var = _bn(ref, training=True, output_mean_var=True)
    x = ref["x"].astype(onp.float64)
    onp.testing.assert_allclose(var, x.var(axis=(0, 2, 3)), rtol=1e-5)  # biased
    new_mean = npx.update_running_stat(jnp.zeros(3), mean, 0.9)
    new_var = npx.update_running_stat(jnp.ones(3), var, 0.9)
    onp.testing.assert_allclose(new_mean, ref["bn_running_mean_after1"], rtol=1e-5, atol=1e-6)
    onp.testing.assert_allclose(new_var, ref["bn_running_var_after1"], rtol=1e-5, atol=1e-6)


def test_batch_norm_gradients_match_mxnet(ref):
    def loss(gamma, beta):
        out = npx.batch_norm(ref["x"], gamma, beta, ZEROS, ONES, eps=1e-5, fix_gamma=False, training=True)
        return out.sum()

    gg, gb = jax.grad(loss, argnums=(0, 1))(jnp.asarray(ref["bn_gamma"]), jnp.asarray(ref["bn_beta"]))
    onp.testing.assert_allclose(gb, ref["bn_grad_beta"], rtol=1e-5)
    onp.testing.assert_allclose(gg, ref["bn_grad_gamma"], atol=1e-4)
    x = jnp.asarray(onp.random.RandomState(0).randn(3, 2, 2, 2), jnp.float32)
    g = jnp.asarray([1.5, 0.5])

    def f(x, g, b):
        return npx.batch_norm(x, g, b, jnp.zeros(2), jnp.ones(2), fix_gamma=False, training=True) ** 2

    check_grads(jax.jit(f), (x, g, g), order=1, modes=["rev"], eps=1e-2, atol=2e-2, rtol=2e-2)
    fixed = jax.grad(lambda g: npx.batch_norm(x, g, g, jnp.zeros(2), jnp.ones(2), training=True).sum())(g)
    onp.testing.assert_allclose(fixed, [12.0, 12.0])  # fix_gamma: only beta gets gradient (12 per channel)


def test_batch_norm_axis_last_and_errors():
    x = jnp.asarray(onp.random.RandomState(1).randn(4, 5, 3), jnp.float32)
    a = npx.batch_norm(x, jnp.ones(3), jnp.zeros(3), jnp.zeros(3), jnp.ones(3), axis=-1, training=True)
    b = npx.batch_norm(jnp.moveaxis(x, -1, 1), jnp.ones(3), jnp.zeros(3), jnp.zeros(3), jnp.ones(3),
                       training=True)
    onp.testing.assert_allclose(a, jnp.moveaxis(b, 1, -1), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"gamma has shape \(4,\), expected \(3,\)"):
        npx.batch_norm(x, jnp.ones(4), jnp.zeros(3), jnp.zeros(3), jnp.ones(3), axis=-1)
    with pytest.raises(ValueError, match="axis=3 is out of range"):
        npx.batch_norm(x, jnp.ones(3), jnp.zeros(3), jnp.zeros(3), jnp.ones(3), axis=3)


def _np_norm(x, axes, eps):
    x = x.astype(onp.float64)
    return (x - x.mean(axes, keepdims=True)) / onp.sqrt(x.var(axes, keepdims=True) + eps)


def test_layer_norm_vs_numpy():
    rng = onp.random.RandomState(2)
    x, g, b = rng.randn(2, 3, 4).astype(onp.float32), rng.randn(4).astype(onp.float32), rng.randn(4)
    onp.testing.assert_allclose(npx.layer_norm(x, g, b.astype(onp.float32)), _np_norm(x, -1, 1e-5) * g + b,
                                rtol=1e-4, atol=1e-5)
    g1 = rng.randn(3).astype(onp.float32)
    out, mean, std = npx.layer_norm(x, g1, jnp.zeros(3), axis=1, eps=1e-3, output_mean_var=True)
    onp.testing.assert_allclose(out, _np_norm(x, 1, 1e-3) * g1[:, None], rtol=1e-4, atol=1e-5)
    assert mean.shape == std.shape == (2, 4)
    f = jax.jit(lambda x, g: npx.layer_norm(x, g, jnp.zeros(4)) ** 2)
    check_grads(f, (jnp.asarray(x), jnp.asarray(g)), order=1, modes=["rev"], eps=1e-2, atol=2e-2, rtol=2e-2)


def test_group_norm_vs_numpy():
    x = onp.arange(24, dtype=onp.float32).reshape(2, 3, 4)
    out = npx.group_norm(x, jnp.ones(1), jnp.zeros(1), num_groups=1)
    onp.testing.assert_allclose(out[0, 0], [-1.5932543, -1.3035717, -1.0138891, -0.7242065], rtol=1e-5)
    rng = onp.random.RandomState(3)
    x = rng.randn(2, 4, 3, 3).astype(onp.float32)
    g, b = rng.randn(4).astype(onp.float32), rng.randn(4).astype(onp.float32)
    want = _np_norm(x.reshape(2, 2, 2, 3, 3), (2, 3, 4), 1e-5).reshape(x.shape)
    onp.testing.assert_allclose(npx.group_norm(x, g, b, num_groups=2),
                                want * g[:, None, None] + b[:, None, None], rtol=1e-4, atol=1e-5)
    gg = onp.array([2.0, 3.0], onp.float32)  # MXNet 1.x: one gamma per group
    per_group = npx.group_norm(x, gg, onp.zeros(2, onp.float32), num_groups=2)
    onp.testing.assert_allclose(per_group, want * onp.repeat(gg, 2)[:, None, None], rtol=1e-4, atol=1e-5)
    check_grads(jax.jit(lambda x, g: npx.group_norm(x, g, jnp.zeros(4), num_groups=2) ** 2),
                (jnp.asarray(x), jnp.asarray(g)), order=1, modes=["rev"], eps=1e-2, atol=2e-2, rtol=2e-2)
    with pytest.raises(ValueError, match="num_groups=3 must divide the 4 channels"):
        npx.group_norm(x, g, b, num_groups=3)


def test_instance_norm_vs_numpy():
    rng = onp.random.RandomState(4)
    x = rng.randn(2, 3, 4, 5).astype(onp.float32)
    g, b = rng.randn(3).astype(onp.float32), rng.randn(3).astype(onp.float32)
    want = _np_norm(x, (2, 3), 1e-3) * g[:, None, None] + b[:, None, None]
    onp.testing.assert_allclose(npx.instance_norm(x, g, b), want, rtol=1e-4, atol=1e-5)
    check_grads(jax.jit(lambda x, g, b: npx.instance_norm(x, g, b) ** 2), tuple(map(jnp.asarray, (x, g, b))),
                order=1, modes=["rev"], eps=1e-2, atol=2e-2, rtol=2e-2)
    with pytest.raises(ValueError, match="at least 3 dims"):
        npx.instance_norm(x[0, 0], g, b)
