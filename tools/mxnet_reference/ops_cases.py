"""The case table of ``gen_ops.py`` (numpy only, so both MXNet's venv and the suite can read it).

``case(name, op, inputs, kwargs, grad, **extra)``: ``op`` is a path under ``mx``; ``grad`` lists the
differentiable inputs; ``extra`` may hold ``no_head`` (outputs that get no head gradient: indices,
counts), ``int_out`` and the like, copied into the table for the replay.

``BODIES``: the functions that control-flow cases take, by key, each built for a namespace ``F``
(``mx.nd`` in MXNet, ``framework.nd`` in the replay); ``tests/ops_reference.py`` defines the same ones.
"""

from __future__ import annotations

import numpy as np

CASES: list[tuple] = []


def rs(seed: int):
    return np.random.RandomState(seed)


def f32(*shape, seed=0, lo=-1.0, hi=1.0):
    return rs(seed).uniform(lo, hi, shape).astype(np.float32)


def case(name, op, inputs, kwargs=None, grad=(), **extra):
    CASES.append((name, op, [np.asarray(a) for a in inputs], kwargs or {}, list(grad), extra))


def _foreach_body(F):
    def body(x, states):
        h = F.tanh(x * 2 + states[0] * 0.5)
        return [h, x * states[0]], [h]
    return body


def _foreach_single(F):
    def body(x, states):
        return x + states[0] * states[1], [states[0] * 0.9 + x, states[1]]
    return body


def _while_cond(F):
    def cond(i, s):
        return F.sum(i) < 3
    return cond


def _while_body(F):
    def body(i, s):
        return s * 2, (i + 1, F.sin(s) * 2 + 1)
    return body


def _cond_then(F):
    def then(x, y):
        return x * y + 1
    return then


def _cond_else(F):
    def other(x, y):
        return [x - y, F.exp(y)]
    return other


BODIES = {
    "foreach_body": _foreach_body,
    "foreach_single": _foreach_single,
    "while_cond": _while_cond,
    "while_body": _while_body,
    "cond_then": _cond_then,
    "cond_else": _cond_else,
}


def invoke(fn, call, F, inputs, kw):
    """Call a control-flow operator: ``call`` says which, the functions are ``BODIES`` built for ``F``."""
    if call == "foreach":
        return fn(BODIES[kw["__body__"]](F), inputs[0], list(inputs[1:]))
    if call == "while_loop":
        return fn(BODIES[kw["__cond__"]](F), BODIES[kw["__body__"]](F), list(inputs),
                  max_iterations=kw["max_iterations"])
    if call == "multi_lists":  # multi_adamw/lamb: lists of weights, grads, means, vars (, weights32)
        n, k = kw["__n__"], kw["__lists__"]
        lists = [list(inputs[i * n:(i + 1) * n]) for i in range(k)]
        rest = {key: v for key, v in kw.items() if not key.startswith("__")}
        return fn(*lists, *inputs[k * n:], **rest)
    if call == "cond":
        then, other = BODIES[kw["__then__"]](F), BODIES[kw["__else__"]](F)
        return fn(inputs[0], lambda: then(*inputs[1:]), lambda: other(*inputs[1:]))
    raise ValueError(f"unknown control-flow call {call!r}")


def tensor_ops() -> None:
    """npx's array extras."""
    a = f32(2, 3, 4, seed=1)
    case("npx_batch_dot", "npx.batch_dot", [a, f32(2, 4, 5, seed=2)], grad=[0, 1])
    case("npx_batch_dot_t", "npx.batch_dot", [a, f32(2, 5, 3, seed=2)],
         {"transpose_a": True, "transpose_b": True}, grad=[0, 1])
    case("npx_batch_dot_4d", "npx.batch_dot", [f32(2, 2, 3, 4, seed=3), f32(2, 2, 4, 2, seed=4)], grad=[0, 1])
    case("npx_gather_nd", "npx.gather_nd", [a, np.array([[0, 1, 1], [2, 0, 1]], np.int32)], grad=[0])
    # MXNet's gradient drops entries reached through negative indices (its forward wraps them): values only
    case("npx_gather_nd_neg", "npx.gather_nd", [a, np.array([[0, 1, -1], [2, 0, -2]], np.int32)])
    case("npx_gather_nd_f", "npx.gather_nd", [a, np.array([[1.0, 0.0]], np.float32)], grad=[0])
    case("npx_nonzero", "npx.nonzero", [np.array([[0, 1.5, 0], [2, 0, -1]], np.float32)])
    case("npx_nonzero_none", "npx.nonzero", [np.zeros((3,), np.float32)])
    case("npx_reshape_like", "npx.reshape_like", [a, f32(6, 4, seed=3)], grad=[0])
    case("npx_reshape_like_part", "npx.reshape_like", [a, f32(5, 6, 2, seed=3)],
         {"lhs_begin": 1, "lhs_end": 3, "rhs_begin": 1}, grad=[0])
    case("npx_slice", "npx.slice", [a], {"begin": [0, 1], "end": [2, 3]}, grad=[0])
    case("npx_slice_step", "npx.slice", [a],
         {"begin": [None, 2, 3], "end": [None, 0, None], "step": [None, -1, -2]}, grad=[0])
    case("npx_smooth_l1", "npx.smooth_l1", [f32(3, 4, seed=5, lo=-2, hi=2)], {"scalar": 2.0}, grad=[0])
    case("npx_cast", "npx.cast", [f32(2, 3, seed=6, lo=-3, hi=3)], {"dtype": "int32"})
    case("npx_shape_array", "npx.shape_array", [a])


