"""The one way framework opens a file it reads: regular files only, never blocking, never read beyond
their size.

Every reader (``.params``, ``-symbol.json``, ``.rec``/``.idx``, IDX datasets, images, checkpoints) opens
its input with :func:`open_regular` or :func:`read_bytes`. A path that names a device (``/dev/zero``, or
a symlink to it), a FIFO, a socket or a directory is refused before a byte is read, with an error naming
the path; a FIFO cannot block the ``open`` itself (``O_NONBLOCK``); a read stops at the size the file had
when it was opened, so a file that grows (or lies about its size) cannot exhaust memory.

>>> import os, tempfile
>>> from framework._files import read_bytes, NotARegularFileError
>>> d = tempfile.mkdtemp()
>>> p = os.path.join(d, "a.bin")
>>> with open(p, "wb") as f:
...     _ = f.write(b"abc")
>>> read_bytes(p)
b'abc'
>>> try:
...     read_bytes("/dev/zero", what="parameter file")
... except NotARegularFileError as e:
...     print(e)
parameter file /dev/zero is a character device, not a regular file; pass the path of a regular file
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import os
import stat

__all__ = ["sha1_of", "NotARegularFileError", "FileTooLargeError", "open_regular", "read_bytes", "kind_of"]


class NotARegularFileError(OSError):
    """The path names a device, FIFO, socket or directory (a reader accepts regular files only)."""


class FileTooLargeError(ValueError):
    """The file is above the size a reader accepts."""


def kind_of(mode: int) -> str:
    """``'a FIFO'``, ``'a character device'``, ... for a ``st_mode``."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"),
                       (stat.S_ISREG, "a regular file")):
        if test(mode):
            return name
    return "not a regular file"


def _refuse(path: str, mode: int, what: str) -> NotARegularFileError:
    err = NotARegularFileError(f"{what} {path} is {kind_of(mode)}, not a regular file; pass the path of a "
                               "regular file")
    return err


class _Bounded(io.RawIOBase):
    """A read-only raw stream over ``fd`` that ends at ``size`` bytes (the size at open)."""

    def __init__(self, fd: int, size: int, name: str) -> None:
        super().__init__()
        self._fd, self._left, self._size, self.name = fd, size, size, name

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def readinto(self, b) -> int:  # type: ignore[override]
        view = memoryview(b).cast("B")
        want = min(len(view), self._left)
        if want <= 0:
            return 0
        n = os.readv(self._fd, [view[:want]])
        self._left -= n
        return n

    def seek(self, offset: int, whence: int = 0) -> int:
        pos = os.lseek(self._fd, offset, whence)
        self._left = max(0, self._size - pos)
        return pos

    def tell(self) -> int:
        return os.lseek(self._fd, 0, os.SEEK_CUR)

    def close(self) -> None:
        if not self.closed:
            try:
                os.close(self._fd)
            finally:
                super().close()


def open_regular(path: str | os.PathLike, *, what: str = "file",
                 max_bytes: int | None = None) -> io.BufferedReader:
    """Open ``path`` for binary reading if it is a regular file; reads end at its size at open.

    ``max_bytes`` refuses a larger file (:class:`FileTooLargeError`). The returned stream's ``size``
    is not an attribute: use ``os.fstat(f.fileno()).st_size``, or :func:`read_bytes` for the whole file.
    """
    name = os.fsdecode(os.fspath(path))
    st = os.stat(path)  # follows symlinks: a link to /dev/zero is refused as the device it names
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(name, st.st_mode, what)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        fst = os.fstat(fd)  # the file opened may not be the one stat saw (swapped in between)
        if not stat.S_ISREG(fst.st_mode):
            raise _refuse(name, fst.st_mode, what)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        if max_bytes is not None and fst.st_size > max_bytes:
            raise FileTooLargeError(f"{what} {name} is {fst.st_size} bytes, above the {max_bytes}-byte "
                                    "limit")
        raw = _Bounded(fd, fst.st_size, name)
    except BaseException:
        os.close(fd)
        raise
    return io.BufferedReader(raw)


def read_bytes(path: str | os.PathLike, *, what: str = "file", max_bytes: int | None = None) -> bytes:
    """The whole content of the regular file ``path`` (at most its size at open; see :func:`open_regular`)."""
    with open_regular(path, what=what, max_bytes=max_bytes) as f:
        return f.read()


def sha1_of(path: str | os.PathLike, *, what: str = "file") -> str:
    """The hex SHA-1 of the regular file ``path``, read in chunks (checksums of downloads and model files)."""
    digest = hashlib.sha1()
    with open_regular(path, what=what) as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
