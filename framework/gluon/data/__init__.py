"""``gluon.data``: datasets, samplers, batchify functions and the DataLoader, as MXNet's.

>>> import numpy as onp
>>> from framework.gluon import data
>>> loader = data.DataLoader(data.ArrayDataset(onp.arange(6, dtype='float32')), batch_size=4)
>>> [b.shape for b in loader]
[(4,), (2,)]
"""

from __future__ import annotations

from . import batchify, vision
from ._rng import host_rng
from .dataloader import DataLoader
from .dataset import ArrayDataset, Dataset, SimpleDataset
from .recordfile import RecordFileDataset
from .sampler import (
    BatchSampler,
    FilterSampler,
    IntervalSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
)

__all__ = [
    "Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset",
    "Sampler", "SequentialSampler", "RandomSampler",
    "BatchSampler", "IntervalSampler", "FilterSampler", "DataLoader", "batchify", "vision", "host_rng",
]
