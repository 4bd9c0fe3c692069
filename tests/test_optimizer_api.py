"""MXNet's per-parameter optimizer API (create_state / update / update_multi_precision / Updater) and
scheduler-driven learning rates (issue 18 item 2), against numbers from real MXNet 1.9.1
(``tools/mxnet_reference/gen_optimizer_api.py``). MXNet 1.9.1's default SGD learning rate (0.01) is
followed (2.0 uses 0.1)."""

from __future__ import annotations

from pathlib import Path

import jax.numpy as jnp
import numpy as onp
import pytest

import framework as mx
from framework import autograd, gluon
from framework.initializer.slot import ArraySlot

REF = Path(__file__).resolve().parent / "reference" / "optimizer_api" / "optimizer_api.npz"
with onp.load(REF) as _f:
    R = {k: _f[k] for k in _f.files}
TOL = {"rtol": 1e-5, "atol": 1e-6}


def test_sgd_create_state_update_returns_the_weight():
    opt = mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5,
                              clip_gradient=0.8)
    w = jnp.asarray(R["w0"])
    state = opt.create_state(0, w)
    for i in range(4):
        w = opt.update(0, w, jnp.asarray(R["g"][i]), state)
        onp.testing.assert_allclose(w, R[f"sgd_w{i}"], **TOL)
    assert opt.num_update == 4


def test_adam_per_index_counts_and_lr_mult():
    opt = mx.optimizer.create("adam", learning_rate=0.01)
    opt.set_lr_mult({1: 0.5})
    ws = [jnp.asarray(R["w0"]), jnp.asarray(R["w0"] * 2)]
    states = [opt.create_state(i, ws[i]) for i in range(2)]
    for i, idx in enumerate([0, 1, 0, 0]):
        ws[idx] = opt.update(idx, ws[idx], jnp.asarray(R["g"][i]), states[idx])
    onp.testing.assert_allclose(ws[0], R["adam_w0"], **TOL)
    onp.testing.assert_allclose(ws[1], R["adam_w1"], **TOL)


def test_scheduler_base_lr_is_used_without_learning_rate():
    sched = mx.lr_scheduler.FactorScheduler(step=1, base_lr=1024)
    assert mx.optimizer.Optimizer(lr_scheduler=sched).learning_rate == float(R["sched_lr_default"]) == 1024
    assert mx.optimizer.SGD().learning_rate == 0.01 and R["sgd_default_lr"] == onp.float32(0.01)
    opt = mx.optimizer.create("sgd", lr_scheduler=mx.lr_scheduler.FactorScheduler(step=2, factor=0.5,
                                                                                   base_lr=0.5))
    w = jnp.asarray(R["w0"])
    state = opt.create_state(0, w)
    lrs = []
    for i in range(4):
        w = opt.update(0, w, jnp.asarray(R["g"][i]), state)
        lrs.append(opt.learning_rate)
    onp.testing.assert_allclose(lrs, R["sched_sgd_lrs"])
    onp.testing.assert_allclose(w, R["sched_sgd_w"], **TOL)
    with pytest.warns(UserWarning, match="overwritten by ``learning_rate``"):
        opt = mx.optimizer.create("sgd", learning_rate=0.3, lr_scheduler=mx.lr_scheduler.FactorScheduler(1))
    assert opt.learning_rate == 0.3


def test_trainer_steps_with_the_schedulers_base_lr():
    net = gluon.nn.Dense(3, in_units=2)
    net.initialize()
    net.weight.set_data(jnp.asarray(R["w0"]))
    net.bias.set_data(jnp.zeros(3))
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.5)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"lr_scheduler": sched})
    lrs = []
    for i in range(4):
        with autograd.record():
            loss = (net(jnp.asarray(R["x"][i])) ** 2).sum()
        loss.backward()
        trainer.step(4)
        lrs.append(trainer.learning_rate)
    onp.testing.assert_allclose(lrs, R["trainer_lrs"])
    onp.testing.assert_allclose(net.weight.data(), R["trainer_w"], **TOL)
    onp.testing.assert_allclose(net.bias.data(), R["trainer_b"], **TOL)


def test_updater_and_in_place_holders():
    upd = mx.optimizer.get_updater(mx.optimizer.create("sgd", learning_rate=0.2, momentum=0.5))
    w = ArraySlot((3, 2), "float32")  # any writable holder is updated in place, as MXNet does
    w[:] = R["w0"]
    for i in range(3):
        upd(7, jnp.asarray(R["g"][i]), w)
    onp.testing.assert_allclose(w.value, R["updater_w"], **TOL)
    with pytest.raises(NotImplementedError, match="Trainer.save_states"):
        upd.get_states()


def test_multi_precision_float16():
    opt = mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9, multi_precision=True)
    w = jnp.asarray(R["w0"], jnp.float16)
    state = opt.create_state_multi_precision(0, w)
    for i in range(3):
        w = opt.update_multi_precision(0, w, jnp.asarray(R["g"][i], jnp.float16), state)
    assert w.dtype == jnp.float16
    onp.testing.assert_allclose(onp.float32(w), R["mp_w"], rtol=1e-3, atol=1e-3)


def test_update_needs_its_state():
    opt = mx.optimizer.create("sgd")
    with pytest.raises(TypeError, match=r"state must be what create_state\(index, weight\) returned"):
        opt.update(0, jnp.ones(2), jnp.ones(2), None)


def test_set_learning_rate_and_allreduce_update_split():
    import framework.npx as npx

    devs = [npx.cpu(0), npx.cpu(1)]
    nets = []
    for split in (False, True):
        net = gluon.nn.Dense(2, in_units=3)
        net.initialize(mx.init.Constant(0.1), ctx=devs)
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1}, kvstore="device",
                                update_on_kvstore=False)
        trainer.set_learning_rate(0.05)
        x = jnp.arange(12.0).reshape(4, 3)
        with autograd.record():
            losses = [net(xs).sum() for xs in gluon.utils.split_and_load(x, devs)]
        for loss in losses:
            loss.backward()
        if split:
            trainer.allreduce_grads()
            trainer.update(4)
        else:
            trainer.step(4)
        assert trainer.learning_rate == 0.05
        nets.append(net)
    for d in devs:
        onp.testing.assert_allclose(nets[0].weight.data(d), nets[1].weight.data(d), rtol=1e-6)
    onp.testing.assert_allclose(nets[1].weight.data(devs[0]), nets[1].weight.data(devs[1]))
