"""DataLoader worker pools: threads, or worker processes that are fresh interpreters.

Processes are started with :class:`subprocess.Popen` running ``_worker_main.py``: never a fork of this
process (JAX runs threads here), and never a re-import of the user's ``__main__`` script (which the
'spawn' and 'forkserver' start methods do, running an unguarded training script once per worker).
The dataset is pickled once: its large buffers (numpy arrays) are written to one anonymous shared file
that every worker maps copy-on-write, and only the rest of the pickle goes down the pipes, so starting a
pool neither waits for each worker to read a copy of the data nor gives each worker a copy of its own.
Each worker has a task pipe and a result pipe; batch ``k`` of the pool goes to worker ``k % n``, and
each worker answers in order, so results come back in submission order. A worker that dies closes its
result pipe, which the main process sees at once: a crash is a ``RuntimeError`` naming the worker
and its exit status, never a hang.

>>> pool = ThreadPool(2)
>>> import numpy as onp
>>> from framework.gluon.data import ArrayDataset
>>> t = pool.submit(ArrayDataset(onp.arange(4)), None, 0, onp.array([2, 3]), (0, 0))
>>> pool.result(t, timeout=10).tolist()
[2, 3]
>>> pool.close()
"""

from __future__ import annotations

import concurrent.futures
import io
import itertools
import json
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
from multiprocessing.connection import Connection, Pipe
from pathlib import Path
from typing import Any, NamedTuple

import numpy as onp

from ...base import FrameworkError
from ._batching import aligned_empty, make_batch

__all__ = ["ThreadPool", "ProcessPool", "WorkerPayload", "pickle_for_workers", "UnpicklableDatasetError"]

_SHARED_ALIGN = 64  # each buffer of the shared file starts 64-byte aligned, as the arrays of a batch do
_TIMEOUT_HINT = ("This might be caused by a slow transform: increase timeout= to allow slower data loading "
                 "in each worker.")


class UnpicklableDatasetError(FrameworkError, TypeError):
    """The dataset (or batchify function) cannot be sent to a worker process."""


class _MainPickler(pickle.Pickler):
    """Refuses objects defined in ``__main__``: worker processes cannot import the main script."""

    def reducer_override(self, obj: Any) -> Any:
        kind = isinstance(obj, type | types.FunctionType)
        module = getattr(obj, "__module__", None) if kind else type(obj).__module__
        if module == "__main__":
            raise UnpicklableDatasetError(f"{obj!r} is defined in the main script (__main__)")
        return NotImplemented


class WorkerPayload(NamedTuple):
    """``(dataset, batchify_fn)`` pickled for the workers: the pickle without its large buffers
    (``head``) and those buffers (numpy arrays' memory, not copied), which travel by shared memory."""

    head: bytes
    buffers: list[memoryview]


def pickle_for_workers(dataset: Any, batchify_fn: Any) -> WorkerPayload:
    """``(dataset, batchify_fn)`` pickled for worker processes, or :class:`UnpicklableDatasetError`."""
    buffer = io.BytesIO()
    buffers: list[pickle.PickleBuffer] = []
    try:
        _MainPickler(buffer, protocol=5, buffer_callback=buffers.append).dump((dataset, batchify_fn))
        raws = [b.raw() for b in buffers]
    except UnpicklableDatasetError:
        raise
    except (pickle.PicklingError, AttributeError, TypeError, BufferError) as err:
        raise UnpicklableDatasetError(str(err)) from None
    return WorkerPayload(buffer.getvalue(), raws)


def _shared_file(buffers: list[memoryview]) -> tuple[int | None, list[tuple[int, int]]]:
    """The buffers written one after the other (64-byte aligned) into an anonymous file in memory: its
    descriptor (``None`` without buffers) and each buffer's (offset, size). The file has no name, so
    nothing is left behind however the processes end; it lives while a descriptor or a mapping does."""
    spans, offset = [], 0
    for raw in buffers:
        offset += -offset % _SHARED_ALIGN
        spans.append((offset, raw.nbytes))
        offset += raw.nbytes
    if offset == 0:
        return None, spans
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("framework-dataloader", os.MFD_CLOEXEC)
    else:  # an unlinked temporary file: in the page cache while it is used
        with tempfile.TemporaryFile() as f:
            fd = os.dup(f.fileno())
    try:
        os.ftruncate(fd, offset)
        for raw, (start, size) in zip(buffers, spans, strict=True):
            done = 0
            while done < size:
                done += os.pwrite(fd, raw[done:], start + done)
    except BaseException:
        os.close(fd)
        raise
    return fd, spans


def receive_message(conn: Connection) -> Any:
    """The counterpart of ``_worker_main.send_message``: array buffers land in 64-byte aligned memory,
    so the arrays of a batch are placed on the CPU device without another copy."""
    head, sizes = pickle.loads(conn.recv_bytes())
    buffers = []
    for n in sizes:
        buf = aligned_empty((n,), onp.uint8)
        if conn.recv_bytes_into(buf) != n:
            raise EOFError("a worker message ended early")
        buffers.append(buf)
    return pickle.loads(head, buffers=buffers)


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "closed its result pipe but is still running"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        hint = " (the kernel's out-of-memory killer sends SIGKILL)" if name == "SIGKILL" else ""
        return f"was killed by {name}{hint}"
    return f"exited with code {code}"


