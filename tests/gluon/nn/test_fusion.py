"""Conv2D + MaxPool2D pairs run fused on the CPU with the same values and gradients as the layers."""

import jax
import numpy as onp

from framework import autograd, gluon, np
from framework.gluon.nn.fusion import ConvPool
from train.lenet import lenet


def loss_and_grads(ref, hybrid, monkeypatch, fast):
    monkeypatch.setenv("FRAMEWORK_FAST_CPU", "1" if fast else "0")
    net = lenet(hybrid=hybrid)
    net.initialize()
    net(np.ones((1, 1, 28, 28)))
    for name, p in net.collect_params().items():
        p.set_data(ref[f"lenet_param0__{name}"])
    if hybrid:
        net.hybridize()
    x, y = np.array(ref["lenet_x"]), np.array(ref["lenet_y"], dtype="int32")
    with autograd.record():
        loss = gluon.loss.SoftmaxCrossEntropyLoss()(net(x), y)
    loss.backward()
    steps = [type(b) for b in net._steps()]
    return (onp.asarray(loss), {k: onp.asarray(p.grad()) for k, p in net.collect_params().items()}, steps)


def test_fused_equals_separate_both_paths(ref, monkeypatch):
    for hybrid in (False, True):
        l0, g0, s0 = loss_and_grads(ref, hybrid, monkeypatch, fast=False)
        l1, g1, s1 = loss_and_grads(ref, hybrid, monkeypatch, fast=True)
        if jax.default_backend() == "cpu":
            assert s1.count(ConvPool) == 2 and ConvPool not in s0
        onp.testing.assert_allclose(l1, l0, rtol=1e-5, atol=1e-6)
        onp.testing.assert_allclose(l1, ref["lenet_loss"], rtol=1e-5, atol=1e-6)
        for k in g0:
            onp.testing.assert_allclose(g1[k], g0[k], rtol=1e-4, atol=1e-6, err_msg=k)


def test_pure_call_fused_matches_jax_grad_of_unfused(ref, monkeypatch):
    net = lenet()
    net.initialize()
    net(np.ones((1, 1, 28, 28)))
    params = net.collect_params().values_on()
    x = np.array(ref["lenet_x"])
    fused = jax.grad(lambda p: net.functional_call(p, x).sum())(params)
    monkeypatch.setenv("FRAMEWORK_FAST_CPU", "0")
    plain = jax.grad(lambda p: net.functional_call(p, x).sum())(params)
    for k in params:
        onp.testing.assert_allclose(fused[k], plain[k], rtol=1e-4, atol=1e-6, err_msg=k)
