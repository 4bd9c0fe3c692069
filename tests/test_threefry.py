"""Keys, fold_in and flat uniform draws in host memory are jax.random's bit for bit, compile nothing, and
leave every other case to jax.random."""

from __future__ import annotations

import jax
import jax.extend.random
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import _threefry
from tests.conftest import count_compiles

SEEDS = [0, 1, 7, 42, 12345, 2**31 - 1]
DATA = [0, 1, 3, 255, 2**31 - 1, 2**31, 2**32 - 1, 987654321]


def _words(k):
    return onp.asarray(jax.random.key_data(k))


@pytest.mark.parametrize("seed", SEEDS)
def test_keys_and_folded_keys_are_jax_randoms(seed):
    key = _threefry.key(seed)
    want = jax.random.key(seed)
    assert key.dtype == want.dtype and key.shape == ()
    assert onp.array_equal(_words(key), _words(want))
    for data in DATA:
        got = _threefry.fold_in(key, data)
        assert onp.array_equal(_words(got), _words(jax.random.fold_in(want, onp.uint32(data)))), data
    # numpy integers and nested folds
    nested = _threefry.fold_in(_threefry.fold_in(key, onp.uint32(5)), onp.int64(9))
    assert onp.array_equal(_words(nested), _words(jax.random.fold_in(jax.random.fold_in(want, 5), 9)))


@pytest.mark.parametrize("length", [1, 2, 3, 5, 4096, 65536])
@pytest.mark.parametrize("seed", [0, 3, 2**31 - 1])
def test_flat_uniform_draws_are_jax_randoms_bit_for_bit(seed, length):
    key = jax.random.fold_in(jax.random.key(seed), 17)
    got = _threefry.uniform_flat(_threefry.draw_words(key), length)
    want = onp.asarray(jax.random.uniform(key, (length,), jnp.float32))
    assert got.dtype == want.dtype == onp.float32 and got.shape == (length,)
    assert onp.array_equal(got.view(onp.uint32), want.view(onp.uint32))
    assert got.min() >= 0.0 and got.max() < 1.0


def test_the_cipher_matches_the_jax_primitive_on_arbitrary_words():
    rs = onp.random.RandomState(0)
    k0, k1 = (int(v) for v in rs.randint(0, 2**32, 2, dtype=onp.uint64))
    x0, x1 = (rs.randint(0, 2**32, 1000, dtype=onp.uint64).astype(onp.uint32) for _ in range(2))
    counts = onp.concatenate([x0, x1])  # JAX enciphers the pairs (first half, second half)
    want = onp.asarray(jax.extend.random.threefry_2x32(onp.array([k0, k1], onp.uint32), counts))
    a, b = _threefry.threefry2x32(k0, k1, x0, x1)
    assert onp.array_equal(onp.concatenate([a, b]), want)


def test_host_keys_compile_nothing():
    _threefry.key(0)  # any first-use work outside the count

    def work():
        for seed in (101, 202):
            k = _threefry.fold_in(_threefry.key(seed), 3)
            _threefry.uniform_flat(_threefry.draw_words(k), 4096)
            _threefry.fold_in(k, 2**32 - 1).block_until_ready()
    assert count_compiles(work) == 0


def test_a_folded_key_lands_where_the_key_is():
    device = jax.devices()[-1]
    key = jax.device_put(_threefry.key(4), device)
    out = _threefry.fold_in(key, 1)
    assert out.committed and out.devices() == {device}
    assert not _threefry.fold_in(_threefry.key(4), 1).committed


def test_everything_else_is_jax_randoms_own():
    # seeds outside [0, 2**31), data outside [0, 2**32), booleans, traced keys and data, raw uint32 keys
    for seed in (-1, 2**31):
        try:
            want = jax.random.key(seed)
        except OverflowError:
            with pytest.raises(OverflowError):
                _threefry.key(seed)
            continue
        assert onp.array_equal(_words(_threefry.key(seed)), _words(want))
    key = jax.random.key(3)
    calls = []

    def fallback(k, d):
        calls.append(d)
        return jax.random.fold_in(k, d)
    for data in (-1, 2**32):  # JAX's own error
        with pytest.raises(OverflowError):
            jax.random.fold_in(key, data)
        with pytest.raises(OverflowError):
            _threefry.fold_in(key, data)
    for data in (True, jnp.uint32(4)):
        _threefry.fold_in(key, data, fallback)
    assert calls[0] is True and len(calls) == 2
    traced = jax.jit(lambda k: jax.random.key_data(_threefry.fold_in(k, 6)))(key)
    assert onp.array_equal(onp.asarray(traced), _words(jax.random.fold_in(key, 6)))
    assert _threefry.host_key_data(jax.random.PRNGKey(0)) is None  # a raw uint32 key
    assert _threefry.host_key_data(jax.random.split(key, 2)) is None  # an array of keys
    with jax.threefry_partitionable(False):
        assert _threefry.draw_words(key) is None  # another bit layout
    assert _threefry.draw_words(key) is not None


def test_a_concrete_key_inside_a_trace_is_folded_in_the_program():
    key = jax.random.key(8)  # concrete, closed over by the traced function

    def folded(x):
        return jax.random.key_data(_threefry.fold_in(key, 3)) + x
    got = jax.jit(folded)(jnp.uint32(0))
    assert onp.array_equal(onp.asarray(got), _words(jax.random.fold_in(key, 3)))
    with jax.ensure_compile_time_eval():  # constants folded now: the host path serves it
        assert onp.array_equal(_words(_threefry.fold_in(key, 3)), _words(jax.random.fold_in(key, 3)))
