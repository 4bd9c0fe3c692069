"""Reference files for the symbolic API (``mx.sym``, executors, ``mx.mod``, ``mx.model``), made by real
MXNet 1.9.1.

Run from the repository root: ``/tmp/mx/bin/python tools/mxnet_reference/gen_symbolic.py [PART ...]``
(all parts when none is named), then ``python tools/mxnet_reference/manifest.py tests/reference/symbolic
--generator tools/mxnet_reference/gen_symbolic.py --mxnet-version 1.9.1``. Writes into
``tests/reference/symbolic/``:

- ``signatures``: ``op_signatures.json``: for every operator name MXNet registers (but its backward,
  NumPy-interface, sparse and image names), the operator it stands for, its input names, its
  parameter names and the keyword that counts variadic inputs (``*`` for variadic inputs without one;
  MXNet's own operator metadata).
- ``instances``: ``op_instances.json``: one call of each operator function with typical arguments:
  its JSON, ``list_arguments``, ``list_outputs``, ``list_auxiliary_states``, the shapes inferred for
  given input shapes.
- ``graphs``: ``<net>-symbol.json`` and ``<net>.npz`` for an MLP, a LeNet with BatchNorm and Dropout, a
  fused-RNN LSTM and an unrolled LSTM (cells built from ``FullyConnected``/``SliceChannel``): seeded
  parameters, inputs, the training- and inference-mode outputs of ``simple_bind`` executors, every
  argument's gradient after ``backward`` and the auxiliary states after the training forward; and
  ``arith.npz`` / ``arith-symbol.json``: arithmetic, comparison, indexing, loss heads.
- ``module``: ``module_lenet*``: a ``Module.fit`` of the symbolic LeNet on the first 512 Fashion-MNIST
  training images (2 epochs, SGD with momentum, fixed initial parameters), the per-epoch validation
  accuracy on 256 test images, a checkpoint after epoch 1 written by ``mod.save_checkpoint`` and the
  parameters after epoch 2; ``--check-ours PREFIX EPOCH OUT.json``: load a checkpoint written by this
  framework with ``mx.model.load_checkpoint`` and ``Module``, score it on the same data and train one
  more epoch from it (what the tests and the benchmark call to show MXNet reads our files).
"""

from __future__ import annotations

import ctypes
import gzip
import json
import os
import struct
import sys

import mxnet as mx
import numpy as np

OUT = os.path.join("tests", "reference", "symbolic")
DATA_DIRS = (os.path.join(os.environ.get("FRAMEWORK_HOME", os.path.expanduser("~/.framework")), "datasets",
                          "fashion-mnist"), "/usr/share/datasets/fashion-mnist")

_SKIP_PREFIX = ("_backward", "_np", "_npi", "_npx", "_image_", "_sparse_", "_contrib_backward",
                "_random_pdf", "_cvim", "_cvcopy", "_cvimresize", "_cvimread", "_cvimdecode", "_sg_",
                "_mp_adamw", "_multi_", "_contrib_quantize", "_contrib_quantized", "_contrib_dgl",
                "_contrib_intgemm", "_contrib_calibrate", "_contrib_requantize", "_contrib_dequantize",
                "_contrib_tvm", "_contrib_mrcnn", "_contrib_edge_id", "_contrib_getnnz",
                "_contrib_group_adagrad", "_contrib_hawkesll", "_contrib_count_sketch", "_contrib_fft",
                "_contrib_ifft", "_contrib_SparseEmbedding", "_CachedOp", "_CustomFunction", "_NDArray",
                "_Native", "_TensorRT", "_FusedOp", "_foreach", "_while_loop", "_cond", "_set_value",
                "_onehot_encode", "_imdecode", "_copyto", "_CrossDeviceCopy", "_NoGradient", "_shuffle")


