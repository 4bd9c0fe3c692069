"""Writing MXNet ``.params`` files: V3 (``format='np'``, what ``npx.save`` and np-mode
``save_parameters`` write) or V2 (``format='nd'``, legacy ``mx.nd.save``), dense, on CPU (1, 0).

Files are replaced atomically: a temporary file in the same directory is written, flushed and
fsynced, then renamed over the target, and the directory is fsynced. A failure at any point leaves
the previous file as it was and no temporary file behind.

>>> import numpy as onp
>>> blob = dumps({"b": onp.zeros(2, "float32")})
>>> len(blob), blob[:8] == (0x112).to_bytes(8, "little")
(81, True)
"""

from __future__ import annotations

import os
import secrets
import stat
import struct
from collections.abc import Callable, Iterator, Mapping
from typing import Any, BinaryIO

import jax
import numpy as onp

from ._format import CPU_DEV_TYPE, FLAG_OF_DTYPE, LIST_MAGIC, MAX_NDIM, V2_MAGIC, V3_MAGIC, flag_names
from ._numpy_files import npy_bytes, write_npz

__all__ = ["save", "savez", "dumps"]

_FORMATS = {"np": V3_MAGIC, "nd": V2_MAGIC}


def _magic(format: str, what: str) -> int:
    magic = _FORMATS.get(format) if isinstance(format, str) else None
    if magic is None:
        raise ValueError(f"{what}: format={format!r} is not supported; use 'np' (V3, MXNet's npx.save and "
                         "np-mode save_parameters), 'nd' (V2, legacy mx.nd.save) or, for save, 'npy' (one "
                         "array, NumPy's format)")
    return magic


def _is_array(x: Any) -> bool:
    return isinstance(x, (jax.Array, onp.ndarray, onp.generic)) or hasattr(x, "__array__") \
        or hasattr(x, "__jax_array__")


def _entries(data: Any, what: str) -> tuple[list[bytes] | None, list[Any], list[str]]:
    """(encoded names or None for a list, values, labels for messages)."""
    if isinstance(data, Mapping):
        encoded = []
        for key in data:
            if not isinstance(key, str):
                raise TypeError(f"{what}: dict keys are array names and must be str; got {key!r} "
                                f"({type(key).__name__}). Convert the keys, e.g. "
                                "{str(k): v for k, v in d.items()}")
            try:
                encoded.append(key.encode("utf-8"))
            except UnicodeEncodeError as err:
                raise ValueError(f"{what}: the name {key!r} cannot be encoded as UTF-8 ({err.reason}); "
                                 "rename it") from None
        return encoded, list(data.values()), [f"array {key!r}" for key in data]
    if isinstance(data, (list, tuple)):
        values = list(data)
    elif _is_array(data):
        values = [data]
    else:
        raise TypeError(f"{what}: expected an array, a list of arrays or a dict of name -> array; got "
                        f"{type(data).__name__}")
    return None, values, [f"array {i}" for i in range(len(values))]


def _host(x: Any, label: str, what: str) -> tuple[onp.ndarray, int]:
    """A C-contiguous, native-order host copy of one array and its MXNet type flag."""
    if isinstance(x, jax.core.Tracer):
        raise TypeError(f"{what}: {label} is a traced value (inside jax.jit, grad or vmap); save concrete "
                        "arrays, outside the transformation")
    if not _is_array(x):
        raise TypeError(f"{what}: {label} is a {type(x).__name__}; expected an array (jax.Array or "
                        "numpy.ndarray). Wrap Python values first, e.g. np.array(value)")
    if not isinstance(x, (jax.Array, onp.ndarray, onp.generic)) and hasattr(x, "__jax_array__"):
        x = x.__jax_array__()
    arr = onp.asarray(x)
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("="))
    flag = FLAG_OF_DTYPE.get(arr.dtype)
    if flag is None:
        raise TypeError(f"{what}: {label} has dtype {arr.dtype}, which MXNet's format cannot hold; "
                        f"supported: {flag_names()}. Cast it first, e.g. x.astype('float32')")
    if arr.ndim > MAX_NDIM:
        raise ValueError(f"{what}: {label} has {arr.ndim} dimensions; at most {MAX_NDIM} are supported")
    return (arr if arr.flags.c_contiguous else onp.ascontiguousarray(arr)), flag


