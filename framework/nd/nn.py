"""``mx.nd`` neural-network operators with MXNet 1.x's capitalised names and arguments. They call the
``npx`` operators (one implementation of convolution, pooling and normalisation); the output layers
(``SoftmaxOutput``, ``*RegressionOutput``, ``MakeLoss``) carry MXNet's fixed gradients via
``jax.custom_vjp``.

>>> import jax.numpy as jnp
>>> from framework import nd
>>> x = jnp.ones((2, 3))
>>> nd.FullyConnected(x, jnp.ones((4, 3)), jnp.zeros(4), num_hidden=4).shape
(2, 4)
>>> nd.Activation(jnp.array([-1.0, 2.0]), act_type='relu').tolist()
[0.0, 2.0]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ..autograd import mode as _mode
from ..np import random as _random
from ..npx import activations as _act
from ..npx import conv as _conv
from ..npx import dense as _dense
from ..npx import drop as _drop
from ..npx import indexing as _idx
from ..npx import normalization as _norm
from ..npx import pool as _pool
from ._op import legacy_scalar, nd_op

__all__ = [
    "Activation", "FullyConnected", "Convolution", "Deconvolution", "Pooling", "BatchNorm", "LayerNorm",
    "InstanceNorm", "GroupNorm", "Dropout", "Embedding", "softmax", "log_softmax", "softmin",
    "SoftmaxActivation", "LeakyReLU", "L2Normalization", "SoftmaxOutput", "Softmax", "softmax_cross_entropy",
    "LinearRegressionOutput", "LogisticRegressionOutput", "MAERegressionOutput", "MakeLoss", "make_loss",
    "BlockGrad", "stop_gradient", "UpSampling",
]


def _bias(bias: Any, no_bias: bool) -> Any:
    return None if no_bias else bias


@nd_op
def Activation(data: jax.Array, act_type: str = "relu") -> jax.Array:
    """'relu', 'sigmoid', 'tanh', 'softrelu' or 'softsign', element-wise."""
    return _act.activation(data, act_type=act_type)


@nd_op
def FullyConnected(data: jax.Array, weight: jax.Array, bias: jax.Array | None = None,
                   num_hidden: int | None = None, no_bias: bool = False, flatten: bool = True) -> jax.Array:
    """``data @ weight.T + bias``, weight (num_hidden, in_units); ``flatten``: (N, ...) -> (N, -1)."""
    return _dense.fully_connected(data, weight, _bias(bias, no_bias), num_hidden=num_hidden,
                                  no_bias=no_bias, flatten=flatten)


@nd_op
def Convolution(data: jax.Array, weight: jax.Array, bias: jax.Array | None = None, kernel: Any = None,
                stride: Any = (), dilate: Any = (), pad: Any = (), num_filter: int = 1, num_group: int = 1,
                workspace: int = 1024, no_bias: bool = False, cudnn_tune: str | None = None,
                cudnn_off: bool = False, layout: str | None = None) -> jax.Array:
    """MXNet's Convolution (NCHW, weight (num_filter, C/num_group, *kernel))."""
    return _conv.convolution(data, weight, _bias(bias, no_bias), kernel, stride, dilate, pad, num_filter,
                             num_group, workspace, no_bias, cudnn_tune, cudnn_off, layout)


@nd_op
def Deconvolution(data: jax.Array, weight: jax.Array, bias: jax.Array | None = None, kernel: Any = None,
                  stride: Any = (), dilate: Any = (), pad: Any = (), adj: Any = (), target_shape: Any = (),
                  num_filter: int = 1, num_group: int = 1, workspace: int = 512, no_bias: bool = True,
                  cudnn_tune: str | None = None, cudnn_off: bool = False,
                  layout: str | None = None) -> jax.Array:
    """MXNet's Deconvolution (``no_bias`` defaults to True, as in 1.x)."""
    return _conv.deconvolution(data, weight, _bias(bias, no_bias), kernel, stride, dilate, pad, adj,
                               target_shape, num_filter, num_group, workspace, no_bias, cudnn_tune,
                               cudnn_off, layout)


@nd_op
def Pooling(data: jax.Array, kernel: Any = None, pool_type: str = "max", global_pool: bool = False,
            cudnn_off: bool = False, pooling_convention: str = "valid", stride: Any = (), pad: Any = (),
            p_value: int | None = None, count_include_pad: bool | None = None,
            layout: str | None = None) -> jax.Array:
    """MXNet's Pooling ('max', 'avg', 'sum', 'lp'; ``pooling_convention`` 'valid' or 'full')."""
    return _pool.pooling(data, kernel, pool_type, global_pool, cudnn_off, pooling_convention, stride, pad,
                         p_value, count_include_pad, layout)


