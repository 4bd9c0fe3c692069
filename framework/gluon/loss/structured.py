"""Losses over several inputs or sequences: TripletLoss, CosineEmbeddingLoss, PoissonNLLLoss, CTCLoss
(MXNet 1.9.1's formulas, in jax.numpy; CTC through ``optax.ctc_loss``)."""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import optax

from .base import Loss, _apply_weighting, _given, _reshape_like

__all__ = ["TripletLoss", "CosineEmbeddingLoss", "PoissonNLLLoss", "CTCLoss"]


class TripletLoss(Loss):
    """``max(0, sum(|positive - pred|^2 - |negative - pred|^2) + margin)`` per sample (summed over every
    axis but ``batch_axis``)."""

    def __init__(self, margin: float = 1, weight: float | None = None, batch_axis: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def forward(self, pred, positive, negative, sample_weight=None):
        positive, negative = _reshape_like(positive, pred), _reshape_like(negative, pred)
        axis = self._batch_axis % pred.ndim
        diff = jnp.square(positive - pred) - jnp.square(negative - pred)
        loss = jnp.sum(diff, axis=tuple(i for i in range(pred.ndim) if i != axis))
        return _apply_weighting(jax.nn.relu(loss + self._margin), self._weight, sample_weight)


class CosineEmbeddingLoss(Loss):
    """``1 - cos(input1, input2)`` for label 1, ``max(0, cos - margin)`` for label -1, per sample.

    The output has shape (N,) like every other Gluon loss and MXNet 2.0's; MXNet 1.9.1 returned (N, 1),
    which broadcasts against (N,) losses into an (N, N) sum: add ``.reshape(-1, 1)`` where 1.x code
    relied on it.

    >>> from framework import np
    >>> CosineEmbeddingLoss()(np.ones((3, 4)), np.ones((3, 4)), np.array([1, -1, 1])).tolist()
    [0.0, 1.0, 0.0]
    """

    def __init__(self, weight: float | None = None, batch_axis: int = 0, margin: float = 0,
                 **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def forward(self, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(input1, input2)
        label = jnp.asarray(label).reshape((-1, 1))
        x_norm = jnp.linalg.norm(input1, axis=-1).reshape((-1, 1))
        y_norm = jnp.linalg.norm(input2, axis=-1).reshape((-1, 1))
        dot = jnp.sum(input1 * input2, axis=-1).reshape((-1, 1))
        cos = dot / jnp.maximum(x_norm * y_norm, 1e-12)
        loss = (1 - cos) * (label == 1) + jnp.maximum(0.0, (label == -1) * (cos - self._margin))
        if _given(sample_weight):  # (N,) or (N, 1): one weight per sample
            sample_weight = jnp.reshape(sample_weight, (-1, 1))
        return _apply_weighting(loss, self._weight, sample_weight).reshape(-1)


class PoissonNLLLoss(Loss):
    """Poisson negative log-likelihood, averaged over *all* elements (a scalar, as MXNet's):
    ``exp(pred) - target*pred`` (``from_logits``) or ``pred - target*log(pred + epsilon)``; with
    ``compute_full`` the Stirling term ``t*log(t) - t + 0.5*log(2*pi*t)`` is added where ``t > 1``."""

    def __init__(self, weight: float | None = None, from_logits: bool = True, batch_axis: int = 0,
                 compute_full: bool = False, **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def forward(self, pred, target, sample_weight=None, epsilon=1e-08):
        target = _reshape_like(target, pred)
        if self._from_logits:
            loss = jnp.exp(pred) - target * pred
        else:
            loss = pred - target * jnp.log(pred + epsilon)
        if self._compute_full:
            safe = jnp.where(target > 1, target, 2.0)
            stirling = safe * jnp.log(safe) - safe + 0.5 * jnp.log(2 * safe * math.pi)
            loss = loss + jnp.where(target > 1, stirling, 0.0)
        return jnp.mean(_apply_weighting(loss, self._weight, sample_weight))


class CTCLoss(Loss):
    """Connectionist temporal classification loss, one value per sequence.

    ``pred``: unnormalised activations, layout 'NTC' or 'TNC'; ``label``: class indices 0..C-2 in layout
    'NT' or 'TN' (the blank is the *last* class, C-1, as MXNet's Gluon CTCLoss), padded with -1 when
    ``label_lengths`` is not given (a label ends at its first -1). ``pred_lengths`` / ``label_lengths``
    give the valid lengths per sequence.

    >>> import jax.numpy as jnp
    >>> loss = CTCLoss()(jnp.zeros((1, 3, 4)), jnp.array([[1, 2, -1]]))
    >>> loss.shape
    (1,)
    """

    def __init__(self, layout: str = "NTC", label_layout: str = "NT", weight: float | None = None,
                 **kwargs: Any) -> None:
        if layout not in ("NTC", "TNC"):
            raise ValueError(f"Only 'NTC' and 'TNC' layouts for pred are supported. Got: {layout}")
        if label_layout not in ("NT", "TN"):
            raise ValueError(f"Only 'NT' and 'TN' layouts for label are supported. Got: {label_layout}")
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.find("N"), **kwargs)

    def forward(self, pred, label, pred_lengths=None, label_lengths=None, sample_weight=None):
        if self._layout == "TNC":
            pred = jnp.swapaxes(pred, 0, 1)
        label = jnp.asarray(label)
        if self._label_layout == "TN":
            label = jnp.swapaxes(label, 0, 1)
        n, t, c = pred.shape
        if label.ndim != 2 or label.shape[0] != n:
            raise ValueError(f"CTCLoss: label of shape {tuple(label.shape)} does not match {n} sequences "
                             f"(pred of shape {tuple(pred.shape)} in layout {self._layout!r}, label layout "
                             f"{self._label_layout!r})")
        label = label.astype(jnp.int32)
        positions = jnp.arange(label.shape[1])
        if _given(label_lengths):
            label_pad = positions[None, :] >= jnp.asarray(label_lengths).astype(jnp.int32)[:, None]
        else:
            label_pad = jnp.cumsum(label == -1, axis=1) > 0
        if _given(pred_lengths):
            logit_pad = jnp.arange(t)[None, :] >= jnp.asarray(pred_lengths).astype(jnp.int32)[:, None]
        else:
            logit_pad = jnp.zeros((n, t), bool)
        labels = jnp.where(label_pad, 0, label)
        loss = optax.ctc_loss(pred, logit_pad.astype(pred.dtype), labels, label_pad.astype(pred.dtype),
                              blank_id=c - 1)
        return _apply_weighting(loss, self._weight, sample_weight)
