"""Deformable convolution as pure functions (MXNet 1.9.1's ``contrib.DeformableConvolution`` and
``contrib.ModulatedDeformableConvolution`` operators, NCHW).

Each output position samples the input at the kernel's grid points moved by learned offsets
(``offset``: (N, 2*G*kh*kw, Ho, Wo), per deformable group ``G`` and kernel point ``k = i*kw + j`` the
pair (dy, dx)), by bilinear interpolation, then applies the convolution weights to the samples. The
boundary rules are MXNet's CPU kernels': version 1 samples points with ``0 <= y < H`` and
``0 <= x < W`` (the corners clamped into the image), version 2 points with ``-1 < y < H`` and
``-1 < x < W`` (corners outside the image count as zero) and multiplies each sample by ``mask``
(N, G*kh*kw, Ho, Wo). Gradients are ``jax.grad``'s.

>>> import jax, jax.numpy as jnp
>>> x = jnp.arange(16.0).reshape(1, 1, 4, 4)
>>> w = jnp.ones((1, 1, 1, 1))
>>> shifted = jax.jit(deformable_convolution)(x, jnp.full((1, 2, 4, 4), 0.5), w)
>>> shifted[0, 0, 0, :3].tolist()   # each sample halfway to its right and lower neighbours
[2.5, 3.5, 4.5]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

__all__ = ["deformable_convolution", "modulated_deformable_convolution"]


def _pair(name: str, v: Any, default: int) -> tuple[int, int]:
    if v is None or (isinstance(v, Sequence) and len(v) == 0):
        return default, default
    if isinstance(v, int):
        return v, v
    v = tuple(int(a) for a in v)
    if len(v) != 2:
        raise ValueError(f"deformable convolution: {name}={v!r} must be an int or 2 ints (2-D only)")
    return v  # type: ignore[return-value]


def _sample(x: jax.Array, py: jax.Array, px: jax.Array, version: int) -> jax.Array:
    """Bilinear samples of ``x`` (N, G, Cg, H, W) at (N, G, P) points -> (N, G, Cg, P)."""
    h, w = x.shape[-2:]
    flat = x.reshape(x.shape[:3] + (h * w,))
    if version == 1:
        valid = (py >= 0) & (px >= 0) & (py < h) & (px < w)
    else:
        valid = (py > -1) & (px > -1) & (py < h) & (px < w)
    y0, x0 = jnp.floor(py), jnp.floor(px)
    if version == 1:  # MXNet's CPU clamp: at the last row/column the point sits on it
        py = jnp.where(y0 >= h - 1, y0, py)
        px = jnp.where(x0 >= w - 1, x0, px)
        y1, x1 = jnp.minimum(y0 + 1, h - 1), jnp.minimum(x0 + 1, w - 1)
    else:
        y1, x1 = y0 + 1, x0 + 1
    ly, lx = py - y0, px - x0
    out = jnp.zeros(x.shape[:3] + py.shape[-1:], x.dtype)
    for yy, xx, wt in ((y0, x0, (1 - ly) * (1 - lx)), (y0, x1, (1 - ly) * lx), (y1, x0, ly * (1 - lx)),
                       (y1, x1, ly * lx)):
        inside = valid & (yy >= 0) & (xx >= 0) & (yy <= h - 1) & (xx <= w - 1)
        idx = (jnp.clip(yy, 0, h - 1) * w + jnp.clip(xx, 0, w - 1)).astype(jnp.int32)
        picked = jnp.take_along_axis(flat, jnp.broadcast_to(idx[:, :, None, :], out.shape), axis=-1)
        out = out + picked * jnp.where(inside, wt, 0).astype(x.dtype)[:, :, None, :]
    return out


def _deform(data, offset, weight, bias, mask, kernel, stride, dilate, pad, num_filter, num_group,
            num_deformable_group, no_bias, version, who):
    if data.ndim != 4:
        raise ValueError(f"{who}: data must be (N, C, H, W) (NCHW), got shape {tuple(data.shape)}")
    n, c, h, w = data.shape
    kh, kw = _pair("kernel", kernel, 1) if kernel is not None else tuple(weight.shape[2:4])
    sh, sw = _pair("stride", stride, 1)
    dh, dw = _pair("dilate", dilate, 1)
    ph, pw = _pair("pad", pad, 0)
    ho = (h + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    wo = (w + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    g, k = int(num_deformable_group), kh * kw
    if c % g or c % num_group or num_filter % num_group:
        raise ValueError(f"{who}: the {c} input channels and num_filter={num_filter} must divide by "
                         f"num_group={num_group}, and the channels by num_deformable_group={g}")
    want = (n, 2 * g * k, ho, wo)
    if tuple(offset.shape) != want:
        raise ValueError(f"{who}: offset has shape {tuple(offset.shape)}, expected {want} "
                         f"(N, 2*num_deformable_group*kh*kw, out_h, out_w)")
    if tuple(weight.shape) != (num_filter, c // num_group, kh, kw):
        raise ValueError(f"{who}: weight has shape {tuple(weight.shape)}, expected "
                         f"{(num_filter, c // num_group, kh, kw)}")
    off = offset.reshape(n, g, k, 2, ho * wo)
    i, j = jnp.arange(kh)[:, None, None, None], jnp.arange(kw)[None, :, None, None]
    rows, cols_ = jnp.arange(ho)[None, None, :, None], jnp.arange(wo)[None, None, None, :]
    base_y = jnp.broadcast_to(i * dh + rows * sh - ph, (kh, kw, ho, wo)).reshape(k, ho * wo)
    base_x = jnp.broadcast_to(j * dw + cols_ * sw - pw, (kh, kw, ho, wo)).reshape(k, ho * wo)
    py = (base_y.astype(data.dtype) + off[:, :, :, 0]).reshape(n, g, k * ho * wo)
    px = (base_x.astype(data.dtype) + off[:, :, :, 1]).reshape(n, g, k * ho * wo)
    cols = _sample(data.reshape(n, g, c // g, h, w), py, px, version)  # (N, G, Cg, K*P)
    cols = cols.reshape(n, g, c // g, k, ho * wo)
    if mask is not None:
        cols = cols * mask.reshape(n, g, 1, k, ho * wo)
    cols = cols.reshape(n, num_group, (c // num_group) * k, ho * wo)
    wmat = weight.reshape(num_group, num_filter // num_group, (c // num_group) * k)
    out = jnp.einsum("gok,ngkp->ngop", wmat, cols).reshape(n, num_filter, ho, wo)
    if bias is not None and not no_bias:
        out = out + bias.reshape(1, -1, 1, 1)
    return out


def deformable_convolution(data: jax.Array, offset: jax.Array, weight: jax.Array,
                           bias: jax.Array | None = None, kernel: Any = None, stride: Any = (),
                           dilate: Any = (), pad: Any = (),
                           num_filter: int | None = None, num_group: int = 1, num_deformable_group: int = 1,
                           workspace: int = 1024, no_bias: bool = False,
                           layout: str | None = None) -> jax.Array:
    """Deformable convolution v1 (Dai et al., 2017) with MXNet's arguments; ``workspace`` is ignored."""
    if layout not in (None, "NCHW"):
        raise ValueError(f"DeformableConvolution: layout={layout!r}; MXNet 1.9.1 computes NCHW only")
    num_filter = weight.shape[0] if num_filter is None else int(num_filter)
    return _deform(data, offset, weight, bias, None, kernel, stride, dilate, pad, num_filter, int(num_group),
                   num_deformable_group, no_bias or bias is None, 1, "DeformableConvolution")


def modulated_deformable_convolution(data: jax.Array, offset: jax.Array, mask: jax.Array, weight: jax.Array,
                                     bias: jax.Array | None = None, kernel: Any = None, stride: Any = (),
                                     dilate: Any = (), pad: Any = (), num_filter: int | None = None,
                                     num_group: int = 1, num_deformable_group: int = 1, workspace: int = 1024,
                                     no_bias: bool = False, im2col_step: int = 64,
                                     layout: str | None = None) -> jax.Array:
    """Modulated deformable convolution v2 (Zhu et al., 2019): v2's sampling, each sample times
    ``mask``; ``workspace``/``im2col_step`` are ignored."""
    if layout not in (None, "NCHW"):
        raise ValueError(f"ModulatedDeformableConvolution: layout={layout!r}; MXNet 1.9.1 computes NCHW only")
    num_filter = weight.shape[0] if num_filter is None else int(num_filter)
    n = data.shape[0]
    return _deform(data, offset, weight, bias, mask.reshape(n, -1), kernel, stride, dilate, pad, num_filter,
                   int(num_group), num_deformable_group, no_bias or bias is None, 2,
                   "ModulatedDeformableConvolution")
