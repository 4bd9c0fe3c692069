"""Creation functions: JAX's values and dtypes, MXNet's defaults, and no program per new shape."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import nd, npx
from framework import np as fnp
from tests.conftest import count_compiles

CASES = [
    ("zeros", lambda: fnp.zeros((3, 4)), lambda: jnp.zeros((3, 4), jnp.float32)),
    ("ones int", lambda: fnp.ones(5, dtype="int32"), lambda: jnp.ones(5, jnp.int32)),
    ("full", lambda: fnp.full((2, 3), 2.5), lambda: jnp.full((2, 3), 2.5, jnp.float32)),
    ("full int from float", lambda: fnp.full((2,), 2.7, dtype="int32"),
     lambda: jnp.full((2,), 2.7, jnp.int32)),
    ("full bool", lambda: fnp.full((2,), True), lambda: jnp.full((2,), True)),
    ("full row", lambda: fnp.full((2, 2), [1.0, 2.0]), lambda: jnp.full((2, 2), jnp.array([1.0, 2.0]))),
    ("full bf16", lambda: fnp.full((3,), 1.1, dtype="bfloat16"), lambda: jnp.full((3,), 1.1, jnp.bfloat16)),
    ("empty", lambda: fnp.empty((2, 2)), lambda: jnp.zeros((2, 2), jnp.float32)),
    ("arange", lambda: fnp.arange(7), lambda: jnp.arange(7, dtype=jnp.float32)),
    ("arange step", lambda: fnp.arange(0.5, 3.0, 0.3), lambda: jnp.arange(0.5, 3.0, 0.3, dtype=jnp.float32)),
    ("arange int", lambda: fnp.arange(2, 11, 3, dtype="int32"),
     lambda: jnp.arange(2, 11, 3, dtype=jnp.int32)),
    ("zeros_like", lambda: fnp.zeros_like(jnp.ones((2, 3), jnp.int32)), lambda: jnp.zeros((2, 3), jnp.int32)),
    ("ones_like dtype", lambda: fnp.ones_like(jnp.ones(2), dtype="int32"), lambda: jnp.ones(2, jnp.int32)),
    ("full_like", lambda: fnp.full_like(jnp.ones(3), 4.0), lambda: jnp.full((3,), 4.0, jnp.float32)),
    ("nd zeros", lambda: nd.zeros((2, 5)), lambda: jnp.zeros((2, 5), jnp.float32)),
    ("nd full", lambda: nd.full((3,), 7, dtype="int32"), lambda: jnp.full((3,), 7, jnp.int32)),
    ("nd empty", lambda: nd.empty(4), lambda: jnp.zeros(4, jnp.float32)),
    ("array list", lambda: fnp.array([[1, 2], [3, 4]]), lambda: jnp.array([[1, 2], [3, 4]], jnp.float32)),
    ("array numpy float64", lambda: fnp.array(onp.linspace(0, 1, 7)),
     lambda: jnp.array(onp.linspace(0, 1, 7))),
    ("array numpy int64", lambda: fnp.array(onp.arange(5)), lambda: jnp.array(onp.arange(5))),
    ("array to int", lambda: fnp.array([1.7, -1.7, 2.5], dtype="int32"),
     lambda: jnp.array([1.7, -1.7, 2.5], jnp.int32)),
    ("array bool", lambda: fnp.array([True, False]), lambda: jnp.array([True, False])),
    ("array of arrays", lambda: fnp.array([jnp.ones(2), jnp.arange(2.0)]),
     lambda: jnp.array([jnp.ones(2), jnp.arange(2.0)])),
    ("array bf16", lambda: fnp.array([1.1, 2.3], dtype="bfloat16"),
     lambda: jnp.array([1.1, 2.3], jnp.bfloat16)),
    ("asarray list", lambda: fnp.asarray([0.5, 1.5]), lambda: jnp.array([0.5, 1.5], jnp.float32)),
    ("nd array", lambda: nd.array([[1, 2, 3]]), lambda: jnp.array([[1, 2, 3]], jnp.float32)),
    ("nd array numpy", lambda: nd.array(onp.arange(4), dtype="int32"),
     lambda: jnp.arange(4, dtype=jnp.int32)),
]


@pytest.mark.parametrize("make, want", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_values_and_dtypes_are_jaxs(make, want):
    got, expected = make(), want()
    assert isinstance(got, jax.Array) and got.dtype == expected.dtype and got.shape == expected.shape
    onp.testing.assert_array_equal(onp.asarray(got), onp.asarray(expected))


def test_new_shapes_compile_nothing_outside_a_trace():
    for _, make, _ in CASES:  # warm: whatever the first call of a kind needs
        make()

    def new_shapes():
        for n in (13, 17, 19):
            fnp.zeros((n, 2)), fnp.ones(n), fnp.full((n,), 0.5), fnp.arange(n), fnp.arange(0, n, 0.5)
            fnp.zeros_like(fnp.ones((n, 3))), nd.zeros((n,)), nd.ones((2, n)), nd.full((n,), 3)
            fnp.array(list(range(n))), fnp.array(onp.ones((n, 2))), fnp.array([1.5] * n, dtype="int32")
            nd.array(onp.ones(n)), fnp.asarray([[0.5] * n])
    assert count_compiles(new_shapes) == 0


def test_inside_a_trace_creation_is_part_of_the_program():
    def f(x):
        return x + fnp.zeros(x.shape) + fnp.ones_like(x) + fnp.arange(x.shape[0])
    jaxpr = jax.make_jaxpr(f)(jnp.ones(3))
    assert not jaxpr.consts  # made by the program, not captured from the host
    onp.testing.assert_array_equal(onp.asarray(jax.jit(f)(jnp.ones(3))), [2.0, 3.0, 4.0])
    got = jax.jit(lambda v: fnp.full((2,), v))(jnp.float32(1.5))
    onp.testing.assert_array_equal(onp.asarray(got), [1.5, 1.5])
    got = jax.jit(lambda v: fnp.full((2, 2), [1.0, 2.0]) * v)(jnp.float32(2.0))
    onp.testing.assert_array_equal(onp.asarray(got), [[2.0, 4.0], [2.0, 4.0]])


def test_made_on_the_named_device():
    device = jax.devices()[-1]
    for x in (fnp.zeros((2,), ctx=npx.cpu(device.id)), fnp.arange(3, device=device),
              nd.ones((2,), npx.cpu(device.id)), fnp.zeros_like(jax.device_put(jnp.ones(2), device)),
              fnp.array([1, 2], ctx=npx.cpu(device.id)), nd.array(onp.ones(2), npx.cpu(device.id))):
        assert x.devices() == {device} and x.committed
    assert fnp.zeros((2,)).devices() == {jax.devices()[0]}
