"""Gluon losses (MXNet 1.9.1's formulas) as HybridBlocks written in jax.numpy.

A loss is called as ``loss(pred, label, sample_weight=None)`` and returns one value per sample (the
element-wise loss, weighted, averaged over every axis but ``batch_axis``). It runs compiled and is
recorded under ``autograd.record()``; ``loss.functional_call({}, pred, label)`` is the pure function.

>>> import jax.numpy as jnp
>>> from framework import gluon
>>> loss = gluon.loss.SoftmaxCrossEntropyLoss()
>>> [round(v, 4) for v in loss(jnp.array([[2.0, 0.0], [0.0, 2.0]]), jnp.array([0, 0])).tolist()]
[0.1269, 2.1269]
"""

from __future__ import annotations

from ._mxnet_helpers import _apply_weighting, _reshape_like
from .base import (
                   HingeLoss,
                   HuberLoss,
                   KLDivLoss,
                   L1Loss,
                   L2Loss,
                   LogisticLoss,
                   Loss,
                   SigmoidBCELoss,
                   SigmoidBinaryCrossEntropyLoss,
                   SoftmaxCELoss,
                   SoftmaxCrossEntropyLoss,
                   SquaredHingeLoss,
)
from .sdml import SDMLLoss
from .structured import CosineEmbeddingLoss, CTCLoss, PoissonNLLLoss, TripletLoss

__all__ = [
    "Loss", "L2Loss", "L1Loss", "SoftmaxCrossEntropyLoss", "SoftmaxCELoss", "SigmoidBinaryCrossEntropyLoss",
    "SigmoidBCELoss", "KLDivLoss", "HuberLoss", "HingeLoss", "SquaredHingeLoss", "LogisticLoss",
    "TripletLoss", "CosineEmbeddingLoss", "PoissonNLLLoss", "CTCLoss", "_apply_weighting", "_reshape_like",
    "SDMLLoss",
]


def __getattr__(name: str):
    """MXNet's loss module also offers ``HybridBlock`` and ``is_np_array``, which it imports."""
    if name == "HybridBlock":
        from ..block import HybridBlock

        return HybridBlock
    if name == "is_np_array":
        from ...util import is_np_array

        return is_np_array
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
