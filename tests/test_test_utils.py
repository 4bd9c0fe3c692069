"""``framework.test_utils``, ``framework.util`` and ``mx.random.seed``: MXNet's tolerances, texts and
helpers (issue 18 item 7: per-dtype defaults, explicit zeros honoured)."""

from __future__ import annotations

import os
import subprocess
import sys

import jax.numpy as jnp
import numpy as onp
import pytest

import framework as mx
from framework import npx
from framework import test_utils as tu

# made by MXNet 1.9.1: mx.test_utils.assert_almost_equal(float32 [1, 2, 3], [1, 2.5, 3], names=('x', 'y'))
MXNET_TEXT = ("Error 400.000000 exceeds tolerance rtol=1.000000e-04, atol=1.000000e-03 "
              "(mismatch 33.333333%).\nLocation of maximum error: (1,), x=2.00000000, y=2.50000000")


def _message(a, b, **kw) -> str:
    with pytest.raises(AssertionError) as info:
        tu.assert_almost_equal(a, b, **kw)
    return str(info.value)


def test_error_text_is_mxnets():
    text = _message(onp.float32([1, 2, 3]), onp.float32([1, 2.5, 3]), names=("x", "y"))
    assert MXNET_TEXT in text and "ACTUAL: array([1., 2., 3.], dtype=float32)" in text


def test_defaults_follow_the_dtype():
    a = onp.float32([1.0])
    tu.assert_almost_equal(a, a + 5e-4)  # float32 atol 1e-3
    assert "rtol=1.000000e-05, atol=1.000000e-20" in _message(onp.float64([1.0]), onp.float64([1.0005]))
    tu.assert_almost_equal(onp.float16([1.0]), onp.float16([1.05]))  # float16 atol 0.1
    # the larger default of the two operands: float16 against float64 uses float16's
    tu.assert_almost_equal(onp.float16([1.0]), onp.float64([1.05]))
    assert "rtol=0.000000e+00, atol=0.000000e+00" in _message(onp.int32([1]), onp.int32([2]))
    assert tu.default_rtols()[onp.dtype("float32")] == 1e-4
    assert tu.default_atols()[onp.dtype("float16")] == 0.1


def test_explicit_zeros_are_honoured():
    a = onp.float32([1.0])
    text = _message(a, a + 1e-6, rtol=0, atol=0)
    assert "rtol=0.000000e+00, atol=0.000000e+00" in text
    tu.assert_almost_equal(a, a, rtol=0, atol=0)
    # a dict of dtype -> tolerance, as MXNet accepts
    tu.assert_almost_equal(a, a + 0.5, rtol={onp.dtype("float32"): 0}, atol={onp.dtype("float32"): 1.0})


def test_almost_equal_uses_float64_defaults_and_explicit_zero():
    assert not tu.almost_equal(onp.float32([1.0]), onp.float32([1.0001]))
    assert tu.almost_equal(onp.float32([1.0]), onp.float32([1.000001]))
    assert not tu.almost_equal(onp.float32([0.0]), onp.float32([1e-30]), rtol=0, atol=0)


def test_mismatch_percentage_and_jax_inputs():
    text = _message(jnp.zeros(100), jnp.arange(100.0))
    assert "(mismatch at least 11.000000%)" in text  # MXNet stops counting after mismatches[1] = 10
    assert "(mismatch 2.000000%)" in _message(jnp.zeros(100), jnp.zeros(100).at[3].set(1).at[7].set(2))


@pytest.mark.skipif(not os.path.exists(os.environ.get("MXNET_PYTHON", "/tmp/mx/bin/python")),
                    reason="the MXNet 1.9.1 side venv is not installed on this machine")
def test_text_matches_live_mxnet():
    code = ("import numpy as np, mxnet as mx\n"
            "try:\n mx.test_utils.assert_almost_equal(np.float16([1, 2, 3, 4]),\n"
            "                                  np.float64([1, 2.5, 3, 9]))\n"
            "except AssertionError as e:\n print(str(e).split('\\n')[2]); print(str(e).split('\\n')[3])\n")
    exe = os.environ.get("MXNET_PYTHON", "/tmp/mx/bin/python")
    out = subprocess.run([exe, "-c", code], capture_output=True, text=True, timeout=120).stdout.strip()
    ours = _message(onp.float16([1, 2, 3, 4]), onp.float64([1, 2.5, 3, 9])).split("\n")
    assert out.splitlines()[-2:] == ours[2:4]


def test_same_shapes_arrays_and_exception():
    assert tu.same(jnp.arange(3), onp.arange(3)) and not tu.same(onp.ones(2), onp.ones(3))
    onp.random.seed(0)
    shape = tu.rand_shape_nd(3, dim=4)
    assert len(shape) == 3 and all(1 <= d <= 4 for d in shape)
    x = tu.rand_ndarray((2, 3), ctx=mx.cpu(1))
    assert x.shape == (2, 3) and x.dtype == jnp.float32 and x.devices() == {mx.cpu(1)}
    with pytest.raises(ValueError, match="stype='csr'.*dense"):
        tu.rand_ndarray((2, 2), stype="csr")
    tu.assert_exception(int, ValueError, "not a number")
    with pytest.raises(AssertionError, match="did not raise"):
        tu.assert_exception(int, ValueError, "3")


def test_default_context_follows_set_default_context():
    assert tu.default_context() == mx.cpu(0) and tu.default_device is tu.default_context
    previous = tu.set_default_context(mx.cpu(2))
    try:
        assert tu.default_context() == mx.cpu(2)
        assert mx.nd.ones((2,)).devices() == {mx.cpu(2)}
    finally:
        tu.set_default_context(previous)
    assert tu.default_context() == mx.cpu(0)


def test_check_numeric_gradient_passes_and_catches_a_wrong_gradient():
    import jax

    x = onp.random.RandomState(1).rand(2, 3)
    tu.check_numeric_gradient(lambda a: jnp.tanh(a) * 2, [x])
    tu.check_numeric_gradient(lambda a, b: a * b, {"a": x, "b": x + 1}, grad_nodes=["b"])

    @jax.custom_vjp
    def wrong(a):
        return a * a

    wrong.defvjp(lambda a: (a * a, a), lambda a, g: (g * a,))  # half the true gradient
    with pytest.raises(AssertionError, match="analytic gradient of 0"):
        tu.check_numeric_gradient(wrong, [x])


def test_util_np_switches_and_env():
    @mx.util.use_np
    def f():
        return 3

    assert f() == 3 and mx.util.is_np_array() and mx.util.is_np_shape()
    mx.util.set_np()
    npx.reset_np()
    mx.util.reset_np()
    with pytest.raises(ValueError, match="legacy"):
        mx.util.set_np(shape=False)
    mx.util.setenv("FRAMEWORK_TEST_VAR", "1")
    assert mx.util.getenv("FRAMEWORK_TEST_VAR") == "1"
    mx.util.setenv("FRAMEWORK_TEST_VAR", None)
    assert mx.util.getenv("FRAMEWORK_TEST_VAR") is None


def test_random_seed_makes_draws_reproducible():
    mx.random.seed(42)
    a = mx.np.random.uniform(size=(3,))
    b = mx.nd.random.normal(shape=(2,))
    mx.random.seed(42)
    assert tu.same(a, mx.np.random.uniform(size=(3,))) and tu.same(b, mx.nd.random.normal(shape=(2,)))


def test_module_is_importable_as_mx_test_utils():
    assert mx.test_utils is tu and sys.modules["framework.test_utils"] is tu
