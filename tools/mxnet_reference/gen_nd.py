"""Reference numbers for ``framework.nd`` from real MXNet 1.9.1 (run in the MXNet side venv).

    /tmp/mx/bin/python tools/mxnet_reference/gen_nd.py

Writes ``tests/reference/nd/nd_ops.npz``: for every case, its inputs (``<case>.in<i>``), MXNet's
outputs (``<case>.out<j>``) and, for differentiable cases, a head gradient (``<case>.head<j>``) and
MXNet's input gradients (``<case>.grad<i>``, by ``autograd.backward``). ``__cases__`` holds the case
table as JSON: the operator's path under ``mx.nd`` (``linalg.gemm2``), its keyword arguments, which
inputs are differentiable. ``tests/nd/test_nd_reference.py`` replays each case through ``framework.nd``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

# MXNet 1.9.1's oneDNN kernels gave a wrong max-pooling gradient in a long process here (right when the
# same case ran alone); the reference kernels are the semantics' source.
os.environ.setdefault("MXNET_MKLDNN_ENABLED", "0")
os.environ.setdefault("MXNET_STORAGE_FALLBACK_LOG_VERBOSE", "0")

import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "tests" / "reference" / "nd" / "nd_ops.npz"
CASES: list[tuple] = []  # (name, op, inputs, kwargs, grad_inputs)


def rs(seed: int):
    return np.random.RandomState(seed)


def f32(*shape, seed=0, lo=-1.0, hi=1.0):
    return rs(seed).uniform(lo, hi, shape).astype(np.float32)


def case(name, op, inputs, kwargs=None, grad=()):
    CASES.append((name, op, [np.asarray(a) for a in inputs], kwargs or {}, list(grad)))


def spd(n, seed):
    a = f32(n, n, seed=seed)
    return (a @ a.T + n * np.eye(n)).astype(np.float32)


def build() -> None:
    x23, y23, x234 = f32(2, 3, seed=1), f32(2, 3, seed=2), f32(2, 3, 4, seed=3)
    pos = f32(2, 3, seed=4, lo=0.2, hi=2.0)
    # creation (no inputs)
    case("zeros", "zeros", [], {"shape": [2, 3]})
    case("full", "full", [], {"shape": [2, 2], "val": 3.5})
    case("arange_repeat", "arange", [], {"start": 1, "stop": 7, "step": 2, "repeat": 2})
    case("eye_k", "eye", [], {"N": 3, "M": 4, "k": 1})
    case("ones_like", "ones_like", [x23])
    # arithmetic and broadcasting
    for opn in [
        "broadcast_add",
        "broadcast_sub",
        "broadcast_mul",
        "broadcast_div",
        "broadcast_maximum",
        "broadcast_minimum",
        "broadcast_power",
        "broadcast_hypot",
    ]:
        a = pos if opn == "broadcast_power" else x23
        case(opn, opn, [a, f32(1, 3, seed=5, lo=0.5, hi=1.5)], grad=[0, 1])
    for opn in ["broadcast_equal", "broadcast_greater", "broadcast_lesser_equal", "broadcast_logical_and"]:
        case(opn, opn, [np.round(x23 * 2), np.round(f32(1, 3, seed=5) * 2)])
    case("broadcast_mod", "broadcast_mod", [x23 * 5, np.array([[1.5, 2.0, 2.5]], np.float32)])
    for opn in ["elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div"]:
        case(opn, opn, [x23, pos], grad=[0, 1])
    for opn in [
        "add",
        "subtract",
        "multiply",
        "divide",
        "maximum",
        "minimum",
        "power",
        "modulo",
        "equal",
        "greater",
        "lesser",
    ]:
        case("op_" + opn, opn, [pos, f32(3, seed=6, lo=0.5, hi=1.5)])
    for opn in [
        "abs",
        "sign",
        "ceil",
        "floor",
        "trunc",
        "fix",
        "square",
        "exp",
        "expm1",
        "tanh",
        "sin",
        "cos",
        "arctan",
        "sinh",
        "negative",
        "relu",
        "sigmoid",
        "softsign",
        "erf",
        "radians",
        "degrees",
        "logical_not",
    ]:
        case(
            "u_" + opn,
            opn,
            [x23 * 2],
            grad=[0] if opn not in ("sign", "ceil", "floor", "trunc", "fix", "logical_not") else [],
        )
    for opn in [
        "sqrt",
        "rsqrt",
        "cbrt",
        "rcbrt",
        "log",
        "log10",
        "log2",
        "log1p",
        "reciprocal",
        "gamma",
        "gammaln",
    ]:
        case("u_" + opn, opn, [pos], grad=[0])
    case("u_round", "round", [np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.3], np.float32)])
    case("u_rint", "rint", [np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.3], np.float32)])
    case("u_erfinv", "erfinv", [x23 * 0.9], grad=[0])
    case("u_arcsin", "arcsin", [x23 * 0.9], grad=[0])
    case("clip", "clip", [x23], {"a_min": -0.3, "a_max": 0.4}, grad=[0])
    case("add_n", "add_n", [x23, y23, pos], grad=[0, 1, 2])
    case("hard_sigmoid", "hard_sigmoid", [x23 * 4], {"alpha": 0.3, "beta": 0.4}, grad=[0])
    case("smooth_l1", "smooth_l1", [x23 * 3], {"scalar": 1.5}, grad=[0])
    case("dot", "dot", [f32(2, 3, seed=7), f32(3, 4, seed=8)], grad=[0, 1])
    case("dot_ta", "dot", [f32(3, 2, seed=7), f32(3, 4, seed=8)], {"transpose_a": True}, grad=[0, 1])
    case("dot_tb", "dot", [f32(2, 3, seed=7), f32(4, 3, seed=8)], {"transpose_b": True}, grad=[0, 1])
    case("dot_nd", "dot", [f32(2, 3, 4, seed=7), f32(4, 5, seed=8)], grad=[0, 1])
    case("dot_nd_ta", "dot", [f32(2, 3, 4, seed=7), f32(2, 5, seed=8)], {"transpose_a": True})
    case("dot_1d", "dot", [f32(3, seed=7), f32(3, seed=8)])
    case("batch_dot", "batch_dot", [f32(2, 3, 4, seed=9), f32(2, 4, 5, seed=10)], grad=[0, 1])
    case(
        "batch_dot_tt",
        "batch_dot",
        [f32(2, 4, 3, seed=9), f32(2, 5, 4, seed=10)],
        {"transpose_a": True, "transpose_b": True},
        grad=[0, 1],
    )
    # reductions
    for opn in ["sum", "mean", "prod", "max", "min", "nansum"]:
        case("r_" + opn, opn, [x234], grad=[0] if opn != "nansum" else [])
        case(
            "r_" + opn + "_ax",
            opn,
            [x234],
            {"axis": 1, "keepdims": True},
            grad=[0] if opn != "nansum" else [],
        )
        case("r_" + opn + "_ex", opn, [x234], {"axis": [0, 2], "exclude": True})
    case("r_sum_axes", "sum", [x234], {"axis": [0, 2]}, grad=[0])
    case("norm", "norm", [x234], grad=[0])
    case("norm_l1_ax", "norm", [x234], {"ord": 1, "axis": 2, "keepdims": True})
    case("norm_ax", "norm", [x234], {"axis": [1, 2]}, grad=[0])
    case("argmax", "argmax", [x234], {"axis": 1})
    case("argmax_flat", "argmax", [x234])
    case("argmin_keep", "argmin", [x234], {"axis": -1, "keepdims": True})
    case("argmax_channel", "argmax_channel", [x234])
    case("moments", "moments", [x234], {"axes": [0, 2]})
    # shape
    x5 = f32(2, 3, 4, 5, seed=11)
    for i, codes in enumerate(
        [
            (0, -1),
            (-2,),
            (0, 0, -3),
            (-3, -2),
            (-4, 1, 2, -2),
            (0, -4, -1, 3, 0, 0),
            (-1,),
            (4, 0, -1),
            (2, -1, 5),
        ]
    ):
        case(f"reshape_{i}", "reshape", [x5], {"shape": list(codes)}, grad=[0] if i == 0 else [])
    case("reshape_rev", "reshape", [f32(10, 5, 4, seed=12)], {"shape": [-1, 0], "reverse": True})
    case("reshape_rev2", "reshape", [x5], {"shape": [0, -1, 0], "reverse": True})
    case("reshape_like", "reshape_like", [f32(6, 2, seed=3), f32(3, 4, seed=4)])
    case("expand_dims", "expand_dims", [x23], {"axis": -1})
    case("flatten", "flatten", [x5], grad=[0])
    case("transpose", "transpose", [x5], {"axes": [0, 2, 3, 1]}, grad=[0])
    case("transpose_rev", "transpose", [x234])
    case("swapaxes", "swapaxes", [x234], {"dim1": 0, "dim2": 2}, grad=[0])
    case("concat", "concat", [x23, y23, pos], {"dim": 1}, grad=[0, 1, 2])
    case("concat_default", "concat", [x234, x234])
    case("stack", "stack", [x23, y23], {"axis": 1}, grad=[0, 1])
    case("split", "split", [x5], {"num_outputs": 3, "axis": 1}, grad=[0])
    case("split_sq", "split", [x5], {"num_outputs": 4, "axis": 2, "squeeze_axis": True})
    case("split_default", "split", [f32(2, 4, seed=13)], {"num_outputs": 2})
    case("tile", "tile", [x23], {"reps": [2, 1, 3]}, grad=[0])
    case("repeat", "repeat", [x23], {"repeats": 2, "axis": 1}, grad=[0])
    case("repeat_flat", "repeat", [x23], {"repeats": 3})
    case("flip", "flip", [x234], {"axis": 1}, grad=[0])
    case("reverse_multi", "reverse", [x234], {"axis": [0, 2]})
    case("broadcast_to", "broadcast_to", [f32(2, 1, 4, seed=14)], {"shape": [0, 3, 0]}, grad=[0])
    case("broadcast_like", "broadcast_like", [f32(1, 3, seed=14), x234[:, :, 0]], grad=[0])
    case(
        "broadcast_like_axes",
        "broadcast_like",
        [f32(1, 3, seed=14), f32(5, 7, seed=1)],
        {"lhs_axes": [0], "rhs_axes": [1]},
    )
    case(
        "broadcast_axis",
        "broadcast_axis",
        [f32(2, 1, 1, seed=15)],
        {"axis": [1, 2], "size": [3, 4]},
        grad=[0],
    )
    case("squeeze", "squeeze", [f32(2, 1, 3, 1, seed=15)], {"axis": [1]})
    case("depth_to_space", "depth_to_space", [f32(1, 8, 2, 3, seed=16)], {"block_size": 2})
    case("space_to_depth", "space_to_depth", [f32(1, 2, 4, 6, seed=16)], {"block_size": 2})
    case(
        "pad_const",
        "pad",
        [f32(1, 2, 3, 3, seed=17)],
        {"mode": "constant", "pad_width": [0, 0, 0, 0, 1, 2, 2, 1], "constant_value": 0.5},
        grad=[0],
    )
    case(
        "pad_edge", "pad", [f32(1, 2, 3, 3, seed=17)], {"mode": "edge", "pad_width": [0, 0, 0, 0, 1, 1, 2, 2]}
    )
    case(
        "pad_reflect",
        "pad",
        [f32(1, 2, 3, 3, seed=17)],
        {"mode": "reflect", "pad_width": [0, 0, 0, 0, 1, 1, 2, 2]},
    )
    case("cast", "cast", [x23 * 3], {"dtype": "int32"})
    # indexing
    x34 = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    case("slice", "slice", [x34], {"begin": [1, None], "end": [3, None], "step": [1, 2]}, grad=[0])
    case("slice_neg", "slice", [x34], {"begin": [None, -1], "end": [None, 0], "step": [-1, -2]})
    case("slice_axis", "slice_axis", [x234], {"axis": 2, "begin": 1, "end": -1}, grad=[0])
    case("slice_axis_none", "slice_axis", [x234], {"axis": 1, "begin": -2, "end": None})
    case("slice_like", "slice_like", [x234, np.zeros((1, 2, 3), np.float32)], grad=[0])
    case("slice_like_axes", "slice_like", [x234, np.zeros((1, 2, 3), np.float32)], {"axes": [2]})
    case("take", "take", [x34, np.array([[2, 0], [5, -1]], np.float32)], grad=[0])
    case("take_wrap_ax1", "take", [x34, np.array([5, -1, 2], np.float32)], {"axis": 1, "mode": "wrap"})
    case("batch_take", "batch_take", [x34, np.array([3, 0, 1], np.int32)])
    case("pick", "pick", [x34, np.array([0, 3, 1], np.float32)], grad=[0])
    case("pick_ax0_keep", "pick", [x34, np.array([2, 0, 1, 7], np.float32)], {"axis": 0, "keepdims": True})
    case("pick_wrap", "pick", [x34, np.array([5, -1, 2], np.float32)], {"mode": "wrap"})
    case("one_hot", "one_hot", [np.array([1, 0, 3, 5], np.float32)], {"depth": 4})
    case(
        "one_hot_vals",
        "one_hot",
        [np.array([[1, 2]], np.float32)],
        {"depth": 3, "on_value": 5.0, "off_value": -1.0, "dtype": "int32"},
    )
    case("where", "where", [np.array([[1, 0, 1], [0, 0, 1]], np.float32), x23, y23], grad=[1, 2])
    case("where_rows", "where", [np.array([0, 1], np.float32), x23, y23])
    case("gather_nd", "gather_nd", [x234, np.array([[1, 0, 1], [2, 0, 1]], np.float32)], grad=[0])
    case(
        "scatter_nd",
        "scatter_nd",
        [np.array([1.0, 2.0, 3.0], np.float32), np.array([[0, 1, 2], [1, 0, 3]], np.float32)],
        {"shape": [3, 4]},
    )
    case("diag_vec", "diag", [np.array([1.0, 2.0], np.float32)], {"k": 1})
    case("diag_mat", "diag", [x34], {"k": -1})
    # sequence (time, batch, feature)
    seq = f32(4, 3, 2, seed=18)
    lens = np.array([2, 4, 1], np.float32)
    case("seq_mask", "SequenceMask", [seq, lens], {"use_sequence_length": True, "value": -1.0}, grad=[0])
    case(
        "seq_mask_ax1",
        "SequenceMask",
        [np.transpose(seq, (1, 0, 2)).copy(), lens],
        {"use_sequence_length": True, "axis": 1},
    )
    case("seq_last", "SequenceLast", [seq, lens], {"use_sequence_length": True}, grad=[0])
    case("seq_last_nolen", "SequenceLast", [seq])
    case(
        "seq_last_ax1",
        "SequenceLast",
        [np.transpose(seq, (1, 0, 2)).copy(), lens],
        {"use_sequence_length": True, "axis": 1},
    )
    case("seq_reverse", "SequenceReverse", [seq, lens], {"use_sequence_length": True}, grad=[0])
    case("seq_reverse_nolen", "SequenceReverse", [seq])
    # sort
    xs = np.array([[3, 1, 2, 1.5], [0, -1, 5, 2]], np.float32)
    case("sort", "sort", [xs])
    case("sort_desc_ax0", "sort", [xs], {"axis": 0, "is_ascend": False})
    case("argsort", "argsort", [xs])
    case("argsort_desc", "argsort", [xs], {"is_ascend": False, "dtype": "int32"})
    case("topk", "topk", [xs], {"k": 2})
    case("topk_both", "topk", [xs], {"k": 2, "ret_typ": "both", "axis": 0, "is_ascend": True})
    case("topk_value", "topk", [xs], {"k": 3, "ret_typ": "value"}, grad=[0])
    case("topk_mask", "topk", [xs], {"k": 2, "ret_typ": "mask"})
    # linalg
    a = spd(3, 19)
    l_ = np.linalg.cholesky(a).astype(np.float32)
    b = f32(3, 2, seed=20)
    case(
        "gemm",
        "linalg.gemm",
        [f32(2, 3, seed=1), f32(3, 4, seed=2), f32(2, 4, seed=3)],
        {"alpha": 2.0, "beta": 0.5},
        grad=[0, 1, 2],
    )
    case(
        "gemm_t",
        "linalg.gemm",
        [f32(3, 2, seed=1), f32(4, 3, seed=2), f32(2, 4, seed=3)],
        {"transpose_a": True, "transpose_b": True},
    )
    case("gemm2", "linalg.gemm2", [f32(2, 2, 3, seed=1), f32(2, 3, 4, seed=2)], {"alpha": 1.5}, grad=[0, 1])
    case("gemm2_tb", "linalg.gemm2", [f32(2, 3, seed=1), f32(4, 3, seed=2)], {"transpose_b": True})
    case("potrf", "linalg.potrf", [a], grad=[])
    case("potri", "linalg.potri", [l_])
    case("trsm", "linalg.trsm", [l_, b], {"alpha": 2.0}, grad=[1])
    case("trsm_t", "linalg.trsm", [l_, b], {"transpose": True})
    case("trsm_right", "linalg.trsm", [l_, b.T.copy()], {"rightside": True})
    case("trsm_upper", "linalg.trsm", [l_.T.copy(), b], {"lower": False})
    case("trmm", "linalg.trmm", [l_, b], {"alpha": 0.5}, grad=[1])
    case("trmm_right_t", "linalg.trmm", [l_, b.T.copy()], {"rightside": True, "transpose": True})
    case("syrk", "linalg.syrk", [f32(2, 3, seed=21)], {"alpha": 2.0}, grad=[0])
    case("syrk_t", "linalg.syrk", [f32(2, 3, seed=21)], {"transpose": True})
    case("sumlogdiag", "linalg.sumlogdiag", [a], grad=[0])
    case("extractdiag", "linalg.extractdiag", [f32(2, 3, 3, seed=22)], {"offset": 1})
    case("makediag", "linalg.makediag", [f32(2, 3, seed=22)], {"offset": -1})
    case("inverse", "linalg.inverse", [a], grad=[0])
    case("det", "linalg.det", [a], grad=[0])
    case("slogdet", "linalg.slogdet", [a])
    # nn
    xi = f32(2, 3, 6, 6, seed=23)
    case("act_relu", "Activation", [x23], {"act_type": "relu"}, grad=[0])
    for t in ["sigmoid", "tanh", "softrelu", "softsign"]:
        case("act_" + t, "Activation", [x23 * 3], {"act_type": t}, grad=[0])
    case(
        "fc",
        "FullyConnected",
        [x234, f32(5, 12, seed=24), f32(5, seed=25)],
        {"num_hidden": 5},
        grad=[0, 1, 2],
    )
    case(
        "fc_noflat",
        "FullyConnected",
        [x234, f32(5, 4, seed=24), f32(5, seed=25)],
        {"num_hidden": 5, "flatten": False},
        grad=[0, 1, 2],
    )
    case(
        "fc_nobias",
        "FullyConnected",
        [x23, f32(4, 3, seed=24)],
        {"num_hidden": 4, "no_bias": True},
        grad=[0, 1],
    )
    case(
        "conv",
        "Convolution",
        [xi, f32(4, 3, 3, 3, seed=26), f32(4, seed=27)],
        {"kernel": [3, 3], "num_filter": 4, "stride": [2, 1], "pad": [1, 0]},
        grad=[0, 1, 2],
    )
    case(
        "conv_group_dil",
        "Convolution",
        [xi[:, :2], f32(4, 1, 2, 2, seed=26)],
        {"kernel": [2, 2], "num_filter": 4, "num_group": 2, "dilate": [2, 2], "no_bias": True},
    )
    case(
        "conv1d",
        "Convolution",
        [f32(2, 3, 7, seed=28), f32(2, 3, 3, seed=29), f32(2, seed=30)],
        {"kernel": [3], "num_filter": 2},
    )
    case(
        "deconv",
        "Deconvolution",
        [f32(1, 2, 3, 3, seed=31), f32(2, 3, 3, 3, seed=32)],
        {"kernel": [3, 3], "num_filter": 3, "stride": [2, 2], "pad": [1, 1], "adj": [1, 1]},
        grad=[0, 1],
    )
    case(
        "deconv_bias",
        "Deconvolution",
        [f32(1, 2, 3, 3, seed=31), f32(2, 3, 2, 2, seed=32), f32(3, seed=3)],
        {"kernel": [2, 2], "num_filter": 3, "no_bias": False},
    )
    case("pool_max", "Pooling", [xi], {"kernel": [2, 2], "stride": [2, 2], "pool_type": "max"}, grad=[0])
    case(
        "pool_avg_full",
        "Pooling",
        [f32(1, 2, 5, 5, seed=33)],
        {"kernel": [2, 2], "stride": [2, 2], "pool_type": "avg", "pooling_convention": "full"},
        grad=[0],
    )
    case(
        "pool_avg_pad",
        "Pooling",
        [xi],
        {"kernel": [3, 3], "stride": [2, 2], "pad": [1, 1], "pool_type": "avg", "count_include_pad": False},
    )
    case(
        "pool_global", "Pooling", [xi], {"kernel": [1, 1], "global_pool": True, "pool_type": "avg"}, grad=[0]
    )
    case("pool_sum", "Pooling", [xi], {"kernel": [3, 3], "pool_type": "sum"})
    case("pool_lp", "Pooling", [xi], {"kernel": [2, 2], "stride": [2, 2], "pool_type": "lp", "p_value": 2})
    g, bt = f32(3, seed=34, lo=0.5, hi=1.5), f32(3, seed=35)
    mm, mv = f32(3, seed=36), f32(3, seed=37, lo=0.5, hi=2.0)
    # data gradient in predict mode left out: MXNet 1.9.1's BatchNorm backward outside training does not
    # give d(out)/d(data) = gamma / sqrt(moving_var + eps) (it mixes in batch terms); jax.grad does
    case("bn_infer", "BatchNorm", [xi, g, bt, mm, mv], {"fix_gamma": False}, grad=[1, 2])
    case("bn_infer_fixg", "BatchNorm", [xi, g, bt, mm, mv], {"eps": 1e-5})
    case("bn_global", "BatchNorm", [xi, g, bt, mm, mv], {"fix_gamma": False, "use_global_stats": True})
    case(
        "bn_train", "BatchNorm", [xi, g, bt, mm, mv], {"fix_gamma": False, "__train__": True}, grad=[0, 1, 2]
    )
    case(
        "bn_axis",
        "BatchNorm",
        [f32(2, 4, 3, seed=38), g, bt, mm, mv],
        {"fix_gamma": False, "axis": -1, "__train__": True},
    )
    case("layernorm", "LayerNorm", [x234, f32(4, seed=39), f32(4, seed=40)], grad=[0, 1, 2])
    case("layernorm_ax1", "LayerNorm", [x234, f32(3, seed=39), f32(3, seed=40)], {"axis": 1, "eps": 1e-3})
    case("instancenorm", "InstanceNorm", [xi, g, bt], grad=[0, 1, 2])
    case(
        "groupnorm",
        "GroupNorm",
        [f32(2, 4, 3, 3, seed=41), f32(2, seed=42), f32(2, seed=43)],
        {"num_groups": 2},
    )
    case("dropout_infer", "Dropout", [x23], {"p": 0.5})
    case(
        "embedding",
        "Embedding",
        [np.array([[0, 2], [4, 1]], np.float32), f32(5, 3, seed=44)],
        {"input_dim": 5, "output_dim": 3},
        grad=[1],
    )
    case("softmax", "softmax", [x234], grad=[0])
    case("softmax_ax_t", "softmax", [x234], {"axis": 1, "temperature": 2.0}, grad=[0])
    case(
        "softmax_len",
        "softmax",
        [x234, np.array([[1, 4, 2], [3, 2, 4]], np.int32)],
        {"axis": -1, "use_length": True},
    )
    case("log_softmax", "log_softmax", [x234], {"axis": 0}, grad=[0])
    case("softmin", "softmin", [x234], grad=[0])
    # no gradient case: MXNet 1.9.1's SoftmaxActivation backward of 4-D data does not match its forward
    case("softmax_act", "SoftmaxActivation", [xi[:, :, :2, :2]])
    case("softmax_act_2d", "SoftmaxActivation", [x23], grad=[0])
    case("softmax_act_ch", "SoftmaxActivation", [xi[:, :, :2, :2]], {"mode": "channel"})
    case("leaky", "LeakyReLU", [x23], {"slope": 0.1}, grad=[0])
    case(
        "prelu",
        "LeakyReLU",
        [xi[:, :, :2, :2], f32(3, seed=45, lo=0.1, hi=0.5)],
        {"act_type": "prelu"},
        grad=[0, 1],
    )
    case("elu", "LeakyReLU", [x23 * 3], {"act_type": "elu", "slope": 0.7}, grad=[0])
    # no gradient case: MXNet 1.9.1's selu backward for x < 0 is lambda * (out + alpha) with out already
    # scaled by lambda (a bug); framework.nd follows the derivative (jax.grad)
    case("selu", "LeakyReLU", [x23 * 3], {"act_type": "selu"})
    case("gelu", "LeakyReLU", [x23 * 3], {"act_type": "gelu"}, grad=[0])
    case("l2norm", "L2Normalization", [xi], grad=[0])
    case("l2norm_ch", "L2Normalization", [xi], {"mode": "channel"}, grad=[0])
    case("l2norm_sp", "L2Normalization", [xi], {"mode": "spatial"})
    case("blockgrad", "BlockGrad", [x23], grad=[0])
    case("upsampling", "UpSampling", [f32(1, 2, 2, 3, seed=46)], {"scale": 2, "sample_type": "nearest"})
    lab = np.array([0, 3, 1], np.float32)
    xl = f32(3, 4, seed=47)
    case("softmax_output", "SoftmaxOutput", [xl, lab], grad=[0])
    case(
        "softmax_output_ign",
        "SoftmaxOutput",
        [xl, np.array([0, -1, 1], np.float32)],
        {"use_ignore": True, "grad_scale": 2.0, "normalization": "valid"},
        grad=[0],
    )
    case("softmax_output_batch", "SoftmaxOutput", [xl, lab], {"normalization": "batch"}, grad=[0])
    case("linreg", "LinearRegressionOutput", [xl, f32(3, 4, seed=48)], {"grad_scale": 0.5}, grad=[0])
    case("logreg", "LogisticRegressionOutput", [xl, f32(3, 4, seed=48, lo=0, hi=1)], grad=[0])
    case("maereg", "MAERegressionOutput", [xl, f32(3, 4, seed=48)], grad=[0])
    case("makeloss", "MakeLoss", [xl], {"grad_scale": 0.3}, grad=[0])
    case("softmax_ce", "softmax_cross_entropy", [xl, lab], grad=[0])


def resolve(path):
    obj = mx.nd
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def run() -> None:
    build()
    out: dict[str, np.ndarray] = {}
    table = {}
    failed: list[str] = []
    for name, op, inputs, kwargs, grad in CASES:
        fn = resolve(op)
        kw = dict(kwargs)
        train = kw.pop("__train__", False)
        args = [mx.nd.array(a, dtype=a.dtype) for a in inputs]
        for i in grad:
            args[i].attach_grad()
        mx_kw = {k: (tuple(v) if isinstance(v, list) else v) for k, v in kw.items()}
        try:
            with mx.autograd.record(train_mode=train) if (grad or train) else _null():
                res = fn(*args, **mx_kw)
        except mx.base.MXNetError as e:
            failed.append(f"{name}: {str(e).splitlines()[0]}")
            continue
        outs = list(res) if isinstance(res, (list, tuple)) else [res]
        for i, a in enumerate(inputs):
            out[f"{name}.in{i}"] = a
        try:
            for j, o in enumerate(outs):
                out[f"{name}.out{j}"] = o.asnumpy()
        except mx.base.MXNetError as e:
            failed.append(f"{name}: {str(e).strip().splitlines()[-1]}")
            continue
        if grad:
            heads = [
                mx.nd.array(rs(99 + j).uniform(-1, 1, o.shape).astype(np.float32)) for j, o in enumerate(outs)
            ]
            mx.autograd.backward(outs, heads)
            for j, h in enumerate(heads):
                out[f"{name}.head{j}"] = h.asnumpy()
            for i in grad:
                out[f"{name}.grad{i}"] = args[i].grad.asnumpy()
        table[name] = {"op": op, "kwargs": kwargs, "n_in": len(inputs), "n_out": len(outs), "grad": grad}
    if failed:
        raise SystemExit("MXNet refused these cases:\n" + "\n".join(failed))
    out["__cases__"] = np.array(json.dumps(table, sort_keys=True))
    out["__mxnet__"] = np.array(mx.__version__)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **out)
    print(f"{len(table)} cases, {OUT.stat().st_size} bytes -> {OUT}", file=sys.stderr)


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    run()
