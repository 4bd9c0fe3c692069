"""A persistent cache of ported modules for ``python -m framework.run``.

Porting a module (parse with libcst, apply every rule) costs far more than compiling it; a library such
as GluonCV ports hundreds of modules at every import. The cache keeps each module's ported source, keyed
by the SHA-256 of its source and of the porter's version (:func:`porter_version`: the porter's own
sources, libcst's and Python's versions). An entry is trusted only as far as its key: it records the
source's hash and the porter version, and one whose record does not match the source being imported is
ported again (and replaced). Beyond its rules, a port depends on what framework offers: an ``mxnet``
import naming something framework lacks is left as it is. The entry lists those imports, and once
framework has one of them the module is ported again.

The cache lives in ``$FRAMEWORK_HOME/port-cache`` (``~/.framework/port-cache`` by default), a directory
made with mode 0700. Before any use the directory is opened without following links and checked: owned
by the user and writable by nobody else. Otherwise the cache is refused (said once on stderr) and every
module is ported as if there were none. Entries are JSON (no code is loaded from them), written to a
fresh name and renamed into place (atomic), read only when they are regular files of a bounded size.

>>> import tempfile
>>> cache = PortCache(tempfile.mkdtemp())
>>> cache.get("x = 1\\n") is None
True
>>> cache.put("x = 1\\n", Ported("x = 1\\n", ()))
>>> cache.get("x = 1\\n").source
'x = 1\\n'
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import json
import os
import secrets
import stat
import sys
import weakref
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path

from .. import config

__all__ = ["PortCache", "Ported", "UnsafeCacheError", "porter_version", "default_location", "missing_imports"]

FORMAT = 1
MAX_ENTRY_BYTES = 64 << 20  # no ported module comes near this; larger files are not read
_PORT_DIR = Path(__file__).resolve().parent


class UnsafeCacheError(OSError):
    """The cache directory is not private to the user (owner, mode or a link)."""


@dataclass(frozen=True)
class Ported:
    """A ported module: its source and what the porter could not port, as ``(line, code, why, fix)``."""

    source: str
    unported: tuple[tuple[int, str, str, str], ...]


@cache
def porter_version() -> str:
    """A digest of the porter: every ``framework/port/**/*.py`` (the rules), libcst's version and
    Python's. (What framework offers is checked per entry: see :func:`missing_imports`.)"""
    h = hashlib.sha256(f"format {FORMAT}; python {sys.version_info[:2]}".encode())
    try:
        h.update(metadata.version("libcst").encode())
    except metadata.PackageNotFoundError:  # pragma: no cover - libcst is a dependency of the porter
        pass
    for path in sorted(_PORT_DIR.rglob("*.py")):
        h.update(str(path.relative_to(_PORT_DIR)).encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def missing_imports(ported: str) -> tuple[str, ...]:
    """The ``mxnet`` imports a port left as they were (framework lacked them): ``'mxnet.a.b'`` for a
    module, ``'mxnet.a:name'`` for a name imported from one."""
    try:
        tree = ast.parse(ported)
    except SyntaxError:
        return ()
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names if a.name == "mxnet" or a.name.startswith("mxnet.")]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module and \
                (node.module == "mxnet" or node.module.startswith("mxnet.")):
            out += [f"{node.module}:{a.name}" for a in node.names]
    return tuple(sorted(set(out)))


def _available(what: str) -> bool:
    """Whether framework now has ``what`` (a :func:`missing_imports` entry)."""
    from ._analysis import map_module

    module, _, name = what.partition(":")
    target = map_module(module)
    try:
        mod = importlib.import_module(target)
    except ImportError:
        return False
    except Exception:  # noqa: BLE001 - a module that fails to import is not available
        return False
    if not name:
        return True
    if name == "*" or hasattr(mod, name):
        return True
    try:
        return importlib.util.find_spec(f"{target}.{name}") is not None
    except (ImportError, ValueError):
        return False


