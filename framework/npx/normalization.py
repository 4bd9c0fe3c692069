"""Normalisation operators: ``batch_norm``, ``layer_norm``, ``group_norm``, ``instance_norm``.

All variances are biased (divide by the count), as in MXNet. :func:`batch_norm` is pure: with
``output_mean_var=True`` it also returns the statistics it used (the batch mean and biased batch
variance in training), so a layer can update its running statistics itself
(``running = momentum * running + (1 - momentum) * batch``, see :func:`update_running_stat`).

>>> import jax.numpy as jnp
>>> from framework import npx
>>> x = jnp.arange(8.0).reshape(2, 2, 2)
>>> y, mean, var = npx.batch_norm(x, jnp.ones(2), jnp.zeros(2), jnp.zeros(2), jnp.ones(2),
...                               output_mean_var=True, training=True)
>>> mean.tolist(), var.tolist()
([2.5, 4.5], [4.25, 4.25])
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ._utils import _is_training

__all__ = ["batch_norm", "layer_norm", "group_norm", "instance_norm", "update_running_stat"]


def _stat_dtype(x: jax.Array) -> Any:
    return jnp.promote_types(x.dtype, jnp.float32)


def _moments(x: jax.Array, axes: tuple[int, ...]) -> tuple[jax.Array, jax.Array]:
    xs = x.astype(_stat_dtype(x))
    mean = jnp.mean(xs, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(xs - mean), axis=axes, keepdims=True)
    return mean, var


def _param(op: str, name: str, value: Any, size: int, what: str) -> jax.Array:
    value = jnp.asarray(value)
    if value.shape != (size,):
        raise ValueError(f"{op}: {name} has shape {tuple(value.shape)}, expected ({size},) = {what}")
    return value


def _axis(op: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"{op}: axis={axis} is out of range for {ndim}-D data")
    return axis % ndim


def batch_norm(
    x: jax.Array,
    gamma: jax.Array,
    beta: jax.Array,
    running_mean: jax.Array,
    running_var: jax.Array,
    eps: float = 1e-3,
    momentum: float = 0.9,
    fix_gamma: bool = True,
    use_global_stats: bool = False,
    output_mean_var: bool = False,
    axis: int = 1,
    cudnn_off: bool = False,
    min_calib_range: float | None = None,
    max_calib_range: float | None = None,
    *,
    training: bool | None = None,
) -> jax.Array | tuple[jax.Array, jax.Array, jax.Array]:
    """MXNet's BatchNorm over every axis but ``axis``.

    Training (``training=None`` follows ``autograd.is_training()``) and not ``use_global_stats``:
    normalise with the batch mean and biased batch variance; otherwise with the running statistics.
    ``fix_gamma=True`` uses a scale of 1 (gamma then gets a zero gradient). ``output_mean_var=True``
    returns ``(out, mean, var)``: the statistics used, gradient-blocked; ``var`` is the (biased)
    variance. The running arrays are never modified (``momentum`` is for the caller's update).

    >>> import jax.numpy as jnp
    >>> out = batch_norm(jnp.array([[1.0], [3.0]]), jnp.ones(1), jnp.zeros(1), jnp.zeros(1), jnp.ones(1),
    ...                  eps=0.0, training=True)
    >>> out.ravel().tolist()
    [-1.0, 1.0]
    """
    op = "batch_norm"
    if x.ndim < 1:
        raise ValueError(f"{op}: data must have at least one dimension")
    ax = _axis(op, axis, x.ndim)
    c = x.shape[ax]
    what = f"the {c} channels on axis {axis} of data {tuple(x.shape)}"
    gamma = _param(op, "gamma", gamma, c, what)
    beta = _param(op, "beta", beta, c, what)
    running_mean = _param(op, "running_mean", running_mean, c, what)
    running_var = _param(op, "running_var", running_var, c, what)
    red = tuple(i for i in range(x.ndim) if i != ax)
    bshape = tuple(c if i == ax else 1 for i in range(x.ndim))
    sdt = _stat_dtype(x)
    if _is_training(training) and not use_global_stats:
        mean, var = _moments(x, red)
        mean, var = mean.reshape(c), var.reshape(c)
    else:
        mean, var = running_mean.astype(sdt), running_var.astype(sdt)
    scale = lax.rsqrt(var + eps)
    if not fix_gamma:
        scale = scale * gamma.astype(sdt)
    shift = beta.astype(sdt) - mean * scale
    out = (x.astype(sdt) * scale.reshape(bshape) + shift.reshape(bshape)).astype(x.dtype)
    if output_mean_var:
        return out, lax.stop_gradient(mean), lax.stop_gradient(var)
    return out


def update_running_stat(running: jax.Array, batch: jax.Array, momentum: float = 0.9) -> jax.Array:
    """MXNet's running-statistic update: ``momentum * running + (1 - momentum) * batch``.

    >>> import jax.numpy as jnp
    >>> update_running_stat(jnp.zeros(1), jnp.ones(1), 0.9).tolist()
    [0.10000000149011612]
    """
    batch = lax.stop_gradient(batch).astype(running.dtype)
    return momentum * running + (1.0 - momentum) * batch


def layer_norm(
    data: jax.Array,
    gamma: jax.Array,
    beta: jax.Array,
    axis: int = -1,
    eps: float = 1e-5,
    output_mean_var: bool = False,
) -> jax.Array | tuple[jax.Array, jax.Array, jax.Array]:
    """Normalise along ``axis`` (per sample), then scale by ``gamma`` and shift by ``beta`` (both (C,)).

    ``output_mean_var=True`` also returns the mean and the standard deviation ``sqrt(var + eps)``.

    >>> import jax.numpy as jnp
    >>> [round(v, 3) for v in layer_norm(jnp.array([[1.0, 3.0]]), jnp.ones(2), jnp.zeros(2)).ravel().tolist()]
    [-1.0, 1.0]
    """
    op = "layer_norm"
    ax = _axis(op, axis, data.ndim)
    c = data.shape[ax]
    what = f"the size of axis {axis} of data {tuple(data.shape)}"
    gamma = _param(op, "gamma", gamma, c, what)
    beta = _param(op, "beta", beta, c, what)
    mean, var = _moments(data, (ax,))
    std = jnp.sqrt(var + eps)
    bshape = tuple(c if i == ax else 1 for i in range(data.ndim))
    out = (data - mean) / std * gamma.reshape(bshape) + beta.reshape(bshape)
    out = out.astype(data.dtype)
    if output_mean_var:
        return out, jnp.squeeze(mean, ax), jnp.squeeze(std, ax)
    return out


def group_norm(
    data: jax.Array,
    gamma: jax.Array,
    beta: jax.Array,
    num_groups: int = 1,
    eps: float = 1e-5,
    output_mean_var: bool = False,
) -> jax.Array | tuple[jax.Array, jax.Array, jax.Array]:
    """Group normalisation of (N, C, ...) data: statistics over each group of C/num_groups channels
    and all spatial positions. ``gamma``/``beta`` are per channel (C,) (MXNet 2.0) or per group
    (num_groups,) (MXNet 1.x).

    >>> import jax.numpy as jnp
    >>> x = jnp.arange(24.0).reshape(2, 3, 4)
    >>> round(float(group_norm(x, jnp.ones(1), jnp.zeros(1))[0, 0, 0]), 4)
    -1.5933
    """
    op = "group_norm"
    if data.ndim < 2:
        raise ValueError(f"{op}: data must be (N, C, ...), got shape {tuple(data.shape)}")
    n, c = data.shape[:2]
    if num_groups < 1 or c % num_groups:
        raise ValueError(f"{op}: num_groups={num_groups} must divide the {c} channels of data {data.shape}")
    g = num_groups
    per_group = jnp.asarray(gamma).shape == (g,) and jnp.asarray(beta).shape == (g,)
    if not per_group:
        what = f"the {c} channels of data {tuple(data.shape)} (or ({g},), one per group)"
        gamma = _param(op, "gamma", gamma, c, what)
        beta = _param(op, "beta", beta, c, what)
    xg = data.reshape((n, g, c // g) + data.shape[2:])
    mean, var = _moments(xg, tuple(range(2, xg.ndim)))
    std = jnp.sqrt(var + eps)
    normed = (xg - mean) / std
    if per_group:
        bshape = (1, g) + (1,) * (xg.ndim - 2)
        out = (normed * gamma.reshape(bshape) + beta.reshape(bshape)).reshape(data.shape)
    else:
        bshape = (1, c) + (1,) * (data.ndim - 2)
        out = normed.reshape(data.shape) * gamma.reshape(bshape) + beta.reshape(bshape)
    out = out.astype(data.dtype)
    if output_mean_var:
        return out, mean.reshape(n, g), std.reshape(n, g)
    return out


def instance_norm(data: jax.Array, gamma: jax.Array, beta: jax.Array, eps: float = 1e-3) -> jax.Array:
    """Instance normalisation of (N, C, ...) data: statistics per sample and channel over the spatial
    axes; ``gamma``/``beta`` are (C,).

    >>> import jax.numpy as jnp
    >>> out = instance_norm(jnp.array([[[1.1, 2.2]], [[3.3, 4.4]]]), jnp.ones(1), jnp.zeros(1), eps=1e-5)
    >>> [round(v, 3) for v in out.ravel().tolist()]
    [-1.0, 1.0, -1.0, 1.0]
    """
    op = "instance_norm"
    if data.ndim < 3:
        raise ValueError(f"{op}: data must be (N, C, spatial...) with at least 3 dims, got {data.shape}")
    c = data.shape[1]
    what = f"the {c} channels of data {tuple(data.shape)}"
    gamma = _param(op, "gamma", gamma, c, what)
    beta = _param(op, "beta", beta, c, what)
    mean, var = _moments(data, tuple(range(2, data.ndim)))
    bshape = (1, c) + (1,) * (data.ndim - 2)
    out = (data - mean) * lax.rsqrt(var + eps) * gamma.reshape(bshape) + beta.reshape(bshape)
    return out.astype(data.dtype)
