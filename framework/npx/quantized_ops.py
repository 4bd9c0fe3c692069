"""MXNet 1.x's quantized operators (``contrib.quantized_*``) on int8/uint8 data with their (1,) float32
ranges, with the numerics of MXNet 1.9.1's CPU (oneDNN) kernels: integer products and sums accumulate
exactly in int32; the int32 results carry the range ``maxabs_a / 127 * maxabs_b / 127 * 2^31``;
rescaling multiplies by a float32 factor, rounds to nearest (ties to even) and saturates. Each returns
``(out, min, max)`` (``quantized_elemwise_mul`` with ``enable_float_output`` only ``out``).

>>> import jax.numpy as jnp
>>> rng = jnp.array([-1.0]), jnp.array([1.0])
>>> out, lo, hi = quantized_act(jnp.array([-5, 7], jnp.int8), *rng)
>>> out.tolist(), hi.tolist()
([0, 7], [1.0])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from .pool import pooling as _pooling
from .quantize import INT8_RANGE, INT32_RANGE, UINT8_RANGE, _out, _scalar, div, maxabs, saturate

__all__ = [
    "quantized_act",
    "quantized_flatten",
    "quantized_concat",
    "quantized_elemwise_add",
    "quantized_elemwise_mul",
    "quantized_embedding",
    "quantized_fully_connected",
    "quantized_conv",
    "quantized_pooling",
    "quantized_batch_norm",
]

_F32 = jnp.float32


def _range(x: jax.Array) -> float:
    return INT8_RANGE if x.dtype == jnp.int8 else UINT8_RANGE


def _product_range(min_a, max_a, min_b, max_b, bits_a: float = 127.0, bits_b: float = 127.0):
    """The real range of an int32 product of two quantized operands (MXNet's ``QuantizationRangeFor
    Multiplication``: one level of each, times 2^31)."""
    level = (
        maxabs(_scalar(min_a)[0], _scalar(max_a)[0])
        / _F32(bits_a)
        * (maxabs(_scalar(min_b)[0], _scalar(max_b)[0]) / _F32(bits_b))
    )
    top = level * _F32(2**31)
    return -top, top


def _quantized(op: str, *arrays: jax.Array) -> None:
    for a in arrays:
        if a.dtype not in (jnp.int8, jnp.uint8):
            raise TypeError(f"{op}: quantized data must be int8 or uint8, got {a.dtype}")


def quantized_act(
    data: jax.Array, min_data: jax.Array, max_data: jax.Array, act_type: str = "relu"
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """ReLU of quantized data (the only activation MXNet quantizes); the range passes through."""
    _quantized("quantized_act", data)
    if act_type != "relu":
        raise ValueError(f"quantized_act: act_type={act_type!r}; only 'relu' is quantized")
    return _out(jnp.maximum(data, jnp.zeros((), data.dtype)), _scalar(min_data)[0], _scalar(max_data)[0])


def quantized_flatten(
    data: jax.Array, min_data: jax.Array, max_data: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Flatten to (N, rest); the range passes through."""
    return _out(data.reshape(data.shape[0], -1), _scalar(min_data)[0], _scalar(max_data)[0])


