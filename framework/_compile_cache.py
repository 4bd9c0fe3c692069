"""The persistent compilation cache: compiled programs kept on disk, so that a second process running
the same code (a re-run notebook, the next script of a course) loads them instead of compiling again.

It is JAX's own cache (``jax_compilation_cache_dir``), switched on when the framework is imported,
under the user cache directory (``FRAMEWORK_HOME``, default ``~/.framework``) in ``compile_cache/``,
with the thresholds set so that every program is kept (JAX's defaults keep only programs that took a
second or more to compile: a layer's program takes less, and a model has hundreds of them). A program
is found by a hash of its text (debug locations stripped), the jaxlib version, the XLA flags and the
compile options, so it hits across processes, and also within one process for identical layers.

The switches (``framework.config``; environment variables read once, at import):

- ``compile_cache`` (``FRAMEWORK_COMPILE_CACHE=0`` turns it off);
- ``compile_cache_mb`` (``FRAMEWORK_COMPILE_CACHE_MB``, default 2048): at import, when the directory
  holds more, the files written longest ago are removed until it holds 3/4 of that.

It is left alone when the user configured JAX's cache themselves (``JAX_COMPILATION_CACHE_DIR`` or
``jax.config.update('jax_compilation_cache_dir', ...)`` before importing the framework, or
``JAX_ENABLE_COMPILATION_CACHE=false``), and it is not used when the directory is writable by other
users or owned by another (a cached program is code this process runs: it must come from this user).
JAX reads the setting at its first compilation: a program compiled before the framework was imported
switches the cache off for the process. A process that joins a multi-process run on a JAX where cached
multi-process programs hang (``_jax_compat.MULTIPROCESS_CACHE_HANGS``) has the cache switched off,
whoever configured it (:func:`off_for_multiprocess`, called by ``framework.parallel.initialize``).

>>> from framework import _compile_cache
>>> status = _compile_cache.status()
>>> status.enabled in (True, False) and isinstance(status.reason, str)
True
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path
from typing import NamedTuple

import jax

from . import _jax_compat, config

__all__ = ["Status", "enable", "off_for_multiprocess", "status", "prune", "wipe", "SUFFIX"]

SUFFIX = "-cache"  # how JAX names an entry's file (key + suffix; other files are its bookkeeping)


class Status(NamedTuple):
    """Whether the framework's persistent cache is on, where, and why (or why not)."""

    enabled: bool
    directory: Path | None
    reason: str


_status = Status(False, None, "not configured yet")
_lock = threading.Lock()


def _safe(directory: Path) -> str | None:
    """Why ``directory`` cannot hold programs this process will run (None: it can)."""
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = directory.stat()
    except OSError as err:
        return f"cannot create {directory}: {err}"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"{directory} belongs to another user"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{directory} is writable by other users (chmod 700 it to use it)"
    return None


def enable() -> Status:
    """Switch the persistent cache on as the switches say (once per process; the :func:`status`)."""
    global _status
    with _lock:
        if _status.reason != "not configured yet":
            return _status
        _status = _configure(jax.config.jax_compilation_cache_dir)
        if _status.enabled:
            limit = config.get("compile_cache_mb") * 2 ** 20
            threading.Thread(target=prune, args=(_status.directory, limit), daemon=True,
                             name="framework-compile-cache-prune").start()
        return _status


def _configure(own: str | None) -> Status:
    """Configure JAX's cache as the switches say; ``own``: the directory JAX was already given."""
    if not config.get("compile_cache"):
        return Status(False, None, "off: FRAMEWORK_COMPILE_CACHE=0")
    if not jax.config.jax_enable_compilation_cache:
        return Status(False, None, "off: JAX's jax_enable_compilation_cache is false")
    if own:
        return Status(True, Path(own), "JAX's own setting (jax_compilation_cache_dir) is used as it is")
    directory = config.get("home") / "compile_cache"
    unsafe = _safe(directory)
    if unsafe is not None:
        return Status(False, None, f"off: {unsafe}")
    jax.config.update("jax_compilation_cache_dir", str(directory))
    # keep every program: JAX's defaults keep only those that took >= 1 s to compile
    if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in os.environ:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    if "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES" not in os.environ:
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    return Status(True, directory, "on (framework default)")


def off_for_multiprocess(num_processes: int) -> Status:
    """Switch JAX's persistent cache off for this process when it is one of ``num_processes`` > 1 and
    this JAX hangs on cached multi-process programs; the :func:`status` after. Call it before the first
    compilation (JAX reads the setting once), as ``framework.parallel.initialize`` does."""
    global _status
    enable()
    with _lock:
        hangs = num_processes > 1 and _jax_compat.MULTIPROCESS_CACHE_HANGS
        if hangs and jax.config.jax_enable_compilation_cache:
            jax.config.update("jax_enable_compilation_cache", False)
            _status = Status(False, None, f"off: one of {num_processes} processes, and JAX "
                             f"{jax.__version__} hangs on cached multi-process programs")
        return _status


def status() -> Status:
    """The persistent cache's :class:`Status` in this process."""
    return _status


def _entries(directory: Path) -> list[tuple[float, int, Path]]:
    out = []
    try:
        with os.scandir(directory) as it:
            for e in it:
                if e.name.endswith(SUFFIX) and e.is_file(follow_symlinks=False):
                    try:
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    out.append((st.st_mtime, st.st_size, Path(e.path)))
    except OSError:
        return []
    return out


def prune(directory: Path | None, limit_bytes: int) -> int:
    """Remove the entries written longest ago until ``directory`` holds at most 3/4 of
    ``limit_bytes``, when it holds more than ``limit_bytes``; the number removed."""
    if directory is None:
        return 0
    entries = _entries(directory)
    total = sum(size for _, size, _ in entries)
    if total <= limit_bytes:
        return 0
    removed = 0
    for _, size, path in sorted(entries):
        if total <= limit_bytes * 3 // 4:
            break
        try:
            path.unlink()
        except OSError:
            continue
        total -= size
        removed += 1
    return removed


def wipe() -> int:
    """Delete every entry of the framework's persistent cache (a directory set through JAX's own
    setting is left alone); the number deleted."""
    st = _status
    if not st.enabled or st.reason != "on (framework default)":
        return 0
    removed = 0
    for _, _, path in _entries(st.directory):
        try:
            path.unlink()
            removed += 1
        except OSError:
            pass
    return removed
