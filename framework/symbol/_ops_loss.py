"""MXNet's loss heads as graph operators, with MXNet's gradients: the backward of an output layer is
its own formula (``softmax - one_hot(label)``, ``out - label``, ...), not the gradient of its forward,
and ignores the head gradient (``SoftmaxOutput(out_grad=True)`` multiplies by it). ``MakeLoss`` passes
``grad_scale`` down (normalised per batch or per valid element); ``BlockGrad`` passes nothing.

Registered into the interpreter's table, so a ``-symbol.json`` graph and a graph built with ``mx.sym``
train alike.

>>> import jax, jax.numpy as jnp
>>> from framework.symbol._ops import OPS
>>> from framework.symbol._attrs import Attrs
>>> from framework.symbol._registry import Call
>>> op = OPS['SoftmaxOutput'].fn
>>> a = Attrs({'grad_scale': '2'}, 'sm', 'SoftmaxOutput')
>>> g = jax.grad(lambda x: op(Call(True, None), [x, jnp.array([1.0])], a).sum())(jnp.zeros((1, 2)))
>>> g.tolist()
[[1.0, -1.0]]
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from . import _ops_math  # noqa: F401  (registered first: the heads below replace its identity entries)
from ._attrs import Attrs
from ._registry import register

__all__ = ["softmax_output", "regression_output", "make_loss"]


def _labels(label: jax.Array) -> jax.Array:
    return label.astype(jnp.int32)  # MXNet reads a label with a C cast: truncation toward zero


@functools.cache
def softmax_output(grad_scale: float, ignore_label: float, multi_output: bool, use_ignore: bool,
                   preserve_shape: bool, normalization: str, out_grad: bool, smooth_alpha: float) -> Any:
    """``f(data, label)``: MXNet's ``SoftmaxOutput`` with its backward (see the module docstring)."""

    def forward(data):
        if multi_output:
            return jax.nn.softmax(data, axis=1)
        if preserve_shape:
            return jax.nn.softmax(data, axis=-1)
        return jax.nn.softmax(data.reshape(data.shape[0], -1), axis=-1).reshape(data.shape)

    def grad_of(out, label, g):
        if out.shape == label.shape:  # a distribution as the label: no normalisation
            grad = (out - label.astype(out.dtype)) * grad_scale
            return grad * g if out_grad else grad
        n = out.shape[0]
        if multi_output:
            k = out.shape[1]
            o = out.reshape(n, k, -1)
            lab = _labels(label).reshape(n, -1)
            axis = 1
        else:
            o = out.reshape(-1, out.shape[-1]) if preserve_shape else out.reshape(n, -1)
            k = o.shape[1]
            lab = _labels(label).reshape(-1)[:o.shape[0]]  # MXNet reads one label per flattened row
            axis = 1
        hot = jax.nn.one_hot(lab, k, dtype=o.dtype, axis=axis)
        if smooth_alpha:
            target = hot * (1.0 - smooth_alpha) + (1.0 - hot) * (smooth_alpha / (k - 1))
        else:
            target = hot
        grad = o - target
        keep = lab != int(ignore_label)
        if use_ignore:
            grad = grad * jnp.expand_dims(keep, axis).astype(o.dtype)
        if normalization == "batch":
            denom = jnp.asarray(lab.shape[0], o.dtype)
        elif normalization == "valid":
            denom = jnp.maximum(jnp.sum(keep), 1).astype(o.dtype)
        else:
            denom = jnp.asarray(1, o.dtype)
        if multi_output and normalization != "valid":
            denom = denom * o.shape[2]
        grad = (grad * (grad_scale / denom)).reshape(out.shape)
        return grad * g if out_grad else grad

    @jax.custom_vjp
    def layer(data, label):
        return forward(data)

    def fwd(data, label):
        out = forward(data)
        return out, (out, label)

    def bwd(res, g):
        out, label = res
        return grad_of(out, label, g).astype(out.dtype), jnp.zeros_like(label)

    layer.defvjp(fwd, bwd)
    return layer