@nd_op
def _batch_norm(data, gamma, beta, moving_mean, moving_var, eps, momentum, fix_gamma, use_global_stats,
                output_mean_var, axis, cudnn_off, training):
    return _norm.batch_norm(data, gamma, beta, moving_mean, moving_var, eps, momentum, fix_gamma,
                            use_global_stats, output_mean_var, axis, cudnn_off, training=training)


def BatchNorm(data: jax.Array, gamma: jax.Array, beta: jax.Array, moving_mean: jax.Array,
              moving_var: jax.Array, eps: float = 1e-3, momentum: float = 0.9, fix_gamma: bool = True,
              use_global_stats: bool = False, output_mean_var: bool = False, axis: int = 1,
              cudnn_off: bool = False, min_calib_range: float | None = None,
              max_calib_range: float | None = None, name: str | None = None, out: Any = None) -> Any:
    """Batch statistics in training mode (``autograd.record()``/``train_mode()``), the moving ones
    otherwise. The moving arrays are not modified (jax arrays are immutable): a 1.x ``hybrid_forward``
    that needs updated statistics uses ``gluon.nn.BatchNorm``. The mode is read when called, so a
    recorded call is replayed (for ``backward``) in the mode it was recorded in."""
    return _batch_norm(data, gamma, beta, moving_mean, moving_var, eps, momentum, fix_gamma,
                       use_global_stats, output_mean_var, axis, cudnn_off, _mode.is_training(), name=name,
                       out=out)


@nd_op
def LayerNorm(data: jax.Array, gamma: jax.Array, beta: jax.Array, axis: int = -1, eps: float = 1e-5,
              output_mean_var: bool = False) -> Any:
    """Normalise along ``axis``, then scale and shift."""
    return _norm.layer_norm(data, gamma, beta, axis, eps, output_mean_var)


@nd_op
def InstanceNorm(data: jax.Array, gamma: jax.Array, beta: jax.Array, eps: float = 1e-3) -> jax.Array:
    """Normalise each (sample, channel) over its spatial positions."""
    return _norm.instance_norm(data, gamma, beta, eps)


@nd_op
def GroupNorm(data: jax.Array, gamma: jax.Array, beta: jax.Array, num_groups: int = 1, eps: float = 1e-5,
              output_mean_var: bool = False) -> Any:
    """Normalise each group of channels."""
    return _norm.group_norm(data, gamma, beta, num_groups, eps, output_mean_var)


@nd_op
def _dropout(data, p, mode, axes, cudnn_off, training, key):
    return _drop.dropout(data, p, mode, axes, cudnn_off, key=key, training=training)


def Dropout(data: jax.Array, p: float = 0.5, mode: str = "training", axes: Sequence[int] = (),
            cudnn_off: bool = False, name: str | None = None, out: Any = None) -> jax.Array:
    """Dropout in training mode (or always, ``mode='always'``); kept values scaled by 1/(1-p). The mode
    and the random key are taken when called, so a recorded call replays with the same mask."""
    training = _mode.is_training()
    key = _random.next_key() if (mode == "always" or training) and 0.0 < float(p) < 1.0 else None
    return _dropout(data, p, mode, axes, cudnn_off, training, key, name=name, out=out)


@nd_op
def Embedding(data: jax.Array, weight: jax.Array, input_dim: int | None = None,
              output_dim: int | None = None, dtype: Any = "float32", sparse_grad: bool = False) -> jax.Array:
    """Rows of ``weight`` (input_dim, output_dim) at the (clipped) indices in ``data``."""
    return _idx.embedding(data, weight, input_dim, output_dim, dtype, sparse_grad)


@nd_op
def softmax(data: jax.Array, length: Any = None, axis: int = -1, temperature: float | None = None,
            dtype: Any = None, use_length: bool = False) -> jax.Array:
    """Softmax along ``axis`` (MXNet 1.x's argument order: ``length`` second)."""
    return _act.softmax(data, axis=axis, length=length, temperature=temperature, use_length=use_length,
                        dtype=dtype)


@nd_op
def log_softmax(data: jax.Array, length: Any = None, axis: int = -1, temperature: float | None = None,
                dtype: Any = None, use_length: bool = False) -> jax.Array:
    """Log-softmax along ``axis``."""
    return _act.log_softmax(data, axis=axis, length=length, temperature=temperature,
                            use_length=use_length, dtype=dtype)


@nd_op
def softmin(data: jax.Array, axis: int = -1, temperature: float | None = None,
            dtype: Any = None) -> jax.Array:
    """Softmax of ``-data``."""
    return _act.softmax(-data, axis=axis, temperature=temperature, dtype=dtype)


