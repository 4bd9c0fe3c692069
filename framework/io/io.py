"""MXNet's data-iterator protocol: ``DataDesc``, ``DataBatch``, ``DataIter`` and the wrappers
``ResizeIter`` and ``PrefetchingIter``.

A ``DataIter`` yields :class:`DataBatch` es whose ``data``/``label`` are lists of ``jax.Array`` s; it
offers MXNet's ``next()``/``reset()``/``iter_next()``/``getdata()``/``getlabel()``/``getpad()``/
``getindex()`` and ``provide_data``/``provide_label`` (lists of :class:`DataDesc`).

>>> import numpy as onp
>>> from framework import io
>>> it = io.ResizeIter(io.NDArrayIter(onp.ones((10, 2)), batch_size=4), 5)
>>> [b.data[0].shape for b in it]
[(4, 2), (4, 2), (4, 2), (4, 2), (4, 2)]
>>> io.DataDesc('data', (4, 2))
DataDesc[data,(4, 2),<class 'numpy.float32'>,NCHW]
"""

from __future__ import annotations

import threading
from collections import namedtuple
from collections.abc import Sequence
from typing import Any

import numpy as onp

__all__ = ["DataDesc", "DataBatch", "DataIter", "ResizeIter", "PrefetchingIter"]


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """Name and shape (a tuple, as MXNet's namedtuple), plus ``dtype`` and ``layout`` attributes, of
    one input or label of a batch. ``layout``'s ``'N'`` marks the batch axis."""

    def __new__(cls, name: str, shape: Sequence[int], dtype: Any = onp.float32, layout: str = "NCHW"):
        ret = super().__new__(cls, name, tuple(shape))
        ret.dtype = dtype
        ret.layout = layout
        return ret

    def __repr__(self) -> str:
        return f"DataDesc[{self.name},{self.shape},{self.dtype},{self.layout}]"

    @staticmethod
    def get_batch_axis(layout: str | None) -> int:
        """The batch axis of a layout string (``-1`` when it has no ``'N'``, 0 for None)."""
        return 0 if layout is None else layout.find("N")

    @staticmethod
    def get_list(
        shapes: Sequence[tuple[str, Sequence[int]]], types: Sequence[tuple[str, Any]] | None
    ) -> list[DataDesc]:
        """DataDescs from ``[(name, shape)]`` and optionally ``[(name, dtype)]``."""
        if types is None:
            return [DataDesc(n, s) for n, s in shapes]
        kinds = dict(types)
        return [DataDesc(n, s, kinds[n]) for n, s in shapes]


class DataBatch:
    """One batch: ``data`` and ``label`` (lists of arrays), ``pad`` (examples at the end that only fill
    the batch), ``index`` (the examples' indices), ``bucket_key``, ``provide_data``/``provide_label``."""

    def __init__(
        self,
        data: Sequence[Any] | None,
        label: Sequence[Any] | None = None,
        pad: int | None = None,
        index: Any = None,
        bucket_key: Any = None,
        provide_data: list | None = None,
        provide_label: list | None = None,
    ) -> None:
        if data is not None and not isinstance(data, (list, tuple)):
            raise TypeError(
                f"DataBatch: data must be a list of arrays, got {type(data).__name__}; "
                "wrap a single array as [x]"
            )
        if label is not None and not isinstance(label, (list, tuple)):
            raise TypeError(
                f"DataBatch: label must be a list of arrays, got {type(label).__name__}; "
                "wrap a single array as [y]"
            )
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self) -> str:
        data = [d.shape for d in self.data] if self.data is not None else None
        label = [lab.shape for lab in self.label] if self.label else None
        return f"{type(self).__name__}: data shapes: {data} label shapes: {label}"


class DataIter:
    """Base class of MXNet's iterators: subclasses define ``iter_next`` and the ``get*`` methods (or
    ``next``); iteration stops with ``StopIteration`` until :meth:`reset`."""

    def __init__(self, batch_size: int = 0) -> None:
        self.batch_size = batch_size

    def __iter__(self) -> DataIter:
        return self

    def reset(self) -> None:
        """Go back to the start of the data."""

    def next(self) -> DataBatch:
        """The next batch; ``StopIteration`` at the end of the data."""
        if self.iter_next():
            return DataBatch(
                data=self.getdata(), label=self.getlabel(), pad=self.getpad(), index=self.getindex()
            )
        raise StopIteration

    def __next__(self) -> DataBatch:
        return self.next()

    def iter_next(self) -> bool:
        """Move to the next batch; False at the end."""
        return False

    def getdata(self) -> list | None:
        return None

    def getlabel(self) -> list | None:
        return None

    def getindex(self) -> Any:
        return None

    def getpad(self) -> int | None:
        return None


