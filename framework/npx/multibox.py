"""SSD's anchor operators: ``multibox_prior``, ``multibox_target``, ``multibox_detection`` (MXNet's
``contrib.MultiBoxPrior``/``MultiBoxTarget``/``MultiBoxDetection``, ``npx.multibox_*``).

MXNet's rules, kept here: anchors per location are ``len(sizes) + len(ratios) - 1`` (every size at the
first ratio, then every other ratio at the first size); targets match each ground truth to its best anchor
first, then every anchor whose best IoU passes the threshold; detections keep suppressed rows in place
with class -1. All three have zero gradients in MXNet, and here.

>>> import jax.numpy as jnp
>>> multibox_prior(jnp.zeros((1, 3, 2, 2)), sizes=(0.5,), ratios=(1.0, 4.0)).shape
(1, 8, 4)
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as onp
from jax import lax

from ._kernel import compiled

__all__ = ["multibox_prior", "multibox_target", "multibox_detection"]


def _floats(v, name: str, op: str) -> tuple[float, ...]:
    out = (float(v),) if isinstance(v, (int, float)) else tuple(float(x) for x in v)
    if not out:
        raise ValueError(f"{op}: {name} must hold at least one value")
    return out


def multibox_prior(data: jax.Array, sizes: Sequence[float] = (1.0,), ratios: Sequence[float] = (1.0,),
                   clip: bool = False, steps: Sequence[float] = (-1.0, -1.0),
                   offsets: Sequence[float] = (0.5, 0.5)) -> jax.Array:
    """Anchor boxes (1, H*W*(len(sizes)+len(ratios)-1), 4) in corner format, relative to the image, for
    the (N, C, H, W) feature map ``data``; ``steps`` (y, x) default to 1/H, 1/W; ``offsets`` (y, x) place
    the centres within a cell.

    >>> import jax.numpy as jnp
    >>> multibox_prior(jnp.zeros((1, 1, 1, 1)), sizes=(0.5,)).tolist()
    [[[0.25, 0.25, 0.75, 0.75]]]
    """
    op = "multibox_prior"
    sizes, ratios = _floats(sizes, "sizes", op), _floats(ratios, "ratios", op)
    steps, offsets = _floats(steps, "steps", op), _floats(offsets, "offsets", op)
    if data.ndim != 4:
        raise ValueError(f"{op}: data must be (N, C, H, W), got shape {tuple(data.shape)}")
    if len(steps) != 2 or len(offsets) != 2:
        raise ValueError(f"{op}: steps and offsets take two values (y, x), got {steps} and {offsets}")
    h, w = data.shape[2], data.shape[3]
    step_y, step_x = steps
    if step_y <= 0 or step_x <= 0:
        step_y, step_x = 1.0 / h, 1.0 / w
    f32 = onp.float32  # MXNet computes in float32, in this order
    cy = (onp.arange(h, dtype=f32) + f32(offsets[0])) * f32(step_y)
    cx = (onp.arange(w, dtype=f32) + f32(offsets[1])) * f32(step_x)
    shapes = [(s, ratios[0]) for s in sizes] + [(sizes[0], r) for r in ratios[1:]]
    half_w = onp.asarray([f32(s) * f32(h) / f32(w) * onp.sqrt(f32(r)) / f32(2) for s, r in shapes], f32)
    half_h = onp.asarray([f32(s) / onp.sqrt(f32(r)) / f32(2) for s, r in shapes], f32)
    cyy = cy[:, None, None]
    cxx = cx[None, :, None]
    boxes = onp.stack(onp.broadcast_arrays(cxx - half_w, cyy - half_h, cxx + half_w, cyy + half_h), axis=-1)
    boxes = boxes.reshape((1, -1, 4))
    if clip:
        boxes = onp.clip(boxes, f32(0), f32(1))
    return jnp.asarray(boxes, dtype=data.dtype)


def _iou_matrix(anchors, gts):
    """IoU (A, L) of corner anchors (A, 4) with ground truths (L, 4); 0 where the union is not positive."""
    a = anchors[:, None, :]
    g = gts[None, :, :]
    iw = jnp.maximum(0.0, jnp.minimum(a[..., 2], g[..., 2]) - jnp.maximum(a[..., 0], g[..., 0]))
    ih = jnp.maximum(0.0, jnp.minimum(a[..., 3], g[..., 3]) - jnp.maximum(a[..., 1], g[..., 1]))
    inter = iw * ih
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    union = area_a + (g[..., 2] - g[..., 0]) * (g[..., 3] - g[..., 1]) - inter
    return jnp.where(union == 0, 0.0, inter / jnp.where(union == 0, 1.0, union))


@compiled("anchor", "label", "cls_pred")
def multibox_target(anchor: jax.Array, label: jax.Array, cls_pred: jax.Array, overlap_threshold: float = 0.5,
                    ignore_label: float = -1.0, negative_mining_ratio: float = -1.0,
                    negative_mining_thresh: float = 0.5, minimum_negative_samples: int = 0,
                    variances: Sequence[float] = (0.1, 0.1, 0.2, 0.2)
                    ) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Training targets for ``anchor`` (1, A, 4) from ``label`` (B, L, >=5: class, corners; class -1 ends
    the list) and ``cls_pred`` (B, classes, A): ``(loc_target (B, A*4), loc_mask (B, A*4),
    cls_target (B, A))``. Positives get class + 1 and encoded offsets; negatives 0 (the hardest
    ``negative_mining_ratio`` x positives when mining); the rest ``ignore_label``.
    ``minimum_negative_samples`` is accepted and, as in MXNet's kernel, unused.

    >>> import jax.numpy as jnp
    >>> loc, mask, cls = multibox_target(jnp.array([[[0.0, 0, 0.5, 0.5], [0.5, 0.5, 1, 1]]]),
    ...                                  jnp.array([[[2.0, 0.1, 0.1, 0.5, 0.5]]]), jnp.zeros((1, 3, 2)))
    >>> cls.tolist()
    [[3.0, 0.0]]
    """
    op = "multibox_target"
    var = _floats(variances, "variances", op)
    if len(var) != 4:
        raise ValueError(f"{op}: variances takes 4 values, got {var}")
    if label.ndim != 3 or label.shape[-1] < 5:
        raise ValueError(f"{op}: label must be (batch, num_labels, >=5), got {tuple(label.shape)}")
    anchors = lax.stop_gradient(anchor).reshape((-1, 4)).astype(jnp.float32)
    label, cls_pred = lax.stop_gradient(label), lax.stop_gradient(cls_pred)
    num_a, num_l = anchors.shape[0], label.shape[1]
    if cls_pred.ndim != 3 or cls_pred.shape[2] != num_a:
        raise ValueError(f"{op}: cls_pred must be (batch, num_classes, {num_a}), got {tuple(cls_pred.shape)}")
    dtype = label.dtype

    def one(lab, pred):
        valid_gt = jnp.cumprod(lab[:, 0] != -1.0).astype(bool)  # the prefix before the first class -1
        iou = _iou_matrix(anchors, lab[:, 1:5].astype(jnp.float32))
        iou_v = jnp.where(valid_gt[None, :], iou, -1.0)

        def bipartite(_, carry):
            match, a_used, g_used, done = carry
            free = ~a_used[:, None] & ~g_used[None, :] & valid_gt[None, :]
            cand = jnp.where(free, iou, -jnp.inf).reshape(-1)
            j = jnp.argmax(cand)
            ok = (cand[j] > 1e-6) & ~done
            ai, gi = j // num_l, j % num_l
            return (jnp.where(ok, match.at[ai].set(gi), match),
                    jnp.where(ok, a_used.at[ai].set(True), a_used),
                    jnp.where(ok, g_used.at[gi].set(True), g_used), done | ~ok)

        init = (jnp.full((num_a,), -1, jnp.int32), jnp.zeros((num_a,), bool), jnp.zeros((num_l,), bool),
                jnp.asarray(False))
        match, positive, _, _ = lax.fori_loop(0, num_l, bipartite, init)
        best_gt = jnp.argmax(iou_v, axis=1).astype(jnp.int32)
        best_iou = jnp.max(iou_v, axis=1)
        if overlap_threshold > 0:
            extra = ~positive & (best_iou > overlap_threshold)
            match = jnp.where(extra, best_gt, match)
            positive = positive | extra
        n_pos = jnp.sum(positive)
        if negative_mining_ratio > 0:
            n_neg = jnp.minimum((n_pos.astype(jnp.float32) * negative_mining_ratio).astype(jnp.int32),
                                num_a - n_pos)
            cand = ~positive & (best_iou < negative_mining_thresh)
            p = pred.astype(jnp.float32)
            p = jnp.exp(p - jnp.max(p, axis=0))
            prob = p[0] / jnp.sum(p, axis=0)
            order = jnp.argsort(jnp.where(cand, prob, jnp.inf), stable=True)
            rank = jnp.zeros((num_a,), jnp.int32).at[order].set(jnp.arange(num_a, dtype=jnp.int32))
            negative = cand & (rank < n_neg)
        else:
            negative = ~positive
        any_gt = valid_gt[0]
        positive, negative = positive & any_gt, negative & any_gt
        gt = lab[jnp.clip(match, 0, num_l - 1)]
        g = gt[:, 1:5].astype(jnp.float32)
        aw, ah = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
        ax, ay = (anchors[:, 0] + anchors[:, 2]) * 0.5, (anchors[:, 1] + anchors[:, 3]) * 0.5
        gw, gh = g[:, 2] - g[:, 0], g[:, 3] - g[:, 1]
        gx, gy = (g[:, 0] + g[:, 2]) * 0.5, (g[:, 1] + g[:, 3]) * 0.5
        loc = jnp.stack([(gx - ax) / aw / var[0], (gy - ay) / ah / var[1], jnp.log(gw / aw) / var[2],
                         jnp.log(gh / ah) / var[3]], axis=-1)
        loc = jnp.where(positive[:, None], loc, 0.0).astype(dtype)
        mask = jnp.broadcast_to(positive[:, None], (num_a, 4)).astype(dtype)
        cls = jnp.where(positive, gt[:, 0] + 1, jnp.where(negative, 0, ignore_label)).astype(dtype)
        return loc.reshape(-1), mask.reshape(-1), cls

    return jax.vmap(one)(label, cls_pred)


