"""BatchNorm and Dropout called on recorded values inside ``autograd.record()`` keep the mode (and
Dropout its mask) of the call: the recorder replays them later, for ``backward``, outside that scope."""

from __future__ import annotations

import numpy as onp

from framework import autograd, nd, np, npx


def _inputs():
    rs = onp.random.RandomState(0)
    return nd.array(rs.rand(2, 3, 4, 4)), nd.ones(3), nd.zeros(3), nd.zeros(3), nd.ones(3)


def test_nd_batchnorm_on_a_recorded_input_uses_batch_statistics():
    x, g, b, m, v = _inputs()
    with autograd.train_mode():
        want = nd.BatchNorm(x, g, b, m, v, fix_gamma=False)
    xa = autograd.attach_grad(x)
    with autograd.record():
        got = nd.BatchNorm(xa, g, b, m, v, fix_gamma=False)
    onp.testing.assert_allclose(onp.asarray(got.value), want, atol=1e-5)
    got.backward()
    assert float(onp.abs(onp.asarray(xa.grad)).sum()) < 1e-3  # normalised output: d sum / d x = 0


def test_dropout_mask_of_the_forward_is_the_mask_of_the_backward():
    for fn in (nd.Dropout, npx.dropout):
        xa = autograd.attach_grad(nd.ones((50,)))
        with autograd.record():
            y = fn(xa, p=0.5)
        y.backward()
        kept = onp.asarray(y.value) != 0
        assert 0 < kept.sum() < 50
        assert ((onp.asarray(xa.grad) != 0) == kept).all()


def test_npx_batch_norm_records_its_mode():
    x, g, b, m, v = _inputs()
    with autograd.train_mode():
        want = npx.batch_norm(np.array(x), g, b, m, v, fix_gamma=False)
    xa = autograd.attach_grad(x)
    with autograd.record():
        got = npx.batch_norm(xa, g, b, m, v, fix_gamma=False)
    onp.testing.assert_allclose(onp.asarray(got.value), want, atol=1e-5)