class ResizeIter(DataIter):
    """Exactly ``size`` batches per epoch from ``data_iter``, which is reset and continued when it ends
    early; ``reset_internal=False`` keeps its position across :meth:`reset`."""

    def __init__(self, data_iter: DataIter, size: int, reset_internal: bool = True) -> None:
        super().__init__(data_iter.batch_size)
        self.data_iter = data_iter
        self.size = int(size)
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch: DataBatch | None = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        if hasattr(data_iter, "default_bucket_key"):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self) -> None:
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self) -> bool:
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


class _Prefetcher:
    """The threads' side of a PrefetchingIter (they hold this, not the iterator, so the iterator can
    be collected and its ``__del__`` stop them)."""

    def __init__(self, iters: list[DataIter]) -> None:
        self.iters = iters
        self.cond = threading.Condition()
        self.next: list[Any] = [None] * len(iters)
        self.ready = [False] * len(iters)
        self.want = [True] * len(iters)
        self.alive = True
        self.threads = [
            threading.Thread(target=self.work, args=(i,), daemon=True, name=f"PrefetchingIter-{i}")
            for i in range(len(iters))
        ]
        for t in self.threads:
            t.start()

    def work(self, i: int) -> None:
        while True:
            with self.cond:
                self.cond.wait_for(lambda: self.want[i] or not self.alive)
                if not self.alive:
                    return
                self.want[i] = False
            try:
                got: Any = self.iters[i].next()
            except StopIteration:
                got = None
            except BaseException as e:  # handed to the consumer, raised there
                got = e
            with self.cond:
                self.next[i], self.ready[i] = got, True
                self.cond.notify_all()

    def wait(self) -> list[Any]:
        with self.cond:
            self.cond.wait_for(lambda: all(self.ready))
            return list(self.next)

    def request(self) -> None:
        with self.cond:
            self.ready = [False] * len(self.iters)
            self.want = [True] * len(self.iters)
            self.cond.notify_all()

    def stop(self) -> None:
        with self.cond:
            self.alive = False
            self.cond.notify_all()
        for t in self.threads:
            if t is not threading.current_thread():
                t.join()


class PrefetchingIter(DataIter):
    """Reads the next batch of each of ``iters`` in a background thread (threads only: a process running
    JAX is never forked) and yields their data and labels concatenated into one batch.

    ``rename_data``/``rename_label``: one ``{old_name: new_name}`` dict per iterator.
    """

    def __init__(
        self,
        iters: DataIter | Sequence[DataIter],
        rename_data: Sequence[dict] | None = None,
        rename_label: Sequence[dict] | None = None,
    ) -> None:
        super().__init__()
        self.iters = list(iters) if isinstance(iters, (list, tuple)) else [iters]
        if not self.iters:
            raise ValueError("PrefetchingIter: iters is empty; pass one DataIter or a list of them")
        self.n_iter = len(self.iters)
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.current_batch: DataBatch | None = None
        self._fetch = _Prefetcher(self.iters)

    def close(self) -> None:
        """Stop the prefetching threads (also done when the iterator is collected)."""
        self._fetch.stop()

    def __del__(self) -> None:
        if getattr(self, "_fetch", None) is not None:
            self._fetch.stop()

    @staticmethod
    def _renamed(iters: list[DataIter], renames: Sequence[dict] | None, attr: str) -> list:
        if renames is None:
            return sum((list(getattr(it, attr)) for it in iters), [])
        return [
            DataDesc(r[d[0]], d[1], getattr(d, "dtype", onp.float32))
            for r, it in zip(renames, iters, strict=True)
            for d in getattr(it, attr)
        ]

    @property
    def provide_data(self) -> list:
        return self._renamed(self.iters, self.rename_data, "provide_data")

    @property
    def provide_label(self) -> list:
        return self._renamed(self.iters, self.rename_label, "provide_label")

    def reset(self) -> None:
        self._fetch.wait()
        for it in self.iters:
            it.reset()
        self._fetch.request()

    def iter_next(self) -> bool:
        batches = self._fetch.wait()
        for got in batches:
            if isinstance(got, BaseException):
                raise got
        if batches[0] is None:
            if any(b is not None for b in batches):
                raise ValueError("PrefetchingIter: the iterators hold different numbers of batches")
            return False
        if any(b is None or b.pad != batches[0].pad for b in batches):
            raise ValueError("PrefetchingIter: the iterators hold different numbers of examples")
        first = batches[0]
        self.current_batch = DataBatch(
            sum((list(b.data) for b in batches), []),
            sum((list(b.label or []) for b in batches), []),
            first.pad,
            first.index,
            provide_data=self.provide_data,
            provide_label=self.provide_label,
        )
        self._fetch.request()
        return True

    def next(self) -> DataBatch:
        if self.iter_next():
            return self.current_batch
        raise StopIteration

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad
