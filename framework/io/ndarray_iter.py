"""``NDArrayIter``: batches of in-memory arrays with MXNet's ``last_batch_handle``.

* ``'pad'`` (default): the last batch is filled up with examples from the start; ``batch.pad`` says how
  many;
* ``'discard'``: an incomplete last batch is dropped;
* ``'roll_over'``: an incomplete last batch is not returned; its examples open the next epoch's first
  batch (``batch.pad`` of that batch counts them).

``shuffle=True`` reorders the data at construction and at every :meth:`reset` with NumPy's global
generator (``numpy.random.seed`` makes it reproducible; the same seed gives MXNet 1.9.1's order).

>>> import numpy as onp
>>> from framework import io
>>> it = io.NDArrayIter(onp.arange(10).reshape(5, 2), onp.arange(5), batch_size=2)
>>> [(b.data[0].shape, b.pad) for b in it]
[((2, 2), 0), ((2, 2), 0), ((2, 2), 1)]
>>> it.provide_label
[DataDesc[softmax_label,(2,),float32,NCHW]]
"""

from __future__ import annotations

from typing import Any

import numpy as onp

from .io import DataBatch, DataDesc, DataIter
from .utils import concat_along, getdata_by_idx, init_data, slice_along_batch_axis, to_batch_array

__all__ = ["NDArrayIter"]

_HANDLES = ("pad", "discard", "roll_over")


class NDArrayIter(DataIter):
    """Iterate over arrays (NumPy, ``jax.Array``, lists; one, a list, or a dict of name -> array) in
    batches of ``batch_size`` along the ``'N'`` axis of ``layout``. Batches are ``jax.Array`` s (host
    data goes to the first CPU device, as MXNet's iterators return CPU arrays)."""

    def __init__(
        self,
        data: Any,
        label: Any = None,
        batch_size: int = 1,
        shuffle: bool = False,
        last_batch_handle: str = "pad",
        data_name: str = "data",
        label_name: str = "softmax_label",
        layout: str = "NCHW",
    ) -> None:
        super().__init__(batch_size)
        if last_batch_handle not in _HANDLES:
            raise ValueError(
                f"NDArrayIter: last_batch_handle={last_batch_handle!r}; expected one of {_HANDLES}"
            )
        if int(batch_size) <= 0:
            raise ValueError(f"NDArrayIter: batch_size={batch_size} must be a positive integer")
        self.layout = layout
        self._axis = max(layout.find("N"), 0)
        self.data = init_data(data, allow_empty=False, default_name=data_name)
        self.label = init_data(label, allow_empty=True, default_name=label_name)
        sizes = {k: v.shape[self._axis] for k, v in self.data + self.label}
        self.num_data = int(self.data[0][1].shape[self._axis])
        if any(n != self.num_data for n in sizes.values()):
            raise ValueError(
                f"NDArrayIter: the inputs hold different numbers of examples along axis {self._axis}: {sizes}"
            )
        self.idx = onp.arange(self.num_data)
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.batch_size = int(batch_size)
        self.cursor = -self.batch_size
        self._cache_data: list | None = None
        self._cache_label: list | None = None
        self.reset()
        self.data_list = [v for _, v in self.data] + [v for _, v in self.label]
        self.num_source = len(self.data_list)

    def _descs(self, source: list) -> list[DataDesc]:
        out = []
        for k, v in source:
            shape = list(v.shape)
            shape[self._axis] = self.batch_size
            out.append(DataDesc(k, tuple(shape), onp.dtype(v.dtype), layout=self.layout))
        return out

    @property
    def provide_data(self) -> list[DataDesc]:
        return self._descs(self.data)

    @property
    def provide_label(self) -> list[DataDesc]:
        return self._descs(self.label)

    def hard_reset(self) -> None:
        """Back to the very start (a rolled-over remainder is dropped)."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = self._cache_label = None

    def reset(self) -> None:
        if self.shuffle:
            self._shuffle_data()
        if (
            self.last_batch_handle == "roll_over"
            and self.num_data - self.batch_size < self.cursor < self.num_data
        ):
            # the remainder (cached by next()) opens the epoch: start that many examples early
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self) -> bool:
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self) -> DataBatch:
        if not self.iter_next():
            raise StopIteration
        data, label = self._batchify(self.data), self._batchify(self.label)
        if data[0].shape[self._axis] != self.batch_size:  # roll_over/discard: keep for the next epoch
            self._cache_data, self._cache_label = data, label
            raise StopIteration
        return DataBatch(
            data=[to_batch_array(d) for d in data],
            label=[to_batch_array(x) for x in label],
            pad=self.getpad(),
            index=None,
        )

    def _take(self, source: list, start: int | None = None, end: int | None = None) -> list:
        start = 0 if start is None else start
        end = self.num_data if end is None else end
        return [slice_along_batch_axis(v, start, end, self._axis) for _, v in source]

    def _join(self, first: list, second: list) -> list:
        if not first or not second:
            return first or second
        return [concat_along(a, b, self._axis) for a, b in zip(first, second, strict=True)]

    def _batchify(self, source: list) -> list:
        if self.cursor >= self.num_data:
            raise RuntimeError("NDArrayIter: the data is exhausted; call reset() first")
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            is_data = source is self.data
            cache = self._cache_data if is_data else self._cache_label
            if cache is None:
                raise RuntimeError("NDArrayIter: roll_over lost the previous epoch's remainder")
            if is_data:
                self._cache_data = None
            else:
                self._cache_label = None
            return self._join(cache, self._take(source, end=self.cursor + self.batch_size))
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            pad = self.batch_size - self.num_data + self.cursor
            first = self._take(source, start=self.cursor)
            whole, part = divmod(pad, self.num_data)
            second: list = []
            for _ in range(whole):
                second = self._join(second, self._take(source))
            if part:
                second = self._join(second, self._take(source, end=part))
            return self._join(first, second)
        return self._take(source, self.cursor, min(self.cursor + self.batch_size, self.num_data))

    def getdata(self) -> list:
        return [to_batch_array(d) for d in self._batchify(self.data)]

    def getlabel(self) -> list:
        return [to_batch_array(d) for d in self._batchify(self.label)]

    def getpad(self) -> int:
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0

    def _shuffle_data(self) -> None:
        onp.random.shuffle(self.idx)
        self.data = getdata_by_idx(self.data, self.idx, self._axis)
        self.label = getdata_by_idx(self.label, self.idx, self._axis)
