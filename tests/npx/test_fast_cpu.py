"""framework.npx.fast_cpu: values and gradients equal the lax reference (and MXNet's outputs)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest
from jax import lax
from jax.test_util import check_grads

from framework import npx
from framework.npx import fast_cpu, fast_cpu_pool

RTOL = 2e-5  # float32: the banded GEMM sums in another order than XLA's convolution


def _ref_conv(x, w, b, stride, pad, dilation, groups):
    y = lax.conv_general_dilated(
        x, w, fast_cpu._pair("stride", stride), fast_cpu._padding(pad),
        rhs_dilation=fast_cpu._pair("dilation", dilation), feature_group_count=groups,
        dimension_numbers=("NCHW", "OIHW", "NCHW"), precision=lax.Precision.HIGHEST)
    return y if b is None else y + b[None, :, None, None]


def _ref_pool(x, kernel, stride, pad, ceil_mode):
    kernel = fast_cpu._pair("kernel", kernel)
    stride = kernel if stride is None else fast_cpu._pair("stride", stride)
    pad = fast_cpu._padding(pad)
    _, needed = fast_cpu_pool._pool_geometry(x.shape, kernel, stride, pad, ceil_mode)
    pads = tuple((lo, max(hi, p[1])) for (lo, hi), p in zip(needed, pad, strict=True))
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, *kernel), (1, 1, *stride), ((0, 0), (0, 0), *pads))


def _close(a, b, rtol=RTOL):
    a, b = onp.asarray(a), onp.asarray(b)
    assert a.shape == b.shape
    scale = max(float(onp.max(onp.abs(b))), 1e-6)
    assert float(onp.max(onp.abs(a - b))) <= rtol * scale, float(onp.max(onp.abs(a - b))) / scale


# (x shape, w shape, stride, pad, dilation, groups): LeNet's two convolutions and the variants supported
CONV_CASES = [
    ((4, 1, 28, 28), (6, 1, 5, 5), 1, 0, 1, 1),
    ((4, 6, 12, 12), (16, 6, 3, 3), 1, 0, 1, 1),
    ((2, 3, 7, 7), (4, 3, 3, 3), 2, 1, 1, 1),
    ((2, 3, 7, 7), (4, 3, 3, 3), 1, 0, 2, 1),
    ((3, 4, 9, 11), (6, 2, 3, 2), (2, 1), ((1, 2), (0, 1)), (1, 2), 2),
    ((2, 4, 8, 8), (4, 1, 3, 3), 1, 1, 1, 4),
    ((2, 2, 5, 6), (3, 2, 1, 1), 1, 0, 1, 1),
    ((1, 3, 10, 13), (5, 3, 4, 2), (3, 2), (2, 1), 1, 1),
]


@pytest.mark.parametrize(
    ("case", "bw"),
    [(c, None) for c in CONV_CASES] + [(CONV_CASES[i], 2) for i in (1, 2, 4)],  # explicit block widths
    ids=[f"conv{i}" for i in range(len(CONV_CASES))] + [f"conv{i}-bw2" for i in (1, 2, 4)],
)
def test_conv2d_values_and_gradients_equal_lax(case, bw):
    xs, ws, stride, pad, dil, groups = case
    rng = onp.random.default_rng(hash((case[0], case[1])) % 2**32)
    x, w = (jnp.asarray(rng.standard_normal(s), jnp.float32) for s in (xs, ws))
    b = jnp.asarray(rng.standard_normal(ws[0]), jnp.float32)

    def fast(x, w, b):
        return fast_cpu.conv2d(x, w, b, stride, pad, dil, groups, block_width=bw)

    def ref(x, w, b):
        return _ref_conv(x, w, b, stride, pad, dil, groups)

    y_ref = ref(x, w, b)
    ct = jnp.asarray(rng.standard_normal(y_ref.shape), jnp.float32)

    @jax.jit
    def values_and_grads(x, w, b):
        out = {}
        for name, f in (("fast", fast), ("ref", ref)):
            y, vjp = jax.vjp(f, x, w, b)
            out[name] = (y, *vjp(ct))
        return out

    out = values_and_grads(x, w, b)
    for got, want in zip(out["fast"], out["ref"], strict=True):
        _close(got, want)


def test_conv2d_random_shapes_under_jit():
    rng = onp.random.default_rng(7)
    for _ in range(3):
        c, o, k = (int(v) for v in rng.integers(1, 5, 3))
        h, wd = (int(v) for v in rng.integers(k, k + 9, 2))
        stride, pad = int(rng.integers(1, 3)), int(rng.integers(0, 2))
        x = jnp.asarray(rng.standard_normal((2, c, h, wd)), jnp.float32)
        w = jnp.asarray(rng.standard_normal((o, c, k, k)), jnp.float32)
        loss = jax.jit(jax.value_and_grad(lambda x, w, s=stride, p=pad: jnp.sum(
            jnp.sin(fast_cpu.conv2d(x, w, None, s, p))), argnums=(0, 1)))
        loss_ref = jax.value_and_grad(lambda x, w, s=stride, p=pad: jnp.sum(
            jnp.sin(_ref_conv(x, w, None, s, p, 1, 1))), argnums=(0, 1))
        (v, g), (v_ref, g_ref) = loss(x, w), loss_ref(x, w)
        _close(v, v_ref)
        _close(g[0], g_ref[0])
        _close(g[1], g_ref[1])


def test_conv2d_check_grads():
    rng = onp.random.default_rng(1)
    x = jnp.asarray(rng.standard_normal((2, 2, 6, 7)), jnp.float32)
    w = jnp.asarray(rng.standard_normal((3, 2, 3, 3)), jnp.float32)
    b = jnp.asarray(rng.standard_normal(3), jnp.float32)
    check_grads(jax.jit(lambda x, w, b: fast_cpu.conv2d(x, w, b, 1, 1)), (x, w, b), order=1, modes=("rev",),
                atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("case", ["conv_k3", "conv_k3_s2_p1", "conv_k3_d2", "conv_k5_relu", "conv_k3_nobias"])
def test_conv2d_matches_mxnet(ref, case):
    args = {"conv_k3_s2_p1": (2, 1, 1), "conv_k3_d2": (1, 0, 2)}.get(case, (1, 0, 1))
    bias = ref.get(f"{case}_bias")
    out = fast_cpu.conv2d(jnp.asarray(ref["x"]), jnp.asarray(ref[f"{case}_weight"]),
                          None if bias is None else jnp.asarray(bias), *args)
    if case == "conv_k5_relu":
        out = jax.nn.relu(out)
    onp.testing.assert_allclose(out, ref[f"{case}_out"], rtol=1e-5, atol=1e-5)


def test_conv2d_equals_npx_convolution():
    rng = onp.random.default_rng(3)
    x = jnp.asarray(rng.standard_normal((2, 6, 12, 12)), jnp.float32)
    w = jnp.asarray(rng.standard_normal((16, 6, 3, 3)), jnp.float32)
    b = jnp.asarray(rng.standard_normal(16), jnp.float32)
    conv = jax.jit(lambda x, w, b: npx.convolution(x, w, b, kernel=(3, 3), num_filter=16, pad=(1, 1)))
    want = conv(x, w, b)
    _close(jax.jit(lambda x, w, b: fast_cpu.conv2d(x, w, b, pad=1))(x, w, b), want)


def test_supports_conv2d_refuses_what_conv2d_cannot_compute():
    assert not fast_cpu.supports_conv2d((8, 3, 32, 32), (16, 3, 3, 3), dtype=jnp.int32)
    assert not fast_cpu.supports_conv2d((8, 3, 32), (16, 3, 3))  # not 2-D
    assert not fast_cpu.supports_conv2d((8, 3, 32, 32), (16, 2, 3, 3), groups=2)  # 3 channels, 2 groups
    assert not fast_cpu.supports_conv2d((8, 3, 2, 2), (16, 3, 3, 3))  # kernel larger than input
    assert not fast_cpu.supports_conv2d((8, 3, 9, 9), (16, 3, 3, 3), stride=0)
    assert not fast_cpu.supports_conv2d((8, 3, 9, 9), (16, 3, 3, 3), pad=(1, 2, 3))


def test_supports_conv2d_follows_its_documented_speed_rule():
    """The speed rule (not its calibration): the channel limits and the slice bound, probed on both
    sides of the module's thresholds, everything else held small."""
    c_max, o_max = fast_cpu._MAX_IN_CHANNELS, fast_cpu._MAX_OUT_CHANNELS
    assert fast_cpu.supports_conv2d((2, c_max, 12, 12), (o_max, c_max, 3, 3))
    assert not fast_cpu.supports_conv2d((2, c_max + 1, 12, 12), (o_max, c_max + 1, 3, 3))
    assert not fast_cpu.supports_conv2d((2, c_max, 12, 12), (o_max + 1, c_max, 3, 3))
    # wider images: more column blocks x row taps than _MAX_PIECES slices (LeNet's 5x5, 6 filters)
    pieces = {}
    for w in (76, 84):
        nb = fast_cpu._geometry((1, 1, 8, w), (6, 1, 5, 5), (1, 1), ((0, 0), (0, 0)), (1, 1), None)[3]
        pieces[w] = nb * 5
        assert fast_cpu.supports_conv2d((1, 1, 8, w), (6, 1, 5, 5)) == (nb * 5 <= fast_cpu._MAX_PIECES), w
    assert min(pieces.values()) <= fast_cpu._MAX_PIECES < max(pieces.values())  # both sides probed


