"""Position-sensitive and rotated ROI pooling of NCHW maps, as MXNet 1.x's ``contrib`` operators compute
them: ``PSROIPooling`` (R-FCN: bin ``(ph, pw)`` of output channel ``d`` averages input channel
``(d * group + gh) * group + gw`` over the bin's whole pixels), ``DeformablePSROIPooling`` (the same
with ``sample_per_part``\\ :sup:`2` bilinear samples per bin, shifted by ``trans`` offsets) and
``RROIAlign`` (ROIAlign over boxes ``[batch, cx, cy, w, h, angle in degrees]``). Gradients reach
``data`` (and ``trans``); ``rois`` get none, as in MXNet.

>>> import jax.numpy as jnp
>>> x = jnp.arange(2 * 4 * 16, dtype=jnp.float32).reshape(1, 8, 4, 4)
>>> psroi_pooling(x, jnp.array([[0, 0, 0, 3, 3]]), 1.0, 2, 2).shape
(1, 2, 2, 2)
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp
from jax import lax

from ._kernel import compiled
from .roi import _pair, _round_away

__all__ = ["psroi_pooling", "deformable_psroi_pooling", "rroi_align"]


def _checks(op: str, data: jax.Array, rois: jax.Array, width: int) -> None:
    if data.ndim != 4 or rois.ndim != 2 or rois.shape[1] != width:
        raise ValueError(f"{op}: data must be (N, C, H, W) and rois (R, {width}), got {tuple(data.shape)} "
                         f"and {tuple(rois.shape)}")


def _group_index(pooled: int, group: int) -> onp.ndarray:
    return onp.clip(onp.floor(onp.arange(pooled) * group / pooled).astype(onp.int64), 0, group - 1)


def _channels(output_dim: int, pooled: int, group: int) -> onp.ndarray:
    """(D, P, P) input channel of each output channel and bin."""
    g = _group_index(pooled, group)
    d = onp.arange(output_dim)[:, None, None]
    return (d * group + g[None, :, None]) * group + g[None, None, :]


@compiled("data", "rois")
def psroi_pooling(data: jax.Array, rois: jax.Array, spatial_scale: float | None = None,
                  output_dim: int | None = None, pooled_size: int | None = None,
                  group_size: int = 0) -> jax.Array:
    """``contrib.PSROIPooling``: (R, output_dim, P, P) averages over whole pixels (empty bins give 0)."""
    op = "PSROIPooling"
    if spatial_scale is None or output_dim is None or pooled_size is None:
        raise TypeError(f"{op}: spatial_scale, output_dim and pooled_size are required")
    _checks(op, data, rois, 5)
    p = int(pooled_size)
    g = int(group_size) or p
    n, c, h, w = data.shape
    if c != output_dim * g * g:
        raise ValueError(f"{op}: data has {c} channels; output_dim * group_size^2 = {output_dim * g * g}")
    r = lax.stop_gradient(rois).astype(jnp.float32)
    s = jnp.float32(spatial_scale)
    batch = jnp.clip(r[:, 0].astype(jnp.int32), 0, n - 1)
    x1, y1 = _round_away(r[:, 1]) * s, _round_away(r[:, 2]) * s
    x2, y2 = (_round_away(r[:, 3]) + 1) * s, (_round_away(r[:, 4]) + 1) * s
    rw, rh = jnp.maximum(x2 - x1, 0.1), jnp.maximum(y2 - y1, 0.1)
    k = jnp.arange(p, dtype=jnp.float32)[None, :]
    hs = jnp.clip(jnp.floor(k * (rh / p)[:, None] + y1[:, None]).astype(jnp.int32), 0, h)
    he = jnp.clip(jnp.ceil((k + 1) * (rh / p)[:, None] + y1[:, None]).astype(jnp.int32), 0, h)
    ws = jnp.clip(jnp.floor(k * (rw / p)[:, None] + x1[:, None]).astype(jnp.int32), 0, w)
    we = jnp.clip(jnp.ceil((k + 1) * (rw / p)[:, None] + x1[:, None]).astype(jnp.int32), 0, w)
    cols = jnp.concatenate([jnp.zeros((n, c, h, 1), data.dtype), jnp.cumsum(data, axis=3)], axis=3)
    chan = jnp.asarray(_channels(int(output_dim), p, g))  # (D, P, P)
    rows = jnp.arange(h)
    bi = batch[:, None, None, None, None]
    ci = chan[None, :, :, :, None]
    hi = rows[None, None, None, None, :]
    span = (cols[bi, ci, hi, we[:, None, None, :, None]] - cols[bi, ci, hi, ws[:, None, None, :, None]])
    inside = (rows[None, None, :] >= hs[:, :, None]) & (rows[None, None, :] < he[:, :, None])  # (R, P, H)
    total = jnp.sum(jnp.where(inside[:, None, :, None, :], span, 0), axis=-1)  # (R, D, P, P)
    area = ((he - hs)[:, :, None] * (we - ws)[:, None, :]).astype(data.dtype)  # (R, P, P)
    empty = (area <= 0)[:, None]
    return jnp.where(empty, jnp.zeros((), data.dtype), total / jnp.where(empty, 1, area[:, None]))


def _bilinear_floor_ceil(img: jax.Array, b, ch, y, x) -> jax.Array:
    """MXNet's deformable-pooling interpolation: corners ``floor``/``ceil`` of the position."""
    y0, x0 = jnp.floor(y), jnp.floor(x)
    y1, x1 = jnp.ceil(y), jnp.ceil(x)
    dy, dx = y - y0, x - x0
    y0, y1, x0, x1 = (v.astype(jnp.int32) for v in (y0, y1, x0, x1))
    v11, v12 = img[b, ch, y0, x0], img[b, ch, y1, x0]
    v21, v22 = img[b, ch, y0, x1], img[b, ch, y1, x1]
    return (1 - dx) * (1 - dy) * v11 + (1 - dx) * dy * v12 + dx * (1 - dy) * v21 + dx * dy * v22


