"""MXNet 1.9.1's fused int8 convolution of its oneDNN (MKL-DNN) backend: the operator that graphs
quantized for the CPU hold (``_sg_mkldnn_conv`` with ``quantized=true``; GluonCV's ``*_int8`` models),
with the numerics of MXNet's kernel, so that an int8 graph gives the integers MXNet gives:

1. a BatchNorm folded into the float weights and bias (its scale ``gamma / sqrt(var + eps)`` computed in
   double and rounded to float, as MXNet's C++ does);
2. the weights quantized per output channel to int8 (scale ``127.5 / max|w_c|``, lowered where the
   int32 bias would otherwise overflow), the bias to int32 at the data's scale times the weight's;
3. the int8 x int8 (or uint8) convolution summed exactly in int32;
4. the sum converted to float, plus the bias, times the requantization scale of its channel, the
   activation, the residual (``+ sum_scale * residual``, one rounding as oneDNN's fused multiply-add),
   the activation after the residual, rounded to nearest (ties to even) and saturated to uint8 (after
   a ReLU) or int8; with a residual, to the residual's type, as MXNet writes over it in place.

Step 1 and 2 run on the host (``jax.pure_callback``, NumPy's float32 and float64 arithmetic are MXNet's
C++ float and double), once per call, as MXNet does them once per set of weights; nothing here is
differentiable (MXNet's int8 inference is not).

>>> import jax.numpy as jnp
>>> x = jnp.full((1, 1, 3, 3), 100, jnp.uint8)
>>> w = jnp.ones((2, 1, 1, 1), jnp.float32)
>>> q, lo, hi = fused_quantized_conv(x, w, min_data=0.0, max_data=2.0, kernel=(1, 1), num_filter=2,
...                                  min_calib_range=0.0, max_calib_range=4.0, with_act=True)
>>> q.dtype.name, int(q[0, 0, 0, 0]), float(hi[0])
('uint8', 50, 4.0)
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as onp
from jax import lax

from .quantize import INT8_RANGE, UINT8_RANGE, saturate

__all__ = ["fused_quantized_conv", "FoldedBatchNorm"]

_F32 = onp.float32
_INT32_MAX = _F32(2147483647)  # as float: 2^31


class FoldedBatchNorm(NamedTuple):
    """The BatchNorm a fused convolution folds in: its four arrays and two attributes."""

    gamma: jax.Array
    beta: jax.Array
    mean: jax.Array
    var: jax.Array
    eps: float = 1e-3
    fix_gamma: bool = True


def _scale(kind: str, lo: Any, hi: Any) -> onp.float32:
    """MXNet's GetQuantizeScale: the integer range over max(|lo|, |hi|) (2^31 when both are 0)."""
    real = max(abs(_F32(lo)), abs(_F32(hi)))
    return _F32(INT8_RANGE if kind == "int8" else UINT8_RANGE) / real if real else _INT32_MAX