def test_conv2d_errors_name_the_problem():
    x = jnp.ones((1, 3, 8, 8))
    with pytest.raises(ValueError, match=r"weight \(4, 2, 3, 3\) with groups=1 does not fit data with 3"):
        fast_cpu.conv2d(x, jnp.ones((4, 2, 3, 3)))
    with pytest.raises(ValueError, match="data must be 4-D NCHW"):
        fast_cpu.conv2d(jnp.ones((3, 8, 8)), jnp.ones((4, 3, 3, 3)))
    with pytest.raises(ValueError, match="does not fit the padded input"):
        fast_cpu.conv2d(jnp.ones((1, 1, 2, 2)), jnp.ones((1, 1, 3, 3)))
    with pytest.raises(ValueError, match=r"stride=\(0, 1\) and dilation=\(1, 1\) must be >= 1"):
        fast_cpu.conv2d(x, jnp.ones((4, 3, 3, 3)), stride=(0, 1))
    with pytest.raises(ValueError, match=r"pad=\(1, 2, 3\) must be"):
        fast_cpu.conv2d(x, jnp.ones((4, 3, 3, 3)), pad=(1, 2, 3))


@pytest.mark.parametrize("multiple", [1, 2, 3, 4])
def test_block_width_is_the_smallest_block_with_a_big_enough_band(multiple):
    """block_width's contract, checked on a grid: it divides the row, is a multiple of ``multiple`` and
    is the smallest such width whose band matrix has _MIN_BAND_ENTRIES entries, else the whole row."""
    def band(bw, o, c, k, s):
        return k * c * ((bw - 1) * s + k) * o * bw

    for wo in (1, 7, 10, 12, 24, 30):
        for o, c, k, s in ((6, 1, 5, 1), (16, 6, 3, 1), (2, 1, 1, 2), (32, 6, 3, 2)):
            bw = fast_cpu.block_width(wo, o, c, k, s, multiple=multiple)
            fits = [b for b in range(multiple, wo + 1, multiple)
                    if wo % b == 0 and band(b, o, c, k, s) >= fast_cpu._MIN_BAND_ENTRIES]
            assert bw == (fits[0] if fits else wo), (wo, o, c, k, s)


