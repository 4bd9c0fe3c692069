"""Trainer: MXNet's step semantics, the reference LeNet step, stale gradients, states round trip."""

import numpy as onp
import pytest
from nets import reference_lenet

from framework import _compile, autograd, gluon, np, npx
from framework.gluon import nn
from tests.conftest import compiled_in_new_process


@pytest.mark.parametrize("hybridize", [False, True])
def test_reference_lenet_step(ref, hybridize):
    net = reference_lenet(ref)
    if hybridize:
        net.hybridize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    x, y = np.array(ref["lenet_x"]), np.array(ref["lenet_y"], dtype="int32")
    with autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    onp.testing.assert_allclose(loss.asnumpy(), ref["lenet_loss"], rtol=1e-5, atol=1e-6)
    for name, p in net.collect_params().items():
        onp.testing.assert_allclose(p.grad(), ref[f"lenet_grad__{name}"], rtol=1e-4, atol=1e-5, err_msg=name)
    trainer.step(8)
    for name, p in net.collect_params().items():
        onp.testing.assert_allclose(p.data(), ref[f"lenet_param1__{name}"], rtol=1e-5, atol=1e-6,
                                    err_msg=name)


def test_sgd_step_is_w_minus_lr_grad_over_batch(ref):
    layer = nn.Dense(2, in_units=3, use_bias=False)
    layer.initialize()
    layer.weight.set_data(ref["step_w0"])
    trainer = gluon.Trainer(layer.collect_params(), "sgd", {"learning_rate": 0.1})
    x, y = np.array(ref["step_x"]), np.array(ref["step_y"])
    with autograd.record():
        loss = gluon.loss.L2Loss()(layer(x), y)
    loss.backward()
    onp.testing.assert_allclose(layer.weight.grad(), ref["step_grad_w"], rtol=1e-5, atol=1e-6)
    trainer.step(4)
    onp.testing.assert_allclose(layer.weight.data(), ref["step_w1"], rtol=1e-6, atol=1e-7)
    assert trainer.optimizer.rescale_grad == pytest.approx(float(ref["step_rescale_grad"]))


def test_stale_gradient_warns_and_ignore_skips():
    layer = nn.Dense(2, in_units=3)
    layer.initialize()
    trainer = gluon.Trainer(layer.collect_params(), "sgd", {"learning_rate": 0.1})
    with autograd.record():
        loss = layer(np.ones((1, 3))).sum()
    loss.backward()
    trainer.step(1)
    before = onp.asarray(layer.weight.data())
    with pytest.warns(UserWarning, match="has not been updated by backward since last `step`"):
        trainer.step(1)
    assert not onp.array_equal(before, layer.weight.data())
    before = onp.asarray(layer.weight.data())
    trainer.step(1, ignore_stale_grad=True)
    onp.testing.assert_array_equal(before, layer.weight.data())


def test_learning_rate_and_lr_mult():
    layer = nn.Dense(1, in_units=1, use_bias=False)
    layer.initialize(init="ones")
    layer.weight.lr_mult = 2.0
    trainer = gluon.Trainer(layer.collect_params(), "sgd", {"learning_rate": 0.5})
    trainer.set_learning_rate(0.25)
    assert trainer.learning_rate == 0.25
    with autograd.record():
        loss = layer(np.ones((1, 1))).sum()
    loss.backward()
    trainer.step(1)
    onp.testing.assert_allclose(layer.weight.data(), [[1 - 2 * 0.25]])


def test_multi_device_replicas_identical_and_grads_summed():
    devs = [npx.cpu(0), npx.cpu(1)]
    layer = nn.Dense(2, in_units=3)
    layer.initialize(ctx=devs)
    trainer = gluon.Trainer(layer.collect_params(), "sgd", {"learning_rate": 0.1})
    xs = gluon.utils.split_and_load(np.arange(12.0).reshape(4, 3), devs)
    with autograd.record():
        losses = [layer(x).sum() for x in xs]
    for l in losses:
        l.backward()
    g0, g1 = [onp.asarray(g) for g in layer.weight.list_grad()]
    trainer.step(4)
    a, b = layer.weight.list_data()
    onp.testing.assert_array_equal(a, b)
    onp.testing.assert_allclose(layer.weight.list_grad()[1], g0 + g1, rtol=1e-6)


def test_save_load_states_roundtrip(tmp_path):
    layer = nn.Dense(2, in_units=3)
    layer.initialize()
    trainer = gluon.Trainer(layer.collect_params(), "adam", {"learning_rate": 0.01})
    for _ in range(2):
        with autograd.record():
            loss = (layer(np.ones((2, 3))) ** 2).sum()
        loss.backward()
        trainer.step(2)
    path = tmp_path / "trainer.states"
    trainer.save_states(str(path))
    other = gluon.Trainer(layer.collect_params(), "adam", {"learning_rate": 0.5})
    other.load_states(str(path))
    assert other.optimizer.num_update == trainer.optimizer.num_update
    import jax

    for a, b in zip(jax.tree_util.tree_leaves(trainer._states), jax.tree_util.tree_leaves(other._states),
                    strict=True):
        onp.testing.assert_array_equal(a, b)
    # MXNet pickles optimizer states; here they are a .params file: its list magic, every state leaf in it.
    from framework import serialization

    assert path.read_bytes()[:8] == (0x112).to_bytes(8, "little")
    stored = serialization.load_numpy(str(path))
    leaves = jax.tree_util.tree_flatten_with_path(next(iter(trainer._states.values())))[0]
    assert sorted(stored) == sorted([jax.tree_util.keystr(k) for k, _ in leaves] + ["__meta__"])


def _one_sgd_step(params):
    net = nn.Dense(3, in_units=4)
    net.initialize()
    before = {k: onp.asarray(v.data()) for k, v in net.collect_params().items()}
    trainer = gluon.Trainer(net.collect_params(), "sgd", params)
    with autograd.record():
        loss = (net(np.ones((2, 4))) ** 2).sum()
    loss.backward()
    grads = {k: onp.asarray(v.grad()) for k, v in net.collect_params().items()}
    trainer.step(2)
    after = {k: onp.asarray(v.data()) for k, v in net.collect_params().items()}
    return trainer, before, grads, after


def test_a_state_of_scalars_is_made_without_a_program_and_slots_by_one():
    plain, before, grads, after = _one_sgd_step({"learning_rate": 0.1})
    assert "optimizer_init" not in _compile.program_names(plain)  # a step count and hyperparameters
    for k in before:
        onp.testing.assert_allclose(after[k], before[k] - 0.1 * grads[k] / 2, rtol=1e-6, atol=1e-7)
    momentum, *_ = _one_sgd_step({"learning_rate": 0.1, "momentum": 0.9})
    assert "optimizer_init" in _compile.program_names(momentum)  # a slot per weight


_FIRST_STEP = """
from framework import autograd, gluon, np
from framework.gluon import nn
net = nn.Sequential()
net.add(nn.Conv2D(6, kernel_size=5, activation="relu"), nn.MaxPool2D(), nn.Dense(10))
net.initialize()
trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
with autograd.record():
    loss = loss_fn(net(np.ones((4, 1, 28, 28))), np.zeros((4,), dtype="int32"))
loss.backward()
trainer.step(4)
float(loss.sum())
"""


def test_a_fresh_processs_first_training_step_compiles_only_the_step():
    # initial values, keys and the optimizer's scalars are made in host memory: one program, the step
    assert compiled_in_new_process(_FIRST_STEP, FRAMEWORK_COMPILE_CACHE="0") == ["jit(step)"]
