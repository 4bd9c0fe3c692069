"""Normalisation layers: BatchNorm (and BatchNormReLU), LayerNorm, InstanceNorm, GroupNorm.

BatchNorm in training mode normalises with the batch statistics and writes the new running statistics
with ``Parameter.set_data`` inside its forward: during a bound call the framework records that as a
state update, committed when MXNet 1.x commits it (at ``backward``); a forward pass alone leaves them
unchanged, as in MXNet 1.9.1.

>>> from framework import np
>>> from framework.gluon import nn
>>> bn = nn.BatchNorm()
>>> bn.initialize()
>>> bn(np.ones((2, 3, 4, 4))).shape
(2, 3, 4, 4)
>>> bn
BatchNorm(axis=1, eps=1e-05, momentum=0.9, fix_gamma=False, use_global_stats=False, in_channels=3)
"""

from __future__ import annotations

from typing import Any

import jax

from ...autograd import tape as _tape
from ...npx import activations as _act
from ...npx import normalization as _norm
from .. import binding as _binding
from ..block import HybridBlock
from ..parameter import Parameter

__all__ = ["BatchNorm", "BatchNormReLU", "LayerNorm", "InstanceNorm", "GroupNorm"]


def _kwargs_repr(kwargs: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in kwargs.items())


def _channel_param(name: str, scale_or_center: bool, init: Any, channels: int) -> Parameter:
    return Parameter(name, grad_req="write" if scale_or_center else "null", shape=(channels,), init=init,
                     allow_deferred_init=True, differentiable=scale_or_center)


class _BatchNorm(HybridBlock):
    _compiled_leaf = True
    _fuse_relu = False

    def __init__(self, axis: int = 1, momentum: float = 0.9, epsilon: float = 1e-5, center: bool = True,
                 scale: bool = True, use_global_stats: bool = False, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", running_mean_initializer: Any = "zeros",
                 running_variance_initializer: Any = "ones", in_channels: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"{type(self).__name__}: momentum={momentum} must be in [0, 1]")
        self._kwargs = {"axis": axis, "eps": epsilon, "momentum": momentum, "fix_gamma": not scale,
                        "use_global_stats": use_global_stats}
        self.gamma = _channel_param("gamma", scale, gamma_initializer, in_channels)
        self.beta = _channel_param("beta", center, beta_initializer, in_channels)
        self.running_mean = Parameter("running_mean", grad_req="null", shape=(in_channels,),
                                      init=running_mean_initializer, allow_deferred_init=True,
                                      differentiable=False)
        self.running_var = Parameter("running_var", grad_req="null", shape=(in_channels,),
                                     init=running_variance_initializer, allow_deferred_init=True,
                                     differentiable=False)

    def infer_shape(self, x: Any, *args: Any) -> None:
        axis = self._kwargs["axis"]
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"{type(self).__name__}: axis={axis} is out of range for input of shape "
                             f"{tuple(x.shape)}")
        for p in (self.gamma, self.beta, self.running_mean, self.running_var):
            p.shape = (x.shape[axis],)

    def cast(self, dtype: Any) -> None:
        import numpy as onp

        if onp.dtype(dtype).name == "float16":  # MXNet keeps BatchNorm in float32
            dtype = "float32"
        super().cast(dtype)

    def forward(self, x: jax.Array) -> jax.Array:
        k = self._kwargs
        training = _tape.is_training()
        running_mean, running_var = self.running_mean.data(), self.running_var.data()
        out, mean, var = _norm.batch_norm(
            x, self.gamma.data(), self.beta.data(), running_mean, running_var, eps=k["eps"],
            momentum=k["momentum"], fix_gamma=k["fix_gamma"], use_global_stats=k["use_global_stats"],
            output_mean_var=True, axis=k["axis"], training=training)
        bound = _binding.current()
        if training and not k["use_global_stats"] and bound is not None and bound.pure:
            self.running_mean.set_data(_norm.update_running_stat(running_mean, mean, k["momentum"]))
            self.running_var.set_data(_norm.update_running_stat(running_var, var, k["momentum"]))
        return _act.relu(out) if self._fuse_relu else out

    def _symbol_forward(self, F: Any, x: Any, gamma: Any, beta: Any, running_mean: Any,
                        running_var: Any) -> Any:
        out = F.BatchNorm(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)
        return F.Activation(out, act_type="relu", name="relu") if self._fuse_relu else out

    def __repr__(self) -> str:
        channels = self.gamma.shape[0]
        return f"{type(self).__name__}({_kwargs_repr(self._kwargs)}, in_channels={channels or None})"


class BatchNorm(_BatchNorm):
    """Batch normalisation (Ioffe & Szegedy, 2014) over every axis but ``axis`` (the channels).

    Training: batch mean and biased batch variance; running statistics updated as
    ``momentum * running + (1 - momentum) * batch``. Inference (or ``use_global_stats``): running
    statistics. ``scale=False`` fixes gamma to 1, ``center=False`` keeps beta at its initial 0.

    >>> from framework import autograd, np
    >>> bn = BatchNorm(in_channels=2)
    >>> bn.initialize()
    >>> with autograd.train_mode():
    ...     y = bn(np.array([[1.0, 2.0], [3.0, 6.0]]))
    >>> [[round(v, 3) for v in row] for row in y.tolist()]
    [[-1.0, -1.0], [1.0, 1.0]]
    """


