"""Initializers: MXNet's suffix dispatch, its rules' statistics, the registry, and errors."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

import framework as mx
from framework import initializer as init

KEY = jax.random.key(42)


def stats(a) -> onp.ndarray:
    a = onp.asarray(a, dtype=onp.float64)
    return onp.array([a.min(), a.max(), a.mean(), a.std()])


def test_reachable_as_mx_init():
    assert mx.init is mx.initializer is init
    assert isinstance(mx.init.Uniform(), init.Initializer)


def test_default_uniform_matches_mxnet_dense(ref):
    """Block.initialize()'s default (Uniform 0.07) on a 1000x1000 Dense weight, as measured in MXNet."""
    w = init.Uniform()("dense0_weight", (1000, 1000), "float32", key=KEY)
    assert w.dtype == jnp.float32 and w.shape == (1000, 1000)
    got, want = stats(w), ref["init_dense_w_stats"].astype(onp.float64)
    onp.testing.assert_allclose(got[[0, 1]], want[[0, 1]], atol=1e-4)
    assert abs(got[2]) < 4 * 0.0404 / 1000            # mean: 4 standard errors
    onp.testing.assert_allclose(got[3], want[3], rtol=2e-3)
    onp.testing.assert_allclose(got[3], 0.07 / onp.sqrt(3), rtol=2e-3)


def test_default_uniform_matches_mxnet_conv(ref):
    w = init.Uniform()("0.weight", (64, 32, 5, 5), "float32", key=KEY)
    got, want = stats(w), ref["init_conv_w_stats"].astype(onp.float64)
    onp.testing.assert_allclose(got[[0, 1]], want[[0, 1]], atol=2e-4)
    onp.testing.assert_allclose(got[3], want[3], rtol=1e-2)


def test_suffix_dispatch_matches_mxnet(ref):
    u = init.Uniform()
    bias = u("dense0_bias", (7,), "float32", key=KEY)
    assert float(jnp.abs(bias).max()) == float(ref["init_dense_bias_absmax"])
    gamma, beta, rmean, rvar = ref["init_bn"]
    onp.testing.assert_array_equal(u("1.gamma", (4,), key=KEY), gamma)
    onp.testing.assert_array_equal(u("1.beta", (4,), key=KEY), beta)
    onp.testing.assert_array_equal(u("1.running_mean", (4,), key=KEY), rmean)
    onp.testing.assert_array_equal(u("1.running_var", (4,), key=KEY), rvar)
    onp.testing.assert_array_equal(u("bn_moving_mean", (4,), key=KEY), rmean)
    onp.testing.assert_array_equal(u("bn_moving_var", (4,), key=KEY), rvar)
    onp.testing.assert_array_equal(u("q_min", (2,), key=KEY), [0, 0])
    onp.testing.assert_array_equal(u("q_max", (2,), key=KEY), [1, 1])
    w = u("0.weight", (3, 3), key=KEY)
    assert float(jnp.abs(w).max()) > 0


def test_unknown_suffix_raises_mxnet_error():
    with pytest.raises(ValueError, match=r"Unknown initialization pattern for 0\.alpha\. Default "
                                         r"initialization is now limited to \"weight\", \"bias\""):
        init.Uniform()("0.alpha", (2,), key=KEY)


def test_init_array_ignores_the_name():
    """A parameter's own init (bias_initializer='ones', init=Normal()) applies the rule itself."""
    onp.testing.assert_array_equal(init.One().init_array((3,), name="0.bias"), [1, 1, 1])
    w = init.Normal(1.0).init_array((4,), key=KEY, name="0.bias")
    assert float(jnp.abs(w).sum()) > 0


def test_initdesc_attr_init_wins():
    desc = init.InitDesc("0.bias", {"__init__": init.Constant(5.0).dumps()})
    onp.testing.assert_array_equal(init.Uniform()(desc, (2,), key=KEY), [5.0, 5.0])


