"""gluon.nn layers with the MXNet 1.9.1 reference weights give MXNet's outputs (and BatchNorm its
running statistics, committed at backward)."""

from __future__ import annotations

import numpy as onp
import pytest

from framework import autograd, np
from framework.gluon import nn

TOL = dict(rtol=1e-5, atol=1e-5)


def _set(layer, ref, case):
    layer.initialize()
    layer(np.array(ref["x"]))  # fixes deferred shapes
    layer.weight.set_data(ref[f"{case}_weight"])
    if layer.bias is not None:
        layer.bias.set_data(ref[f"{case}_bias"])
    return layer


@pytest.mark.parametrize(
    "case,layer",
    [
        ("conv_k3", lambda: nn.Conv2D(4, 3)),
        ("conv_k3_s2_p1", lambda: nn.Conv2D(4, 3, strides=2, padding=1)),
        ("conv_k3_d2", lambda: nn.Conv2D(4, (3, 3), dilation=(2, 2))),
        ("conv_k5_relu", lambda: nn.Conv2D(4, 5, activation="relu")),
        ("conv_k3_nobias", lambda: nn.Conv2D(4, 3, use_bias=False)),
        ("dense_flat", lambda: nn.Dense(5)),
        ("dense_noflat", lambda: nn.Dense(5, flatten=False)),
    ],
)
def test_weighted_layers_match_mxnet(ref, case, layer):
    net = _set(layer(), ref, case)
    onp.testing.assert_allclose(net(np.array(ref["x"])), ref[f"{case}_out"], **TOL)


@pytest.mark.parametrize(
    "case,data,layer",
    [
        ("maxpool_default_out", "x", lambda: nn.MaxPool2D()),
        ("maxpool_2_2_out", "x", lambda: nn.MaxPool2D(pool_size=2, strides=2)),
        ("maxpool_2_2_ceil_out", "x", lambda: nn.MaxPool2D(2, 2, ceil_mode=True)),
        ("maxpool_3_2_p1_out", "x", lambda: nn.MaxPool2D(3, 2, padding=1)),
        ("maxpool_3_2_p1_ceil_out", "x", lambda: nn.MaxPool2D(3, 2, padding=1, ceil_mode=True)),
        ("avgpool_2_2_ceil_incl_out", "x", lambda: nn.AvgPool2D(2, 2, ceil_mode=True)),
        ("avgpool_2_2_ceil_excl_out", "x",
         lambda: nn.AvgPool2D(2, 2, ceil_mode=True, count_include_pad=False)),
        ("avgpool_3_2_p1_incl_out", "x", lambda: nn.AvgPool2D(3, 2, padding=1)),
        ("avgpool_3_2_p1_excl_out", "x", lambda: nn.AvgPool2D(3, 2, padding=1, count_include_pad=False)),
        ("x8_avgpool_3_2_p1_incl_out", "x8", lambda: nn.AvgPool2D(3, 2, 1)),
        ("x8_avgpool_3_2_p1_ceil_incl_out", "x8", lambda: nn.AvgPool2D(3, 2, 1, ceil_mode=True)),
        ("x8_avgpool_3_2_p1_ceil_excl_out", "x8",
         lambda: nn.AvgPool2D(3, 2, 1, ceil_mode=True, count_include_pad=False)),
        ("x8_maxpool_3_2_p1_out", "x8", lambda: nn.MaxPool2D(3, 2, 1)),
        ("x8_maxpool_3_2_p1_ceil_out", "x8", lambda: nn.MaxPool2D(3, 2, 1, ceil_mode=True)),
        ("globalavgpool_out", "x", lambda: nn.GlobalAvgPool2D()),
        ("globalmaxpool_out", "x", lambda: nn.GlobalMaxPool2D()),
    ],
)
def test_pool_layers_match_mxnet(ref, case, data, layer):
    out = layer()(np.array(ref[data]))
    assert out.shape == ref[case].shape
    onp.testing.assert_allclose(out, ref[case], **TOL)


@pytest.fixture
def bn(ref):
    layer = nn.BatchNorm()
    layer.initialize()
    layer(np.array(ref["x"]))
    layer.gamma.set_data(ref["bn_gamma"])
    layer.beta.set_data(ref["bn_beta"])
    onp.testing.assert_allclose(layer(np.array(ref["x"])), ref["bn_eval_before_out"], **TOL)
    return layer


def test_batchnorm_training_forward_and_backward_commit(ref, bn):
    x = np.array(ref["x"])
    with autograd.record():
        y = bn(x)
    onp.testing.assert_allclose(y, ref["bn_train_out"], **TOL)
    # MXNet 1.x: a forward pass alone leaves the running statistics untouched...
    onp.testing.assert_array_equal(bn.running_mean.data(), ref["bn_running_mean_after_fwd_only"])
    onp.testing.assert_array_equal(bn.running_var.data(), ref["bn_running_var_after_fwd_only"])
    y.backward()
    # ...the backward pass commits them.
    onp.testing.assert_allclose(bn.running_mean.data(), ref["bn_running_mean_after1"], rtol=1e-5, atol=1e-7)
    onp.testing.assert_allclose(bn.running_var.data(), ref["bn_running_var_after1"], rtol=1e-5, atol=1e-7)
    onp.testing.assert_allclose(bn.beta.grad(), ref["bn_grad_beta"], rtol=1e-5)
    onp.testing.assert_allclose(bn.gamma.grad(), ref["bn_grad_gamma"], atol=1e-4)
    onp.testing.assert_allclose(bn(x), ref["bn_eval_after_out"], **TOL)
    with autograd.record(train_mode=False):
        onp.testing.assert_allclose(bn(x), ref["bn_record_trainmodeFalse_out"], **TOL)


def test_batchnorm_train_mode_without_record(ref, bn):
    with autograd.train_mode():
        out = bn(np.array(ref["x"]))
    onp.testing.assert_allclose(out, ref["bn_train_mode_no_record_out"], **TOL)
    onp.testing.assert_array_equal(bn.running_mean.data(), onp.zeros(3))


def test_dropout_layer_matches_mxnet(ref):
    x = np.array(ref["x"])
    layer = nn.Dropout(0.5)
    onp.testing.assert_array_equal(layer(x), ref["dropout_eval_out"])
    with autograd.record():
        y = onp.asarray(layer(np.ones((200, 500))))
    frac_zero, lo, hi = ref["dropout_train_stats"]
    assert abs((y == 0).mean() - frac_zero) < 0.01
    assert y[y != 0].min() == pytest.approx(lo) and y[y != 0].max() == pytest.approx(hi)
