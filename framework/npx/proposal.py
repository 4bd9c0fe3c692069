"""Faster R-CNN's region proposal operators as MXNet 1.x computes them (``contrib.Proposal`` for one
image, ``contrib.MultiProposal`` for a batch): anchors of every ``scales`` x ``ratios`` pair at each
``feature_stride`` cell, moved by the predicted deltas (or, with ``iou_loss``, by corner offsets) and
clipped to the image; boxes smaller than ``rpn_min_size * scale`` or on the padded part of the map get
score -1; the ``rpn_pre_nms_top_n`` best (a stable descending sort) go through greedy NMS (IoU with
MXNet's +1 pixel areas, ``> threshold`` suppresses) and the first ``rpn_post_nms_top_n`` kept are
returned as ``[batch, x1, y1, x2, y2]`` rows, repeated cyclically when fewer were kept. No gradient
flows (MXNet's backward is zero).

>>> import jax.numpy as jnp
>>> cls = jnp.concatenate([jnp.zeros((1, 1, 2, 2)), jnp.array([[[[0.9, 0.1], [0.2, 0.8]]]])], axis=1)
>>> rois = proposal(cls, jnp.zeros((1, 4, 2, 2)), jnp.array([[32.0, 32.0, 1.0]]), rpn_post_nms_top_n=2,
...                 scales=(1,), ratios=(1,), rpn_min_size=1)
>>> rois.tolist()
[[0.0, 0.0, 0.0, 15.0, 15.0], [0.0, 16.0, 16.0, 31.0, 31.0]]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ._kernel import compiled

__all__ = ["proposal", "multi_proposal"]


def _anchors(stride: int, scales: Sequence[float], ratios: Sequence[float]) -> list[list[float]]:
    """MXNet's base anchors (ratios outer, scales inner) around the centre of the first
    ``stride`` x ``stride`` cell."""
    size = float(stride) * float(stride)
    ctr = 0.5 * (stride - 1.0)
    out = []
    for ratio in ratios:
        for scale in scales:
            side = math.floor(math.sqrt(math.floor(size / ratio)) + 0.5)
            new_w = side * scale
            new_h = math.floor(side * ratio + 0.5) * scale
            out.append([ctr - 0.5 * (new_w - 1.0), ctr - 0.5 * (new_h - 1.0),
                        ctr + 0.5 * (new_w - 1.0), ctr + 0.5 * (new_h - 1.0)])
    return out


def _nms_keep(boxes: jax.Array, thresh: float, post: int) -> tuple[jax.Array, jax.Array]:
    """Greedy NMS over boxes already in score order: the indices of the first ``post`` kept (padded)
    and how many were kept."""
    n = boxes.shape[0]
    x1, y1, x2, y2 = (boxes[:, i] for i in range(4))
    area = (x2 - x1 + 1) * (y2 - y1 + 1)

    def body(i, carry):
        suppressed, keep, count = carry
        take = (~suppressed[i]) & (count < post)
        iw = jnp.maximum(0.0, jnp.minimum(x2[i], x2) - jnp.maximum(x1[i], x1) + 1.0)
        ih = jnp.maximum(0.0, jnp.minimum(y2[i], y2) - jnp.maximum(y1[i], y1) + 1.0)
        inter = iw * ih
        ovr = inter / (area[i] + area - inter)
        later = jnp.arange(n) > i
        suppressed = suppressed | (take & later & (ovr > thresh))
        keep = jnp.where(take, keep.at[jnp.minimum(count, post - 1)].set(i), keep)
        return suppressed, keep, count + take.astype(jnp.int32)

    init = (jnp.zeros((n,), bool), jnp.zeros((post,), jnp.int32), jnp.int32(0))
    _, keep, count = lax.fori_loop(0, n, body, init)
    return keep, count


def _one_image(scores: jax.Array, deltas: jax.Array, info: jax.Array, *, pre: int, post: int,
               out_rows: int, thresh: float, min_size: float, stride: int, base: jax.Array,
               iou_loss: bool) -> tuple[jax.Array, jax.Array]:
    """(out_rows, 4) boxes and (out_rows,) scores of one image; ``scores`` (A, H, W) foreground,
    ``deltas`` (4A, H, W)."""
    a, h, w = scores.shape
    shift_x = jnp.arange(w, dtype=jnp.float32) * stride
    shift_y = jnp.arange(h, dtype=jnp.float32) * stride
    # index = y * (W * A) + x * A + anchor, as MXNet lays its proposals out
    sx = jnp.broadcast_to(shift_x[None, :, None], (h, w, 1))
    sy = jnp.broadcast_to(shift_y[:, None, None], (h, w, 1))
    anchors = base[None, None] + jnp.stack([sx, sy, sx, sy], axis=-1)  # (H, W, A, 4)
    d = jnp.transpose(deltas.reshape(a, 4, h, w), (2, 3, 0, 1))  # (H, W, A, 4)
    s = jnp.transpose(scores, (1, 2, 0))  # (H, W, A)
    im_h, im_w = info[0], info[1]
    if iou_loss:
        box = anchors + d
    else:
        bw = anchors[..., 2] - anchors[..., 0] + 1.0
        bh = anchors[..., 3] - anchors[..., 1] + 1.0
        cx = anchors[..., 0] + 0.5 * (bw - 1.0)
        cy = anchors[..., 1] + 0.5 * (bh - 1.0)
        px, py = d[..., 0] * bw + cx, d[..., 1] * bh + cy
        pw, ph = jnp.exp(d[..., 2]) * bw, jnp.exp(d[..., 3]) * bh
        box = jnp.stack([px - 0.5 * (pw - 1.0), py - 0.5 * (ph - 1.0),
                         px + 0.5 * (pw - 1.0), py + 0.5 * (ph - 1.0)], axis=-1)
    lim = jnp.stack([im_w - 1.0, im_h - 1.0, im_w - 1.0, im_h - 1.0])
    box = jnp.maximum(jnp.minimum(box, lim), 0.0)
    real_h = jnp.floor(im_h / stride).astype(jnp.int32)
    real_w = jnp.floor(im_w / stride).astype(jnp.int32)
    padded = (jnp.arange(h)[:, None, None] >= real_h) | (jnp.arange(w)[None, :, None] >= real_w)
    s = jnp.where(padded, -1.0, s)
    msize = min_size * info[2]
    small = ((box[..., 2] - box[..., 0] + 1.0) < msize) | ((box[..., 3] - box[..., 1] + 1.0) < msize)
    grow = jnp.stack([-msize, -msize, msize, msize]) / 2
    box = jnp.where(small[..., None], box + grow, box)
    s = jnp.where(small, -1.0, s)
    box, s = box.reshape(-1, 4), s.reshape(-1)
    order = jnp.argsort(-s, stable=True)[:pre]
    box, s = box[order], s[order]
    keep, count = _nms_keep(box, thresh, post)
    rows = jnp.arange(out_rows)
    pick = keep[jnp.where(rows < count, rows, rows % jnp.maximum(count, 1))]
    return box[pick], s[pick]


def _run(cls_prob, bbox_pred, im_info, rpn_pre_nms_top_n, rpn_post_nms_top_n, threshold, rpn_min_size,
         scales, ratios, feature_stride, output_score, iou_loss, op):
    if cls_prob.ndim != 4 or bbox_pred.ndim != 4 or im_info.ndim != 2:
        raise ValueError(f"{op}: cls_prob and bbox_pred must be (N, C, H, W) and im_info (N, 3); got "
                         f"{tuple(cls_prob.shape)}, {tuple(bbox_pred.shape)}, {tuple(im_info.shape)}")
    n, c2, h, w = cls_prob.shape
    a = c2 // 2
    if a != len(scales) * len(ratios) or bbox_pred.shape[1] != 4 * a:
        raise ValueError(f"{op}: cls_prob has {c2} channels and bbox_pred {bbox_pred.shape[1]}: expected "
                         f"2 and 4 per anchor, {len(scales)} scales x {len(ratios)} ratios = "
                         f"{len(scales) * len(ratios)} anchors")
    count = a * h * w
    pre = min(rpn_pre_nms_top_n if rpn_pre_nms_top_n > 0 else count, count)
    post = min(int(rpn_post_nms_top_n), pre)
    base = jnp.asarray(_anchors(int(feature_stride), scales, ratios), jnp.float32)
    one = jax.vmap(lambda sc, de, inf: _one_image(
        sc, de, inf, pre=pre, post=post, out_rows=int(rpn_post_nms_top_n), thresh=float(threshold),
        min_size=float(rpn_min_size), stride=int(feature_stride), base=base, iou_loss=bool(iou_loss)))
    cls_prob, bbox_pred, im_info = (lax.stop_gradient(x).astype(jnp.float32)
                                    for x in (cls_prob, bbox_pred, im_info))
    boxes, score = one(cls_prob[:, a:], bbox_pred, im_info)
    batch = jnp.broadcast_to(jnp.arange(n, dtype=jnp.float32)[:, None, None], boxes.shape[:2] + (1,))
    rois = jnp.concatenate([batch, boxes], axis=-1).reshape(-1, 5)
    if output_score:
        return rois, score.reshape(-1, 1)
    return rois


@compiled("cls_prob", "bbox_pred", "im_info")
def multi_proposal(cls_prob: jax.Array, bbox_pred: jax.Array, im_info: jax.Array,
                   rpn_pre_nms_top_n: int = 6000, rpn_post_nms_top_n: int = 300, threshold: float = 0.7,
                   rpn_min_size: int = 16, scales: Sequence[float] = (4.0, 8.0, 16.0, 32.0),
                   ratios: Sequence[float] = (0.5, 1.0, 2.0), feature_stride: int = 16,
                   output_score: bool = False, iou_loss: bool = False) -> Any:
    """``contrib.MultiProposal``: (N * rpn_post_nms_top_n, 5) rois of a batch (and (., 1) scores with
    ``output_score``)."""
    return _run(cls_prob, bbox_pred, im_info, rpn_pre_nms_top_n, rpn_post_nms_top_n, threshold, rpn_min_size,
                tuple(scales), tuple(ratios), feature_stride, output_score, iou_loss, "MultiProposal")


@compiled("cls_prob", "bbox_pred", "im_info")
def proposal(cls_prob: jax.Array, bbox_pred: jax.Array, im_info: jax.Array,
             rpn_pre_nms_top_n: int = 6000, rpn_post_nms_top_n: int = 300, threshold: float = 0.7,
             rpn_min_size: int = 16, scales: Sequence[float] = (4.0, 8.0, 16.0, 32.0),
             ratios: Sequence[float] = (0.5, 1.0, 2.0), feature_stride: int = 16,
             output_score: bool = False, iou_loss: bool = False) -> Any:
    """``contrib.Proposal``: as :func:`multi_proposal` for a batch of one image (MXNet refuses more)."""
    if cls_prob.shape[0] != 1:
        raise ValueError(f"Proposal: one image per call (cls_prob {tuple(cls_prob.shape)}); use "
                         "MultiProposal for a batch")
    return _run(cls_prob, bbox_pred, im_info, rpn_pre_nms_top_n, rpn_post_nms_top_n, threshold, rpn_min_size,
                tuple(scales), tuple(ratios), feature_stride, output_score, iou_loss, "Proposal")
