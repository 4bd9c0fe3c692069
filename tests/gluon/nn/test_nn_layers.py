"""gluon.nn layers: shapes, reprs, deferred in_units/in_channels inference, gradients vs jax.grad of
the pure operators, argument errors."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, gluon, np, npx
from framework.gluon import nn


def _ready(layer, x):
    layer.initialize()
    layer(x)
    return layer


@pytest.mark.parametrize(
    "layer,in_shape,out_shape,weight_shape",
    [
        (lambda: nn.Conv1D(4, 3, strides=2, padding=1), (2, 3, 9), (2, 4, 5), (4, 3, 3)),
        (lambda: nn.Conv2D(4, 3, groups=2), (1, 6, 5, 5), (1, 4, 3, 3), (4, 3, 3, 3)),
        (lambda: nn.Conv3D(2, (1, 2, 3)), (1, 3, 4, 4, 4), (1, 2, 4, 3, 2), (2, 3, 1, 2, 3)),
        (lambda: nn.Conv2D(4, 3, layout="NHWC"), (1, 5, 5, 3), (1, 3, 3, 4), (4, 3, 3, 3)),
        (lambda: nn.Conv1DTranspose(4, 3, strides=2, output_padding=1), (2, 3, 5), (2, 4, 12), (3, 4, 3)),
        (lambda: nn.Conv2DTranspose(4, 4, strides=2, padding=1, groups=2), (1, 6, 5, 5), (1, 4, 10, 10),
         (6, 2, 4, 4)),
        (lambda: nn.Conv3DTranspose(2, 2, strides=2), (1, 3, 2, 2, 2), (1, 2, 4, 4, 4), (3, 2, 2, 2, 2)),
        (lambda: nn.Dense(7), (4, 2, 3), (4, 7), (7, 6)),
        (lambda: nn.Dense(7, flatten=False), (4, 2, 3), (4, 2, 7), (7, 3)),
        (lambda: nn.Embedding(10, 3), (2, 5), (2, 5, 3), (10, 3)),
    ],
)
def test_deferred_shapes(layer, in_shape, out_shape, weight_shape):
    net = layer()
    net.initialize()
    with pytest.raises(gluon.DeferredInitializationError) if 0 in net.weight.shape else _nullcontext():
        net.weight.data()
    x = np.ones(in_shape) if not isinstance(net, nn.Embedding) else np.zeros(in_shape, dtype="int32")
    assert net(x).shape == out_shape
    assert net.weight.shape == weight_shape and net.weight.data().shape == weight_shape


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


@pytest.mark.parametrize(
    "layer,in_shape,out_shape",
    [
        (lambda: nn.MaxPool1D(3, 2, ceil_mode=True), (1, 2, 8), (1, 2, 4)),
        (lambda: nn.AvgPool1D(2), (1, 2, 8), (1, 2, 4)),
        (lambda: nn.MaxPool3D(2), (1, 2, 4, 6, 8), (1, 2, 2, 3, 4)),
        (lambda: nn.AvgPool3D(3, 1, 1), (1, 2, 4, 4, 4), (1, 2, 4, 4, 4)),
        (lambda: nn.MaxPool2D(2, layout="NHWC"), (1, 4, 6, 3), (1, 2, 3, 3)),
        (lambda: nn.GlobalAvgPool1D(), (2, 3, 5), (2, 3, 1)),
        (lambda: nn.GlobalMaxPool3D(), (2, 3, 4, 4, 4), (2, 3, 1, 1, 1)),
        (lambda: nn.GlobalAvgPool2D(layout="NHWC"), (2, 5, 5, 3), (2, 1, 1, 3)),
        (lambda: nn.Flatten(), (2, 3, 4), (2, 12)),
        (lambda: nn.Identity(), (2, 3), (2, 3)),
    ],
)
def test_parameter_free_shapes(layer, in_shape, out_shape):
    assert layer()(np.ones(in_shape)).shape == out_shape


def test_norm_layers_defer_and_match_ops():
    x = np.array(onp.random.RandomState(0).randn(2, 4, 3, 3).astype(onp.float32))
    ln = _ready(nn.LayerNorm(), x)
    assert ln.gamma.shape == (3,)
    onp.testing.assert_allclose(ln(x), npx.layer_norm(x, jnp.ones(3), jnp.zeros(3)), rtol=1e-6)
    inn = _ready(nn.InstanceNorm(), x)
    assert inn.gamma.shape == (4,)
    onp.testing.assert_allclose(inn(x), npx.instance_norm(x, jnp.ones(4), jnp.zeros(4), eps=1e-5), rtol=1e-6)
    gn = _ready(nn.GroupNorm(num_groups=2), x)
    assert gn.gamma.shape == (4,)
    onp.testing.assert_allclose(gn(x), npx.group_norm(x, jnp.ones(4), jnp.zeros(4), num_groups=2), rtol=1e-6)
    bnr = _ready(nn.BatchNormReLU(), x)
    with autograd.train_mode():
        assert float(bnr(x).min()) == 0.0
    bn_last = _ready(nn.BatchNorm(axis=-1, scale=False, center=False), x)
    assert bn_last.gamma.shape == (3,) and bn_last.gamma.grad_req == "null"


def test_activation_layers():
    x = np.array([-2.0, 0.5])
    assert nn.Activation("sigmoid")(x).tolist() == npx.sigmoid(x).tolist()
    assert nn.LeakyReLU(0.1)(x).tolist() == pytest.approx([-0.2, 0.5])
    assert nn.ELU(0.5)(x).tolist() == pytest.approx([0.5 * (onp.exp(-2.0) - 1), 0.5])
    assert nn.SELU()(x).tolist() == pytest.approx(npx.leaky_relu(x, act_type="selu").tolist())
    assert nn.GELU()(x).tolist() == pytest.approx(npx.leaky_relu(x, act_type="gelu").tolist())
    assert nn.GELU("tanh")(x).tolist() == pytest.approx(npx.leaky_relu(x, act_type="gelu_tanh").tolist())
    sig = 1 / (1 + onp.exp(-2.0 * onp.array([-2.0, 0.5])))
    assert nn.Swish(2.0)(x).tolist() == pytest.approx((onp.array([-2.0, 0.5]) * sig).tolist(), rel=1e-6)
    assert nn.SiLU()(x).tolist() == pytest.approx(nn.Swish()(x).tolist())
    prelu = nn.PReLU(in_channels=2)
    prelu.initialize()
    assert prelu(np.array([[-4.0, -8.0]])).tolist() == [[-1.0, -2.0]]


def test_lambdas_and_concatenate():
    assert nn.Lambda("relu")(np.array([-1.0, 1.0])).tolist() == [0.0, 1.0]  # npx.relu
    assert nn.HybridLambda(lambda x: x * 2)(np.ones(2)).tolist() == [2.0, 2.0]
    hl = nn.HybridLambda(lambda F, x: F.np.exp(x) + F.relu(x))
    assert hl(np.zeros(1)).tolist() == [1.0]
    net = nn.HybridConcatenate(axis=1)
    net.add(nn.Dense(2), nn.Identity())
    net.initialize()
    assert net(np.ones((3, 4))).shape == (3, 6)
    net.hybridize()
    assert net(np.ones((3, 4))).shape == (3, 6)
    with pytest.raises(ValueError, match="'nonexistent' is not found"):
        nn.Lambda("nonexistent")


def test_reprs():
    assert repr(nn.Dense(5, in_units=147)) == "Dense(147 -> 5, linear)"
    assert repr(nn.Dense(120, activation="relu")) == "Dense(None -> 120, Activation(relu))"
    assert repr(nn.Conv2D(6, 5, activation="relu", in_channels=1)) == (
        "Conv2D(1 -> 6, kernel_size=(5, 5), stride=(1, 1), Activation(relu))")
    assert repr(nn.Conv2D(8, 3, strides=2, padding=1, dilation=2, groups=2, use_bias=False)) == (
        "Conv2D(None -> 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), dilation=(2, 2), groups=2, "
        "bias=False)")
    assert repr(nn.Conv2DTranspose(3, 4, strides=2, output_padding=1, in_channels=2)) == (
        "Conv2DTranspose(2 -> 3, kernel_size=(4, 4), stride=(2, 2), output_padding=(1, 1))")
    assert repr(nn.AvgPool2D(3, 2, 1, ceil_mode=True)) == (
        "AvgPool2D(size=(3, 3), stride=(2, 2), padding=(1, 1), ceil_mode=True, global_pool=False, "
        "pool_type=avg, layout=NCHW)")
    assert repr(nn.Dropout(0.3)) == "Dropout(p = 0.3, axes=())"
    assert repr(nn.BatchNorm()) == (
        "BatchNorm(axis=1, eps=1e-05, momentum=0.9, fix_gamma=False, use_global_stats=False, "
        "in_channels=None)")
    assert repr(nn.Embedding(10, 4)) == "Embedding(10 -> 4, float32)"
    assert repr(nn.Flatten()) == "Flatten"
    assert repr(nn.LayerNorm(in_channels=3)) == (
        "LayerNorm(eps=1e-05, axis=-1, center=True, scale=True, in_channels=3)")


def test_gradients_equal_jax_grad_of_pure_ops():
    rng = onp.random.RandomState(1)
    x = np.array(rng.randn(2, 3, 6, 6).astype(onp.float32))
    conv = _ready(nn.Conv2D(4, 3, strides=2, padding=1, activation="tanh"), x)
    dense = _ready(nn.Dense(5), conv(x))
    with autograd.record():
        loss = (dense(conv(x)) ** 2).sum()
    loss.backward()

    def pure(w, b, wd, bd):
        h = jnp.tanh(npx.convolution(x, w, b, kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=4))
        return (npx.fully_connected(h, wd, bd, num_hidden=5) ** 2).sum()

    grad_fn = jax.jit(jax.grad(pure, argnums=(0, 1, 2, 3)))
    grads = grad_fn(conv.weight.data(), conv.bias.data(), dense.weight.data(), dense.bias.data())
    got = (conv.weight.grad(), conv.bias.grad(), dense.weight.grad(), dense.bias.grad())
    for g, w in zip(got, grads, strict=True):
        onp.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_transpose_and_norm_gradients_equal_jax_grad():
    rng = onp.random.RandomState(2)
    x = np.array(rng.randn(2, 2, 4, 4).astype(onp.float32))
    deconv = _ready(nn.Conv2DTranspose(3, 3, strides=2, padding=1, output_padding=1), x)
    ln = _ready(nn.GroupNorm(num_groups=1), deconv(x))
    ln.gamma.set_data(np.array([0.5, 1.0, 2.0]))
    scale = jnp.asarray(rng.randn(1, 3, 8, 8).astype(onp.float32))
    with autograd.record():
        loss = (ln(deconv(x)) * scale).sum()
    loss.backward()

    def pure(w, b, g, be):
        y = npx.deconvolution(x, w, b, kernel=(3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 1), num_filter=3)
        return (npx.group_norm(y, g, be, num_groups=1) * scale).sum()

    grad_fn = jax.jit(jax.grad(pure, argnums=(0, 1, 2, 3)))
    grads = grad_fn(deconv.weight.data(), deconv.bias.data(), ln.gamma.data(), ln.beta.data())
    got = (deconv.weight.grad(), deconv.bias.grad(), ln.gamma.grad(), ln.beta.grad())
    for g, w in zip(got, grads, strict=True):
        onp.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_functional_call_returns_batchnorm_state():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(2, 3, in_channels=1), nn.BatchNorm(in_channels=2), nn.Dropout(0.5))
    net.initialize()
    params = net.collect_params().values_on()
    x = np.array(onp.random.RandomState(3).randn(4, 1, 5, 5).astype(onp.float32))
    f = jax.jit(lambda p, k: net.functional_call(p, x, training=True, key=k, return_state=True))
    out, state = f(params, jax.random.key(0))
    assert set(state) == {"1.running_mean", "1.running_var"}
    h = npx.convolution(x, params["0.weight"], params["0.bias"], kernel=(3, 3), num_filter=2)
    _, mean, var = npx.batch_norm(h, params["1.gamma"], params["1.beta"], params["1.running_mean"],
                                  params["1.running_var"], fix_gamma=False, output_mean_var=True,
                                  training=True)
    onp.testing.assert_allclose(state["1.running_mean"], 0.1 * mean, rtol=1e-5, atol=1e-7)
    onp.testing.assert_allclose(state["1.running_var"], 0.9 + 0.1 * var, rtol=1e-5)
    out2, _ = f(params, jax.random.key(0))
    onp.testing.assert_array_equal(out, out2)  # dropout mask: a function of the key
    eval_out = jax.jit(lambda p: net.functional_call(p, x, training=False))(params)
    assert not onp.array_equal(eval_out, out)


def test_layer_argument_errors():
    with pytest.raises(ValueError, match="layout='NCW'; only 'NCHW' and 'NHWC'"):
        nn.Conv2D(4, 3, layout="NCW")
    with pytest.raises(ValueError, match="kernel_size must be a number or a list of 2 ints"):
        nn.Conv2D(4, (3, 3, 3))
    with pytest.raises(ValueError, match="groups=3 must divide channels=4"):
        nn.Conv2D(4, 3, groups=3)
    with pytest.raises(ValueError, match="channels=0 must be a positive int"):
        nn.Conv1D(0, 3)
    with pytest.raises(ValueError, match="only NCHW and NHWC layouts are valid for 2D pooling"):
        nn.MaxPool2D(layout="NCDHW")
    with pytest.raises(ValueError, match="pool_size must be a number or a list of 1 ints"):
        nn.MaxPool1D((2, 2))
    with pytest.raises(ValueError, match="rate=1.5"):
        nn.Dropout(1.5)
    with pytest.raises(ValueError, match="alpha=-1"):
        nn.LeakyReLU(-1)
    with pytest.raises(ValueError, match="activation='relu6' is not supported"):
        nn.Dense(3, activation="relu6")
    with pytest.raises(ValueError, match="units=0"):
        nn.Dense(0)
    conv = nn.Conv2D(4, 3)
    conv.initialize()
    with pytest.raises(ValueError, match=r"Conv2D expects 4-D input \(NCHW\), got shape \(2, 3, 5\)"):
        conv(np.ones((2, 3, 5)))
    gn = nn.GroupNorm(num_groups=3)
    gn.initialize()
    with pytest.raises(ValueError, match="num_groups=3 must divide the channels"):
        gn(np.ones((2, 4, 5)))