# (x shape, kernel, stride, pad, ceil_mode): tiling windows take the reshape path, others strided slices
POOL_CASES = [
    ((4, 6, 24, 24), 2, None, 0, False),
    ((4, 16, 10, 10), 2, 2, 0, False),
    ((2, 3, 5, 7), 2, 2, 0, True),
    ((2, 3, 7, 7), 2, 2, 0, False),
    ((2, 2, 6, 6), 3, 3, 1, False),
    ((2, 3, 8, 8), 3, 2, 1, True),
    ((2, 3, 9, 9), 3, 1, 1, False),
    ((1, 2, 7, 6), (2, 3), (1, 2), ((0, 1), (1, 0)), False),
]


@pytest.mark.parametrize("case", POOL_CASES, ids=[f"pool{i}" for i in range(len(POOL_CASES))])
def test_max_pool2d_values_and_gradients_equal_reduce_window(case):
    xs, kernel, stride, pad, ceil_mode = case
    rng = onp.random.default_rng(len(xs) + sum(xs))
    k = fast_cpu._pair("kernel", kernel)
    tiles = (k == (k if stride is None else fast_cpu._pair("stride", stride)))

    @jax.jit
    def values_and_grads(x, ct):
        y, vjp = jax.vjp(lambda x: fast_cpu.max_pool2d(x, kernel, stride, pad, ceil_mode), x)
        y_ref, vjp_ref = jax.vjp(lambda x: _ref_pool(x, kernel, stride, pad, ceil_mode), x)
        return y, y_ref, vjp(ct)[0], vjp_ref(ct)[0]

    for x in (rng.standard_normal(xs), rng.integers(0, 3, xs)):  # the small integers make ties
        x = jnp.asarray(x, jnp.float32)
        ct = jnp.asarray(rng.standard_normal(_ref_pool(x, kernel, stride, pad, ceil_mode).shape), jnp.float32)
        y, y_ref, g, g_ref = values_and_grads(x, ct)
        onp.testing.assert_array_equal(y, y_ref)
        if tiles:  # every input cell gets at most one cotangent: bit-exact
            onp.testing.assert_array_equal(g, g_ref)
        else:  # overlapping windows add cotangents, maybe in another order
            onp.testing.assert_allclose(g, g_ref, rtol=1e-6, atol=1e-6)