@functools.cache
def regression_output(kind: str, grad_scale: float) -> Any:
    """``f(data, label)``: ``LinearRegressionOutput`` (``kind='linear'``), ``'logistic'`` or ``'mae'``."""

    def forward(data):
        return jax.nn.sigmoid(data) if kind == "logistic" else data

    @jax.custom_vjp
    def layer(data, label):
        return forward(data)

    def fwd(data, label):
        out = forward(data)
        return out, (out, label)

    def bwd(res, g):
        out, label = res
        lab = label.reshape(out.shape).astype(out.dtype)
        num_output = max(1, label.size // max(1, label.shape[0])) if label.ndim else 1
        diff = jnp.where(out > lab, 1.0, -1.0).astype(out.dtype) if kind == "mae" else out - lab
        return (diff * (grad_scale / num_output)).astype(out.dtype), jnp.zeros_like(label)

    layer.defvjp(fwd, bwd)
    return layer


@functools.cache
def make_loss(grad_scale: float, normalization: str, valid_thresh: float) -> Any:
    """``f(data)``: identity forward; backward ``grad_scale`` (over the batch size with
    ``normalization='batch'``, over the elements above ``valid_thresh`` with ``'valid'``)."""

    @jax.custom_vjp
    def loss(data):
        return data

    def fwd(data):
        return data, data

    def bwd(data, g):
        scale = jnp.asarray(grad_scale, data.dtype)
        if normalization == "batch":
            scale = scale / data.shape[0]
        elif normalization == "valid":
            scale = scale / jnp.maximum(jnp.sum(data > valid_thresh), 1).astype(data.dtype)
        return (jnp.full(data.shape, scale, data.dtype),)

    loss.defvjp(fwd, bwd)
    return loss


@register("SoftmaxOutput", "Softmax")
def _softmax_output(c, xs, a: Attrs):
    norm = a.str("normalization", "null")
    if norm not in ("null", "batch", "valid"):
        raise ValueError(f"symbol node {a.node!r}: normalization={norm!r} must be 'null', 'batch' or 'valid'")
    fn = softmax_output(a.float("grad_scale", 1.0), a.float("ignore_label", -1.0), a.bool("multi_output"),
                        a.bool("use_ignore"), a.bool("preserve_shape"), norm, a.bool("out_grad"),
                        a.float("smooth_alpha", 0.0))
    if len(xs) < 2:  # an imported graph may omit the label (inference): the forward alone
        data = xs[0]
        return fn(data, jnp.zeros(data.shape[:1], data.dtype))
    return fn(xs[0], xs[1])


def _regression(kind: str):
    def op(c, xs, a: Attrs):
        data = xs[0]
        label = xs[1] if len(xs) > 1 else jnp.zeros_like(data)
        return regression_output(kind, a.float("grad_scale", 1.0))(data, label)
    return op


register("LinearRegressionOutput")(_regression("linear"))
register("LogisticRegressionOutput")(_regression("logistic"))
register("MAERegressionOutput")(_regression("mae"))


@register("MakeLoss")
def _make_loss_op(c, xs, a: Attrs):
    norm = a.str("normalization", "null")
    if norm not in ("null", "batch", "valid"):
        raise ValueError(f"symbol node {a.node!r}: normalization={norm!r} must be 'null', 'batch' or 'valid'")
    return make_loss(a.float("grad_scale", 1.0), norm, a.float("valid_thresh", 0.0))(xs[0])


register("make_loss")(lambda c, xs, a: make_loss(1.0, "null", 0.0)(xs[0]))
register("BlockGrad", "stop_gradient")(lambda c, xs, a: lax.stop_gradient(xs[0]))

#: Operators whose gradient does not read the head gradient: an executor's backward needs no
#: ``out_grads`` for heads made by them (MXNet's loss layers).
LOSS_OPS = frozenset({"SoftmaxOutput", "Softmax", "LinearRegressionOutput", "LogisticRegressionOutput",
                      "MAERegressionOutput", "MakeLoss", "make_loss", "SVMOutput", "BlockGrad",
                      "stop_gradient"})
