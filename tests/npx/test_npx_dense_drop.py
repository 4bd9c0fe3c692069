"""npx.fully_connected vs MXNet 1.9.1; npx.dropout statistics vs MXNet's measured ones."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest
from jax.test_util import check_grads

from framework import npx


def test_fully_connected_matches_mxnet(ref):
    out = npx.fully_connected(ref["x"], ref["dense_flat_weight"], ref["dense_flat_bias"], num_hidden=5)
    onp.testing.assert_allclose(out, ref["dense_flat_out"], rtol=1e-5, atol=1e-5)
    out = npx.fully_connected(ref["x"], ref["dense_noflat_weight"], ref["dense_noflat_bias"], num_hidden=5,
                              flatten=False)
    assert out.shape == (2, 3, 7, 5)
    onp.testing.assert_allclose(out, ref["dense_noflat_out"], rtol=1e-5, atol=1e-5)


def test_fully_connected_no_bias_and_grads():
    rng = onp.random.RandomState(0)
    x = jnp.asarray(rng.randn(3, 2, 2), jnp.float32)
    w = jnp.asarray(rng.randn(4, 4), jnp.float32)
    b = jnp.asarray(rng.randn(4), jnp.float32)
    onp.testing.assert_allclose(npx.fully_connected(x, w, b, num_hidden=4, no_bias=True),
                                x.reshape(3, 4) @ w.T, rtol=1e-5)
    f = jax.jit(lambda x, w, b: npx.fully_connected(x, w, b, num_hidden=4))
    check_grads(f, (x, w, b), order=1, modes=["rev"], eps=1e-2, atol=1e-2, rtol=1e-2)


def test_fully_connected_errors():
    with pytest.raises(ValueError, match=r"weight has shape \(5, 10\) but data .* needs \(5, 12\)"):
        npx.fully_connected(jnp.ones((2, 3, 4)), jnp.ones((5, 10)), num_hidden=5)
    with pytest.raises(ValueError, match=r"needs \(6, 12\)"):
        npx.fully_connected(jnp.ones((2, 3, 4)), jnp.ones((5, 12)), num_hidden=6)
    with pytest.raises(ValueError, match="bias has shape"):
        npx.fully_connected(jnp.ones((2, 4)), jnp.ones((5, 4)), jnp.ones(4), num_hidden=5)


def test_dropout_identity_outside_training(ref):
    x = jnp.asarray(ref["x"])
    assert npx.dropout(x, p=0.5) is x
    onp.testing.assert_array_equal(npx.dropout(x, p=0.5, training=False), ref["dropout_eval_out"])


def test_dropout_statistics_match_mxnet(ref):
    frac_zero, lo, hi = ref["dropout_train_stats"]  # MXNet: 50.06% zeros, kept values scaled by 2.0
    x = jnp.ones((100_000,))
    y = onp.asarray(npx.dropout(x, p=0.5, key=jax.random.key(3), training=True))
    assert abs((y == 0).mean() - frac_zero) < 0.01
    kept = y[y != 0]
    assert kept.min() == pytest.approx(lo) and kept.max() == pytest.approx(hi)
    y = onp.asarray(npx.dropout(x, p=0.2, mode="always", key=jax.random.key(4)))
    assert abs((y == 0).mean() - 0.2) < 0.01 and onp.allclose(y[y != 0], 1.25)


def test_dropout_axes_key_stream_and_grad():
    y = npx.dropout(jnp.ones((8, 50)), p=0.5, axes=(1,), key=jax.random.key(0), training=True)
    assert all(len(set(row)) == 1 for row in onp.asarray(y).tolist())
    a = npx.dropout(jnp.ones(100), training=True)
    b = npx.dropout(jnp.ones(100), training=True)
    assert not onp.array_equal(a, b)  # the framework's key stream advances
    g = jax.grad(lambda x: npx.dropout(x, 0.5, key=jax.random.key(1), training=True).sum())(jnp.ones(10))
    y = npx.dropout(jnp.ones(10), 0.5, key=jax.random.key(1), training=True)
    onp.testing.assert_array_equal(g, y)
    assert npx.dropout(jnp.ones(3), p=1.0, training=True).tolist() == [0.0, 0.0, 0.0]


def test_dropout_errors():
    with pytest.raises(ValueError, match=r"p=1.5 is a drop probability and must be in \[0, 1\]"):
        npx.dropout(jnp.ones(3), p=1.5, training=True)
    with pytest.raises(ValueError, match="mode='sometimes'"):
        npx.dropout(jnp.ones(3), mode="sometimes")
    with pytest.raises(ValueError, match="axes=.* out of range"):
        npx.dropout(jnp.ones(3), axes=(2,), training=True)
