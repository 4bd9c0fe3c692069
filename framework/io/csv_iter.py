"""``CSVIter``: batches of the rows of CSV files, with MXNet's ``round_batch`` batching.

>>> import os, tempfile
>>> from framework import io
>>> path = os.path.join(tempfile.mkdtemp(), 'd.csv')
>>> _ = open(path, 'w').write('1,2,3\\n2,3,4\\n3,4,5\\n4,5,6\\n5,6,7\\n')
>>> it = io.CSVIter(data_csv=path, data_shape=(3,), batch_size=3)
>>> [(b.data[0][:, 0].tolist(), b.pad) for b in it]
[([1.0, 2.0, 3.0], 0), ([4.0, 5.0, 1.0], 1)]
>>> it.reset(); [b.data[0][:, 0].tolist() for b in it]
[[2.0, 3.0, 4.0], [5.0, 1.0, 2.0]]
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import numpy as onp

from .._files import open_regular
from ._loader import RoundBatches
from .io import DataBatch, DataDesc, DataIter
from .utils import to_batch_array

__all__ = ["CSVIter"]

_DTYPES = (None, "float16", "bfloat16", "float32", "float64", "int32", "int64", "int8", "uint8")


def _files(path: str) -> list[str]:
    if os.path.isdir(path):
        return [
            os.path.join(path, f) for f in sorted(os.listdir(path)) if os.path.isfile(os.path.join(path, f))
        ]
    if not os.path.isfile(path):
        raise FileNotFoundError(f"CSVIter: {path!r} is neither a file nor a directory")
    return [path]


def read_csv(path: str, shape: tuple[int, ...], dtype: Any, what: str) -> onp.ndarray:
    """Every row of the CSV file(s) at ``path`` as an array of ``(rows, *shape)``."""
    rows = []
    size = math.prod(shape)
    for name in _files(path):
        with io.TextIOWrapper(open_regular(name, what="CSV file"), encoding="ascii", errors="strict") as f:
            for lineno, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    values = [float(v) for v in line.split(",") if v.strip() != ""]
                except ValueError as e:
                    raise ValueError(f"CSVIter: {name}:{lineno}: not a row of numbers ({e})") from None
                if len(values) != size:
                    raise ValueError(
                        f"CSVIter: {name}:{lineno}: {len(values)} values, but {what}_shape="
                        f"{shape} needs {size}; fix {what}_shape or the file"
                    )
                rows.append(values)
    return onp.asarray(rows, dtype=onp.float64).reshape((len(rows), *shape)).astype(dtype)


class CSVIter(DataIter):
    """Rows of ``data_csv`` (a file, or a directory whose files are read in name order) reshaped to
    ``data_shape``; labels from ``label_csv`` (default: zeros of ``label_shape``, (1,) giving a
    ``(batch,)`` label). Values are parsed as float32 (``dtype`` int32/int64/... to keep integers)."""

    def __init__(
        self,
        data_csv: str,
        data_shape: Sequence[int],
        batch_size: int,
        label_csv: str = "NULL",
        label_shape: Sequence[int] = (1,),
        round_batch: bool = True,
        prefetch_buffer: int = 4,
        ctx: str = "gpu",
        dtype: str | None = None,
        data_name: str = "data",
        label_name: str = "softmax_label",
    ) -> None:
        super().__init__(int(batch_size))
        if dtype not in _DTYPES:
            raise ValueError(f"CSVIter: dtype={dtype!r}; expected one of {_DTYPES}")
        kind = jnp.dtype(dtype or "float32")
        self._data_shape = tuple(int(d) for d in data_shape)
        self._label_shape = tuple(int(d) for d in label_shape)
        self._data = read_csv(os.fspath(data_csv), self._data_shape, kind, "data")
        if label_csv in (None, "NULL"):
            self._label = onp.zeros((len(self._data), *self._label_shape), kind)
        else:
            self._label = read_csv(os.fspath(label_csv), self._label_shape, kind, "label")
            if len(self._label) != len(self._data):
                raise ValueError(
                    f"CSVIter: {label_csv} has {len(self._label)} rows, {data_csv} has "
                    f"{len(self._data)}; they must match"
                )
        if not len(self._data):
            raise ValueError(f"CSVIter: {data_csv} holds no rows")
        if self._label_shape == (1,):
            self._label = self._label.reshape(len(self._label))
        self._names = (data_name, label_name)
        self._loader = RoundBatches(len(self._data), self.batch_size, round_batch)
        self._epoch = self._loader.epoch()
        self._batch: DataBatch | None = None
        self._buf: tuple[onp.ndarray, onp.ndarray] | None = None

    @property
    def provide_data(self) -> list[DataDesc]:
        return [DataDesc(self._names[0], (self.batch_size, *self._data_shape), self._data.dtype.type)]

    @property
    def provide_label(self) -> list[DataDesc]:
        return [DataDesc(self._names[1], (self.batch_size, *self._label.shape[1:]), self._label.dtype.type)]

    def reset(self) -> None:
        self._epoch = self._loader.epoch()

    def iter_next(self) -> bool:
        slots = next(self._epoch, None)
        if slots is None:
            return False
        data = onp.zeros((self.batch_size, *self._data.shape[1:]), self._data.dtype)
        label = onp.zeros((self.batch_size, *self._label.shape[1:]), self._label.dtype)
        known = slots.order >= 0
        data[known], label[known] = self._data[slots.order[known]], self._label[slots.order[known]]
        self._batch = DataBatch(
            [to_batch_array(data)], [to_batch_array(label)], pad=slots.pad, index=slots.order.copy()
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
