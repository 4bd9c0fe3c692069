"""MXNet 2.0's further ``npx`` names (framework/npx/v2_names.py, framework/npx/control_flow.py).

The aliases are checked against the 1.x functions they are (whose numbers are checked against MXNet
1.9.1 elsewhere), called with MXNet 2.0's argument names (read from 2.0's operator registrations);
2.0's own operators (index_add/index_update, cond, the two intgemm helpers) against NumPy and the
semantics stated in MXNet 2.0's operator source.
"""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

import framework as mx
from framework import autograd, np, npx
from framework.npx import v2_names

# MXNet 2.0's argument names for each alias (its operator's inputs, then its parameters)
ARGS_2_0 = {
    "add_n": [],
    "broadcast_greater": ["lhs", "rhs"],
    "broadcast_like": ["lhs", "rhs", "lhs_axes", "rhs_axes"],
    "softsign": ["data"],
    "norm": ["data", "ord", "axis", "out_dtype", "keepdims"],
    "pad": ["data", "mode", "pad_width", "constant_value"],
    "slice_like": ["data", "shape_like", "axes"],
    "slice_channel": ["data", "num_outputs", "axis", "squeeze_axis"],
    "stop_gradient": ["data"],
    "sequence_last": ["data", "sequence_length", "use_sequence_length", "axis"],
    "sequence_reverse": ["data", "sequence_length", "use_sequence_length", "axis"],
    "ctc_loss": ["data", "label", "data_lengths", "label_lengths", "use_data_lengths", "use_label_lengths",
                 "blank_label"],
    "scalar_poisson": ["lam", "shape", "ctx", "dtype"],
    "tensor_poisson": ["lam", "shape", "dtype"],
    "box_nms": ["data", "overlap_thresh", "valid_thresh", "topk", "coord_start", "score_index", "id_index",
                "background_id", "force_suppress", "in_format", "out_format"],
    "box_iou": ["lhs", "rhs", "format"],
    "box_encode": ["samples", "matches", "anchors", "refs", "means", "stds"],
    "box_decode": ["data", "anchors", "std0", "std1", "std2", "std3", "clip", "format"],
    "bipartite_matching": ["data", "is_ascend", "threshold", "topk"],
    "deformable_convolution": ["data", "offset", "weight", "bias", "kernel", "stride", "dilate", "pad",
                               "num_filter", "num_group", "num_deformable_group", "workspace", "no_bias",
                               "layout"],
    "modulated_deformable_convolution": ["data", "offset", "mask", "weight", "bias", "kernel", "stride",
                                         "dilate", "pad", "num_filter", "num_group", "num_deformable_group",
                                         "workspace", "no_bias", "im2col_step", "layout"],
    "sync_batch_norm": ["data", "gamma", "beta", "moving_mean", "moving_var", "eps", "momentum", "fix_gamma",
                        "use_global_stats", "output_mean_var", "ndev", "key"],
    "round_ste": ["data"],
    "sign_ste": ["data"],
    "interleaved_matmul_selfatt_qk": ["queries_keys_values", "heads"],
    "interleaved_matmul_selfatt_valatt": ["queries_keys_values", "attention", "heads"],
    "interleaved_matmul_encdec_qk": ["queries", "keys_values", "heads"],
    "interleaved_matmul_encdec_valatt": ["keys_values", "attention", "heads"],
    "contrib_quantize": ["data", "min_range", "max_range", "out_type"],
    "contrib_quantize_v2": ["data", "out_type", "min_calib_range", "max_calib_range"],
    "contrib_calibrate_entropy": ["hist", "hist_edges", "num_quantized_bins"],
    "requantize": ["data", "min_range", "max_range", "out_type", "min_calib_range", "max_calib_range"],
    "quantized_act": ["data", "min_data", "max_data", "act_type"],
    # (quantized_conv/fully_connected: the inputs after weight, bias optional, go by position)
    "quantized_conv": ["data", "weight", "kernel", "stride", "dilate", "pad", "num_filter", "num_group",
                       "no_bias", "layout"],
    "quantized_elemwise_add": ["lhs", "rhs", "lhs_min", "lhs_max", "rhs_min", "rhs_max"],
    "quantized_elemwise_mul": ["lhs", "rhs", "lhs_min", "lhs_max", "rhs_min", "rhs_max"],
    "quantized_embedding": ["data", "weight", "min_weight", "max_weight", "input_dim", "output_dim"],
    "quantized_flatten": ["data", "min_data", "max_data"],
    "quantized_fully_connected": ["data", "weight", "num_hidden", "no_bias", "flatten"],
    "quantized_pooling": ["data", "min_data", "max_data", "kernel", "pool_type"],
}


