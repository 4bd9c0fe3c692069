"""``gluon.data.vision``: image datasets and transforms.

>>> from framework.gluon.data import vision
>>> vision.transforms.ToTensor()(vision.transforms.Cast('uint8')([[[255]]])).tolist()
[[[1.0]]]
"""

from __future__ import annotations

from . import datasets, transforms
from .datasets import (
    CIFAR10,
    CIFAR100,
    MNIST,
    DataFileError,
    DatasetNotFoundError,
    FashionMNIST,
    ImageFolderDataset,
)
from .record import ImageRecordDataset

__all__ = ["datasets", "transforms", "MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageFolderDataset",
           "ImageRecordDataset", "DatasetNotFoundError", "DataFileError"]
