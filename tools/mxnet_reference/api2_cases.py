"""The operator cases of ``gen_api2.py`` (numpy only): the ``nd.contrib`` operators added for issue 31
(detection pooling, proposals, signal and counting operators, int8 quantization) and ``nd.slice_like``
with an int ``axes``. Same format as ``ops_cases.py`` (``case(name, op, inputs, kwargs, grad,
**extra)``); case names start with ``api2_`` so they never collide with ``ops.npz``'s. ``csr=True``:
MXNet gets the inputs as CSR arrays; ``bound=True``: MXNet runs the operator through a bound symbol
(its imperative call fails), ``gen_api2.py`` adds those cases to the file.
"""

from __future__ import annotations

import numpy as np

CASES: list[tuple] = []


def rs(seed: int):
    return np.random.RandomState(seed)


def f32(*shape, seed=0, lo=-1.0, hi=1.0):
    return rs(seed).uniform(lo, hi, shape).astype(np.float32)


def case(name, op, inputs, kwargs=None, grad=(), **extra):
    CASES.append(("api2_" + name, op, [np.asarray(a) for a in inputs], kwargs or {}, list(grad), extra))


def rng(lo, hi):
    return [np.array([lo], np.float32), np.array([hi], np.float32)]


def i8(*shape, seed=0, lo=-127, hi=128):
    return rs(seed).randint(lo, hi, shape).astype(np.int8)


def u8(*shape, seed=0):
    return rs(seed).randint(0, 256, shape).astype(np.uint8)


def pooling_ops() -> None:
    x = f32(2, 12, 7, 6, seed=1, lo=0, hi=1)
    rois = np.array([[0, 0, 0, 5, 4], [1, 1.4, 2, 5.6, 6.2], [0, 3, 3, 3, 3], [1, -2, 3, 20, 30]], np.float32)
    trans = (rs(2).randn(4, 6, 2, 2) * 0.5).astype(np.float32)
    case(
        "psroi",
        "nd.contrib.PSROIPooling",
        [x, rois],
        {"spatial_scale": 0.7, "output_dim": 3, "pooled_size": 2},
        grad=[0],
    )
    case(
        "psroi_group",
        "nd.contrib.PSROIPooling",
        [x, rois],
        {"spatial_scale": 1.0, "output_dim": 3, "pooled_size": 3, "group_size": 2},
        grad=[0],
    )
    case(
        "dpsroi",
        "nd.contrib.DeformablePSROIPooling",
        [x, rois, trans],
        {
            "spatial_scale": 0.8,
            "output_dim": 3,
            "group_size": 2,
            "pooled_size": 3,
            "part_size": 2,
            "sample_per_part": 2,
            "trans_std": 0.2,
        },
        grad=[0, 2],
    )
    case(
        "dpsroi_notrans",
        "nd.contrib.DeformablePSROIPooling",
        [x, rois],
        {
            "spatial_scale": 0.8,
            "output_dim": 3,
            "group_size": 2,
            "pooled_size": 2,
            "sample_per_part": 3,
            "no_trans": True,
        },
        grad=[0],
    )
    rr = np.array(
        [[0, 4, 4, 5, 3, 30], [1, 3.5, 5, 8, 4, -60], [0, 1, 1, 2, 2, 100], [1, 5, 6, 12, 10, 0]], np.float32
    )
    case("rroi", "nd.contrib.RROIAlign", [x, rr], {"pooled_size": [2, 3], "spatial_scale": 0.9})
    case(
        "rroi_ratio",
        "nd.contrib.RROIAlign",
        [x, rr],
        {"pooled_size": [3, 3], "spatial_scale": 1.0, "sampling_ratio": 2},
    )


def proposal_ops() -> None:
    cls = rs(3).rand(2, 12, 5, 4).astype(np.float32)
    bbox = (rs(4).randn(2, 24, 5, 4) * 0.3).astype(np.float32)
    im = np.array([[70, 60, 1.0], [50, 64, 0.5]], np.float32)
    kw = {
        "rpn_pre_nms_top_n": 30,
        "feature_stride": 16,
        "scales": [2, 4],
        "ratios": [0.5, 1, 2],
        "rpn_min_size": 8,
    }
    case(
        "multi_proposal",
        "nd.contrib.MultiProposal",
        [cls, bbox, im],
        {**kw, "rpn_post_nms_top_n": 12, "threshold": 0.5, "output_score": True},
    )
    case(
        "proposal_iou",
        "nd.contrib.Proposal",
        [cls[:1], bbox[:1], im[:1]],
        {**kw, "rpn_post_nms_top_n": 40, "threshold": 0.3, "iou_loss": True},
    )
    case("proposal", "nd.contrib.Proposal", [cls[1:], bbox[1:], im[1:]], {**kw, "rpn_post_nms_top_n": 7})