def quantized_concat(
    *args: jax.Array, num_args: int | None = None, dim: int = 1
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Concatenate ``num_args`` quantized arrays (given first, then their ``min, max`` pairs) on ``dim``:
    each is rescaled to the widest range (``[min(mins, 0), max(maxs, 0)]``); uint8 only when all are."""
    n = num_args if num_args is not None else len(args) // 3
    if len(args) != 3 * n:
        raise ValueError(
            f"quantized_concat: {len(args)} inputs for num_args={n}: expected the {n} arrays, "
            "then a min and a max for each"
        )
    data = args[:n]
    _quantized("quantized_concat", *data)
    mins = [_scalar(args[n + 2 * i])[0] for i in range(n)]
    maxs = [_scalar(args[n + 2 * i + 1])[0] for i in range(n)]
    lo = jnp.minimum(jnp.min(jnp.stack(mins)), 0.0)
    hi = jnp.maximum(jnp.max(jnp.stack(maxs)), 0.0)
    kind = "uint8" if all(d.dtype == jnp.uint8 for d in data) else "int8"
    out_scale = div(_F32(INT8_RANGE if kind == "int8" else UINT8_RANGE), maxabs(lo, hi))
    parts = []
    for d, a, b in zip(data, mins, maxs, strict=True):
        scale = div(_F32(_range(d)), maxabs(a, b))
        same = scale == out_scale
        moved = saturate(d.astype(_F32) * div(out_scale, scale), kind)
        parts.append(jnp.where(same, d.astype(kind), moved))
    return _out(jnp.concatenate(parts, axis=dim), lo, hi)


def quantized_elemwise_add(
    lhs: jax.Array,
    rhs: jax.Array,
    lhs_min: jax.Array,
    lhs_max: jax.Array,
    rhs_min: jax.Array,
    rhs_max: jax.Array,
    min_calib_range: float | None = None,
    max_calib_range: float | None = None,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Sum of two quantized arrays: int32 over the range ``+-(maxabs_l + maxabs_r)``, or, calibrated,
    int8 (uint8 when both are) over the calibrated range."""
    _quantized("quantized_elemwise_add", lhs, rhs)
    a_abs = maxabs(_scalar(lhs_min)[0], _scalar(lhs_max)[0])
    b_abs = maxabs(_scalar(rhs_min)[0], _scalar(rhs_max)[0])
    a_scale, b_scale = div(_F32(_range(lhs)), a_abs), div(_F32(_range(rhs)), b_abs)
    calibrated = min_calib_range is not None and max_calib_range is not None
    if calibrated:
        kind = lhs.dtype.name if lhs.dtype == rhs.dtype else "int8"
        out_range = _F32(INT8_RANGE if kind == "int8" else UINT8_RANGE)
        lo, hi = _F32(min_calib_range), _F32(max_calib_range)
        out_scale = div(out_range, maxabs(lo, hi))
        sa, sb = div(out_scale, a_scale), div(out_scale, b_scale)
    else:
        kind, out_range = "int32", _F32(INT32_RANGE)
        hi = a_abs + b_abs
        lo = -hi
        a_rng = _F32(_range(lhs))
        b_rng = a_rng
        if lhs.dtype != rhs.dtype:
            b_rng = _F32(UINT8_RANGE) if lhs.dtype == jnp.int8 else _F32(INT8_RANGE)
        sa = div(a_abs * out_range, hi * a_rng)
        sb = div(b_abs * out_range, hi * b_rng)
    if lhs.dtype != rhs.dtype:  # oneDNN first brings the uint8 operand to int8
        if lhs.dtype == jnp.uint8:
            lhs, sa = saturate(lhs.astype(_F32) * sa, "int8"), _F32(1)
        else:
            rhs, sb = saturate(rhs.astype(_F32) * sb, "int8"), _F32(1)
    total = sa * lhs.astype(_F32) + sb * rhs.astype(_F32)
    return _out(saturate(total, kind), lo, hi)


def quantized_elemwise_mul(
    lhs: jax.Array,
    rhs: jax.Array,
    lhs_min: jax.Array,
    lhs_max: jax.Array,
    rhs_min: jax.Array,
    rhs_max: jax.Array,
    min_calib_range: float | None = None,
    max_calib_range: float | None = None,
    enable_float_output: bool = False,
) -> Any:
    """Product of two int8 arrays: int32 (range of the product of one level of each, times 2^31), int8
    over the calibrated range (truncated), or float32 with ``enable_float_output``."""
    if lhs.dtype != jnp.int8 or rhs.dtype != jnp.int8:
        raise TypeError(f"quantized_elemwise_mul: int8 operands only, got {lhs.dtype} and {rhs.dtype}")
    prod = lhs.astype(jnp.int32) * rhs.astype(jnp.int32)
    l_scale = _F32(INT8_RANGE) / maxabs(_scalar(lhs_min)[0], _scalar(lhs_max)[0])
    r_scale = _F32(INT8_RANGE) / maxabs(_scalar(rhs_min)[0], _scalar(rhs_max)[0])
    if enable_float_output:
        return prod.astype(_F32) * (_F32(1) / l_scale / r_scale)
    if min_calib_range is not None and max_calib_range is not None:
        lo, hi = _F32(min_calib_range), _F32(max_calib_range)
        scale = _F32(INT8_RANGE) / maxabs(lo, hi) / l_scale / r_scale
        return _out(jnp.trunc(prod.astype(_F32) * scale).astype(jnp.int8), lo, hi)
    lo, hi = _product_range(lhs_min, lhs_max, rhs_min, rhs_max)
    return _out(prod, lo, hi)


def quantized_embedding(
    data: jax.Array,
    weight: jax.Array,
    min_weight: jax.Array,
    max_weight: jax.Array,
    input_dim: int | None = None,
    output_dim: int | None = None,
    dtype: str = "float32",
    sparse_grad: bool = False,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Rows of an int8 embedding table (indices clipped to it); the weight's range passes through."""
    del input_dim, output_dim, dtype, sparse_grad
    idx = jnp.clip(data.astype(jnp.int32), 0, weight.shape[0] - 1)
    return _out(weight[idx], _scalar(min_weight)[0], _scalar(max_weight)[0])


def _bias_int32(bias: jax.Array, data_scale, weight_scale, min_bias, max_bias) -> jax.Array:
    rescale = (
        data_scale * weight_scale * maxabs(_scalar(min_bias)[0], _scalar(max_bias)[0]) / _F32(INT8_RANGE)
    )
    return jnp.trunc(bias.astype(_F32) * rescale).astype(jnp.int32)


def quantized_fully_connected(
    data: jax.Array,
    weight: jax.Array,
    *args: jax.Array,
    num_hidden: int | None = None,
    no_bias: bool = False,
    flatten: bool = True,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """int32 ``data @ weight.T (+ bias)``: the inputs after ``weight`` are ``bias`` (unless ``no_bias``),
    then ``min_data, max_data, min_weight, max_weight`` (and ``min_bias, max_bias``). The int8 bias is
    brought to the product's scale as MXNet does."""
    _quantized("quantized_fully_connected", data, weight)
    bias, rest = (None, args) if no_bias else (args[0], args[1:])
    if len(rest) != (4 if no_bias else 6):
        raise ValueError(
            f"quantized_fully_connected: {len(args)} inputs after weight; expected "
            f"{'4 ranges' if no_bias else 'bias and 6 ranges'}"
        )
    min_d, max_d, min_w, max_w = rest[:4]
    x = data.reshape(data.shape[0], -1) if flatten else data
    acc = jnp.matmul(x.astype(jnp.int32), weight.astype(jnp.int32).T)
    if bias is not None:
        d_scale = _F32(_range(data)) / maxabs(_scalar(min_d)[0], _scalar(max_d)[0])
        w_scale = _F32(INT8_RANGE) / maxabs(_scalar(min_w)[0], _scalar(max_w)[0])
        acc = acc + _bias_int32(bias, d_scale, w_scale, rest[4], rest[5])
    lo, hi = _product_range(min_d, max_d, min_w, max_w, 127.0, 127.0 if data.dtype == jnp.int8 else 255.0)
    return _out(acc, lo, hi)


def _tup(v: Any, n: int, default: int) -> tuple[int, ...]:
    if v is None or v == ():
        return (default,) * n
    if isinstance(v, int):
        return (v,) * n
    return tuple(int(x) for x in v)


def quantized_conv(
    data: jax.Array,
    weight: jax.Array,
    *args: jax.Array,
    kernel: Sequence[int] | None = None,
    stride: Sequence[int] = (),
    dilate: Sequence[int] = (),
    pad: Sequence[int] = (),
    num_filter: int | None = None,
    num_group: int = 1,
    workspace: int = 1024,
    no_bias: bool = False,
    cudnn_tune: Any = None,
    cudnn_off: bool = False,
    layout: str | None = None,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """int32 convolution of uint8 data with int8 weights (NCW/NCHW/NCDHW); inputs after ``weight`` as
    :func:`quantized_fully_connected`'s. The int8 bias is added as it is (MXNet's oneDNN kernel does
    not rescale it); the range is that of an int8 x int8 product."""
    del workspace, cudnn_tune, cudnn_off
    if data.dtype != jnp.uint8:
        raise TypeError(f"quantized_conv: data must be uint8 (MXNet's CPU kernel), got {data.dtype}")
    if layout not in (None, "NCW", "NCHW", "NCDHW"):
        raise ValueError(f"quantized_conv: layout={layout!r}; channel-first layouts only")
    bias, rest = (None, args) if no_bias else (args[0], args[1:])
    if len(rest) != (4 if no_bias else 6):
        raise ValueError(
            f"quantized_conv: {len(args)} inputs after weight; expected "
            f"{'4 ranges' if no_bias else 'bias and 6 ranges'}"
        )
    nd = data.ndim - 2
    spatial = "DHW"[-nd:] if nd <= 3 else None
    dims = lax.conv_dimension_numbers(
        data.shape, weight.shape, ("NC" + spatial, "OI" + spatial, "NC" + spatial)
    )
    p = _tup(pad, nd, 0)
    acc = lax.conv_general_dilated(
        data.astype(jnp.int32),
        weight.astype(jnp.int32),
        _tup(stride, nd, 1),
        [(x, x) for x in p],
        rhs_dilation=_tup(dilate, nd, 1),
        dimension_numbers=dims,
        feature_group_count=int(num_group),
        preferred_element_type=jnp.int32,
    )
    if bias is not None:
        acc = acc + bias.astype(jnp.int32).reshape((1, -1) + (1,) * nd)
    lo, hi = _product_range(rest[0], rest[1], rest[2], rest[3])
    return _out(acc, lo, hi)


def quantized_pooling(
    data: jax.Array, min_data: jax.Array, max_data: jax.Array, **kwargs: Any
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Max or average pooling of int8/uint8 data (``Pooling``'s arguments); averages round to nearest;
    the range passes through."""
    _quantized("quantized_pooling", data)
    out = _pooling(data.astype(_F32), **kwargs)
    return _out(saturate(out, data.dtype.name), _scalar(min_data)[0], _scalar(max_data)[0])


def quantized_batch_norm(
    data: jax.Array,
    gamma: jax.Array,
    beta: jax.Array,
    moving_mean: jax.Array,
    moving_var: jax.Array,
    min_data: jax.Array,
    max_data: jax.Array,
    eps: float = 1e-3,
    momentum: float = 0.9,
    fix_gamma: bool = True,
    use_global_stats: bool = False,
    output_mean_var: bool = False,
    axis: int = 1,
    cudnn_off: bool = False,
    min_calib_range: float | None = None,
    max_calib_range: float | None = None,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Inference batch norm of int8 (or uint8, first brought to int8) data into int8 over the
    calibrated range (required, as in MXNet)."""
    del momentum, fix_gamma, use_global_stats, output_mean_var, cudnn_off
    _quantized("quantized_batch_norm", data)
    if min_calib_range is None or max_calib_range is None:
        raise ValueError(
            "quantized_batch_norm: min_calib_range and max_calib_range are required "
            "(MXNet's quantized BatchNorm has no uncalibrated mode)"
        )
    x = data.astype(_F32)
    if data.dtype == jnp.uint8:
        x = saturate(x * _F32(INT8_RANGE / UINT8_RANGE), "int8").astype(_F32)
    abs_data = maxabs(_scalar(min_data)[0], _scalar(max_data)[0])
    lo, hi = _F32(min_calib_range), _F32(max_calib_range)
    abs_out = maxabs(lo, hi)
    invstd = _F32(1) / jnp.sqrt(moving_var.astype(_F32) + _F32(eps))
    w = gamma.astype(_F32) * invstd * abs_data / abs_out
    b = (
        (beta.astype(_F32) - moving_mean.astype(_F32) * gamma.astype(_F32) * invstd)
        * _F32(INT8_RANGE)
        / abs_out
    )
    ax = axis % data.ndim
    shape = [1] * data.ndim
    shape[ax] = -1
    y = w.reshape(shape) * (x / jnp.sqrt(_F32(1) + _F32(eps))) + b.reshape(shape)
    return _out(saturate(y, "int8"), lo, hi)
