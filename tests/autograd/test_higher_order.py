"""Higher-order gradients: autograd.grad(heads, variables, create_graph=True) inside record() returns
recorded gradients, and a backward of them writes second-order gradients -- MXNet 1.9.1's numbers for
the operators it differentiates twice (tests/reference/higher_order, gen_higher_order.py), jax's own
for an MLP (MXNet 1.9.1 cannot differentiate its product and dense-layer gradients again)."""

import pathlib

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, gluon, init, np
from framework.gluon import nn

REF = onp.load(pathlib.Path(__file__).parents[1] / "reference" / "higher_order" / "unary.npz")
OPS = {"sin": np.sin, "log": np.log, "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "tanh": np.tanh,
       "chain": lambda v: np.tanh(1 / (1 + np.exp(-np.log(v))))}


@pytest.mark.parametrize("name", sorted(OPS))
def test_second_derivatives_match_mxnet(name):
    x = autograd.attach_grad(np.array(REF["x"]))
    with autograd.record():
        y = OPS[name](x)
        g, = autograd.grad(y, [x], create_graph=True)
    assert isinstance(g, autograd.Recorded)
    g.backward()
    onp.testing.assert_allclose(onp.asarray(g), REF[f"{name}:grad"], rtol=1e-5, atol=1e-6)
    onp.testing.assert_allclose(onp.asarray(x.grad), REF[f"{name}:grad2"], rtol=1e-5, atol=1e-6)


def test_mlp_gradient_penalty_equals_jax():
    """A gradient penalty: the squared norm of d loss / d W1, differentiated again into every
    Parameter's gradient (the second backward writes them)."""
    net = nn.Sequential()
    net.add(nn.Dense(3, in_units=2, activation="tanh"), nn.Dense(1, in_units=3))
    net.initialize(init.Xavier())
    x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]])
    params = net.collect_params().values_on()
    w1 = net[0].weight
    with autograd.record():
        out = net(x).sum()
        g, = autograd.grad(out, [w1], create_graph=True)
        penalty = (g * g).sum()
    penalty.backward()

    def first(p):
        return net.functional_call(p, x).sum()

    def total(p):
        return jnp.sum(jax.grad(first)(p)["0.weight"] ** 2)

    onp.testing.assert_allclose(onp.asarray(g), jax.grad(first)(params)["0.weight"], rtol=1e-5, atol=1e-6)
    want = jax.grad(total)(params)
    for name, p in net.collect_params().items():
        onp.testing.assert_allclose(onp.asarray(p.grad()), onp.asarray(want[name]), rtol=1e-4, atol=1e-6,
                                    err_msg=name)


def test_without_create_graph_the_gradients_are_plain_arrays():
    x = autograd.attach_grad(np.array([1.0, 2.0]))
    with autograd.record():
        y = (x ** 3).sum()
        g, = autograd.grad(y, [x])
    assert isinstance(g, jax.Array)
    onp.testing.assert_allclose(onp.asarray(g), [3.0, 12.0])


def test_a_trainer_step_after_a_gradient_penalty():
    net = nn.Dense(1, in_units=2)
    net.initialize(init.One())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    x = np.array([[1.0, 2.0]])
    with autograd.record():
        g, = autograd.grad((net(x) ** 2).sum(), [net.weight], create_graph=True)
        penalty = (g * g).sum()  # g = 2 (w.x + b) x = 2 * 3 * [1, 2]: penalty = 36 * 5
    penalty.backward()
    trainer.step(1)
    # d penalty / d w = 2 * 4 * (w.x + b) * |x|^2 * x = 8 * 3 * 5 * [1, 2]
    onp.testing.assert_allclose(onp.asarray(net.weight.data()), 1.0 - 0.1 * onp.array([[120.0, 240.0]]),
                                rtol=1e-5)