def _boxes(n, seed, lo=0.0, hi=1.0):
    """n corner boxes in [lo, hi], each half of them a jittered copy of another (so some overlap)."""
    r = rs(seed)
    xy = r.uniform(lo, hi * 0.6, (n, 2))
    wh = r.uniform(hi * 0.1, hi * 0.4, (n, 2))
    b = np.concatenate([xy, xy + wh], axis=1)
    half = n // 2
    b[half:] = b[:n - half] + r.uniform(-0.05, 0.05, (n - half, 4)) * hi
    return b.astype(np.float32)


def _nms_rows(b, n, seed, classes=3):
    r = rs(seed)
    scores = r.permutation(n).astype(np.float32) / n + 0.01
    ids = r.randint(0, classes, n).astype(np.float32)
    return np.concatenate([ids[:, None], scores[:, None], _boxes(n, seed + 1)], axis=1).astype(np.float32)


def detection() -> None:
    """nd.contrib's box operators, MultiBox*, ROI pooling/align, resizing."""
    d = _nms_rows(None, 12, 40)
    case("box_nms", "nd.contrib.box_nms", [d], {"overlap_thresh": 0.3}, grad=[0])
    case("box_nms_id", "nd.contrib.box_nms", [d],
         {"overlap_thresh": 0.2, "id_index": 0, "valid_thresh": 0.2, "topk": 8}, grad=[0])
    case("box_nms_force", "nd.contrib.box_nms", [d], {"overlap_thresh": 0.2, "id_index": 0,
                                                       "force_suppress": True, "background_id": 1})
    case("box_nms_batch", "nd.contrib.box_nms",
         [np.stack([_nms_rows(None, 10, 41), _nms_rows(None, 10, 42)]).reshape(2, 1, 10, 6)],
         {"overlap_thresh": 0.25, "id_index": 0}, grad=[0])
    lay = d[:, [2, 3, 4, 5, 1, 0]].copy()
    case("box_nms_layout", "nd.contrib.box_nms", [lay],
         {"coord_start": 0, "score_index": 4, "id_index": 5, "overlap_thresh": 0.3})
    cen = d.copy()
    cen[:, 2:4] = (d[:, 2:4] + d[:, 4:6]) / 2
    cen[:, 4:6] = d[:, 4:6] - d[:, 2:4]
    case("box_nms_center", "nd.contrib.box_nms", [cen],
         {"in_format": "center", "out_format": "corner", "overlap_thresh": 0.3})
    case("box_nms_to_center", "nd.contrib.box_nms", [d], {"out_format": "center", "overlap_thresh": 0.3})
    case("box_nms_topk0", "nd.contrib.box_nms", [d], {"topk": 0})
    case("box_non_maximum_suppression", "nd.contrib.box_non_maximum_suppression", [d],
         {"overlap_thresh": 0.4})
    case("box_iou", "nd.contrib.box_iou", [_boxes(6, 43).reshape(2, 3, 4), _boxes(5, 44)], grad=[0, 1])
    case("box_iou_center", "nd.contrib.box_iou", [cen[:, 2:6], cen[:4, 2:6]], {"format": "center"})
    anchors = _boxes(8, 45).reshape(1, 8, 4)
    refs = _boxes(6, 46).reshape(2, 3, 4)
    samples = np.array([[1, -1, 0, 1, 1, 0, -1, 1], [1, 1, 1, -1, 0, 0, 1, 1]], np.float32)
    matches = rs(47).randint(0, 3, (2, 8)).astype(np.float32)
    case("box_encode", "nd.contrib.box_encode",
         [samples, matches, np.concatenate([anchors, anchors]), refs,
          np.array([0.0, 0.1, -0.1, 0.0], np.float32), np.array([0.1, 0.1, 0.2, 0.2], np.float32)])
    off = f32(2, 8, 4, seed=48, lo=-0.5, hi=0.5)
    case("box_decode", "nd.contrib.box_decode", [off, anchors], {"std0": 0.1, "std1": 0.1, "std2": 0.2,
                                                                "std3": 0.2, "format": "corner"}, grad=[0])
    cen_a = np.concatenate([(anchors[..., :2] + anchors[..., 2:]) / 2, anchors[..., 2:] - anchors[..., :2]],
                           -1)
    case("box_decode_center_clip", "nd.contrib.box_decode", [off * 8, cen_a], {"clip": 1.5})
    sc = f32(2, 5, 4, seed=49, lo=0, hi=1)
    case("bipartite_matching", "nd.contrib.bipartite_matching", [sc], {"threshold": 0.1})
    case("bipartite_matching_asc", "nd.contrib.bipartite_matching", [sc],
         {"threshold": 0.8, "is_ascend": True})
    case("bipartite_matching_topk", "nd.contrib.bipartite_matching", [sc[0]], {"threshold": 0.05, "topk": 2})
    # SSD's anchors, targets and detections
    fm = f32(1, 3, 3, 4, seed=50)
    case("multibox_prior", "nd.contrib.MultiBoxPrior", [fm], {"sizes": [0.4, 0.7], "ratios": [1, 2, 0.5]},
         grad=[0])
    case("multibox_prior_clip", "nd.contrib.MultiBoxPrior", [fm],
         {"sizes": [0.9], "ratios": [1, 3], "clip": True, "steps": [0.3, 0.25], "offsets": [0.2, 0.7]})
    case("npx_multibox_prior", "npx.multibox_prior", [fm], {"sizes": [0.3], "ratios": [1, 2]})
    anc = np.clip(_boxes(20, 51), 0, 1).reshape(1, 20, 4)
    lab = np.full((2, 4, 5), -1, np.float32)
    lab[0, :3, 0] = [0, 2, 1]
    lab[0, :3, 1:] = anc[0, [0, 5, 11]] + 0.02
    lab[1, :1, 0] = [1]
    lab[1, :1, 1:] = anc[0, [3]] - 0.01
    cls_pred = f32(2, 3, 20, seed=52, lo=-2, hi=2)
    case("multibox_target", "nd.contrib.MultiBoxTarget", [anc, lab, cls_pred], grad=[2])
    case("multibox_target_mining", "nd.contrib.MultiBoxTarget", [anc, lab, cls_pred],
         {"overlap_threshold": 0.3, "negative_mining_ratio": 2.0, "negative_mining_thresh": 0.4,
          "ignore_label": -2, "variances": [0.1, 0.1, 0.1, 0.1]})
    lab_empty = np.full((1, 2, 5), -1, np.float32)
    case("multibox_target_empty", "nd.contrib.MultiBoxTarget", [anc, lab_empty, cls_pred[:1]])
    case("npx_multibox_target", "npx.multibox_target", [anc, lab, cls_pred], {"overlap_threshold": 0.4})
    prob = rs(53).dirichlet(np.ones(3), (2, 20)).transpose(0, 2, 1).astype(np.float32)
    loc = f32(2, 80, seed=54, lo=-0.5, hi=0.5)
    case("multibox_detection", "nd.contrib.MultiBoxDetection", [prob, loc, anc], {"threshold": 0.3},
         grad=[0, 1])
    case("multibox_detection_topk", "nd.contrib.MultiBoxDetection", [prob, loc, anc],
         {"threshold": 0.2, "nms_topk": 5, "force_suppress": True, "nms_threshold": 0.3, "clip": False})
    case("multibox_detection_nonms", "nd.contrib.MultiBoxDetection", [prob, loc, anc],
         {"threshold": 0.35, "nms_threshold": 0.0})
    case("npx_multibox_detection", "npx.multibox_detection", [prob, loc, anc], {"nms_threshold": 0.45})
    # ROI pooling and align
    fmap = f32(2, 4, 9, 11, seed=55)
    rois = np.array([[0, 0, 0, 15, 10], [1, 3.3, 2.6, 17.4, 14.8], [0, 8, 4, 9, 5], [1, -2, -2, 30, 25],
                     [0, 6.5, 6.5, 6.5, 6.5]], np.float32)
    case("roi_pooling", "nd.ROIPooling", [fmap, rois], {"pooled_size": [3, 2], "spatial_scale": 0.5},
         grad=[0])
    case("npx_roi_pooling", "npx.roi_pooling", [fmap, rois], {"pooled_size": [2, 2], "spatial_scale": 0.6},
         grad=[0])
    case("roi_align", "nd.contrib.ROIAlign", [fmap, rois], {"pooled_size": [3, 2], "spatial_scale": 0.5,
                                                           "sample_ratio": 2}, grad=[0])
    case("roi_align_adaptive", "nd.contrib.ROIAlign", [fmap, rois[:4]],
         {"pooled_size": [2, 2], "spatial_scale": 0.5}, grad=[0])
    case("roi_align_aligned", "nd.contrib.ROIAlign", [fmap, rois[:2]],
         {"pooled_size": [2, 3], "spatial_scale": 0.5, "sample_ratio": 3, "aligned": True}, grad=[0])
    case("roi_align_ps", "nd.contrib.ROIAlign", [f32(2, 8, 6, 6, seed=56), rois[:3]],
         {"pooled_size": [2, 2], "spatial_scale": 0.3, "sample_ratio": 2, "position_sensitive": True},
         grad=[0])
    # resizing and adaptive pooling
    img = f32(2, 3, 5, 7, seed=57)
    for name, kw in [("size", {"height": 8, "width": 4}),
                     ("size_nocorner", {"height": 9, "width": 12, "align_corners": False}),
                     ("scale", {"scale_height": 1.5, "scale_width": 0.6}),
                     ("odd_scale", {"mode": "odd_scale", "scale_height": 2.0, "scale_width": 0.5}),
                     ("to_even_down", {"mode": "to_even_down"}), ("to_even_up", {"mode": "to_even_up"}),
                     ("to_odd_down", {"mode": "to_odd_down", "align_corners": False}),
                     ("to_odd_up", {"mode": "to_odd_up"})]:
        case("bilinear_resize_" + name, "nd.contrib.BilinearResize2D", [img], kw, grad=[0])
    case("bilinear_resize_like", "nd.contrib.BilinearResize2D", [img, f32(2, 3, 3, 10, seed=58)],
         {"mode": "like"}, grad=[0, 1])
    case("adaptive_avg_pool", "nd.contrib.AdaptiveAvgPooling2D", [img], {"output_size": [3, 4]}, grad=[0])
    case("adaptive_avg_pool_1", "nd.contrib.AdaptiveAvgPooling2D", [img], grad=[0])
    case("adaptive_avg_pool_up", "nd.contrib.AdaptiveAvgPooling2D", [img], {"output_size": 9}, grad=[0])


