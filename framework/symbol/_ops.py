"""The operator table: MXNet graph operators (1.x names and 2.0 ``_np*``/``_npx_*`` names) -> JAX.

Neural-network operators call ``framework.npx``'s functions (one implementation each); element-wise,
reduction and shape operators are thin ``jax.numpy`` calls. Each entry says how many outputs the
operator has (MXNet counts them in ``node_row_ptr``) and which inputs are auxiliary states.

>>> from framework.symbol._ops import OPS
>>> 'Convolution' in OPS and '_npx_convolution' in OPS
True
>>> OPS['BatchNorm'].aux
(3, 4)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..npx import activations as _act
from ..npx import conv as _conv
from ..npx import dense as _dense
from ..npx import drop as _drop
from ..npx import indexing as _idx
from ..npx import normalization as _norm
from ..npx import pool as _pool
from . import _ops_loss  # noqa: F401  (element-wise, reduction, shape operators; loss heads, BlockGrad)
from ._attrs import Attrs
from ._registry import OPS, Call, LazyZeros, OpSpec, check_size, num_outputs, register, supported_ops
from ._rnn import rnn as _rnn

__all__ = ["OPS", "OpSpec", "Call", "LazyZeros", "num_outputs", "supported_ops", "check_size"]


def _layout(a: Attrs):
    v = a.str("layout", "None")
    return None if v == "None" else v


# ---------------------------------------------------------------- neural-network operators (npx)
@register("Convolution", "_npx_convolution", "Convolution_v1")
def _convolution(c, xs, a):
    no_bias = a.bool("no_bias")
    return _conv.convolution(xs[0], xs[1], None if no_bias else xs[2], kernel=a.shape("kernel"),
                             stride=a.shape("stride", ()), dilate=a.shape("dilate", ()),
                             pad=a.shape("pad", ()), num_filter=a.int("num_filter"),
                             num_group=a.int("num_group", 1), no_bias=no_bias, layout=_layout(a))


@register("Deconvolution", "_npx_deconvolution")
def _deconvolution(c, xs, a):
    no_bias = a.bool("no_bias", True)
    return _conv.deconvolution(xs[0], xs[1], None if no_bias else xs[2], kernel=a.shape("kernel"),
                               stride=a.shape("stride", ()), dilate=a.shape("dilate", ()),
                               pad=a.shape("pad", ()), adj=a.shape("adj", ()),
                               target_shape=a.shape("target_shape", ()), num_filter=a.int("num_filter"),
                               num_group=a.int("num_group", 1), no_bias=no_bias, layout=_layout(a))


@register("FullyConnected", "_npx_fully_connected")
def _fully_connected(c, xs, a):
    no_bias = a.bool("no_bias")
    return _dense.fully_connected(xs[0], xs[1], None if no_bias else xs[2], num_hidden=a.int("num_hidden"),
                                  no_bias=no_bias, flatten=a.bool("flatten", True))


def _pool_outputs(a: Attrs) -> int:
    """MXNet 1.9.1's pip builds (MKL-DNN) give a max-pooling node a second, hidden output (a workspace)."""
    if a.op != "Pooling" or a.str("pool_type", "max") != "max":
        return 1
    kernel = a.opt_shape("kernel", ())
    return 2 if 1 <= len(kernel) <= 3 and a.str("layout", "None") in ("None", "NCW", "NCHW", "NCDHW") else 1


def pooling_outputs(a: Attrs, out: jax.Array) -> tuple[jax.Array, ...]:
    """A Pooling node's outputs for its pooled array ``out``: with MXNet's hidden, empty workspace where
    the node has one (:func:`_pool_outputs`)."""
    return (out, jnp.zeros((0,), out.dtype)) if _pool_outputs(a) == 2 else (out,)


@register("Pooling", "_npx_pooling", "Pooling_v1", outputs=_pool_outputs)
def _pooling(c, xs, a):
    return pooling_outputs(a, _pool_1(c, xs, a))


def _pool_1(c, xs, a):
    cip = a.str("count_include_pad", "None")
    return _pool.pooling(xs[0], kernel=a.shape("kernel", None), pool_type=a.str("pool_type", "max"),
                         global_pool=a.bool("global_pool"),
                         pooling_convention=a.str("pooling_convention", "valid"),
                         stride=a.shape("stride", ()), pad=a.shape("pad", ()),
                         p_value=a.int("p_value", None),
                         count_include_pad=None if cip == "None" else a.bool("count_include_pad"),
                         layout=_layout(a))


@register("Activation", "_npx_activation")
def _activation(c, xs, a):
    return _act.activation(xs[0], act_type=a.str("act_type"))


@register("LeakyReLU", "_npx_leaky_relu")
def _leaky_relu(c, xs, a):
    kind = a.str("act_type", "leaky")
    return _act.leaky_relu(xs[0], xs[1] if kind == "prelu" else None, act_type=kind,
                           slope=a.float("slope", 0.25), lower_bound=a.float("lower_bound", 0.125),
                           upper_bound=a.float("upper_bound", 0.334), key=c.key, training=c.training)


def _bn_outputs(a: Attrs) -> int:
    return 3


@register("BatchNorm", "_npx_batch_norm", "BatchNorm_v1", "CuDNNBatchNorm", outputs=_bn_outputs, aux=(3, 4))
def _batch_norm(c, xs, a):
    use_global = a.bool("use_global_stats")
    momentum = a.float("momentum", 0.9)
    out, mean, var = _norm.batch_norm(xs[0], xs[1], xs[2], xs[3], xs[4], eps=a.float("eps", 1e-3),
                                      momentum=momentum, fix_gamma=a.bool("fix_gamma", True),
                                      use_global_stats=use_global, output_mean_var=True,
                                      axis=a.int("axis", 1), training=c.training)
    if c.training and not use_global:
        c.updates[3] = _norm.update_running_stat(xs[3], mean, momentum)
        c.updates[4] = _norm.update_running_stat(xs[4], var, momentum)
    return out, mean, var