@nd_op
def SoftmaxActivation(data: jax.Array, mode: str = "instance") -> jax.Array:
    """'instance': softmax over the last axis; 'channel': over axis 1."""
    if mode == "channel":
        return jax.nn.softmax(data, axis=1)
    if mode != "instance":
        raise ValueError(f"nd.SoftmaxActivation: mode={mode!r} must be 'instance' or 'channel'")
    return jax.nn.softmax(data, axis=-1)


@nd_op
def LeakyReLU(data: jax.Array, gamma: jax.Array | None = None, act_type: str = "leaky", slope: float = 0.25,
              lower_bound: float = 0.125, upper_bound: float = 0.334) -> jax.Array:
    """'leaky', 'prelu' (``gamma`` per channel), 'elu', 'selu', 'gelu', 'rrelu'."""
    return _act.leaky_relu(data, gamma, act_type, slope, lower_bound, upper_bound)


@nd_op
def L2Normalization(data: jax.Array, eps: float = 1e-10, mode: str = "instance") -> jax.Array:
    """``data / sqrt(sum(data^2) + eps)`` per sample ('instance'), per position over channels
    ('channel', axis 1) or per channel over positions ('spatial', axes 2+)."""
    axes = {"instance": tuple(range(1, data.ndim)), "channel": (1,), "spatial": tuple(range(2, data.ndim))}
    if mode not in axes:
        raise ValueError(f"nd.L2Normalization: mode={mode!r} must be 'instance', 'channel' or 'spatial'")
    return data * lax.rsqrt(jnp.sum(jnp.square(data), axis=axes[mode], keepdims=True) + eps)


@nd_op
def BlockGrad(data: jax.Array) -> jax.Array:
    """Identity forward, zero gradient."""
    return lax.stop_gradient(data)


stop_gradient = BlockGrad


@nd_op
def UpSampling(*data: jax.Array, scale: int = 1, sample_type: str = "nearest", num_args: int = 1,
               num_filter: int = 0, multi_input_mode: str = "concat", workspace: int = 512) -> jax.Array:
    """Upsampling of NCHW data by an integer ``scale``. ``'nearest'``: each input is repeated up to the
    first input's size times ``scale``, then the inputs are concatenated on the channels (or summed,
    ``multi_input_mode='sum'``). ``'bilinear'``: ``UpSampling(data, weight, ...)`` is MXNet's grouped
    deconvolution with the (num_filter, 1, k, k) ``weight``, k = 2*scale - scale%2 (initialise it with
    ``init.Bilinear()`` for bilinear interpolation).

    >>> import jax.numpy as jnp
    >>> UpSampling(jnp.ones((1, 1, 2, 2)), scale=2).shape
    (1, 1, 4, 4)
    """
    scale = int(scale)
    if sample_type == "bilinear":
        if len(data) != 2:
            raise ValueError("nd.UpSampling: sample_type='bilinear' takes two inputs, data and weight "
                             f"(num_filter, 1, k, k); got {len(data)}")
        x, weight = data
        channels = int(num_filter) or x.shape[1]
        k = 2 * scale - scale % 2
        pad = math.ceil((scale - 1) / 2)
        return _conv.deconvolution(x, weight, None, (k, k), (scale, scale), (), (pad, pad), (), (), channels,
                                   channels, workspace, True)
    if sample_type != "nearest":
        raise ValueError(f"nd.UpSampling: sample_type={sample_type!r} must be 'nearest' or 'bilinear'")
    if multi_input_mode not in ("concat", "sum"):
        raise ValueError(f"nd.UpSampling: multi_input_mode={multi_input_mode!r} must be 'concat' or 'sum'")
    out_h, out_w = data[0].shape[2] * scale, data[0].shape[3] * scale
    ups = []
    for x in data:
        sh, sw = out_h // x.shape[2], out_w // x.shape[3]
        if sh * x.shape[2] != out_h or sw * x.shape[3] != out_w:
            raise ValueError(f"nd.UpSampling: input of shape {tuple(x.shape)} does not scale by an integer "
                             f"to ({out_h}, {out_w})")
        ups.append(jnp.repeat(jnp.repeat(x, sh, axis=2), sw, axis=3))
    if len(ups) == 1:
        return ups[0]
    if multi_input_mode == "sum":
        return functools.reduce(jnp.add, ups)
    return jnp.concatenate(ups, axis=1)


