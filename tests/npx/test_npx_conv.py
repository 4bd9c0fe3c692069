"""npx.convolution / npx.deconvolution vs MXNet 1.9.1 outputs, JAX autodiff and each other."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest
from jax.test_util import check_grads

from framework import npx
from framework.npx.conv import deconvolution_output_shape

CONV_CASES = {
    "conv_k3": {},
    "conv_k3_s2_p1": {"stride": (2, 2), "pad": (1, 1)},
    "conv_k3_d2": {"dilate": (2, 2)},
}


@pytest.mark.parametrize("case", sorted(CONV_CASES))
def test_convolution_matches_mxnet(ref, case):
    w, b = ref[f"{case}_weight"], ref[f"{case}_bias"]
    out = npx.convolution(ref["x"], w, b, kernel=w.shape[2:], num_filter=w.shape[0], **CONV_CASES[case])
    onp.testing.assert_allclose(out, ref[f"{case}_out"], rtol=1e-5, atol=1e-5)


def test_convolution_relu_and_no_bias_match_mxnet(ref):
    w, b = ref["conv_k5_relu_weight"], ref["conv_k5_relu_bias"]
    out = npx.activation(npx.convolution(ref["x"], w, b, kernel=(5, 5), num_filter=4), act_type="relu")
    onp.testing.assert_allclose(out, ref["conv_k5_relu_out"], rtol=1e-5, atol=1e-5)
    w = ref["conv_k3_nobias_weight"]
    out = npx.convolution(ref["x"], w, None, kernel=(3, 3), num_filter=4, no_bias=True)
    onp.testing.assert_allclose(out, ref["conv_k3_nobias_out"], rtol=1e-5, atol=1e-5)


def _naive_conv1d(x, w, b, stride, pad, dilate, groups):
    n, c, length = x.shape
    o, cg, k = w.shape
    xp = onp.pad(x, ((0, 0), (0, 0), (pad, pad)))
    out_len = (length + 2 * pad - dilate * (k - 1) - 1) // stride + 1
    out = onp.zeros((n, o, out_len), onp.float64)
    og = o // groups
    for oc in range(o):
        g = oc // og
        for t in range(out_len):
            for ci in range(cg):
                for kk in range(k):
                    out[:, oc, t] += xp[:, g * cg + ci, t * stride + kk * dilate] * w[oc, ci, kk]
        out[:, oc] += b[oc]
    return out


def test_convolution_1d_grouped_vs_numpy():
    rng = onp.random.RandomState(0)
    x = rng.randn(2, 4, 11).astype(onp.float32)
    w = rng.randn(6, 2, 3).astype(onp.float32)
    b = rng.randn(6).astype(onp.float32)
    out = npx.convolution(x, w, b, kernel=(3,), stride=(2,), pad=(2,), dilate=(2,), num_filter=6, num_group=2)
    onp.testing.assert_allclose(out, _naive_conv1d(x, w, b, 2, 2, 2, 2), rtol=1e-5, atol=1e-5)


def test_convolution_3d_shape_and_channel_last():
    rng = onp.random.RandomState(1)
    x = rng.randn(1, 2, 5, 6, 7).astype(onp.float32)
    w = rng.randn(3, 2, 2, 3, 3).astype(onp.float32)
    out = npx.convolution(x, w, kernel=(2, 3, 3), stride=(1, 2, 1), pad=(1, 0, 1), num_filter=3, no_bias=True)
    assert out.shape == (1, 3, 6, 2, 7)
    last = npx.convolution(jnp.moveaxis(x, 1, -1), jnp.moveaxis(w, 1, -1), kernel=(2, 3, 3), stride=(1, 2, 1),
                           pad=(1, 0, 1), num_filter=3, no_bias=True, layout="NDHWC")
    onp.testing.assert_allclose(jnp.moveaxis(last, -1, 1), out, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "nd,stride,pad,dilate,adj,groups",
    [(1, 2, 1, 1, 1, 1), (2, 2, 0, 1, 0, 1), (2, 3, 1, 2, 2, 2), (2, 1, 1, 1, 0, 3), (3, 2, 1, 1, 1, 1)],
)
def test_deconvolution_is_transpose_of_convolution(nd, stride, pad, dilate, adj, groups):
    rng = onp.random.RandomState(nd * 10 + stride)
    k = (3,) * nd
    cin = 2 * groups
    cout = 3 * groups
    y = rng.randn(2, cin, *(4,) * nd).astype(onp.float32)
    w = rng.randn(cin, cout // groups, *k).astype(onp.float32)
    kw = dict(kernel=k, stride=(stride,) * nd, pad=(pad,) * nd, dilate=(dilate,) * nd)
    out = npx.deconvolution(y, w, kernel=k, adj=(adj,) * nd, num_filter=cout, num_group=groups, no_bias=True,
                            **{a: kw[a] for a in ("stride", "pad", "dilate")})
    spatial, _, _ = deconvolution_output_shape((4,) * nd, k, kw["stride"], kw["dilate"], kw["pad"],
                                               (adj,) * nd)
    assert out.shape == (2, cout) + spatial
    # The convolution from the deconvolution's output space back to y's space uses the same weight.
    def conv(x):
        return npx.convolution(x, w, num_filter=cin, num_group=groups, no_bias=True, **kw)

    x0 = jnp.zeros(out.shape, jnp.float32)
    assert conv(x0).shape == y.shape
    _, vjp = jax.vjp(conv, x0)
    onp.testing.assert_allclose(out, vjp(jnp.asarray(y))[0], rtol=1e-4, atol=1e-4)


def test_deconvolution_target_shape_and_bias():
    y = jnp.ones((1, 2, 4, 4))
    w = jnp.ones((2, 3, 3, 3))
    out = npx.deconvolution(y, w, jnp.arange(3.0), kernel=(3, 3), stride=(2, 2), target_shape=(8, 8),
                            num_filter=3)
    assert out.shape == (1, 3, 8, 8)
    # full output 9 -> crop 1 at the start: position 0 is full position 1, hit once per input channel.
    onp.testing.assert_allclose(out[0, :, 0, 0], 2.0 + jnp.arange(3.0), rtol=1e-6)
    assert deconvolution_output_shape((5,), (4,), (3,), (1,), (0,), (0,), (15,)) == ((15,), (1,), (1,))


def test_deconvolution_channel_last_matches():
    rng = onp.random.RandomState(3)
    y = rng.randn(1, 2, 3, 4).astype(onp.float32)
    w = rng.randn(2, 3, 2, 2).astype(onp.float32)
    ref = npx.deconvolution(y, w, kernel=(2, 2), stride=(2, 2), num_filter=3)
    last = npx.deconvolution(jnp.moveaxis(y, 1, -1), jnp.moveaxis(w, 1, -1), kernel=(2, 2), stride=(2, 2),
                             num_filter=3, layout="NHWC")
    onp.testing.assert_allclose(jnp.moveaxis(last, -1, 1), ref, rtol=1e-5, atol=1e-5)


def test_convolution_and_deconvolution_gradients():
    rng = onp.random.RandomState(4)
    x = jnp.asarray(rng.randn(1, 2, 5, 5), jnp.float32)
    w = jnp.asarray(rng.randn(3, 2, 3, 3), jnp.float32)
    b = jnp.asarray(rng.randn(3), jnp.float32)

    def conv(x, w, b):
        return npx.convolution(x, w, b, kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=3)

    check_grads(jax.jit(conv), (x, w, b), order=1, modes=["rev"], eps=1e-2, atol=1e-2, rtol=1e-2)
    wd = jnp.asarray(rng.randn(2, 3, 3, 3), jnp.float32)

    def deconv(x, w, b):
        return npx.deconvolution(x, w, b, kernel=(3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 1), num_filter=3)

    check_grads(jax.jit(deconv), (x, wd, b), order=1, modes=["rev"], eps=1e-2, atol=1e-2, rtol=1e-2)


def test_convolution_is_jittable():
    f = jax.jit(lambda x, w: npx.convolution(x, w, kernel=(3, 3), num_filter=2, no_bias=True))
    assert f(jnp.ones((1, 1, 5, 5)), jnp.ones((2, 1, 3, 3))).shape == (1, 2, 3, 3)


def test_convolution_errors():
    x, w = jnp.ones((1, 2, 5, 5)), jnp.ones((3, 2, 3, 3))
    with pytest.raises(ValueError, match="kernel has 1 spatial dimension"):
        npx.convolution(x, jnp.ones((3, 2, 3)), kernel=(3,), num_filter=3)
    with pytest.raises(ValueError, match=r"weight has shape \(3, 2, 3, 3\) but .* requires \(4, 2, 3, 3\)"):
        npx.convolution(x, w, kernel=(3, 3), num_filter=4, no_bias=True)
    with pytest.raises(ValueError, match="num_group=2 must divide"):
        npx.convolution(jnp.ones((1, 3, 5, 5)), w, kernel=(3, 3), num_filter=3, num_group=2)
    with pytest.raises(ValueError, match="stride=.* has 1 values but the data has 2"):
        npx.convolution(x, w, kernel=(3, 3), stride=(1,), num_filter=3)
    with pytest.raises(ValueError, match="layout='NCW' does not fit 2-D"):
        npx.convolution(x, w, kernel=(3, 3), num_filter=3, layout="NCW")
    with pytest.raises(ValueError, match="bias has shape"):
        npx.convolution(x, w, jnp.ones(2), kernel=(3, 3), num_filter=3)
    with pytest.raises(ValueError, match="larger than the padded input"):
        npx.convolution(jnp.ones((1, 2, 2, 2)), w, kernel=(3, 3), num_filter=3)
    with pytest.raises(ValueError, match="adj=.* must be smaller than stride"):
        npx.deconvolution(x, jnp.ones((2, 3, 3, 3)), kernel=(3, 3), adj=(1, 1), num_filter=3)
    with pytest.raises(ValueError, match="too big"):
        npx.deconvolution(x, jnp.ones((2, 3, 3, 3)), kernel=(3, 3), target_shape=(20, 20), num_filter=3)
