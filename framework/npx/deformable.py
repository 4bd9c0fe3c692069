"""Deformable convolutions of MXNet's contrib set (NCHW): ``deformable_convolution`` (DCN v1) and
``modulated_deformable_convolution`` (DCN v2, with a mask).

Each kernel tap of each output position samples the input bilinearly at its regular position plus a
learned offset (zero outside the map, as MXNet's CPU kernel: a sample needs 0 <= y < H, 0 <= x < W; its
GPU kernel also interpolates between -1 and 0); the samples then meet the weights in one matrix product.
``offset`` holds, per deformable group and tap (row-major over the kernel), the (y, x) shifts:
(N, groups*2*kh*kw, Ho, Wo); ``mask`` (N, groups*kh*kw, Ho, Wo) scales each sample.

>>> import jax.numpy as jnp
>>> x, w = jnp.ones((1, 2, 4, 4)), jnp.ones((3, 2, 3, 3))
>>> out = deformable_convolution(x, jnp.zeros((1, 18, 2, 2)), w, kernel=(3, 3), num_filter=3, no_bias=True)
>>> out.shape, float(out[0, 0, 0, 0])
((1, 3, 2, 2), 18.0)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ._kernel import compiled

__all__ = ["deformable_convolution", "modulated_deformable_convolution"]


def _two(v: Any, default: int) -> tuple[int, int]:
    if v is None or (isinstance(v, (tuple, list)) and len(v) == 0):
        return default, default
    if isinstance(v, int):
        return v, v
    a, b = (int(x) for x in v)
    return a, b


def _sample(img: jax.Array, y: jax.Array, x: jax.Array) -> jax.Array:
    """Bilinear samples of ``img`` (C, H, W) at (y, x) of any shape, as MXNet's CPU kernel takes them:
    zero unless 0 <= y < H and 0 <= x < W; in the last row (column) the row (column) itself."""
    c, h, w = img.shape
    y0, x0 = jnp.floor(y), jnp.floor(x)
    edge_y, edge_x = y0 >= h - 1, x0 >= w - 1
    fy = jnp.where(edge_y, 0, y - y0)
    fx = jnp.where(edge_x, 0, x - x0)
    y0i = jnp.clip(y0.astype(jnp.int32), 0, h - 1)
    x0i = jnp.clip(x0.astype(jnp.int32), 0, w - 1)
    y1i = jnp.where(edge_y, h - 1, jnp.clip(y0i + 1, 0, h - 1))
    x1i = jnp.where(edge_x, w - 1, jnp.clip(x0i + 1, 0, w - 1))
    flat = img.reshape(c, h * w)

    def tap(yy, xx):
        return jnp.take(flat, (yy * w + xx).reshape(-1), axis=1).reshape((c,) + y.shape)

    out = (tap(y0i, x0i) * ((1 - fy) * (1 - fx)) + tap(y0i, x1i) * ((1 - fy) * fx)
           + tap(y1i, x0i) * (fy * (1 - fx)) + tap(y1i, x1i) * (fy * fx))
    inside = (y >= 0) & (x >= 0) & (y < h) & (x < w)
    return jnp.where(inside, out, 0).astype(img.dtype)


def _deform(data, offset, mask, weight, bias, kernel, stride, dilate, pad, num_filter, num_group,
            num_deformable_group, no_bias, op):
    if data.ndim != 4:
        raise ValueError(f"{op}: data must be (N, C, H, W), got {tuple(data.shape)}")
    kh, kw = _two(kernel, 1)
    sh, sw = _two(stride, 1)
    dh, dw = _two(dilate, 1)
    ph, pw = _two(pad, 0)
    n, c, h, w = data.shape
    ho = (h + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    wo = (w + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    dg, g, k = int(num_deformable_group), int(num_group), kh * kw
    if offset.shape != (n, dg * 2 * k, ho, wo):
        raise ValueError(f"{op}: offset must be {(n, dg * 2 * k, ho, wo)} (N, groups*2*kh*kw, Ho, Wo), "
                         f"got {tuple(offset.shape)}")
    if weight.shape != (num_filter, c // g, kh, kw) or c % g or c % dg:
        raise ValueError(f"{op}: weight must be {(num_filter, c // max(g, 1), kh, kw)} for {c} channels in "
                         f"{g} group(s), got {tuple(weight.shape)}")
    ki, kj = jnp.meshgrid(jnp.arange(kh), jnp.arange(kw), indexing="ij")
    base_y = (jnp.arange(ho) * sh - ph)[None, :, None] + (ki.reshape(-1) * dh)[:, None, None]  # (K, Ho, 1)
    base_x = (jnp.arange(wo) * sw - pw)[None, None, :] + (kj.reshape(-1) * dw)[:, None, None]  # (K, 1, Wo)
    off = offset.reshape(n, dg, k, 2, ho, wo)
    ys = base_y[None, None] + off[:, :, :, 0]  # (N, dg, K, Ho, Wo)
    xs = base_x[None, None] + off[:, :, :, 1]
    imgs = data.reshape(n, dg, c // dg, h, w)
    # (N, dg, C/dg, K, Ho, Wo)
    cols = jax.vmap(jax.vmap(_sample))(imgs, ys.astype(data.dtype), xs.astype(data.dtype))
    if mask is not None:
        cols = cols * mask.reshape(n, dg, 1, k, ho, wo)
    cols = cols.reshape(n, g, c // g, k, ho, wo)
    wt = weight.reshape(g, num_filter // g, c // g, k)
    out = jnp.einsum("ngckhw,gfck->ngfhw", cols, wt).reshape(n, num_filter, ho, wo)
    if not no_bias:
        if bias is None:
            raise ValueError(f"{op}: no_bias=False needs a bias")
        out = out + bias.reshape(1, -1, 1, 1)
    return out


@compiled("data", "offset", "weight", "bias")
def deformable_convolution(data: jax.Array, offset: jax.Array, weight: jax.Array,
                           bias: jax.Array | None = None,
                           kernel: Any = None, stride: Any = (), dilate: Any = (), pad: Any = (),
                           num_filter: int = 1, num_group: int = 1, num_deformable_group: int = 1,
                           workspace: int = 1024, no_bias: bool = False,
                           layout: str | None = None) -> jax.Array:
    """MXNet's ``contrib.DeformableConvolution``."""
    return _deform(data, offset, None, weight, bias, kernel, stride, dilate, pad, int(num_filter),
                   num_group, num_deformable_group, no_bias, "DeformableConvolution")


@compiled("data", "offset", "mask", "weight", "bias")
def modulated_deformable_convolution(data: jax.Array, offset: jax.Array, mask: jax.Array,
                                     weight: jax.Array,
                                     bias: jax.Array | None = None, kernel: Any = None, stride: Any = (),
                                     dilate: Any = (), pad: Any = (), num_filter: int = 1, num_group: int = 1,
                                     num_deformable_group: int = 1, workspace: int = 1024,
                                     no_bias: bool = False, im2col_step: int = 64,
                                     layout: str | None = None) -> jax.Array:
    """MXNet's ``contrib.ModulatedDeformableConvolution``."""
    return _deform(data, offset, mask, weight, bias, kernel, stride, dilate, pad, int(num_filter),
                   num_group, num_deformable_group, no_bias, "ModulatedDeformableConvolution")
