"""Older ``mx.nd`` operators kept by MXNet 1.9.1: ``SVMOutput`` (a hinge-loss output layer),
``Convolution_v1``/``Pooling_v1``/``BatchNorm_v1`` (the current operators), and the interop helpers
``from_numpy``, ``from_dlpack``, ``to_dlpack_for_read``/``to_dlpack_for_write``, ``load_frombuffer``.

>>> import framework as mx
>>> mx.nd.SVMOutput(mx.nd.array([[1.0, 2.0]]), mx.nd.array([1])).tolist()
[[1.0, 2.0]]
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .. import serialization
from . import nn as _nn
from ._op import nd_op

__all__ = ["imdecode", "SVMOutput", "Convolution_v1", "Pooling_v1", "BatchNorm_v1", "from_numpy",
           "from_dlpack", "to_dlpack_for_read", "to_dlpack_for_write", "load_frombuffer"]


@functools.cache
def _svm(margin: float, reg: float, linear: bool) -> Any:
    @jax.custom_vjp
    def layer(data, label):
        return data

    def fwd(data, label):
        return data, (data, label)

    def bwd(res, g):
        data, label = res
        hot = jax.nn.one_hot(label.astype(jnp.int32).reshape(-1), data.shape[1], dtype=bool)
        if linear:
            grad = jnp.where(hot, -(margin > data).astype(data.dtype) * reg,
                             (margin > -data).astype(data.dtype) * reg)
        else:
            grad = jnp.where(hot, jnp.where(margin > data, 2 * (margin - data), 0) * -reg,
                             jnp.where(margin > -data, -2 * (margin + data), 0) * -reg)
        return grad.astype(data.dtype), jnp.zeros_like(label)

    layer.defvjp(fwd, bwd)
    return layer


@nd_op
def SVMOutput(data: jax.Array, label: jax.Array, margin: float = 1.0, regularization_coefficient: float = 1.0,
              use_linear: bool = False) -> jax.Array:
    """The identity forward; backward, the gradient of the (squared, or with ``use_linear`` plain)
    one-vs-all hinge loss of ``data`` (N, classes) against ``label`` (N,), ignoring the head gradient as
    MXNet's output layers do."""
    return _svm(float(margin), float(regularization_coefficient), bool(use_linear))(data, label)


Convolution_v1 = _nn.Convolution
Pooling_v1 = _nn.Pooling
BatchNorm_v1 = _nn.BatchNorm


def from_numpy(ndarray: onp.ndarray, zero_copy: bool = True, array_cls: Any = None) -> jax.Array:
    """A ``jax.Array`` holding ``ndarray``'s values (a copy: JAX owns its buffers)."""
    return jnp.asarray(ndarray)


def from_dlpack(dlpack: Any) -> jax.Array:
    """A ``jax.Array`` from a DLPack capsule or an object with ``__dlpack__``."""
    return jax.dlpack.from_dlpack(dlpack)


def to_dlpack_for_read(data: jax.Array) -> Any:
    """``data`` for a DLPack consumer (the array itself: it implements ``__dlpack__``)."""
    return jnp.asarray(data)


def to_dlpack_for_write(data: jax.Array) -> Any:
    """As :func:`to_dlpack_for_read`: JAX buffers are immutable, a consumer cannot write into them."""
    return jnp.asarray(data)


def load_frombuffer(buf: bytes) -> Any:
    """``nd.load`` from the bytes of an MXNet ``.params``/NDArray file held in memory."""
    return serialization.load(bytes(buf))


def imdecode(str_img: bytes, clip_rect: tuple[int, int, int, int] = (0, 0, 0, 0), out: Any = None,
             index: int = 0, channels: int = 3, mean: Any = None) -> jax.Array:
    """Decode an encoded image (JPEG, PNG, ...) into an (H, W, channels) uint8 array (RGB), cropped to
    ``clip_rect`` (x0, y0, x1, y1) when it is not empty, minus ``mean`` (then float32) when given."""
    from .. import image as _image

    if out is not None:
        raise TypeError("nd.imdecode(..., out=...): jax arrays are immutable; use the returned array")
    img = onp.asarray(_image.imdecode(str_img, flag=0 if channels == 1 else 1))
    if img.ndim == 2:
        img = img[:, :, None]
    x0, y0, x1, y1 = (int(v) for v in clip_rect)
    if x1 > x0 and y1 > y0:
        img = img[y0:y1, x0:x1]
    arr = jnp.asarray(img)
    if mean is not None:
        arr = arr.astype(jnp.float32) - jnp.asarray(mean, jnp.float32)
    return arr