@functools.cache
def _vnni() -> bool:
    """Whether this CPU has VNNI (oneDNN's int8 kernels then keep int8 weights whole for int8 data;
    without it they halve them, as MXNet's results on such a CPU show). Read from Linux's cpuinfo."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            flags = f.read(1 << 20)
    except OSError:
        return False
    return "avx512_vnni" in flags or "avx_vnni" in flags


class _Static(NamedTuple):
    """What the host preparation needs besides arrays."""

    has_bias: bool
    bn: tuple[float, bool] | None  # eps, fix_gamma
    data_kind: str
    out_kind: str
    sum_kind: str | None
    calib: tuple[float, float]
    weight_adjust: onp.float32  # oneDNN's halving of the weights for int8 data without VNNI


def _prepare(static: _Static, weight, bias, bn, data_range, sum_range):
    """Host side: fold, scale and quantize the weights. Returns int8 weights, int32 bias (zeros when
    there is none), per-channel requantization scales and the residual's scale (float32)."""
    w = onp.asarray(weight, _F32)
    channels = w.shape[0]
    b = None if bias is None else onp.asarray(bias, _F32)
    if static.bn is not None:
        eps, fix_gamma = static.bn
        gamma, beta, mean, var = (onp.asarray(v, _F32) for v in bn)
        g = onp.ones_like(gamma, dtype=onp.float64) if fix_gamma else gamma.astype(onp.float64)
        alpha = (g / onp.sqrt(var.astype(onp.float64) + eps)).astype(_F32)
        b = beta - alpha * mean if b is None else beta + alpha * (b - mean)
        w = w * alpha.reshape((-1,) + (1,) * (w.ndim - 1))
    data_scale = _scale(static.data_kind, *onp.asarray(data_range, _F32).reshape(-1)[:2])
    flat = w.reshape(channels, -1)
    weight_scales = onp.empty(channels, _F32)
    for c in range(channels):
        s = _scale("int8", flat[c].min(), flat[c].max())
        if b is not None and b[c] != 0:
            limit = (_INT32_MAX if b[c] > 0 else -_INT32_MAX) / _F32(2) / b[c] / data_scale
            s = min(s, limit)
        weight_scales[c] = s
    out_scale = _scale(static.out_kind, *static.calib)
    requant = (out_scale / data_scale / weight_scales).astype(_F32)
    adjusted = weight_scales * static.weight_adjust
    q_w = onp.clip(onp.rint(flat * adjusted[:, None]), -128, 127).astype(onp.int8).reshape(w.shape)
    if b is None:
        q_b = onp.zeros(channels, onp.int32)
    else:
        scaled = onp.rint(b * (weight_scales * data_scale))
        q_b = onp.clip(scaled, -(2.0**31), 2.0**31 - 128).astype(onp.int64).astype(onp.int32)
    sum_scale = _F32(1)
    if static.sum_kind is not None:
        sum_scale = out_scale / _scale(static.sum_kind, *onp.asarray(sum_range, _F32).reshape(-1)[:2])
    return q_w, q_b, requant, onp.asarray([sum_scale], _F32)


def _exact_conv(x: jax.Array, w: jax.Array, conv: dict[str, Any]) -> jax.Array:
    """The int32 convolution of two int8/uint8 operands, from four float32 convolutions of their 4-bit
    halves: every partial sum is an integer below 2^24, so each is exact (XLA's CPU integer
    convolution is about 60x slower)."""
    def halves(v):
        v = v.astype(jnp.int32)
        hi = jnp.floor_divide(v, 16)
        return hi.astype(jnp.float32), (v - 16 * hi).astype(jnp.float32)

    (xh, xl), (wh, wl) = halves(x), halves(w)

    def run(a, b):
        return lax.conv_general_dilated(a, b, **conv, precision=lax.Precision.HIGHEST).astype(jnp.int32)

    return 256 * run(xh, wh) + 16 * (run(xh, wl) + run(xl, wh)) + run(xl, wl)


def _fma(a: jax.Array, b: jax.Array, c: jax.Array) -> jax.Array:
    """``a * b + c`` rounded once (oneDNN's vfmadd): the product split exactly (Dekker), then summed
    with its error carried."""
    def split(v):
        t = v * jnp.float32(4097.0)
        hi = t - (t - v)
        return hi, v - hi

    p = a * b
    (ah, al), (bh, bl) = split(a), split(b)
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bv = s - p
    return s + (((p - (s - bv)) + (c - bv)) + err)


