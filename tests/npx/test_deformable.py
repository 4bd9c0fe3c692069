"""DCN v2 (MXNet 1.9.1 implements it on GPU only): with a mask of ones it is DCN v1 (checked against
MXNet), and the mask scales each sample; zero offsets give the plain convolution."""

from __future__ import annotations

import numpy as onp

from framework import nd


def test_modulated_equals_deformable_with_unit_mask_and_zero_offset_is_convolution():
    rs = onp.random.RandomState(0)
    x = nd.array(rs.uniform(-1, 1, (2, 4, 5, 6)))
    w = nd.array(rs.uniform(-1, 1, (6, 2, 3, 3)))
    b = nd.array(rs.uniform(-1, 1, (6,)))
    off = nd.array(rs.uniform(-1.5, 1.5, (2, 36, 5, 6)))
    kw = dict(kernel=(3, 3), pad=(1, 1), num_filter=6, num_group=2, num_deformable_group=2)
    v1 = nd.contrib.DeformableConvolution(x, off, w, b, **kw)
    ones = nd.ones((2, 18, 5, 6))
    onp.testing.assert_allclose(nd.contrib.ModulatedDeformableConvolution(x, off, ones, w, b, **kw), v1,
                                rtol=1e-5, atol=1e-5)
    half = nd.contrib.ModulatedDeformableConvolution(x, off, ones * 0.5, w, b, **kw)
    onp.testing.assert_allclose(half, (v1 - b.reshape(1, 6, 1, 1)) * 0.5 + b.reshape(1, 6, 1, 1),
                                rtol=1e-5, atol=1e-5)
    plain = nd.Convolution(x, w, b, kernel=(3, 3), pad=(1, 1), num_filter=6, num_group=2)
    onp.testing.assert_allclose(nd.contrib.DeformableConvolution(x, off * 0, w, b, **kw), plain,
                                rtol=1e-5, atol=1e-5)