def control_flow() -> None:
    """foreach, while_loop, cond with MXNet's imperative (NDArray) semantics."""
    x = f32(4, 2, 3, seed=60)
    case("foreach", "nd.contrib.foreach", [x, f32(2, 3, seed=61)], {"__body__": "foreach_body"}, grad=[0, 1],
         call="foreach")
    case("foreach_single", "nd.contrib.foreach", [x[:, 0], f32(3, seed=62), f32(3, seed=63)],
         {"__body__": "foreach_single"}, grad=[0, 1, 2], call="foreach")
    case("while_loop", "nd.contrib.while_loop", [np.zeros(1, np.float32), f32(2, seed=64)],
         {"__cond__": "while_cond", "__body__": "while_body", "max_iterations": 3}, grad=[1],
         call="while_loop", no_head=[1])
    case("cond_then", "nd.contrib.cond", [np.ones(1, np.float32), f32(3, seed=65), f32(3, seed=66)],
         {"__then__": "cond_then", "__else__": "cond_then"}, grad=[1, 2], call="cond")
    case("cond_else", "nd.contrib.cond", [np.zeros(1, np.float32), f32(3, seed=65), f32(3, seed=66)],
         {"__then__": "cond_else", "__else__": "cond_else"}, grad=[1, 2], call="cond")