# ----------------------------------------------------------------------------- output layers
@functools.cache
def _output_layer(kind: str, grad_scale: float, ignore_label: float, use_ignore: bool,
                  normalization: str, multi_output: bool) -> Any:
    def forward(data):
        if kind == "softmax":
            return jax.nn.softmax(data, axis=1 if multi_output else -1)
        if kind == "logistic":
            return jax.nn.sigmoid(data)
        return data

    @jax.custom_vjp
    def layer(data, label):
        return forward(data)

    def fwd(data, label):
        out = forward(data)
        return out, (out, label)

    def bwd(res, g):
        out, label = res
        if kind == "softmax":
            axis = 1 if multi_output else -1
            hot = jax.nn.one_hot(label.astype(jnp.int32), out.shape[axis], dtype=out.dtype, axis=axis)
            grad = out - hot
            valid = jnp.ones(label.shape, out.dtype)
            if use_ignore:
                valid = (label != ignore_label).astype(out.dtype)
                grad = grad * jnp.expand_dims(valid, axis)
            if normalization == "batch":
                grad = grad / out.shape[0]
            elif normalization == "valid":
                grad = grad / jnp.maximum(jnp.sum(valid), 1.0)
        elif kind == "mae":
            grad = jnp.sign(out - label.reshape(out.shape)) / (out[0].size if out.ndim > 1 else 1)
        else:  # linear, logistic: the gradient per sample is averaged over its outputs
            grad = (out - label.reshape(out.shape)) / (out[0].size if out.ndim > 1 else 1)
        return grad_scale * grad, jnp.zeros_like(label)

    layer.defvjp(fwd, bwd)
    return layer


def _check_norm(normalization: str) -> None:
    if normalization not in ("null", "batch", "valid"):
        raise ValueError(f"nd.SoftmaxOutput: normalization={normalization!r} must be 'null', 'batch' "
                         "or 'valid'")


@nd_op
def SoftmaxOutput(data: jax.Array, label: jax.Array, grad_scale: float = 1.0, ignore_label: float = -1.0,
                  multi_output: bool = False, use_ignore: bool = False, preserve_shape: bool = False,
                  normalization: str = "null", out_grad: bool = False,
                  smooth_alpha: float = 0.0) -> jax.Array:
    """Softmax forward; backward gives ``grad_scale * (softmax - one_hot(label))`` whatever the head
    gradient (MXNet's output-layer rule)."""
    _check_norm(normalization)
    if out_grad or smooth_alpha:
        raise ValueError("nd.SoftmaxOutput: out_grad and smooth_alpha are not supported")
    return _output_layer("softmax", float(grad_scale), float(ignore_label), bool(use_ignore), normalization,
                         bool(multi_output))(data, label)


Softmax = SoftmaxOutput


def _regression(kind: str, name: str) -> Any:
    def op(data: jax.Array, label: jax.Array, grad_scale: float = 1.0) -> jax.Array:
        return _output_layer(kind, float(grad_scale), -1.0, False, "null", False)(data, label)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"MXNet's ``{name}``: forward as written; backward ``grad_scale * (out - label) / "
                  "num_output`` (sign for MAE), whatever the head gradient.")
    return nd_op(op)


LinearRegressionOutput = _regression("linear", "LinearRegressionOutput")
LogisticRegressionOutput = _regression("logistic", "LogisticRegressionOutput")
MAERegressionOutput = _regression("mae", "MAERegressionOutput")


@functools.cache
def _make_loss(grad_scale: float) -> Any:
    @jax.custom_vjp
    def loss(data):
        return data

    loss.defvjp(lambda d: (d, None), lambda _, g: (jnp.full_like(g, grad_scale),))
    return loss


@nd_op
def MakeLoss(data: jax.Array, grad_scale: float = 1.0, valid_thresh: float = 0.0,
             normalization: str = "null") -> jax.Array:
    """Identity forward; its gradient is ``grad_scale`` everywhere (MXNet's loss head)."""
    if normalization != "null":
        raise ValueError("nd.MakeLoss: only normalization='null' is supported")
    return _make_loss(float(grad_scale))(data)


make_loss = MakeLoss


@nd_op
def softmax_cross_entropy(data: jax.Array, label: jax.Array) -> jax.Array:
    """``sum_i -log softmax(data_i)[label_i]`` over the batch: shape (1,).

    >>> import jax.numpy as jnp
    >>> round(softmax_cross_entropy(jnp.zeros((2, 4)), jnp.array([0.0, 3.0])).item(), 4)
    2.7726
    """
    logp = jax.nn.log_softmax(data, axis=-1)
    picked = jnp.take_along_axis(logp, label.astype(jnp.int32).reshape(-1, 1), axis=-1)
    return legacy_scalar(-jnp.sum(picked))
