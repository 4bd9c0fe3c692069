"""Bounding-box operators of MXNet's contrib set: ``box_iou``, ``box_nms``, ``box_encode``,
``box_decode``, ``bipartite_matching`` (``nd.contrib.*``, ``F.contrib.*`` in a 1.x ``hybrid_forward``).

Static shapes throughout, so each runs under ``jax.jit``: ``box_nms`` keeps its input's shape, sorts the
kept boxes to the front and fills the rest with -1, as MXNet does. Gradients follow MXNet: ``box_nms``
passes the output's gradient back to the rows it copied; ``box_iou``, ``box_encode``, ``box_decode`` and
``bipartite_matching`` have zero gradients in MXNet, and here too.

>>> import jax.numpy as jnp
>>> a = jnp.array([[0.0, 0.0, 2.0, 2.0]])
>>> box_iou(a, jnp.array([[1.0, 1.0, 3.0, 3.0], [0.0, 0.0, 2.0, 2.0]])).tolist()
[[0.1428571492433548, 1.0]]
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ._kernel import compiled

__all__ = ["box_iou", "box_nms", "box_non_maximum_suppression", "box_encode", "box_decode",
           "bipartite_matching"]

_FORMATS = ("corner", "center")


def _format(value: str, name: str, op: str) -> str:
    if value not in _FORMATS:
        raise ValueError(f"{op}: {name}={value!r} must be 'corner' ([xmin, ymin, xmax, ymax]) or 'center' "
                         "([x, y, width, height])")
    return value


def _extent(a1, a2, b1, b2, fmt: str):
    """The overlap of two 1-D extents, at least 0 (corners (lo, hi); centres (mid, size))."""
    if fmt == "corner":
        w = jnp.minimum(a2, b2) - jnp.maximum(a1, b1)
    else:
        w = jnp.minimum(b1 + b2 / 2, a1 + a2 / 2) - jnp.maximum(b1 - b2 / 2, a1 - a2 / 2)
    return jnp.maximum(w, 0)


def _area(box, fmt: str):
    w = box[..., 2] - box[..., 0] if fmt == "corner" else box[..., 2]
    h = box[..., 3] - box[..., 1] if fmt == "corner" else box[..., 3]
    return jnp.where((w < 0) | (h < 0), 0, w * h)


def _intersection(a, b, fmt: str):
    return (_extent(a[..., 0], a[..., 2], b[..., 0], b[..., 2], fmt)
            * _extent(a[..., 1], a[..., 3], b[..., 1], b[..., 3], fmt))


@compiled("lhs", "rhs")
def box_iou(lhs: jax.Array, rhs: jax.Array, format: str = "corner") -> jax.Array:  # noqa: A002
    """Intersection over union of every box of ``lhs`` (..., 4) with every box of ``rhs`` (..., 4):
    shape ``lhs.shape[:-1] + rhs.shape[:-1]``; 0 where boxes do not overlap.

    >>> import jax.numpy as jnp
    >>> box = jnp.array([[0.5, 0.5, 1.0, 1.0]])
    >>> box_iou(box, box, format='center').tolist()
    [[1.0]]
    """
    fmt = _format(format, "format", "box_iou")
    if lhs.shape[-1] != 4 or rhs.shape[-1] != 4:
        raise ValueError(f"box_iou: the last axis holds the 4 coordinates; got shapes {tuple(lhs.shape)} "
                         f"and {tuple(rhs.shape)}")
    lhs, rhs = lax.stop_gradient(lhs), lax.stop_gradient(rhs)
    a = lhs.reshape((-1, 1, 4))
    b = rhs.reshape((1, -1, 4))
    inter = _intersection(a, b, fmt)
    union = _area(a, fmt) + _area(b, fmt) - inter
    iou = jnp.where(inter <= 0, 0, inter / jnp.where(inter <= 0, 1, union))
    return iou.reshape(lhs.shape[:-1] + rhs.shape[:-1]).astype(lhs.dtype)


def _convert(out: jax.Array, cs: int, to: str) -> jax.Array:
    """Rewrite the 4 coordinates at ``cs`` into ``to``; rows whose first coordinate is negative (the -1
    fill, and any box starting left of 0) are left as they are, as in MXNet."""
    c = out[..., cs:cs + 4]
    a1, a2, a3, a4 = c[..., 0], c[..., 1], c[..., 2], c[..., 3]
    if to == "center":
        new = jnp.stack([(a1 + a3) / 2, (a2 + a4) / 2, a3 - a1, a4 - a2], axis=-1)
    else:
        new = jnp.stack([a1 - a3 / 2, a2 - a4 / 2, a1 + a3 / 2, a2 + a4 / 2], axis=-1)
    new = jnp.where((a1 < 0)[..., None], c, new)
    return jnp.concatenate([out[..., :cs], new, out[..., cs + 4:]], axis=-1)


@compiled("data")
def box_nms(
    data: jax.Array,
    overlap_thresh: float = 0.5,
    valid_thresh: float = 0.0,
    topk: int = -1,
    coord_start: int = 2,
    score_index: int = 1,
    id_index: int = -1,
    background_id: int = -1,
    force_suppress: bool = False,
    in_format: str = "corner",
    out_format: str = "corner",
) -> jax.Array:
    """Greedy non-maximum suppression over the boxes (rows) of ``data`` (..., N, K).

    Per batch: rows with score > ``valid_thresh`` (and, with ``id_index``, a class other than
    ``background_id``) are sorted by descending score; of the first ``topk`` (all for -1), a row is
    dropped when its IoU with a kept, higher-scoring row exceeds ``overlap_thresh`` (same class only,
    unless ``force_suppress`` or no ``id_index``). The kept rows come first, in score order; every other
    row is -1. ``topk=0`` returns the input.

    >>> import jax.numpy as jnp
    >>> d = jnp.array([[0, 0.9, 0, 0, 1, 1], [0, 0.8, 0, 0, 1, 0.9], [1, 0.7, 2, 2, 3, 3]])
    >>> box_nms(d, overlap_thresh=0.5)[:, 1].tolist()
    [0.8999999761581421, 0.699999988079071, -1.0]
    """
    op = "box_nms"
    fi, fo = _format(in_format, "in_format", op), _format(out_format, "out_format", op)
    if data.ndim < 2:
        raise ValueError(f"{op}: data must be (..., num_boxes, box_width), got shape {tuple(data.shape)}")
    n, width = data.shape[-2], data.shape[-1]
    need = 6 if id_index >= 0 else 5
    if width < need:
        raise ValueError(f"{op}: each box needs at least {need} values (score, 4 coordinates"
                         f"{', class id' if id_index >= 0 else ''}), got {width}")
    cs, si = int(coord_start), int(score_index)
    for name, idx in (("score_index", si), ("id_index", int(id_index))):
        if idx >= 0 and cs <= idx <= cs + 3:
            raise ValueError(f"{op}: {name}={idx} falls inside the coordinates {cs}..{cs + 3}")
    if not (0 <= cs and cs + 3 < width and 0 <= si < width and int(id_index) < width):
        raise ValueError(f"{op}: coord_start={cs}, score_index={si}, id_index={id_index} must lie within "
                         f"the box width {width}")
    k = n if topk < 0 else min(n, int(topk))
    if k < 1:
        return data
    flat = data.reshape((-1, n, width))

    def one(rows):
        score = rows[:, si]
        valid = score > valid_thresh
        if id_index >= 0:
            valid = valid & (rows[:, id_index] != background_id)
        order = jnp.argsort(jnp.where(valid, -score, jnp.inf), stable=True)[:k]
        cand = valid[order]
        boxes = lax.stop_gradient(rows[order, cs:cs + 4])
        areas = _area(boxes, fi)
        same = jnp.ones((k, k), bool)
        if id_index >= 0 and not force_suppress:
            cls = lax.stop_gradient(rows[order, id_index]).astype(jnp.int32)
            same = cls[:, None] == cls[None, :]
        pos = jnp.arange(k)

        def step(i, alive):
            inter = _intersection(boxes[i], boxes, fi)
            iou = inter / (areas[i] + areas - inter)
            hit = alive[i] & (pos > i) & (iou > overlap_thresh) & same[i]
            return alive & ~hit

        alive = lax.fori_loop(0, k, step, cand)
        pick = order[jnp.argsort(~alive, stable=True)]
        kept = (pos < jnp.sum(alive))[:, None]
        out = jnp.where(kept, rows[pick], jnp.asarray(-1, rows.dtype))
        return jnp.concatenate([out, jnp.full((n - k, width), -1, rows.dtype)], axis=0)

    out = jax.vmap(one)(flat)
    if fi != fo:
        out = _convert(out, cs, fo)
    return out.reshape(data.shape)


box_non_maximum_suppression = box_nms


@compiled("samples", "matches", "anchors", "refs", "means", "stds")
def box_encode(samples: jax.Array, matches: jax.Array, anchors: jax.Array, refs: jax.Array,
               means: jax.Array, stds: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Regression targets of corner ``anchors`` (B, N, 4) toward their matched corner ``refs`` (B, M, 4):
    ``((dx, dy, log dw, log dh) - means) / stds`` where ``samples`` (B, N) > 0.5, else 0; returns
    ``(targets, masks)``, both (B, N, 4).

    >>> import jax.numpy as jnp
    >>> t, m = box_encode(jnp.ones((1, 1)), jnp.zeros((1, 1)), jnp.array([[[0.0, 0, 2, 2]]]),
    ...                   jnp.array([[[1.0, 1, 3, 3]]]), jnp.zeros(4), jnp.ones(4))
    >>> t.tolist(), m.tolist()
    ([[[0.5, 0.5, 0.0, 0.0]]], [[[1.0, 1.0, 1.0, 1.0]]])
    """
    samples, matches, anchors, refs, means, stds = (
        lax.stop_gradient(jnp.asarray(v)) for v in (samples, matches, anchors, refs, means, stds))
    if anchors.ndim != 3 or anchors.shape[-1] != 4 or refs.ndim != 3 or refs.shape[-1] != 4:
        raise ValueError(f"box_encode: anchors must be (B, N, 4) and refs (B, M, 4), got "
                         f"{tuple(anchors.shape)} and {tuple(refs.shape)}")
    idx = jnp.clip(matches.astype(jnp.int32), 0, refs.shape[1] - 1)
    ref = jnp.take_along_axis(refs, idx[..., None], axis=1)
    rw, rh = ref[..., 2] - ref[..., 0], ref[..., 3] - ref[..., 1]
    rx, ry = ref[..., 0] + rw * 0.5, ref[..., 1] + rh * 0.5
    aw, ah = anchors[..., 2] - anchors[..., 0], anchors[..., 3] - anchors[..., 1]
    ax, ay = anchors[..., 0] + aw * 0.5, anchors[..., 1] + ah * 0.5
    valid = samples > 0.5
    raw = jnp.stack([(rx - ax) / aw, (ry - ay) / ah, jnp.log(rw / aw), jnp.log(rh / ah)], axis=-1)
    targets = jnp.where(valid[..., None], (raw - means) / stds, 0).astype(anchors.dtype)
    masks = jnp.broadcast_to(valid[..., None], anchors.shape).astype(anchors.dtype)
    return targets, masks


