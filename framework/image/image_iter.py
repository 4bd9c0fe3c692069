"""``ImageIter``: MXNet's Python image iterator: images from a RecordIO file (``path_imgrec``, with
``path_imgidx`` for random access), an image list file (``path_imglist`` + ``path_root``) or a Python
list (``imglist``), decoded, augmented (``aug_list``, or :func:`CreateAugmenter` of the extra keyword
arguments) and batched as float32 NCHW ``jax.Array`` s, with ``last_batch_handle`` pad/discard/roll_over
as MXNet's ``ImageIter`` does (shuffling with Python's ``random``, as MXNet).

>>> from framework import image
>>> image.ImageIter.__mro__[1].__name__
'DataIter'
"""

from __future__ import annotations

import io
import os
import random
from collections.abc import Sequence
from typing import Any

import numpy as onp

from .. import recordio
from .._files import open_regular, read_bytes
from ..io.io import DataBatch, DataIter
from ..io.utils import to_batch_array
from .augmenters import Augmenter, CreateAugmenter
from .image import imdecode

__all__ = ["ImageIter"]


class ImageIter(DataIter):
    """See the module docstring; arguments as MXNet's ``mx.image.ImageIter``."""

    def __init__(
        self,
        batch_size: int,
        data_shape: Sequence[int],
        label_width: int = 1,
        path_imgrec: str | None = None,
        path_imglist: str | None = None,
        path_root: str | None = None,
        path_imgidx: str | None = None,
        shuffle: bool = False,
        part_index: int = 0,
        num_parts: int = 1,
        aug_list: Sequence[Augmenter] | None = None,
        imglist: list | None = None,
        data_name: str = "data",
        label_name: str = "softmax_label",
        dtype: str = "float32",
        last_batch_handle: str = "pad",
        **kwargs: Any,
    ) -> None:
        super().__init__(int(batch_size))
        name = type(self).__name__
        if not (path_imgrec or path_imglist or isinstance(imglist, list)):
            raise ValueError(f"{name}: give path_imgrec, path_imglist or imglist")
        if dtype not in ("int32", "float32", "int64", "float64"):
            raise ValueError(f"{name}: label dtype={dtype!r}; expected int32, float32, int64 or float64")
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise ValueError(
                f"{name}: last_batch_handle={last_batch_handle!r}; expected pad, discard or roll_over"
            )
        self.imgrec: Any = None
        self.imgidx: list | None = None
        if path_imgrec:
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, "r")
        self.imglist: dict | None = None
        keys: list = []
        if path_imglist:
            self.imglist = {}
            with io.TextIOWrapper(open_regular(path_imglist, what="image list"), encoding="utf-8") as f:
                for line in f:
                    parts = line.strip().split("\t")
                    if len(parts) < 3:
                        continue
                    key = int(parts[0])
                    self.imglist[key] = (onp.asarray([float(v) for v in parts[1:-1]], dtype), parts[-1])
                    keys.append(key)
        elif isinstance(imglist, list):
            self.imglist = {}
            for i, item in enumerate(imglist, 1):
                if len(item) > 2:
                    label = onp.asarray(item[:-1], dtype)
                else:
                    label = onp.atleast_1d(onp.asarray(item[0], dtype))
                self.imglist[str(i)] = (label, item[-1])
                keys.append(str(i))
        self.path_root = path_root
        self.check_data_shape(data_shape)
        self.data_shape = tuple(int(d) for d in data_shape)
        self.provide_data = [(data_name, (self.batch_size, *self.data_shape))]
        self.provide_label = [
            (label_name, (self.batch_size, label_width) if label_width > 1 else (self.batch_size,))
        ]
        self.label_width = label_width
        self.label_dtype = dtype
        self.shuffle = shuffle
        if self.imgrec is None:
            self.seq: list | None = keys
        elif shuffle or num_parts > 1 or path_imgidx:
            if self.imgidx is None:
                raise ValueError(f"{name}: shuffle and num_parts > 1 need path_imgidx (random access)")
            self.seq = self.imgidx
        else:
            self.seq = None
        if num_parts > 1:
            if not 0 <= part_index < num_parts:
                raise ValueError(f"{name}: part_index={part_index} must be in [0, num_parts={num_parts})")
            per = len(self.seq) // num_parts
            self.seq = self.seq[part_index * per : (part_index + 1) * per]
        self.auglist = list(aug_list) if aug_list is not None else CreateAugmenter(self.data_shape, **kwargs)
        self.cur = 0
        self._allow_read = True
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self._cache: tuple[onp.ndarray, onp.ndarray, int] | None = None
        self.reset()

    def reset(self) -> None:
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != "roll_over" or self._cache is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self) -> None:
        """Back to the very start (a rolled-over remainder is dropped)."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache = None

    def next_sample(self) -> tuple[Any, bytes]:
        """The next (label, encoded image); ``StopIteration`` at the end."""
        if not self._allow_read:
            raise StopIteration
        if self.seq is not None:
            if self.cur >= self.num_image:
                if self.last_batch_handle != "discard":
                    self.cur = 0
                raise StopIteration
            idx = self.seq[self.cur]
            self.cur += 1
            if self.imgrec is not None:
                header, img = recordio.unpack(self.imgrec.read_idx(idx))
                return (header.label if self.imglist is None else self.imglist[idx][0]), img
            label, fname = self.imglist[idx]
            return label, self.read_image(fname)
        s = self.imgrec.read()
        if s is None:
            if self.last_batch_handle != "discard":
                self.imgrec.reset()
            raise StopIteration
        header, img = recordio.unpack(s)
        return header.label, img

    def _fill(self, data: onp.ndarray, label: onp.ndarray, start: int = 0) -> int:
        i = start
        try:
            while i < self.batch_size:
                lab, s = self.next_sample()
                img = self.imdecode(s)
                try:
                    self.check_valid_image(img)
                except RuntimeError:
                    continue
                img = self.augmentation_transform(img)
                data[i] = self.postprocess_data(img)
                label[i] = onp.asarray(lab, label.dtype).reshape(label[i].shape)
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def _new_label(self) -> onp.ndarray:
        return onp.zeros(self.provide_label[0][1], self.label_dtype)

    def next(self) -> DataBatch:
        if self._cache is not None:
            data, label, i = self._cache
        else:
            data = onp.zeros((self.batch_size, *self.data_shape), onp.float32)
            label = self._new_label()
            i = self._fill(data, label)
        pad = self.batch_size - i
        if pad:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache is None:
                self._cache = (data, label, i)
                raise StopIteration
            self._fill(data, label, i)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            else:
                self._cache = None
        return DataBatch([to_batch_array(data)], [to_batch_array(label)], pad=pad)

    def check_data_shape(self, data_shape: Sequence[int]) -> None:
        """MXNet's check: (3, h, w)."""
        if len(data_shape) != 3:
            raise ValueError(f"{type(self).__name__}: data_shape={tuple(data_shape)} must be (c, h, w)")
        if data_shape[0] != 3:
            raise ValueError(
                f"{type(self).__name__}: data_shape={tuple(data_shape)}: this iterator expects 3 channels"
            )

    def check_valid_image(self, data: Any) -> None:
        if len(data[0].shape) == 0:
            raise RuntimeError("Data shape is wrong")

    def imdecode(self, s: bytes) -> onp.ndarray:
        """Decode one image (RGB, HWC uint8)."""
        try:
            return imdecode(s)
        except ValueError as e:
            raise RuntimeError(
                f"{type(self).__name__}: broken image at position {self.cur - 1}: {e}"
            ) from None

    def read_image(self, fname: str) -> bytes:
        return read_bytes(os.path.join(self.path_root or "", fname), what="image file")

    def augmentation_transform(self, data: Any) -> Any:
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum: Any) -> onp.ndarray:
        """HWC -> CHW."""
        return onp.transpose(onp.asarray(datum), (2, 0, 1))
