"""MXNet 1.9.1's ``gluon.contrib.nn``: ``Concurrent``/``HybridConcurrent`` (branches concatenated),
``Identity``, ``SparseEmbedding`` (dense here), ``SyncBatchNorm`` and ``PixelShuffle1D/2D/3D``.

>>> from framework import np
>>> from framework.gluon.contrib import nn
>>> nn.PixelShuffle2D((2, 3))(np.zeros((1, 12, 3, 5))).shape
(1, 2, 6, 15)
"""

from . import basic_layers
from .basic_layers import (
    Concurrent,
    HybridConcurrent,
    Identity,
    PixelShuffle1D,
    PixelShuffle2D,
    PixelShuffle3D,
    SparseEmbedding,
    SyncBatchNorm,
)

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SparseEmbedding", "SyncBatchNorm",
           "PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D", "basic_layers"]
