"""Gradients a fused step does not copy out (framework/autograd/owed.py): never computed when nobody
reads them, and when read, exactly the gradients of the step's own inputs (checked against jax.grad)."""

import gc
import weakref

import jax
import numpy as onp
import pytest

from framework import _compile, autograd, gluon, init, np
from framework.autograd import owed
from framework.gluon import nn

LOSS = gluon.loss.SoftmaxCrossEntropyLoss()


def _setup(units: int = 3, seed: int = 0):
    net = nn.Sequential()
    net.add(nn.Dense(4, in_units=5, activation="relu"), nn.Dense(units, in_units=4))
    net.initialize(init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    rs = onp.random.RandomState(seed)
    batches = [(np.array(rs.uniform(-1, 1, (6, 5)).astype("float32")),
                np.array(rs.randint(0, units, 6).astype("int32"))) for _ in range(4)]
    with autograd.record():
        loss = LOSS(net(batches[0][0]), batches[0][1])
    loss.backward()
    trainer.step(6)  # the first step sets the trainer up (reading every gradient): not fused
    return net, trainer, batches


@pytest.fixture(autouse=True)
def _nothing_owed():
    owed.slot[0] = None  # another test's record
    yield
    owed.slot[0] = None


def _step(net, trainer, x, y):
    with autograd.record():
        loss = LOSS(net(x), y)
    loss.backward()
    trainer.step(x.shape[0])
    return loss


def _expected(net, params, x, y):
    """jax.grad of the summed loss at ``params``: what backward() writes."""
    def total(p):
        return LOSS.functional_call({}, net.functional_call(p, x, training=True), y).sum()
    return jax.grad(total)(params)


def _backward_programs():
    """The backward programs that return no recorded value: those computing owed gradients."""
    return [k for k in _compile._shared if k[1][0] == "backward" and k[1][3] == ()]


def test_gradients_nobody_reads_are_never_computed_and_a_read_gets_the_steps_own():
    _compile.clear_caches()
    net, trainer, batches = _setup()
    for x, y in batches[:3]:
        before = net.collect_params().values_on()
        _step(net, trainer, x, y)
    record = owed.slot[0]
    assert record is not None and {id(p) for _, p in trainer._trainable} == record.ids
    assert not _backward_programs()  # three steps, and no backward ran on its own
    want = _expected(net, before, *batches[2])
    got = {n: p.grad() for n, p in net.collect_params().items()}
    assert owed.slot[0] is None and len(_backward_programs()) == 1  # the first read computed them all
    for n in want:
        onp.testing.assert_allclose(onp.asarray(got[n]), onp.asarray(want[n]), rtol=1e-5, atol=1e-6,
                                    err_msg=n)
    # somebody reads this trainer's gradients: its steps return them from now on, nothing is owed
    before = net.collect_params().values_on()
    _step(net, trainer, *batches[3])
    assert owed.slot[0] is None and trainer.__dict__["_fused_returns_grads"]
    want = _expected(net, before, *batches[3])
    for n, p in net.collect_params().items():
        onp.testing.assert_allclose(onp.asarray(p.grad()), onp.asarray(want[n]), rtol=1e-5, atol=1e-6)


def test_a_later_backward_replaces_the_owed_gradients():
    net, trainer, batches = _setup()
    _step(net, trainer, *batches[0])
    assert owed.slot[0] is not None
    _compile.clear_caches()
    x, y = batches[1]
    params = net.collect_params().values_on()
    with autograd.record():
        loss = LOSS(net(x), y)
    loss.backward()
    want = _expected(net, params, x, y)
    for n, p in net.collect_params().items():  # e.g. clipping before the step: the new gradients
        onp.testing.assert_allclose(onp.asarray(p.grad()), onp.asarray(want[n]), rtol=1e-5, atol=1e-6)
    assert owed.slot[0] is None and not _backward_programs()  # the replaced ones were never computed


def test_other_parameters_are_read_and_written_without_computing_the_owed_ones():
    a, ta, batches = _setup()
    b, tb, _ = _setup(seed=1)
    params = a.collect_params().values_on()
    _step(a, ta, *batches[0])
    record = owed.slot[0]
    b.collect_params().zero_grad()
    assert all(float(abs(p.grad()).sum()) == 0 for p in b.collect_params().values())
    assert owed.slot[0] is record  # a's gradients are still owed, not computed
    _step(b, tb, *batches[1])  # b's step owes b's gradients: a's must be computed first
    assert owed.slot[0].ids == {id(p) for _, p in tb._trainable}
    want = _expected(a, params, *batches[0])
    for n, p in a.collect_params().items():
        onp.testing.assert_allclose(onp.asarray(p.grad()), onp.asarray(want[n]), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("change", ["zero_grad", "grad_req"])
def test_writing_an_owed_gradient_wins(change):
    net, trainer, batches = _setup()
    _step(net, trainer, *batches[0])
    p = net[0].weight
    if change == "zero_grad":
        net.collect_params().zero_grad()
    else:
        p.grad_req = "add"  # a fresh, zero gradient buffer
    assert owed.slot[0] is None
    assert float(abs(p.grad()).sum()) == 0


def test_the_record_keeps_its_blocks_until_settled():
    net, trainer, batches = _setup()
    params = net.collect_params().values_on()
    _step(net, trainer, *batches[0])
    weight = net[1].weight
    ref = weakref.ref(net)
    del net
    gc.collect()
    assert ref() is not None  # the gradients can still be computed: their description needs the net
    want = _expected(ref(), params, *batches[0])["1.weight"]
    onp.testing.assert_allclose(onp.asarray(weight.grad()), onp.asarray(want), rtol=1e-5, atol=1e-6)
    gc.collect()
    assert ref() is None


def test_a_trained_net_dies_with_its_last_reference_once_nothing_is_owed():
    gc.collect()
    gc.disable()  # no collector: a reference cycle through the net would keep it (and its arrays)
    try:
        net, trainer, batches = _setup()
        _step(net, trainer, *batches[1])
        ref = weakref.ref(net)
        net[0].weight.grad()  # read: nothing is owed any more
        del net, trainer
        assert ref() is None
    finally:
        gc.enable()
