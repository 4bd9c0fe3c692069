"""The npx operator catalogue: MXNet's neural-network operators as pure functions (NCHW).

Each family lives in its own module (``activations``, ``conv``, ``pool``, ``normalization``, ``drop``,
``dense``, ``indexing``, ``shape``, ``special``, ``tensor_ops``, ``roi``,
``multibox``, ``fused_rnn``; no module is named like a function, so
``import framework.npx.conv`` is never shadowed). ``framework.npx`` star-imports this catalogue and
makes each operator record under ``autograd.record``; layers call the module functions directly.

>>> import jax.numpy as jnp
>>> from framework.npx import ops
>>> ops.relu(jnp.array([-1.0, 1.0])).tolist()
[0.0, 1.0]
>>> ops.convolution is ops.conv.convolution
True
"""

from __future__ import annotations

from . import conv  # noqa: F401  (the module, for ops.conv._conv_nd)
from .activations import (
    activation,
    leaky_relu,
    log_softmax,
    masked_log_softmax,
    masked_softmax,
    relu,
    sigmoid,
    softmax,
)
from .conv import convolution, deconvolution
from .dense import fully_connected
from .drop import dropout
from .fused_rnn import rnn
from .indexing import embedding, one_hot, pick, sequence_mask, topk
from .multibox import multibox_detection, multibox_prior, multibox_target
from .normalization import batch_norm, group_norm, instance_norm, layer_norm, update_running_stat
from .pool import pooling
from .roi import roi_pooling
from .shape import arange_like, batch_flatten, reshape, reshape_shape
from .special import digamma, erf, erfinv, gamma, gammaln
from .tensor_ops import (
    batch_dot,
    cast,
    constraint_check,
    gather_nd,
    nonzero,
    reshape_like,
    shape_array,
    slice,
    smooth_l1,
)

__all__ = [
    # activations
    "activation", "relu", "sigmoid", "leaky_relu", "softmax", "log_softmax", "masked_softmax",
    "masked_log_softmax",
    # conv, pool, dense, drop
    "convolution", "deconvolution", "pooling", "fully_connected", "dropout",
    # normalization
    "batch_norm", "layer_norm", "group_norm", "instance_norm", "update_running_stat",
    # indexing
    "embedding", "one_hot", "pick", "topk", "sequence_mask",
    # shape
    "reshape", "batch_flatten", "arange_like", "reshape_shape",
    # special
    "erf", "erfinv", "gamma", "gammaln", "digamma",
    # tensor_ops
    "batch_dot", "gather_nd", "nonzero", "reshape_like", "slice", "smooth_l1", "cast", "shape_array",
    "constraint_check",
    # detection
    "roi_pooling", "multibox_prior", "multibox_target", "multibox_detection",
    # fused_rnn
    "rnn",
]
