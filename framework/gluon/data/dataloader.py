"""MXNet's ``gluon.data.DataLoader``: batches of a dataset as ``jax.Array``s on the CPU device.

Batches are built on the host with numpy and placed with one ``jax.device_put`` each. With the default
batchify function, a dataset backed by arrays (ArrayDataset, the vision datasets, and their
``transform_first`` with batch-safe transforms such as ToTensor and Normalize) is read a whole batch at
a time, with no Python loop over samples. ``num_workers > 0`` builds batches in worker processes
(fresh interpreters, never forks of this one) or, with ``thread_pool=True``, in threads; either way the
batches are exactly those of ``num_workers=0`` for the same ``framework.np.random.seed``.

>>> import numpy as onp
>>> from framework.gluon.data import ArrayDataset
>>> loader = DataLoader(ArrayDataset(onp.ones((10, 2), 'float32'), onp.arange(10)), batch_size=4,
...                     last_batch='discard')
>>> len(loader), [(x.shape, y.dtype.name) for x, y in loader]
(2, [((4, 2), 'int32'), ((4, 2), 'int32')])
"""

from __future__ import annotations

import warnings
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import numpy as onp

from ...util import is_np_array as is_np_array  # MXNet's imports
from ...util import is_np_shape as is_np_shape
from ...util import set_np as set_np
from ._batching import make_batch
from ._multiworker import _MultiWorkerIter
from ._rng import draw_seed
from ._workers import ProcessPool, ThreadPool, UnpicklableDatasetError, pickle_for_workers
from .batchify import default_batchify_fn, default_mp_batchify_fn
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "DataLoaderV1", "default_batchify_fn", "default_mp_batchify_fn", "_MultiWorkerIter"]


def _place(batch: Any) -> Any:
    """Every numeric numpy array of ``batch`` becomes a ``jax.Array`` on the CPU (``device.host_to_device``: a
    third of ``jax.device_put``'s overhead, the largest cost of an epoch of small batches after the
    batches themselves)."""
    import jax  # imported on first use, not at import: worker processes import this package without JAX

    from ...device import cpu, host_to_device

    leaves, tree = jax.tree_util.tree_flatten(batch)
    host = cpu(0)
    for i, x in enumerate(leaves):
        if isinstance(x, onp.ndarray) and x.dtype.kind in "biufc":
            leaves[i] = host_to_device(x, host)
        elif isinstance(x, onp.generic) and x.dtype.kind in "biufc":
            leaves[i] = jax.device_put(x, host)
    return jax.tree_util.tree_unflatten(tree, leaves)


def _as_indices(batch: Any) -> Any:
    """A batch of integer indices as an int64 array (the fast path); anything else unchanged."""
    if isinstance(batch, onp.ndarray):
        return batch
    if isinstance(batch, list | tuple) and all(isinstance(i, int | onp.integer) for i in batch):
        return onp.asarray(batch, dtype=onp.int64).reshape(-1)
    return batch


