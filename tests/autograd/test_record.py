"""autograd.record as a jax.grad scope: recorded gradients equal jax.grad of the same pure function."""

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, gluon, np, npx
from framework.gluon import nn


def dense(units, in_units):
    layer = nn.Dense(units, in_units=in_units)
    layer.initialize()
    return layer


def assert_grads(params, grads_fn, expected):
    for name, p in params.items():
        onp.testing.assert_allclose(p.grad(), expected[name], rtol=1e-5, atol=1e-6, err_msg=name)


def test_outside_record_plain_arrays():
    net = dense(2, 3)
    out = net(np.ones((4, 3)))
    assert isinstance(out, jax.Array)
    assert not autograd.is_recording()


def test_arithmetic_between_blocks_matches_jax_grad():
    a, b = dense(3, 4), dense(3, 4)
    x = np.random.normal(size=(5, 4))
    with autograd.record():
        loss = ((a(x) + 2 * b(x)) ** 2).mean(axis=1)
    loss.backward()
    pa, pb = a.collect_params().values_on(), b.collect_params().values_on()

    def f(pa, pb):
        return jnp.sum(jnp.mean((a.functional_call(pa, x) + 2 * b.functional_call(pb, x)) ** 2, axis=1))

    ga, gb = jax.grad(f, argnums=(0, 1))(pa, pb)
    assert_grads(a.collect_params(), None, ga)
    assert_grads(b.collect_params(), None, gb)


def test_parameter_used_twice_and_two_losses_added():
    layer = dense(4, 4)
    x = np.random.normal(size=(3, 4))
    with autograd.record():
        h = layer(layer(x))
        l1 = (h ** 2).sum()
        l2 = np.abs(h).sum()
        total = l1 + l2
    total.backward()
    p = layer.collect_params().values_on()

    def f(p):
        h = layer.functional_call(p, layer.functional_call(p, x))
        return (h ** 2).sum() + jnp.abs(h).sum()

    assert_grads(layer.collect_params(), None, jax.grad(f)(p))


def test_grad_req_add_accumulates():
    layer = dense(2, 3)
    layer.collect_params().setattr("grad_req", "add")
    x = np.ones((2, 3))
    for _ in range(2):
        with autograd.record():
            loss = layer(x).sum()
        loss.backward()
    p = layer.collect_params().values_on()
    g = jax.grad(lambda p: layer.functional_call(p, x).sum())(p)
    onp.testing.assert_allclose(layer.weight.grad(), 2 * g["weight"], rtol=1e-6)
    layer.collect_params().zero_grad()
    assert float(np.abs(layer.weight.grad()).sum()) == 0.0


def test_grad_req_null_leaves_no_gradient():
    layer = dense(2, 3)
    layer.bias.grad_req = "null"
    with autograd.record():
        loss = layer(np.ones((2, 3))).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="grad_req='null'"):
        layer.bias.grad()


def test_head_grads_and_nonscalar_head_is_sum():
    layer = dense(2, 3)
    x = np.ones((4, 3))
    with autograd.record():
        out = layer(x)
    out.backward()
    g_sum = onp.asarray(layer.weight.grad())
    with autograd.record():
        out = layer(x)
    autograd.backward(out, head_grads=np.full((4, 2), 3.0))
    onp.testing.assert_allclose(layer.weight.grad(), 3 * g_sum, rtol=1e-6)


def test_second_backward_needs_retain_graph():
    layer = dense(2, 3)
    with autograd.record():
        loss = layer(np.ones((1, 3))).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    with pytest.raises(autograd.GraphError, match="retain_graph=True"):
        loss.backward()


def test_backward_on_plain_array_is_clear_error():
    with pytest.raises(autograd.GraphError,
                       match=r"backward\(\) on ArrayImpl: not a recorded value. Compute it inside `with "
                       r"autograd.record\(\):`"):
        autograd.backward(np.ones(3))


def test_recorded_values_behave_like_arrays():
    layer = dense(3, 2)
    with autograd.record():
        out = layer(np.ones((4, 2)))
        assert isinstance(out, autograd.Recorded)
        assert out.shape == (4, 3) and out.dtype == onp.float32 and len(out) == 4
        probs = np.exp(out) / np.exp(out).sum(axis=1, keepdims=True)
        picked = out[:, 0].reshape(2, 2).astype("float64")
        loss = -np.log(probs).mean()
    loss.backward()
    assert isinstance(float(loss), float)
    assert out.asnumpy().shape == (4, 3)
    assert out.argmax(axis=1).shape == (4,)
    assert picked.dtype == onp.float32  # float64 without jax_enable_x64 is float32, as jnp does
    assert isinstance(loss.item(), float)
    assert "recorded" in repr(out)
    assert str(out.max()) == str(onp.asarray(out).max())
    assert out.device == npx.cpu(0)