def contrib_tensor() -> None:
    """nd.contrib's smaller operators, the transformer helpers, CTC."""
    x = f32(3, 4, seed=70, lo=-3, hi=3)
    case("arange_like", "nd.contrib.arange_like", [x], {"start": 2, "step": 0.5, "repeat": 2})
    case("arange_like_axis", "nd.contrib.arange_like", [x], {"axis": 1, "start": -1})
    case("index_copy", "nd.contrib.index_copy", [x, np.array([2, 0], np.float32), f32(2, 4, seed=71)],
         grad=[0, 2])
    case("index_array", "nd.contrib.index_array", [f32(2, 3, 2, seed=72)])
    case("index_array_axes", "nd.contrib.index_array", [f32(2, 3, 2, seed=72)], {"axes": [2, 0]})
    case("quadratic", "nd.contrib.quadratic", [x], {"a": 2.0, "b": -3.0, "c": 1.5}, grad=[0])
    case("div_sqrt_dim", "nd.contrib.div_sqrt_dim", [x], grad=[0])
    special = np.array([1.0, np.inf, -np.inf, np.nan, -2.0], np.float32)
    for op in ["isfinite", "isinf", "isnan"]:
        case(op, "nd.contrib." + op, [special])
    case("allclose", "nd.contrib.allclose", [x, x + 1e-6])
    case("allclose_not", "nd.contrib.allclose", [x, x + 1e-2], {"rtol": 1e-4, "atol": 1e-4})
    halves = np.array([0.5, 1.5, 2.5, -0.5, -1.7, 0.2], np.float32)
    case("round_ste", "nd.contrib.round_ste", [halves], grad=[0])
    case("sign_ste", "nd.contrib.sign_ste", [halves], grad=[0])
    case("gradientmultiplier", "nd.contrib.gradientmultiplier", [x], {"scalar": -0.5}, grad=[0])
    qkv = f32(3, 2, 24, seed=73)
    case("selfatt_qk", "nd.contrib.interleaved_matmul_selfatt_qk", [qkv], {"heads": 2}, grad=[0])
    case("selfatt_valatt", "nd.contrib.interleaved_matmul_selfatt_valatt", [qkv, f32(4, 3, 3, seed=74)],
         {"heads": 2}, grad=[0, 1])
    q, kv = f32(3, 2, 8, seed=75), f32(5, 2, 16, seed=76)
    case("encdec_qk", "nd.contrib.interleaved_matmul_encdec_qk", [q, kv], {"heads": 2}, grad=[0, 1])
    case("encdec_valatt", "nd.contrib.interleaved_matmul_encdec_valatt", [kv, f32(4, 3, 5, seed=77)],
         {"heads": 2}, grad=[0, 1])
    acts = f32(6, 3, 5, seed=78, lo=-2, hi=2)
    lab_first = np.array([[1, 2, 2, 0], [3, 0, 0, 0], [4, 1, 3, 2]], np.float32)
    case("ctc", "nd.CTCLoss", [acts, lab_first], grad=[0])
    case("ctc_last", "nd.ctc_loss", [acts, np.array([[0, 1, -1], [3, 3, 2], [2, -1, -1]], np.float32)],
         {"blank_label": "last"}, grad=[0])
    case("ctc_lengths", "nd.contrib.CTCLoss",
         [acts, lab_first, np.array([6, 4, 5], np.float32), np.array([2, 1, 3], np.float32)],
         {"use_data_lengths": True, "use_label_lengths": True}, grad=[0])
    bn_in = [f32(2, 3, 4, 4, seed=79), f32(3, seed=80, lo=0.5, hi=1.5), f32(3, seed=81),
             f32(3, seed=82), f32(3, seed=83, lo=0.5, hi=1.5)]
    case("sync_bn_train", "nd.contrib.SyncBatchNorm", bn_in,
         {"fix_gamma": False, "key": "bn0", "__train__": True}, grad=[0, 1, 2])
    case("sparse_embedding", "nd.contrib.SparseEmbedding", [np.array([[0, 2], [1, 1]], np.float32),
                                                            f32(3, 4, seed=84)],
         {"input_dim": 3, "output_dim": 4})  # MXNet's backward needs a row-sparse weight


def _rnn_size(mode, c, h, layers, dirs):
    g = {"lstm": 4, "gru": 3, "rnn_relu": 1, "rnn_tanh": 1}[mode]
    return sum(dirs * g * h * ((c if i == 0 else h * dirs) + h + 2) for i in range(layers))


