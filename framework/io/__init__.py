"""MXNet's ``mx.io``: data iterators yielding :class:`DataBatch` es of ``jax.Array`` s.

``NDArrayIter`` (in-memory arrays, ``last_batch_handle`` pad/discard/roll_over), ``CSVIter``,
``MNISTIter`` (IDX files), ``ImageRecordIter``/``ImageRecordUInt8Iter`` (RecordIO images with MXNet's
basic augmentations), ``PrefetchingIter`` (background threads; a process running JAX is never forked)
and ``ResizeIter``, over MXNet's ``DataIter``/``DataBatch``/``DataDesc`` protocol.

>>> import numpy as onp
>>> import framework as mx
>>> it = mx.io.NDArrayIter(onp.zeros((5, 3)), onp.arange(5), batch_size=2, last_batch_handle='discard')
>>> [b.data[0].shape for b in it]
[(2, 3), (2, 3)]
"""

from __future__ import annotations

from . import io, utils
from .csv_iter import CSVIter
from .io import DataBatch, DataDesc, DataIter, PrefetchingIter, ResizeIter
from .mnist_iter import MNISTIter
from .ndarray_iter import NDArrayIter
from .record_iter import (
    ImageRecordInt8Iter,
    ImageRecordIter,
    ImageRecordIter_v1,
    ImageRecordUInt8Iter,
    ImageRecordUInt8Iter_v1,
)

__all__ = [
    "DataDesc",
    "DataBatch",
    "DataIter",
    "NDArrayIter",
    "CSVIter",
    "MNISTIter",
    "ImageRecordIter",
    "ImageRecordUInt8Iter",
    "ImageRecordInt8Iter",
    "ImageRecordIter_v1",
    "ImageRecordUInt8Iter_v1",
    "PrefetchingIter",
    "ResizeIter",
    "io",
    "utils",
]
