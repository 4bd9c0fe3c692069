"""``MNISTIter``: batches of an MNIST-format pair of IDX files (images, labels), as MXNet's C++
iterator: pixels divided by 256, an incomplete last batch dropped, ``shuffle`` (default on) reorders
once, at construction, by ``seed``; ``num_parts``/``part_index`` read one contiguous part.

The files are read (gzip or not) with the framework's validating IDX reader: a damaged file is a
``DataFileError`` naming the file and the byte offset.

>>> import gzip, os, struct, tempfile
>>> import numpy as onp
>>> from framework import io
>>> d = tempfile.mkdtemp()
>>> img = onp.arange(4 * 28 * 28, dtype=onp.uint32).astype(onp.uint8).reshape(4, 28, 28)
>>> head = struct.pack('>IIII', 2051, 4, 28, 28)
>>> _ = open(os.path.join(d, 'i-idx3-ubyte'), 'wb').write(head + img.tobytes())
>>> _ = open(os.path.join(d, 'l-idx1-ubyte'), 'wb').write(struct.pack('>II', 2049, 4) + bytes([7, 1, 2, 3]))
>>> it = io.MNISTIter(image=os.path.join(d, 'i-idx3-ubyte'), label=os.path.join(d, 'l-idx1-ubyte'),
...                   batch_size=3, shuffle=False)
>>> [(b.data[0].shape, b.label[0].tolist()) for b in it]
[((3, 1, 28, 28), [7.0, 1.0, 2.0])]
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as onp

from ..gluon.data.vision._files import read_idx
from .io import DataBatch, DataDesc, DataIter
from .utils import to_batch_array

__all__ = ["MNISTIter"]


class MNISTIter(DataIter):
    """MXNet's ``mx.io.MNISTIter`` over IDX files (``image``, ``label``; gzip or not)."""

    def __init__(
        self,
        image: str = "./train-images-idx3-ubyte",
        label: str = "./train-labels-idx1-ubyte",
        batch_size: int = 128,
        shuffle: bool = True,
        flat: bool = False,
        seed: int = 0,
        silent: bool = False,
        num_parts: int = 1,
        part_index: int = 0,
        prefetch_buffer: int = 4,
        ctx: str = "gpu",
        dtype: str | None = None,
        data_name: str = "data",
        label_name: str = "softmax_label",
    ) -> None:
        super().__init__(int(batch_size))
        if self.batch_size <= 0:
            raise ValueError(f"MNISTIter: batch_size={batch_size} must be a positive integer")
        if not 0 <= part_index < num_parts:
            raise ValueError(f"MNISTIter: part_index={part_index} must be in [0, num_parts={num_parts})")
        if dtype not in (None, "float32"):
            raise ValueError(
                f"MNISTIter: dtype={dtype!r}: MNISTIter yields float32 (as MXNet's, which "
                "fails on other types); cast the batches"
            )
        images = read_idx(Path(os.fspath(image)), "MNISTIter images", None, verify=False)
        labels = read_idx(Path(os.fspath(label)), "MNISTIter labels", None, verify=False)
        if images.ndim != 3 or labels.ndim != 1 or len(images) != len(labels):
            raise ValueError(
                f"MNISTIter: {image} holds {images.shape} and {label} {labels.shape}; "
                "expected (N, rows, cols) images and (N,) labels"
            )
        n = len(images)
        lo, hi = n * part_index // num_parts, n * (part_index + 1) // num_parts
        images, labels = images[lo:hi], labels[lo:hi]
        order = onp.arange(len(images))
        if shuffle:
            onp.random.RandomState(seed).shuffle(order)
        self._order = order
        self._images, self._labels = images, labels
        self._shape = (images.shape[1] * images.shape[2],) if flat else (1, *images.shape[1:])
        self._names = (data_name, label_name)
        self._cursor = 0
        self._batch: DataBatch | None = None

    @property
    def provide_data(self) -> list[DataDesc]:
        return [DataDesc(self._names[0], (self.batch_size, *self._shape), onp.float32)]

    @property
    def provide_label(self) -> list[DataDesc]:
        return [DataDesc(self._names[1], (self.batch_size,), onp.float32)]

    def reset(self) -> None:
        self._cursor = 0

    def iter_next(self) -> bool:
        if self._cursor + self.batch_size > len(self._order):
            return False
        take = self._order[self._cursor : self._cursor + self.batch_size]
        self._cursor += self.batch_size
        data = (self._images[take].astype(onp.float32) / 256.0).reshape((len(take), *self._shape))
        self._batch = DataBatch(
            [to_batch_array(data)],
            [to_batch_array(self._labels[take].astype(onp.float32))],
            pad=0,
            index=take.copy(),
        )
        return True

    def next(self) -> DataBatch:
        if self.iter_next():
            return self._batch
        raise StopIteration

    def getdata(self):
        return self._batch.data

    def getlabel(self):
        return self._batch.label

    def getindex(self):
        return self._batch.index

    def getpad(self):
        return self._batch.pad
