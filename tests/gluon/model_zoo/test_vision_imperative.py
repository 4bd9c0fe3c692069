"""Model-zoo networks run imperatively (not hybridized) inside record(), as MXNet's do: the gradients of
a ResNet (v1 and v2 blocks, whose forward applies relu to recorded values) equal the hybridized net's."""

from __future__ import annotations

import numpy as onp
import pytest

from framework import autograd, gluon, np


@pytest.mark.parametrize("name", ["resnet18_v1", "resnet18_v2"])
def test_resnet_gradients_imperative_equal_hybridized(name):
    x = np.asarray(onp.random.RandomState(0).rand(1, 3, 16, 16).astype("float32"))
    grads = []
    for hybrid in (False, True):
        np.random.seed(0)  # the same initial parameters for both
        net = gluon.model_zoo.vision.get_model(name, classes=4)
        net.initialize()
        if hybrid:
            net.hybridize()
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        grads.append([onp.asarray(p.grad()) for p in net.collect_params().values() if p.grad_req != "null"])
    for a, b in zip(*grads, strict=True):
        onp.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