def signal_ops() -> None:
    lda = np.array([[1.5, 2.0, 3.0], [0.5, 1.0, 0.7]], np.float32)
    alpha = np.array([0.2, 0.3, 0.4], np.float32)
    beta = np.array([1.0, 2.0, 3.0], np.float32)
    lags = np.array([[0.5, 1.0, 0.2, 0.7], [1, 2, 3, 4]], np.float32)
    marks = np.array([[0, 1, 0, 2], [2, 2, 1, 0]], np.int32)
    state = np.array([[0.1, 0.0, 0.3], [0.0, 0.2, 0.0]], np.float32)
    case(
        "hawkesll",
        "nd.contrib.hawkesll",
        [
            lda,
            alpha,
            beta,
            state,
            lags,
            marks,
            np.array([3, 4], np.float32),
            np.array([5.0, 20.0], np.float32),
        ],
        grad=[0, 1, 2],
        no_head=[1],
    )
    case(
        "backward_gradientmultiplier",
        "nd.contrib.backward_gradientmultiplier",
        [f32(3, 4, seed=5)],
        {"scalar": 2.5},
    )
    dense = np.array([[0, 1, 2, 0, 0], [3, 0, 4, 0, 0], [0, 5, 0, 6, 0]], np.float32)
    case("getnnz", "nd.contrib.getnnz", [dense], csr=True)
    case("getnnz_rows", "nd.contrib.getnnz", [dense], {"axis": 1}, csr=True)
    case(
        "slice_like_int_axes",
        "nd.slice_like",
        [f32(4, 5, 3, seed=6), f32(2, 3, 2, seed=7)],
        {"axes": 0},
        grad=[0],
    )
    case(
        "slice_like_neg_axis",
        "nd.slice_like",
        [f32(4, 5, 3, seed=6), f32(2, 3, 2, seed=7)],
        {"axes": -1},
        grad=[0],
    )