@compiled("data", "anchors")
def box_decode(data: jax.Array, anchors: jax.Array, std0: float = 1.0, std1: float = 1.0,
               std2: float = 1.0, std3: float = 1.0, clip: float = -1.0,
               format: str = "center") -> jax.Array:  # noqa: A002
    """Boxes (B, N, 4) in corner format from offsets ``data`` (B, N, 4) and ``anchors`` (1, N, 4) in
    ``format``: centre ``x + dx*std0*w``, size ``w * exp(min(dw*std2, clip))`` (no clip when clip <= 0).

    >>> import jax.numpy as jnp
    >>> box_decode(jnp.zeros((1, 1, 4)), jnp.array([[[1.0, 1.0, 2.0, 2.0]]])).tolist()
    [[[0.0, 0.0, 2.0, 2.0]]]
    """
    fmt = _format(format, "format", "box_decode")
    data, anchors = lax.stop_gradient(data), lax.stop_gradient(anchors)
    if data.ndim != 3 or data.shape[-1] != 4:
        raise ValueError(f"box_decode: data must be (B, N, 4), got {tuple(data.shape)}")
    a = anchors.reshape((1, -1, 4))
    if a.shape[1] != data.shape[1]:
        raise ValueError(f"box_decode: anchors {tuple(anchors.shape)} must hold one box per row of data "
                         f"{tuple(data.shape)}: (1, {data.shape[1]}, 4)")
    ax, ay, aw, ah = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    if fmt == "corner":
        aw, ah = aw - ax, ah - ay
        ax, ay = ax + aw * 0.5, ay + ah * 0.5
    ox = data[..., 0] * std0 * aw + ax
    oy = data[..., 1] * std1 * ah + ay
    dw, dh = data[..., 2] * std2, data[..., 3] * std3
    if clip > 0:
        dw, dh = jnp.minimum(dw, clip), jnp.minimum(dh, clip)
    ow, oh = jnp.exp(dw) * aw * 0.5, jnp.exp(dh) * ah * 0.5
    return jnp.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1).astype(data.dtype)


