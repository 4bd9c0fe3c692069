"""The Conv2D+MaxPool2D rewrite: a pass of the compile layer, applied the same way on every path, with
the unfused layers' values and gradients; the container keeps the user's children and hooks see them."""

import jax
import numpy as onp
import pytest
from nets import lenet

from framework import _compile, autograd, config, gluon, np, parallel
from framework.gluon import nn

FUSED = [("conv_pool", "cpu", (0, 1)), ("conv_pool", "cpu", (2, 3))]


def build(ref, hybrid):
    net = lenet(hybrid=hybrid)
    net.initialize()
    net(np.ones((1, 1, 28, 28)))
    for name, p in net.collect_params().items():
        p.set_data(ref[f"lenet_param0__{name}"])
    return net


def convolutions(net, x):
    """How many XLA convolutions the pure forward traces to (the fused pair computes none)."""
    params = net.collect_params().values_on()
    jaxpr = jax.make_jaxpr(lambda p: net.functional_call(p, x, device=jax.devices()[0]))(params)
    return str(jaxpr).count("conv_general_dilated")


def loss_and_grads(ref, hybrid, monkeypatch, fast):
    config.set(fast_cpu=fast)
    net = build(ref, hybrid)
    if hybrid:
        net.hybridize()
    x, y = np.array(ref["lenet_x"]), np.array(ref["lenet_y"], dtype="int32")
    with autograd.record():
        loss = gluon.loss.SoftmaxCrossEntropyLoss()(net(x), y)
    loss.backward()
    assert [type(b).__name__ for b in net] == ["Conv2D", "MaxPool2D", "Conv2D", "MaxPool2D", "Dense",
                                               "Dense", "Dense"]  # the user's children, untouched
    return (onp.asarray(loss), {k: onp.asarray(p.grad()) for k, p in net.collect_params().items()},
            _compile.rewrite_listing(net), convolutions(net, x))


@pytest.mark.parametrize("hybrid", [False, True])
def test_fused_equals_separate_in_the_gluon_loop(ref, monkeypatch, hybrid):
    l0, g0, listed0, conv0 = loss_and_grads(ref, hybrid, monkeypatch, fast=False)
    l1, g1, listed1, conv1 = loss_and_grads(ref, hybrid, monkeypatch, fast=True)
    assert listed0 == [] and conv0 == 2
    assert listed1 == FUSED and conv1 == 0  # the fusion happened, and no XLA convolution is left
    onp.testing.assert_allclose(l1, l0, rtol=1e-5, atol=1e-6)
    onp.testing.assert_allclose(l1, ref["lenet_loss"], rtol=1e-5, atol=1e-6)
    for k in g0:
        onp.testing.assert_allclose(g1[k], g0[k], rtol=1e-4, atol=1e-6, err_msg=k)


def test_pure_call_fused_matches_jax_grad_of_unfused(ref, monkeypatch):
    net = build(ref, True)
    params = net.collect_params().values_on()
    x = np.array(ref["lenet_x"])
    cpu = jax.devices()[0]
    fused = jax.grad(lambda p: net.functional_call(p, x, device=cpu).sum())(params)
    config.set(fast_cpu=False)
    plain = jax.grad(lambda p: net.functional_call(p, x, device=cpu).sum())(params)
    for k in params:
        onp.testing.assert_allclose(fused[k], plain[k], rtol=1e-4, atol=1e-6, err_msg=k)


def test_compiled_step_applies_the_same_rewrite(ref, monkeypatch):
    x, y = np.array(ref["lenet_x"]), np.array(ref["lenet_y"], dtype="int32")
    results = []
    for fast in (True, False):
        config.set(fast_cpu=fast)
        net = build(ref, True)
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
        step = parallel.DataParallel(net, gluon.loss.SoftmaxCrossEntropyLoss(), trainer,
                                     devices=jax.devices()[:1])
        results.append(float(step(x, y)))
        step.sync()
        assert _compile.rewrite_listing(net) == (FUSED if fast else [])
        results.append(onp.asarray(net[0].weight.data()))
    onp.testing.assert_allclose(results[0], results[2], rtol=1e-5)
    onp.testing.assert_allclose(results[1], results[3], rtol=1e-4, atol=1e-6)


def test_hooks_see_each_layer_and_summary_lists_rewrites(ref, capsys):
    net = build(ref, False)
    seen = []
    net[0].register_forward_hook(lambda block, args, out: seen.append(out.shape))
    net(np.ones((2, 1, 28, 28)))
    assert seen == [(2, 6, 24, 24)]  # the convolution's own output: that pair is not fused
    assert _compile.rewrite_listing(net)[-1:] == [("conv_pool", "cpu", (2, 3))]
    net.summary(np.ones((2, 1, 28, 28)))
    assert "Rewrite conv_pool (cpu): layers 2, 3 run as one" in capsys.readouterr().out


def test_rewrite_follows_the_platform_and_optimize_for_names_it():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, in_channels=1), nn.MaxPool2D(2, 2))
    net.initialize()
    children = list(net._children.values())
    assert [type(s).__name__ for s in _compile.sequence_plan(net, children, "gpu")] == ["Conv2D", "MaxPool2D"]
    assert [type(s).__name__ for s in _compile.sequence_plan(net, children, "cpu")] == ["ConvPool"]
    forced = _compile.sequence_plan(net, children, "gpu", ("conv_pool",))
    assert [type(s).__name__ for s in forced] == ["ConvPool"]
    net.optimize_for(np.ones((1, 1, 8, 8)), backend="conv_pool")
    assert net._rewrite_backends == ("conv_pool",)
    with pytest.raises(ValueError, match=r"backend=.TensorRT. is not a registered rewrite.*conv_pool"):
        net.optimize_for(np.ones((1, 1, 8, 8)), backend="TensorRT")


@pytest.mark.parametrize("act", ["tanh", "sigmoid", "softrelu"])
def test_monotone_activations_fuse_with_the_same_values_and_gradients(act):
    def run(fast):
        config.set(fast_cpu=fast)
        net = nn.HybridSequential()
        net.add(nn.Conv2D(8, 5, activation=act, in_channels=3), nn.MaxPool2D(2, 2))
        net.initialize(init="xavier")
        for p in net.collect_params().values():
            p.set_data(np.array(onp.random.default_rng(1).standard_normal(p.shape).astype("float32") * 0.2))
        x = np.array(onp.random.default_rng(2).standard_normal((4, 3, 14, 14)).astype("float32"))
        with autograd.record():
            y = net(x)
        y.backward()
        return (onp.asarray(y), [onp.asarray(p.grad()) for p in net.collect_params().values()],
                _compile.rewrite_listing(net))

    y0, g0, listed0 = run(False)
    y1, g1, listed1 = run(True)
    assert listed0 == [] and listed1 == [("conv_pool", "cpu", (0, 1))]
    onp.testing.assert_allclose(y1, y0, rtol=1e-5, atol=1e-6)
    for a, b in zip(g1, g0, strict=True):
        onp.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_a_non_monotone_activation_is_not_fused():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, activation="mish", in_channels=1), nn.MaxPool2D(2, 2))
    net.initialize()
    net(np.ones((2, 1, 10, 10)))
    assert _compile.rewrite_listing(net) == []  # max(mish(z)) != mish(max(z))