@compiled("data", "rois", "trans")
def deformable_psroi_pooling(data: jax.Array, rois: jax.Array, trans: jax.Array | None = None,
                             spatial_scale: float | None = None, output_dim: int | None = None,
                             group_size: int | None = None, pooled_size: int | None = None,
                             part_size: int = 0, sample_per_part: int = 1, trans_std: float = 0.0,
                             no_trans: bool = False) -> jax.Array:
    """``contrib.DeformablePSROIPooling``: (R, output_dim, P, P); each bin averages the bilinear samples
    that fall inside the map (0 when none does)."""
    op = "DeformablePSROIPooling"
    if None in (spatial_scale, output_dim, group_size, pooled_size):
        raise TypeError(f"{op}: spatial_scale, output_dim, group_size and pooled_size are required")
    _checks(op, data, rois, 5)
    n, c, h, w = data.shape
    p, g, d = int(pooled_size), int(group_size), int(output_dim)
    part = int(part_size) or p
    spp = int(sample_per_part)
    if c != d * g * g:
        raise ValueError(f"{op}: data has {c} channels; output_dim * group_size^2 = {d * g * g}")
    no_trans = bool(no_trans) or trans is None
    classes = 1 if no_trans else trans.shape[1] // 2
    per_class = d if no_trans else d // classes
    r = lax.stop_gradient(rois).astype(jnp.float32)
    s = jnp.float32(spatial_scale)
    batch = jnp.clip(r[:, 0].astype(jnp.int32), 0, n - 1)
    x1, y1 = _round_away(r[:, 1]) * s - 0.5, _round_away(r[:, 2]) * s - 0.5
    x2, y2 = (_round_away(r[:, 3]) + 1) * s - 0.5, (_round_away(r[:, 4]) + 1) * s - 0.5
    rw, rh = jnp.maximum(x2 - x1, 0.1), jnp.maximum(y2 - y1, 0.1)
    bw, bh = rw / p, rh / p
    k = onp.arange(p)
    part_idx = onp.floor(k / p * part).astype(onp.int64)
    cls = onp.arange(d) // per_class
    if no_trans:
        tx = ty = jnp.zeros((r.shape[0], d, p, p), data.dtype)
    else:
        tr = trans.astype(data.dtype)
        tx = tr[:, 2 * cls][:, :, part_idx][:, :, :, part_idx] * trans_std  # (R, D, P, P)
        ty = tr[:, 2 * cls + 1][:, :, part_idx][:, :, :, part_idx] * trans_std
    kk = jnp.asarray(k, data.dtype)
    wstart = (kk[None, None, None, :] * bw[:, None, None, None] + x1[:, None, None, None]
              + tx * rw[:, None, None, None])
    hstart = (kk[None, None, :, None] * bh[:, None, None, None] + y1[:, None, None, None]
              + ty * rh[:, None, None, None])
    chan = jnp.asarray(_channels(d, p, g))[None]
    bi = batch[:, None, None, None]
    total = jnp.zeros(tx.shape, data.dtype)
    count = jnp.zeros(tx.shape, data.dtype)
    for ih in range(spp):
        for iw in range(spp):
            xs = wstart + iw * (bw / spp)[:, None, None, None]
            ys = hstart + ih * (bh / spp)[:, None, None, None]
            ok = (xs >= -0.5) & (xs <= w - 0.5) & (ys >= -0.5) & (ys <= h - 0.5)
            val = _bilinear_floor_ceil(data, bi, chan, jnp.clip(ys, 0, h - 1), jnp.clip(xs, 0, w - 1))
            total = total + jnp.where(ok, val, 0)
            count = count + ok
    return jnp.where(count > 0, total / jnp.maximum(count, 1), jnp.zeros((), data.dtype))