# ------------------------------------------------------------------------------- signatures
def signatures():
    from mxnet.base import _LIB, OpHandle, c_str, check_call, mx_uint, py_str
    names = ctypes.POINTER(ctypes.c_char_p)()
    n = mx_uint()
    check_call(_LIB.MXListAllOpNames(ctypes.byref(n), ctypes.byref(names)))
    all_names = sorted(py_str(names[i]) for i in range(n.value))  # copied: the next calls reuse the buffer
    out = {}
    for name in all_names:
        if name.startswith(_SKIP_PREFIX) or name.endswith("_update") or name.startswith(
                ("sgd_", "mp_", "multi_", "preloaded_", "adam", "rmsprop", "ftrl", "ftml", "signsgd",
                 "signum", "nag_", "lamb_", "reset_arrays", "all_finite")):
            continue
        h = OpHandle()
        check_call(_LIB.NNGetOpHandle(c_str(name), ctypes.byref(h)))
        real, desc, kv, rt = (ctypes.c_char_p() for _ in range(4))
        na = mx_uint()
        an, at, ad = (ctypes.POINTER(ctypes.c_char_p)() for _ in range(3))
        check_call(_LIB.MXSymbolGetAtomicSymbolInfo(
            h, ctypes.byref(real), ctypes.byref(desc), ctypes.byref(na), ctypes.byref(an), ctypes.byref(at),
            ctypes.byref(ad), ctypes.byref(kv), ctypes.byref(rt)))
        args = [(py_str(an[j]), py_str(at[j])) for j in range(na.value)]
        tensor = [a for a, t in args if t.startswith(("NDArray", "Symbol"))]
        variadic = any(t.startswith(("NDArray", "Symbol")) and t.endswith("[]") for _, t in args)
        out[name] = {"op": py_str(real.value), "inputs": tensor,
                     "params": [a for a, t in args if not t.startswith(("NDArray", "Symbol"))],
                     "var": py_str(kv.value) if kv.value else ("*" if variadic else "")}
    _dump("op_signatures.json", out)


# ------------------------------------------------------------------------------- instances
def _v(name="data"):
    return mx.sym.var(name)


