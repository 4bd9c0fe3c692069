"""MXNet's imperative semantics of Blocks: a plain Block's forward, and a user HybridBlock's before
``hybridize()``, run as Python on concrete arrays from the first (shape-fixing) call on; a user's
subclass follows Python's own keyword rules. Each behaviour was measured in MXNet 1.9.1 (the values
in the comments are its output)."""

from __future__ import annotations

import jax
import numpy as onp
import pytest

from framework import autograd, gluon, init, np, npx
from framework.base import UnknownArgumentError
from framework.gluon import nn


# ------------------------------------------------------------------ user keywords (MXNet 1.9.1: 1, 1b, 1c)
def test_user_init_may_take_and_drop_a_keyword():
    class Bottleneck(gluon.HybridBlock):  # GluonCV's pattern: **kwargs swallows last_gamma
        def __init__(self, units, **kwargs):
            super().__init__()
            self.dense = nn.Dense(units)

        def forward(self, x):
            return self.dense(x)

    block = Bottleneck(3, last_gamma=True, use_se=False)
    block.initialize()
    assert block(np.ones((2, 4))).shape == (2, 3)


def test_user_init_follows_pythons_rules():
    class Fixed(gluon.Block):
        def __init__(self, units):
            super().__init__()

    with pytest.raises(TypeError, match=r"__init__\(\) got an unexpected keyword argument 'foo'"):
        Fixed(3, foo=1)  # Python's own error, as MXNet's

    class PassesOn(gluon.HybridBlock):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)

    with pytest.raises(TypeError, match=r"Block.__init__\(\) got an unexpected keyword argument "
                                        r"'last_gamma'"):
        PassesOn(3, last_gamma=True)  # MXNet: HybridBlock.__init__() got an unexpected keyword ...
    assert PassesOn(3, prefix="p_").prefix == "p_"


def test_framework_constructors_stay_strict():
    with pytest.raises(UnknownArgumentError, match="Dense got an unexpected keyword argument 'foo'"):
        nn.Dense(3, foo=1)


# ------------------------------------------------------------------ imperative forward at deferred init
class Halving(gluon.Block):
    """Python control flow on values, host reads inside forward, a child of deferred shape."""

    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, weight_initializer=init.One(), bias_initializer=init.Zero())
        self.seen: list = []

    def forward(self, x):
        x = self.dense(x)
        n = 0
        while float((x * x).sum()) > 1:  # MXNet: while x.norm().asscalar() > 1
            x = x / 2
            n += 1
        self.seen.append((n, npx.asscalar(x.sum()), npx.asnumpy(x).shape, type(x).__name__))
        return x * 1


@pytest.mark.parametrize("recording", [False, True])
def test_plain_block_runs_python_on_concrete_arrays_at_deferred_init(recording):
    net = Halving()
    net.initialize()
    x = np.ones((2, 5))
    if recording:
        with autograd.record():
            out = net(x)
            loss = out.sum()
        loss.backward()
        # d loss / d W = 2 * 2 ** -n for every entry (out = x W^T / 2**n, x is ones); MXNet: 0.125
        onp.testing.assert_allclose(net.dense.weight.grad(), onp.full((4, 5), 0.125), rtol=1e-6)
    else:
        out = net(x)
    # (x W^T) is 5 everywhere: sum of squares 200, below 1 after 4 halvings (MXNet 1.9.1: n 4, sum 2.5)
    assert len(net.seen) == 1 and net.seen[0][0] == 4
    assert net.seen[0][1] == pytest.approx(2.5) and net.seen[0][2] == (2, 4)
    onp.testing.assert_allclose(out, onp.full((2, 4), 0.3125), rtol=1e-6)
    assert net.dense.weight.shape == (4, 5)


def test_user_hybrid_block_is_imperative_until_hybridized():
    class Gate(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3)
            self.calls: list = []

        def forward(self, x):
            h = self.dense(x)
            self.calls.append(isinstance(h, jax.core.Tracer))
            return h if float(h.sum()) > 0 else -h

    net = Gate()
    net.initialize()
    x = np.ones((2, 5))
    first = net(x)
    with autograd.record():
        loss = net(x).sum()
    loss.backward()
    assert net.calls == [False, False]  # never traced: the first call included
    assert float(first.sum()) >= 0 and net.dense.weight.grad().shape == (3, 5)


def test_parameter_data_inside_forward_after_the_child_fixed_its_shape():
    class Reads(gluon.Block):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3)

        def forward(self, x):
            y = self.dense(x)
            w = self.dense.weight.data(npx.context_of(x))  # d2l: .data(ctx=x.ctx)
            return y, npx.asnumpy(w)

    net = Reads()
    net.initialize()
    y, w = net(np.ones((2, 7)))
    assert w.shape == (3, 7) and y.shape == (2, 3)


def test_builtin_layers_fix_their_shapes_from_the_concrete_input_and_compile():
    net = nn.Sequential()
    net.add(nn.Dense(8, activation="relu"), nn.Dense(2))
    net.initialize()
    x = np.ones((4, 6))
    first = net(x)  # layer by layer, each layer fixing its shape
    assert [p.shape for p in net.collect_params().values()] == [(8, 6), (8,), (2, 8), (2,)]
    onp.testing.assert_allclose(net(x), first, rtol=1e-6)  # then as one program: same numbers


def test_attach_grad_on_an_attribute_set_in_init():
    class Scaled(gluon.Block):
        def __init__(self):
            super().__init__()
            self.w = autograd.attach_grad(np.ones((5, 2)))
            self.dense = nn.Dense(2, weight_initializer=init.One())

        def forward(self, x):
            return self.dense(np.dot(x, self.w))

    net = Scaled()
    net.initialize()
    with autograd.record():
        loss = net(np.ones((3, 5))).sum()
    loss.backward()
    # d/dw of sum(ones(3,5) @ w @ ones(2,2)^T + b) = 3 * 2 in every entry (MXNet: same)
    onp.testing.assert_allclose(net.w.grad, onp.full((5, 2), 6.0))
