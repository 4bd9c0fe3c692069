"""Finding, reading and verifying dataset files: IDX (the MNIST family) and CIFAR's binary batches.

Where a dataset is looked for, in order: an explicit ``root``; the user cache
``$FRAMEWORK_HOME/datasets/<name>`` (``~/.framework`` by default); a Debian package's directory; a
prepared tensorflow-datasets copy. Nothing is downloaded here (:mod:`._fetch` does that).
Files are checked before use: IDX headers (magic, rank, dimensions, exact size), then checksums of
the decompressed content; a bad file raises :class:`DataFileError` naming it. Decoded arrays are kept
per process, so a second ``FashionMNIST()`` costs nothing.

>>> cache_dir("mnist").relative_to(framework_home()).as_posix()
'datasets/mnist'
"""

from __future__ import annotations

import hashlib
import math
import os
import struct
import threading
import zlib
from pathlib import Path
from typing import Any

import numpy as onp

from .... import config
from ...._files import open_regular
from ....base import FrameworkError
from .catalogue import entry_for

__all__ = ["DatasetNotFoundError", "DataFileError", "framework_home", "cache_dir", "search_dirs",
           "read_idx", "read_cifar", "find_file"]

_cache: dict[tuple[Any, ...], Any] = {}
_cache_lock = threading.Lock()


class DatasetNotFoundError(FrameworkError, FileNotFoundError):
    """None of the places a dataset is looked for holds it; the message says where and how to fix it."""


class DataFileError(FrameworkError, ValueError):
    """A dataset file is truncated, corrupt, or not the file it is named after."""


def framework_home() -> Path:
    """``$FRAMEWORK_HOME``, or ``~/.framework``."""
    return config.get("home")


def cache_dir(name: str) -> Path:
    """The user cache directory of dataset ``name``: ``$FRAMEWORK_HOME/datasets/<subdir>``."""
    return framework_home() / "datasets" / entry_for(name)["cache_subdir"]


def search_dirs(name: str, root: str | os.PathLike | None = None) -> list[tuple[str, Path]]:
    """``(description, directory)`` of each place looked in, in order (tensorflow-datasets apart)."""
    entry = entry_for(name)
    places = []
    if root is not None:
        places.append((f"root={os.fspath(root)!r}", Path(root).expanduser()))
    places.append(("the user cache ($FRAMEWORK_HOME/datasets, default ~/.framework/datasets)",
                   cache_dir(name)))
    if entry.get("debian"):
        places.append((f"Debian's {entry['debian']['package']} package", Path(entry["debian"]["dir"])))
    return places


def find_file(directory: Path, filename: str, inner: str | None = None) -> Path | None:
    """``filename`` (or ``filename.gz``) in ``directory`` or its ``inner`` subdirectory, if present."""
    for d in (directory, directory / inner) if inner else (directory,):
        for candidate in (d / filename, d / f"{filename}.gz"):
            if candidate.is_file():
                return candidate
    return None


def _refetch(path: Path, name: str) -> str:
    return f"Delete it and fetch it again: python -m datasets fetch {name}"


_CHUNK = 1 << 20


