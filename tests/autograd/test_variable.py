"""Variables (``autograd.attach_grad``): gradients equal jax.grad, in-place updates, grad_req, MXNet's rules.

Expected behaviours were checked by running the same steps in MXNet 1.9.1 (``x.attach_grad()``,
``grad_req='add'``, ``autograd.grad``, ``x[1, 2] = 10.7`` on int32, ``x += 1`` after recording).
"""

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import autograd, np, npx
from framework.gluon import nn


def test_gradient_equals_jax_grad():
    x0 = np.array([0.5, -1.0, 2.0])
    x = autograd.attach_grad(x0)
    with autograd.record():
        y = (np.sin(x) * x + x ** 2).sum()
    y.backward()
    expected = jax.grad(lambda v: jnp.sum(jnp.sin(v) * v + v ** 2))(x0)
    onp.testing.assert_allclose(x.grad, expected, rtol=1e-6)


def test_grad_is_zeros_before_backward_and_replaced_by_write():
    x = autograd.attach_grad(np.ones(3))
    onp.testing.assert_array_equal(x.grad, onp.zeros(3))
    for scale in (2.0, 5.0):
        with autograd.record():
            y = (scale * x).sum()
        y.backward()
    onp.testing.assert_array_equal(x.grad, [5.0, 5.0, 5.0])


def test_grad_req_add_accumulates():
    x = autograd.attach_grad(np.ones(3), grad_req="add")
    for _ in range(2):
        with autograd.record():
            y = (3 * x).sum()
        y.backward()
    onp.testing.assert_array_equal(x.grad, [6.0, 6.0, 6.0])  # MXNet 1.9.1: [6. 6. 6.]


def test_autograd_grad_returns_without_writing():
    x = autograd.attach_grad(np.array([1.0, 2.0, 3.0]))
    with autograd.record():
        y = (x * x).sum()
    (g,) = autograd.grad(y, [x])
    onp.testing.assert_array_equal(g, [2.0, 4.0, 6.0])
    onp.testing.assert_array_equal(x.grad, [0.0, 0.0, 0.0])  # MXNet leaves x.grad as it was


def test_in_place_setitem_and_augmented_assignment():
    x = autograd.attach_grad(np.zeros((2, 3), dtype="int32"), grad_req="null")
    x[1, 2] = 10.7
    onp.testing.assert_array_equal(x, [[0, 0, 0], [0, 0, 10]])  # cast to int32 as MXNet does
    v = autograd.attach_grad(np.ones(3))
    same = v
    v += 1
    assert v is same
    onp.testing.assert_array_equal(same, [2.0, 2.0, 2.0])
    v[:] = v - 0.5 * v.grad
    onp.testing.assert_array_equal(same, [2.0, 2.0, 2.0])
    v[1:] = 7
    onp.testing.assert_array_equal(same.value, [2.0, 7.0, 7.0])
    assert isinstance(same.value, jax.Array)


def test_outside_record_results_are_plain_arrays():
    x = autograd.attach_grad(np.arange(4.0))
    for out in (x + 1, 2 * x, x[1:], np.exp(x), jnp.asarray(x), npx.relu(x), x.sum()):
        assert isinstance(out, jax.Array), type(out)
    assert onp.asarray(x).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert x.shape == (4,) and x.dtype == onp.float32 and x.device == npx.cpu(0)


def test_jax_array_on_the_left_stays_recorded():
    w = np.array([1.0, 2.0])
    x = autograd.attach_grad(np.array([3.0, 4.0]))
    with autograd.record():
        y = (w * x).sum()
    y.backward()
    onp.testing.assert_array_equal(x.grad, [1.0, 2.0])


def test_detach_stops_the_gradient():
    x = autograd.attach_grad(np.array([1.0, 2.0]))
    with autograd.record():
        y = (x * x.detach()).sum()
    y.backward()
    onp.testing.assert_array_equal(x.grad, [1.0, 2.0])


def test_block_input_gradient_equals_jax_grad():
    net = nn.Dense(2, in_units=3)
    net.initialize()
    x0 = np.array([[1.0, -2.0, 0.5]])
    x = autograd.attach_grad(x0)
    with autograd.record():
        y = (net(x) ** 2).sum()
    y.backward()
    params = net.collect_params().values_on()
    expected = jax.grad(lambda v: jnp.sum(net.functional_call(params, v) ** 2))(x0)
    onp.testing.assert_allclose(x.grad, expected, rtol=1e-6)


def test_many_steps_reuse_the_variable():
    w = autograd.attach_grad(np.array([4.0]))
    for _ in range(3):
        with autograd.record():
            loss = (w * w).sum()
        loss.backward()
        w[:] = w - 0.25 * w.grad
    onp.testing.assert_allclose(w, [0.5])  # w <- w/2 each step


def test_attach_grad_errors():
    with pytest.raises(ValueError, match="grad_req='sometimes'; expected one of"):
        autograd.attach_grad(np.ones(2), grad_req="sometimes")
    with pytest.raises(TypeError, match="dtype int32; gradients need a floating dtype"):
        autograd.attach_grad(np.ones(2, dtype="int32"))
    with pytest.raises(ValueError, match="stype='csr'; only dense storage"):
        autograd.attach_grad(np.ones(2), stype="csr")


def test_attach_grad_on_a_variable_resets_its_gradient():
    x = autograd.attach_grad(np.ones(2))
    with autograd.record():
        (x * 3).sum().backward()
    assert autograd.attach_grad(x, grad_req="add") is x
    onp.testing.assert_array_equal(x.grad, [0.0, 0.0])
    assert x.grad_req == "add"


@pytest.mark.parametrize("recording", [True, False])
def test_backward_of_a_variable_itself_gives_ones(recording):
    """MXNet 1.9.1: x.attach_grad(); x.backward() (inside record() or not) leaves x.grad = ones."""
    x = autograd.attach_grad(np.array([1.0, 2.0]))
    if recording:
        with autograd.record():
            x.backward()
    else:
        x.backward()
    onp.testing.assert_array_equal(onp.asarray(x.grad), [1.0, 1.0])
