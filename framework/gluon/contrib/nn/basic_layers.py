"""MXNet 1.9.1's ``gluon.contrib.nn.basic_layers``: branch containers, identity, pixel shuffles and a
(dense) SparseEmbedding; ``SyncBatchNorm`` lives in :mod:`.sync_batch_norm` and is re-exported here.

>>> from framework import np
>>> from framework.gluon import nn
>>> net = HybridConcurrent(axis=1)
>>> net.add(nn.Dense(2, in_units=3), Identity())
>>> net.initialize()
>>> net(np.ones((4, 3))).shape
(4, 5)
"""

from __future__ import annotations

from typing import Any

import jax

from .... import npx
from ...block import Block, HybridBlock
from ...nn import Concatenate, HybridConcatenate, Identity
from ...parameter import Parameter
from .sync_batch_norm import SyncBatchNorm

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SparseEmbedding", "SyncBatchNorm",
           "PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D"]


class Concurrent(Concatenate):
    """Feed the input to every child and concatenate their outputs along ``axis`` (default -1); the
    children run as Python (a :class:`~framework.gluon.nn.Sequential`), built-in ones compiled.

    >>> from framework import np
    >>> net = Concurrent(axis=0)
    >>> net.add(Identity(), Identity())
    >>> net(np.ones((2, 3))).shape
    (4, 3)
    """

    def __init__(self, axis: int = -1, prefix: str | None = None, params: Any = None) -> None:
        super().__init__(axis, prefix, params)


class HybridConcurrent(HybridConcatenate):
    """:class:`Concurrent` of HybridBlocks: built-in children run as one compiled call, and
    ``hybridize()`` compiles the whole set of branches.

    >>> from framework import np
    >>> from framework.gluon import nn
    >>> net = HybridConcurrent(axis=1)
    >>> net.add(nn.Dense(2, in_units=3), nn.Dense(1, in_units=3))
    >>> net.initialize(); net.hybridize()
    >>> net(np.ones((4, 3))).shape
    (4, 3)
    """

    def __init__(self, axis: int = -1, prefix: str | None = None, params: Any = None) -> None:
        super().__init__(axis, prefix, params)


class SparseEmbedding(Block):
    """MXNet's SparseEmbedding with a DENSE weight and gradient: integer indices -> rows of a
    (input_dim, output_dim) weight. MXNet keeps both in row_sparse storage for huge vocabularies;
    JAX arrays are dense, so this is :class:`~framework.gluon.nn.Embedding` as a plain Block (as
    MXNet's is), giving the same values and the dense form of MXNet's gradient.

    >>> from framework import np
    >>> layer = SparseEmbedding(10, 4)
    >>> layer.initialize()
    >>> layer(np.array([[1, 2, 3]])).shape, layer
    ((1, 3, 4), SparseEmbedding(10 -> 4, float32))
    """

    _integer_inputs = True  # its inputs are indices

    def __init__(self, input_dim: int, output_dim: int, dtype: Any = "float32",
                 weight_initializer: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        for what, v in (("input_dim", input_dim), ("output_dim", output_dim)):
            if not isinstance(v, int) or v < 1:
                raise ValueError(f"SparseEmbedding: {what}={v!r} must be a positive int")
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype}
        self.weight = Parameter("weight", shape=(input_dim, output_dim), init=weight_initializer,
                                dtype=dtype, allow_deferred_init=True)

    def forward(self, x: Any) -> Any:
        return npx.embedding(x, self.weight.data(), self._kwargs["input_dim"], self._kwargs["output_dim"])

    def __repr__(self) -> str:
        k = self._kwargs
        return f"{type(self).__name__}({k['input_dim']} -> {k['output_dim']}, {k['dtype']})"


def _factors(factor: Any, n: int, who: str) -> tuple[int, ...]:
    if isinstance(factor, (int,)) or (hasattr(factor, "__int__") and not hasattr(factor, "__len__")):
        out = (int(factor),) * n
    else:
        out = tuple(int(f) for f in factor)
    if len(out) != n or any(f < 1 for f in out):
        raise ValueError(f"{who}: factor={factor!r} must be a positive int or {n} positive ints")
    return out


class _PixelShuffle(HybridBlock):
    """Move groups of channels into blocks of pixels: (N, C*f1*...*fk, d1..dk) -> (N, C, d1*f1, ...)."""

    _compiled_leaf = True
    _dims = 0

    def __init__(self, factor: Any) -> None:
        super().__init__()
        self._factors = _factors(factor, self._dims, type(self).__name__)

    def forward(self, x: jax.Array) -> jax.Array:
        k, fs = self._dims, self._factors
        if x.ndim != k + 2:
            raise ValueError(f"{type(self).__name__}: expects (N, C, {k} spatial axes), got an input of "
                             f"shape {tuple(x.shape)}")
        n, cf, *spatial = x.shape
        group = 1
        for f in fs:
            group *= f
        if cf % group:
            raise ValueError(f"{type(self).__name__}: the {cf} channels of the input {tuple(x.shape)} do not "
                             f"divide by the product of the factors {fs} ({group})")
        x = x.reshape((n, cf // group, *fs, *spatial))  # (N, C, f1..fk, d1..dk)
        # interleave: (N, C, d1, f1, d2, f2, ...)
        order = [0, 1] + [i for j in range(k) for i in (2 + k + j, 2 + j)]
        x = x.transpose(order)
        return x.reshape((n, cf // group, *(d * f for d, f in zip(spatial, fs, strict=True))))

    def __repr__(self) -> str:
        shown = self._factors[0] if self._dims == 1 else self._factors
        return f"{type(self).__name__}({shown})"


class PixelShuffle1D(_PixelShuffle):
    """Pixel shuffle along W: (N, f*C, W) -> (N, C, W*f).

    >>> from framework import np
    >>> PixelShuffle1D(2)(np.arange(4.0).reshape(1, 2, 2)).tolist()
    [[[0.0, 2.0, 1.0, 3.0]]]
    """

    _dims = 1


class PixelShuffle2D(_PixelShuffle):
    """Pixel shuffle (sub-pixel convolution's upsampling): (N, f1*f2*C, H, W) -> (N, C, H*f1, W*f2).

    >>> from framework import np
    >>> PixelShuffle2D(2)(np.zeros((1, 8, 3, 3))).shape
    (1, 2, 6, 6)
    """

    _dims = 2


class PixelShuffle3D(_PixelShuffle):
    """Voxel shuffle: (N, f1*f2*f3*C, D, H, W) -> (N, C, D*f1, H*f2, W*f3).

    >>> from framework import np
    >>> PixelShuffle3D((2, 3, 4))(np.zeros((1, 48, 3, 5, 7))).shape
    (1, 2, 6, 15, 28)
    """

    _dims = 3