class DataLoader:
    """Loads batches from ``dataset``; MXNet 1.9's signature and behaviour.

    Parameters
    ----------
    dataset : Dataset
        Any object with ``__getitem__`` and ``__len__``.
    batch_size : int
        Samples per batch (required unless ``batch_sampler`` is given).
    shuffle : bool
        Visit samples in a new random order each epoch (seeded by ``framework.np.random.seed``).
    sampler : Sampler
        The order of samples; not together with ``shuffle``.
    last_batch : {'keep', 'discard', 'rollover'}
        What to do with an incomplete last batch (default 'keep').
    batch_sampler : Sampler
        Yields lists of indices; replaces batch_size, shuffle, sampler and last_batch.
    batchify_fn : callable
        Makes a batch of a list of samples (default: stack; tuple samples give a list of batches).
    num_workers : int
        Worker processes (0: load in the calling thread). As in MXNet 1.x, the workers start here, in
        the constructor, so they load the dataset while the rest of the program is set up; they persist
        until the loader is deleted.
    pin_memory, pin_device_id : bool, int
        Accepted for compatibility: batches are always placed on the CPU device, whose buffers JAX
        transfers to accelerators itself.
    prefetch : int
        Batches in flight per loader with workers (default ``2 * num_workers``).
    thread_pool : bool
        Use threads instead of processes for the workers.
    timeout : float
        Seconds to wait for one batch from a worker before raising ``TimeoutError``.
    try_nopython : bool
        Accepted for compatibility (MXNet's C++ loader); ignored.
    """

    def __init__(self, dataset: Any, batch_size: int | None = None, shuffle: bool = False,
                 sampler: Sampler | None = None, last_batch: str | None = None,
                 batch_sampler: Any = None, batchify_fn: Callable[[list[Any]], Any] | None = None,
                 num_workers: int = 0, pin_memory: bool = False, pin_device_id: int = 0,
                 prefetch: int | None = None, thread_pool: bool = False, timeout: float = 120,
                 try_nopython: bool | None = None) -> None:
        if not hasattr(dataset, "__getitem__") or not hasattr(dataset, "__len__"):
            raise TypeError(f"DataLoader: dataset must have __getitem__ and __len__ (a gluon.data.Dataset), "
                            f"got {type(dataset).__name__}.")
        if not timeout > 0:
            raise ValueError(f"timeout must be positive, given {timeout}")
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = bool(thread_pool)
        self._timeout = timeout
        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("batch_size must be specified unless batch_sampler is specified")
            if sampler is None:
                sampler = RandomSampler(len(dataset)) if shuffle else SequentialSampler(len(dataset))
            elif shuffle:
                raise ValueError("shuffle must not be specified if sampler is specified")
            batch_sampler = BatchSampler(sampler, batch_size, last_batch if last_batch else "keep")
        elif batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise ValueError("batch_size, shuffle, sampler and last_batch must not be specified if "
                             "batch_sampler is specified.")
        self._batch_sampler = batch_sampler
        self._num_workers = max(0, int(num_workers))
        self._prefetch = max(0, int(prefetch) if prefetch is not None else 2 * self._num_workers)
        # None (or MXNet's default itself) selects the default, which may read whole batches at once.
        self._batchify_fn = None if batchify_fn is default_batchify_fn else batchify_fn
        self._worker_pool: ThreadPool | ProcessPool | None = None
        self._finalizer: weakref.finalize | None = None
        if self._num_workers:
            self._pool()

    def __len__(self) -> int:
        return len(self._batch_sampler)

    def __iter__(self) -> Iterator[Any]:
        seed = draw_seed()  # one key per epoch: random transforms draw from (seed, batch number)
        sampler = self._batch_sampler
        batches = sampler._index_batches() if isinstance(sampler, BatchSampler) else iter(sampler)
        if self._num_workers == 0:
            return self._same_thread(batches, seed)
        return _PoolIter(self, self._pool(), batches, seed, max(1, self._prefetch))

    def _same_thread(self, batches: Iterator[Any], seed: tuple[int, int]) -> Iterator[Any]:
        for b, indices in enumerate(batches):
            yield _place(make_batch(self._dataset, _as_indices(indices), self._batchify_fn, seed, b))

    def _pool(self) -> ThreadPool | ProcessPool:
        """The persistent worker pool, started by the constructor (again by the next epoch after a
        worker died) and reused by every epoch."""
        if self._worker_pool is None:
            pool: ThreadPool | ProcessPool
            if self._thread_pool:
                pool = ThreadPool(self._num_workers)
            else:
                try:
                    payload = pickle_for_workers(self._dataset, self._batchify_fn)
                except UnpicklableDatasetError as err:
                    warnings.warn(
                        f"DataLoader(num_workers={self._num_workers}): the dataset cannot be sent to worker "
                        f"processes: {err}. Loading with {self._num_workers} threads instead "
                        "(thread_pool=True). Define datasets, transforms and batchify functions in an "
                        "importable module (not in the main script, not as lambdas) to use processes.",
                        RuntimeWarning, stacklevel=3)
                    self._thread_pool = True
                    return self._pool()
                pool = ProcessPool(self._num_workers, payload)
            self._worker_pool = pool
            self._finalizer = weakref.finalize(self, pool.close)
        return self._worker_pool

    def _drop_pool(self) -> None:
        if self._finalizer is not None:
            self._finalizer()
        self._worker_pool = self._finalizer = None


class _PoolIter:
    """One epoch from a worker pool: ``window`` batches in flight, yielded in order.

    Submitting starts at construction (as MXNet's ``_MultiWorkerIter``); batches still in flight when
    the iterator is closed or dropped are discarded.
    """

    def __init__(self, loader: DataLoader, pool: Any, batches: Iterator[Any], seed: tuple[int, int],
                 window: int) -> None:
        self._loader, self._pool, self._seed = loader, pool, seed
        self._numbered = enumerate(batches)
        self._pending: deque[Any] = deque()
        try:
            while len(self._pending) < window and self._push():
                pass
        except BaseException:
            self._abandon()
            raise

    def _push(self) -> bool:
        for b, indices in self._numbered:
            ld = self._loader
            ticket = self._pool.submit(ld._dataset, ld._batchify_fn, b, _as_indices(indices), self._seed)
            self._pending.append(ticket)
            return True
        return False

    def __iter__(self) -> _PoolIter:
        return self

    def __next__(self) -> Any:
        if not self._pending:
            raise StopIteration
        ticket = self._pending.popleft()
        try:
            out = self._pool.result(ticket, self._loader._timeout)
            self._push()
        except BaseException:
            self._pending.appendleft(ticket)
            self._abandon()
            raise
        return _place(out)

    def _abandon(self) -> None:
        """Give up this epoch; a pool with a dead worker is dropped (the next epoch starts a new one)."""
        self.close()
        if getattr(self._pool, "broken", None):
            self._loader._drop_pool()

    def close(self) -> None:
        if self._pending:
            self._pool.discard(list(self._pending))
            self._pending.clear()

    def __del__(self) -> None:
        self.close()


class DataLoaderV1(DataLoader):
    """MXNet 1.x's first DataLoader, kept in 1.9.1 beside :class:`DataLoader`: the same batches from the
    same arguments, without ``prefetch``, ``thread_pool`` and ``timeout`` (here it runs as DataLoader).

    >>> from framework.gluon.data import ArrayDataset
    >>> [b.shape for b in DataLoaderV1(ArrayDataset(list(range(5))), batch_size=2, last_batch='discard')]
    [(2,), (2,)]
    """

    def __init__(self, dataset: Any, batch_size: int | None = None, shuffle: bool = False,
                 sampler: Sampler | None = None, last_batch: str | None = None, batch_sampler: Any = None,
                 batchify_fn: Callable[[list[Any]], Any] | None = None, num_workers: int = 0,
                 pin_memory: bool = False, pin_device_id: int = 0) -> None:
        super().__init__(dataset, batch_size, shuffle, sampler, last_batch, batch_sampler, batchify_fn,
                         num_workers, pin_memory, pin_device_id)