def test_pause_and_modes():
    with autograd.record():
        assert autograd.is_training()
        with autograd.pause():
            assert not autograd.is_recording() and not autograd.is_training()
        with autograd.predict_mode():
            assert not autograd.is_training()
    with autograd.train_mode():
        assert autograd.is_training() and not autograd.is_recording()
    with autograd.record(train_mode=False):
        assert not autograd.is_training()


def test_dropout_follows_train_mode():
    drop = nn.Dropout(0.5)
    x = np.ones((200, 50))
    onp.testing.assert_array_equal(drop(x), x)
    with autograd.record():
        y = drop(x)
    y = onp.asarray(y)
    assert 0.4 < (y == 0).mean() < 0.6 and set(onp.unique(y)) <= {0.0, 2.0}


def test_batchnorm_running_stats_commit_at_backward(ref):
    bn = nn.BatchNorm(in_channels=3)
    bn.initialize()
    bn.gamma.set_data(ref["bn_gamma"])
    bn.beta.set_data(ref["bn_beta"])
    x = np.array(ref["x"])
    onp.testing.assert_allclose(bn(x), ref["bn_eval_before_out"], rtol=1e-4, atol=1e-5)
    with autograd.record():
        y = bn(x)
    onp.testing.assert_allclose(y.asnumpy(), ref["bn_train_out"], rtol=1e-4, atol=1e-5)
    onp.testing.assert_allclose(bn.running_mean.data(), ref["bn_running_mean_after_fwd_only"], atol=1e-7)
    y.backward()
    onp.testing.assert_allclose(bn.running_mean.data(), ref["bn_running_mean_after1"], rtol=1e-5, atol=1e-6)
    onp.testing.assert_allclose(bn.running_var.data(), ref["bn_running_var_after1"], rtol=1e-5, atol=1e-6)
    onp.testing.assert_allclose(bn.gamma.grad(), ref["bn_grad_gamma"], rtol=1e-4, atol=1e-4)
    onp.testing.assert_allclose(bn.beta.grad(), ref["bn_grad_beta"], rtol=1e-4, atol=1e-4)
    onp.testing.assert_allclose(bn(x), ref["bn_eval_after_out"], rtol=1e-4, atol=1e-5)
    with autograd.record(train_mode=False):
        onp.testing.assert_allclose(bn(x).asnumpy(), ref["bn_record_trainmodeFalse_out"], rtol=1e-4,
                                    atol=1e-5)
    with autograd.train_mode():
        onp.testing.assert_allclose(bn(x), ref["bn_train_mode_no_record_out"], rtol=1e-4, atol=1e-5)


def test_pure_grad_helpers():
    f = lambda x: (x ** 3).sum()  # noqa: E731
    x = np.array([1.0, 2.0])
    onp.testing.assert_allclose(autograd.grad(f)(x), 3 * x ** 2)
    v, g = autograd.value_and_grad(f)(x)
    assert float(v) == 9.0


def test_mxnet_style_grad_of_heads_does_not_write():
    layer = dense(2, 3)
    with autograd.record():
        loss = layer(np.ones((1, 3))).sum()
    (gw,) = autograd.grad(loss, [layer.weight])
    onp.testing.assert_allclose(gw, onp.ones((2, 3)))
    assert float(np.abs(layer.weight.grad()).sum()) == 0.0


def test_custom_block_with_direct_parameter_access():
    class Scale(gluon.Block):
        def __init__(self):
            super().__init__()
            self.w = gluon.Parameter("weight", shape=(3,))

        def forward(self, x):
            return x * self.w.data()

    blk = Scale()
    blk.initialize(init="ones")
    x = np.arange(6).reshape(2, 3)
    with autograd.record():
        loss = (blk(x) ** 2).sum()
    loss.backward()
    onp.testing.assert_allclose(blk.w.grad(), (2 * x ** 2).sum(axis=0))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_sum_after_backward_is_the_backwards_total(dtype):
    layer = dense(3, 4)
    layer.cast(dtype)
    x = np.array(onp.random.RandomState(0).uniform(-1, 1, (5, 4)).astype(dtype))
    for _ in range(2):  # the second time, the graph's description repeats: one whole-graph program
        with autograd.record():
            loss = layer(x) * 2
        assert loss._sum is None
        loss.backward()
    total = loss.sum()
    onp.testing.assert_allclose(onp.asarray(total), onp.asarray(jnp.sum(loss.value)), rtol=1e-6)
    assert total.dtype == loss.dtype and total.shape == ()
    # a float32 head keeps the sum its backward computed; float16 sums again in its own dtype
    assert (loss._sum is not None) == (dtype == "float32")
    assert loss.sum(axis=0).shape == (3,)  # with arguments: the ordinary reduction
    with autograd.record():
        again = loss.sum() * 1
    assert isinstance(again, autograd.Recorded)  # recorded, not the memo
