"""``npx.convolution`` and ``npx.deconvolution`` for 1-3 spatial dimensions, MXNet semantics.

Layout NCW/NCHW/NCDHW (default) with weights (out, in/groups, k...); channel-last layouts
NWC/NHWC/NDHWC take weights (out, k..., in/groups), as MXNet does. Every convolution in the framework
goes through :func:`_conv_nd`, the one place a backend-specific fast path can be dispatched from.

>>> import jax.numpy as jnp
>>> from framework import npx
>>> x = jnp.ones((1, 2, 5, 5)); w = jnp.ones((3, 2, 3, 3))
>>> npx.convolution(x, w, kernel=(3, 3), num_filter=3, no_bias=True).shape
(1, 3, 3, 3)
>>> npx.deconvolution(x, jnp.ones((2, 3, 3, 3)), kernel=(3, 3), num_filter=3, stride=(2, 2)).shape
(1, 3, 11, 11)
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from . import fast_cpu
from ._utils import _check_ndim, _layout, _spatial
from .fast_cpu_depthwise import depthwise, supports_depthwise
from .fast_cpu_grouped import grouped, supports_grouped
from .fast_cpu_pointwise import pointwise, supports_pointwise

__all__ = ["convolution", "deconvolution"]

Shape = int | Sequence[int] | None


@functools.cache
def _dimension_numbers(nd: int, channel_last: bool) -> lax.ConvDimensionNumbers:
    sp = "DHW"[3 - nd:]
    spec = (f"N{sp}C", f"O{sp}I", f"N{sp}C") if channel_last else (f"NC{sp}", f"OI{sp}", f"NC{sp}")
    return lax.conv_dimension_numbers((1,) * (nd + 2), (1,) * (nd + 2), spec)


def _conv_nd(
    x: jax.Array,
    w: jax.Array,
    *,
    stride: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    dilation: tuple[int, ...],
    lhs_dilation: tuple[int, ...] | None = None,
    groups: int = 1,
    channel_last: bool = False,
) -> jax.Array:
    """The single convolution kernel every npx/gluon convolution calls (cross-correlation).

    ``x`` is (N, C, *spatial) (or channel-last), ``w`` is (O, C/groups, *k) (or (O, *k, C/groups)).
    A backend-specific fast path is dispatched from here and only here: on the CPU, depthwise
    convolutions as shifted multiply-adds, small 2-D ones as banded GEMMs, 2-D 1x1 ones, when
    differentiated, as batched matrix products, and other grouped ones as one convolution per group.
    """
    nd = x.ndim - 2
    transposed = lhs_dilation is not None and set(lhs_dilation) != {1}
    path = cpu_path(x.shape, w.shape, stride=stride, padding=padding, dilation=dilation, groups=groups,
                    channel_last=channel_last, transposed=transposed, dtype=x.dtype) \
        if fast_cpu.enabled() else None
    if path == "depthwise":
        return depthwise(x, w, stride=stride, padding=padding, dilation=dilation, channel_last=channel_last)
    if path == "banded":
        return fast_cpu.conv2d(x, w, None, stride, padding, dilation, groups)
    if path == "pointwise":
        return pointwise(x, w, tuple(stride))
    conv = {"window_strides": stride, "padding": padding, "lhs_dilation": lhs_dilation,
            "rhs_dilation": dilation, "dimension_numbers": _dimension_numbers(nd, channel_last)}
    if path == "grouped":
        return grouped(x, w, groups, **conv)
    return lax.conv_general_dilated(x, w, feature_group_count=groups, **conv)


def cpu_path(x_shape: Sequence[int], w_shape: Sequence[int], *, stride: Sequence[int],
             padding: Sequence[Sequence[int]], dilation: Sequence[int], groups: int, channel_last: bool,
             transposed: bool, dtype: Any) -> str | None:
    """The CPU kernel :func:`_conv_nd` runs a convolution with while ``fast_cpu`` is on: 'depthwise'
    (shifted multiply-adds), 'banded' (a banded GEMM), 'pointwise' (1x1, trained as batched matrix
    products), 'grouped' (one convolution per group) or None (XLA's own). ``transposed``: the input is
    dilated (``npx.deconvolution``). ``net.summary()`` reports the same choice.

    >>> cpu_path((16, 32, 56, 56), (64, 8, 3, 3), stride=(1, 1), padding=((1, 1), (1, 1)),
    ...          dilation=(1, 1), groups=4, channel_last=False, transposed=False, dtype="float32")
    'grouped'
    """
    if not transposed:
        if supports_depthwise(x_shape, w_shape, groups, padding, channel_last):
            return "depthwise"
        if (len(x_shape) == 4 and not channel_last
                and fast_cpu.supports_conv2d(x_shape, w_shape, stride, padding, dilation, groups, dtype)):
            return "banded"
        if supports_pointwise(x_shape, w_shape, stride, padding, groups, channel_last, dtype):
            return "pointwise"
    return "grouped" if supports_grouped(groups) else None


def _add_bias(out: jax.Array, bias: jax.Array, channel_last: bool) -> jax.Array:
    if channel_last:
        return out + bias
    return out + bias.reshape((-1,) + (1,) * (out.ndim - 2))


def _check_weight(op: str, weight: Any, expected: tuple[int, ...], what: str) -> None:
    if tuple(weight.shape) != expected:
        raise ValueError(
            f"{op}: weight has shape {tuple(weight.shape)} but {what} requires {expected}. "
            f"Make num_filter, num_group and kernel agree with the weight (or the data's channels)."
        )


def _check_bias(op: str, bias: Any, num_filter: int) -> None:
    if tuple(bias.shape) != (num_filter,):
        raise ValueError(f"{op}: bias has shape {bias.shape}, expected (num_filter,) = ({num_filter},)")


def convolution(
    data: jax.Array,
    weight: jax.Array,
    bias: jax.Array | None = None,
    kernel: Shape = None,
    stride: Shape = (),
    dilate: Shape = (),
    pad: Shape = (),
    num_filter: int = 1,
    num_group: int = 1,
    workspace: int = 1024,
    no_bias: bool = False,
    cudnn_tune: str | None = None,
    cudnn_off: bool = False,
    layout: str | None = None,
) -> jax.Array:
    """MXNet's Convolution: cross-correlation of ``data`` with ``weight`` plus a per-channel bias.

    Output size per spatial axis: ``floor((x + 2*pad - (dilate*(kernel-1)+1)) / stride) + 1``.
    ``kernel`` may be omitted (taken from the weight). ``workspace``/``cudnn_*`` are accepted and ignored.

    >>> import jax.numpy as jnp
    >>> out = convolution(jnp.ones((1, 1, 4, 4)), jnp.ones((1, 1, 2, 2)), jnp.zeros(1), kernel=(2, 2),
    ...                   num_filter=1, stride=(2, 2))
    >>> out.tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
    """
    op = "convolution"
    if kernel is None:
        if weight.ndim < 3:
            raise ValueError(f"{op}: weight of shape {tuple(weight.shape)} has no kernel dimensions")
        last = layout is not None and layout.endswith("C")
        kernel = tuple(weight.shape[1:-1]) if last else tuple(weight.shape[2:])
    nd = len(kernel) if isinstance(kernel, Sequence) else 1
    if nd not in (1, 2, 3):
        raise ValueError(f"{op}: kernel={kernel!r} must have 1, 2 or 3 values (1-3D convolution)")
    kernel = _spatial("kernel", kernel, nd, default=1, op=op)
    _check_ndim(data, nd, op)
    channel_last = _layout(layout, nd, op)
    stride = _spatial("stride", stride, nd, default=1, op=op)
    dilate = _spatial("dilate", dilate, nd, default=1, op=op)
    pad = _spatial("pad", pad, nd, default=0, op=op)
    if num_group < 1 or num_filter < 1:
        raise ValueError(f"{op}: num_filter={num_filter} and num_group={num_group} must be positive")
    channels = data.shape[-1] if channel_last else data.shape[1]
    if channels % num_group or num_filter % num_group:
        raise ValueError(
            f"{op}: num_group={num_group} must divide both the data's {channels} channels and "
            f"num_filter={num_filter}"
        )
    cg = channels // num_group
    expected = (num_filter, *kernel, cg) if channel_last else (num_filter, cg, *kernel)
    _check_weight(op, weight, expected, f"data with {channels} channels, num_filter={num_filter}, "
                  f"num_group={num_group}, kernel={kernel}")
    spatial = data.shape[1:-1] if channel_last else data.shape[2:]
    for i, size in enumerate(spatial):
        if size + 2 * pad[i] < dilate[i] * (kernel[i] - 1) + 1:
            raise ValueError(
                f"{op}: the dilated kernel ({dilate[i] * (kernel[i] - 1) + 1}) is larger than the padded "
                f"input ({size} + 2*{pad[i]}) on spatial axis {i}; use a smaller kernel or more padding"
            )
    out = _conv_nd(data, weight, stride=stride, padding=tuple((p, p) for p in pad), dilation=dilate,
                   groups=num_group, channel_last=channel_last)
    if bias is not None and not no_bias:
        _check_bias(op, bias, num_filter)
        out = _add_bias(out, bias, channel_last)
    return out


def deconvolution_output_shape(
    in_spatial: Sequence[int],
    kernel: Sequence[int],
    stride: Sequence[int],
    dilate: Sequence[int],
    pad: Sequence[int],
    adj: Sequence[int],
    target_shape: Sequence[int] = (),
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """(output spatial size, pad, adj) of an MXNet Deconvolution, ``target_shape`` overriding pad/adj.

    >>> deconvolution_output_shape((4,), (3,), (2,), (1,), (1,), (1,))
    ((8,), (1,), (1,))
    >>> deconvolution_output_shape((4,), (3,), (2,), (1,), (0,), (0,), target_shape=(8,))
    ((8,), (1,), (1,))
    """
    nd = len(in_spatial)
    if target_shape and any(t != 0 for t in target_shape):
        pads, adjs = [], []
        for i in range(nd):
            full = stride[i] * (in_spatial[i] - 1) + dilate[i] * (kernel[i] - 1) + 1
            if full < target_shape[i]:
                raise ValueError(
                    f"deconvolution: target_shape={tuple(target_shape)} is too big: spatial axis {i} can "
                    f"produce at most {full}"
                )
            total = full - target_shape[i]
            adjs.append(total % 2)
            pads.append((total + 1) // 2)
        pad, adj = tuple(pads), tuple(adjs)
    out = tuple(
        stride[i] * (in_spatial[i] - 1) + dilate[i] * (kernel[i] - 1) + 1 - 2 * pad[i] + adj[i]
        for i in range(nd)
    )
    return out, tuple(pad), tuple(adj)


def deconvolution(
    data: jax.Array,
    weight: jax.Array,
    bias: jax.Array | None = None,
    kernel: Shape = None,
    stride: Shape = (),
    dilate: Shape = (),
    pad: Shape = (),
    adj: Shape = (),
    target_shape: Shape = (),
    num_filter: int = 1,
    num_group: int = 1,
    workspace: int = 512,
    no_bias: bool = False,
    cudnn_tune: str | None = None,
    cudnn_off: bool = False,
    layout: str | None = None,
) -> jax.Array:
    """MXNet's Deconvolution (transposed convolution): the gradient of :func:`convolution` w.r.t. its data.

    ``weight`` is (in_channels, num_filter/num_group, *kernel), as in MXNet. Output size per axis:
    ``stride*(x-1) + dilate*(kernel-1) + 1 - 2*pad + adj``; a nonzero ``target_shape`` sets pad and adj.

    >>> import jax.numpy as jnp
    >>> deconvolution(jnp.ones((1, 1, 2)), jnp.ones((1, 1, 2)), kernel=(2,), stride=(2,),
    ...               num_filter=1).tolist()
    [[[1.0, 1.0, 1.0, 1.0]]]
    """
    op = "deconvolution"
    channel_last = layout is not None and layout.endswith("C")
    if kernel is None:
        if weight.ndim < 3:
            raise ValueError(f"{op}: weight of shape {tuple(weight.shape)} has no kernel dimensions")
        kernel = tuple(weight.shape[1:-1]) if channel_last else tuple(weight.shape[2:])
    nd = len(kernel) if isinstance(kernel, Sequence) else 1
    if nd not in (1, 2, 3):
        raise ValueError(f"{op}: kernel={kernel!r} must have 1, 2 or 3 values (1-3D deconvolution)")
    kernel = _spatial("kernel", kernel, nd, default=1, op=op)
    _check_ndim(data, nd, op)
    channel_last = _layout(layout, nd, op)
    stride = _spatial("stride", stride, nd, default=1, op=op)
    dilate = _spatial("dilate", dilate, nd, default=1, op=op)
    pad = _spatial("pad", pad, nd, default=0, op=op)
    adj = _spatial("adj", adj, nd, default=0, op=op)
    target = _spatial("target_shape", target_shape, nd, default=0, op=op)
    for i in range(nd):
        if adj[i] >= stride[i] and not any(target):
            raise ValueError(f"{op}: adj={adj} must be smaller than stride={stride} on every axis")
    if num_group < 1 or num_filter < 1:
        raise ValueError(f"{op}: num_filter={num_filter} and num_group={num_group} must be positive")
    channels = data.shape[-1] if channel_last else data.shape[1]
    if channels % num_group or num_filter % num_group:
        raise ValueError(
            f"{op}: num_group={num_group} must divide both the data's {channels} channels and "
            f"num_filter={num_filter}"
        )
    og = num_filter // num_group
    expected = (channels, *kernel, og) if channel_last else (channels, og, *kernel)
    _check_weight(op, weight, expected, f"data with {channels} channels, num_filter={num_filter}, "
                  f"num_group={num_group}, kernel={kernel}")
    spatial = data.shape[1:-1] if channel_last else data.shape[2:]
    out_spatial, pad, adj = deconvolution_output_shape(spatial, kernel, stride, dilate, pad, adj, target)
    if any(s <= 0 for s in out_spatial):
        raise ValueError(f"{op}: the output would have spatial shape {out_spatial}; reduce pad")
    # (in, out/g, k...) -> (out, in/g, k...) per group, flipped: a forward convolution over the
    # stride-dilated input computes the transpose.
    cg = channels // num_group
    if channel_last:
        w = jnp.moveaxis(weight, -1, 1)  # (in, out/g, k...)
    else:
        w = weight
    w = w.reshape((num_group, cg, og) + kernel)
    w = jnp.swapaxes(w, 1, 2).reshape((num_filter, cg) + kernel)
    w = jnp.flip(w, axis=tuple(range(2, 2 + nd)))
    if channel_last:
        w = jnp.moveaxis(w, 1, -1)
    edge = [dilate[i] * (kernel[i] - 1) - pad[i] for i in range(nd)]
    padding = tuple((edge[i], edge[i] + adj[i]) for i in range(nd))
    out = _conv_nd(data, w, stride=(1,) * nd, padding=padding, dilation=dilate, lhs_dilation=stride,
                   groups=num_group, channel_last=channel_last)
    if bias is not None and not no_bias:
        _check_bias(op, bias, num_filter)
        out = _add_bias(out, bias, channel_last)
    return out
