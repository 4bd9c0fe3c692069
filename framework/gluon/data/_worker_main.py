"""The program a DataLoader worker process runs (started by ``_workers.py``, loaded from this file).

A worker is a fresh Python interpreter (never a fork of a process running JAX). It reads the pickled
``(dataset, batchify_fn)`` from its task pipe (the arrays' memory is mapped from the pool's shared
file), then batch tasks, and answers each on its result pipe with ``('ok', ticket, batch)`` or
``('err', ticket, summary, traceback)``. It stops when the task pipe closes (the DataLoader was
deleted, or the main process died) or when the result pipe breaks.

A worker dies with its parent, even one busy in a slow transform: on Linux the kernel sends it SIGKILL
when the parent dies (``prctl(PR_SET_PDEATHSIG)``, asked for when the pool was started from the main
thread, whose end is the process's), and everywhere a watchdog thread ends it as soon as the task pipe
reports end-of-file (only the parent holds its write end).

``framework`` and ``framework.gluon`` are installed as lazy packages before anything is unpickled, so
reading a dataset made of ``framework.gluon.data`` classes imports numpy, not JAX: a worker starts in
a fraction of a second. Their ``__init__`` runs the first time code asks them for a name they lack.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import mmap
import os
import pickle
import queue
import signal
import sys
import threading
import traceback
import types
from multiprocessing.connection import Connection
from typing import Any


class _LazyPackage(types.ModuleType):
    """A package whose ``__init__`` runs the first time it is asked for a name that is neither set nor
    one of its submodules (``from framework import config`` imports the submodule alone)."""

    def __getattr__(self, name: str) -> Any:
        state = self.__dict__
        if state.get("_framework_lazy_loaded"):
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        if not name.startswith("__"):
            try:
                return importlib.import_module(f"{self.__name__}.{name}")
            except ModuleNotFoundError as err:
                if err.name != f"{self.__name__}.{name}":
                    raise
        state["_framework_lazy_loaded"] = True
        state["_framework_loader"].exec_module(self)
        return getattr(self, name)


class _DeferredInit(importlib.abc.Loader):
    """Loads a framework package as a :class:`_LazyPackage`: its ``__init__`` waits for a name."""

    def __init__(self, real: importlib.abc.Loader) -> None:
        self.real = real

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        module.__dict__["_framework_loader"] = self.real
        module.__class__ = _LazyPackage


class _LazyFinder(importlib.abc.MetaPathFinder):
    """Finds ``framework`` and its subpackages as :class:`_LazyPackage`s (modules load as usual).

    The spec comes from the finders after this one: an editable install is found by its own finder on
    ``sys.meta_path``, not by a ``sys.path`` entry (then only the parent's working directory had it)."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != "framework" and not name.startswith("framework."):
            return None
        spec = None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            return None
        spec.loader = _DeferredInit(spec.loader)
        return spec


def _install_lazy_packages() -> None:
    """Unpickling a dataset imports the modules defining its classes and what they import, not the
    ``__init__`` of the packages around them: the data modules need numpy, the package ``framework``
    needs JAX."""
    if "framework" not in sys.modules:
        sys.meta_path.insert(0, _LazyFinder())


def send_message(conn: Connection, message: Any) -> None:
    """Send ``message`` as a pickle whose large buffers (numpy arrays) follow as raw messages, so the
    receiver can read them straight into memory of its choosing (see ``_workers.receive_message``)."""
    buffers: list[pickle.PickleBuffer] = []
    head = pickle.dumps(message, protocol=5, buffer_callback=buffers.append)
    raws = [b.raw() for b in buffers]
    conn.send_bytes(pickle.dumps((head, [r.nbytes for r in raws]), protocol=5))
    for raw in raws:
        conn.send_bytes(raw)


def die_with_parent(parent: int) -> None:
    """Ask Linux to SIGKILL this process when its parent dies (no-op elsewhere); exit at once if the
    parent is already gone (it may have died before the request was made)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os._exit(0)


def _drain(tasks: Connection, inbox: queue.SimpleQueue) -> None:
    """Read the payload (raw bytes), then tasks as they come, so the main process never blocks writing to
    this worker. End-of-file means the parent closed the pool or died: end the process now, even while
    the dataset is being loaded or a batch is being made."""
    try:
        while True:  # raw bytes: unpickling (which may import) is the main thread's
            inbox.put(tasks.recv_bytes())
    except (EOFError, OSError):
        pass
    os._exit(0)


def load_payload(first: bytes, shared: int | None) -> Any:
    """The ``(dataset, batchify_fn)`` of the pool: the pickle of the first message, its large buffers
    mapped from the shared file (copy-on-write: a transform that writes into a dataset's array changes
    this worker's copy only)."""
    head, spans = pickle.loads(first)
    if shared is None:
        return pickle.loads(head, buffers=[memoryview(bytearray(0)) for _ in spans])
    with os.fdopen(shared, "rb", buffering=0) as f:
        size = os.fstat(f.fileno()).st_size
        whole = memoryview(mmap.mmap(f.fileno(), size, access=mmap.ACCESS_COPY))
    return pickle.loads(head, buffers=[whole[start:start + n] for start, n in spans])


def main(task_fd: int, result_fd: int, lazy: bool = True, parent: int | None = None,
         shared: int | None = None) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    if parent is not None:
        die_with_parent(parent)
    tasks = Connection(task_fd, writable=False)
    results = Connection(result_fd, readable=False)
    inbox: queue.SimpleQueue = queue.SimpleQueue()
    threading.Thread(target=_drain, args=(tasks, inbox), daemon=True).start()  # first: it is the watchdog
    try:
        payload = inbox.get()
        if lazy:
            _install_lazy_packages()
        from framework.gluon.data._batching import make_batch

        dataset, batchify_fn = load_payload(payload, shared)
        del payload
    except BaseException as err:  # noqa: BLE001 -- reported to the main process, which raises
        try:
            summary = f"{type(err).__name__}: {err}"
            send_message(results, ("init_error", None, summary, traceback.format_exc()))
        except OSError:
            pass
        return 1
    while True:
        task = inbox.get()
        if task is None:
            return 0
        ticket, batch, indices, seed = pickle.loads(task)
        try:
            message = ("ok", ticket, make_batch(dataset, indices, batchify_fn, seed, batch))
        except BaseException as err:  # noqa: BLE001 -- sent back with its traceback
            message = ("err", ticket, f"{type(err).__name__}: {err}", traceback.format_exc())
        try:
            try:
                send_message(results, message)
            except (OSError, EOFError):
                raise
            except BaseException as err:  # noqa: BLE001 -- the batch would not pickle: nothing was sent yet
                send_message(results, ("err", ticket, f"{type(err).__name__}: {err}", traceback.format_exc()))
        except (OSError, EOFError):  # the main process is gone
            return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2])))