@pytest.mark.parametrize("name", sorted(v2_names.ALIASES))
def test_alias_is_the_1x_operator_and_takes_2_0_arguments(name):
    assert name in npx.__all__
    module, attr = v2_names.ALIASES[name]
    target = getattr(__import__(module, fromlist=[attr]), attr)
    assert getattr(npx, name) is target
    if name == "Device":
        assert npx.Device is mx.Device
        return
    params = inspect.signature(inspect.unwrap(target)).parameters
    any_keyword = any(p.kind is p.VAR_KEYWORD for p in params.values())
    missing = [a for a in ARGS_2_0[name] if a not in params and not any_keyword]
    assert not missing, f"npx.{name} lacks MXNet 2.0's arguments {missing}"


def test_every_alias_has_its_2_0_argument_list():
    assert set(ARGS_2_0) == set(v2_names.ALIASES) - {"Device"}


def _boxes():
    return jnp.array([[[0, 0.9, 0, 0, 1, 1], [0, 0.8, 0.05, 0.05, 1, 1], [1, 0.7, 2, 2, 3, 3],
                       [-1, -1, -1, -1, -1, -1]]], jnp.float32)


def test_box_ops_give_the_1x_numbers_with_2_0_keywords():
    c = mx.nd.contrib
    d = _boxes()
    assert onp.array_equal(npx.box_nms(data=d, overlap_thresh=0.5, valid_thresh=0.1, topk=-1, coord_start=2,
                                       score_index=1, id_index=0, force_suppress=False),
                           c.box_nms(d, 0.5, 0.1, -1, 2, 1, 0))
    a, b = d[0, :3, 2:], d[0, 1:, 2:]
    assert onp.allclose(npx.box_iou(lhs=a, rhs=b, format="corner"), c.box_iou(a, b))
    iou = c.box_iou(a, a)[None]
    assert all(onp.array_equal(x, y) for x, y in zip(npx.bipartite_matching(data=iou, threshold=0.1),
                                                     c.bipartite_matching(iou, threshold=0.1), strict=True))


def test_shape_ops_with_2_0_keywords():
    x = jnp.arange(24.0).reshape(2, 4, 3)
    parts = npx.slice_channel(data=x, num_outputs=2, axis=1)
    assert [p.tolist() for p in parts] == [p.tolist() for p in onp.split(onp.asarray(x), 2, axis=1)]
    assert npx.slice_channel(x, num_outputs=4, axis=1, squeeze_axis=True)[0].shape == (2, 3)
    # 2.0's norm is 1.x's operator: a full reduction still has shape (1,) (ReduceAxesShapeImpl)
    n = npx.norm(data=x, ord=2)
    assert n.shape == (1,) and onp.allclose(n, onp.linalg.norm(onp.asarray(x)))
    assert npx.norm(x, ord=1, axis=(0, 2), keepdims=True).shape == (1, 4, 1)
    img = jnp.ones((1, 1, 2, 2))
    padded = npx.pad(data=img, mode="constant", pad_width=(0, 0, 0, 0, 1, 1, 1, 1), constant_value=5.0)
    assert padded.shape == (1, 1, 4, 4) and float(padded[0, 0, 0, 0]) == 5.0
    seq, lengths = jnp.arange(12.0).reshape(3, 2, 2), jnp.array([2.0, 3.0])
    assert npx.sequence_last(data=seq, sequence_length=lengths, use_sequence_length=True).tolist() == \
        [[4.0, 5.0], [10.0, 11.0]]
    assert onp.array_equal(npx.sequence_reverse(seq, lengths, use_sequence_length=True),
                           mx.nd.SequenceReverse(seq, lengths, True))
    assert npx.slice_like(data=x, shape_like=jnp.zeros((1, 2)), axes=(0, 1)).shape == (1, 2, 3)
    assert npx.broadcast_like(lhs=jnp.ones((1, 3)), rhs=jnp.zeros((2, 3))).shape == (2, 3)
    assert npx.broadcast_greater(lhs=jnp.array([1.0, 3.0]), rhs=jnp.array([2.0])).tolist() == [0.0, 1.0]
    assert npx.add_n(jnp.ones(2), jnp.ones(2), jnp.ones(2)).tolist() == [3.0, 3.0]
    assert onp.allclose(npx.softsign(jnp.array([-3.0, 1.0])), [-0.75, 0.5])