def test_max_pool2d_ties_go_to_the_first_max():
    x = jnp.asarray([[[[1.0, 1.0, 0.0, 3.0], [1.0, 1.0, 3.0, 3.0]]]])
    g = jax.grad(lambda x: fast_cpu.max_pool2d(x, 2).sum())(x)
    onp.testing.assert_array_equal(g, [[[[1, 0, 0, 1], [0, 0, 0, 0]]]])


@pytest.mark.parametrize("case", ["maxpool_2_2", "maxpool_2_2_ceil", "maxpool_3_2_p1", "maxpool_3_2_p1_ceil",
                                  "x8_maxpool_3_2_p1", "x8_maxpool_3_2_p1_ceil"])
def test_max_pool2d_matches_mxnet(ref, case):
    kernel, stride, pad = (3, 2, 1) if "3_2_p1" in case else (2, 2, 0)
    x = ref["x8"] if case.startswith("x8") else ref["x"]
    out = fast_cpu.max_pool2d(jnp.asarray(x), kernel, stride, pad, ceil_mode=case.endswith("ceil"))
    onp.testing.assert_array_equal(out, ref[f"{case}_out"])


def test_max_pool2d_equals_npx_pooling_with_gradient():
    x = jnp.asarray(onp.random.default_rng(5).integers(0, 4, (2, 3, 9, 8)), jnp.float32)
    for kw in (dict(kernel=(2, 2), stride=(2, 2)), dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1))):

        @jax.jit
        def both(x, kw=kw):
            want, vjp_want = jax.vjp(lambda x: npx.pooling(x, pooling_convention="full", **kw), x)
            got, vjp_got = jax.vjp(lambda x: fast_cpu.max_pool2d(
                x, kw["kernel"], kw["stride"], kw.get("pad", 0), ceil_mode=True), x)
            return got, want, vjp_got(jnp.ones_like(got))[0], vjp_want(jnp.ones_like(want))[0]

        got, want, g_got, g_want = both(x)
        onp.testing.assert_array_equal(got, want)
        onp.testing.assert_allclose(g_got, g_want)


