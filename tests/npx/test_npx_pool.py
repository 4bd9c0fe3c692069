"""npx.pooling vs MXNet 1.9.1 outputs (ceil mode, padding divisors) and a NumPy loop for 1-D/3-D."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as onp
import pytest
from jax.test_util import check_grads

from framework import npx

REF = {
    "maxpool_default_out": ("x", dict(kernel=(2, 2), stride=(2, 2))),
    "maxpool_2_2_out": ("x", dict(kernel=(2, 2), stride=(2, 2))),
    "maxpool_2_2_ceil_out": ("x", dict(kernel=(2, 2), stride=(2, 2), pooling_convention="full")),
    "maxpool_3_2_p1_out": ("x", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1))),
    "maxpool_3_2_p1_ceil_out": ("x", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1),
                                          pooling_convention="full")),
    "avgpool_2_2_ceil_incl_out": ("x", dict(kernel=(2, 2), stride=(2, 2), pooling_convention="full",
                                            pool_type="avg", count_include_pad=True)),
    "avgpool_2_2_ceil_excl_out": ("x", dict(kernel=(2, 2), stride=(2, 2), pooling_convention="full",
                                            pool_type="avg", count_include_pad=False)),
    "avgpool_3_2_p1_incl_out": ("x", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg")),
    "avgpool_3_2_p1_excl_out": ("x", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
                                          count_include_pad=False)),
    "x8_avgpool_3_2_p1_incl_out": ("x8", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg")),
    "x8_avgpool_3_2_p1_ceil_incl_out": ("x8", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
                                                   pooling_convention="full")),
    "x8_avgpool_3_2_p1_ceil_excl_out": ("x8", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
                                                   pooling_convention="full", count_include_pad=False)),
    "x8_maxpool_3_2_p1_out": ("x8", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1))),
    "x8_maxpool_3_2_p1_ceil_out": ("x8", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1),
                                              pooling_convention="full")),
    "globalavgpool_out": ("x", dict(global_pool=True, pool_type="avg")),
    "globalmaxpool_out": ("x", dict(global_pool=True, pool_type="max")),
}


@pytest.mark.parametrize("case", sorted(REF))
def test_pooling_matches_mxnet(ref, case):
    data, kwargs = REF[case]
    out = npx.pooling(ref[data], **kwargs)
    assert out.shape == ref[case].shape
    onp.testing.assert_allclose(out, ref[case], rtol=1e-5, atol=1e-5)


def _naive(x, kernel, stride, pad, ceil, pool_type, include_pad):
    """MXNet's rules, one window at a time."""
    spatial = x.shape[2:]
    outs = []
    for n, k, s, p in zip(spatial, kernel, stride, pad, strict=True):
        span = n + 2 * p - k
        outs.append((-(-span // s) if ceil else span // s) + 1)
    out = onp.zeros(x.shape[:2] + tuple(outs), onp.float64)
    for pos in itertools.product(*(range(o) for o in outs)):
        lo = [q * s - p for q, s, p in zip(pos, stride, pad, strict=True)]
        hi = [a + k for a, k in zip(lo, kernel, strict=True)]
        real = tuple(slice(max(a, 0), min(b, n)) for a, b, n in zip(lo, hi, spatial, strict=True))
        win = x[(slice(None), slice(None)) + real].reshape(x.shape[:2] + (-1,))
        if pool_type == "max":
            val = win.max(-1)
        elif pool_type == "sum":
            val = win.sum(-1)
        else:
            if include_pad:
                count = onp.prod([min(b, n + p) - max(a, -p) for a, b, n, p in zip(lo, hi, spatial, pad,
                                                                                    strict=True)])
            else:
                count = win.shape[-1]
            val = win.sum(-1) / count
        out[(slice(None), slice(None)) + pos] = val
    return out


@pytest.mark.parametrize("pool_type", ["max", "avg", "sum"])
@pytest.mark.parametrize(
    "nd,ceil,include", [(1, True, True), (1, False, False), (3, True, False), (3, False, True)]
)
def test_pooling_1d_3d_vs_numpy(pool_type, nd, ceil, include):
    rng = onp.random.RandomState(nd)
    x = rng.randn(2, 2, *((9, 7, 6)[:nd] if nd == 3 else (10,))).astype(onp.float32)
    kernel, stride, pad = (3,) * nd, (2,) * nd, (1,) * nd
    out = npx.pooling(x, kernel=kernel, stride=stride, pad=pad, pool_type=pool_type,
                      pooling_convention="full" if ceil else "valid", count_include_pad=include)
    want = _naive(x, kernel, stride, pad, ceil, pool_type, include)
    onp.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_lp_pooling_and_global_1d():
    x = jnp.asarray(onp.random.RandomState(0).randn(1, 2, 6), jnp.float32)
    lp = npx.pooling(x, kernel=(2,), stride=(2,), pool_type="lp", p_value=2)
    onp.testing.assert_allclose(lp, jnp.sqrt((x.reshape(1, 2, 3, 2) ** 2).sum(-1)), rtol=1e-5)
    lp3 = npx.pooling(jnp.abs(x), kernel=(2,), stride=(2,), pool_type="lp", p_value=3)
    onp.testing.assert_allclose(lp3, ((jnp.abs(x).reshape(1, 2, 3, 2) ** 3).sum(-1)) ** (1 / 3), rtol=1e-5)
    assert npx.pooling(x, global_pool=True, pool_type="avg").shape == (1, 2, 1)


def test_pooling_channel_last_matches():
    x = jnp.asarray(onp.random.RandomState(2).randn(1, 3, 7, 7), jnp.float32)
    kw = dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg", pooling_convention="full")
    last = npx.pooling(jnp.moveaxis(x, 1, -1), layout="NHWC", **kw)
    onp.testing.assert_allclose(jnp.moveaxis(last, -1, 1), npx.pooling(x, **kw), rtol=1e-6)


@pytest.mark.parametrize("pool_type", ["max", "avg"])
def test_pooling_gradients(pool_type):
    x = jnp.asarray(onp.random.RandomState(5).randn(1, 2, 5, 5), jnp.float32)

    def f(x):
        return npx.pooling(x, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type=pool_type,
                           pooling_convention="full")

    check_grads(jax.jit(f), (x,), order=1, modes=["rev"], eps=1e-3, atol=1e-2, rtol=1e-2)
    assert jax.jit(f)(x).shape == (1, 2, 3, 3)


def test_pooling_errors():
    x = jnp.ones((1, 2, 5, 5))
    with pytest.raises(ValueError, match="pool_type='median' is not one of"):
        npx.pooling(x, kernel=(2, 2), pool_type="median")
    with pytest.raises(ValueError, match="kernel has 1 spatial dimension.*data must be 3-D"):
        npx.pooling(x, kernel=(2,))
    with pytest.raises(ValueError, match="kernel is required"):
        npx.pooling(x)
    with pytest.raises(ValueError, match="pooling_convention='ceil' is not one of"):
        npx.pooling(x, kernel=(2, 2), pooling_convention="ceil")
    with pytest.raises(ValueError, match="larger than the padded input"):
        npx.pooling(x, kernel=(6, 6))
    with pytest.raises(ValueError, match="data must be 3-D, 4-D or 5-D"):
        npx.pooling(jnp.ones((2, 3)), kernel=(2,))