def _widen(conn: Connection) -> None:
    """Let a batch pass the result pipe in one write instead of sixteen 64 KiB rounds (Linux only)."""
    try:
        import fcntl

        limit = int(Path("/proc/sys/fs/pipe-max-size").read_text())
        fcntl.fcntl(conn.fileno(), fcntl.F_SETPIPE_SZ, min(limit, 4 << 20))
    except (ImportError, AttributeError, OSError, ValueError):
        pass


def _samples(indices: Any) -> str:
    try:
        flat = onp.asarray(indices).ravel()
    except (TypeError, ValueError):
        return "sample indices unknown"
    shown = flat[:8].tolist()
    return f"sample indices {shown}{' ...' if flat.size > 8 else ''}"


class ThreadPool:
    """``num_workers`` daemon threads of this process (``thread_pool=True``, or a dataset that cannot be
    sent to processes). Daemon threads: a worker stuck in a sample never keeps the interpreter from
    exiting, and ``timeout`` names the thread, the batch and its samples."""

    def __init__(self, num_workers: int) -> None:
        import queue

        self._tasks: queue.SimpleQueue = queue.SimpleQueue()
        self._retired: set[int] = set()
        self._threads = [threading.Thread(target=self._serve, args=(i,), name=f"DataLoader-{i}", daemon=True)
                         for i in range(num_workers)]
        for t in self._threads:
            t.start()

    def _serve(self, index: int) -> None:
        while True:
            if index in self._retired:  # it timed out: a new thread took its place
                return
            task = self._tasks.get()
            if task is None:
                return
            future, args = task
            if not future.set_running_or_notify_cancel():
                continue
            future.worker = index
            try:
                future.set_result(make_batch(*args))
            except BaseException as err:  # noqa: BLE001 -- handed to the main thread, which raises it
                future.set_exception(err)

    def submit(self, dataset: Any, batchify_fn: Any, batch: int, indices: Any, seed: tuple[int, int]) -> Any:
        future: concurrent.futures.Future = concurrent.futures.Future()
        future.batch, future.indices, future.worker = batch, indices, None
        self._tasks.put((future, (dataset, indices, batchify_fn, seed, batch)))
        return future

    def result(self, ticket: concurrent.futures.Future, timeout: float) -> Any:
        try:
            return ticket.result(timeout)
        except concurrent.futures.TimeoutError:
            who = "no DataLoader thread worker was free" if ticket.worker is None else \
                f"DataLoader thread worker {ticket.worker}"
            if ticket.worker is not None and ticket.worker not in self._retired:
                # a thread cannot be stopped: it retires when its sample returns; a new one serves meanwhile
                self._retired.add(ticket.worker)
                index = len(self._threads)
                thread = threading.Thread(target=self._serve, args=(index,), name=f"DataLoader-{index}",
                                          daemon=True)
                self._threads.append(thread)
                thread.start()
            raise TimeoutError(f"{who} timed out after {timeout} seconds loading batch {ticket.batch} "
                               f"({_samples(ticket.indices)}). {_TIMEOUT_HINT}") from None

    def discard(self, tickets: list[Any]) -> None:
        for t in tickets:
            t.cancel()

    def close(self) -> None:
        for _ in self._threads:
            self._tasks.put(None)


class _Worker:
    def __init__(self, index: int, proc: subprocess.Popen, tasks: Connection, results: Connection) -> None:
        self.index, self.proc, self.tasks, self.results = index, proc, tasks, results

    def describe(self) -> str:
        return f"DataLoader worker {self.index} (pid {self.proc.pid})"


_BOOT = ("import importlib.util, json, sys\n"
         "cfg = json.loads(sys.argv[1])\n"
         "sys.path[:] = cfg['path']\n"
         "spec = importlib.util.spec_from_file_location('_framework_data_worker', cfg['file'])\n"
         "mod = importlib.util.module_from_spec(spec)\n"
         "spec.loader.exec_module(mod)\n"
         "sys.exit(mod.main(cfg['tasks'], cfg['results'], cfg['lazy'], cfg['parent'], cfg['shared']))\n")