def test_stop_gradient_blocks_the_gradient():
    x = autograd.attach_grad(np.array([1.0, 2.0]))
    with autograd.record():
        y = (npx.stop_gradient(x * 3) * x).sum()
    y.backward()
    assert x.grad.tolist() == [3.0, 6.0]
    assert jax.grad(lambda v: (npx.stop_gradient(v * 3) * v).sum())(jnp.array([1.0, 2.0])).tolist() == \
        [3.0, 6.0]


def test_poisson_names():
    assert npx.scalar_poisson(lam=4.0, shape=(3, 2)).shape == (3, 2)
    out = npx.tensor_poisson(lam=jnp.array([1.0, 1000.0]), shape=(50,))
    assert out.shape == (2, 50) and float(out[1].mean()) > 10 * float(out[0].mean())


def test_control_flow_2_0_signatures():
    assert npx.control_flow.cond is npx.cond and npx.foreach is npx.control_flow.foreach
    a, b = np.array([1.0]), np.array([2.0])
    then_f, else_f = (lambda a, b: (a + 5) * (b + 5)), (lambda a, b: (a - 5) * (b - 5))
    assert npx.cond(lambda a, b: a * b < 5, then_f, else_f, [a, b]).tolist() == [42.0]
    assert npx.cond(lambda a, b: a * b > 5, then_f, else_f, [a, b]).tolist() == [12.0]
    assert npx.cond(lambda x: x.sum() > 0, lambda x: x * 2, lambda x: x, a).tolist() == [2.0]  # one array
    jitted = jax.jit(lambda a, b: npx.cond(lambda a, b: a * b < 5, then_f, else_f, [a, b]))
    assert jitted(a, b).tolist() == [42.0] and jitted(a * 3, b).tolist() == [6.0]
    with pytest.raises(ValueError, match="at least one array"):
        npx.cond(lambda: True, lambda: a, lambda: b, [])
    body = lambda x, s: (x + s[0], [s[0] + x])  # noqa: E731
    out, states = npx.foreach(body, jnp.arange(3.0), [jnp.zeros(1)])
    ref_out, ref_states = mx.nd.contrib.foreach(body, jnp.arange(3.0), [jnp.zeros(1)])
    assert out.tolist() == ref_out.tolist() and states[0].tolist() == ref_states[0].tolist() == [3.0]
    outs, (i, s) = npx.while_loop(lambda i, s: i < 3, lambda i, s: (s, (i + 1, s * 2)),
                                  (jnp.array([0.0]), jnp.array([1.0])), max_iterations=5)
    assert outs.reshape(-1).tolist() == [1.0, 2.0, 4.0, 0.0, 0.0] and s.tolist() == [8.0]


def _scatter_reference(a, ind, val, add):
    out = onp.array(a, copy=True)
    ind = onp.asarray(ind).reshape((1, -1)) if onp.ndim(ind) < 2 else onp.asarray(ind)
    block = (ind.shape[1], *out.shape[ind.shape[0]:])
    val = onp.broadcast_to(onp.asarray(val).reshape((1,)) if onp.ndim(val) == 0 else val, block)
    for j in range(ind.shape[1]):
        pos = tuple(ind[:, j])
        out[pos] = out[pos] + val[j] if add else val[j]
    return out