def fused_rnn() -> None:
    """MXNet's fused RNN operator over its packed parameters (recorded in training mode: MXNet's backward
    needs the training-mode forward; p=0, so the mode changes nothing else)."""
    x = f32(4, 2, 3, seed=90)
    for mode, layers, dirs in [("lstm", 2, 2), ("gru", 2, 1), ("rnn_relu", 1, 2), ("rnn_tanh", 2, 1)]:
        n = _rnn_size(mode, 3, 5, layers, dirs)
        ins = [x, f32(n, seed=91, lo=-0.4, hi=0.4), f32(layers * dirs, 2, 5, seed=92)]
        if mode == "lstm":
            ins.append(f32(layers * dirs, 2, 5, seed=93))
        kw = {"state_size": 5, "num_layers": layers, "mode": mode, "bidirectional": dirs == 2,
              "state_outputs": True, "__train__": True}
        case("rnn_" + mode, "nd.RNN", ins, kw, grad=list(range(len(ins))))
    # lstm_state_clip_*: MXNet 1.9.1's oneDNN kernel ignores it and its own CPU kernel fails; no case
    n = _rnn_size("gru", 3, 4, 1, 2)
    case("npx_rnn", "npx.rnn", [x, f32(n, seed=97, lo=-0.5, hi=0.5), f32(2, 2, 4, seed=98)],
         {"state_size": 4, "num_layers": 1, "mode": "gru", "bidirectional": True, "__train__": True},
         grad=[0, 1, 2])


def vision() -> None:
    """mx.nd's spatial operators and UpSampling."""
    img = f32(2, 3, 5, 6, seed=100)
    case("crop_hw", "nd.Crop", [img], {"num_args": 1, "h_w": [3, 4], "offset": [1, 2]}, grad=[0])
    case("crop_like", "nd.Crop", [img, f32(1, 1, 2, 3, seed=101)], {"num_args": 2, "center_crop": True},
         grad=[0])
    case("lrn", "nd.LRN", [f32(2, 6, 3, 3, seed=102)], {"nsize": 3, "alpha": 0.01, "beta": 0.6, "knorm": 1.5},
         grad=[0])
    theta = np.array([[0.9, 0.1, 0.05, -0.1, 1.1, -0.05], [0.5, 0.0, 0.2, 0.0, 0.7, 0.1]], np.float32)
    case("grid_affine", "nd.GridGenerator", [theta], {"transform_type": "affine", "target_shape": [4, 5]},
         grad=[0])
    case("grid_warp", "nd.GridGenerator", [f32(2, 2, 3, 4, seed=103, lo=-2, hi=2)],
         {"transform_type": "warp"}, grad=[0])
    grid = f32(2, 2, 4, 3, seed=104, lo=-1.2, hi=1.2)
    case("bilinear_sampler", "nd.BilinearSampler", [img, grid], grad=[0, 1])
    case("spatial_transformer", "nd.SpatialTransformer", [img, theta],
         {"target_shape": [4, 4], "transform_type": "affine", "sampler_type": "bilinear"}, grad=[0, 1])
    a, b = f32(1, 3, 7, 8, seed=105), f32(1, 3, 7, 8, seed=106)
    case("correlation", "nd.Correlation", [a, b], {"kernel_size": 1, "max_displacement": 2, "stride2": 1},
         grad=[0, 1])
    case("correlation_k3", "nd.Correlation", [a, b], {"kernel_size": 3, "max_displacement": 2, "stride1": 2,
                                                       "stride2": 2, "pad_size": 2, "is_multiply": False},
         grad=[0, 1])
    case("im2col", "nd.im2col", [img], {"kernel": [2, 3], "stride": [1, 2], "pad": [1, 0]}, grad=[0])
    case("col2im", "nd.col2im", [f32(2, 12, 9, seed=107)],
         {"output_size": [4, 5], "kernel": [2, 2], "stride": [1, 1], "pad": [0, 0], "dilate": [1, 2]},
         grad=[0])
    case("upsampling_nearest", "nd.UpSampling", [img], {"scale": 2, "sample_type": "nearest"}, grad=[0])
    case("upsampling_multi", "nd.UpSampling", [img, f32(2, 2, 10, 12, seed=108)],
         {"scale": 2, "sample_type": "nearest", "num_args": 2}, grad=[0, 1])
    case("upsampling_sum", "nd.UpSampling", [img, f32(2, 3, 10, 12, seed=108)],
         {"scale": 2, "sample_type": "nearest", "num_args": 2, "multi_input_mode": "sum"}, grad=[0, 1])
    case("upsampling_bilinear", "nd.UpSampling", [img, f32(3, 1, 4, 4, seed=109)],
         {"scale": 2, "sample_type": "bilinear", "num_filter": 3, "num_args": 2}, grad=[0, 1])
    case("upsampling_bilinear3", "nd.UpSampling", [img, f32(3, 1, 5, 5, seed=110)],
         {"scale": 3, "sample_type": "bilinear", "num_filter": 3, "num_args": 2}, grad=[0])


