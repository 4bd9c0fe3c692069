"""gluon.contrib.nn against MXNet 1.9.1 (tests/reference/contrib/nn.npz, made by
tools/mxnet_reference/gen_contrib.py): names, outputs and gradients eager, hybridized and recorded,
gradients against jax.grad, SyncBatchNorm across devices against BatchNorm on the whole batch."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, gluon, np, parallel
from framework.gluon import nn
from framework.gluon.contrib import nn as cnn
from tests.conftest import REFERENCE

with onp.load(REFERENCE / "contrib" / "nn.npz") as _f:
    REF = {k: _f[k] for k in _f.files}
TOL = dict(rtol=1e-5, atol=1e-5)


def _hconc():
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        conc = cnn.HybridConcurrent(axis=1)
        with conc.name_scope():
            conc.add(nn.Dense(4, activation="relu"), nn.Dense(3), cnn.Identity())
        net.add(conc, nn.Dense(2))
    return net, conc


def _conc():
    conc = cnn.Concurrent(prefix="cc_")
    with conc.name_scope():
        conc.add(nn.Dense(3, flatten=False), nn.Dense(2, flatten=False))
    return conc, conc


def _loaded(case, build):
    net, inner = build()
    net.initialize()
    net(jnp.asarray(REF[f"{case}:x"]))  # deferred shapes from the first input
    for name, p in net.collect_params().items():
        p.set_data(REF[f"{case}:param:{name}"])
    return net, inner


def _check_recorded(net, case):
    x = autograd.attach_grad(jnp.asarray(REF[f"{case}:x"]))
    with autograd.record():
        y = net(x)
        loss = (y ** 2).sum()
    loss.backward()
    onp.testing.assert_allclose(y, REF[f"{case}:y"], **TOL)
    onp.testing.assert_allclose(x.grad, REF[f"{case}:gx"], **TOL)
    for name, p in net.collect_params().items():
        onp.testing.assert_allclose(p.grad(), REF[f"{case}:grad:{name}"], **TOL, err_msg=name)
    params = net.collect_params().values_on()
    x0 = jnp.asarray(REF[f"{case}:x"])
    want = jax.jit(jax.grad(lambda ps: (net.functional_call(ps, x0) ** 2).sum()))(params)
    for name, g in want.items():
        onp.testing.assert_allclose(net.collect_params()[name].grad(), g, **TOL, err_msg=name)


@pytest.mark.parametrize("case,build", [("hconc", _hconc), ("conc", _conc)])
def test_concurrent_names_match_mxnet(case, build):
    net, inner = build()
    assert sorted(net.collect_params()) == REF[f"{case}:structural"].tolist()
    blocks = {id(b): b for b in [inner, *inner._children.values(), *net._children.values()]}
    prefixed = sorted(b.prefix + n for b in blocks.values() for n in b._reg_params)
    assert prefixed == REF[f"{case}:prefixed"].tolist()
    if case == "hconc":
        assert inner.prefix == str(REF["hconc:conc_prefix"])
        assert isinstance(inner, nn.HybridSequential) and isinstance(inner, gluon.HybridBlock)
    else:
        assert isinstance(inner, nn.Sequential) and not isinstance(inner, gluon.HybridBlock)


@pytest.mark.filterwarnings("ignore:All children of this Sequential")
@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("case,build", [("hconc", _hconc), ("conc", _conc)])
def test_concurrent_outputs_and_gradients_match_mxnet(case, build, hybridize):
    net, _ = _loaded(case, build)
    if hybridize:
        net.hybridize()
    onp.testing.assert_allclose(net(jnp.asarray(REF[f"{case}:x"])), REF[f"{case}:y"], **TOL)
    _check_recorded(net, case)


def test_hybrid_concurrent_with_a_python_branch():
    class Twice(gluon.HybridBlock):  # a user block: runs as Python until hybridized
        def forward(self, x):
            return x * 2

    net = cnn.HybridConcurrent(axis=0)
    net.add(Twice(), cnn.Identity())
    x = autograd.attach_grad(jnp.ones((1, 3)))
    with autograd.record():
        y = net(x)
    y.backward()
    onp.testing.assert_allclose(y, [[2, 2, 2], [1, 1, 1]])
    onp.testing.assert_allclose(x.grad, [[3, 3, 3]])


def _sync_bn():
    bn = cnn.SyncBatchNorm(num_devices=1)
    bn.initialize()
    bn(jnp.asarray(REF["sbn:x"]))
    bn.gamma.set_data(REF["sbn:gamma"])
    bn.beta.set_data(REF["sbn:beta"])
    return bn


@pytest.mark.parametrize("hybridize", [False, True])
def test_sync_batchnorm_one_device_matches_mxnet(hybridize):
    bn = _sync_bn()
    assert re.fullmatch(r"syncbatchnorm\d+_", bn.prefix)  # a global count per class, as in MXNet
    assert sorted("syncbatchnorm0_" + n for n in bn._reg_params) == REF["sbn:prefixed"].tolist()
    if hybridize:
        bn.hybridize()
    x = autograd.attach_grad(jnp.asarray(REF["sbn:x"]))
    with autograd.record():
        y = bn(x)
        loss = (y * jnp.asarray(REF["sbn:w"])).sum()
    loss.backward()
    onp.testing.assert_allclose(y, REF["sbn:y"], **TOL)
    onp.testing.assert_allclose(x.grad, REF["sbn:gx"], rtol=1e-4, atol=1e-5)
    for name in ("gamma", "beta"):
        onp.testing.assert_allclose(getattr(bn, name).grad(), REF[f"sbn:grad:{name}"], rtol=1e-4, atol=1e-5)
    onp.testing.assert_allclose(bn.running_mean.data(), REF["sbn:running_mean"], **TOL)
    onp.testing.assert_allclose(bn.running_var.data(), REF["sbn:running_var"], **TOL)
    onp.testing.assert_allclose(bn(jnp.asarray(REF["sbn:x"])), REF["sbn:y_infer"], **TOL)


def test_sync_batchnorm_across_devices_equals_batchnorm_on_the_whole_batch():
    rs = onp.random.RandomState(0)
    x = rs.normal(0.5, 2.0, (8, 5)).astype(onp.float32)
    y = rs.randint(0, 3, 8).astype(onp.int32)
    x[:2] += 3.0  # devices see different statistics: per-device BatchNorm would differ
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    nets = []
    for layer in (nn.BatchNorm(), cnn.SyncBatchNorm()):
        net = nn.HybridSequential()
        net.add(nn.Dense(4), layer, nn.Dense(3))
        net.initialize()
        net(jnp.asarray(x))
        nets.append(net)
    single, sync = nets
    for name, p in sync.collect_params().items():
        p.set_data(single.collect_params()[name].data())
    # one device, the whole batch, the Gluon loop
    trainer = gluon.Trainer(single.collect_params(), "sgd", {"learning_rate": 0.5})
    with autograd.record():
        out = loss(single(jnp.asarray(x)), jnp.asarray(y))
    out.backward()
    trainer.step(8)
    # four devices, two samples each, the compiled data-parallel step
    trainer = gluon.Trainer(sync.collect_params(), "sgd", {"learning_rate": 0.5})
    step = parallel.DataParallel(sync, loss, trainer, devices=jax.devices()[:4])
    step(x, y)
    step.sync()
    got = sync.collect_params().values_on()
    for name, value in single.collect_params().values_on().items():
        onp.testing.assert_allclose(got[name], value, rtol=1e-4, atol=1e-5, err_msg=name)


def test_sync_batchnorm_checks_num_devices_against_the_axis():
    bn = cnn.SyncBatchNorm(num_devices=2, in_channels=2)
    bn.initialize()
    params = bn.collect_params().values_on()

    def f(x):
        return bn.functional_call(params, x, training=True, return_state=True)[0]

    with pytest.raises(ValueError, match="num_devices=2 but the mapped axis 'batch' has 4 devices"):
        jax.pmap(f, axis_name="batch")(jnp.ones((4, 3, 2)))


@pytest.mark.parametrize("case,layer", [("ps1", lambda: cnn.PixelShuffle1D(3)),
                                        ("ps2", lambda: cnn.PixelShuffle2D((2, 3))),
                                        ("ps3", lambda: cnn.PixelShuffle3D((2, 1, 3)))])
def test_pixel_shuffle_matches_mxnet(case, layer):
    net = layer()
    x = autograd.attach_grad(jnp.asarray(REF[f"{case}:x"]))
    with autograd.record():
        y = net(x)
        loss = (y * jnp.asarray(REF[f"{case}:w"])).sum()
    loss.backward()
    onp.testing.assert_array_equal(y, REF[f"{case}:y"])
    onp.testing.assert_array_equal(x.grad, REF[f"{case}:gx"])


def test_pixel_shuffle_errors_and_repr():
    assert repr(cnn.PixelShuffle1D(2)) == "PixelShuffle1D(2)"
    assert repr(cnn.PixelShuffle2D((2, 3))) == "PixelShuffle2D((2, 3))"
    with pytest.raises(ValueError, match="the 12 channels .* do not divide by the product of the factors"):
        cnn.PixelShuffle3D(2)(np.zeros((1, 12, 2, 2, 2)))
    with pytest.raises(ValueError, match="factor=\\(2, 3\\) must be a positive int or 3 positive ints"):
        cnn.PixelShuffle3D((2, 3))


def test_sparse_embedding_is_dense_and_matches_mxnet():
    emb = cnn.SparseEmbedding(10, 3)
    assert not isinstance(emb, gluon.HybridBlock)  # a plain Block, as in MXNet
    assert ["sparseembedding0_" + n for n in emb._reg_params] == REF["semb:prefixed"].tolist()
    emb.initialize()
    emb.weight.set_data(REF["semb:weight"])
    with autograd.record():
        y = emb(jnp.asarray(REF["semb:idx"]))
        loss = (y ** 2).sum()
    loss.backward()
    onp.testing.assert_allclose(y, REF["semb:y"], **TOL)
    onp.testing.assert_allclose(emb.weight.grad(), REF["semb:grad"], **TOL)


def test_mxnet_spellings_reach_the_layers():
    import framework as mx

    assert mx.gluon.contrib.nn.Identity is nn.Identity
    assert mx.gluon.contrib.nn.basic_layers.SyncBatchNorm is cnn.SyncBatchNorm
    assert hasattr(mx.gluon.contrib, "nn") and not hasattr(mx.gluon.contrib, "ghost")
