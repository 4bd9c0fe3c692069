"""``nd.contrib.foreach``/``while_loop``/``cond`` beyond the MXNet reference cases: the compiled and the
step-by-step paths agree, closures over weights get gradients inside ``record()``, padding, errors."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, gluon, nd


def rnn_body(weight):
    def body(x, states):
        h = nd.tanh(nd.dot(x, weight) + states[0])
        return h, [h]
    return body


def test_foreach_in_a_hybridized_block_matches_eager_and_record_reaches_closed_over_weights():
    class Scan(gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.w = self.params.get("w", shape=(3, 3), init="ones")

        def hybrid_forward(self, F, x, w):
            out, states = F.contrib.foreach(rnn_body(w * 0.1), x, [F.zeros((2, 3))])
            return out + states[0]

    x = nd.array(onp.random.RandomState(1).rand(4, 2, 3))
    net = Scan()
    net.initialize()
    eager = net(x)
    net.hybridize()
    onp.testing.assert_allclose(net(x), eager, rtol=1e-6)

    w = autograd.attach_grad(nd.array(onp.random.RandomState(2).rand(3, 3)))
    with autograd.record():  # step by step: each dot records, w reached through the closure
        out, _ = nd.contrib.foreach(rnn_body(w), x, [nd.zeros((2, 3))])
        loss = nd.sum(out)
    loss.backward()

    def pure(wv):
        def step(h, xt):
            h = jnp.tanh(xt @ wv + h)
            return h, h
        return jax.lax.scan(step, jnp.zeros((2, 3)), x)[1].sum()

    onp.testing.assert_allclose(w.grad, jax.grad(pure)(w.value if hasattr(w, "value") else w), rtol=1e-5)


def test_while_loop_pads_with_zeros_and_compiled_equals_eager():
    def cond(i, s):
        return i < 2

    def func(i, s):
        return [s, s * 2], (i + 1, s + 1)

    eager = nd.contrib.while_loop(cond, func, [nd.array([0]), nd.array([5.0])], max_iterations=4)
    outs, (i, s) = eager
    assert outs[0].reshape(-1).tolist() == [5.0, 6.0, 0.0, 0.0]
    assert outs[1].reshape(-1).tolist() == [10.0, 12.0, 0.0, 0.0]
    assert i.tolist() == [2.0] and s.tolist() == [7.0]
    jitted = jax.jit(lambda a, b: nd.contrib.while_loop(cond, func, [a, b], max_iterations=4))
    jouts, (ji, js) = jitted(nd.array([0]), nd.array([5.0]))
    onp.testing.assert_allclose(jouts[1], outs[1])
    assert ji.tolist() == [2.0] and js.tolist() == [7.0]
    # no step ran: no outputs, as in MXNet
    none_ran = nd.contrib.while_loop(lambda i: i < 0, lambda i: (i, i + 1), nd.array([0]), max_iterations=3)
    assert none_ran[0] == []


def test_python_control_flow_in_a_body_runs_step_by_step_on_concrete_arrays():
    def body(x, s):
        y = x * 2 if float(nd.sum(x).item()) > 0 else x * 0
        return y, s + y

    out, s = nd.contrib.foreach(body, nd.array([[1.0], [-1.0], [2.0]]), nd.zeros(1))
    assert out.reshape(-1).tolist() == [2.0, -0.0, 4.0] and s.tolist() == [6.0]


def test_cond_compiles_both_branches_under_jit():
    f = jax.jit(lambda p, x: nd.contrib.cond(p, lambda: x * 2, lambda: x - 1))
    assert f(nd.array([1]), nd.array([3.0])).tolist() == [6.0]
    assert f(nd.array([0]), nd.array([3.0])).tolist() == [2.0]


def test_errors_name_the_fix():
    with pytest.raises(ValueError, match="max_iterations must be given"):
        nd.contrib.while_loop(lambda i: i < 1, lambda i: (i, i + 1), nd.array([0]))
    with pytest.raises(ValueError, match="changed shape"):
        jax.jit(lambda a: nd.contrib.foreach(lambda x, s: (x, nd.concat(s, s, dim=0)), a, nd.zeros(1)))(
            nd.ones((2, 1)))
    with pytest.raises(ValueError, match="one boolean value"):
        nd.contrib.cond(nd.array([1, 0]), lambda: 1, lambda: 0)
