"""Gluon semantics checked against real MXNet (issue 18): each expectation below was observed with
MXNet 1.9.1 (``/tmp/mx`` side venv) or is MXNet 2.0's documented behaviour where the two differ."""

from __future__ import annotations

import os
import tempfile

import numpy as onp
import pytest

from framework import gluon, initializer, np, npx, serialization
from framework.gluon import nn


def test_add_after_hybridize_recompiles_the_tree():
    # MXNet 1.9.1: (2, 30) -- registering a child clears the cached graph
    net = nn.HybridSequential()
    net.add(nn.Dense(10, flatten=False))
    net.hybridize()
    net.initialize()
    assert net(np.ones((2, 3, 5))).shape == (2, 3, 10)
    net.add(nn.Flatten())
    assert net(np.ones((2, 3, 5))).shape == (2, 30)


class _Shared(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense1 = nn.Dense(5, in_units=2)
        self.dense2 = nn.Dense(5, in_units=2).share_parameters(self.dense1.collect_params())
        self.dense3 = nn.Dense(5, in_units=5)

    def forward(self, x):
        return self.dense3(self.dense1(x) + self.dense2(x))


def test_collect_params_lists_every_name_of_a_shared_parameter():
    net = _Shared()
    names = list(net.collect_params())
    # MXNet 2.0 lists all three blocks' names (1.9.1 has no share_parameters)
    assert names == ["dense1.weight", "dense1.bias", "dense2.weight", "dense2.bias",
                     "dense3.weight", "dense3.bias"]
    assert net.collect_params()["dense2.weight"] is net.collect_params()["dense1.weight"]
    net.initialize()  # once per Parameter: no "already initialized" warning for the alias
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    assert len(trainer._params) == 4


def test_shared_parameters_save_and_load_like_mxnet():
    net = _Shared()
    net.initialize()
    net(np.ones((1, 2)))
    with tempfile.TemporaryDirectory() as tmp:
        full, dedup = os.path.join(tmp, "full.params"), os.path.join(tmp, "dedup.params")
        net.save_parameters(full, deduplicate=False)
        net.save_parameters(dedup, deduplicate=True)
        # MXNet 1.9.1 wrote these very name lists for the same network (params= sharing)
        assert list(serialization.load_numpy(full)) == [
            "dense1.weight", "dense1.bias", "dense2.weight", "dense2.bias", "dense3.weight", "dense3.bias"]
        assert list(serialization.load_numpy(dedup)) == [
            "dense2.weight", "dense2.bias", "dense3.weight", "dense3.bias"]
        other = _Shared()
        other.load_parameters(full)
        onp.testing.assert_array_equal(other.dense2.weight.data(), net.dense1.weight.data())


@pytest.mark.parametrize("init", [None, initializer.Uniform()])
def test_parameter_with_any_name_takes_the_default_initializer(init):
    class W(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.w = gluon.Parameter("w", shape=(30, 40))

        def forward(self, x):
            return x + self.w.data()

    net = W()
    net.initialize(init)
    w = onp.asarray(net.w.data())
    # MXNet 1.9.1: Uniform(0.07) by its weight rule whatever the name (std 0.07/sqrt(3) = 0.0404)
    assert onp.abs(w).max() <= 0.07 and 0.035 < w.std() < 0.046


def test_numpy_functions_take_generators():
    # MXNet 1.9.1: (6,)
    assert np.concatenate(np.ones(2) * i for i in range(3)).shape == (6,)
    assert np.stack(np.ones(2) * i for i in range(3)).shape == (3, 2)
    from framework import autograd

    x = gluon.Parameter("x", shape=(2,))
    x.initialize()
    with autograd.record():
        y = np.concatenate(x.data() * i for i in range(3))
    assert y.shape == (6,)


def test_share_parameters_none_returns_the_block():
    dense = nn.Dense(3)
    assert dense.share_parameters(None) is dense


def test_forward_hooks_return_handles_that_detach():
    net = nn.Dense(2)
    net.initialize()
    calls = []
    pre = net.register_forward_pre_hook(lambda b, x: calls.append("pre"))
    post = net.register_forward_hook(lambda b, x, y: calls.append("post"))
    net(np.ones((1, 3)))
    pre.detach()
    net(np.ones((1, 3)))
    with post:
        pass
    net(np.ones((1, 3)))
    assert calls == ["pre", "post", "post"]


def test_registered_attribute_keeps_its_kind():
    b = gluon.Block()
    b.a = None
    b.a = 1  # plain attributes may change type
    b.b = gluon.Block()
    b.b = nn.Dense(2)  # a Block may be replaced by a Block
    # MXNet 1.9.1: TypeError "Changing attribute type for b from Block to tuple is not allowed"
    with pytest.raises(TypeError, match="Changing attribute type for b from Dense to tuple"):
        b.b = (nn.Dense(2), nn.Dense(3))
    b.p = gluon.Parameter("p", shape=(1,))
    with pytest.raises(TypeError, match="Changing attribute type for p from Parameter to NoneType"):
        b.p = None


@pytest.mark.parametrize("in_units", [0, 4], ids=["deferred", "known"])
@pytest.mark.parametrize("hybridize", [False, True])
def test_initialize_on_no_device_is_accepted_and_the_first_use_says_where(in_units, hybridize):
    # MXNet 1.9.1: initialize(ctx=[]) returns (d2l's try_all_gpus() is [] without a GPU); the forward
    # raises "Parameter 'dense0_weight' was not initialized on context cpu(0). It was only initialized
    # on []."; reset_ctx then raises "Cannot reset context ... because it has not been initialized."
    net = nn.HybridSequential()
    net.add(nn.Dense(3, in_units=in_units))
    net.initialize(ctx=[])
    if hybridize:
        net.hybridize()
    with pytest.raises(RuntimeError, match=r"was not initialized on context cpu:0\. It was only initialized "
                                           r"on \[\]"):
        net(np.ones((2, 4)))
    assert net[0].weight.list_ctx() == []
    if in_units:
        with pytest.raises(RuntimeError, match=r"only initialized on \[\]"):
            net[0].weight.data()
        with pytest.raises(ValueError, match="because it has not been initialized"):
            net.collect_params().reset_ctx(npx.cpu(0))


def test_reset_ctx_to_no_device_is_accepted():
    # MXNet 1.9.1: reset_ctx([]) on an initialized Parameter leaves it on no device
    net = nn.Dense(3, in_units=2)
    net.initialize()
    net.collect_params().reset_ctx([])
    assert net.weight.list_ctx() == []