@compiled("data")
def bipartite_matching(data: jax.Array, is_ascend: bool = False, threshold: Any = None,
                       topk: int = -1) -> tuple[jax.Array, jax.Array]:
    """Greedy one-to-one matching on a score matrix ``data`` (..., R, C): repeatedly the best remaining
    entry (highest, or lowest with ``is_ascend``) whose row and column are both free is matched, until
    the best one fails ``threshold``. Returns ``(row_marker (..., R), col_marker (..., C))``: the matched
    column of each row, the matched row of each column, -1 when unmatched. As in MXNet, ``topk > 0``
    stops after ``topk + 1`` matches.

    >>> import jax.numpy as jnp
    >>> r, c = bipartite_matching(jnp.array([[0.5, 0.6], [0.1, 0.2], [0.3, 0.4]]), threshold=1e-12)
    >>> r.tolist(), c.tolist()
    ([1.0, -1.0, 0.0], [2.0, 0.0])
    """
    if threshold is None:
        raise TypeError("bipartite_matching: threshold is required (matches stop at the first score "
                        "that fails it)")
    if data.ndim < 2:
        raise ValueError(f"bipartite_matching: data must be (..., rows, cols), got {tuple(data.shape)}")
    data = lax.stop_gradient(data)
    r, c = data.shape[-2], data.shape[-1]
    flat = data.reshape((-1, r * c))
    limit = min(r, c) if topk <= 0 else min(r, c, int(topk) + 1)
    bad = jnp.inf if is_ascend else -jnp.inf

    def one(scores):
        def step(_, carry):
            rows, cols, done = carry
            free = (rows[:, None] < 0) & (cols[None, :] < 0)
            masked = jnp.where(free.reshape(-1), scores, bad)
            j = jnp.argmin(masked) if is_ascend else jnp.argmax(masked)
            best = masked[j]
            ok = (best < threshold) if is_ascend else (best > threshold)
            ok = ok & ~done & free.reshape(-1)[j]
            ri, ci = j // c, j % c
            rows = jnp.where(ok, rows.at[ri].set(ci), rows)
            cols = jnp.where(ok, cols.at[ci].set(ri), cols)
            return rows, cols, done | ~ok

        init = (jnp.full((r,), -1, jnp.int32), jnp.full((c,), -1, jnp.int32), jnp.asarray(False))
        rows, cols, _ = lax.fori_loop(0, limit, step, init)
        return rows, cols

    rows, cols = jax.vmap(one)(flat)
    lead = data.shape[:-2]
    return rows.reshape(lead + (r,)).astype(data.dtype), cols.reshape(lead + (c,)).astype(data.dtype)