class BatchNormReLU(_BatchNorm):
    """:class:`BatchNorm` followed by ReLU (MXNet's fused layer).

    >>> from framework import np
    >>> layer = BatchNormReLU(in_channels=1)
    >>> layer.initialize()
    >>> layer(np.array([[-1.0], [1.0]])).tolist()[0][0] == 0.0
    True
    """

    _fuse_relu = True


class _AxisNorm(HybridBlock):
    """Shared state of LayerNorm and InstanceNorm: per-channel gamma/beta along ``axis`` (private)."""

    _compiled_leaf = True

    def __init__(self, axis: int, epsilon: float, center: bool, scale: bool, beta_initializer: Any,
                 gamma_initializer: Any, in_channels: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis, self._epsilon = axis, epsilon
        self.gamma = _channel_param("gamma", scale, gamma_initializer, in_channels)
        self.beta = _channel_param("beta", center, beta_initializer, in_channels)

    def infer_shape(self, x: Any, *args: Any) -> None:
        self.gamma.shape = self.beta.shape = (x.shape[self._axis],)


class LayerNorm(_AxisNorm):
    """Layer normalisation along ``axis`` (default the last), with per-feature gamma and beta.

    >>> from framework import np
    >>> layer = LayerNorm()
    >>> layer.initialize()
    >>> [round(v, 3) for v in layer(np.array([[1.0, 3.0]])).ravel().tolist()]
    [-1.0, 1.0]
    """

    def __init__(self, axis: int = -1, epsilon: float = 1e-5, center: bool = True, scale: bool = True,
                 beta_initializer: Any = "zeros", gamma_initializer: Any = "ones", in_channels: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer, in_channels,
                         **kwargs)

    def forward(self, x: jax.Array) -> jax.Array:
        return _norm.layer_norm(x, self.gamma.data(), self.beta.data(), axis=self._axis, eps=self._epsilon)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({_kwargs_repr(self._kwargs)}, in_channels={self.gamma.shape[0]})"


class InstanceNorm(_AxisNorm):
    """Instance normalisation: per sample and channel (``axis``), over the remaining axes.

    >>> from framework import np
    >>> layer = InstanceNorm()
    >>> layer.initialize()
    >>> [round(v, 3) for v in layer(np.array([[[1.1, 2.2]], [[3.3, 4.4]]])).ravel().tolist()]
    [-1.0, 1.0, -1.0, 1.0]
    """

    def __init__(self, axis: int = 1, epsilon: float = 1e-5, center: bool = True, scale: bool = False,
                 beta_initializer: Any = "zeros", gamma_initializer: Any = "ones", in_channels: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer, in_channels,
                         **kwargs)

    def forward(self, x: jax.Array) -> jax.Array:
        if self._axis in (1, 1 - x.ndim):
            return _norm.instance_norm(x, self.gamma.data(), self.beta.data(), eps=self._epsilon)
        xs = x.swapaxes(1, self._axis)
        return _norm.instance_norm(xs, self.gamma.data(), self.beta.data(), eps=self._epsilon).swapaxes(
            1, self._axis)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({_kwargs_repr(self._kwargs)}, in_channels={self.gamma.shape[0]})"


class GroupNorm(HybridBlock):
    """Group normalisation of (N, C, ...) data in ``num_groups`` channel groups; gamma and beta are
    per channel (MXNet 2.0).

    >>> from framework import np
    >>> layer = GroupNorm()
    >>> layer.initialize()
    >>> round(float(layer(np.arange(24.0).reshape(2, 3, 4))[0, 0, 0]), 4)
    -1.5933
    """

    _compiled_leaf = True

    def __init__(self, num_groups: int = 1, epsilon: float = 1e-5, center: bool = True, scale: bool = True,
                 beta_initializer: Any = "zeros", gamma_initializer: Any = "ones", in_channels: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if num_groups < 1:
            raise ValueError(f"GroupNorm: num_groups={num_groups} must be a positive int")
        self._kwargs = {"eps": epsilon, "num_groups": num_groups, "center": center, "scale": scale}
        self._num_groups, self._epsilon = num_groups, epsilon
        self.gamma = _channel_param("gamma", scale, gamma_initializer, in_channels)
        self.beta = _channel_param("beta", center, beta_initializer, in_channels)

    def infer_shape(self, x: Any, *args: Any) -> None:
        if x.ndim < 2 or x.shape[1] % self._num_groups:
            raise ValueError(
                f"GroupNorm: num_groups={self._num_groups} must divide the channels (axis 1) of the input "
                f"of shape {tuple(x.shape)}"
            )
        self.gamma.shape = self.beta.shape = (x.shape[1],)

    def forward(self, x: jax.Array) -> jax.Array:
        return _norm.group_norm(x, self.gamma.data(), self.beta.data(), num_groups=self._num_groups,
                                eps=self._epsilon)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({_kwargs_repr(self._kwargs)})"