def test_same_key_same_values_and_array_form():
    a = init.Xavier()("0.weight", (5, 6), key=KEY)
    b = init.Xavier()("0.weight", jnp.zeros((5, 6)), key=KEY)     # MXNet's init(name, arr) form
    onp.testing.assert_array_equal(a, b)
    c = init.Xavier()("0.weight", (5, 6), key=jax.random.PRNGKey(3))   # raw uint32 keys work too
    assert c.shape == (5, 6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64", "float32"])
def test_dtypes(dtype):
    with jax.enable_x64(dtype == "float64"):
        w = init.Uniform()("0.weight", (3, 3), dtype, key=KEY)
        assert w.dtype == jnp.dtype(dtype)
        assert init.Zero().init_array((2,), dtype).dtype == jnp.dtype(dtype)


def test_normal_std():
    w = init.Normal(sigma=0.5).init_array((400, 500), key=KEY)
    onp.testing.assert_allclose(float(w.std()), 0.5, rtol=1e-2)
    assert abs(float(w.mean())) < 4 * 0.5 / onp.sqrt(200_000)


@pytest.mark.parametrize("factor_type", ["avg", "in", "out"])
@pytest.mark.parametrize("rnd_type", ["uniform", "gaussian"])
def test_xavier_scale(rnd_type, factor_type):
    shape = (120, 40, 3, 3)                     # Gluon conv weight (out, in, kh, kw)
    fan_in, fan_out = 40 * 9, 120 * 9
    factor = {"avg": (fan_in + fan_out) / 2, "in": fan_in, "out": fan_out}[factor_type]
    scale = onp.sqrt(2.0 / factor)
    w = onp.asarray(init.Xavier(rnd_type, factor_type, magnitude=2).init_array(shape, key=KEY))
    if rnd_type == "uniform":
        assert w.min() >= -scale and w.max() <= scale
        onp.testing.assert_allclose(w.max(), scale, rtol=1e-2)
        onp.testing.assert_allclose(w.std(), scale / onp.sqrt(3), rtol=2e-2)
    else:
        onp.testing.assert_allclose(w.std(), scale, rtol=2e-2)


def test_xavier_dense_layout_is_out_in():
    """Dense weight (out=10, in=1000): fan_in is the SECOND axis."""
    w = onp.asarray(init.Xavier(factor_type="in", magnitude=3).init_array((10, 1000), key=KEY))
    onp.testing.assert_allclose(w.max(), onp.sqrt(3 / 1000), rtol=1e-2)


def test_xavier_errors():
    with pytest.raises(ValueError, match="cannot be applied to vector 0.weight"):
        init.Xavier()("0.weight", (5,), key=KEY)
    with pytest.raises(ValueError, match="Incorrect factor type"):
        init.Xavier(factor_type="fan")
    with pytest.raises(ValueError, match="Unknown random type"):
        init.Xavier(rnd_type="laplace")


def test_msraprelu():
    m = init.MSRAPrelu(factor_type="in", slope=0.25)
    assert m.rnd_type == "gaussian" and m.magnitude == pytest.approx(2 / 1.0625)
    w = onp.asarray(m.init_array((300, 200), key=KEY))
    onp.testing.assert_allclose(w.std(), onp.sqrt(2 / 1.0625 / 200), rtol=2e-2)
    assert json.loads(m.dumps()) == ["msraprelu", {"factor_type": "in", "slope": 0.25}]


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 3, 3)])
@pytest.mark.parametrize("rand_type", ["uniform", "normal"])
def test_orthogonal(shape, rand_type):
    w = onp.asarray(init.Orthogonal(scale=1.5, rand_type=rand_type).init_array(shape, key=KEY))
    assert w.shape == shape
    m = w.reshape(shape[0], -1) / 1.5
    gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    onp.testing.assert_allclose(gram, onp.eye(gram.shape[0]), atol=1e-5)


def test_constant_zero_one():
    onp.testing.assert_array_equal(init.Constant(0.5)("0.weight", (2, 2), key=None), 0.5)
    onp.testing.assert_array_equal(init.Zero()("0.weight", (2,)), [0, 0])
    onp.testing.assert_array_equal(init.One()("0.weight", (2,)), [1, 1])
    with pytest.raises(ValueError, match="cannot fill parameter"):
        init.Constant([1.0, 2.0, 3.0]).init_array((2, 2))


def test_bilinear_matches_mxnet_loop():
    shape = (2, 1, 4, 5)
    w = onp.asarray(init.Bilinear().init_array(shape))
    expect = onp.zeros(int(onp.prod(shape)), dtype="float32")
    f = onp.ceil(shape[3] / 2.0)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    for i in range(expect.size):
        x, y = i % shape[3], (i // shape[3]) % shape[2]
        expect[i] = (1 - abs(x / f - c)) * (1 - abs(y / f - c))
    onp.testing.assert_allclose(w, expect.reshape(shape), rtol=1e-6)


def test_lstmbias_mixed_load():
    onp.testing.assert_array_equal(init.LSTMBias(2.0).init_array((4,)), [0, 2, 0, 0])
    mixed = init.Mixed([".*bias", ".*"], ["zeros", init.Constant(3.0)])
    onp.testing.assert_array_equal(mixed("fc_bias", (2,)), [0, 0])
    onp.testing.assert_array_equal(mixed("conv_weight", (2,)), [3, 3])
    with pytest.raises(ValueError, match="did not match any pattern"):
        init.Mixed(["bias"], ["zeros"])("w", (2,))
    load = init.Load({"arg:w": onp.full(2, 7.0)}, default_init="ones")
    onp.testing.assert_array_equal(load("w", (2,)), [7, 7])
    onp.testing.assert_array_equal(load("other_weight", (2,)), [1, 1])
    with pytest.raises(ValueError, match="Shape mismatch"):
        load("w", (3,))


def test_registry_create_and_dumps():
    for name, klass in [("zeros", init.Zero), ("zero", init.Zero), ("ones", init.One),
                        ("uniform", init.Uniform), ("normal", init.Normal), ("xavier", init.Xavier),
                        ("msraprelu", init.MSRAPrelu), ("orthogonal", init.Orthogonal),
                        ("constant", init.Constant), ("bilinear", init.Bilinear), ("Xavier", init.Xavier)]:
        assert type(init.create(name)) is klass
    x = init.Xavier(rnd_type="gaussian", magnitude=2.0)
    assert json.loads(x.dumps()) == ["xavier", {"rnd_type": "gaussian", "factor_type": "avg",
                                                "magnitude": 2.0}]
    assert init.create(x.dumps()) == x
    assert init.create(x) is x
    assert init.create("normal", sigma=0.3).sigma == 0.3

    @init.register
    class MyInit(init.Initializer):
        def _init_weight(self, name, shape, dtype, key):
            return jnp.full(shape, 9.0, dtype)

    onp.testing.assert_array_equal(init.create("myinit")("a_weight", (1,)), [9.0])


def test_errors():
    with pytest.raises(ValueError, match="Cannot find initializer 'nope'. Registered"):
        init.create("nope")
    with pytest.raises(TypeError, match="must be an Initializer or a registered name"):
        init.create(3)
    with pytest.raises(ValueError, match="needs a PRNG key"):
        init.Uniform()("0.weight", (2, 2))
    with pytest.raises(ValueError, match="negative dimension"):
        init.Zero()("0.weight", (-1, 2))
    with pytest.raises(NotImplementedError):
        init.Initializer()("0.weight", (2,))
