"""A recorded Block call replayed from the last one (``Block._replay``): the steady state of a training
loop records the same node the full call path would, and anything the full path would decide otherwise
(a hook, hybridization, the mode, a pure call, an input's or a Parameter's shape or type) takes the full
path again."""

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, gluon, np
from framework.gluon import nn


def _stack():
    net = nn.Sequential()
    net.add(nn.Dense(5, activation="relu"), nn.Dense(3))
    net.initialize()
    return net


def _record(net, x):
    with autograd.record():
        return net(x)


def _steady(net, x, times=3):
    for _ in range(times):
        out = _record(net, x)
    return out


def test_replayed_calls_give_the_full_paths_values_and_gradients():
    x = np.array(onp.random.RandomState(0).randn(4, 6).astype("float32"))
    net = _stack()
    _steady(net, x)
    with autograd.record():
        loss = (net(x) ** 2).sum()
    loss.backward()
    params = net.collect_params()
    values = {k: p.data() for k, p in params.items()}
    want_loss, want_grads = jax.value_and_grad(lambda v: (net.functional_call(v, x) ** 2).sum())(values)
    onp.testing.assert_allclose(float(loss), float(want_loss), rtol=1e-6)
    for k, p in params.items():
        onp.testing.assert_allclose(p.grad(), want_grads[k], rtol=1e-5, atol=1e-6)


def test_a_hook_added_to_a_child_in_a_steady_loop_is_called():
    x = np.ones((2, 4))
    net = _stack()
    _steady(net, x)
    seen = []
    handle = net[0].register_forward_hook(lambda block, inputs, out: seen.append(out.shape))
    _record(net, x)
    assert seen == [(2, 5)]
    handle.detach()
    _record(net, x)
    assert seen == [(2, 5)]


def test_a_replayed_call_runs_its_own_forward_hooks():
    net = nn.Dense(2, in_units=3)
    net.initialize()
    seen = []
    net.register_forward_hook(lambda block, inputs, out: seen.append((inputs[0].shape, out.shape)))
    _steady(net, np.ones((4, 3)), times=4)
    assert seen == [((4, 3), (4, 2))] * 4


def test_hybridizing_a_user_child_in_a_steady_loop_changes_how_it_runs():
    class Scale(gluon.HybridBlock):
        def forward(self, x):
            self.calls += 1
            return x * 2

    child = Scale()
    child.calls = 0
    child.hybridize()  # the stack runs as one program: the child's Python runs when it is traced
    net = nn.Sequential()
    net.add(nn.Dense(3), child)
    net.initialize()
    x = np.ones((2, 4))
    _steady(net, x)
    traced = child.calls
    _steady(net, x)
    assert child.calls == traced
    child.hybridize(False)  # Python code again: it runs on every call, as in MXNet
    _steady(net, x)
    assert child.calls == traced + 3


def test_the_training_flag_is_part_of_what_is_replayed():
    net = nn.Sequential()
    net.add(nn.Dropout(0.5))
    net.initialize()
    x = np.ones((64, 64))
    _steady(net, x)
    with autograd.record(train_mode=False):
        out = net(x)
    onp.testing.assert_array_equal(out, x)  # no dropout outside training mode
    with autograd.record():
        out = net(x)
    assert float((out == 0).mean()) > 0.3  # and dropout again in training mode


def test_a_child_inside_a_pure_call_uses_the_given_values():
    class Outer(gluon.Block):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(2, in_units=3)

        def forward(self, x):
            return self.dense(x)

    net = Outer()
    net.initialize()
    x = np.ones((1, 3))
    _steady(net, x)
    given = {"dense.weight": jnp.zeros((2, 3)), "dense.bias": jnp.full((2,), 7.0)}
    with autograd.record():
        out = net.functional_call(given, x, training=True)  # the mode of the recorded calls
    onp.testing.assert_array_equal(out, [[7.0, 7.0]])


def test_a_new_input_shape_or_parameter_dtype_takes_the_full_path():
    net = nn.Dense(3, in_units=4)
    net.initialize()
    _steady(net, np.ones((2, 4)))
    assert _record(net, np.ones((6, 4))).shape == (6, 3)
    assert _record(net, np.ones((6, 4), dtype="int32").astype("float32")).shape == (6, 3)

    emb = nn.Embedding(10, 4)  # the same input, a Parameter of another dtype
    emb.initialize()
    index = np.array([1, 2], dtype="int32")
    _steady(emb, index)
    emb.cast("float16")
    assert _record(emb, index).dtype == jnp.float16


def test_a_new_parameter_value_is_what_the_replayed_call_reads():
    net = nn.Dense(1, in_units=2, use_bias=False)
    net.initialize()
    x = np.ones((1, 2))
    _steady(net, x)
    net.weight.set_data(np.array([[1.0, 2.0]]))
    assert float(_record(net, x)[0, 0]) == 3.0


@pytest.mark.parametrize("device_twice", [False, True])
def test_one_record_per_device(device_twice):
    from framework import npx

    net = nn.Dense(2, in_units=3)
    devs = [npx.cpu(0), npx.cpu(0)] if device_twice else [npx.cpu(0), npx.cpu(1)]
    net.initialize(ctx=devs)
    for _ in range(3):
        outs = [_record(net, jax.device_put(np.ones((1, 3)), d)) for d in devs]
    for out, d in zip(outs, devs, strict=True):
        assert out.devices() == {d}
        onp.testing.assert_allclose(out, net.weight.data(d).sum(axis=1)[None] + net.bias.data(d), rtol=1e-6)