def updates() -> None:
    """Optimizer update operators (MXNet mutates the states: they are compared as outputs)."""
    w, g = f32(2, 3, seed=120), f32(2, 3, seed=121, lo=-3, hi=3)
    pos = f32(2, 3, seed=122, lo=0.1, hi=1.0)
    s1, s2, s3 = f32(2, 3, seed=123), pos, f32(2, 3, seed=124)
    hp = {"lr": 0.1, "wd": 0.01, "rescale_grad": 0.5}
    clip = {**hp, "clip_gradient": 0.4}
    case("sgd_update", "nd.sgd_update", [w, g], hp)
    case("sgd_update_clip", "nd.sgd_update", [w, g], clip)
    case("sgd_mom_update", "nd.sgd_mom_update", [w, g, s1], {**clip, "momentum": 0.9}, mutated=[2])
    case("nag_mom_update", "nd.nag_mom_update", [w, g, s1], {**hp, "momentum": 0.9}, mutated=[2])
    case("nag_mom_update_clip", "nd.nag_mom_update", [w, g, s1], {**clip, "momentum": 0.8}, mutated=[2])
    case("adam_update", "nd.adam_update", [w, g, s1, s2], {**clip, "beta1": 0.8, "epsilon": 1e-6},
         mutated=[2, 3])
    case("rmsprop_update", "nd.rmsprop_update", [w, g, s2], {**hp, "clip_weights": 0.5}, mutated=[2])
    case("rmspropalex_update", "nd.rmspropalex_update", [w, g, s2 + 1, s1 * 0.1, s3],
         {**clip, "gamma2": 0.8}, mutated=[2, 3, 4])
    case("ftrl_update", "nd.ftrl_update", [w, g, s1, s2], {**hp, "lamda1": 0.05, "beta": 0.7}, mutated=[2, 3])
    case("ftml_update", "nd.ftml_update", [w, g, s2, s2 * 0.5, s1], {**hp, "t": 3}, mutated=[2, 3, 4])
    case("signsgd_update", "nd.signsgd_update", [w, g], hp)
    case("signum_update", "nd.signum_update", [w, g, s1], {**clip, "momentum": 0.7, "wd_lh": 0.02},
         mutated=[2])
    case("lamb_phase1", "nd.lamb_update_phase1", [w, g, s1, s2], {"t": 4, "wd": 0.01, "clip_gradient": 1.0},
         mutated=[2, 3])
    case("lamb_phase1_nobias", "nd.lamb_update_phase1", [w, g, s1, s2],
         {"t": 2, "wd": 0.01, "bias_correction": False}, mutated=[2, 3])
    r1, r2 = np.array([2.0], np.float32), np.array([0.5], np.float32)
    case("lamb_phase2", "nd.lamb_update_phase2", [w, g, r1, r2],
         {"lr": 0.1, "lower_bound": 0.1, "upper_bound": 1.5})
    half, w32 = w.astype(np.float16), w.copy()
    case("mp_sgd_update", "nd.mp_sgd_update", [half, g.astype(np.float16), w32], hp, mutated=[2])
    case("mp_sgd_mom_update", "nd.mp_sgd_mom_update", [half, g.astype(np.float16), s1, w32],
         {**hp, "momentum": 0.9}, mutated=[2, 3])
    case("mp_nag_mom_update", "nd.mp_nag_mom_update", [half, g.astype(np.float16), s1, w32],
         {**hp, "momentum": 0.9}, mutated=[2, 3])
    case("mp_lamb_phase1", "nd.mp_lamb_update_phase1", [half, g.astype(np.float16), s1, s2, w32],
         {"t": 4, "wd": 0.01}, mutated=[2, 3])
    case("mp_lamb_phase2", "nd.mp_lamb_update_phase2", [half, g, np.array([2.0], np.float32),
                                                         np.array([0.5], np.float32), w32], {"lr": 0.1})
    w2, g2, m2 = f32(4, seed=125), f32(4, seed=126), f32(4, seed=127)
    case("multi_sgd_update", "nd.multi_sgd_update", [w, g, w2, g2],
         {"lrs": [0.1, 0.2], "wds": [0.0, 0.01], "num_weights": 2, "rescale_grad": 0.5}, out_like=[0, 2])
    case("multi_sgd_mom_update", "nd.multi_sgd_mom_update", [w, g, s1, w2, g2, m2],
         {"lrs": [0.1, 0.2], "wds": [0.0, 0.01], "num_weights": 2, "momentum": 0.9, "clip_gradient": 0.5},
         mutated=[2, 5], out_like=[0, 3])
    case("multi_mp_sgd_update", "nd.multi_mp_sgd_update",
         [half, g.astype(np.float16), w32, w2.astype(np.float16), g2.astype(np.float16), w2],
         {"lrs": [0.1, 0.2], "wds": [0.0, 0.01], "num_weights": 2}, mutated=[2, 5], out_like=[0, 3])
    case("multi_mp_sgd_mom_update", "nd.multi_mp_sgd_mom_update",
         [half, g.astype(np.float16), s1, w32, w2.astype(np.float16), g2.astype(np.float16), m2, w2],
         {"lrs": [0.1, 0.2], "wds": [0.0, 0.01], "num_weights": 2, "momentum": 0.9}, mutated=[2, 6, 3, 7],
         out_like=[0, 4])
    lrs, wds = np.array([0.1, 0.2], np.float32), np.array([0.0, 0.01], np.float32)
    case("preloaded_multi_sgd_mom_update", "nd.preloaded_multi_sgd_mom_update",
         [w, g, s1, w2, g2, m2, lrs, wds], {"num_weights": 2, "momentum": 0.9}, mutated=[2, 5],
         out_like=[0, 3])
    case("preloaded_multi_sgd_update", "nd.preloaded_multi_sgd_update", [w, g, w2, g2, lrs, wds],
         {"num_weights": 2}, out_like=[0, 2])
    case("multi_sum_sq", "nd.multi_sum_sq", [w, g, w2], {"num_arrays": 3})
    case("multi_lars", "nd.multi_lars",
         [lrs, np.array([4.0, 0.0], np.float32), np.array([1.0, 2.0], np.float32), wds],
         {"eta": 0.01, "eps": 1e-8, "rescale_grad": 0.5})
    case("all_finite", "nd.all_finite", [w])
    case("all_finite_not", "nd.all_finite", [np.array([1.0, np.inf], np.float32)])
    case("multi_all_finite", "nd.multi_all_finite", [w, np.array([np.nan], np.float32)], {"num_arrays": 2})
    one = np.array([0.5], np.float32)
    case("adamw_update", "nd.contrib.adamw_update", [w, g, s1, s2, one],
         {"lr": 0.1, "eta": 0.5, "wd": 0.01, "clip_gradient": 0.8}, mutated=[2, 3])
    case("adamw_update_skip", "nd.contrib.adamw_update", [w, g, s1, s2, np.array([np.inf], np.float32)],
         {"lr": 0.1, "eta": 0.5}, mutated=[2, 3], out_is=0)  # skipped: out (the weight) keeps its value
    case("mp_adamw_update", "nd.contrib.mp_adamw_update", [half, g.astype(np.float16), s1, s2, w32, one],
         {"lr": 0.1, "eta": 0.5, "wd": 0.01}, mutated=[2, 3, 4])
    case("multi_adamw_update", "nd.contrib.multi_adamw_update", [w, w2, g, g2, s1, m2, s2, m2 * m2, one],
         {"__n__": 2, "__lists__": 4, "lrs": [0.1, 0.2], "wds": [0.0, 0.01], "etas": [1.0, 0.5]},
         call="multi_lists", mutated=[4, 5, 6, 7], out_like=[0, 1])
    case("multi_lamb_update", "nd.contrib.multi_lamb_update", [w, w2, g, g2, s1, m2, s2, m2 * m2],
         {"__n__": 2, "__lists__": 4, "step_count": [3, 5], "lrs": [0.1, 0.2], "wds": [0.0, 0.01]},
         call="multi_lists", mutated=[4, 5, 6, 7], out_like=[0, 1])


