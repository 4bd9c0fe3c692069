"""MXNet 1.x's int8/uint8 quantization operators (``contrib.quantize``, ``quantize_v2``, ``quantize_asym``,
``dequantize``, ``requantize``, ``calibrate_entropy``) with the numerics of MXNet 1.9.1's CPU build
(oneDNN): a scale maps the float range onto the integer one, values are multiplied by it, rounded to the
nearest integer (ties to even) and saturated. The ranges that travel with quantized data are float32
(1,) arrays; ``quantize``/``dequantize`` use 127 and 255 as the integer ranges, ``quantize_v2`` and
``requantize`` MXNet's 127.5 and 255.5. They simulate MXNet's integer inference; nothing here is
differentiable (MXNet's are not either).

>>> import jax.numpy as jnp
>>> q, lo, hi = quantize_v2(jnp.array([-1.0, 0.25, 2.0]))
>>> q.tolist(), lo.tolist(), hi.tolist()
([-64, 16, 127], [-2.0], [2.0])
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp
from jax import lax

__all__ = [
    "quantize",
    "quantize_v2",
    "quantize_asym",
    "dequantize",
    "requantize",
    "calibrate_entropy",
    "INT8_RANGE",
    "UINT8_RANGE",
    "INT32_RANGE",
    "maxabs",
    "saturate",
    "div",
]

#: MXNet's quantized ranges (``quantization_utils.h``): 127.5 / 255.5 / 2^31 - 1.
INT8_RANGE = 127.5
UINT8_RANGE = 255.5
INT32_RANGE = float(0x7FFFFFFF)
_F32 = jnp.float32
_LIMITS = {"int8": (-128, 127), "uint8": (0, 255), "int32": (-(2**31), 2**31 - 1)}


def div(a: Any, b: Any) -> jax.Array:
    """``a / b`` in float32 as MXNet's C++ divides: XLA rewrites a division by a constant into a product
    with its reciprocal, off by an ulp, which would move MXNet's exact ties (a rescale by exactly 0.5);
    the barrier keeps the divisor from becoming a constant."""
    return jnp.asarray(a, _F32) / lax.optimization_barrier(jnp.asarray(b, _F32))


def maxabs(a: Any, b: Any) -> jax.Array:
    return jnp.maximum(jnp.abs(jnp.asarray(a, _F32)), jnp.abs(jnp.asarray(b, _F32)))


def saturate(x: jax.Array, dtype: str) -> jax.Array:
    """Round to the nearest integer (ties to even) and saturate to ``dtype``."""
    lo, hi = _LIMITS[dtype]
    r = jnp.round(x)
    if dtype == "int32":
        r = jnp.clip(r, _F32(lo), _F32(2**31 - 128))  # the largest float32 below 2^31
    return jnp.clip(r, lo, hi).astype(dtype)


def _scalar(v: Any) -> jax.Array:
    return jnp.reshape(jnp.asarray(v, _F32), (-1,))[:1]


def _out(q: jax.Array, lo: Any, hi: Any) -> tuple[jax.Array, jax.Array, jax.Array]:
    return q, jnp.reshape(jnp.asarray(lo, _F32), (1,)), jnp.reshape(jnp.asarray(hi, _F32), (1,))


def _check_type(op: str, out_type: str, allowed: tuple[str, ...]) -> None:
    if out_type not in allowed:
        raise ValueError(f"{op}: out_type={out_type!r} is not one of {allowed}")


def quantize(
    data: jax.Array, min_range: jax.Array, max_range: jax.Array, out_type: str = "uint8"
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``contrib.quantize``: ``data * 127 / maxabs(range)`` as int8 (range reported as
    ``+-maxabs``), or ``data * 255 / maxabs(range)`` as uint8 (range reported as given)."""
    _check_type("quantize", out_type, ("int8", "uint8"))
    lo, hi = _scalar(min_range), _scalar(max_range)
    real = maxabs(lo, hi)
    scale = _F32(127.0 if out_type == "int8" else 255.0) / real
    q = saturate(jnp.asarray(data, _F32) * scale, out_type)
    return _out(q, -real, real) if out_type == "int8" else _out(q, lo, hi)


def _auto_type(out_type: str, min_calib: float | None, max_calib: float | None) -> str:
    if out_type == "auto":
        return "uint8" if (min_calib is not None and max_calib is not None and min_calib >= 0) else "int8"
    return out_type


