"""Samplers: the order in which a DataLoader visits a dataset, as MXNet's ``gluon.data.sampler``.

:class:`RandomSampler` draws its permutation from the framework key stream once per epoch, so
``framework.np.random.seed(n)`` makes shuffling reproducible.

>>> from framework import np
>>> list(BatchSampler(SequentialSampler(7), 3, 'keep'))
[[0, 1, 2], [3, 4, 5], [6]]
>>> list(IntervalSampler(6, interval=3))
[0, 3, 1, 4, 2, 5]
>>> np.random.seed(0); a = list(RandomSampler(5))
>>> np.random.seed(0); b = list(RandomSampler(5))
>>> a == b and sorted(a) == [0, 1, 2, 3, 4]
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as onp

from ._rng import draw_seed

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "BatchSampler", "IntervalSampler",
           "FilterSampler"]

_LAST_BATCH = ("keep", "discard", "rollover")


class Sampler:
    """Base class: an iterable of sample indices with a length."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError


def _check_length(length: Any, who: str) -> int:
    if isinstance(length, bool) or not isinstance(length, int | onp.integer) or length < 0:
        raise ValueError(f"{who}: length must be a non-negative integer, got {length!r}.")
    return int(length)


class SequentialSampler(Sampler):
    """Samples ``start, start+1, ..., start+length-1`` in order.

    >>> list(SequentialSampler(3, start=2))
    [2, 3, 4]
    """

    def __init__(self, length: int, start: int = 0) -> None:
        self._length = _check_length(length, "SequentialSampler")
        self._start = int(start)

    def __iter__(self) -> Iterator[int]:
        return iter(range(self._start, self._start + self._length))

    def __len__(self) -> int:
        return self._length

    def _index_array(self) -> onp.ndarray:
        return onp.arange(self._start, self._start + self._length, dtype=onp.int64)


class RandomSampler(Sampler):
    """Samples ``0 .. length-1`` in a random order; each epoch draws one key from the framework stream.

    >>> len(RandomSampler(10))
    10
    """

    def __init__(self, length: int) -> None:
        self._length = _check_length(length, "RandomSampler")

    def __iter__(self) -> Iterator[onp.int64]:
        return iter(self._index_array())

    def __len__(self) -> int:
        return self._length

    def _index_array(self) -> onp.ndarray:
        return onp.random.default_rng(draw_seed()).permutation(self._length)


class IntervalSampler(Sampler):
    """Samples ``0, k, 2k, ...`` then ``1, k+1, ...`` (with ``rollover``), or only the first pass.

    >>> list(IntervalSampler(6, interval=3, rollover=False))
    [0, 3]
    """

    def __init__(self, length: int, interval: int, rollover: bool = True) -> None:
        length = _check_length(length, "IntervalSampler")
        if not 0 < interval < length:
            raise ValueError(f"IntervalSampler: interval {interval} must be positive and smaller than "
                             f"length {length}.")
        self._length, self._interval, self._rollover = length, int(interval), bool(rollover)

    def __iter__(self) -> Iterator[int]:
        for i in range(self._interval if self._rollover else 1):
            yield from range(i, self._length, self._interval)

    def __len__(self) -> int:
        return self._length


class FilterSampler(Sampler):
    """Samples the indices of ``dataset`` whose sample satisfies ``fn``.

    >>> list(FilterSampler(lambda x: x % 2 == 0, [5, 6, 7, 8]))
    [1, 3]
    """

    def __init__(self, fn: Callable[[Any], bool], dataset: Any) -> None:
        self._fn = fn
        self._dataset = dataset
        self._indices = [i for i, sample in enumerate(dataset) if fn(sample)]

    def __iter__(self) -> Iterator[int]:
        return iter(self._indices)

    def __len__(self) -> int:
        return len(self._indices)


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size``.

    ``last_batch`` says what happens to an incomplete last batch: ``'keep'`` it, ``'discard'`` it, or
    ``'rollover'``: carry its indices into the first batch of the next epoch.

    >>> s = BatchSampler(SequentialSampler(5), 2, 'rollover')
    >>> list(s), list(s)
    ([[0, 1], [2, 3]], [[4, 0], [1, 2], [3, 4]])
    """

    def __init__(self, sampler: Iterable[Any], batch_size: int, last_batch: str = "keep") -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int | onp.integer) or batch_size <= 0:
            raise ValueError(f"BatchSampler: batch_size must be a positive integer, got {batch_size!r}.")
        if last_batch not in _LAST_BATCH:
            raise ValueError(f"last_batch must be one of 'keep', 'discard', or 'rollover', but got "
                             f"{last_batch!r}.")
        self._sampler = sampler
        self._batch_size = int(batch_size)
        self._last_batch = last_batch
        self._prev: list[Any] = []

    def __iter__(self) -> Iterator[list[Any]]:
        for batch in self._index_batches():
            yield batch.tolist() if isinstance(batch, onp.ndarray) else batch

    def _index_batches(self) -> Iterator[onp.ndarray | list[Any]]:
        """The batches of :meth:`__iter__`; int64 arrays when the indices are integers (the fast path)."""
        sampler = self._sampler
        indices: onp.ndarray | list[Any]
        if type(sampler) in (SequentialSampler, RandomSampler):
            indices = sampler._index_array()  # type: ignore[attr-defined]
        else:
            indices = list(iter(sampler))
            if all(isinstance(i, int | onp.integer) for i in indices):
                indices = onp.asarray(indices, dtype=onp.int64).reshape(-1)
        if self._prev:
            if isinstance(indices, onp.ndarray):
                indices = onp.concatenate([onp.asarray(self._prev, dtype=onp.int64), indices])
            else:
                indices = list(self._prev) + indices
            self._prev = []
        size = self._batch_size
        full = len(indices) // size * size
        for start in range(0, full, size):
            yield indices[start:start + size]
        rest = indices[full:]
        if len(rest):
            if self._last_batch == "keep":
                yield rest
            elif self._last_batch == "rollover":
                self._prev = list(rest)

    def __len__(self) -> int:
        n = len(self._sampler)  # type: ignore[arg-type]
        if self._last_batch == "keep":
            return (n + self._batch_size - 1) // self._batch_size
        if self._last_batch == "discard":
            return n // self._batch_size
        return (len(self._prev) + n) // self._batch_size
