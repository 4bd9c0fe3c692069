"""MXNet's ``mx.mod``/``mx.module``: :class:`Module` (a symbol with its parameters, trained with ``fit``
or by hand, on one device or data parallel over several), :class:`BucketingModule` (one program per
bucket, shared parameters), :class:`SequentialModule` (modules chained) and their :class:`BaseModule`.

>>> import framework as mx
>>> mx.mod.Module is mx.module.Module
True
"""

from __future__ import annotations

from .base_module import BaseModule
from .bucketing_module import BucketingModule
from .executor_group import DataParallelExecutorGroup
from .module import Module
from .sequential_module import SequentialModule

__all__ = ["BaseModule", "Module", "BucketingModule", "SequentialModule", "DataParallelExecutorGroup"]
