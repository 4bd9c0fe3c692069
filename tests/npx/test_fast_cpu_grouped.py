"""framework.npx.fast_cpu_grouped: grouped convolutions computed group by group equal XLA's grouped
convolution in values and gradients (npx.convolution and npx.deconvolution, 1-3 spatial dimensions, both
layouts), and npx dispatches to them on the CPU only while fast_cpu is on."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import config, npx

# x shape, weight shape, keyword arguments of npx.convolution / npx.deconvolution
CASES = {
    # 8 channels a group: more than a banded GEMM takes
    "2d_strided_dilated": ((2, 16, 9, 10), (8, 8, 3, 3),
                           {"kernel": (3, 3), "stride": (2, 1), "dilate": (1, 2), "pad": (1, 2),
                            "num_group": 2}),
    "2d_nhwc": ((2, 9, 10, 8), (12, 3, 3, 2),
                {"kernel": (3, 3), "pad": (1, 1), "num_group": 4, "layout": "NHWC"}),
    "1d": ((2, 6, 11), (9, 2, 3), {"kernel": (3,), "stride": (2,), "num_group": 3}),
    "3d": ((1, 4, 5, 6, 7), (4, 2, 3, 3, 3), {"kernel": (3, 3, 3), "pad": (1, 1, 0), "num_group": 2}),
    "deconvolution": ((2, 6, 5, 5), (6, 2, 3, 3), {"kernel": (3, 3), "stride": (2, 2), "num_group": 3}),
}


def _op(case):
    x_shape, w_shape, kw = CASES[case]
    op = npx.deconvolution if case == "deconvolution" else npx.convolution
    filters = w_shape[1] * kw["num_group"] if case == "deconvolution" else w_shape[0]

    def f(x, w):
        return op(x, w, num_filter=filters, no_bias=True, **kw)

    rng = onp.random.RandomState(0)
    return f, jnp.asarray(rng.randn(*x_shape), jnp.float32), jnp.asarray(rng.randn(*w_shape), jnp.float32)


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_and_gradients_equal_xla_grouped_convolution(case):
    f, x, w = _op(case)

    def grads(x, w):
        return jax.grad(lambda x, w: jnp.sum(jnp.sin(f(x, w))), argnums=(0, 1))(x, w)

    got = [f(x, w), *grads(x, w)]
    with config.override(fast_cpu=False):
        want = [f(x, w), *grads(x, w)]
    for g, e in zip(got, want, strict=True):
        onp.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4)


def _group_counts(jaxpr: str) -> list[int]:
    return [int(part.split("=")[1].split()[0].rstrip(",]"))
            for part in jaxpr.split("feature_group_count")[1:]]


def test_npx_convolution_runs_a_convolution_per_group_on_the_cpu_while_fast_cpu_is_on():
    f, x, w = _op("2d_strided_dilated")
    fast = str(jax.make_jaxpr(lambda x, w: f(x, w))(x, w))  # a new function per trace: JAX caches traces
    with config.override(fast_cpu=False):
        plain = str(jax.make_jaxpr(lambda x, w: f(x, w))(x, w))
    assert _group_counts(fast) == [1, 1] and _group_counts(plain) == [2]
