"""Region-of-interest pooling of NCHW maps: ``roi_pooling`` (MXNet's ``ROIPooling``, max over bins) and
``roi_align`` (``contrib.ROIAlign``, bilinear samples averaged per bin).

``rois`` is (R, 5) ``[batch_index, x1, y1, x2, y2]`` in image coordinates (``roi_align`` also takes
(R, 4), batch 0), scaled by ``spatial_scale`` onto the map. Both are vectorised over ROIs: a bin's
row and column ranges are masks, so ROIPooling is a masked max over rows then columns, and ROIAlign (a
separable bilinear map) two small matrix products. Gradients reach ``data`` (MXNet's); ``rois`` get none.

>>> import jax.numpy as jnp
>>> x = jnp.arange(16.0).reshape(1, 1, 4, 4)
>>> roi_pooling(x, jnp.array([[0, 0, 0, 3, 3]]), pooled_size=(2, 2), spatial_scale=1.0)[0, 0].tolist()
[[5.0, 7.0], [13.0, 15.0]]
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ._kernel import compiled

__all__ = ["roi_pooling", "roi_align"]


def _pair(v: Any, name: str, op: str) -> tuple[int, int]:
    if isinstance(v, int):
        return int(v), int(v)
    try:
        a, b = (int(x) for x in v)
    except (TypeError, ValueError):
        raise ValueError(f"{op}: {name}={v!r} must be an int or (height, width)") from None
    if a < 1 or b < 1:
        raise ValueError(f"{op}: {name}={v!r} must be positive")
    return a, b


def _round_away(x):
    """C's ``round``: halves away from zero (``jnp.round`` rounds halves to even)."""
    return jnp.sign(x) * jnp.floor(jnp.abs(x) + 0.5)


