"""``nd.*_update`` calling conventions: returned values, Variables updated in place (``out=`` and the
states, as MXNet's in-place updates), ``out=`` a plain array refused with the fix."""

from __future__ import annotations

import numpy as onp
import pytest

from framework import autograd, nd


def test_returns_new_weight_and_states():
    w, g, mom = nd.ones(3), nd.ones(3), nd.zeros(3)
    new_w, new_mom = nd.sgd_mom_update(w, g, mom, lr=0.1, momentum=0.9)
    onp.testing.assert_allclose(new_w, 0.9, rtol=1e-6)
    onp.testing.assert_allclose(new_mom, -0.1, rtol=1e-6)
    assert nd.sgd_update(w, g, lr=0.5).tolist() == [0.5, 0.5, 0.5]
    ws, moms = nd.multi_sgd_mom_update(w, g, mom, w, g, mom, lrs=(0.1, 0.2), wds=(0, 0), num_weights=2,
                                       momentum=0.5)
    assert len(ws) == len(moms) == 2
    onp.testing.assert_allclose(ws[1], 0.8, rtol=1e-6)


def test_variables_are_updated_in_place_as_in_mxnet():
    w = autograd.attach_grad(nd.ones(3))
    mean, var = autograd.attach_grad(nd.zeros(3)), autograd.attach_grad(nd.zeros(3))
    for _ in range(2):
        nd.adam_update(w, nd.ones(3), mean, var, out=w, lr=0.1)
    assert float(onp.asarray(mean)[0]) == pytest.approx(0.19)  # 0.1, then 0.9 * 0.1 + 0.1
    assert float(onp.asarray(w)[0]) < 0.85
    ws = [autograd.attach_grad(nd.ones(2)), autograd.attach_grad(nd.ones(2))]
    nd.multi_sgd_update(ws[0], nd.ones(2), ws[1], nd.ones(2), lrs=(0.5, 0.25), wds=(0, 0), num_weights=2,
                        out=ws)
    assert onp.asarray(ws[1]).tolist() == [0.75, 0.75]


def test_out_a_plain_array_is_refused_with_the_fix():
    w = nd.ones(2)
    with pytest.raises(TypeError, match=r"immutable.*w = nd.sgd_update"):
        nd.sgd_update(w, w, out=w, lr=0.1)


def test_amp_multicast_and_random_out_fill():
    from framework import nd as _nd

    a, b = _nd.ones(2, dtype="float16"), _nd.ones(2)
    assert [str(x.dtype) for x in _nd.amp_multicast(a, b, num_outputs=2)] == ["float32", "float32"]
    assert [str(x.dtype) for x in _nd.amp_multicast(a, b, num_outputs=2, cast_narrow=True)] == ["float16"] * 2
    v = autograd.attach_grad(_nd.zeros((2, 3)))
    _nd.random.normal(0, 1, (2, 3), out=v)  # shape given positionally, as GluonCV's CenterNet does
    assert v.shape == (2, 3) and float(onp.abs(onp.asarray(v)).sum()) > 0
