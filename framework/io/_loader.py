"""The batching of MXNet's C++ iterators (``CSVIter``, ``ImageRecordIter``): a fixed batch size, and
``round_batch``.

With ``round_batch=True`` (MXNet's default) an incomplete last batch is completed with examples from the
start of the data (``pad`` counts them), and the next epoch starts after those examples. With
``round_batch=False`` every epoch starts at the first example and the slots of an incomplete last batch
keep the previous batch's examples (``pad`` counts them; MXNet's record iterator leaves them
uninitialised and says ``pad=0``, CSVIter says what is said here).

>>> import numpy as onp
>>> loader = RoundBatches(5, 3, round_batch=True)
>>> [b.order.tolist() for b in loader.epoch()], [b.pad for b in loader.epoch()]
([[0, 1, 2], [3, 4, 0]], [0, 2])
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as onp

__all__ = ["RoundBatches", "Slots"]


class Slots(NamedTuple):
    """One batch: ``order`` the example of each slot, ``fresh`` how many slots are new (the rest keep the
    previous batch's examples: ``round_batch=False``), ``pad`` the slots not from this epoch's data."""

    order: onp.ndarray
    fresh: int
    pad: int


class RoundBatches:
    """Which examples fill each batch, epoch after epoch (see the module docstring)."""

    def __init__(self, num: int, batch_size: int, round_batch: bool = True) -> None:
        if batch_size <= 0:
            raise ValueError(f"batch_size={batch_size} must be a positive integer")
        self.num, self.batch_size, self.round_batch = int(num), int(batch_size), bool(round_batch)
        self._start = 0
        self._last: onp.ndarray | None = None

    def epoch(self, perm: onp.ndarray | None = None) -> Iterator[Slots]:
        """The batches of the next epoch over ``perm`` (default: the examples in order)."""
        perm = onp.arange(self.num) if perm is None else onp.asarray(perm)
        pos = self._start if self.round_batch else 0
        self._start = 0
        bs = self.batch_size
        while pos < self.num:
            take = perm[pos : pos + bs]
            pos += len(take)
            missing = bs - len(take)
            if missing == 0:
                self._last = take
                yield Slots(take, bs, 0)
                continue
            if self.round_batch:
                extra = perm[onp.arange(missing) % self.num]
                self._start = missing if missing < self.num else 0
                order = onp.concatenate([take, extra])
            else:
                stale = self._last[len(take) :] if self._last is not None else onp.full(missing, -1)
                order = onp.concatenate([take, stale])
            self._last = order
            yield Slots(order, len(take) if not self.round_batch else bs, missing)
