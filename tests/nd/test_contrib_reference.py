"""``nd.contrib`` operators (detection, ROI pooling/align, resizing, control flow, ...) against MXNet
1.9.1: compiled with gradients, and eagerly inside ``autograd.record()`` (``tests/ops_reference.py``)."""

from __future__ import annotations

import numpy as onp
import pytest
from ops_reference import check_compiled, check_recorded, names, recorded_names

CONTRIB = names("nd.contrib.")


@pytest.mark.parametrize("name", CONTRIB)
def test_matches_mxnet_compiled(name):
    check_compiled(name)


@pytest.mark.parametrize("name", recorded_names("nd.contrib."))
def test_matches_mxnet_recorded(name):
    check_recorded(name)


def test_f_contrib_in_a_hybridized_1x_block_and_under_record():
    from framework import autograd, gluon, nd

    class Head(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            y = F.contrib.AdaptiveAvgPooling2D(x, output_size=2)
            return F.contrib.BilinearResize2D(y, like=x, mode="like")

    x = nd.array(onp.random.RandomState(0).rand(2, 3, 5, 4))
    net = Head()
    eager = net(x)
    net.hybridize()
    onp.testing.assert_allclose(net(x), eager, rtol=1e-6)
    x = autograd.attach_grad(x)
    with autograd.record():
        loss = nd.sum(net(x))
    loss.backward()
    assert x.grad.shape == x.shape and float(nd.sum(x.grad).item()) > 0


def test_unknown_contrib_name_names_itself():
    from framework import nd

    with pytest.raises(AttributeError, match="no attribute 'not_an_op'"):
        nd.contrib.not_an_op  # noqa: B018