@compiled("data", "rois")
def roi_pooling(data: jax.Array, rois: jax.Array, pooled_size: Any = None,
                spatial_scale: float | None = None) -> jax.Array:
    """Max pooling of each ROI of ``data`` (N, C, H, W) into ``pooled_size`` bins: (R, C, ph, pw).
    Empty bins and ROIs with an invalid batch index give 0.

    >>> import jax.numpy as jnp
    >>> roi_pooling(jnp.ones((1, 2, 4, 4)), jnp.array([[0, 0, 0, 1, 1]]), (1, 1), 0.5).shape
    (1, 2, 1, 1)
    """
    op = "ROIPooling"
    if pooled_size is None or spatial_scale is None:
        raise TypeError(f"{op}: pooled_size and spatial_scale are required")
    ph, pw = _pair(pooled_size, "pooled_size", op)
    if data.ndim != 4 or rois.ndim != 2 or rois.shape[1] != 5:
        raise ValueError(f"{op}: data must be (N, C, H, W) and rois (R, 5), got {tuple(data.shape)} and "
                         f"{tuple(rois.shape)}")
    n, _, h, w = data.shape
    r = lax.stop_gradient(rois).astype(jnp.float32)
    batch = r[:, 0].astype(jnp.int32)
    x1, y1, x2, y2 = (_round_away(r[:, i] * jnp.float32(spatial_scale)).astype(jnp.int32)
                      for i in range(1, 5))
    roi_h = jnp.maximum(y2 - y1 + 1, 1)
    roi_w = jnp.maximum(x2 - x1 + 1, 1)

    def ranges(start, size, count, limit):
        # floor(k * size / count) and ceil((k + 1) * size / count) in exact integer arithmetic
        k = jnp.arange(count, dtype=jnp.int32)[None, :]
        lo = (k * size[:, None]) // count + start[:, None]
        hi = -((-(k + 1) * size[:, None]) // count) + start[:, None]
        return jnp.clip(lo, 0, limit), jnp.clip(hi, 0, limit)

    hs, he = ranges(y1, roi_h, ph, h)  # (R, ph)
    ws, we = ranges(x1, roi_w, pw, w)
    rows = jnp.arange(h)
    cols = jnp.arange(w)
    hmask = (rows[None, None, :] >= hs[..., None]) & (rows[None, None, :] < he[..., None])  # (R, ph, H)
    wmask = (cols[None, None, :] >= ws[..., None]) & (cols[None, None, :] < we[..., None])  # (R, pw, W)
    ok = (batch >= 0) & (batch < n)
    low = jnp.asarray(-jnp.inf, data.dtype)

    def one(b, hm, wm):
        img = data[jnp.clip(b, 0, n - 1)]  # (C, H, W)
        colmax = jnp.max(jnp.where(wm[None, None, :, :], img[:, :, None, :], low), axis=-1)  # (C, H, pw)
        return jnp.max(jnp.where(hm[None, :, :, None], colmax[:, None, :, :], low), axis=2)  # (C, ph, pw)

    per_roi = data.shape[1] * h * pw * w  # the largest intermediate of one ROI
    chunk = max(1, min(rois.shape[0], (1 << 24) // max(per_roi, 1)))
    out = lax.map(lambda a: one(*a), (batch, hmask, wmask), batch_size=chunk)
    empty = (he <= hs)[:, :, None] | (we <= ws)[:, None, :]  # (R, ph, pw)
    dead = empty[:, None] | ~ok[:, None, None, None]
    return jnp.where(dead, jnp.zeros((), data.dtype), out)


def _axis_weights(start, binsize, count, grid, size, dtype):
    """(R, count, size) bilinear weights of a bin's samples along one axis, summed over the ROI's grid
    (``grid`` samples, a loop up to the largest) and divided by its length; samples past the map's edge
    (beyond -1 or size) weigh 0."""
    k = jnp.arange(count, dtype=dtype)[None, :]
    g = grid.astype(dtype)[:, None]
    cells = jnp.arange(size)

    def sample(i, acc):
        pos = start[:, None] + k * binsize[:, None] + (i + 0.5) * binsize[:, None] / g
        inside = (pos >= -1.0) & (pos <= size) & (i < grid)[:, None]
        p = jnp.maximum(pos, 0)
        low = jnp.floor(p).astype(jnp.int32)
        edge = low >= size - 1
        low = jnp.where(edge, size - 1, low)
        high = jnp.where(edge, size - 1, low + 1)
        frac = jnp.where(edge, 0, p - low)
        w = (1 - frac)[..., None] * (cells == low[..., None]) + frac[..., None] * (cells == high[..., None])
        return acc + jnp.where(inside[..., None], w, 0)

    acc = jnp.zeros(start.shape + (count, size), dtype)
    acc = lax.fori_loop(0, jnp.max(grid, initial=1), sample, acc)
    return acc / g[..., None]


@compiled("data", "rois")
def roi_align(data: jax.Array, rois: jax.Array, pooled_size: Any = None, spatial_scale: float | None = None,
              sample_ratio: int = -1, position_sensitive: bool = False, aligned: bool = False) -> jax.Array:
    """ROIAlign of ``data`` (N, C, H, W) over ``rois`` (R, 5) or (R, 4): (R, C, ph, pw), or
    (R, C / (ph*pw), ph, pw) with ``position_sensitive``. Each bin averages a grid of bilinear samples,
    ``sample_ratio`` per axis, or ``ceil(roi size / pooled size)`` when ``sample_ratio <= 0``.
    ``aligned`` shifts by half a pixel (Detectron2's alignment).

    >>> import jax.numpy as jnp
    >>> x = jnp.arange(16.0).reshape(1, 1, 4, 4)
    >>> roi_align(x, jnp.array([[0, 0, 0, 2, 2]]), (1, 1), 1.0, sample_ratio=2)[0, 0].tolist()
    [[5.0]]
    """
    op = "ROIAlign"
    if pooled_size is None or spatial_scale is None:
        raise TypeError(f"{op}: pooled_size and spatial_scale are required")
    ph, pw = _pair(pooled_size, "pooled_size", op)
    if data.ndim != 4 or rois.ndim != 2 or rois.shape[1] not in (4, 5):
        raise ValueError(f"{op}: data must be (N, C, H, W) and rois (R, 5) or (R, 4), got "
                         f"{tuple(data.shape)} and {tuple(rois.shape)}")
    n, c, h, w = data.shape
    if position_sensitive and c % (ph * pw):
        raise ValueError(f"{op}: position_sensitive needs channels ({c}) divisible by ph*pw ({ph * pw})")
    dt = data.dtype
    r = lax.stop_gradient(rois).astype(dt)
    if r.shape[1] == 5:
        batch = r[:, 0].astype(jnp.int32)
        box = r[:, 1:]
    else:
        batch = jnp.zeros((r.shape[0],), jnp.int32)
        box = r
    off = 0.5 if aligned else 0.0
    x1, y1, x2, y2 = (box[:, i] * jnp.asarray(spatial_scale, dt) - off for i in range(4))
    rw, rh = x2 - x1, y2 - y1
    if not aligned:
        rw, rh = jnp.maximum(rw, 1.0), jnp.maximum(rh, 1.0)
    bh, bw = rh / ph, rw / pw
    if sample_ratio > 0:
        gh = gw = jnp.full(r.shape[:1], int(sample_ratio), jnp.int32)
    else:
        gh = jnp.maximum(jnp.ceil(rh / ph), 1).astype(jnp.int32)
        gw = jnp.maximum(jnp.ceil(rw / pw), 1).astype(jnp.int32)
    ay = _axis_weights(y1, bh, ph, gh, h, dt)  # (R, ph, H)
    ax = _axis_weights(x1, bw, pw, gw, w, dt)  # (R, pw, W)
    ok = (batch >= 0)[:, None]
    pick = jax.nn.one_hot(jnp.clip(batch, 0, n - 1), n, dtype=dt) * ok  # (R, N)
    if position_sensitive:
        d = data.reshape(n, c // (ph * pw), ph, pw, h, w)
        return jnp.einsum("rn,rph,rqw,ncpqhw->rcpq", pick, ay, ax, d)
    return jnp.einsum("rn,rph,rqw,nchw->rcpq", pick, ay, ax, data)
