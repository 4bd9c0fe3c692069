"""framework.npx.fast_cpu_pointwise: 1x1 convolutions as batched matrix products equal XLA's convolution in
values and in reverse, forward and second-order derivatives, and npx dispatches to them on the CPU only
while fast_cpu is on. (MXNet 1.9.1's numbers for the layers: the ResNet-50 cases of tests/gluon/model_zoo.)"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest
from jax import lax

from framework import config, npx
from framework.npx.fast_cpu_pointwise import pointwise, supports_pointwise

NO_PAD = ((0, 0), (0, 0))


def _lax(x, w, stride):
    return lax.conv_general_dilated(x, w, stride, NO_PAD, dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                    precision=lax.Precision.HIGHEST)


def _close(got, want):
    onp.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("stride", [(1, 1), (2, 2), (2, 3)])
def test_values_and_derivatives_equal_xla_convolution(stride):
    rng = onp.random.RandomState(0)
    x = jnp.asarray(rng.randn(2, 5, 15, 16), jnp.float32)
    w = jnp.asarray(rng.randn(7, 5, 1, 1), jnp.float32)

    def ours(x, w):
        return pointwise(x, w, stride)

    def ref(x, w):
        return _lax(x, w, stride)

    _close(ours(x, w), ref(x, w))
    grads = [jax.grad(lambda x, w, f=f: jnp.sum(jnp.sin(f(x, w))), argnums=(0, 1))(x, w) for f in (ours, ref)]
    for got, want in zip(*grads, strict=True):
        _close(got, want)
    tangents = (jnp.cos(x), jnp.sin(w))
    _close(jax.jvp(ours, (x, w), tangents)[1], jax.jvp(ref, (x, w), tangents)[1])
    second = [jax.grad(lambda w, f=f: jnp.sum(jax.grad(lambda x: jnp.sum(jnp.sin(f(x, w))))(x) ** 2))(w)
              for f in (ours, ref)]
    _close(*second)


def _conv(x, w):
    return npx.convolution(x, w, kernel=(1, 1), num_filter=8, no_bias=True)


def test_npx_convolution_trains_1x1_layers_as_products_on_the_cpu_while_fast_cpu_is_on():
    rng = onp.random.RandomState(1)
    x = jnp.asarray(rng.randn(2, 6, 14, 14), jnp.float32)
    w = jnp.asarray(rng.randn(8, 6, 1, 1), jnp.float32)

    def grad_jaxpr(x, w):  # a new function for each trace: JAX caches a trace whatever framework.config says
        return str(jax.make_jaxpr(jax.grad(lambda x, w: jnp.sum(_conv(x, w) ** 2), argnums=(0, 1)))(x, w))

    fast, evaluated = grad_jaxpr(x, w), str(jax.make_jaxpr(lambda x, w: _conv(x, w))(x, w))
    with config.override(fast_cpu=False):
        plain = grad_jaxpr(x, w)
        want = jax.grad(lambda x, w: jnp.sum(_conv(x, w) ** 2), argnums=(0, 1))(x, w)
    assert "conv_general_dilated" not in fast and "dot_general" in fast
    assert "conv_general_dilated" in plain and "dot_general" not in plain
    assert "custom_jvp_call" in evaluated and "conv_general_dilated" in evaluated  # evaluation: XLA's
    got = jax.grad(lambda x, w: jnp.sum(_conv(x, w) ** 2), argnums=(0, 1))(x, w)
    for g, e in zip(got, want, strict=True):
        _close(g, e)


def test_other_convolutions_are_left_to_xla():
    big = (16, 256, 56, 56)
    assert supports_pointwise(big, (64, 256, 1, 1), (1, 1), NO_PAD, 1, False)
    assert supports_pointwise(big, (512, 256, 1, 1), (2, 2), NO_PAD, 1, False)  # 28x28 out
    assert supports_pointwise(big, (64, 256, 1, 1), (4, 4), NO_PAD, 1, False)  # 14x14 out
    assert not supports_pointwise(big, (64, 256, 1, 1), (8, 8), NO_PAD, 1, False)  # 7x7 out
    assert not supports_pointwise(big, (64, 256, 3, 3), (1, 1), NO_PAD, 1, False)
    assert not supports_pointwise(big, (64, 256, 1, 1), (1, 1), ((1, 1), (1, 1)), 1, False)
    assert not supports_pointwise(big, (64, 128, 1, 1), (1, 1), NO_PAD, 2, False)
    assert not supports_pointwise((16, 56, 56, 256), (64, 1, 1, 256), (1, 1), NO_PAD, 1, True)
    assert not supports_pointwise((16, 2048, 7, 7), (512, 2048, 1, 1), (1, 1), NO_PAD, 1, False)
    assert not supports_pointwise((256, 1024, 14, 14), (256, 1024, 1, 1), (1, 1), NO_PAD, 1, False)
    assert not supports_pointwise(big, (64, 256, 1, 1), (1, 1), NO_PAD, 1, False, jnp.int32)