@pytest.mark.parametrize("case", [  # (a's shape, ind, val, whether the positions are distinct)
    ((2, 3, 4), [[0, 0], [0, 0], [0, 1]], [1.0, 2.0], True),        # full positions, one value each
    ((2, 3, 4), [[0, 0], [0, 0], [0, 0]], [1.0, 2.0], False),       # a repeated position: add accumulates
    ((2, 3, 4), [[0, 0], [0, 1]], onp.arange(8.0).reshape(2, 4), True),  # rows of the last axis
    ((2, 3, 4), [[0, 0], [0, 1]], onp.arange(4.0), True),           # val broadcast over the positions
    ((5, 2), [4, 1, 4], 1.5, False),                                 # 1-d ind, scalar val
    ((5,), 3, [7.0], True),                                          # 0-d ind
])
def test_index_add_and_update_match_a_loop(case):
    shape, ind, val, distinct = case
    a = onp.random.default_rng(0).normal(size=shape).astype(onp.float32)
    ind_a, val_a = jnp.asarray(ind, jnp.int32), jnp.asarray(val, jnp.float32)
    assert onp.allclose(npx.index_add(jnp.asarray(a), ind_a, val_a), _scatter_reference(a, ind, val, True))
    if distinct:  # which of two updates of one position wins is unspecified (MXNet says so too)
        assert onp.allclose(npx.index_update(jnp.asarray(a), ind_a, val_a),
                            _scatter_reference(a, ind, val, False))


def test_index_add_errors_and_gradient():
    a = jnp.zeros((2, 3))
    with pytest.raises(TypeError, match="same"):
        npx.index_add(a, jnp.array([0]), jnp.array([1], jnp.int32))
    with pytest.raises(TypeError, match="int32 or int64"):
        npx.index_add(a, jnp.array([0.0]), jnp.array([1.0]))
    with pytest.raises(IndexError, match="out of bounds"):
        npx.index_update(a, jnp.array([[0], [3]]), jnp.array([1.0]))
    with pytest.raises(ValueError, match="does not broadcast"):
        npx.index_add(a, jnp.array([[0], [1]]), jnp.ones(2))
    ind = jnp.array([[0, 1, 1], [2, 0, 0]])
    g = jax.grad(lambda v: (npx.index_add(a, ind, v) ** 2).sum())(jnp.array([1.0, 2.0, 3.0]))
    assert g.tolist() == [2.0, 10.0, 10.0]  # d/dv of 1^2 + (2+3)^2
    v = autograd.attach_grad(np.array([1.0, 2.0, 3.0]))
    with autograd.record():
        y = (npx.index_add(np.zeros((2, 3)), ind, v) ** 2).sum()
    y.backward()
    assert v.grad.tolist() == [2.0, 10.0, 10.0]


def test_intgemm_helpers():
    x = jnp.array([[0.5, -2.0], [1.0, 0.25]], jnp.float32)
    assert npx.intgemm_maxabsolute(x).tolist() == [2.0]
    q = npx.intgemm_prepare_data(x, npx.intgemm_maxabsolute(x))
    assert q.dtype == jnp.int8
    assert q.tolist() == onp.clip(onp.rint(onp.asarray(x) * 127 / 2.0), -127, 127).astype(int).tolist()
    assert npx.intgemm_prepare_data(jnp.array([-5.0]), jnp.array([1.0])).tolist() == [-127]  # never -128
    with pytest.raises(TypeError, match="float32"):
        npx.intgemm_maxabsolute(jnp.ones(2, jnp.int32))
    for name in ("intgemm_prepare_weight", "intgemm_take_weight", "intgemm_fully_connected",
                 "contrib_quantized_rnn"):
        assert name in npx.NOT_SUPPORTED
        with pytest.raises(AttributeError):
            getattr(npx, name)


def test_default_dtype_switch_and_top_level_names():
    assert npx.is_np_default_dtype() is False
    assert npx.set_np_default_dtype(False) is False
    with pytest.raises(ValueError, match="float32"):
        npx.set_np_default_dtype(True)
    from framework.symbol.naming import AttrScope

    assert mx.AttrScope is AttrScope
    assert mx.autograd.NDArray is jax.Array