@register("LayerNorm", "_npx_layer_norm", outputs=3)
def _layer_norm(c, xs, a):
    axis = a.int("axis", -1)
    out, mean, std = _norm.layer_norm(xs[0], xs[1], xs[2], axis=axis, eps=a.float("eps", 1e-5),
                                      output_mean_var=True)
    if a.op == "LayerNorm":  # MXNet 1.x keeps the normalised axis (size 1) in the mean and std
        mean, std = jnp.expand_dims(mean, axis % xs[0].ndim), jnp.expand_dims(std, axis % xs[0].ndim)
    return out, mean, std


@register("GroupNorm", "_npx_group_norm", outputs=3)
def _group_norm(c, xs, a):
    return _norm.group_norm(xs[0], xs[1], xs[2], num_groups=a.int("num_groups", 1),
                            eps=a.float("eps", 1e-5), output_mean_var=True)


def _instance_outputs(a: Attrs) -> int:
    return 3 if a.op == "InstanceNorm" else 1  # MXNet 1.x counts two hidden outputs (mean, var)


@register("InstanceNorm", "_npx_instance_norm", outputs=_instance_outputs)
def _instance_norm(c, xs, a):
    out = _norm.instance_norm(xs[0], xs[1], xs[2], eps=a.float("eps", 1e-3))
    if a.op != "InstanceNorm":
        return out
    empty = jnp.zeros((0,), out.dtype)
    return out, empty, empty


@register("Dropout", "_npx_dropout", outputs=2)
def _dropout(c, xs, a):
    mode = a.str("mode", "training")
    axes = a.opt_shape("axes", ())
    out = _drop.dropout(xs[0], p=a.float("p", 0.5), mode=mode, axes=axes, key=c.key, training=c.training)
    return out, jnp.ones_like(xs[0])


@register("Embedding", "_npx_embedding")
def _embedding(c, xs, a):
    return _idx.embedding(xs[0], xs[1], a.int("input_dim", None), a.int("output_dim", None))


@register("softmax", "_npx_softmax")
def _softmax(c, xs, a):
    use_length = a.bool("use_length")
    out = _act.softmax(xs[0], axis=a.int("axis", -1), length=xs[1] if use_length else None,
                       temperature=a.float("temperature", None), use_length=use_length)
    return _cast_to(out, a)


@register("log_softmax", "_npx_log_softmax")
def _log_softmax(c, xs, a):
    use_length = a.bool("use_length")
    out = _act.log_softmax(xs[0], axis=a.int("axis", -1), length=xs[1] if use_length else None,
                           temperature=a.float("temperature", None), use_length=use_length)
    return _cast_to(out, a)


@register("SoftmaxActivation")
def _softmax_activation(c, xs, a):
    x = xs[0]
    if a.str("mode", "instance") == "channel":
        return jax.nn.softmax(x, axis=1)
    return jax.nn.softmax(x.reshape(x.shape[0], -1), axis=-1).reshape(x.shape)


def _cast_to(x, a: Attrs):
    dt = a.str("dtype", "None")
    return x if dt == "None" else x.astype(dt)


def _rnn_outputs(a: Attrs) -> int:
    if not a.bool("state_outputs"):
        return 1
    return 3 if a.str("mode", "") == "lstm" else 2


@register("RNN", "_npx_rnn", outputs=_rnn_outputs)
def _rnn_op(c, xs, a):
    mode = a.str("mode")
    layers, hidden = a.int("num_layers"), a.int("state_size")
    if a.has("projection_size"):
        raise ValueError(f"symbol node {a.node!r}: RNN with projection_size is not supported")
    if a.bool("use_sequence_length"):
        raise ValueError(f"symbol node {a.node!r}: RNN with use_sequence_length=True is not supported")
    data = xs[0]
    dirs = 2 if a.bool("bidirectional") else 1

    def state(v):
        if isinstance(v, LazyZeros):
            return jnp.zeros((layers * dirs, data.shape[1], hidden), v.dtype)
        return v
    cell = state(xs[3]) if mode == "lstm" else None
    outs = _rnn(data, xs[1], state(xs[2]), cell, mode=mode, state_size=hidden, num_layers=layers,
                bidirectional=dirs == 2, p=a.float("p", 0.0), training=c.training, key=c.key)
    return outs if a.bool("state_outputs") else outs[0]


@register("_rnn_param_concat")
def _rnn_param_concat(c, xs, a):
    return jnp.concatenate([x.reshape(-1) for x in xs], axis=0)


@register("_zeros", "_npi_zeros", "_ones", "_npi_ones", "_full", "_npi_full")
def _filled(c, xs, a):
    shape = a.shape("shape", ())
    dtype = a.str("dtype", "float32")
    dtype = "float32" if dtype == "None" else dtype
    if a.op.endswith("full"):
        value = a.float("value")
    else:
        value = 0.0 if "zeros" in a.op else 1.0
    if any(s == 0 or s is None for s in shape) and value == 0.0:
        return LazyZeros(tuple(shape), dtype)
    check_size(a, shape)
    return jnp.full(shape, value, dtype)


# operators implemented by framework.nd's functions; MXNet's oneDNN fused operators (_sg_mkldnn_conv)
from . import _ops_mkldnn, _ops_nd  # noqa: E402,F401