@compiled("cls_prob", "loc_pred", "anchor")
def multibox_detection(cls_prob: jax.Array, loc_pred: jax.Array, anchor: jax.Array, clip: bool = True,
                       threshold: float = 0.01, background_id: int = 0, nms_threshold: float = 0.5,
                       force_suppress: bool = False, variances: Sequence[float] = (0.1, 0.1, 0.2, 0.2),
                       nms_topk: int = -1) -> jax.Array:
    """Detections (B, A, 6) ``[class, score, xmin, ymin, xmax, ymax]`` from ``cls_prob`` (B, classes, A)
    (class 0 is the background), ``loc_pred`` (B, A*4) and ``anchor`` (1, A, 4). Rows whose best
    foreground score passes ``threshold`` come first, sorted by score; suppressed ones (IoU >=
    ``nms_threshold`` with a better one of the same class) keep their place with class -1; the rest are
    -1. ``background_id`` is accepted and, as in MXNet's kernel, unused (class 0 is the background).

    >>> import jax.numpy as jnp
    >>> det = multibox_detection(jnp.array([[[0.1, 0.8], [0.9, 0.2]]]), jnp.zeros((1, 8)),
    ...                          jnp.array([[[0.0, 0, 0.5, 0.5], [0.5, 0.5, 1, 1]]]))
    >>> det[0, :, 0].tolist()
    [0.0, 0.0]
    """
    op = "multibox_detection"
    var = _floats(variances, "variances", op)
    if len(var) != 4:
        raise ValueError(f"{op}: variances takes 4 values, got {var}")
    cls_prob = lax.stop_gradient(cls_prob)
    b, num_c, num_a = cls_prob.shape
    anchors = lax.stop_gradient(anchor).reshape((num_a, 4))
    loc = lax.stop_gradient(loc_pred).reshape((b, num_a, 4))
    dtype = cls_prob.dtype

    def one(prob, lp):
        fg = prob[1:]
        score = jnp.max(fg, axis=0)
        cid = jnp.argmax(fg, axis=0) + 1
        found = score > -1
        score = jnp.where(found, score, -1.0)
        cid = jnp.where(found, cid, 0)
        cid = jnp.where((cid > 0) & (score < threshold), 0, cid)
        al, at, ar, ab = anchors[:, 0], anchors[:, 1], anchors[:, 2], anchors[:, 3]
        aw, ah = ar - al, ab - at
        ax, ay = (al + ar) / 2, (at + ab) / 2
        ox, oy = lp[:, 0] * var[0] * aw + ax, lp[:, 1] * var[1] * ah + ay
        ow, oh = jnp.exp(lp[:, 2] * var[2]) * aw / 2, jnp.exp(lp[:, 3] * var[3]) * ah / 2
        box = jnp.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1)
        if clip:
            box = jnp.clip(box, 0.0, 1.0)
        rows = jnp.concatenate([(cid - 1)[:, None].astype(dtype), score[:, None].astype(dtype),
                                box.astype(dtype)], axis=1)
        valid = cid > 0
        count = jnp.sum(valid)
        pos = jnp.arange(num_a)
        packed = jnp.where((pos < count)[:, None], rows[jnp.argsort(~valid, stable=True)], -1.0).astype(dtype)
        if not 0 < nms_threshold <= 1:
            return packed
        order = jnp.argsort(jnp.where(pos < count, -packed[:, 1], jnp.inf), stable=True)
        keep = count if nms_topk <= 0 else jnp.minimum(count, nms_topk)
        srt = packed[order]
        out = jnp.where((pos < keep)[:, None], srt, packed.at[:, 0].set(-1.0))  # past nms_topk: class -1
        bx = out[:, 2:]
        area = (bx[:, 2] - bx[:, 0]) * (bx[:, 3] - bx[:, 1])

        def cond(carry):
            i, _ = carry
            return i < keep

        def body(carry):
            i, cls = carry
            iw = jnp.maximum(0.0, jnp.minimum(bx[i, 2], bx[:, 2]) - jnp.maximum(bx[i, 0], bx[:, 0]))
            ih = jnp.maximum(0.0, jnp.minimum(bx[i, 3], bx[:, 3]) - jnp.maximum(bx[i, 1], bx[:, 1]))
            inter = iw * ih
            union = area[i] + area - inter
            iou = jnp.where(union <= 0, 0.0, inter / jnp.where(union <= 0, 1.0, union))
            same = jnp.ones_like(cls, bool) if force_suppress else cls == cls[i]
            hit = (cls[i] >= 0) & (pos > i) & (pos < keep) & (cls >= 0) & same & (iou >= nms_threshold)
            return i + 1, jnp.where(hit, -1.0, cls).astype(cls.dtype)

        _, cls = lax.while_loop(cond, body, (jnp.asarray(0, keep.dtype), out[:, 0]))
        return out.at[:, 0].set(cls)

    return jax.vmap(one)(cls_prob, loc)
