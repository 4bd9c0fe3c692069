"""``autograd.Function`` (custom backward via jax.custom_vjp) and ``autograd.mark_variables``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, gluon, nd


class ScaledSigmoid(autograd.Function):
    """MXNet's documented example, with its backward scaled so that using it is visible."""

    def forward(self, x):
        y = 1 / (1 + nd.exp(-x))
        self.save_for_backward(y)
        return y

    def backward(self, dy):
        (y,) = self.saved_tensors
        return dy * y * (1 - y) * 3


class MulAdd(autograd.Function):
    def forward(self, a, b):
        self.save_for_backward(a, b)
        return a * b, a + b

    def backward(self, d_prod, d_sum):
        a, b = self.saved_tensors
        return d_prod * b + d_sum, d_prod * a + d_sum


def test_custom_backward_is_used_by_jax_grad_and_record():
    x = jnp.asarray([-1.0, 0.0, 2.0])
    f = ScaledSigmoid()
    s = jax.nn.sigmoid(x)
    want = 3 * s * (1 - s)
    onp.testing.assert_allclose(jax.grad(lambda v: f(v).sum())(x), want, rtol=1e-6)
    onp.testing.assert_allclose(jax.jit(jax.grad(lambda v: f(v).sum()))(x), want, rtol=1e-6)
    onp.testing.assert_allclose(f(x), s, rtol=1e-6)  # forward as written
    v = autograd.attach_grad(x)
    with autograd.record():
        y = f(v).sum()
    y.backward()
    onp.testing.assert_allclose(v.grad, want, rtol=1e-6)


def test_several_inputs_and_outputs_in_a_network():
    net = gluon.nn.Dense(2, in_units=2)
    net.initialize()
    f = MulAdd()
    x = jnp.asarray([[1.0, 2.0]])
    with autograd.record():
        p, s = f(net(x), net(x) * 2)
        loss = (p + s).sum()
    loss.backward()

    def pure(w):
        h = x @ w.T + net.bias.data()
        return (h * (2 * h) + h + 2 * h).sum()

    onp.testing.assert_allclose(net.weight.grad(), jax.grad(pure)(net.weight.data()), rtol=1e-5)


def test_backward_with_the_wrong_number_of_gradients():
    class Bad(autograd.Function):
        def forward(self, a, b):
            return a * b

        def backward(self, dy):
            return dy

    with pytest.raises(ValueError, match=r"returned 1 gradient\(s\) for 2 input\(s\)"):
        jax.grad(lambda a: Bad()(a, a))(1.0)


def test_mark_variables_returns_variables_with_gradients():
    a, b = autograd.mark_variables([jnp.ones(2), jnp.full(2, 3.0)], grad_reqs=["write", "add"])
    with autograd.record():
        y = (a * b).sum()
    y.backward()
    assert a.grad.tolist() == [3.0, 3.0] and b.grad.tolist() == [1.0, 1.0]
    grads = autograd.grad(lambda v: (v * v).sum())(jnp.ones(2))
    assert grads.tolist() == [2.0, 2.0]
    with pytest.raises(ValueError, match="must match in number"):
        autograd.mark_variables([jnp.ones(1)], [jnp.ones(1), jnp.ones(1)])