class ProcessPool:
    """``num_workers`` worker processes sharing the dataset's arrays (one mapped file); persistent until
    :meth:`close`."""

    def __init__(self, num_workers: int, payload: WorkerPayload, *, lazy_imports: bool = True) -> None:
        self._workers: list[_Worker] = []
        self._tickets = itertools.count()
        self._inbox: dict[int, tuple[Any, ...]] = {}
        self._dropped: set[int] = set()
        self._meta: dict[int, tuple[int, Any]] = {}
        self.broken: str | None = None
        env = dict(os.environ, JAX_PLATFORMS="cpu")  # a worker must never claim an accelerator
        self._env, self._lazy = env, lazy_imports
        self._shared, spans = _shared_file(payload.buffers)
        self._first = pickle.dumps((payload.head, spans), protocol=5)  # each worker's first message
        try:
            for index in range(num_workers):
                self._workers.append(self._start(index))
            for w in self._workers:
                w.tasks.send_bytes(self._first)
        except BaseException:
            self.close()
            raise

    def _start(self, index: int) -> _Worker:
        task_r, task_w = Pipe(duplex=False)
        res_r, res_w = Pipe(duplex=False)
        _widen(res_w)
        _widen(task_w)  # the first message then fits at once (the dataset's arrays are not in it)
        path = [p or os.getcwd() for p in sys.path]  # '' (the current directory) as the parent sees it
        # The parent-death signal fires when the starting THREAD ends: ask for it only from the main thread.
        parent = os.getpid() if threading.current_thread() is threading.main_thread() else None
        fds = (task_r.fileno(), res_w.fileno()) + (() if self._shared is None else (self._shared,))
        cfg = {"path": path, "file": str(Path(__file__).with_name("_worker_main.py")),
               "tasks": task_r.fileno(), "results": res_w.fileno(), "lazy": self._lazy, "parent": parent,
               "shared": self._shared}
        try:
            proc = subprocess.Popen([sys.executable, "-c", _BOOT, json.dumps(cfg)], env=self._env,
                                    stdin=subprocess.DEVNULL, pass_fds=fds)
        finally:
            task_r.close()
            res_w.close()
        return _Worker(index, proc, task_w, res_r)

    @property
    def pids(self) -> list[int]:
        return [w.proc.pid for w in self._workers]

    def submit(self, dataset: Any, batchify_fn: Any, batch: int, indices: Any, seed: tuple[int, int]) -> int:
        if self.broken:
            raise RuntimeError(self.broken)
        ticket = next(self._tickets)
        worker = self._workers[ticket % len(self._workers)]
        self._meta[ticket] = (batch, indices)
        try:
            worker.tasks.send((ticket, batch, indices, seed))
        except OSError:
            self._fail(worker, ticket)
        return ticket

    def result(self, ticket: int, timeout: float) -> Any:
        if self.broken:
            raise RuntimeError(self.broken)
        worker = self._workers[ticket % len(self._workers)]
        while ticket not in self._inbox:
            if not worker.results.poll(timeout):
                batch = self._meta.get(ticket, (None,))[0]
                indices = self._meta.get(ticket, (None, None))[1]
                who = worker.describe()
                self._replace(worker)  # a hung worker is never given another batch
                raise TimeoutError(f"{who} timed out after {timeout} seconds loading batch {batch} "
                                   f"({_samples(indices)}); it was stopped and a new worker replaces it. "
                                   f"{_TIMEOUT_HINT}")
            try:
                message = receive_message(worker.results)
            except (EOFError, OSError):
                self._fail(worker, ticket)
            got = message[1]
            if message[0] == "init_error":
                self._fail(worker, ticket, f"could not load the dataset:\n{message[3]}")
            if got in self._dropped:
                self._dropped.discard(got)
                self._meta.pop(got, None)
            else:
                self._inbox[got] = message
        message = self._inbox.pop(ticket)
        batch, indices = self._meta.pop(ticket)
        if message[0] == "err":
            raise RuntimeError(f"{worker.describe()} raised {message[2]} while loading batch {batch} "
                               f"({_samples(indices)}). Worker traceback:\n{message[3]}")
        return message[2]

    def _replace(self, worker: _Worker) -> None:
        """Kill ``worker`` (hung) and start a fresh one in its place; its batches in flight are lost."""
        n = len(self._workers)
        for t in [t for t in self._meta if t % n == worker.index and t not in self._inbox]:
            self._meta.pop(t, None)
            self._dropped.discard(t)
        for end in (worker.tasks, worker.results):
            end.close()
        worker.proc.kill()
        worker.proc.wait()
        fresh = self._start(worker.index)
        self._workers[worker.index] = fresh
        fresh.tasks.send_bytes(self._first)

    def discard(self, tickets: list[int]) -> None:
        """Results of these tickets are no longer wanted: drop them when they arrive."""
        for t in tickets:
            if self._inbox.pop(t, None) is None:
                self._dropped.add(t)
            else:
                self._meta.pop(t, None)

    def _fail(self, worker: _Worker, ticket: int, why: str | None = None) -> None:
        try:
            code = worker.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        batch, indices = self._meta.get(ticket, (None, None))
        what = why or f"{_describe_exit(code)} while loading batch {batch} ({_samples(indices)})"
        self.broken = (f"{worker.describe()} {what}. The worker pool has been shut down; iterating the "
                       "DataLoader again starts a new one.")
        self.close()
        raise RuntimeError(self.broken)

    def close(self) -> None:
        """Stop the workers (closing the task pipe ends them; stragglers are killed) and reap them."""
        workers, self._workers = self._workers, []
        shared, self._shared = self._shared, None
        if shared is not None:  # the workers' mappings keep the memory while they run
            os.close(shared)
        for w in workers:
            w.tasks.close()
            w.results.close()
        deadline = time.monotonic() + 1.0  # idle workers exit at once; a busy one is not waited for long
        for w in workers:
            try:
                w.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                w.proc.kill()
                w.proc.wait()