def test_max_pool2d_integers_and_check_grads():
    xi = jnp.arange(32, dtype=jnp.int32).reshape(1, 2, 4, 4)
    onp.testing.assert_array_equal(fast_cpu.max_pool2d(xi, 2), [[[[5, 7], [13, 15]], [[21, 23], [29, 31]]]])
    x = jnp.asarray(onp.random.default_rng(2).permutation(72).reshape(1, 2, 6, 6), jnp.float32)
    check_grads(jax.jit(lambda x: fast_cpu.max_pool2d(x, 3, 2, 1)), (x,), order=1, modes=("rev",), eps=0.1)
    check_grads(jax.jit(lambda x: fast_cpu.max_pool2d(x, 2)), (x,), order=1, modes=("rev",), eps=0.1)


def test_supports_and_errors_max_pool2d():
    assert fast_cpu.supports_max_pool2d((256, 6, 24, 24), 2)
    assert fast_cpu.supports_max_pool2d((2, 3, 8, 8), 3, 2, 1, ceil_mode=True)
    assert not fast_cpu.supports_max_pool2d((1, 1, 2, 2), 3)
    assert not fast_cpu.supports_max_pool2d((1, 2, 2), 2)
    assert not fast_cpu.supports_max_pool2d((1, 1, 4, 4), 2, 0)
    assert not fast_cpu.supports_max_pool2d((1, 1, 4, 4), 2, dtype=jnp.bool_)
    with pytest.raises(ValueError, match=r"cannot pool data of shape \(1, 1, 2, 2\) with kernel=\(3, 3\)"):
        fast_cpu.max_pool2d(jnp.ones((1, 1, 2, 2)), 3)
    with pytest.raises(ValueError, match=r"kernel=\(2, 2, 2\) must be an int or 2 ints"):
        fast_cpu.max_pool2d(jnp.ones((1, 1, 4, 4)), (2, 2, 2))


def _ref_conv_pool(x, w, b, stride, pad, dilation, groups, pool, activation):
    y = _ref_conv(x, w, b, stride, pad, dilation, groups)
    y = y if activation is None else npx.activation(y, act_type=activation)
    return _ref_pool(y, pool, pool, 0, False)


# (x shape, w shape, stride, pad, dilation, groups, pool, activation, block width)
FUSED_CASES = [
    ((4, 1, 28, 28), (6, 1, 5, 5), 1, 0, 1, 1, 2, "relu", None),
    ((4, 6, 12, 12), (16, 6, 3, 3), 1, 0, 1, 1, 2, "relu", None),
    ((4, 6, 12, 12), (16, 6, 3, 3), 1, 0, 1, 1, 2, "relu", 4),
    ((3, 4, 9, 11), (6, 2, 3, 2), (2, 1), ((1, 2), (0, 1)), (1, 2), 2, 2, None, None),
    ((2, 3, 9, 9), (5, 3, 3, 3), 1, 1, 1, 1, (3, 2), "relu", 4),
    ((2, 2, 13, 13), (4, 2, 2, 2), 1, 0, 1, 1, 3, "relu", None),
    ((4, 20, 12, 12), (50, 20, 5, 5), 1, 0, 1, 1, 2, "tanh", None),  # the symbolic LeNet's second layer
    ((3, 2, 10, 10), (4, 2, 3, 3), 1, 1, 1, 1, 2, "sigmoid", None),
    ((3, 2, 10, 10), (4, 2, 3, 3), 1, 0, 1, 1, 2, "softrelu", None),
    ((3, 2, 10, 10), (4, 2, 3, 3), 1, 0, 1, 1, 2, "softsign", None),
    ((3, 2, 10, 10), (4, 2, 3, 3), 1, 0, 1, 1, 2, "log_sigmoid", None),
]


