"""``SDMLLoss``: the smoothed deep metric learning loss (MXNet 1.9.1's formula): for a batch of paired
embeddings ``x1[i] <-> x2[i]``, the KL divergence between a softmax over negative squared distances and
smoothed one-hot targets (the pair's own partner gets ``1 - smoothing_parameter``).

>>> import jax.numpy as jnp
>>> from framework import gluon
>>> loss = gluon.loss.SDMLLoss()
>>> loss(jnp.eye(3), jnp.eye(3)).shape
(3,)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from .base import Loss

__all__ = ["SDMLLoss"]


class SDMLLoss(Loss):
    """``loss(x1, x2)`` for (batch, dim) embeddings; one value per sample."""

    def __init__(
        self, smoothing_parameter: float = 0.3, weight: float = 1.0, batch_axis: int = 0, **kwargs: Any
    ) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self.smoothing_parameter = smoothing_parameter

    def forward(self, x1, x2):
        if x1.shape != x2.shape or x1.ndim != 2:
            raise ValueError(f"SDMLLoss: x1 {x1.shape} and x2 {x2.shape} must both be (batch, dim)")
        n = x1.shape[0]
        distances = jnp.sum((x1[:, None, :] - x2[None, :, :]) ** 2, axis=2)
        gold = jnp.eye(n, dtype=x1.dtype)
        s = self.smoothing_parameter
        labels = gold * (1 - s) + (1 - gold) * s / (n - 1)
        log_prob = jax.nn.log_softmax(-distances, axis=1)
        # MXNet 1.9.1's KLDivLoss, which SDMLLoss calls there, SUMS over the non-batch axis
        return jnp.sum(labels * (jnp.log(labels + 1e-12) - log_prob), axis=1)
