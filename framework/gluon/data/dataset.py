"""Datasets: MXNet's ``gluon.data.Dataset`` and its array and list containers.

Items live on the host as numpy values; the :class:`~framework.gluon.data.DataLoader` turns batches into
``jax.Array``s. Array-backed datasets (and lazy transforms of them whose transforms are batch-safe)
can also be fetched a whole batch at a time by an index array, which is how the DataLoader builds
batches without a Python loop per sample.

>>> import numpy as onp
>>> ds = ArrayDataset(onp.arange(12).reshape(6, 2), onp.arange(6) % 2)
>>> len(ds), ds[1]
(6, (array([2, 3]), np.int64(1)))
>>> ds.transform_first(lambda x: x * 10)[1][0]
array([20, 30])
>>> [int(y) for _, y in ds.filter(lambda item: item[1] == 0)]
[0, 0, 0]
>>> len(ds.shard(4, 0)), len(ds.shard(4, 3)), len(ds.take(2))
(2, 1, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as onp

from ._batching import gather
from .batchify import host as _host
from .sampler import FilterSampler

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset"]


class Dataset:
    """Abstract dataset: ``__getitem__`` and ``__len__``, plus MXNet's lazy combinators."""

    def __getitem__(self, idx: Any) -> Any:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def filter(self, fn: Callable[[Any], bool]) -> Dataset:
        """The samples for which ``fn(sample)`` is true (evaluated once, now)."""
        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards: int, index: int) -> Dataset:
        """Part ``index`` of ``num_shards`` contiguous parts; the first ``len % num_shards`` get one more.

        >>> [len(SimpleDataset(list(range(10))).shard(3, i)) for i in range(3)]
        [4, 3, 3]
        """
        if not isinstance(num_shards, int) or num_shards <= 0:
            raise ValueError(f"shard: num_shards must be a positive integer, got {num_shards!r}.")
        if not isinstance(index, int) or not 0 <= index < num_shards:
            raise ValueError(f"shard: index {index!r} is out of bounds: expected 0 <= index < {num_shards}.")
        length = len(self)
        shard_len, rest = divmod(length, num_shards)
        start = shard_len * index + min(index, rest)
        end = start + shard_len + (index < rest)
        return _SampledDataset(self, range(start, end))

    def take(self, count: int | None) -> Dataset:
        """The first ``count`` samples (all of them if ``count`` is None or too large)."""
        if count is None or count > len(self):
            count = len(self)
        return _SampledDataset(self, range(count))

    def sample(self, sampler: Iterable[int]) -> Dataset:
        """The samples at the indices that ``sampler`` yields, in that order."""
        return _SampledDataset(self, sampler)

    def transform(self, fn: Callable[..., Any], lazy: bool = True) -> Dataset:
        """Apply ``fn`` to each sample (tuple samples are unpacked into arguments).

        ``lazy=False`` applies it to every sample now and keeps the results.
        """
        trans = _LazyTransformDataset(self, fn)
        if lazy:
            return trans
        return SimpleDataset([trans[i] for i in range(len(trans))])

    def transform_first(self, fn: Callable[[Any], Any], lazy: bool = True) -> Dataset:
        """Apply ``fn`` to the first element of each sample only (the data, not the label).

        >>> SimpleDataset([(1, 'a'), (2, 'b')]).transform_first(lambda x: x + 1)[1]
        (3, 'b')
        """
        return self.transform(_TransformFirstClosure(fn), lazy)

    def _getbatch(self, indices: onp.ndarray) -> Any:
        """The stacked samples at ``indices`` (what the default batchify makes of them, as numpy: a
        tuple of arrays for tuple samples), or ``NotImplemented`` when this dataset cannot make them
        without a per-sample loop. The arrays returned are new (callers may modify them in place)."""
        return NotImplemented


class SimpleDataset(Dataset):
    """A dataset over any sequence (a list, a numpy array, ...).

    >>> SimpleDataset([3, 4, 5])[1:]
    [4, 5]
    """

    def __init__(self, data: Sequence[Any]) -> None:
        self._data = data

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, idx: Any) -> Any:
        return self._data[idx]

    def _getbatch(self, indices: onp.ndarray) -> Any:
        if isinstance(self._data, onp.ndarray):
            return gather(self._data, indices)
        if isinstance(self._data, Dataset):
            return self._data._getbatch(indices)
        return NotImplemented


class ArrayDataset(Dataset):
    """Zips arrays (or lists) of equal length: item ``i`` is ``(a[i], b[i], ...)``, or ``a[i]`` alone.

    ``jax.Array`` inputs are copied to the host once, here (not once per sample): items are numpy values.

    >>> ArrayDataset([1, 2, 3])[2]
    3
    """

    def __init__(self, *args: Any) -> None:
        if not args:
            raise ValueError("ArrayDataset needs at least 1 array, got none.")
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            if len(data) != self._length:
                raise ValueError(f"All arrays must have the same length; array[0] has length "
                                 f"{self._length} while array[{i}] has {len(data)}.")
            self._data.append(_host(data))

    def __getitem__(self, idx: Any) -> Any:
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self) -> int:
        return self._length

    def _getbatch(self, indices: onp.ndarray) -> Any:
        if not all(isinstance(d, onp.ndarray) for d in self._data):
            return NotImplemented
        if len(self._data) == 1:
            return gather(self._data[0], indices)
        return tuple(gather(d, indices) for d in self._data)


class _SampledDataset(Dataset):
    """The samples of ``dataset`` at the indices a sampler yields."""

    def __init__(self, dataset: Dataset, sampler: Iterable[int]) -> None:
        self._dataset = dataset
        self._indices = list(iter(sampler))
        self._index_array: onp.ndarray | None = None

    def __len__(self) -> int:
        return len(self._indices)

    def __getitem__(self, idx: Any) -> Any:
        return self._dataset[self._indices[idx]]

    def _getbatch(self, indices: onp.ndarray) -> Any:
        if self._index_array is None:
            self._index_array = onp.asarray(self._indices, dtype=onp.int64).reshape(-1)
        return self._dataset._getbatch(self._index_array[indices])


class _LazyTransformDataset(Dataset):
    """``fn`` applied to the samples of ``data`` when they are read."""

    def __init__(self, data: Dataset, fn: Callable[..., Any]) -> None:
        self._data = data
        self._fn = fn

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, idx: Any) -> Any:
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)

    def _getbatch(self, indices: onp.ndarray) -> Any:
        fn = self._fn
        first_only = isinstance(fn, _TransformFirstClosure)
        batched = getattr(fn._fn if first_only else fn, "_batch_call", None)
        if batched is None:
            return NotImplemented
        items = self._data._getbatch(indices)
        if items is NotImplemented:
            return NotImplemented
        if isinstance(items, tuple):
            if not first_only:  # fn takes every field of a sample: no batch form for that
                return NotImplemented
            head = batched(items[0])
            return NotImplemented if head is NotImplemented else (head, *items[1:])
        return batched(items)


class _TransformFirstClosure:
    """Applies ``fn`` to the first of the arguments and passes the others through (picklable)."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self._fn = fn

    def __call__(self, x: Any, *args: Any) -> Any:
        if args:
            return (self._fn(x), *args)
        return self._fn(x)
