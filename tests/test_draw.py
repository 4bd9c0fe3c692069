"""Eager random draws and fills need no program per shape, and keep their distributions."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import _compile, _draw, init, nd
from framework import np as fnp
from tests.conftest import compiled_in_new_process, count_compiles

# LeNet's and a small MLP's weight shapes: five sizes from 60 to 48,000 values, three of them 4-d
SHAPES = [(6, 1, 5, 5), (16, 6, 5, 5), (120, 400), (84, 120), (10, 84), (3,), (2, 2, 2, 2)]


def _flat_programs():
    return sum(1 for name in _compile.program_names(_draw._programs) if name == "draw")


@pytest.fixture
def programs_only(monkeypatch):
    """Every flat draw made by the two programs (the host draws' budget spent, as in a large model)."""
    monkeypatch.setattr(_draw, "_host_drawn", [_draw.HOST_VALUES])


@pytest.fixture
def host_budget(monkeypatch):
    """A process that has drawn nothing in host memory yet."""
    monkeypatch.setattr(_draw, "_host_drawn", [0])


def test_draws_of_many_shapes_share_a_few_programs(programs_only):
    _compile.forget(_draw._programs)
    key = jax.random.key(3)
    for shape in SHAPES:
        assert _draw.uniform(key, shape).shape == shape
        assert _draw.normal(key, shape).shape == shape
    # two size classes (4 Ki and 64 Ki values) times two distributions, whatever the shapes
    assert _flat_programs() == 4


def test_an_initializer_draws_through_the_size_classes(programs_only):
    _compile.forget(_draw._programs)
    for i, shape in enumerate(SHAPES[:5]):
        init.Xavier(rnd_type="gaussian").init_array(shape, key=jax.random.key(i))
        init.Xavier().init_array(shape, key=jax.random.key(i))
    assert _flat_programs() == 4


def test_large_draws_of_any_size_are_chunks_of_one_program(programs_only):
    _compile.forget(_draw._programs)
    key = jax.random.key(7)
    # ResNet-like weights: 37 Ki to 2.4 Mi values, each another size
    shapes = [(64, 64, 3, 3), (128, 64, 3, 3), (256, 128, 3, 3), (512, 512, 3, 3), (1000, 512), (70_001,)]
    draws = [onp.asarray(_draw.uniform(key, s, jnp.float32, -1.0, 1.0)) for s in shapes]
    assert [d.shape for d in draws] == shapes
    assert _flat_programs() == 1  # one program of 64 Ki values whatever the size
    big = draws[3].reshape(-1)
    # chunk i is drawn with fold_in(key, i): the chunks are not copies of each other
    def flat(k):
        return onp.asarray(jax.random.uniform(k, (_draw.CHUNK,), jnp.float32, -1.0, 1.0))
    flat0, flat2 = flat(jax.random.fold_in(key, 0)), flat(jax.random.fold_in(key, 2))
    onp.testing.assert_allclose(big[:_draw.CHUNK], flat0, rtol=1e-6, atol=1e-7)
    onp.testing.assert_allclose(big[2 * _draw.CHUNK:3 * _draw.CHUNK], flat2, rtol=1e-6, atol=1e-7)
    assert not onp.array_equal(big[:1000], big[_draw.CHUNK:_draw.CHUNK + 1000])


def test_a_warm_draw_of_a_new_shape_compiles_nothing_on_the_cpu():
    key = jax.random.key(1)
    _draw.uniform(key, (3,)), _draw.normal(key, (3,)), _draw.uniform(key, (70_000,))
    _draw.normal(key, (70_000,))

    def new_shapes():
        for i, shape in enumerate([(5, 7), (11, 3, 2), (300, 301), (9, 2, 3, 7)]):
            _draw.uniform(jax.random.key(i), shape, jnp.float32, -0.5, 0.5).block_until_ready()
            _draw.normal(jax.random.key(i), shape, jnp.float32, 2.0).block_until_ready()
    assert count_compiles(new_shapes) == 0


def test_draws_land_where_the_key_is():
    device = jax.devices()[-1]
    key = jax.device_put(jax.random.key(2), device)
    u = _draw.uniform(key, (6, 6))
    assert u.committed and u.devices() == {device}
    assert not _draw.normal(jax.random.key(2), (6, 6)).committed


def test_values_follow_the_distributions_and_the_key():
    key = jax.random.key(0)
    u = onp.asarray(_draw.uniform(key, (300, 200), jnp.float32, -2.0, 3.0))
    assert u.min() >= -2.0 and u.max() < 3.0
    assert abs(u.mean() - 0.5) < 0.02 and abs(u.var() - 25 / 12) < 0.05
    z = onp.asarray(_draw.normal(key, (300, 200), jnp.float32, 0.5))
    assert abs(z.mean()) < 0.01 and abs(z.std() - 0.5) < 0.01
    assert onp.array_equal(z, onp.asarray(_draw.normal(key, (300, 200), jnp.float32, 0.5)))
    assert not onp.array_equal(z, onp.asarray(_draw.normal(jax.random.key(1), (300, 200), jnp.float32, 0.5)))
    assert _draw.normal(key, (4, 4), jnp.bfloat16).dtype == jnp.bfloat16


def test_inside_a_trace_the_draw_is_jax_randoms_own():
    key = jax.random.key(5)
    got = jax.jit(lambda k: _draw.uniform(k, (7, 3), jnp.float32, -1.0, 1.0))(key)
    want = jax.random.uniform(key, (7, 3), jnp.float32, -1.0, 1.0)
    assert onp.array_equal(onp.asarray(got), onp.asarray(want))
    got = jax.jit(lambda k: _draw.normal(k, (5,), jnp.float32, 2.0))(key)
    assert onp.allclose(onp.asarray(got), onp.asarray(jax.random.normal(key, (5,)) * 2.0))


@pytest.mark.parametrize("draw", [fnp.random.uniform, fnp.random.normal])
def test_np_random_is_seeded_through_the_size_classes(draw, programs_only):
    _compile.forget(_draw._programs)
    fnp.random.seed(11)
    a = [onp.asarray(draw(size=s)) for s in SHAPES]
    assert _flat_programs() == 2  # one distribution, two size classes
    fnp.random.seed(11)
    b = [onp.asarray(draw(size=s)) for s in SHAPES]
    assert all(onp.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert [x.shape for x in a] == SHAPES


def test_the_accelerator_path_gives_the_host_paths_values(monkeypatch):
    key = jax.random.key(9)
    shapes = [(3, 5), (300, 301), (7,)]
    on_host = [onp.asarray(_draw.uniform(key, s, jnp.float32, -2.0, 2.0)) for s in shapes]
    on_host += [onp.asarray(_draw.normal(key, s, jnp.float32, 0.5)) for s in shapes]
    monkeypatch.setattr(_draw, "_host_device", lambda key: None)  # as for a key on a GPU
    on_device = [onp.asarray(_draw.uniform(key, s, jnp.float32, -2.0, 2.0)) for s in shapes]
    on_device += [onp.asarray(_draw.normal(key, s, jnp.float32, 0.5)) for s in shapes]
    assert "draw_finish" in _compile.program_names(_draw._programs)
    for a, b in zip(on_host, on_device, strict=True):
        onp.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_np_random_draws_of_new_shapes_compile_nothing_on_the_cpu():
    fnp.random.seed(5)
    fnp.random.normal(0, 0.01, (2, 2)), fnp.random.uniform(-1, 1, (2, 2))  # warm: each kind's programs
    got = []

    def new_shapes():
        for shape in [(3, 7), (50, 20), (9,), (2, 3, 4)]:
            got.append(fnp.random.normal(1.0, 0.5, shape))
            got.append(fnp.random.uniform(-3, 2, size=shape))
    assert count_compiles(new_shapes) == 0
    z = onp.concatenate([onp.ravel(x) for x in got[::2]])
    u = onp.concatenate([onp.ravel(x) for x in got[1::2]])
    assert abs(z.mean() - 1.0) < 0.1 and abs(z.std() - 0.5) < 0.1
    assert u.min() >= -3 and u.max() < 2 and abs(u.mean() + 0.5) < 0.3
    assert all(x.dtype == jnp.float32 for x in got)


def test_np_uniform_with_low_above_high_spans_the_interval_as_mxnets():
    # MXNet 1.9.1: mx.np.random.uniform(1.0, 0.0, size=(1000,)) gave values from 0.0012 to 0.99994
    for draw in (lambda: fnp.random.uniform(1.0, 0.0, size=(1000,)),
                 lambda: nd.random.uniform(1.0, 0.0, shape=(1000,))):
        u = onp.asarray(draw())
        assert u.min() >= 0.0 and u.max() <= 1.0 and u.min() < 0.1 and u.max() > 0.9


def test_uniform_float32_draws_on_the_cpu_are_made_in_host_memory_with_the_programs_values(host_budget):
    _compile.forget(_draw._programs)
    key = jax.random.key(21)
    shapes = [(6, 1, 5, 5), (120, 400), (70_001,), (3, 300, 300)]
    bounds = [(-0.07, 0.07), (0.0, 1.0), (-2.0, 5.0), (1.0, 1.5)]
    on_host = [onp.asarray(_draw.uniform(key, s, jnp.float32, a, b))
               for s, (a, b) in zip(shapes, bounds, strict=True)]
    assert _flat_programs() == 0
    assert _draw._host_drawn[0] == _draw.SMALL + (1 + 2 + 5) * _draw.CHUNK
    _draw._host_drawn[0] = _draw.HOST_VALUES  # the budget spent: the programs
    by_programs = [onp.asarray(_draw.uniform(key, s, jnp.float32, a, b))
                   for s, (a, b) in zip(shapes, bounds, strict=True)]
    assert _flat_programs() == 2
    for a, b in zip(on_host, by_programs, strict=True):
        assert a.dtype == b.dtype and onp.array_equal(a, b)


def test_host_draws_compile_nothing_and_land_where_the_key_is(host_budget):
    device = jax.devices()[-1]
    key = jax.device_put(jax.random.key(2), device)

    def draws():
        u = _draw.uniform(key, (40, 40), jnp.float32, -1.0, 1.0)
        assert u.committed and u.devices() == {device}
        fnp.random.seed(3)
        fnp.random.uniform(-1, 1, (5, 6)).block_until_ready()
        init.Uniform(0.07).init_array((16, 6, 3, 3), key=jax.random.key(5)).block_until_ready()
    assert count_compiles(draws) == 0


def test_other_dtypes_and_normal_draws_keep_their_programs(host_budget):
    _compile.forget(_draw._programs)
    key = jax.random.key(4)
    _draw.uniform(key, (10,), jnp.bfloat16), _draw.normal(key, (10,))
    assert _flat_programs() == 2 and _draw._host_drawn[0] == 0


_FRESH = """
from framework import np
from framework.gluon import nn
np.random.seed(123)
np.random.uniform(-1, 1, (3, 4)), np.random.uniform(size=(70_000,))
net = nn.Sequential()
net.add(nn.Conv2D(6, kernel_size=5, in_channels=1), nn.Dense(120, in_units=400),
        nn.Dense(10, in_units=120))
net.initialize()  # shapes known: every Parameter is drawn now
[p.data().block_until_ready() for p in net.collect_params().values()]
"""


def test_a_fresh_process_seeds_draws_and_initialises_a_network_without_compiling():
    assert compiled_in_new_process(_FRESH) == []