@pytest.mark.parametrize("case", FUSED_CASES, ids=[f"fused{i}" for i in range(len(FUSED_CASES))])
def test_conv2d_maxpool2d_equals_separate_lax_ops(case):
    xs, ws, stride, pad, dil, groups, pool, act, bw = case
    rng = onp.random.default_rng(sum(xs) + sum(ws))

    def fast(x, w, b):
        return fast_cpu.conv2d_maxpool2d(x, w, b, stride, pad, dil, groups, pool=pool, activation=act,
                                         block_width=bw)

    def ref(x, w, b):
        return _ref_conv_pool(x, w, b, stride, pad, dil, groups, pool, act)

    @jax.jit
    def values_and_grads(x, w, b, ct):
        out = {}
        for name, f in (("fast", fast), ("ref", ref)):
            y, vjp = jax.vjp(f, x, w, b)
            out[name] = (y, *vjp(ct))
        return out

    for ints in (False, True):  # small integers make ties in the pooling windows
        draw = (lambda s: rng.integers(-1, 2, s)) if ints else rng.standard_normal
        x, w, b = (jnp.asarray(draw(s), jnp.float32) for s in (xs, ws, (ws[0],)))
        ct = jnp.asarray(rng.standard_normal(ref(x, w, b).shape), jnp.float32)
        out = values_and_grads(x, w, b, ct)
        for got, want in zip(out["fast"], out["ref"], strict=True):
            _close(got, want, RTOL * max(1.0, ws[1] * ws[2] * ws[3] / 128))  # rounding grows with the sum


def test_conv2d_maxpool2d_supports_and_errors():
    assert fast_cpu.supports_conv2d_maxpool2d((256, 1, 28, 28), (6, 1, 5, 5))
    assert fast_cpu.supports_conv2d_maxpool2d((256, 6, 12, 12), (16, 6, 3, 3), pool=2)
    assert not fast_cpu.supports_conv2d_maxpool2d((2, 1, 5, 5), (6, 1, 5, 5))  # 1x1 output, no 2x2 window
    c = fast_cpu._MAX_IN_CHANNELS + 1  # over the convolution's channel limit
    assert not fast_cpu.supports_conv2d_maxpool2d((8, c, 14, 14), (8, c, 3, 3))
    # a 5x5 kernel fused with its pooling admits more channels than the convolution alone
    assert fast_cpu.supports_conv2d_maxpool2d((64, 20, 12, 12), (50, 20, 5, 5))
    assert not fast_cpu.supports_conv2d((64, 20, 12, 12), (50, 20, 5, 5))
    c = fast_cpu._FUSED_MAX_IN_CHANNELS + 1
    assert not fast_cpu.supports_conv2d_maxpool2d((64, c, 12, 12), (50, c, 5, 5))
    assert not fast_cpu.supports_conv2d_maxpool2d((8, 1, 28, 28), (6, 1, 5, 5), pool=0)
    x, w = jnp.ones((1, 1, 8, 8)), jnp.ones((2, 1, 3, 3))
    with pytest.raises(ValueError, match="activation='mish' is not supported; use None or one of"):
        fast_cpu.conv2d_maxpool2d(x, w, activation="mish")  # not monotone: max does not commute with it
    with pytest.raises(ValueError, match=r"leaves no \(7, 7\) pooling window"):
        fast_cpu.conv2d_maxpool2d(x, w, pool=7)
    with pytest.raises(ValueError, match=r"pool=\(0, 0\) must be >= 1"):
        fast_cpu.conv2d_maxpool2d(x, w, pool=0)