def nd_rest() -> None:
    """The rest of mx.nd: array functions, densities, decompositions, SVMOutput."""
    x = f32(3, 4, seed=130, lo=-2, hi=2)
    case("cumsum", "nd.cumsum", [x], {"axis": 1}, grad=[0])
    case("cumsum_flat", "nd.cumsum", [x], grad=[0])
    case("moveaxis", "nd.moveaxis", [f32(2, 3, 4, seed=131)], {"source": 0, "destination": 2}, grad=[0])
    case("histogram", "nd.histogram", [f32(20, seed=132, lo=-1, hi=2)], {"bins": 4, "range": [0.0, 1.0]})
    case("histogram_edges", "nd.histogram", [f32(20, seed=132, lo=-1, hi=2),
                                              np.array([-1, 0, 0.5, 2], np.float32)])
    case("khatri_rao", "nd.khatri_rao", [f32(2, 3, seed=133), f32(4, 3, seed=134)])  # no gradient in MXNet
    idx = np.array([[1, 0, 1], [2, 1, 0]], np.float32)
    case("ravel_multi_index", "nd.ravel_multi_index", [idx], {"shape": [2, 3]})
    case("unravel_index", "nd.unravel_index", [np.array([5, 1, 3], np.float32)], {"shape": [2, 3]})
    case("split_v2", "nd.split_v2", [f32(6, 2, seed=135)], {"indices_or_sections": [1, 3]}, grad=[0])
    case("split_v2_sq", "nd.split_v2", [f32(3, 2, seed=135)],
         {"indices_or_sections": 3, "squeeze_axis": True})
    case("true_divide", "nd.true_divide", [x, f32(3, 4, seed=136, lo=0.5, hi=2)], grad=[0, 1])
    case("true_divide_int", "nd.true_divide", [np.array([1, 5, -5], np.int32), np.array([2, 2, 2], np.int32)])
    case("choose_element_0index", "nd.choose_element_0index", [x, np.array([3, 0, 1], np.float32)])
    case("fill_element_0index", "nd.fill_element_0index", [x, np.array([9, 8, 7], np.float32),
                                                            np.array([1, 3, 0], np.float32)])
    case("concatenate", "nd.concatenate", [x, x], {"axis": 1, "__list__": 2})
    case("amp_cast", "nd.amp_cast", [x], {"dtype": "float16"})
    # amp_multicast: MXNet 1.9.1 with oneDNN cannot read the float16 result back ("unknown type for MKLDNN")
    s = f32(2, 3, seed=137, lo=0.2, hi=3)
    m, sd = f32(2, seed=138), f32(2, seed=139, lo=0.5, hi=2)
    case("pdf_uniform", "nd.random_pdf_uniform", [s, np.array([0.0, 0.1], np.float32),
                                                  np.array([3.0, 4.0], np.float32)], grad=[1, 2])
    case("pdf_normal", "nd.random_pdf_normal", [s, m, sd], grad=[0, 1, 2])
    case("pdf_normal_log", "nd.random_pdf_normal", [s, m, sd], {"is_log": True}, grad=[0, 1, 2])
    case("pdf_gamma", "nd.random_pdf_gamma", [s, sd * 2, sd], grad=[0, 1, 2])
    case("pdf_exponential", "nd.random_pdf_exponential", [s, sd], {"is_log": True}, grad=[0, 1])
    counts = np.array([[0, 2, 5], [1, 3, 0]], np.float32)
    case("pdf_poisson", "nd.random_pdf_poisson", [counts, sd * 2], grad=[1])
    case("pdf_negative_binomial", "nd.random_pdf_negative_binomial",
         [counts, np.array([2.0, 3.5], np.float32), np.array([0.3, 0.6], np.float32)], grad=[1, 2])
    case("pdf_gen_negative_binomial", "nd.random_pdf_generalized_negative_binomial",
         [counts, np.array([2.0, 3.5], np.float32), np.array([0.3, 0.6], np.float32)], {"is_log": True},
         grad=[1, 2])
    simplex = rs(140).dirichlet([1, 2, 3], (2, 2)).astype(np.float32)
    alpha = np.array([[1.5, 2, 3], [0.7, 1, 2]], np.float32)
    case("pdf_dirichlet", "nd.random_pdf_dirichlet", [simplex, alpha],
         grad=[0, 1])
    a = f32(2, 3, seed=141)
    case("gelqf", "nd.linalg.gelqf", [a])
    sym = f32(3, 3, seed=142)
    sym = sym + sym.T
    case("syevd", "nd.linalg.syevd", [sym])
    sq = f32(2, 3, 3, seed=143)
    case("extracttrian", "nd.linalg.extracttrian", [sq], grad=[0])
    case("extracttrian_up", "nd.linalg.extracttrian", [sq], {"offset": 1}, grad=[0])
    case("extracttrian_low", "nd.linalg.extracttrian", [sq], {"offset": -1})
    case("extracttrian_upper", "nd.linalg.extracttrian", [sq], {"lower": False})
    case("maketrian", "nd.linalg.maketrian", [f32(2, 6, seed=144)], grad=[0])
    case("maketrian_off", "nd.linalg.maketrian", [f32(2, 3, seed=144)], {"offset": 1})
    case("maketrian_low", "nd.linalg.maketrian", [f32(3, seed=145)], {"offset": -2})
    logits = f32(3, 4, seed=146, lo=-2, hi=2)
    lab = np.array([0, 3, 1], np.float32)
    case("svm_output", "nd.SVMOutput", [logits, lab], grad=[0])
    case("svm_output_l1", "nd.SVMOutput", [logits, lab], {"margin": 0.5, "regularization_coefficient": 2.0,
                                                         "use_linear": True}, grad=[0])