def _record(arr: onp.ndarray, flag: int, magic: int, label: str, what: str) -> tuple[bytes, onp.ndarray]:
    if magic == V2_MAGIC:
        if arr.ndim == 0:
            raise ValueError(f"{what}: {label} is a 0-d scalar, which format='nd' (V2) cannot hold: ndim 0 "
                             "means an undefined array there. Use format='np' (the default), or reshape it "
                             "to (1,)")
        if arr.size == 0:
            raise ValueError(f"{what}: {label} has shape {arr.shape}; in format='nd' (V2) a zero extent "
                             "means 'unknown' and MXNet would read it back as an undefined array. Use "
                             "format='np'")
    header = struct.pack(f"<Iii{arr.ndim}qiii", magic, 0, arr.ndim, *arr.shape, CPU_DEV_TYPE, 0, flag)
    return header, arr.reshape(-1).view(onp.uint8)


def _chunks(data: Any, format: str, what: str) -> Iterator[bytes | onp.ndarray]:
    """The file as a stream of byte chunks; each array is fetched to the host only when its turn comes."""
    magic = _magic(format, what)
    names, values, labels = _entries(data, what)
    yield struct.pack("<QQQ", LIST_MAGIC, 0, len(values))
    for value, label in zip(values, labels, strict=True):
        arr, flag = _host(value, label, what)
        yield from _record(arr, flag, magic, label, what)
    names = names or []
    yield struct.pack("<Q", len(names))
    for name in names:
        yield struct.pack("<Q", len(name)) + name


def dumps(data: Any, format: str = "np") -> bytes:
    """The bytes :func:`save` would write (an in-memory ``.params`` file).

    >>> import numpy as onp
    >>> from framework.serialization import load_numpy
    >>> load_numpy(dumps([onp.array(2.5, "float32")]))
    [array(2.5, dtype=float32)]
    """
    return b"".join(_chunks(data, format, "dumps"))


