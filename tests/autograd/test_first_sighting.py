"""A recorded graph seen for the first time whose nodes are mostly new (a model's first training step)
gets one whole-graph program at once (framework/autograd/walk.py ``mostly_new``): compiling a forward
and a VJP program per node first costs several times more (notes/speed.md)."""

import jax
import jax.numpy as jnp
import numpy as onp

from framework import _compile, autograd, gluon, init, np
from framework.autograd import walk
from framework.gluon import nn


def _programs(net, trainer):
    names = list(_compile.program_names()) + list(_compile.program_names(trainer))
    for block in [net, *net._children.values()]:
        names += _compile.program_names(block)
    return names


def test_a_first_step_compiles_the_whole_graph_and_no_program_per_node():
    # the shared programs listed below are the whole process's: start from none, or another test of this
    # worker that ran a graph node by node leaves a 'node' program there
    _compile.clear_caches()
    net = nn.Sequential()
    for width in (12, 10, 8, 6):
        net.add(nn.Dense(width, activation="tanh"))
    net.initialize(init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    x = np.array(onp.random.RandomState(0).uniform(-1, 1, (5, 7)).astype("float32"))
    net(x)  # shapes known: the next call records one node per layer
    params = net.collect_params().values_on()
    with autograd.record():
        h = x
        for layer in net._children.values():  # one node per layer and per op: all new
            h = layer(h) * 2.0
        loss = (h * h).sum()
    loss.backward()
    got = {n: onp.asarray(p.grad()) for n, p in net.collect_params().items()}
    names = _programs(net, trainer)
    assert "vjp" not in names and "node" not in names, names
    assert "backward" in names or "gradients" in names, names

    def f(p):
        h = x
        for i in range(4):
            h = jnp.tanh(h @ p[f"{i}.weight"].T + p[f"{i}.bias"]) * 2.0
        return (h * h).sum()

    want = jax.grad(f)(params)
    for n in got:
        onp.testing.assert_allclose(got[n], onp.asarray(want[n]), rtol=1e-4, atol=1e-5)


def test_mostly_new_counts_distinct_descriptions_never_walked():
    a, b, c = object(), object(), object()
    step = walk.LeafStep  # only the computing steps count

    class S:
        def __init__(self, desc):
            self.desc = desc

    assert walk.mostly_new([S(a), S(b), step(None)])
    walk._walked(a)
    walk._walked(b)
    assert not walk.mostly_new([S(a), S(b), S(c)])  # one new of three
    assert not walk.mostly_new([S(c)] * 3)  # one description repeated: an unrolled loop's cell
    assert walk.mostly_new([S(c), S(object())])