class _Stream:
    """The content of a file, plain or gzip (one or more members), read on demand and never beyond
    what is asked: a few compressed bytes cannot make the reader inflate gigabytes. SHA-256 of the file
    itself is kept as it is read (``finish`` reads the rest, bounded by the file's size)."""

    def __init__(self, path: Path, name: str) -> None:
        self.path, self.name = path, name
        self.file = open_regular(path, what=f"{name} data file")  # closed by close()
        self.raw_sha = hashlib.sha256()
        first = self.file.read(2)
        self.gzip = first == b"\x1f\x8b"
        self.raw_sha.update(first)
        self.pending = b"" if self.gzip else first  # content read but not yet returned
        self.inflater = zlib.decompressobj(16 + zlib.MAX_WBITS) if self.gzip else None
        self.feed = first if self.gzip else b""  # compressed bytes not yet given to the inflater
        self.offset = 0  # content bytes returned so far

    def close(self) -> None:
        self.file.close()

    def _bad_gzip(self, err: Exception) -> DataFileError:
        return DataFileError(f"{self.path}: not a complete gzip file ({err}) at content byte {self.offset}; "
                             f"it is probably truncated or corrupted. {_refetch(self.path, self.name)}")

    def _more(self, want: int) -> bytes:
        """Up to ``want`` more content bytes; b'' at the end of the content."""
        if not self.gzip:
            data = self.file.read(want)
            self.raw_sha.update(data)
            return data
        while True:
            if self.inflater.eof:
                rest = self.inflater.unused_data
                if not rest:
                    rest = self.file.read(_CHUNK)
                    self.raw_sha.update(rest)
                if not rest:
                    return b""
                if not rest.startswith(b"\x1f\x8b"):
                    raise self._bad_gzip(ValueError("trailing bytes after the gzip stream"))
                self.inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)  # the next gzip member
                self.feed = rest
            if not self.feed and not self.inflater.unconsumed_tail:
                self.feed = self.file.read(_CHUNK)
                self.raw_sha.update(self.feed)
                if not self.feed:  # output the inflater may still hold, then the end marker must be there
                    try:
                        data = self.inflater.decompress(b"", want)
                    except zlib.error as err:
                        raise self._bad_gzip(err) from None
                    if data:
                        return data
                    if not self.inflater.eof:
                        raise self._bad_gzip(EOFError("the compressed stream ends before its end marker"))
                    continue
            source = self.inflater.unconsumed_tail or self.feed
            if not self.inflater.unconsumed_tail:
                self.feed = b""
            try:
                data = self.inflater.decompress(source, want)
            except zlib.error as err:
                raise self._bad_gzip(err) from None
            if data:
                return data

    def read(self, size: int) -> bytes:
        """Exactly ``size`` content bytes, or fewer at the end of the content."""
        parts, got = [], 0
        if self.pending:
            parts.append(self.pending[:size])
            got = len(parts[0])
            self.pending = self.pending[size:]
        while got < size:
            data = self._more(min(size - got, _CHUNK))
            if not data:
                break
            parts.append(data)
            got += len(data)
        self.offset += got
        return parts[0] if len(parts) == 1 else b"".join(parts)  # one chunk: no copy

    def finish(self) -> str:
        """Check the stream is whole (gzip end marker, CRC) and return the file's SHA-256."""
        if self.gzip:
            if self._more(1):
                raise DataFileError(f"{self.path}: byte {self.offset}: more content than expected. "
                                    f"{_refetch(self.path, self.name)}")
        else:
            while data := self.file.read(_CHUNK):
                self.raw_sha.update(data)
        return self.raw_sha.hexdigest()


def _cached(path: Path, verify: bool, extra: Any = None) -> tuple[tuple[Any, ...], Any]:
    st = path.stat()
    key = (str(path.resolve()), st.st_ino, st.st_size, st.st_mtime_ns, verify, extra)
    with _cache_lock:
        return key, _cache.get(key)


def _remember(key: tuple[Any, ...], value: Any) -> Any:
    with _cache_lock:
        _cache[key] = value
    return value


def _idx_header(stream: _Stream, path: Path, name: str, spec: dict[str, Any] | None,
                verify: bool) -> tuple[int, ...]:
    head = stream.read(4)
    if len(head) < 4 or head[:2] != b"\0\0" or head[2] != 0x08:
        magic = head.hex() or "empty"
        raise DataFileError(f"{path}: byte 0: not an IDX file of unsigned bytes (magic 0x{magic}, expected "
                            f"0x0000080N). Is it the file it is named after? {_refetch(path, name)}")
    ndim = head[3]
    by_name = 3 if "idx3" in path.name else 1 if "idx1" in path.name else ndim
    want_ndim = len(spec["shape"]) if spec else by_name
    if ndim != want_ndim or ndim == 0:
        kind = "images" if want_ndim == 3 else "labels"
        raise DataFileError(f"{path}: byte 3: IDX rank {ndim}, expected {want_ndim or '1 or more'} for this "
                            f"file ({kind}); the file holds something else.")
    raw_dims = stream.read(4 * ndim)
    if len(raw_dims) < 4 * ndim:
        raise DataFileError(f"{path}: byte {4 + len(raw_dims)}: truncated inside its IDX header "
                            f"({4 + len(raw_dims)} of {4 + 4 * ndim} bytes). {_refetch(path, name)}")
    dims = struct.unpack(f">{ndim}I", raw_dims)
    if verify and spec is not None and list(dims) != list(spec["shape"]):
        raise DataFileError(f"{path}: byte 4: shape {dims}, expected {tuple(spec['shape'])} for this {name} "
                            "file. Pass verify=False to read a file that is not the catalogued one.")
    if math.prod(max(d, 1) for d in dims) > _MAX_IDX_BYTES:
        raise DataFileError(f"{path}: byte 4: the IDX header gives shape {dims}, more than "
                            f"{_MAX_IDX_BYTES} bytes; the file is corrupt. {_refetch(path, name)}")
    return dims


#: No IDX file is larger than this (the largest real ones are tens of MB).
_MAX_IDX_BYTES = 1 << 40