def default_location() -> Path:
    """``$FRAMEWORK_HOME/port-cache``, ``~/.framework/port-cache`` when ``FRAMEWORK_HOME`` is unset."""
    return config.get("home") / "port-cache"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _check_private(st: os.stat_result, what: str) -> None:
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeCacheError(f"{what} is not a directory")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise UnsafeCacheError(f"{what} belongs to uid {st.st_uid}, not to this user (uid {os.getuid()}); "
                               "remove it or set FRAMEWORK_HOME to a directory of your own")
    if st.st_mode & 0o022:
        raise UnsafeCacheError(f"{what} is writable by others (mode {stat.S_IMODE(st.st_mode):o}); "
                               f"run `chmod 700 {what}`")


class PortCache:
    """The port cache in directory ``location`` (made, mode 0700, if missing).

    Raises :class:`UnsafeCacheError` when the directory is a link, is not the user's, or others can
    write to it.
    """

    def __init__(self, location: str | os.PathLike) -> None:
        self.location = Path(location)
        self.location.mkdir(mode=0o700, parents=True, exist_ok=True)
        flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
        try:
            self._fd = os.open(self.location, flags)
        except OSError as err:
            raise UnsafeCacheError(f"{self.location} cannot be opened as a directory without following "
                                   f"links ({err.strerror}); remove it or set FRAMEWORK_HOME") from err
        try:
            _check_private(os.fstat(self._fd), str(self.location))
        except UnsafeCacheError:
            os.close(self._fd)
            raise
        weakref.finalize(self, os.close, self._fd)
        self.version = porter_version()

    def _name(self, source: str) -> str:
        return hashlib.sha256(f"{self.version}\0{_sha256(source)}".encode()).hexdigest() + ".json"

    def get(self, source: str) -> Ported | None:
        """The entry for ``source``, or None: missing, unreadable, or recorded for another source or
        porter version (a stale or tampered entry is never used)."""
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(self._name(source), flags, dir_fd=self._fd)
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_ENTRY_BYTES or \
                    (hasattr(os, "getuid") and st.st_uid != os.getuid()):
                return None
            with os.fdopen(fd, "rb", closefd=False) as fh:
                raw = fh.read(MAX_ENTRY_BYTES + 1)
        finally:
            os.close(fd)
        try:
            entry = json.loads(raw)
            if not isinstance(entry, dict) or entry.get("format") != FORMAT or \
                    entry.get("porter") != self.version or entry.get("source_sha256") != _sha256(source):
                return None
            ported, unported = entry["ported"], entry["unported"]
            if not isinstance(ported, str) or entry.get("ported_sha256") != _sha256(ported):
                return None
            rows = tuple((int(line), str(code), str(why), str(fix)) for line, code, why, fix in unported)
            missing = [str(m) for m in entry["missing"]]
        except (ValueError, KeyError, TypeError):
            return None
        if any(_available(m) for m in missing):
            return None  # framework has gained what the port left alone: port again
        return Ported(ported, rows)

    def put(self, source: str, ported: Ported) -> None:
        """Store ``ported`` for ``source``: written under a fresh name, then renamed into place."""
        entry = {"format": FORMAT, "porter": self.version, "source_sha256": _sha256(source),
                 "ported_sha256": _sha256(ported.source), "ported": ported.source,
                 "unported": [list(row) for row in ported.unported],
                 "missing": list(missing_imports(ported.source))}
        data = json.dumps(entry).encode("utf-8", "surrogatepass")
        if len(data) > MAX_ENTRY_BYTES:
            return
        tmp = f".tmp-{secrets.token_hex(8)}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(tmp, flags, 0o600, dir_fd=self._fd)
        try:
            with os.fdopen(fd, "wb", closefd=False) as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        except BaseException:
            os.close(fd)
            os.unlink(tmp, dir_fd=self._fd)
            raise
        os.close(fd)
        os.replace(tmp, self._name(source), src_dir_fd=self._fd, dst_dir_fd=self._fd)
