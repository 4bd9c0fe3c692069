"""Laziness held in values (framework/autograd/lazy.py, pending.py): a backward leaves deferred results in
the slots it writes; a read computes them; gradients a fused step did not return are computed from the
step's own inputs only when read (checked against jax.grad); nothing is process-global, so two threads
training two nets give the results of training them one after the other."""

import gc
import threading
import weakref

import jax
import numpy as onp
import pytest

import framework
from framework import _compile, autograd, gluon, init, np
from framework.gluon import nn

LOSS = gluon.loss.SoftmaxCrossEntropyLoss()


def _setup(units: int = 3, seed: int = 0):
    net = nn.Sequential()
    net.add(nn.Dense(4, in_units=5, activation="relu"), nn.Dense(units, in_units=4))
    net.initialize(init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    rs = onp.random.RandomState(seed)
    batches = [(np.array(rs.uniform(-1, 1, (6, 5)).astype("float32")),
                np.array(rs.randint(0, units, 6).astype("int32"))) for _ in range(5)]
    return net, trainer, batches


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


def _late_backwards():
    """Programs compiled for gradients a fused step left deferred."""
    return _compile.program_names().count("gradients")


def test_gradients_nobody_reads_are_never_computed_and_a_read_gets_the_steps_own():
    framework.clear_caches()
    net, trainer, batches = _setup()
    for x, y in batches[:4]:
        before = net.collect_params().values_on()
        _step(net, trainer, x, y)
    assert "fused_step" in _compile.program_names(trainer) and _late_backwards() == 0
    want = _expected(net, before, *batches[3])
    got = {n: p.grad() for n, p in net.collect_params().items()}
    assert _late_backwards() == 1  # the first read computed them all, with one program
    for n in want:
        onp.testing.assert_allclose(onp.asarray(got[n]), onp.asarray(want[n]), rtol=1e-5, atol=1e-6,
                                    err_msg=n)
    # somebody reads this trainer's gradients: its steps return them from now on
    before = net.collect_params().values_on()
    _step(net, trainer, *batches[4])
    want = _expected(net, before, *batches[4])
    for n, p in net.collect_params().items():
        onp.testing.assert_allclose(onp.asarray(p.grad()), onp.asarray(want[n]), rtol=1e-5, atol=1e-6)
    assert _late_backwards() == 1


def test_a_later_backward_replaces_the_deferred_gradients():
    framework.clear_caches()
    net, trainer, batches = _setup()
    for x, y in batches[:3]:
        _step(net, trainer, x, y)
    x, y = batches[3]
    params = net.collect_params().values_on()
    with autograd.record():
        loss = LOSS(net(x), y)
    loss.backward()
    want = _expected(net, params, x, y)
    for n, p in net.collect_params().items():  # e.g. clipping before the step: the new gradients
        onp.testing.assert_allclose(onp.asarray(p.grad()), onp.asarray(want[n]), rtol=1e-5, atol=1e-6)
    assert _late_backwards() == 0  # the replaced ones were never computed


@pytest.mark.parametrize("change", ["zero_grad", "grad_req"])
def test_writing_a_deferred_gradient_wins(change):
    framework.clear_caches()
    net, trainer, batches = _setup()
    for x, y in batches[:3]:
        _step(net, trainer, x, y)
    p = net[0].weight
    if change == "zero_grad":
        net.collect_params().zero_grad()
    else:
        p.grad_req = "add"  # a fresh, zero gradient buffer
    assert float(abs(p.grad()).sum()) == 0
    assert _late_backwards() == 0  # the deferred gradients were replaced, never computed


def test_a_trained_net_dies_with_its_last_reference_once_its_gradients_are_read():
    gc.collect()
    net, trainer, batches = _setup()
    for x, y in batches[:3]:
        _step(net, trainer, x, y)
    for p in net.collect_params().values():
        p.grad()  # read: nothing refers to the step's inputs any more
    ref = weakref.ref(net)
    gc.disable()  # no collector: a reference cycle through the net would keep it (and its arrays)
    try:
        del net, trainer, p
        assert ref() is None
    finally:
        gc.enable()


def _train(net, trainer, batches, steps, barrier=None):
    for i in range(steps):
        if barrier is not None:
            barrier.wait()  # interleave the two threads step by step
        x, y = batches[i % len(batches)]
        _step(net, trainer, x, y)
    return {n: onp.asarray(p.data()) for n, p in net.collect_params().items()}


def test_two_threads_training_two_nets_give_the_results_of_training_them_one_after_the_other():
    steps = 6
    params = []
    for seed in (0, 1):
        net, _, _ = _setup(seed=seed)
        params.append({n: onp.asarray(v) for n, v in net.collect_params().values_on().items()})

    def fresh(seed):
        net, trainer, batches = _setup(seed=seed)
        for name, p in net.collect_params().items():
            p.set_data(params[seed][name])
        return net, trainer, batches

    alone = [_train(*fresh(seed), steps) for seed in (0, 1)]
    runs = [fresh(seed) for seed in (0, 1)]
    barrier = threading.Barrier(2)
    results: list = [None, None]
    errors: list = []

    def work(k):
        try:
            results[k] = _train(*runs[k], steps, barrier)
        except BaseException as err:  # noqa: BLE001 - reported by the main thread
            errors.append(err)
            barrier.abort()

    threads = [threading.Thread(target=work, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k in (0, 1):
        for name in alone[k]:
            onp.testing.assert_allclose(results[k][name], alone[k][name], rtol=1e-6, atol=1e-7,
                                        err_msg=f"net {k} {name}")
