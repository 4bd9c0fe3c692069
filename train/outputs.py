"""The main job's files before the first epoch: every output path checked, and ``OUT/train.lock``.

:func:`check_paths` finds, before any training, what would otherwise fail after the last epoch: an
output path under a regular file, an output that is a directory, a directory that cannot be created
or written. :class:`RunLock` keeps two runs from sharing one ``--out``: ``OUT/train.lock`` holds an
exclusive ``flock`` for the life of the process (the kernel releases it when the process dies, even
by SIGKILL: no stale locks) and names the owner's pid, host and start time.

>>> import os, tempfile
>>> out = tempfile.mkdtemp()
>>> check_paths(out, os.path.join(out, "net.params"))
>>> with RunLock(out) as lock:
...     lock.path.endswith("train.lock")
True
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Any

__all__ = ["OutputPathError", "LockedError", "RunLock", "check_paths", "LOCK_NAME"]

LOCK_NAME = "train.lock"


class OutputPathError(ValueError):
    """An output path that cannot be written (exit status 2)."""


class LockedError(RuntimeError):
    """Another run holds ``OUT/train.lock`` (exit status 5)."""


def _first_existing(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _check_dir(option: str, directory: Path, shown: str) -> None:
    """``directory`` must be a directory, or creatable in a writable one."""
    existing = _first_existing(directory)
    if not existing.is_dir():
        raise OutputPathError(f"{option} {shown}: {existing} is a file, not a directory, so "
                              f"{directory} cannot be created. Choose another path or move that file away.")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputPathError(f"{option} {shown}: the directory {existing} is not writable by this user. "
                              "Choose a writable path.")


def check_paths(out: str | os.PathLike, params: str | os.PathLike) -> None:
    """Raise :class:`OutputPathError` naming the option and path if an output cannot be written."""
    out_dir = Path(os.path.abspath(os.fspath(out)))
    _check_dir("--out", out_dir, os.fspath(out))
    target = Path(os.path.abspath(os.fspath(params)))
    if target.is_dir():
        raise OutputPathError(f"--params {os.fspath(params)}: is a directory; give a file path, e.g. "
                              f"--params {target / 'net.params'}.")
    _check_dir("--params", target.parent, os.fspath(params))


def _describe(owner: dict[str, Any]) -> str:
    started = owner.get("started")
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)) if isinstance(started, int | float) \
        else "?"
    return f"pid {owner.get('pid', '?')} on {owner.get('host', '?')}, started {when}"


class RunLock:
    """An exclusive lock on ``OUT`` for this process (``with RunLock(out): ...`` or acquire/release)."""

    def __init__(self, out: str | os.PathLike) -> None:
        self.path = os.path.join(os.fspath(out), LOCK_NAME)
        self._fd: int | None = None

    def acquire(self) -> None:
        import fcntl

        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                owner = json.loads(os.pread(fd, 4096, 0).decode() or "{}")
            except (ValueError, UnicodeDecodeError):
                owner = {}
            os.close(fd)
            raise LockedError(
                f"--out {os.path.dirname(self.path)} is in use by another run ({_describe(owner)}; lock file "
                f"{self.path}). Nothing was changed. Wait for that run to finish, stop it, or use another "
                "--out."
            ) from None
        info = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock; the file stays (removing it would race)
            self._fd = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()
