"""framework.npx.fast_cpu_depthwise: depthwise convolutions as shifted multiply-adds equal XLA's grouped
convolution in values and gradients, and npx dispatches to them on the CPU only while fast_cpu is on.
(MXNet 1.9.1's numbers for the layers: the MobileNet cases of tests/gluon/model_zoo.)"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest
from jax import lax

from framework import config, npx
from framework.npx.fast_cpu_depthwise import depthwise, supports_depthwise

# x shape, w shape, stride, padding, dilation, channel_last
CASES = {
    "k3_s2_multiplier2": ((2, 4, 9, 9), (8, 1, 3, 3), (2, 2), ((1, 1), (1, 1)), (1, 1), False),
    "k5x3_uneven_pad_dilated": ((2, 4, 9, 9), (4, 1, 5, 3), (1, 2), ((2, 1), (0, 1)), (2, 1), False),
    "nhwc_multiplier2": ((2, 9, 9, 4), (8, 3, 3, 1), (1, 1), ((1, 1), (1, 1)), (1, 1), True),
    "1d": ((2, 4, 11), (4, 1, 3), (2,), ((1, 1),), (1,), False),
    "3d": ((1, 3, 5, 6, 7), (3, 1, 3, 3, 3), (1, 1, 2), ((1, 1), (1, 1), (0, 0)), (1, 1, 1), False),
}


def _lax(x, w, stride, padding, dilation, channel_last):
    nd = x.ndim - 2
    sp = "DHW"[3 - nd:]
    spec = (f"N{sp}C", f"O{sp}I", f"N{sp}C") if channel_last else (f"NC{sp}", f"OI{sp}", f"NC{sp}")
    groups = x.shape[-1] if channel_last else x.shape[1]
    return lax.conv_general_dilated(x, w, stride, padding, rhs_dilation=dilation, dimension_numbers=spec,
                                    feature_group_count=groups, precision=lax.Precision.HIGHEST)


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_and_gradients_equal_xla_grouped_convolution(case):
    x_shape, w_shape, stride, padding, dilation, channel_last = CASES[case]
    rng = onp.random.RandomState(0)
    x = jnp.asarray(rng.randn(*x_shape), jnp.float32)
    w = jnp.asarray(rng.randn(*w_shape), jnp.float32)
    assert supports_depthwise(x_shape, w_shape, x_shape[-1] if channel_last else x_shape[1], padding,
                              channel_last)

    def ours(x, w):
        return depthwise(x, w, stride=stride, padding=padding, dilation=dilation, channel_last=channel_last)

    def ref(x, w):
        return _lax(x, w, stride, padding, dilation, channel_last)

    onp.testing.assert_allclose(ours(x, w), ref(x, w), rtol=1e-5, atol=1e-5)
    loss = [jax.grad(lambda x, w, f=f: jnp.sum(jnp.sin(f(x, w))), argnums=(0, 1)) for f in (ours, ref)]
    for got, want in zip(loss[0](x, w), loss[1](x, w), strict=True):
        onp.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_npx_convolution_dispatches_depthwise_layers_on_the_cpu_while_fast_cpu_is_on():
    rng = onp.random.RandomState(1)
    x = jnp.asarray(rng.randn(2, 6, 8, 8), jnp.float32)
    w = jnp.asarray(rng.randn(6, 1, 3, 3), jnp.float32)

    def conv(x, w):
        return npx.convolution(x, w, kernel=(3, 3), pad=(1, 1), num_filter=6, num_group=6, no_bias=True)

    # a new function for each trace: JAX caches a function's trace whatever framework.config says
    fast = str(jax.make_jaxpr(lambda x, w: conv(x, w))(x, w))
    with config.override(fast_cpu=False):
        plain = str(jax.make_jaxpr(lambda x, w: conv(x, w))(x, w))
        want = conv(x, w)
    assert "conv_general_dilated" not in fast and "conv_general_dilated" in plain
    onp.testing.assert_allclose(conv(x, w), want, rtol=1e-5, atol=1e-5)


def test_other_grouped_convolutions_are_left_to_xla():
    pad = ((1, 1), (1, 1))
    assert not supports_depthwise((2, 8, 9, 9), (8, 2, 3, 3), 4, pad, False)  # 2 input channels a group
    assert not supports_depthwise((2, 8, 9, 9), (8, 8, 3, 3), 1, pad, False)  # not grouped
    assert not supports_depthwise((2, 8, 9, 9), (8, 1, 9, 9), 8, pad, False)  # 81 taps
    assert not supports_depthwise((2, 8, 9, 9), (8, 1, 3, 3), 8, ((-1, 0), (0, 0)), False)
    assert supports_depthwise((2, 9, 9, 8), (16, 3, 3, 1), 8, pad, True)
