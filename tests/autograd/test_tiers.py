"""Tiered compilation (framework/autograd/walk.py, pending.py): a recorded graph whose structure changes
every step runs node by node from cached per-node programs and compiles nothing new; a graph whose
description repeats runs as one whole-graph program (fused with the Trainer's update); both give
jax.grad's gradients."""

import jax
import jax.numpy as jnp
import numpy as onp

from framework import _compile, autograd, gluon, init, np
from framework.autograd import tape, walk
from framework.gluon import nn


class Compiles:
    """Counts XLA compilations while active (jax.monitoring's compile events)."""

    def __enter__(self):
        self.count = 0

        def listen(event, duration, **kwargs):
            if event == "/jax/core/compile/backend_compile_duration":
                self.count += 1

        self._listen = listen
        jax.monitoring.register_event_duration_secs_listener(listen)
        return self

    def __exit__(self, *exc):
        jax.monitoring.unregister_event_duration_listener(self._listen)


def _mlp():
    net = nn.Sequential()
    net.add(nn.Dense(16, in_units=8, activation="relu"), nn.Dense(4, in_units=16))
    net.initialize(init.Xavier())
    return net


def _episode(net, trainer, rs, steps):
    """An RL-like episode: the net called ``steps`` times under record(), a value read at every step
    (the action), then one backward and one step."""
    states = [np.array(rs.uniform(-1, 1, (1, 8)).astype("float32")) for _ in range(steps)]
    with autograd.record():
        total = 0.0
        for x in states:
            out = net(x)
            action = 1.0 if float(out.sum()) > 0 else -1.0  # read while recording
            total = total + (out * out).sum() * action
    total.backward()
    trainer.step(1)
    return states


def test_an_episode_loop_of_new_lengths_compiles_nothing_after_warm_up():
    net = _mlp()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
    rs = onp.random.RandomState(0)
    for steps in range(5, 15):  # warm-up: ten episodes of other lengths
        _episode(net, trainer, rs, steps)
    with Compiles() as c:
        for steps in range(15, 45):  # thirty new lengths
            _episode(net, trainer, rs, steps)
    assert c.count <= 5, c.count
    assert "fused_step" not in _compile.program_names(trainer)  # no whole-graph program for any length


def test_a_graph_of_known_nodes_gets_its_whole_program_when_its_description_repeats():
    net = _mlp()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
    rs = onp.random.RandomState(1)
    for steps in range(5, 15):  # warm-up: every node of an episode is known
        _episode(net, trainer, rs, steps)
    with Compiles() as first:
        _episode(net, trainer, rs, 20)  # a new length: node by node
    assert "fused_step" not in _compile.program_names(trainer)
    _episode(net, trainer, rs, 20)  # the same description again: one whole-graph program, fused
    assert "fused_step" in _compile.program_names(trainer)
    with Compiles() as third:
        _episode(net, trainer, rs, 20)
    assert first.count <= 1 and third.count == 0, (first.count, third.count)


def test_a_steady_loop_records_its_first_steps_descriptions_and_key():
    # a deferred-shape stack whose tree's key object is rebuilt after its first training step (with a
    # pooling layer it is), later calls reusing the last record: equal descriptions and plan keys are
    # one object, so the per-step lookups compare by identity
    net = nn.Sequential()
    net.add(nn.Conv2D(2, kernel_size=3, activation="relu"), nn.MaxPool2D(pool_size=2, strides=2), nn.Dense(3))
    net.initialize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    x, y = np.ones((4, 1, 8, 8)), np.zeros((4,), dtype="int32")
    descs, keys = [], []
    for _ in range(3):  # the first step's Parameters are the initial arrays, later ones the update's
        with autograd.record():
            out = net(x)
            loss = loss_fn(out, y)
        descs.append(out._node.desc)
        keys.append(tape.backward([loss]).plan.key)
        trainer.step(4)
    assert descs[1] is descs[0] and descs[2] is descs[0]
    assert keys[1] is keys[0] and keys[2] is keys[0]


def test_node_by_node_gradients_equal_jax_grad(monkeypatch):
    walked = []
    monkeypatch.setattr(walk, "backward", lambda *a, _b=walk.backward: walked.append(1) or _b(*a))
    net = _mlp()
    rs = onp.random.RandomState(1)
    xs = [np.array(rs.uniform(-1, 1, (3, 8)).astype("float32")) for _ in range(3)]
    params = net.collect_params().values_on()
    with autograd.record():  # the same few nodes three times: mostly known, so it runs node by node
        loss = 0.0
        for x in xs:
            h = net(x)  # the parameters' gradients add up over the three calls, h's over its two uses
            loss = loss + (np.tanh(h) * h).sum()
    loss.backward()

    def f(p):
        total = 0.0
        for x in xs:
            h = net.functional_call(p, x)
            total = total + (jnp.tanh(h) * h).sum()
        return total

    want = jax.grad(f)(params)
    for n, p in net.collect_params().items():
        onp.testing.assert_allclose(onp.asarray(p.grad()), onp.asarray(want[n]), rtol=1e-5, atol=1e-6)
    assert walked, "the graph did not run node by node"  # (the read above ran the deferred backward)


def test_a_steady_loop_compiles_one_whole_step_at_its_first_step():
    net = _mlp()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    loss_fn = gluon.loss.L2Loss()
    x, y = np.ones((4, 8)), np.zeros((4, 4))
    counts = []
    for _ in range(4):
        with Compiles() as c:
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(4)
            float(loss.sum())
        counts.append(c.count)
    assert "fused_step" in _compile.program_names(trainer)
    # its nodes all new, the first step is the whole step (fused with the update), compiled once
    assert counts[0] >= 1 and counts[1:] == [0, 0, 0]
