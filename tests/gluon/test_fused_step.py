"""Trainer.step fused with the deferred backward in its Parameters' gradient slots
(framework/gluon/_fused_step.py): the same numbers as computing the gradients first, and every read
between backward and step sees the backward's results."""

import numpy as onp
import pytest

from framework import _compile, autograd, gluon, init, np
from framework.gluon import nn


def _net():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, in_channels=1), nn.BatchNorm(in_channels=4), nn.Activation("relu"),
            nn.MaxPool2D(2, 2), nn.Dense(3, in_units=4 * 3 * 3))
    net.initialize(init.Xavier())
    return net


def _fused(trainer):
    return "fused_step" in _compile.program_names(trainer)


def _step(net, trainer, loss_fn, rs, fused=True):
    x = np.array(rs.uniform(-1, 1, (5, 1, 8, 8)).astype("float32"))
    y = np.array(rs.randint(0, 3, 5).astype("int32"))
    with autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    if not fused:
        net[0].weight.grad()  # a read computes the gradients: the step then runs alone
    trainer.step(5)
    return loss


def _train(fused: bool, optimizer: str, params: dict, steps: int = 4, **options):
    net = _net()
    for name, p in net.collect_params().items():
        p.set_data(params[name])
    trainer = gluon.Trainer(net.collect_params(), optimizer, {"learning_rate": 0.1, **options})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rs = onp.random.RandomState(0)
    losses = [onp.asarray(_step(net, trainer, loss_fn, rs, fused)) for _ in range(steps)]
    state = {n: onp.asarray(p.data()) for n, p in net.collect_params().items()}
    grads = {n: onp.asarray(p.grad()) for n, p in net.collect_params().items() if p.grad_req != "null"}
    return losses, state, grads, _fused(trainer)


@pytest.mark.parametrize("optimizer,options", [("sgd", {"momentum": 0.9}), ("adam", {}),
                                               ("sgd", {"wd": 0.01, "clip_gradient": 0.5})])
def test_fused_step_equals_backward_then_step(optimizer, options):
    params = {n: p.data() for n, p in _net().collect_params().items()}
    l0, s0, g0, fused0 = _train(False, optimizer, params, **options)
    l1, s1, g1, fused1 = _train(True, optimizer, params, **options)
    assert not fused0 and fused1  # the path each run took
    for a, b in zip(l0, l1, strict=True):
        onp.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)
    assert s0.keys() == s1.keys() and g0.keys() == g1.keys()
    for k in s0:  # weights and BatchNorm's running statistics
        onp.testing.assert_allclose(s1[k], s0[k], rtol=1e-5, atol=1e-7, err_msg=k)
    for k in g0:  # gradients stay readable after the step, as in MXNet
        onp.testing.assert_allclose(g1[k], g0[k], rtol=1e-5, atol=1e-7, err_msg=k)


def test_reads_between_backward_and_step_see_the_backward():
    net = _net()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    x = np.ones((2, 1, 8, 8))
    bn = net[1]
    before = onp.asarray(bn.running_mean.data())
    with autograd.record():
        loss = net(x).sum()
    loss.backward()
    assert not onp.array_equal(onp.asarray(bn.running_mean.data()), before)  # statistics committed
    grad = onp.asarray(net[4].weight.grad())
    assert onp.abs(grad).sum() > 0
    w = onp.asarray(net[4].weight.data())
    trainer.step(1)  # the unfused path, with the gradients already computed
    onp.testing.assert_allclose(onp.asarray(net[4].weight.data()), w - 0.1 * grad, rtol=1e-6, atol=1e-7)
    assert not _fused(trainer)


def test_a_recorded_value_read_before_the_step_runs_the_backward():
    net = nn.Dense(2, in_units=3)
    net.initialize()
    for _ in range(2):
        with autograd.record():
            out = net(np.ones((4, 3)))
            loss = (out ** 2).sum()
        loss.backward()
        onp.testing.assert_allclose(float(loss), float(onp.sum(onp.asarray(out) ** 2)), rtol=1e-6)
        expect = 2 * onp.asarray(out).T @ onp.ones((4, 3), onp.float32)
        onp.testing.assert_allclose(onp.asarray(net.weight.grad()), expect, rtol=1e-5)


def test_parameters_changed_after_recording_are_updated_from_their_new_values():
    """The backward differentiates at the recorded values; the step updates the values the Parameters
    hold at step time (here set between record and backward), fused or not."""
    out = []
    for fused in (False, True):
        net = nn.Dense(2, in_units=3, use_bias=False)
        net.initialize(init.One())
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
        trainer.step(4, ignore_stale_grad=True)  # (sets the optimizer state up; changes nothing)
        for _ in range(2):  # the second time, the graph's description repeats (a fusable step)
            net.weight.set_data(np.ones((2, 3)))
            with autograd.record():
                loss = (net(np.ones((4, 3))) ** 2).sum()
            net.weight.set_data(np.full((2, 3), 2.0))
            loss.backward()
            if not fused:
                net.weight.grad()
            trainer.step(4)
        assert _fused(trainer) is fused
        out.append(onp.asarray(net.weight.data()))
    grad = 4 * 2 * 3 * onp.ones((2, 3), onp.float32)  # 4 rows of d(out^2)/dout = 2 * 3 at weight ones
    onp.testing.assert_allclose(out[0], 2.0 - 0.5 * grad / 4, rtol=1e-6)
    onp.testing.assert_allclose(out[1], out[0], rtol=1e-6)


