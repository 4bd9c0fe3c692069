"""Functions whose result's shape depends on the values: JAX's results, placed where the input is, and no
program per new input length when called eagerly on a CPU array."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import np as fnp
from tests.conftest import count_compiles

INPUTS = {
    "int 2-d": onp.array([[0, 1], [2, 0]], onp.int32),
    "float": onp.array([0.0, 1.5, 0.0, -2.0, 1.5], onp.float32),
    "bool": onp.array([True, False, True]),
    "all zero 2-d": onp.zeros((2, 3), onp.float32),
    "int8 repeats": onp.array([3, 1, 2, 3, 1], onp.int8),
    "nan": onp.array([1.0, onp.nan, onp.nan, 1.0], onp.float32),
    "3-d": (onp.arange(24).reshape(2, 3, 4) % 5).astype(onp.int32),
}

CALLS = {
    "nonzero": lambda m, x: m.nonzero(x),
    "flatnonzero": lambda m, x: m.flatnonzero(x),
    "argwhere": lambda m, x: m.argwhere(x),
    "extract": lambda m, x: m.extract(x, x * 2),
    "unique": lambda m, x: m.unique(x),
    "unique all": lambda m, x: m.unique(x, return_index=True, return_inverse=True, return_counts=True),
    "unique counts": lambda m, x: m.unique(x, return_counts=True),
    "unique nan apart": lambda m, x: m.unique(x, equal_nan=False),
}


def _parts(out):
    return list(out) if isinstance(out, tuple) else [out]


def _same(got, want, device=None):
    got, want = _parts(got), _parts(want)
    for g, w in zip(got, want, strict=True):
        assert isinstance(g, jax.Array)
        assert (g.dtype, g.shape) == (w.dtype, w.shape)
        onp.testing.assert_array_equal(onp.asarray(g), onp.asarray(w))
        if device is not None:  # placed where the input is, committed as JAX commits it
            assert g.devices() == {device} and g.committed


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
@pytest.mark.parametrize("value", INPUTS.values(), ids=INPUTS.keys())
def test_results_are_jaxs(call, value):
    x = jnp.asarray(value)
    _same(call(fnp, x), call(jnp, x))


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_results_stay_on_the_inputs_device(call):
    device = jax.devices()[-1]
    x = jax.device_put(INPUTS["int8 repeats"], device)
    _same(call(fnp, x), call(jnp, x), device)


def test_new_lengths_compile_nothing_on_the_cpu():
    rng = onp.random.default_rng(0)
    mask = rng.random(400) > 0.5
    values = rng.integers(0, 9, 400).astype(onp.int32)

    def new_lengths():
        for n in (101, 203, 307):
            m, v = jax.device_put(mask[:n]), jax.device_put(values[:n])
            fnp.nonzero(m), fnp.flatnonzero(m), fnp.argwhere(m), fnp.extract(m, v)
            fnp.unique(v, return_inverse=True, return_counts=True)

    assert count_compiles(new_lengths) == 0


def test_inside_a_trace_they_are_jaxs():
    x = jnp.asarray(INPUTS["float"])
    got = jax.jit(lambda a: fnp.nonzero(a, size=4, fill_value=-1))(x)
    _same(got, jnp.nonzero(x, size=4, fill_value=-1))
    _same(jax.jit(lambda a: fnp.unique(a, size=3))(x), jnp.unique(x, size=3))
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(fnp.nonzero)(x)


def test_size_outside_a_trace_is_jaxs():
    x = jnp.asarray(INPUTS["int 2-d"])
    _same(fnp.argwhere(x, size=3, fill_value=9), jnp.argwhere(x, size=3, fill_value=9))


def test_what_jax_refuses_it_refuses():
    with pytest.raises(ValueError, match="0d"):
        fnp.nonzero(jnp.asarray(1.0))
    with pytest.raises(TypeError, match="requires ndarray"):
        fnp.nonzero([1, 0])


def test_zero_dimensional_and_weakly_typed_inputs():
    for x in (jnp.asarray(onp.float32(3.0)), jnp.asarray(3.0)):  # a Python number's array is weakly typed
        _same(fnp.unique(x, return_inverse=True), jnp.unique(x, return_inverse=True))
        assert fnp.unique(x).weak_type == jnp.unique(x).weak_type
        _same(fnp.argwhere(x), jnp.argwhere(x))


def test_numpy_inputs_and_other_dtypes():
    value = INPUTS["int 2-d"]
    _same(fnp.nonzero(value), jnp.nonzero(value))
    half = jnp.asarray([1.5, 0.5, 1.5], jnp.bfloat16)  # NumPy cannot sort bfloat16 as JAX does
    _same(fnp.unique(half, return_counts=True), jnp.unique(half, return_counts=True))