#: (function path under mx.sym, positional input names made as variables, keyword arguments,
#:  input shapes for infer_shape or None)
INSTANCES = [
    ("FullyConnected", ["data"], {"num_hidden": 4}, {"data": (2, 3)}),
    ("FullyConnected", ["data"], {"num_hidden": 4, "no_bias": True, "flatten": False}, {"data": (2, 5, 3)}),
    ("Convolution", ["data"], {"kernel": (3, 3), "num_filter": 4, "pad": (1, 1)}, {"data": (2, 3, 8, 8)}),
    ("Convolution", ["data"], {"kernel": (3,), "num_filter": 4, "no_bias": True, "num_group": 2},
     {"data": (2, 4, 8)}),
    ("Deconvolution", ["data"], {"kernel": (2, 2), "num_filter": 3, "stride": (2, 2)},
     {"data": (2, 4, 5, 5)}),
    ("Deconvolution", ["data"], {"kernel": (2, 2), "num_filter": 3, "no_bias": False},
     {"data": (2, 4, 5, 5)}),
    ("BatchNorm", ["data"], {"fix_gamma": False}, {"data": (2, 3, 4, 4)}),
    ("BatchNorm", ["data"], {"output_mean_var": True, "axis": -1}, {"data": (2, 3, 5)}),
    ("BatchNorm_v1", ["data"], {}, None),
    ("LayerNorm", ["data"], {}, {"data": (2, 3, 5)}),
    ("LayerNorm", ["data"], {"axis": 1, "output_mean_var": True}, {"data": (2, 3, 5)}),
    ("GroupNorm", ["data"], {"num_groups": 2}, {"data": (2, 4, 5)}),
    ("InstanceNorm", ["data"], {}, {"data": (2, 3, 5)}),
    ("Activation", ["data"], {"act_type": "relu"}, {"data": (2, 3)}),
    ("LeakyReLU", ["data"], {"act_type": "prelu"}, {"data": (2, 3, 4)}),
    ("LeakyReLU", ["data"], {"act_type": "elu", "slope": 0.3}, {"data": (2, 3)}),
    ("Pooling", ["data"], {"kernel": (2, 2), "stride": (2, 2), "pool_type": "max"}, {"data": (2, 3, 8, 8)}),
    ("Pooling", ["data"], {"global_pool": True, "pool_type": "avg", "kernel": (1, 1)},
     {"data": (2, 3, 8, 8)}),
    ("Dropout", ["data"], {"p": 0.3}, {"data": (2, 3)}),
    ("Embedding", ["data"], {"input_dim": 10, "output_dim": 4}, {"data": (2, 3)}),
    ("RNN", ["data"], {"state_size": 4, "num_layers": 1, "mode": "lstm"}, {"data": (5, 2, 3)}),
    ("RNN", ["data"], {"state_size": 4, "num_layers": 2, "mode": "gru", "bidirectional": True,
                       "state_outputs": True}, {"data": (5, 2, 3)}),
    ("RNN", ["data"], {"state_size": 4, "num_layers": 1, "mode": "rnn_tanh", "state_outputs": True},
     {"data": (5, 2, 3)}),
    ("SoftmaxOutput", ["data"], {}, {"data": (2, 5)}),
    ("SoftmaxOutput", ["data"], {"multi_output": True}, {"data": (2, 5, 3)}),
    ("SoftmaxOutput", ["data"], {"preserve_shape": True}, {"data": (2, 5, 3)}),
    ("Softmax", ["data"], {}, {"data": (2, 5)}),
    ("LinearRegressionOutput", ["data"], {}, {"data": (2, 5)}),
    ("LogisticRegressionOutput", ["data"], {}, {"data": (2, 1)}),
    ("MAERegressionOutput", ["data"], {}, {"data": (2, 5)}),
    ("SVMOutput", ["data"], {}, {"data": (2, 5)}),
    ("MakeLoss", ["data"], {"grad_scale": 0.5}, {"data": (2, 5)}),
    ("make_loss", ["data"], {}, {"data": (2, 5)}),
    ("BlockGrad", ["data"], {}, {"data": (2, 5)}),
    ("stop_gradient", ["data"], {}, {"data": (2, 5)}),
    ("softmax", ["data"], {"axis": 1}, {"data": (2, 5)}),
    ("log_softmax", ["data"], {}, {"data": (2, 5)}),
    ("softmin", ["data"], {}, {"data": (2, 5)}),
    ("SoftmaxActivation", ["data"], {"mode": "channel"}, {"data": (2, 5, 3)}),
    ("Flatten", ["data"], {}, {"data": (2, 3, 4)}),
    ("flatten", ["data"], {}, {"data": (2, 3, 4)}),
    ("Reshape", ["data"], {"shape": (0, -1)}, {"data": (2, 3, 4)}),
    ("reshape", ["data"], {"shape": (-3, 0)}, {"data": (2, 3, 4)}),
    ("transpose", ["data"], {"axes": (1, 0, 2)}, {"data": (2, 3, 4)}),
    ("expand_dims", ["data"], {"axis": 1}, {"data": (2, 3)}),
    ("squeeze", ["data"], {"axis": 1}, {"data": (2, 1, 3)}),
    ("SwapAxis", ["data"], {"dim1": 0, "dim2": 1}, {"data": (2, 3)}),
    ("swapaxes", ["data"], {"dim1": 0, "dim2": 1}, {"data": (2, 3)}),
    ("Concat", ["a", "b"], {"dim": 1}, {"a": (2, 3), "b": (2, 4)}),
    ("concat", ["a", "b", "c"], {"dim": 0}, {"a": (2, 3), "b": (1, 3), "c": (3, 3)}),
    ("stack", ["a", "b"], {"axis": 1}, {"a": (2, 3), "b": (2, 3)}),
    ("add_n", ["a", "b", "c"], {}, {"a": (2, 3), "b": (2, 3), "c": (2, 3)}),
    ("ElementWiseSum", ["a", "b"], {}, {"a": (2, 3), "b": (2, 3)}),
    ("SliceChannel", ["data"], {"num_outputs": 3, "axis": 1}, {"data": (2, 6)}),
    ("split", ["data"], {"num_outputs": 2, "axis": 0, "squeeze_axis": True}, {"data": (2, 6)}),
    ("slice_axis", ["data"], {"axis": 1, "begin": 1, "end": 3}, {"data": (2, 6)}),
    ("slice", ["data"], {"begin": (0, 1), "end": (2, 4)}, {"data": (2, 6)}),
    ("slice_like", ["data", "like"], {"axes": (1,)}, {"data": (2, 6), "like": (2, 3)}),
    ("crop", ["data"], {"begin": (0, 1), "end": (2, 4)}, {"data": (2, 6)}),
    ("tile", ["data"], {"reps": (2, 1)}, {"data": (2, 3)}),
    ("repeat", ["data"], {"repeats": 2, "axis": 1}, {"data": (2, 3)}),
    ("broadcast_to", ["data"], {"shape": (4, 3)}, {"data": (1, 3)}),
    ("broadcast_axis", ["data"], {"axis": 0, "size": 4}, {"data": (1, 3)}),
    ("broadcast_axes", ["data"], {"axis": 0, "size": 4}, {"data": (1, 3)}),
    ("broadcast_like", ["a", "b"], {}, {"a": (1, 3), "b": (4, 3)}),
    ("reshape_like", ["a", "b"], {}, {"a": (2, 3), "b": (3, 2)}),
    ("where", ["c", "x", "y"], {}, {"c": (2, 3), "x": (2, 3), "y": (2, 3)}),
    ("dot", ["a", "b"], {"transpose_b": True}, {"a": (2, 3), "b": (4, 3)}),
    ("batch_dot", ["a", "b"], {}, {"a": (2, 3, 4), "b": (2, 4, 5)}),
    ("take", ["a", "indices"], {"axis": 0}, {"a": (5, 3), "indices": (2,)}),
    ("pick", ["data", "index"], {"axis": 1}, {"data": (2, 3), "index": (2,)}),
    ("one_hot", ["indices"], {"depth": 4}, {"indices": (3,)}),
    ("gather_nd", ["data", "indices"], {}, {"data": (3, 4), "indices": (2, 5)}),
    ("batch_take", ["a", "indices"], {}, {"a": (3, 4), "indices": (3,)}),
    ("clip", ["data"], {"a_min": 0.0, "a_max": 1.0}, {"data": (2, 3)}),
    ("sum", ["data"], {"axis": 1}, {"data": (2, 3)}),
    ("sum", ["data"], {}, {"data": (2, 3)}),
    ("mean", ["data"], {"axis": (0, 1), "keepdims": True}, {"data": (2, 3)}),
    ("max", ["data"], {"axis": 0}, {"data": (2, 3)}),
    ("min", ["data"], {"axis": 0, "exclude": True}, {"data": (2, 3)}),
    ("prod", ["data"], {}, {"data": (2, 3)}),
    ("nansum", ["data"], {}, {"data": (2, 3)}),
    ("nanprod", ["data"], {}, {"data": (2, 3)}),
    ("norm", ["data"], {"axis": 1}, {"data": (2, 3)}),
    ("argmax", ["data"], {"axis": 1}, {"data": (2, 3)}),
    ("argmin", ["data"], {"axis": 1}, {"data": (2, 3)}),
    ("argmax_channel", ["data"], {}, {"data": (2, 3)}),
    ("topk", ["data"], {"k": 2, "ret_typ": "both"}, {"data": (2, 5)}),
    ("topk", ["data"], {"k": 2}, {"data": (2, 5)}),
    ("sort", ["data"], {}, {"data": (2, 5)}),
    ("argsort", ["data"], {"is_ascend": False}, {"data": (2, 5)}),
    ("moments", ["data"], {"axes": (0,)}, {"data": (2, 5)}),
    ("cast", ["data"], {"dtype": "float16"}, {"data": (2, 3)}),
    ("Cast", ["data"], {"dtype": "int32"}, {"data": (2, 3)}),
    ("zeros_like", ["data"], {}, {"data": (2, 3)}),
    ("ones_like", ["data"], {}, {"data": (2, 3)}),
    ("identity", ["data"], {}, {"data": (2, 3)}),
    ("reverse", ["data"], {"axis": 1}, {"data": (2, 3)}),
    ("flip", ["data"], {"axis": 0}, {"data": (2, 3)}),
    ("Pad", ["data"], {"mode": "constant", "pad_width": (0, 0, 0, 0, 1, 1, 2, 2)}, {"data": (1, 2, 3, 4)}),
    ("pad", ["data"], {"mode": "edge", "pad_width": (0, 0, 0, 0, 1, 1, 1, 1)}, {"data": (1, 2, 3, 4)}),
    ("depth_to_space", ["data"], {"block_size": 2}, {"data": (1, 8, 2, 3)}),
    ("space_to_depth", ["data"], {"block_size": 2}, {"data": (1, 2, 4, 6)}),
    ("L2Normalization", ["data"], {}, {"data": (2, 3)}),
    ("LRN", ["data"], {"nsize": 3}, {"data": (2, 5, 4, 4)}),
    ("UpSampling", ["data"], {"scale": 2, "sample_type": "nearest"}, {"data": (1, 2, 3, 3)}),
    ("UpSampling", ["data"], {"scale": 2, "sample_type": "bilinear", "num_filter": 2},
     {"data": (1, 2, 3, 3)}),
    ("SequenceMask", ["data"], {}, {"data": (4, 2, 3)}),
    ("SequenceMask", ["data"], {"use_sequence_length": True, "value": -1.0}, {"data": (4, 2, 3)}),
    ("SequenceLast", ["data"], {}, {"data": (4, 2, 3)}),
    ("SequenceReverse", ["data"], {}, {"data": (4, 2, 3)}),
    ("smooth_l1", ["data"], {"scalar": 2.0}, {"data": (2, 3)}),
    ("softmax_cross_entropy", ["data", "label"], {}, {"data": (2, 3), "label": (2,)}),
    ("CTCLoss", ["data", "label"], {}, {"data": (5, 2, 4), "label": (2, 3)}),
    ("ROIPooling", ["data", "rois"], {"pooled_size": (2, 2), "spatial_scale": 0.5},
     {"data": (1, 2, 8, 8), "rois": (3, 5)}),
    ("GridGenerator", ["data"], {"transform_type": "affine", "target_shape": (4, 5)}, {"data": (2, 6)}),
    ("BilinearSampler", ["data", "grid"], {}, {"data": (2, 3, 4, 5), "grid": (2, 2, 6, 7)}),
    ("SpatialTransformer", ["data", "loc"], {"target_shape": (4, 5), "transform_type": "affine",
                                             "sampler_type": "bilinear"},
                                            {"data": (2, 3, 6, 7), "loc": (2, 6)}),
    ("Correlation", ["data1", "data2"], {"kernel_size": 1, "max_displacement": 1},
     {"data1": (1, 2, 5, 5), "data2": (1, 2, 5, 5)}),
    ("Crop", ["data"], {"h_w": (2, 2), "num_args": 1}, {"data": (1, 2, 5, 5)}),
    ("im2col", ["data"], {"kernel": (2, 2)}, {"data": (1, 2, 4, 4)}),
    ("diag", ["data"], {}, {"data": (3, 3)}),
    ("khatri_rao", ["a", "b"], {}, {"a": (2, 3), "b": (4, 3)}),
    ("shape_array", ["data"], {}, {"data": (2, 3)}),
    ("size_array", ["data"], {}, {"data": (2, 3)}),
    ("hard_sigmoid", ["data"], {}, {"data": (2, 3)}),
    ("linalg_gemm2", ["A", "B"], {}, {"A": (2, 3), "B": (3, 4)}),
    ("linalg_gemm", ["A", "B", "C"], {"alpha": 2.0}, {"A": (2, 3), "B": (3, 4), "C": (2, 4)}),
    ("linalg_potrf", ["A"], {}, {"A": (3, 3)}),
    ("linalg_inverse", ["A"], {}, {"A": (3, 3)}),
    ("linalg_det", ["A"], {}, {"A": (3, 3)}),
    ("linalg_slogdet", ["A"], {}, {"A": (3, 3)}),
    ("linalg_syrk", ["A"], {}, {"A": (3, 3)}),
    ("linalg_sumlogdiag", ["A"], {}, {"A": (3, 3)}),
    ("linalg_extractdiag", ["A"], {}, {"A": (3, 3)}),
    ("linalg_makediag", ["A"], {}, {"A": (3,)}),
    ("linalg_trsm", ["A", "B"], {}, {"A": (3, 3), "B": (3, 2)}),
    ("linalg_trmm", ["A", "B"], {}, {"A": (3, 3), "B": (3, 2)}),
    ("broadcast_add", ["a", "b"], {}, {"a": (2, 3), "b": (1, 3)}),
    ("broadcast_plus", ["a", "b"], {}, {"a": (2, 3), "b": (1, 3)}),
    ("broadcast_mul", ["a", "b"], {}, {"a": (2, 3), "b": (2, 1)}),
    ("broadcast_greater", ["a", "b"], {}, {"a": (2, 3), "b": (2, 1)}),
    ("broadcast_logical_and", ["a", "b"], {}, {"a": (2, 3), "b": (2, 1)}),
    ("elemwise_add", ["a", "b"], {}, {"a": (2, 3), "b": (2, 3)}),
    ("elemwise_mul", ["a", "b"], {}, {"a": (2, 3), "b": (2, 3)}),
    ("maximum", ["a", "b"], {}, {"a": (2, 3), "b": (2, 3)}),
    ("minimum", ["a", "b"], {}, {"a": (2, 3), "b": (2, 3)}),
    ("hypot", ["a", "b"], {}, {"a": (2, 3), "b": (2, 3)}),
    ("power", ["a", "b"], {}, {"a": (2, 3), "b": (2, 3)}),
    ("relu", ["data"], {}, {"data": (2, 3)}),
    ("sigmoid", ["data"], {}, {"data": (2, 3)}),
    ("tanh", ["data"], {}, {"data": (2, 3)}),
    ("exp", ["data"], {}, {"data": (2, 3)}),
    ("log", ["data"], {}, {"data": (2, 3)}),
    ("sqrt", ["data"], {}, {"data": (2, 3)}),
    ("square", ["data"], {}, {"data": (2, 3)}),
    ("abs", ["data"], {}, {"data": (2, 3)}),
    ("erf", ["data"], {}, {"data": (2, 3)}),
    ("erfinv", ["data"], {}, {"data": (2, 3)}),
    ("gamma", ["data"], {}, {"data": (2, 3)}),
    ("gammaln", ["data"], {}, {"data": (2, 3)}),
    ("arcsin", ["data"], {}, {"data": (2, 3)}),
    ("arccosh", ["data"], {}, {"data": (2, 3)}),
    ("degrees", ["data"], {}, {"data": (2, 3)}),
    ("rcbrt", ["data"], {}, {"data": (2, 3)}),
    ("softsign", ["data"], {}, {"data": (2, 3)}),
    ("round", ["data"], {}, {"data": (2, 3)}),
    ("logical_not", ["data"], {}, {"data": (2, 3)}),
    ("cumsum", ["a"], {"axis": 1}, {"a": (2, 3)}),
    ("amp_cast", ["data"], {"dtype": "float16"}, {"data": (2, 3)}),
    ("amp_multicast", ["a", "b"], {"num_outputs": 2}, {"a": (2, 3), "b": (2, 3)}),
    ("contrib.box_nms", ["data"], {}, {"data": (1, 4, 6)}),
    ("contrib.box_iou", ["lhs", "rhs"], {}, {"lhs": (3, 4), "rhs": (2, 4)}),
    ("contrib.box_encode", ["samples", "matches", "anchors", "refs", "means", "stds"], {},
     {"samples": (1, 3), "matches": (1, 3), "anchors": (1, 3, 4), "refs": (1, 2, 4), "means": (4,),
      "stds": (4,)}),
    ("contrib.box_decode", ["data", "anchors"], {}, {"data": (1, 3, 4), "anchors": (1, 3, 4)}),
    ("contrib.bipartite_matching", ["data"], {"threshold": 0.5}, {"data": (3, 4)}),
    ("contrib.MultiBoxPrior", ["data"], {"sizes": (0.5, 0.25), "ratios": (1, 2)}, {"data": (1, 3, 4, 4)}),
    ("contrib.MultiBoxDetection", ["cls_prob", "loc_pred", "anchor"], {},
     {"cls_prob": (1, 3, 8), "loc_pred": (1, 32), "anchor": (1, 8, 4)}),
    ("contrib.MultiBoxTarget", ["anchor", "label", "cls_pred"], {},
     {"anchor": (1, 8, 4), "label": (1, 2, 5), "cls_pred": (1, 3, 8)}),
    ("contrib.ROIAlign", ["data", "rois"], {"pooled_size": (2, 2), "spatial_scale": 0.5},
     {"data": (1, 2, 8, 8), "rois": (3, 5)}),
    ("contrib.BilinearResize2D", ["data"], {"height": 6, "width": 5}, {"data": (1, 2, 3, 3)}),
    ("contrib.AdaptiveAvgPooling2D", ["data"], {"output_size": (2, 2)}, {"data": (1, 2, 5, 5)}),
    ("contrib.DeformableConvolution", ["data", "offset"], {"kernel": (3, 3), "num_filter": 4, "pad": (1, 1)},
     {"data": (1, 2, 5, 5), "offset": (1, 18, 5, 5)}),
    ("contrib.arange_like", ["data"], {"axis": 1}, {"data": (2, 3)}),
    ("contrib.index_copy", ["old", "idx", "new"], {}, {"old": (4, 3), "idx": (2,), "new": (2, 3)}),
    ("contrib.index_array", ["data"], {}, {"data": (2, 3)}),
    ("contrib.quadratic", ["data"], {"a": 1.0, "b": 2.0, "c": 3.0}, {"data": (2, 3)}),
    ("contrib.div_sqrt_dim", ["data"], {}, {"data": (2, 4)}),
    ("contrib.round_ste", ["data"], {}, {"data": (2, 3)}),
    ("contrib.gradientmultiplier", ["data"], {"scalar": 0.5}, {"data": (2, 3)}),
    ("contrib.SyncBatchNorm", ["data"], {"key": "k"}, {"data": (2, 3, 4)}),
    ("contrib.BatchNormWithReLU", ["data"], {}, {"data": (2, 3, 4)}),
    ("contrib.interleaved_matmul_selfatt_qk", ["qkv"], {"heads": 2}, {"qkv": (5, 2, 24)}),
    ("contrib.interleaved_matmul_selfatt_valatt", ["qkv", "att"], {"heads": 2},
     {"qkv": (5, 2, 24), "att": (4, 5, 5)}),
    ("contrib.allclose", ["a", "b"], {}, {"a": (2, 3), "b": (2, 3)}),
]


