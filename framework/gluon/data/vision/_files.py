"""Finding, reading and verifying dataset files: IDX (the MNIST family) and CIFAR's binary batches.

Where a dataset is looked for, in order: an explicit ``root``; the user cache
``$FRAMEWORK_HOME/datasets/<name>`` (``~/.framework`` by default); a Debian package's directory; a
prepared tensorflow-datasets copy. Nothing is downloaded here (``python -m datasets fetch`` does that).
Files are checked before use: IDX headers (magic, rank, dimensions, exact size), then checksums of
the decompressed content; a bad file raises :class:`DataFileError` naming it. Decoded arrays are kept
per process, so a second ``FashionMNIST()`` costs nothing.

>>> framework_home().name
'.framework'
"""

from __future__ import annotations

import gzip
import hashlib
import os
import struct
import threading
import zlib
from pathlib import Path
from typing import Any

import numpy as onp

from .catalogue import entry_for

__all__ = ["DatasetNotFoundError", "DataFileError", "framework_home", "cache_dir", "search_dirs",
           "read_idx", "read_cifar", "find_file"]

_cache: dict[tuple[Any, ...], Any] = {}
_cache_lock = threading.Lock()


class DatasetNotFoundError(FileNotFoundError):
    """None of the places a dataset is looked for holds it; the message says where and how to fix it."""


class DataFileError(ValueError):
    """A dataset file is truncated, corrupt, or not the file it is named after."""


def framework_home() -> Path:
    """``$FRAMEWORK_HOME``, or ``~/.framework``."""
    return Path(os.environ.get("FRAMEWORK_HOME") or "~/.framework").expanduser()


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


def _content(path: Path, name: str) -> tuple[bytes, bytes]:
    """(decompressed content, file bytes) of ``path``."""
    raw = path.read_bytes()
    if not raw.startswith(b"\x1f\x8b"):
        return raw, raw
    try:
        return gzip.decompress(raw), raw
    except (EOFError, OSError, zlib.error) as err:
        raise DataFileError(f"{path}: not a complete gzip file ({err}); it is probably truncated. "
                            f"{_refetch(path, name)}") from None


def _cached(path: Path, verify: bool, extra: Any = None) -> tuple[tuple[Any, ...], Any]:
    st = path.stat()
    key = (str(path.resolve()), st.st_ino, st.st_size, st.st_mtime_ns, verify, extra)
    with _cache_lock:
        return key, _cache.get(key)


def _remember(key: tuple[Any, ...], value: Any) -> Any:
    with _cache_lock:
        _cache[key] = value
    return value


def read_idx(path: Path, name: str, spec: dict[str, Any] | None, verify: bool = True) -> onp.ndarray:
    """The array in the IDX file at ``path`` (gzip or not), checked against the catalogue's ``spec``.

    Structure is always checked; with ``verify`` also the shape and checksum the catalogue records.
    """
    key, hit = _cached(path, verify)
    if hit is not None:
        return hit
    data, raw = _content(path, name)
    if len(data) < 4 or data[:2] != b"\0\0" or data[2] != 0x08:
        magic = data[:4].hex() if len(data) >= 4 else data.hex() or "empty"
        raise DataFileError(f"{path}: not an IDX file of unsigned bytes (magic 0x{magic}, expected "
                            f"0x0000080N). Is it the file it is named after? {_refetch(path, name)}")
    ndim = data[3]
    by_name = 3 if "idx3" in path.name else 1 if "idx1" in path.name else ndim
    want_ndim = len(spec["shape"]) if spec else by_name
    if ndim != want_ndim:
        raise DataFileError(f"{path}: IDX rank {ndim}, expected {want_ndim} for this file "
                            f"({'images' if want_ndim == 3 else 'labels'}); the file holds something else.")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise DataFileError(f"{path}: truncated inside its IDX header ({len(data)} bytes). "
                            f"{_refetch(path, name)}")
    dims = struct.unpack(f">{ndim}I", data[4:header])
    expected = header + int(onp.prod(dims, dtype=onp.int64))
    if len(data) != expected:
        what = "truncated" if len(data) < expected else "longer than its header says"
        raise DataFileError(f"{path}: {what}: the IDX header gives shape {dims}, i.e. {expected} bytes, "
                            f"but the content has {len(data)} bytes. {_refetch(path, name)}")
    if verify and spec is not None:
        if list(dims) != list(spec["shape"]):
            raise DataFileError(f"{path}: shape {dims}, expected {tuple(spec['shape'])} for this {name} "
                                "file. Pass verify=False to read a file that is not the catalogued one.")
        _check_digest(path, name, data, raw, spec)
    return _remember(key, onp.frombuffer(data, dtype=onp.uint8, offset=header).reshape(dims))


def _check_digest(path: Path, name: str, data: bytes, raw: bytes, spec: dict[str, Any]) -> None:
    if spec.get("sha256"):
        got = hashlib.sha256(data).hexdigest()
        if got == spec["sha256"]:
            return
        where = "decompressed content" if raw is not data else "content"
        raise DataFileError(f"{path}: checksum mismatch: sha256 of the {where} is {got}, expected "
                            f"{spec['sha256']}. The file is corrupt or not the {name} file it is named "
                            "after. "
                            f"{_refetch(path, name)} (or pass verify=False to read it anyway).")
    known = spec.get("gz", {}).get("sha256", [])
    if raw is not data and known:
        got = hashlib.sha256(raw).hexdigest()
        if got not in known:
            raise DataFileError(f"{path}: checksum mismatch: sha256 {got} is none of the known downloads "
                                f"{known}. {_refetch(path, name)} (or pass verify=False to read it anyway).")


def read_cifar(path: Path, name: str, spec: dict[str, Any] | None, label_bytes: int,
               verify: bool = True) -> tuple[onp.ndarray, onp.ndarray]:
    """(images NHWC uint8, labels (N, label_bytes) uint8) of one CIFAR binary batch file."""
    key, hit = _cached(path, verify, label_bytes)
    if hit is not None:
        return hit
    data, _ = _content(path, name)
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
