"""MXNet 1.9.1's ``contrib.data.sampler``.

>>> list(IntervalSampler(13, interval=3))
[0, 3, 6, 9, 12, 1, 4, 7, 10, 2, 5, 8, 11]
>>> list(IntervalSampler(13, interval=3, rollover=False))
[0, 3, 6, 9, 12]
"""

from __future__ import annotations

from collections.abc import Iterator

from ...data import Sampler

__all__ = ["IntervalSampler"]


class IntervalSampler(Sampler):
    """Indices of ``[0, length)`` at every ``interval``-th position: ``0, k, 2k, ...``, then (with
    ``rollover``) ``1, k+1, ...`` and so on until every index was given; without it, the first pass
    only. ``interval`` may equal ``length`` (MXNet 1.9.1's contrib rule)."""

    def __init__(self, length: int, interval: int, rollover: bool = True) -> None:
        if not isinstance(length, int) or length < 0:
            raise ValueError(f"IntervalSampler: length={length!r} must be a non-negative int")
        if not isinstance(interval, int) or not 0 < interval <= length:
            raise ValueError(f"Interval {interval} must be smaller than or equal to length {length} (and "
                             "positive)")
        self._length, self._interval, self._rollover = length, interval, bool(rollover)

    def __iter__(self) -> Iterator[int]:
        for start in range(self._interval if self._rollover else 1):
            yield from range(start, self._length, self._interval)

    def __len__(self) -> int:
        return self._length
