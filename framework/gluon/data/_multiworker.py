"""MXNet 1.x's ``gluon.data.dataloader._MultiWorkerIter``: the iterator that hands batches of indices to a
``multiprocessing``-style pool (``apply_async``) and yields the results in order.

The framework's own :class:`~framework.gluon.data.DataLoader` does not use it (its workers are fresh
interpreters, see ``_workers.py``); it exists for libraries that subclass it with their own pool and
worker function (GluonCV's random-transform loader does). The protocol is MXNet's: ``worker_fn(indices,
batchify_fn, dataset)`` runs in the pool; with ``dataset=None`` it returns the batch serialised with
``pickle`` (what MXNet's pool workers send), otherwise the batch itself. ``_push_next``,
``_data_buffer``, ``_sent_idx`` and ``_rcvd_idx`` keep MXNet's names because subclasses override and read
them.

>>> from multiprocessing.pool import ThreadPool
>>> def worker(indices, batchify_fn, dataset):
...     return batchify_fn([dataset[i] for i in indices])
>>> with ThreadPool(2) as pool:
...     it = _MultiWorkerIter(pool, list, [[0, 1], [2]], worker_fn=worker, prefetch=2, dataset="abc")
...     print(len(it), list(it))
2 [['a', 'b'], ['c']]
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["_MultiWorkerIter"]


def _worker_fn(samples: Iterable[int], batchify_fn: Callable[[list[Any]], Any], dataset: Any = None) -> Any:
    """The default worker function: the batch of ``dataset``'s samples (pickled when sent back)."""
    if dataset is None:
        raise ValueError("_MultiWorkerIter's default worker function needs the dataset: pass dataset=... "
                         "or a worker_fn that knows where the samples are.")
    return batchify_fn([dataset[i] for i in samples])


class _MultiWorkerIter:
    """Batches of ``batch_sampler``'s indices built by ``worker_pool``, in the sampler's order."""

    def __init__(self, worker_pool: Any, batchify_fn: Callable[[list[Any]], Any],
                 batch_sampler: Iterable[Any], pin_memory: bool = False, pin_device_id: int = 0,
                 worker_fn: Callable[..., Any] = _worker_fn, prefetch: int = 0, dataset: Any = None,
                 data_loader: Any = None, timeout: float = 120) -> None:
        self._worker_pool = worker_pool
        self._batchify_fn = batchify_fn
        self._batch_sampler = batch_sampler
        self._data_buffer: dict[int, Any] = {}
        self._rcvd_idx = 0
        self._sent_idx = 0
        self._iter = iter(batch_sampler)
        self._worker_fn = worker_fn
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._dataset = dataset
        self._data_loader = data_loader
        self._timeout = timeout
        for _ in range(prefetch):
            self._push_next()

    def __len__(self) -> int:
        return len(self._batch_sampler)  # type: ignore[arg-type]

    def _push_next(self) -> None:
        """Send the sampler's next batch of indices to the pool (nothing when it is exhausted)."""
        indices = next(self._iter, None)
        if indices is None:
            return
        self._data_buffer[self._sent_idx] = self._worker_pool.apply_async(
            self._worker_fn, (indices, self._batchify_fn, self._dataset))
        self._sent_idx += 1

    def __next__(self) -> Any:
        self._push_next()
        if self._rcvd_idx == self._sent_idx:
            raise StopIteration
        pending = self._data_buffer.pop(self._rcvd_idx)
        try:
            batch = pending.get(self._timeout)
        except Exception:
            if hasattr(self._worker_pool, "terminate"):
                self._worker_pool.terminate()
            raise
        if self._dataset is None and isinstance(batch, bytes | bytearray):
            batch = pickle.loads(batch)  # a pool worker's reply to this process, as in MXNet
        self._rcvd_idx += 1
        return batch

    next = __next__

    def __iter__(self) -> _MultiWorkerIter:
        return self