def _open_temp(directory: str, base: str) -> tuple[int, str]:
    """A new file next to the target, created exclusively (mode 0o666 minus the umask, like open())."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        path = os.path.join(directory, f".{base}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(path, flags, 0o666), path
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file in {directory!r}")


def _fsync_directory(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # platforms that cannot open directories (Windows)
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _check_path(file: Any, what: str) -> tuple[str, str, str]:
    if not isinstance(file, (str, os.PathLike)):
        raise TypeError(f"{what}: file must be a path (str or os.PathLike); got {type(file).__name__}. "
                        "For in-memory bytes use framework.serialization.dumps(data)")
    target = os.path.realpath(os.fspath(file))
    directory, base = os.path.split(target)
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"{what}: the directory {directory!r} for {os.fsdecode(file)!r} does not "
                                "exist; create it first (os.makedirs)")
    return target, directory, base


def _write_atomic(file: Any, write: Callable[[BinaryIO], None], what: str) -> None:
    """Run ``write`` on a temporary file next to ``file``, fsync it, and rename it over ``file``."""
    target, directory, base = _check_path(file, what)
    fd, temp = _open_temp(directory, base)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        try:  # keep an existing file's permissions, as writing it in place would
            os.chmod(temp, stat.S_IMODE(os.stat(target).st_mode))
        except FileNotFoundError:
            pass
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(directory)


def _suffix(file: Any) -> str:
    return os.fspath(file).lower().rsplit(".", 1)[-1] if isinstance(file, (str, os.PathLike)) else ""


def save(file: str | os.PathLike, data: Any, *, format: str | None = None) -> None:
    """MXNet's ``npx.save`` / ``mx.nd.save``: write arrays to a file, atomically.

    ``data`` is one array, a list of arrays, or a dict of name -> array (names kept in insertion order);
    jax and numpy arrays of MXNet's 13 dtypes are accepted. ``format='np'`` writes MXNet's ``.params``
    container, V3 (MXNet 1.9's ``npx.save``; 0-d scalars and zero-size shapes allowed), ``format='nd'``
    writes V2 (legacy ``mx.nd.save``, readable by ``mx.nd.load`` and nd-mode ``load_parameters``); the
    bytes are exactly those MXNet 1.9.1 writes. ``format='npy'`` writes one array as NumPy's ``.npy``
    (MXNet 2.0's ``npx.save``; ``numpy.load`` reads it). The default (``format=None``) is ``'npy'`` for
    a file name ending in ``.npy`` and ``'np'`` otherwise. The file is replaced atomically: a failure
    leaves any previous file intact. :func:`load` reads all of them.

    >>> import os, tempfile
    >>> import numpy as onp
    >>> from framework import npx
    >>> path = os.path.join(tempfile.mkdtemp(), "x.params")
    >>> npx.save(path, {"w": onp.arange(4, dtype="float32")})
    >>> npx.load(path)["w"].tolist()
    [0.0, 1.0, 2.0, 3.0]
    >>> npx.save(path.replace(".params", ".npy"), onp.arange(2, dtype="float32"))
    >>> onp.load(path.replace(".params", ".npy")).tolist()
    [0.0, 1.0]
    """
    if format is None:
        format = "npy" if _suffix(file) == "npy" else "np"
    if format == "npy":
        if isinstance(data, (Mapping, list, tuple)) or not _is_array(data):
            raise TypeError(f"save: format 'npy' holds one array (MXNet 2.0's npx.save); got "
                            f"{type(data).__name__}. Save several arrays with npx.savez('x.npz', ...) or in "
                            "a .params file (format='np')")
        blob = npy_bytes(_host(data, "the array", "save")[0])
        _write_atomic(file, lambda f: f.write(blob), "save")
        return
    chunks = _chunks(data, format, "save")
    first = next(chunks)  # validates format and the container before the disk is touched

    def write(f: BinaryIO) -> None:
        f.write(first)
        for chunk in chunks:
            f.write(chunk)

    _write_atomic(file, write, "save")


def savez(file: str | os.PathLike, *args: Any, **kwds: Any) -> None:
    """``npx.savez``: save positional arrays as ``arr_0``, ``arr_1``, ... and keyword arrays under their
    names, in one file. A name ending in ``.npz`` gets an uncompressed NumPy ``.npz`` archive (MXNet
    2.0's ``npx.savez``; ``numpy.load`` reads it); any other name gets MXNet 1.9's ``.params`` file (V3),
    which is what 1.9's ``npx.savez`` writes whatever the name. :func:`load` reads both.

    >>> import os, tempfile
    >>> import numpy as onp
    >>> from framework.serialization import load_numpy
    >>> path = os.path.join(tempfile.mkdtemp(), "z.params")
    >>> savez(path, onp.zeros(1, "float32"), b=onp.ones(1, "float32"))
    >>> sorted(load_numpy(path))
    ['arr_0', 'b']
    >>> savez(path.replace(".params", ".npz"), onp.zeros(1, "float32"), b=onp.ones(1, "float32"))
    >>> sorted(onp.load(path.replace(".params", ".npz")).files)
    ['arr_0', 'b']
    """
    named = dict(kwds)
    for i, arr in enumerate(args):
        name = f"arr_{i}"
        if name in named:
            raise ValueError(f"savez: positional argument {i} would be saved as {name!r}, which is also "
                             "given as a keyword; rename the keyword")
        named[name] = arr
    if _suffix(file) != "npz":
        save(file, named, format="np")
        return
    host = {name: _host(value, f"array {name!r}", "savez")[0] for name, value in named.items()}
    _check_path(file, "savez")
    _write_atomic(file, lambda f: write_npz(f, host), "savez")