def quantization_ops() -> None:
    x = f32(2, 5, 4, seed=8, lo=-2, hi=3)
    case("quantize_u8", "nd.contrib.quantize", [x, *rng(-2, 3)], {"out_type": "uint8"})
    case("quantize_i8", "nd.contrib.quantize", [x, *rng(-2.5, 1)], {"out_type": "int8"})
    case("quantize_v2_i8", "nd.contrib.quantize_v2", [x], {"out_type": "int8"})
    case("quantize_v2_u8", "nd.contrib.quantize_v2", [x], {"out_type": "uint8"})
    case(
        "quantize_v2_auto",
        "nd.contrib.quantize_v2",
        [x],
        {"out_type": "auto", "min_calib_range": 0.5, "max_calib_range": 2.0},
    )
    case(
        "quantize_v2_calib", "nd.contrib.quantize_v2", [x], {"min_calib_range": -1.0, "max_calib_range": 2.0}
    )
    case("quantize_v2_pass", "nd.contrib.quantize_v2", [i8(3, 4, seed=9)])
    q = i8(2, 5, 4, seed=10)
    case("dequantize_i8", "nd.contrib.dequantize", [q, *rng(-2.8, 2.1)])
    case("dequantize_u8", "nd.contrib.dequantize", [u8(3, 4, seed=11), *rng(0, 3.5)])
    big = rs(12).randint(-100000, 100000, (3, 6)).astype(np.int32)
    case("requantize", "nd.contrib.requantize", [big, *rng(-100.0, 80.0)])
    case(
        "requantize_calib",
        "nd.contrib.requantize",
        [big, *rng(-500.0, 500.0)],
        {"min_calib_range": -0.01, "max_calib_range": 0.02},
    )
    case(
        "requantize_u8",
        "nd.contrib.requantize",
        [np.abs(big), *rng(-500.0, 500.0)],
        {"out_type": "auto", "min_calib_range": 0.0, "max_calib_range": 0.02},
    )
    hist, edges = np.histogram(rs(13).randn(2000), bins=301)
    case(
        "calibrate_entropy",
        "nd.contrib.calibrate_entropy",
        [hist.astype(np.float32), edges.astype(np.float32)],
        {"num_quantized_bins": 31},
    )
    case("quantized_act", "nd.contrib.quantized_act", [q, *rng(-2.8, 2.8)], {"act_type": "relu"})
    case("quantized_flatten", "nd.contrib.quantized_flatten", [q, *rng(-1, 2)])
    q2 = i8(2, 3, 4, seed=14)
    case(
        "quantized_concat",
        "nd.contrib.quantized_concat",
        [q, q2, *rng(-2.8, 2.8), *rng(-1.0, 4.0)],
        {"num_args": 2, "dim": 1},
    )
    case(
        "quantized_concat_u8",
        "nd.contrib.quantized_concat",
        [u8(2, 2, 3, seed=15), u8(2, 4, 3, seed=16), *rng(0, 1.5), *rng(0, 3.0)],
        {"num_args": 2, "dim": 1},
    )
    case(
        "quantized_concat_mixed",
        "nd.contrib.quantized_concat",
        [u8(2, 2, 3, seed=15), i8(2, 4, 3, seed=16), *rng(0, 1.5), *rng(-2.0, 3.0)],
        {"num_args": 2, "dim": 1},
    )
    a, b = i8(3, 4, seed=17), i8(3, 4, seed=18)
    case("quantized_add", "nd.contrib.quantized_elemwise_add", [a, b, *rng(-2.8, 2.8), *rng(-1.0, 0.5)])
    case(
        "quantized_add_calib",
        "nd.contrib.quantized_elemwise_add",
        [a, b, *rng(-2.8, 2.8), *rng(-1.0, 0.5)],
        {"min_calib_range": -3.0, "max_calib_range": 3.0},
    )
    case(
        "quantized_add_u8",
        "nd.contrib.quantized_elemwise_add",
        [u8(3, 4, seed=19), u8(3, 4, seed=20), *rng(0, 2.0), *rng(0, 1.0)],
    )
    case(
        "quantized_add_mixed",
        "nd.contrib.quantized_elemwise_add",
        [a, u8(3, 4, seed=20), *rng(-2.8, 2.8), *rng(0, 1.0)],
    )
    for key, kw in (
        ("", {}),
        ("_calib", {"min_calib_range": -3.0, "max_calib_range": 3.0}),
        ("_float", {"enable_float_output": True}),
    ):
        case(
            "quantized_mul" + key,
            "nd.contrib.quantized_elemwise_mul",
            [a, b, *rng(-2.8, 2.8), *rng(-1.0, 0.5)],
            kw,
            bound=True,
        )
    case(
        "quantized_embedding",
        "nd.contrib.quantized_embedding",
        [np.array([[0, 2], [1, 1]], np.float32), i8(3, 5, seed=21), *rng(-1, 1)],
        {"input_dim": 3, "output_dim": 5},
    )
    w, bias = i8(3, 20, seed=22), i8(3, seed=23)
    case(
        "quantized_fc",
        "nd.contrib.quantized_fully_connected",
        [q, w, bias, *rng(-2.8, 2.8), *rng(-1, 1), *rng(-0.5, 0.5)],
        {"num_hidden": 3},
    )
    case(
        "quantized_fc_u8_nobias",
        "nd.contrib.quantized_fully_connected",
        [u8(2, 20, seed=24), w, *rng(0, 4), *rng(-0.3, 0.3)],
        {"num_hidden": 3, "no_bias": True},
    )
    xc, wc, bc = u8(2, 4, 6, 5, seed=25), i8(3, 4, 3, 3, seed=26), i8(3, seed=27)
    case(
        "quantized_conv",
        "nd.contrib.quantized_conv",
        [xc, wc, bc, *rng(0, 1), *rng(-1, 1), *rng(-1, 1)],
        {"kernel": [3, 3], "num_filter": 3, "pad": [1, 0], "stride": [2, 1]},
    )
    case(
        "quantized_conv_nobias",
        "nd.contrib.quantized_conv",
        [xc, i8(4, 4, 2, 2, seed=28), *rng(0, 2), *rng(-0.5, 0.5)],
        {"kernel": [2, 2], "num_filter": 4, "no_bias": True, "dilate": [2, 1]},
    )
    xp = i8(2, 3, 7, 6, seed=29)
    case(
        "quantized_pool_max",
        "nd.contrib.quantized_pooling",
        [xp, *rng(-1, 1)],
        {"kernel": [2, 3], "pool_type": "max", "stride": [2, 2]},
    )
    case(
        "quantized_pool_avg",
        "nd.contrib.quantized_pooling",
        [u8(2, 3, 7, 6, seed=30), *rng(0, 1)],
        {"kernel": [3, 3], "pool_type": "avg", "stride": [2, 2], "pad": [1, 1]},
    )
    case(
        "quantized_pool_global",
        "nd.contrib.quantized_pooling",
        [xp, *rng(-1, 1)],
        {"kernel": [1, 1], "pool_type": "avg", "global_pool": True},
    )
    c = 4
    bn = [f32(c, seed=31, lo=0.5, hi=1.5), f32(c, seed=32), f32(c, seed=33), f32(c, seed=34, lo=0.5, hi=2)]
    case(
        "quantized_bn",
        "nd.contrib.quantized_batch_norm",
        [i8(2, c, 3, 3, seed=35), *bn, *rng(-2, 2)],
        {"min_calib_range": -3.0, "max_calib_range": 3.0, "eps": 0.001},
    )
    case(
        "quantized_bn_u8",
        "nd.contrib.quantized_batch_norm",
        [u8(2, c, 3, 3, seed=36), *bn, *rng(0, 2)],
        {"min_calib_range": -2.0, "max_calib_range": 2.5, "eps": 0.01},
    )


def build() -> None:
    pooling_ops()
    proposal_ops()
    signal_ops()
    quantization_ops()