@compiled("data", "rois")
def rroi_align(data: jax.Array, rois: jax.Array, pooled_size: Any = None, spatial_scale: float | None = None,
               sampling_ratio: int = -1) -> jax.Array:
    """``contrib.RROIAlign``: (R, C, ph, pw) averages of bilinear samples on a grid rotated with each box
    (``sampling_ratio`` per axis, or ``ceil(box size / pooled size)`` when not positive); samples
    beyond -1 or the map's size count as 0."""
    op = "RROIAlign"
    if pooled_size is None or spatial_scale is None:
        raise TypeError(f"{op}: pooled_size and spatial_scale are required")
    ph, pw = _pair(pooled_size, "pooled_size", op)
    _checks(op, data, rois, 6)
    n, c, h, w = data.shape
    dt = data.dtype
    r = lax.stop_gradient(rois).astype(dt)
    s = jnp.asarray(spatial_scale, dt)
    batch = jnp.clip(r[:, 0].astype(jnp.int32), 0, n - 1)
    cx, cy = r[:, 1] * s, r[:, 2] * s
    rw, rh = jnp.maximum(r[:, 3] * s, 1.0), jnp.maximum(r[:, 4] * s, 1.0)
    theta = r[:, 5] * jnp.asarray(math.pi / 180.0, dt)
    cos, sin = jnp.cos(theta), jnp.sin(theta)
    bh, bw = rh / ph, rw / pw
    if sampling_ratio > 0:
        gh = gw = jnp.full(r.shape[:1], int(sampling_ratio), jnp.int32)
    else:
        gh = jnp.ceil(rh / ph).astype(jnp.int32)
        gw = jnp.ceil(rw / pw).astype(jnp.int32)
    kh = jnp.arange(ph, dtype=dt)[None, :, None]
    kw = jnp.arange(pw, dtype=dt)[None, None, :]
    col = lambda v: v[:, None, None]  # noqa: E731

    def sample(i, acc):
        iy, ix = i // gw, i % gw
        yy = col(-rh / 2) + kh * col(bh) + col((iy + 0.5) / gh) * col(bh)
        xx = col(-rw / 2) + kw * col(bw) + col((ix + 0.5) / gw) * col(bw)
        x = xx * col(cos) + yy * col(sin) + col(cx)
        y = yy * col(cos) - xx * col(sin) + col(cy)
        ok = ~((y < -1.0) | (y > h) | (x < -1.0) | (x > w)) & col(i < gh * gw)
        y, x = jnp.maximum(y, 0), jnp.maximum(x, 0)
        ylo, xlo = jnp.floor(y).astype(jnp.int32), jnp.floor(x).astype(jnp.int32)
        yedge, xedge = ylo >= h - 1, xlo >= w - 1
        ylo, xlo = jnp.where(yedge, h - 1, ylo), jnp.where(xedge, w - 1, xlo)
        yhi, xhi = jnp.where(yedge, h - 1, ylo + 1), jnp.where(xedge, w - 1, xlo + 1)
        ly, lx = jnp.where(yedge, 0, y - ylo), jnp.where(xedge, 0, x - xlo)
        b = col(batch)
        val = ((1 - ly) * (1 - lx))[..., None] * data[b, :, ylo, xlo] \
            + ((1 - ly) * lx)[..., None] * data[b, :, ylo, xhi] \
            + (ly * (1 - lx))[..., None] * data[b, :, yhi, xlo] + (ly * lx)[..., None] * data[b, :, yhi, xhi]
        return acc + jnp.where(ok[..., None], val, 0)

    acc = jnp.zeros((r.shape[0], ph, pw, c), dt)
    acc = lax.fori_loop(0, jnp.max(gh * gw, initial=1), sample, acc)
    out = acc / (gh * gw).astype(dt)[:, None, None, None]
    return jnp.transpose(out, (0, 3, 1, 2))

