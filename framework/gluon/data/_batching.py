"""Building one batch: the single function that the main thread, threads and worker processes all run.

Because every execution mode calls :func:`make_batch` with the same (dataset, indices, seed, batch
number), they produce the same batches. With the default batchify function a dataset that can fetch
a whole batch by an index array (``Dataset._getbatch``) is read without a per-sample Python loop.
This module imports numpy only, so worker processes start without JAX.

>>> import numpy as onp
>>> from framework.gluon.data import ArrayDataset
>>> ds = ArrayDataset(onp.arange(10) * 2, onp.arange(10))
>>> [b.tolist() for b in make_batch(ds, onp.array([3, 1]), None, (0, 0), 0)]
[[6, 2], [3, 1]]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as onp

from ._rng import batch_scope
from .batchify import default_batchify_fn

__all__ = ["make_batch", "aligned_empty", "gather"]

_ALIGN = 64  # jax.device_put on the CPU uses a numpy buffer in place (no copy) when it is 64-byte aligned
_SMALL = 1 << 16  # below this many bytes a copy costs less than aligning


def aligned_empty(shape: tuple[int, ...], dtype: Any) -> onp.ndarray:
    """An uninitialised array whose buffer is 64-byte aligned, so placing it on the CPU copies nothing.

    >>> aligned_empty((300, 500), onp.float32).ctypes.data % 64
    0
    """
    dtype = onp.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes < _SMALL:
        return onp.empty(shape, dtype)
    buf = onp.empty(nbytes + _ALIGN, dtype=onp.uint8)
    start = -buf.ctypes.data % _ALIGN
    return buf[start:start + nbytes].view(dtype).reshape(shape)


def gather(array: onp.ndarray, indices: onp.ndarray) -> onp.ndarray:
    """``array[indices]`` (along the first axis) as a new array, aligned when it is large."""
    if array.nbytes // max(len(array), 1) * len(indices) < _SMALL:
        return array[indices]
    out = aligned_empty((len(indices), *array.shape[1:]), array.dtype)
    return onp.take(array, indices, axis=0, out=out)


def make_batch(dataset: Any, indices: onp.ndarray | list[Any], batchify_fn: Callable[[list[Any]], Any] | None,
               seed: tuple[int, int], batch: int) -> Any:
    """The batch of ``dataset`` at ``indices``; random transforms draw from the (seed, batch) Generator.

    ``batchify_fn=None`` means MXNet's default batchify (tuple samples give a list of batches).
    """
    with batch_scope(seed, batch):
        if batchify_fn is None:
            if isinstance(indices, onp.ndarray) and hasattr(dataset, "_getbatch"):
                out = dataset._getbatch(indices)
                if out is not NotImplemented:
                    return list(out) if isinstance(out, tuple) else out
            batchify_fn = default_batchify_fn
        keys = indices.tolist() if isinstance(indices, onp.ndarray) else indices
        return batchify_fn([dataset[i] for i in keys])
