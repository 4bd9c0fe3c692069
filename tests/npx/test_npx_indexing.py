"""npx embedding/one_hot/pick/topk/sequence_mask and reshape helpers vs NumPy."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import npx


def test_embedding_clips_and_grads():
    w = onp.arange(12, dtype=onp.float32).reshape(4, 3)
    idx = onp.array([[1.0, 3.0], [0.0, 7.0]])
    out = npx.embedding(idx, w, input_dim=4, output_dim=3)
    onp.testing.assert_array_equal(out, w[onp.array([[1, 3], [0, 3]])])
    g = jax.grad(lambda w: npx.embedding(jnp.array([1, 1, 2]), w, 4, 3).sum())(jnp.asarray(w))
    onp.testing.assert_array_equal(g[:, 0], [0, 2, 1, 0])
    with pytest.raises(ValueError, match=r"expected \(input_dim, output_dim\) = \(5, 3\)"):
        npx.embedding(idx, w, input_dim=5, output_dim=3)


def test_one_hot():
    out = npx.one_hot(onp.array([[0, 3], [1, -1]]), 3, on_value=5.0, off_value=-1.0, dtype="int32")
    want = onp.full((2, 2, 3), -1)
    want[0, 0, 0] = want[1, 0, 1] = 5
    onp.testing.assert_array_equal(out, want)
    assert out.dtype == jnp.int32


def test_pick_modes_axes_keepdims():
    x = onp.random.RandomState(0).randn(3, 4, 5).astype(onp.float32)
    idx = onp.array([[0, 4, 2, 9], [1, 1, 1, 1], [-1, 3, 0, 2]])
    out = npx.pick(x, idx, axis=2)
    want = onp.take_along_axis(x, onp.clip(idx, 0, 4)[..., None], 2)[..., 0]
    onp.testing.assert_array_equal(out, want)
    wrap = npx.pick(x, idx, axis=2, mode="wrap", keepdims=True)
    onp.testing.assert_array_equal(wrap, onp.take_along_axis(x, (idx % 5)[..., None], 2))
    idx1 = onp.array([[0, 1, 2, 3, 0]] * 3)
    onp.testing.assert_array_equal(npx.pick(x, idx1, axis=1),
                                   onp.take_along_axis(x, idx1[:, None], 1)[:, 0])
    with pytest.raises(ValueError, match="index has shape"):
        npx.pick(x, onp.zeros((3, 5)), axis=2)
    with pytest.raises(ValueError, match="mode='raise'"):
        npx.pick(x, idx, mode="raise")


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_topk(axis):
    x = onp.random.RandomState(1).permutation(24).reshape(4, 6).astype(onp.float32)
    flat = x.reshape(-1) if axis is None else x
    ax = 0 if axis is None else axis
    order = onp.argsort(-flat, axis=ax)
    top = onp.take(order, onp.arange(3), axis=ax)
    onp.testing.assert_array_equal(npx.topk(x, axis=axis, k=3), top.astype(onp.float32))
    vals, idx = npx.topk(x, axis=axis, k=3, ret_typ="both", dtype="int32")
    onp.testing.assert_array_equal(vals, onp.take_along_axis(flat, top, ax))
    assert idx.dtype == jnp.int32
    asc = npx.topk(x, axis=axis, k=2, ret_typ="value", is_ascend=True)
    onp.testing.assert_array_equal(asc, onp.take(onp.sort(flat, axis=ax), onp.arange(2), axis=ax))
    mask = npx.topk(x, axis=axis, k=3, ret_typ="mask")
    assert mask.shape == flat.shape and float(mask.sum()) == (3 * flat.size / flat.shape[ax])


def test_topk_errors_and_full_sort():
    x = onp.array([[3.0, 1.0, 2.0]])
    onp.testing.assert_array_equal(npx.topk(x, k=0, ret_typ="value"), [[3.0, 2.0, 1.0]])
    with pytest.raises(ValueError, match="k=4 is larger"):
        npx.topk(x, k=4)
    with pytest.raises(ValueError, match="ret_typ='values'"):
        npx.topk(x, ret_typ="values")


def test_sequence_mask():
    x = onp.ones((4, 2, 3), onp.float32)  # (time, batch, feature)
    out = npx.sequence_mask(x, onp.array([1, 3]), use_sequence_length=True, value=-1.0)
    assert out[:, 0, 0].tolist() == [1, -1, -1, -1] and out[:, 1, 0].tolist() == [1, 1, 1, -1]
    out1 = npx.sequence_mask(onp.swapaxes(x, 0, 1), onp.array([1, 3]), use_sequence_length=True, axis=1)
    onp.testing.assert_array_equal(onp.swapaxes(out1, 0, 1), onp.where(out == -1, 0, out))
    assert npx.sequence_mask(x) is x
    with pytest.raises(ValueError, match="sequence_length has shape"):
        npx.sequence_mask(x, onp.array([1, 2, 3]), use_sequence_length=True)


@pytest.mark.parametrize(
    "shape,codes,reverse,want",
    [
        ((2, 3, 8), (-2, -2, 2, -1), False, (2, 3, 2, 4)),
        ((8, 3, 3, 3, 4, 4), (-6, 2, -1, -4), False, (2, 4, 3, 3, 3, 4, 4)),
        ((8, 3, 3, 3, 4, 4), (-5, -4), False, (24, 3, 3, 4, 4)),
        ((8, 1, 1, 1, 3), (-2, -3, -3, -3, -2), False, (8, 3)),
        ((8, 3, 3, 3, 3, 8), (-4, -5), True, (8, 3, 3, 3, 24)),
        ((8, 3, 2, 4, 8), (-4, -1, 2, -6), True, (8, 3, 2, 4, 4, 2)),
        ((2, 3, 4), -1, False, (24,)),
    ],
)
def test_reshape_codes(shape, codes, reverse, want):
    x = jnp.arange(onp.prod(shape)).reshape(shape)
    out = npx.reshape(x, codes, reverse=reverse)
    assert out.shape == want
    onp.testing.assert_array_equal(out.reshape(-1), x.reshape(-1))


def test_reshape_errors_and_helpers():
    with pytest.raises(ValueError, match="-3 at position 1 skips a dimension only when it is 1"):
        npx.reshape(jnp.ones((2, 3)), (-2, -3))
    with pytest.raises(ValueError, match="at most one -1"):
        npx.reshape(jnp.ones((2, 3)), (-1, -1))
    with pytest.raises(ValueError, match="sizes differ"):
        npx.reshape(jnp.ones((2, 3)), (4, 2))
    assert npx.batch_flatten(jnp.ones((2, 3, 4))).shape == (2, 12)
    onp.testing.assert_array_equal(npx.arange_like(jnp.zeros((2, 3)), start=1.0, step=2.0, repeat=2),
                                   [[1, 1, 3], [3, 5, 5]])
    assert npx.arange_like(jnp.zeros((2, 5)), axis=1).tolist() == [0, 1, 2, 3, 4]


def test_special_functions():
    onp.testing.assert_allclose(npx.erf(jnp.array([0.5])), [0.5204998778], rtol=1e-6)
    onp.testing.assert_allclose(npx.erfinv(npx.erf(jnp.array([0.3]))), [0.3], rtol=1e-5)
    onp.testing.assert_allclose(npx.gamma(jnp.array([4.0])), [6.0], rtol=1e-5)
    onp.testing.assert_allclose(npx.gammaln(jnp.array([4.0])), [onp.log(6.0)], rtol=1e-5)