def fused_quantized_conv(
    data: jax.Array,
    weight: jax.Array,
    bias: jax.Array | None = None,
    bn: FoldedBatchNorm | None = None,
    residual: jax.Array | None = None,
    *,
    min_data: Any,
    max_data: Any,
    min_residual: Any = 0.0,
    max_residual: Any = 0.0,
    kernel: Sequence[int],
    stride: Sequence[int] = (),
    dilate: Sequence[int] = (),
    pad: Sequence[int] = (),
    num_filter: int,
    num_group: int = 1,
    min_calib_range: float,
    max_calib_range: float,
    with_act: bool = False,
    with_postsum_act: bool = False,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """MXNet 1.9.1's calibrated ``_sg_mkldnn_conv`` (see the module docstring): int8/uint8 ``data`` with
    its range, float32 weights (and bias and BatchNorm), an optional int8/uint8 ``residual`` with its
    range; returns the int8/uint8 output and its (calibrated) range. Activations are ReLU (the only one
    MXNet's quantized graphs fuse)."""
    if data.dtype not in (jnp.int8, jnp.uint8):
        raise TypeError(f"fused_quantized_conv: data must be int8 or uint8, got {data.dtype}")
    nd = len(kernel)
    if data.ndim != nd + 2 or weight.ndim != nd + 2:
        raise ValueError(f"fused_quantized_conv: data {data.shape} and weight {weight.shape} do not fit "
                         f"a {nd}-d kernel {tuple(kernel)}")
    if weight.shape[0] != num_filter:
        raise ValueError(f"fused_quantized_conv: weight {weight.shape} has {weight.shape[0]} filters, "
                         f"num_filter={num_filter}")
    relu_out = with_postsum_act if residual is not None else with_act
    depthwise = num_group > 1 and weight.shape[1] == 1 and num_group == num_filter
    adjust = _F32(0.5) if data.dtype == jnp.int8 and not depthwise and not _vnni() else _F32(1)
    static = _Static(
        has_bias=bias is not None or bn is not None,
        bn=None if bn is None else (float(bn.eps), bool(bn.fix_gamma)),
        data_kind=data.dtype.name,
        out_kind="uint8" if relu_out else "int8",
        sum_kind=None if residual is None else residual.dtype.name,
        calib=(float(min_calib_range), float(max_calib_range)),
        weight_adjust=adjust,
    )
    channels = int(weight.shape[0])
    shapes = (
        jax.ShapeDtypeStruct(weight.shape, jnp.int8),
        jax.ShapeDtypeStruct((channels,), jnp.int32),
        jax.ShapeDtypeStruct((channels,), jnp.float32),
        jax.ShapeDtypeStruct((1,), jnp.float32),
    )
    f32 = jnp.float32
    data_range = jnp.stack([jnp.reshape(jnp.asarray(v, f32), (-1,))[0] for v in (min_data, max_data)])
    sum_range = jnp.stack([jnp.reshape(jnp.asarray(v, f32), (-1,))[0] for v in (min_residual, max_residual)])
    bn_arrays = None if bn is None else tuple(jnp.asarray(v, f32) for v in bn[:4])
    q_w, q_b, requant, sum_scale = jax.pure_callback(
        lambda *a: _prepare(static, *a), shapes, weight, bias, bn_arrays, data_range, sum_range)

    def tup(v, default):
        v = tuple(int(i) for i in v) if v else ()
        return v if len(v) == nd else (default,) * nd

    spatial = "DHW"[-nd:]
    conv = dict(
        window_strides=tup(stride, 1),
        padding=[(p, p) for p in tup(pad, 0)],
        rhs_dilation=tup(dilate, 1),
        dimension_numbers=lax.conv_dimension_numbers(
            data.shape, weight.shape, ("NC" + spatial, "OI" + spatial, "NC" + spatial)),
        feature_group_count=int(num_group),
    )
    acc = _exact_conv(data, q_w, conv)
    per_channel = (1, -1) + (1,) * nd
    out = acc.astype(f32)
    if static.has_bias:
        out = out + q_b.astype(f32).reshape(per_channel) * adjust
    out = out * (requant / adjust).reshape(per_channel)
    if with_act:
        out = jnp.maximum(out, 0)
    if residual is not None:
        out = _fma(residual.astype(f32), sum_scale[0], out)
        if with_postsum_act:
            out = jnp.maximum(out, 0)
    lo, hi = jnp.full((1,), min_calib_range, f32), jnp.full((1,), max_calib_range, f32)
    if residual is None:
        return saturate(out, static.out_kind), lo, hi
    # MXNet writes the result over the residual, in place: the kernel saturates to the residual's type
    # and the bytes are read as the output's (int8 -> uint8 after the ReLU changes no value).
    q = saturate(out, static.sum_kind)
    return lax.bitcast_convert_type(q, jnp.dtype(static.out_kind)), lo, hi