def _fn(path):
    obj = mx.sym
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def instances():
    records = []
    with mx.name.NameManager():
        for path, inputs, kwargs, shapes in INSTANCES:
            with mx.name.NameManager():
                syms = [_v(n) for n in inputs]
                named = {} if path in ("maximum", "minimum", "hypot", "power") else {"name": "o"}
                s = _fn(path)(*syms, **named, **kwargs)
                rec = {"fn": path, "inputs": inputs, "kwargs": {k: _jsonable(v) for k, v in kwargs.items()},
                       "json": json.loads(s.tojson()), "arguments": s.list_arguments(),
                       "outputs": s.list_outputs(), "aux": s.list_auxiliary_states()}
                if shapes is not None:
                    try:
                        arg, out, aux = s.infer_shape(**shapes)
                        rec["shapes"] = {"given": {k: list(v) for k, v in shapes.items()},
                                         "arguments": [list(x) for x in arg],
                                         "outputs": [list(x) for x in out],
                                         "aux": [list(x) for x in aux]}
                    except mx.MXNetError as err:
                        rec["shapes_error"] = str(err).splitlines()[0][:200]
                records.append(rec)
    _dump("op_instances.json", records)


# ------------------------------------------------------------------------------- graphs
def _nets():
    import importlib.util
    path = os.path.join("tests", "symbol", "symbolic_nets.py")
    spec = importlib.util.spec_from_file_location("symbolic_nets", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _seeded(names_shapes, seed):
    sys.path.insert(0, os.path.join("tools", "mxnet_reference"))
    from gen_symbol import seeded_params
    return seeded_params(names_shapes, seed)


def graphs():
    nets = _nets()
    for seed, (name, build) in enumerate(nets.NETS.items()):
        with mx.name.NameManager():
            sym, shapes, labels = build(mx)
        sym.save(os.path.join(OUT, f"{name}-symbol.json"))
        arg_names, aux_names = sym.list_arguments(), sym.list_auxiliary_states()
        arg_shapes, out_shapes, aux_shapes = sym.infer_shape(**shapes)
        all_shapes = dict(zip(arg_names, arg_shapes, strict=False))
        label_shapes = {n: all_shapes[n] for n in labels}
        inputs = nets.inputs_for(name, shapes, labels, seed)
        labs = nets.labels_for(name, label_shapes, seed)
        param_names = sorted(n for n in arg_names if n not in inputs and n not in labs)
        params = _seeded([(n, all_shapes[n]) for n in param_names], seed)
        aux = _seeded(sorted(zip(aux_names, aux_shapes, strict=False)), seed + 50)
        exe = sym.simple_bind(mx.cpu(), grad_req="write", **{k: all_shapes[k] for k in arg_names})
        for k, v in {**inputs, **labs, **params}.items():
            exe.arg_dict[k][:] = v
        for k, v in aux.items():
            exe.aux_dict[k][:] = v
        rs = np.random.RandomState(300 + seed)
        out_grads = [rs.uniform(-1, 1, s).astype(np.float32) for s in out_shapes]
        rec = {f"in:{k}": v for k, v in {**inputs, **labs}.items()}
        rec.update({f"aux:{k}": v for k, v in aux.items()})
        rec.update({f"out_grad{i}": g for i, g in enumerate(out_grads)})
        for i, o in enumerate(exe.forward(is_train=False)):
            rec[f"out_infer{i}"] = o.asnumpy()
        for i, o in enumerate(exe.forward(is_train=True)):
            rec[f"out_train{i}"] = o.asnumpy()
        exe.backward([mx.nd.array(g) for g in out_grads])
        rec.update({f"grad:{k}": v.asnumpy() for k, v in exe.grad_dict.items()})
        rec.update({f"aux_after:{k}": v.asnumpy() for k, v in exe.aux_dict.items()})
        np.savez_compressed(os.path.join(OUT, f"{name}.npz"), **rec)
        print("wrote", name, len(rec), "arrays")


def _jsonable(v):
    if isinstance(v, tuple):
        return {"tuple": list(v)}
    return v


def _dump(name, obj):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", os.path.join(OUT, name))


# ------------------------------------------------------------------------------- Module
TRAIN_N, VAL_N, BATCH, MODULE_SEED = 512, 256, 64, 7
OPT = {"learning_rate": 0.05, "momentum": 0.9, "wd": 1e-4}


def fashion(root, split, n):
    """The first ``n`` images (N, 1, 28, 28) scaled to [0, 1] and labels of a Fashion-MNIST split."""
    prefix = "train" if split == "train" else "t10k"
    with gzip.open(os.path.join(root, f"{prefix}-images-idx3-ubyte.gz")) as f:
        _, count, rows, cols = struct.unpack(">IIII", f.read(16))
        x = np.frombuffer(f.read(n * rows * cols), np.uint8).reshape(n, 1, rows, cols)
    with gzip.open(os.path.join(root, f"{prefix}-labels-idx1-ubyte.gz")) as f:
        f.read(8)
        y = np.frombuffer(f.read(n), np.uint8)
    return x.astype(np.float32) / 255, y.astype(np.float32)


def data_root():
    for root in ([os.environ["FASHION_ROOT"]] if "FASHION_ROOT" in os.environ else []) + list(DATA_DIRS):
        if os.path.exists(os.path.join(root, "t10k-labels-idx1-ubyte.gz")):
            return root
    raise SystemExit("Fashion-MNIST not found: set FASHION_ROOT to the directory of its four .gz files")


def module_initial(mx, sym, shapes):
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    names = [n for n in sym.list_arguments() if n not in ("data", "softmax_label")]
    shape_of = dict(zip(sym.list_arguments(), arg_shapes, strict=False))
    params = _seeded(sorted((n, shape_of[n]) for n in names), MODULE_SEED)
    aux = {n: (np.zeros if n.endswith("mean") else np.ones)(s, np.float32)
           for n, s in zip(sym.list_auxiliary_states(), aux_shapes, strict=False)}
    return params, aux


def module():
    nets = _nets()
    root = data_root()
    x, y = fashion(root, "train", TRAIN_N)
    xv, yv = fashion(root, "t10k", VAL_N)
    with mx.name.NameManager():
        sym, shapes, _ = nets.lenet_module(mx)
    params, aux = module_initial(mx, sym, {"data": (BATCH, 1, 28, 28)})
    train = mx.io.NDArrayIter(x, y, BATCH, shuffle=False)
    val = mx.io.NDArrayIter(xv, yv, BATCH)
    prefix = os.path.join(OUT, "module_lenet")
    history = {"train_acc": [], "val_acc": []}

    def epoch_end(epoch, symbol, arg, auxs):
        if epoch == 0:
            mx.model.save_checkpoint(prefix, epoch + 1, symbol, arg, auxs)

    def record(param):
        history["val_acc"].append(param.eval_metric.get()[1])

    def train_record(param):
        if param.nbatch == TRAIN_N // BATCH - 1:
            history["train_acc"].append(param.eval_metric.get()[1])

    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.fit(train, eval_data=val, eval_metric="acc", optimizer="sgd", optimizer_params=OPT,
            arg_params={k: mx.nd.array(v) for k, v in params.items()},
            aux_params={k: mx.nd.array(v) for k, v in aux.items()}, num_epoch=2, epoch_end_callback=epoch_end,
            eval_end_callback=record, batch_end_callback=train_record)
    arg, auxs = mod.get_params()
    rec = {f"fit:{k}": v.asnumpy() for k, v in {**arg, **auxs}.items()}
    # a checkpoint MXNet wrote, loaded by MXNet's Module and trained one more epoch (fresh optimizer)
    resumed = mx.mod.Module.load(prefix, 1, context=mx.cpu())
    train.reset()
    resumed.fit(train, eval_data=val, optimizer="sgd", optimizer_params=OPT, begin_epoch=1, num_epoch=2)
    arg, auxs = resumed.get_params()
    rec.update({f"resumed:{k}": v.asnumpy() for k, v in {**arg, **auxs}.items()})
    rec["resumed_val_acc"] = np.asarray(resumed.score(val, "acc")[0][1])
    # two steps only: the numbers before float rounding is amplified by training
    short = mx.mod.Module(sym, context=mx.cpu())
    short.fit(mx.io.NDArrayIter(x[:2 * BATCH], y[:2 * BATCH], BATCH), optimizer="sgd", optimizer_params=OPT,
              arg_params={k: mx.nd.array(v) for k, v in params.items()},
              aux_params={k: mx.nd.array(v) for k, v in aux.items()}, num_epoch=1)
    arg, auxs = short.get_params()
    rec.update({f"short:{k}": v.asnumpy() for k, v in {**arg, **auxs}.items()})
    rec["train_acc"] = np.asarray(history["train_acc"])
    rec["val_acc"] = np.asarray(history["val_acc"])
    np.savez_compressed(os.path.join(OUT, "module_lenet.npz"), **rec)
    print("module: train acc", history["train_acc"], "val acc", history["val_acc"])


def check_ours(prefix, epoch, out):
    """MXNet reads a checkpoint this framework wrote: its validation accuracy, and one more epoch."""
    root = data_root()
    x, y = fashion(root, "train", TRAIN_N)
    xv, yv = fashion(root, "t10k", VAL_N)
    mod = mx.mod.Module.load(prefix, int(epoch), context=mx.cpu())
    val = mx.io.NDArrayIter(xv, yv, BATCH)
    mod.bind(val.provide_data, val.provide_label, for_training=False)
    acc = mod.score(val, "acc")[0][1]
    train = mx.io.NDArrayIter(x, y, BATCH, shuffle=False)
    mod2 = mx.mod.Module.load(prefix, int(epoch), context=mx.cpu())
    mod2.fit(train, optimizer="sgd", optimizer_params=OPT, begin_epoch=int(epoch), num_epoch=int(epoch) + 1)
    arg, aux = mod2.get_params()
    result = {"val_acc": float(acc), "arguments": mod.symbol.list_arguments(),
              "after": {k: v.asnumpy().astype(float).ravel()[:8].tolist() for k, v in {**arg, **aux}.items()}}
    with open(out, "w") as f:
        json.dump(result, f)


PARTS = {"signatures": signatures, "instances": instances, "graphs": graphs, "module": module}

if __name__ == "__main__":
    if sys.argv[1:2] == ["--check-ours"]:
        check_ours(*sys.argv[2:5])
        sys.exit(0)
    wanted = sys.argv[1:] or list(PARTS)
    for part in wanted:
        PARTS[part]()