def image() -> None:
    """mx.nd.image's deterministic operators (uint8 and float images)."""
    img = rs(150).randint(0, 256, (5, 7, 3)).astype(np.uint8)
    fimg = img.astype(np.float32)
    case("image_to_tensor", "nd.image.to_tensor", [img])
    case("image_to_tensor_batch", "nd.image.to_tensor", [np.stack([fimg, fimg[::-1]])])
    chw = f32(3, 4, 5, seed=151)
    case("image_normalize", "nd.image.normalize", [chw], {"mean": [0.1, 0.2, 0.3], "std": [0.5, 1.0, 2.0]},
         grad=[0])
    case("image_normalize_batch", "nd.image.normalize", [f32(2, 3, 4, 5, seed=152)],
         {"mean": 0.5, "std": 2.0})
    case("image_crop", "nd.image.crop", [img], {"x": 1, "y": 2, "width": 4, "height": 3})
    # even sizes: MXNet 1.9.1's flips leave the middle column/row of an odd size unwritten (zeros)
    case("image_flip_lr", "nd.image.flip_left_right", [img[:, :6].copy()])
    case("image_flip_tb", "nd.image.flip_top_bottom", [fimg[:4].copy()])
    case("image_resize_float", "nd.image.resize", [fimg], {"size": [4, 9]})
    case("image_resize_short", "nd.image.resize", [fimg], {"size": 4, "keep_ratio": True})
    case("image_resize_nearest", "nd.image.resize", [fimg], {"size": [10, 3], "interp": 0})
    case("image_lighting", "nd.image.adjust_lighting", [fimg], {"alpha": [0.02, -0.01, 0.03]})


def deformable() -> None:
    """Deformable convolutions (DCN v1 and v2)."""
    x = f32(2, 4, 6, 7, seed=160)
    w = f32(6, 2, 3, 3, seed=161)
    off = f32(2, 2 * 2 * 9, 6, 7, seed=162, lo=-1.5, hi=1.5)
    kw = {"kernel": [3, 3], "pad": [1, 1], "num_filter": 6, "num_group": 2, "num_deformable_group": 2}
    case("deformable_conv", "nd.contrib.DeformableConvolution", [x, off, w, f32(6, seed=163)], kw,
         grad=[0, 1, 2, 3])
    off2 = f32(2, 2 * 4, 2, 3, seed=164, lo=-2, hi=2)
    case("deformable_conv_stride", "nd.contrib.DeformableConvolution", [x, off2, f32(5, 4, 2, 2, seed=165)],
         {"kernel": [2, 2], "stride": [2, 2], "dilate": [2, 1], "num_filter": 5, "no_bias": True},
         grad=[0, 1, 2])
    # ModulatedDeformableConvolution: MXNet 1.9.1 implements it on GPU only (tests/npx checks it against
    # DeformableConvolution with a mask of ones)


def build() -> None:
    tensor_ops()
    detection()
    control_flow()
    contrib_tensor()
    fused_rnn()
    vision()
    updates()
    nd_rest()
    image()
    deformable()