def quantize_v2(
    data: jax.Array,
    out_type: str = "int8",
    min_calib_range: float | None = None,
    max_calib_range: float | None = None,
    shifted_output: bool | None = None,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``contrib.quantize_v2``: the range is the calibrated one or the data's min/max; int8 gets
    ``+-maxabs``, uint8 the range itself (its values ``data * 255.5 / maxabs``, negatives 0);
    ``shifted_output`` maps ``[min, max]`` onto uint8 ``[0, 255]`` with a shift. int8/uint8 input passes
    through (range: calibrated, else the type's)."""
    _check_type("quantize_v2", out_type, ("int8", "uint8", "auto"))
    kind = _auto_type(out_type, min_calib_range, max_calib_range)
    calibrated = min_calib_range is not None and max_calib_range is not None
    if data.dtype in (jnp.int8, jnp.uint8):
        if calibrated:
            return _out(data, min_calib_range, max_calib_range)
        return (
            _out(data, 0.0, UINT8_RANGE) if data.dtype == jnp.uint8 else _out(data, -INT8_RANGE, INT8_RANGE)
        )
    x = jnp.asarray(data, _F32)
    if calibrated:
        lo, hi = jnp.asarray(min_calib_range, _F32), jnp.asarray(max_calib_range, _F32)
    else:
        lo, hi = jnp.min(x), jnp.max(x)
    if shifted_output:
        scale = _F32(255.5) / (hi - lo)
        shift = jnp.round(scale * -lo)
        return _out(saturate(x * scale + shift, "uint8"), 0.0, hi - lo)
    real = maxabs(lo, hi)
    rng = _F32(INT8_RANGE if kind == "int8" else UINT8_RANGE)
    scale = jnp.where(real > 0, rng / jnp.where(real > 0, real, 1), _F32(2**31 - 1))
    q = saturate(x * scale, kind)
    return _out(q, -real, real) if kind == "int8" else _out(q, lo, hi)


def quantize_asym(
    data: jax.Array, min_calib_range: float | None = None, max_calib_range: float | None = None
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``contrib.quantize_asym``: uint8 ``trunc(data * scale + shift + 0.5)`` with ``scale = 255 /
    (max - min)`` and ``shift = 255 - max * scale`` (range calibrated or the data's); returns the data,
    the scale and the shift. int8 input is shifted by 128; uint8 input passes (scale 1, shift 0)."""
    if data.dtype == jnp.uint8:
        return _out(data, 1.0, 0.0)
    if data.dtype == jnp.int8:
        return _out((data.astype(jnp.int32) + 128).astype(jnp.uint8), 1.0, 128.0)
    x = jnp.asarray(data, _F32)
    if min_calib_range is not None and max_calib_range is not None:
        lo, hi = _F32(min_calib_range), _F32(max_calib_range)
    else:
        lo, hi = jnp.min(x), jnp.max(x)
    scale = _F32(255.0) / (hi - lo)
    shift = _F32(255.0) - hi * scale
    q = jnp.clip(jnp.trunc(x * scale + shift + 0.5), 0, 255).astype(jnp.uint8)
    return _out(q, scale, shift)


def dequantize(
    data: jax.Array, min_range: jax.Array, max_range: jax.Array, out_type: str = "float32"
) -> jax.Array:
    """``contrib.dequantize``: ``data * maxabs(range) / 127.5`` (int8) or ``/ 255.5`` (uint8)."""
    _check_type("dequantize", out_type, ("float32",))
    if data.dtype not in (jnp.int8, jnp.uint8):
        raise TypeError(f"dequantize: data must be int8 or uint8, got {data.dtype}")
    rng = _F32(INT8_RANGE if data.dtype == jnp.int8 else UINT8_RANGE)
    scale = maxabs(_scalar(min_range)[0], _scalar(max_range)[0]) / rng
    return data.astype(_F32) * scale


def requantize(
    data: jax.Array,
    min_range: jax.Array,
    max_range: jax.Array,
    out_type: str = "int8",
    min_calib_range: float | None = None,
    max_calib_range: float | None = None,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``contrib.requantize``: int32 data (real range ``maxabs(min_range, max_range)`` over 2^31) into
    int8/uint8 over the calibrated range, or over the range the data actually reaches."""
    _check_type("requantize", out_type, ("int8", "uint8", "auto"))
    kind = _auto_type(out_type, min_calib_range, max_calib_range)
    if data.dtype != jnp.int32:
        raise TypeError(f"requantize: data must be int32, got {data.dtype}")
    in_real = maxabs(_scalar(min_range)[0], _scalar(max_range)[0])
    first = in_real / _F32(2**31)
    if min_calib_range is not None and max_calib_range is not None:
        real = maxabs(min_calib_range, max_calib_range)
    else:
        top = jnp.maximum(jnp.abs(jnp.min(data).astype(_F32)), jnp.abs(jnp.max(data).astype(_F32)))
        real = top.astype(jnp.int32).astype(_F32) * in_real / _F32(2**31)
    if kind == "int8":
        scale = first * (_F32(127.0) / real)
        return _out(saturate(data.astype(_F32) * scale, "int8"), -real, real)
    scale = first * (_F32(255.0) / real)
    return _out(saturate(data.astype(_F32) * scale, "uint8"), 0.0, real)


def _smooth(p: onp.ndarray, eps: float = 0.0001) -> onp.ndarray | None:
    zeros = p == 0
    n_zeros = int(zeros.sum())
    n_nonzeros = p.size - n_zeros
    if not n_nonzeros:
        return None
    eps1 = onp.float32(eps * n_zeros / n_nonzeros)
    if eps1 >= 1.0:
        return None
    return (p + onp.float32(eps) * zeros - eps1 * ~zeros).astype(onp.float32)


def _entropy(p: onp.ndarray, q: onp.ndarray) -> onp.float32:
    p = p / onp.cumsum(p, dtype=onp.float32)[-1]
    q = q / onp.cumsum(q, dtype=onp.float32)[-1]
    ok = (p != 0) & (q != 0)
    terms = onp.where(ok, p * onp.log(onp.where(ok, p / onp.where(ok, q, 1), 1)), 0).astype(onp.float32)
    return onp.cumsum(terms, dtype=onp.float32)[-1]


def calibrate_entropy(
    hist: Any, hist_edges: Any, num_quantized_bins: int = 255
) -> tuple[jax.Array, jax.Array]:
    """``contrib.calibrate_entropy``: the threshold (and its KL divergence) of a symmetric histogram
    that loses least information when ``num_quantized_bins`` levels replace its bins (MXNet's search,
    run on the host: the histogram must hold values, not be traced)."""
    h = onp.asarray(hist, onp.float32).ravel()
    edges = onp.asarray(hist_edges, onp.float32).ravel()
    nb, nq = h.size, int(num_quantized_bins)
    zero, half = nb // 2, nq // 2
    best, best_t = onp.float32(onp.finfo(onp.float32).max), onp.float32(0)
    for i in range(half, zero + 1):
        start, stop = zero - i, zero + i + 1
        sliced = onp.zeros(stop - start, onp.int64)  # MXNet keeps these counts as integers
        sliced[1:] = h[start + 1 : stop].astype(onp.int64)
        p = onp.zeros(stop - start, onp.float32)
        p[0] = onp.cumsum(h[: start + 1], dtype=onp.float32)[-1]
        p[1:] = h[start + 1 : stop]
        p[-1] = onp.cumsum(h[stop - 1 :], dtype=onp.float32)[-1]
        merged = sliced.size // nq
        qbins = onp.array([sliced[j * merged : (j + 1) * merged].sum() for j in range(nq)], onp.float32)
        qbins[-1] += onp.float32(sliced[nq * merged :].sum())
        q = onp.zeros(sliced.size, onp.float32)
        for j in range(nq):
            a, b = j * merged, (q.size if j == nq - 1 else (j + 1) * merged)
            norm = int((sliced[a:b] != 0).sum())
            if norm:
                q[a:b] = onp.where(p[a:b] != 0, qbins[j] / onp.float32(norm), onp.float32(0))
        ps, qs = _smooth(p), _smooth(q)
        if qs is None:
            div = onp.float32(onp.inf)
        elif ps is None:
            div = onp.float32(0)
        else:
            div = _entropy(ps, qs)
        if div < best:
            best, best_t = div, edges[stop]
    return jnp.asarray([best_t], _F32), jnp.asarray([best], _F32)
