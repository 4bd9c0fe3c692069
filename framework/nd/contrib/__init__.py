"""MXNet 1.x's ``mx.nd.contrib`` (``F.contrib`` inside a 1.x ``hybrid_forward``): detection
(``box_nms``, ``box_iou``, ``box_encode``/``box_decode``, ``bipartite_matching``, ``MultiBox*``,
``ROIAlign``), resizing and adaptive pooling, control flow (``foreach``, ``while_loop``, ``cond``) and the
smaller tensor operators, each a pure JAX function that runs eagerly, under ``jax.jit`` and inside
``autograd.record()``. The contrib names MXNet has but this package does not are listed, with the
reason, in ``NOT_SUPPORTED``.

>>> import framework as mx
>>> mx.nd.contrib.BilinearResize2D(mx.nd.ones((1, 1, 2, 2)), height=4, width=4).shape
(1, 1, 4, 4)
"""

from __future__ import annotations

from typing import Any

from .. import optimizer_ops as _optimizer_ops
from .control_flow import *  # noqa: F403
from .control_flow import __all__ as _control_flow_all
from .detection import *  # noqa: F403
from .detection import __all__ as _detection_all
from .tensor import *  # noqa: F403
from .tensor import __all__ as _tensor_all

globals().update({_n: getattr(_optimizer_ops, _n) for _n in _optimizer_ops.CONTRIB})

__all__ = [*_control_flow_all, *_detection_all, *_tensor_all, *_optimizer_ops.CONTRIB, "NOT_SUPPORTED"]

_QUANTIZED = ("int8/uint8 quantization runs on MXNet's oneDNN/cuDNN integer kernels; JAX has no equivalent "
              "graph pass: use float32/bfloat16 (or jax.lax dot_general with preferred_element_type)")
_GRAPH = "DGL's sparse-graph operators need CSR storage; JAX arrays are dense: use the DGL library itself"
_INTERNAL = "MXNet's internal backward operator: gradients here come from jax.vjp of the forward"
#: MXNet 1.9.1 ``mx.nd.contrib`` names that are not offered, with the reason and what to use instead.
NOT_SUPPORTED: dict[str, str] = {
    **{n: _QUANTIZED for n in ("quantize", "quantize_asym", "quantize_v2", "dequantize", "requantize",
                               "calibrate_entropy", "quantized_act", "quantized_batch_norm",
                               "quantized_concat", "quantized_conv", "quantized_elemwise_add",
                               "quantized_elemwise_mul",
                               "quantized_embedding", "quantized_flatten", "quantized_fully_connected",
                               "quantized_pooling", "quantized_rnn")},
    **{n: _GRAPH for n in ("dgl_adjacency", "dgl_csr_neighbor_non_uniform_sample",
                           "dgl_csr_neighbor_uniform_sample", "dgl_graph_compact", "dgl_subgraph",
                           "edge_id")},
    "getnnz": "counts the stored entries of a CSR array; JAX arrays are dense (use (x != 0).sum(axis))",
    **{n: _INTERNAL for n in ("backward_gradientmultiplier", "backward_hawkesll", "backward_index_copy",
                              "backward_quadratic")},
    "fft": "GPU-only in MXNet 1.9.1 (no CPU reference); use jnp.fft.fft",
    "ifft": "GPU-only in MXNet 1.9.1 (no CPU reference); use jnp.fft.ifft",
    "count_sketch": "GPU-only in MXNet 1.9.1 (no CPU reference); a segment_sum of s * data over h does it",
    "hawkesll": "a niche point-process likelihood, not reached by GluonCV, d2l or MXNet's examples",
    "Proposal": "Faster R-CNN's old RPN operator; GluonCV builds proposals from box_decode + box_nms "
                "(both here)",
    "MultiProposal": "as Proposal (its batched form)",
    "PSROIPooling": "R-FCN's position-sensitive pooling: use ROIAlign(position_sensitive=True)",
    "DeformablePSROIPooling": "Deformable R-FCN's pooling; not reached by GluonCV's model zoo",
    "RROIAlign": "rotated-box ROIAlign; not reached by GluonCV's model zoo",
    "math": "a Python module imported by MXNet's file, not an operator",
    "mx": "a Python module imported by MXNet's file, not an operator",
    "ndarray": "a Python module imported by MXNet's file, not an operator",
    "np": "a Python module imported by MXNet's file, not an operator",
}


def __getattr__(name: str) -> Any:
    raise AttributeError(f"framework.nd.contrib has no attribute {name!r}: it is not one of MXNet 1.x's "
                         "contrib operators supported here")


def __dir__() -> list[str]:
    return sorted(__all__)