def test_a_device_named_twice_fuses_both_slices_and_adds_their_gradients():
    """initialize(ctx=[d, d]): the gradients of the two batch slices add up (as two devices' would), in
    one fused program with both backwards."""
    import jax

    dev = jax.devices()[0]
    rs = onp.random.RandomState(1)
    xs = [np.array(rs.uniform(-1, 1, (3, 5)).astype("float32")) for _ in range(2)]
    results = []
    for twice in (True, False):
        net = nn.Dense(2, in_units=5)
        net.initialize(init.One(), ctx=[dev, dev] if twice else dev)
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
        for _ in range(3):
            if twice:
                with autograd.record():
                    losses = [(net(x) ** 2).sum() for x in xs]
                for loss in losses:
                    loss.backward()
            else:
                with autograd.record():
                    loss = (net(np.concatenate(xs)) ** 2).sum()
                loss.backward()
            trainer.step(6)
        results.append((onp.asarray(net.weight.data()), onp.asarray(net.weight.grad()), _fused(trainer)))
    (w2, g2, fused2), (w1, g1, _) = results
    assert fused2
    onp.testing.assert_allclose(w2, w1, rtol=1e-5)
    onp.testing.assert_allclose(g2, g1, rtol=1e-5)


def _deferred_lenet():
    net = nn.Sequential()  # shapes unknown until the first batch, as most user code leaves them
    net.add(nn.Conv2D(4, 3, activation="sigmoid"), nn.AvgPool2D(2, 2), nn.Dense(8, activation="relu"),
            nn.Dense(3))
    net.initialize(init.Xavier())
    return net


def _first_steps(net, steps):
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rs = onp.random.RandomState(1)
    before = _compile.program_names().count("backward")
    for _ in range(steps):
        _step(net, trainer, loss_fn, rs)
    return trainer, _compile.program_names().count("backward") - before


def test_the_first_step_is_already_one_fused_program():
    # The Trainer's first step creates its optimizer state without computing the waiting backward
    # alone (a whole-graph backward program, then an update program, then the fused one at step two).
    trainer, backwards = _first_steps(_deferred_lenet(), 1)
    assert _compile.program_names(trainer).count("fused_step") == 1
    assert backwards == 0


def test_a_stack_with_deferred_shapes_records_its_first_call_as_every_later_one():
    # The first call of a Sequential of built-in layers fixes their shapes abstractly and records the
    # stack as one node, as later calls do: one whole-graph program serves the first step and the rest.
    net = _deferred_lenet()
    trainer, backwards = _first_steps(net, 3)
    assert _compile.program_names(trainer).count("fused_step") == 1 and backwards == 0
    assert [p.shape for p in net.collect_params().values()][:2] == [(4, 1, 3, 3), (4,)]


class _Branchy(nn.Block):
    """``c`` is read by a batch of three rows only: on a device named twice with five rows, by the first
    slice's graph and not the second's."""

    def __init__(self):
        super().__init__()
        self.a = nn.Dense(2, in_units=4)
        self.c = nn.Dense(2, in_units=4)

    def forward(self, x):
        return self.a(x) + self.c(x) if x.shape[0] == 3 else self.a(x)


def _branchy_steps(x, steps, read_first):
    import jax

    dev = jax.devices()[0]
    net = _Branchy()
    net.initialize(init.One(), ctx=[dev, dev])
    start = {n: onp.asarray(p.data()) for n, p in net.collect_params().items()}
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    for _ in range(steps):
        xs = gluon.utils.split_and_load(x, [dev, dev], even_split=False)  # rows 3 and 2
        with autograd.record():
            losses = [(net(s) ** 2).sum() for s in xs]
        for loss in losses:
            loss.backward()
        if read_first:
            net.a.weight.grad()
        trainer.step(5)
    return net, start


def test_a_parameter_only_one_slice_reads_gets_that_slices_gradient():
    """A Parameter read by one of the slices of a device named twice has one backward in its slot where
    the others have two: the step cannot take both backwards' gradients for it; it computes them (the
    gradient of the one slice) and steps, as when a gradient is read first."""
    import jax

    x = onp.random.RandomState(2).uniform(-1, 1, (5, 4)).astype("float32")
    stepped, read = (_branchy_steps(x, 3, read_first)[0].collect_params() for read_first in (False, True))
    for name, p in stepped.items():
        onp.testing.assert_allclose(onp.asarray(p.data()), onp.asarray(read[name].data()), rtol=1e-6)
        onp.testing.assert_allclose(onp.asarray(p.grad()), onp.asarray(read[name].grad()), rtol=1e-6)

    def first_slice(c_w, c_b, a_w, a_b):
        rows = x[:3]
        return (((rows @ a_w.T + a_b) + (rows @ c_w.T + c_b)) ** 2).sum()

    net, start = _branchy_steps(x, 1, read_first=False)
    expected = jax.grad(first_slice, argnums=(0, 1))(*(start[n] for n in ("c.weight", "c.bias", "a.weight",
                                                                           "a.bias")))
    onp.testing.assert_allclose(onp.asarray(net.c.weight.grad()), expected[0], rtol=1e-5)
    onp.testing.assert_allclose(onp.asarray(net.c.bias.grad()), expected[1], rtol=1e-5)