def read_idx(path: Path, name: str, spec: dict[str, Any] | None, verify: bool = True) -> onp.ndarray:
    """The array in the IDX file at ``path`` (gzip or not), checked against the catalogue's ``spec``.

    The header is read and checked first, from the first bytes of the (decompressed) stream: magic,
    rank, and with ``verify`` the catalogued shape; then at most the size the header declares is read
    (inflated), so memory stays within that size whatever the file holds. Structure is always
    checked; with ``verify`` also the shape and checksum the catalogue records.
    """
    key, hit = _cached(path, verify)
    if hit is not None:
        return hit
    stream = _Stream(path, name)
    try:
        dims = _idx_header(stream, path, name, spec, verify)
        header = 4 + 4 * len(dims)
        count = math.prod(dims)
        body = stream.read(count)
        if len(body) < count:
            have = header + len(body)
            raise DataFileError(f"{path}: byte {have}: truncated: the IDX header gives shape {dims}, i.e. "
                                f"{header + count} bytes, but the content has {have} bytes. "
                                f"{_refetch(path, name)}")
        if stream.read(1):
            raise DataFileError(f"{path}: byte {header + count}: longer than its header says: the IDX header "
                                f"gives shape {dims}, i.e. {header + count} bytes, but more content follows. "
                                f"{_refetch(path, name)}")
        raw_sha = stream.finish()
    finally:
        stream.close()
    if verify and spec is not None:
        content_sha = hashlib.sha256(struct.pack(f">BBBB{len(dims)}I", 0, 0, 8, len(dims), *dims))
        content_sha.update(body)
        _check_digest(path, name, content_sha.hexdigest(), raw_sha if stream.gzip else None, spec)
    return _remember(key, onp.frombuffer(body, dtype=onp.uint8).reshape(dims))


def _check_digest(path: Path, name: str, content_sha: str, gz_sha: str | None, spec: dict[str, Any]) -> None:
    if spec.get("sha256"):
        if content_sha == spec["sha256"]:
            return
        where = "decompressed content" if gz_sha is not None else "content"
        raise DataFileError(f"{path}: checksum mismatch: sha256 of the {where} is {content_sha}, expected "
                            f"{spec['sha256']}. The file is corrupt or not the {name} file it is named "
                            "after. "
                            f"{_refetch(path, name)} (or pass verify=False to read it anyway).")
    known = spec.get("gz", {}).get("sha256", [])
    if gz_sha is not None and known and gz_sha not in known:
        mxnet = spec.get("gz", {}).get("sha1", [])  # MXNet's own copies of the .gz files
        if mxnet and _file_sha1(path) in mxnet:
            return
        raise DataFileError(f"{path}: checksum mismatch: sha256 {gz_sha} is none of the known downloads "
                            f"{known}" + (f", nor is its sha1 MXNet's {mxnet}" if mxnet else "") +
                            f". {_refetch(path, name)} (or pass verify=False to read it anyway).")


def _file_sha1(path: Path) -> str:
    digest = hashlib.sha1()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def read_cifar(path: Path, name: str, spec: dict[str, Any] | None, label_bytes: int,
               verify: bool = True) -> tuple[onp.ndarray, onp.ndarray]:
    """(images NHWC uint8, labels (N, label_bytes) uint8) of one CIFAR binary batch file."""
    key, hit = _cached(path, verify, label_bytes)
    if hit is not None:
        return hit
    limit = spec["size"] if verify and spec is not None else _MAX_IDX_BYTES
    stream = _Stream(path, name)
    try:
        data = stream.read(limit + 1)  # one byte more than the catalogue allows shows a longer file
        if len(data) <= limit:
            stream.finish()
    finally:
        stream.close()
    record = label_bytes + 3072
    if not data or len(data) % record:
        raise DataFileError(f"{path}: {len(data)} bytes is not a whole number of {record}-byte CIFAR "
                            "records; the file is truncated or not a CIFAR binary batch. "
                            f"{_refetch(path, name)}")
    if verify and spec is not None:
        if len(data) != spec["size"]:
            raise DataFileError(f"{path}: {len(data)} bytes, expected {spec['size']} ({spec['records']} "
                                f"records). {_refetch(path, name)}")
        got = hashlib.sha1(data).hexdigest()
        if got != spec["sha1"]:
            raise DataFileError(f"{path}: checksum mismatch: sha1 {got}, expected {spec['sha1']}. "
                                f"{_refetch(path, name)} (or pass verify=False to read it anyway).")
    rows = onp.frombuffer(data, dtype=onp.uint8).reshape(-1, record)
    images = onp.ascontiguousarray(rows[:, label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
    images.setflags(write=False)
    return _remember(key, (images, rows[:, :label_bytes]))
