"""MXNet 1.x Gluon Blocks: name scopes, prefixes, ``params.get``/``get_constant``, sharing with
``params=``, ``hybrid_forward(F, x, **params)`` eager / hybridized / recorded / in the compiled
data-parallel step, and files that MXNet 1.9.1 made or loads (``tools/mxnet_reference/gen_gluon_1x.py``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

import framework as mx
from framework import autograd, gluon, parallel

ROOT = Path(__file__).resolve().parents[2]
REF = ROOT / "tests" / "reference" / "gluon_1x"
MXNET = os.environ.get("MXNET_PYTHON", "/tmp/mx/bin/python")
# run in the MXNet venv: the generator's Net loads a file saved here and writes its output
LOAD_SCRIPT = """
import sys, numpy as np, mxnet as mx
sys.path.insert(0, sys.argv[1])
from gen_gluon_1x import Net
net = Net(prefix="net0_")
net.load_parameters(sys.argv[2])
np.save(sys.argv[4], net(mx.nd.array(np.load(sys.argv[3]))).asnumpy())
"""
with onp.load(REF / "io.npz") as _f:
    IO = {k: _f[k] for k in _f.files}


class Net(gluon.HybridBlock):  # the same source as the MXNet generator's
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.fc1_weight = self.params.get("fc1_weight", shape=(8, 4))
            self.fc1_bias = self.params.get("fc1_bias", shape=(8,), init="zeros")
            self.out = gluon.nn.Dense(3, in_units=8)

    def hybrid_forward(self, F, x, fc1_weight, fc1_bias):
        h = F.Activation(F.FullyConnected(x, fc1_weight, fc1_bias, num_hidden=8), act_type="tanh")
        return self.out(h)


def loaded_net(hybridize: bool = False) -> Net:
    net = Net(prefix="net0_")
    net.load_parameters(str(REF / "net.params"))
    if hybridize:
        net.hybridize()
    return net


def test_names_follow_mxnet_1x():
    net = Net(prefix="net0_")
    assert (net.prefix, net.name, net.out.prefix) == ("net0_", "net0", "net0_dense0_")
    assert net.fc1_weight.name == "net0_fc1_weight"
    assert sorted(net.collect_params()) == sorted(IO["structural_names"].tolist())
    assert sorted(net.collect_params(".*weight")) == ["fc1_weight", "out.weight"]
    a, b = gluon.nn.Dense(2), gluon.nn.Dense(2)
    assert int(b.name[len("dense"):]) == int(a.name[len("dense"):]) + 1  # a global count per class


@pytest.mark.parametrize("hybridize", [False, True])
def test_outputs_and_gradients_match_mxnet(hybridize):
    net = loaded_net(hybridize)
    x = jnp.asarray(IO["x"])
    onp.testing.assert_allclose(net(x), IO["y"], rtol=1e-5, atol=1e-6)
    with autograd.record():
        loss = (net(x) ** 2).sum()
    loss.backward()
    prefixed = {"fc1_weight": "net0_fc1_weight", "fc1_bias": "net0_fc1_bias",
                "out.weight": "net0_dense0_weight", "out.bias": "net0_dense0_bias"}
    for name, p in net.collect_params().items():
        onp.testing.assert_allclose(p.grad(), IO[f"grad:{prefixed[name]}"], rtol=1e-5, atol=1e-6,
                                    err_msg=name)
    # and jax.grad of the pure function agrees
    params = net.collect_params().values_on()
    g = jax.grad(lambda p: (net.functional_call(p, x) ** 2).sum())(params)
    onp.testing.assert_allclose(g["fc1_weight"], net.fc1_weight.grad(), rtol=1e-5, atol=1e-6)


def test_prefixed_file_from_mxnet_loads():
    net = Net(prefix="net0_")
    net.load_parameters(str(REF / "net_prefixed.params"))
    onp.testing.assert_allclose(net(jnp.asarray(IO["x"])), IO["y"], rtol=1e-5, atol=1e-6)


def test_trains_with_trainer_and_hybridizes_without_recompiles():
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)
    net = Net()
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    rs = onp.random.RandomState(0)
    x = jnp.asarray(rs.uniform(-1, 1, (16, 4)), jnp.float32)
    y = jnp.asarray(rs.randint(0, 3, 16), jnp.float32)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for step in range(8):
        if step == 3:
            before = len(compiles)
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(16)
        losses.append(float(loss.mean()))
    assert len(compiles) == before, "steady-state steps recompiled"
    assert losses[-1] < losses[0]


def test_runs_in_the_compiled_data_parallel_step():
    devices = jax.devices()[:2]
    nets = []
    for n_dev in (1, 2):
        net = loaded_net()
        net.collect_params().reset_ctx(devices[:n_dev])
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
        step = parallel.DataParallel(net, gluon.loss.L2Loss(), trainer, devices=devices[:n_dev])
        x = jnp.asarray(IO["x"][:4])
        for _ in range(3):
            step(x, jnp.zeros((4, 3)), batch_size=4)
        step.sync()
        nets.append(net)
    onp.testing.assert_allclose(nets[0].fc1_weight.data(devices[0]), nets[1].fc1_weight.data(devices[0]),
                                rtol=1e-5, atol=1e-6)
    assert not onp.allclose(nets[0].fc1_weight.data(devices[0]), loaded_net().fc1_weight.data())


def test_sharing_with_params_and_constants():
    a = Net(prefix="a_")
    b = Net(prefix="a_", params=a.collect_params())
    assert b.out.weight is a.out.weight and b.fc1_weight is a.fc1_weight
    c = gluon.nn.Dense(3, in_units=8, params=a.out.params)
    assert c.weight is a.out.weight
    shared = gluon.nn.Dense(3, in_units=8).share_parameters(a.out.collect_params())
    assert shared.weight is a.out.weight

    class WithConst(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.k = self.params.get_constant("k", [1.0, 2.0])

        def hybrid_forward(self, F, x, k):
            return F.broadcast_mul(x, k)

    net = WithConst()
    net.initialize()
    assert net(jnp.ones((1, 2))).tolist() == [[1.0, 2.0]] and net.k.grad_req == "null"
    with pytest.raises(KeyError, match="specify value"):
        net.params.get_constant("missing")
    with pytest.raises(AssertionError, match="desired attribute does not match"):
        a.params.get("fc1_weight", shape=(2, 2))


def test_block_api_members():
    net = Net()
    net.initialize()
    net.collect_params().setattr("grad_req", "add")
    assert net.fc1_weight.grad_req == "add"
    net.collect_params().zero_grad()
    net.collect_params().reset_ctx([mx.cpu(1)])
    assert net.fc1_weight.list_ctx() == [mx.cpu(1)]
    assert gluon.nn.Block is gluon.Block and gluon.nn.HybridBlock is gluon.HybridBlock
    assert gluon.nn.SymbolBlock is gluon.SymbolBlock


@pytest.mark.skipif(not os.path.exists(MXNET), reason="the MXNet 1.9.1 side venv is not installed here")
def test_saved_file_loads_in_mxnet(tmp_path):
    net = Net(prefix="net0_")
    net.initialize(mx.init.Normal(0.3))
    f, xf, yf = tmp_path / "ours.params", tmp_path / "x.npy", tmp_path / "y.npy"
    net.save_parameters(str(f))
    onp.save(xf, IO["x"])
    subprocess.run([MXNET, "-c", LOAD_SCRIPT, str(ROOT / "tools" / "mxnet_reference"), str(f), str(xf),
                    str(yf)], check=True, timeout=300, capture_output=True)
    onp.testing.assert_allclose(onp.load(yf), net(jnp.asarray(IO["x"])), rtol=1e-5, atol=1e-6)
