"""NumPy's ``.npy`` and ``.npz`` files, as MXNet 2.0's ``npx.save`` / ``npx.savez`` write them.

Writing: one dense array to ``.npy``, several named arrays to an uncompressed ``.npz`` archive
(members ``<name>.npy``), both readable by ``numpy.load``. Reading never unpickles (object arrays are
refused) and trusts no size: each array's header is read first, its byte count is checked against
what the file (or the archive member) holds and, for compressed members, against ``max_bytes``,
before anything is read or inflated. Problems raise :class:`ParamsFormatError` naming the file, the
byte offset (of the array, or of the archive member) and what is wrong.

>>> import io
>>> import numpy as onp
>>> blob = npy_bytes(onp.arange(3, dtype="float32"))
>>> onp.load(io.BytesIO(blob)).tolist(), read_npy(onp.frombuffer(blob, onp.uint8), "<bytes>")[0].tolist()
([0.0, 1.0, 2.0], [0.0, 1.0, 2.0])
"""

from __future__ import annotations

import ast
import io
import math
import zipfile
from collections.abc import Iterator
from typing import BinaryIO

import numpy as onp
from numpy.lib import format as npformat

from ._format import ParamsFormatError

__all__ = ["NPY_MAGIC", "ZIP_MAGICS", "npy_bytes", "write_npz", "read_npy", "read_npz"]

NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
_HEADER_LIMIT = 10000  # numpy's own default bound on a header's length
# What the standard library's zip reader raises on malformed archives (it is not written for hostile
# input: IndexError, TypeError and others occur too), so the archive boundary catches any Exception.
_ZIP_ERRORS = (Exception,)


def _plain(arr: onp.ndarray, label: str, what: str) -> onp.ndarray:
    if arr.dtype.name == "bfloat16":
        raise TypeError(f"{what}: {label} is bfloat16, which .npy cannot describe; cast it "
                        "(x.astype('float32')) or save it in MXNet's format (a .params file)")
    if arr.dtype.kind not in "biufc":
        raise TypeError(f"{what}: {label} has dtype {arr.dtype}; .npy/.npz files here hold numeric arrays "
                        "only")
    return arr


def npy_bytes(arr: onp.ndarray, label: str = "the array", what: str = "save") -> bytes:
    """The ``.npy`` file of one array."""
    out = io.BytesIO()
    npformat.write_array(out, _plain(arr, label, what), allow_pickle=False)
    return out.getvalue()


def write_npz(f: BinaryIO, arrays: dict[str, onp.ndarray], what: str = "savez") -> None:
    """An uncompressed ``.npz`` archive of ``arrays`` (member ``<name>.npy`` each), written to ``f``."""
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, arr in arrays.items():
            archive.writestr(f"{name}.npy", npy_bytes(arr, f"array {name!r}", what))


def _header(stream: BinaryIO, source: str, at: int, what: str) -> tuple[tuple[int, ...], bool, onp.dtype]:
    """Parse a ``.npy`` header strictly: magic, version, length, then the dict literal (never eval'd)."""
    def bad(why: str) -> ParamsFormatError:
        return ParamsFormatError(source, at, f"{what} has a bad .npy header ({why}); the file is corrupted "
                                 "or not a .npy file")

    head = stream.read(8)
    if len(head) < 8 or head[:6] != NPY_MAGIC:
        raise bad("no .npy magic")
    major = head[6]
    if major not in (1, 2, 3):
        raise bad(f"version {major}.{head[7]}; expected 1, 2 or 3")
    size_bytes = stream.read(2 if major == 1 else 4)
    if len(size_bytes) < (2 if major == 1 else 4):
        raise bad("truncated before the header length")
    length = int.from_bytes(size_bytes, "little")
    if length > _HEADER_LIMIT:
        raise bad(f"a header of {length} bytes, more than {_HEADER_LIMIT}")
    raw = stream.read(length)
    if len(raw) < length:
        raise bad(f"{len(raw)} of its {length} header bytes")
    try:
        text = raw.decode("utf-8" if major == 3 else "latin1")
        spec = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as err:
        raise bad(f"the header is not a Python literal: {type(err).__name__}") from None
    if not isinstance(spec, dict) or set(spec) != {"descr", "fortran_order", "shape"}:
        raise bad("expected a dict with keys 'descr', 'fortran_order' and 'shape'")
    descr, fortran, shape = spec["descr"], spec["fortran_order"], spec["shape"]
    if not isinstance(descr, str) or not isinstance(fortran, bool) or not isinstance(shape, tuple) \
            or not all(isinstance(d, int) and not isinstance(d, bool) for d in shape):
        raise bad(f"descr {descr!r}, fortran_order {fortran!r}, shape {shape!r}: expected a dtype string, "
                  "a bool and a tuple of ints")
    try:
        dtype = onp.dtype(descr)
    except (TypeError, ValueError, SyntaxError) as err:
        raise bad(f"unknown dtype {descr!r} ({err})") from None
    return shape, fortran, dtype


def _array_from(stream: BinaryIO, source: str, at: int, what: str, available: int,
                budget: list[int] | None) -> onp.ndarray:
    """Read one ``.npy`` image from ``stream``: header, then exactly the bytes it declares
    (``available``: the bytes the image may span, header included)."""
    start = stream.tell()
    shape, fortran, dtype = _header(stream, source, at, what)
    if dtype.hasobject or dtype.kind not in "biufc" or (dtype.kind == "f" and dtype.itemsize > 8):
        raise ParamsFormatError(source, at, f"{what} has dtype {dtype}; only numeric arrays are read (object "
                                f"arrays would need pickle, which is never loaded here)")
    if any(not isinstance(d, int) or d < 0 for d in shape) or len(shape) > 32:
        raise ParamsFormatError(source, at, f"{what} declares shape {shape}; expected at most 32 extents "
                                ">= 0")
    nbytes = math.prod(shape) * dtype.itemsize
    available -= stream.tell() - start
    if nbytes > available:
        raise ParamsFormatError(source, at, f"{what} declares shape {shape} {dtype.name} = {nbytes} bytes "
                                f"but only {available} bytes remain; the file is truncated or not .npy")
    if budget is not None:
        if nbytes > budget[0]:
            raise ParamsFormatError(source, at, f"{what} is compressed and declares {nbytes} bytes, more "
                                    f"than the {budget[0]} bytes left of max_bytes (a guard against "
                                    "decompression bombs); pass a larger max_bytes to load it if the file is "
                                    "trusted")
        budget[0] -= nbytes
    if math.prod(max(d, 1) for d in shape) * dtype.itemsize > 2**62:
        raise ParamsFormatError(source, at, f"{what} declares the empty shape {shape}, too large to describe")
    data = stream.read(nbytes)
    if len(data) != nbytes:
        raise ParamsFormatError(source, at, f"{what} declares {nbytes} bytes but holds {len(data)}; the file "
                                f"is truncated")
    arr = onp.frombuffer(data, dtype=dtype) if nbytes else onp.empty(0, dtype)
    arr = arr.reshape(shape[::-1]).transpose() if fortran else arr.reshape(shape)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


def read_npy(buf: onp.ndarray, source: str) -> list[onp.ndarray]:
    """The one array of a ``.npy`` file (as a one-item list, like every list file)."""
    stream = io.BytesIO(buf.tobytes())
    arr = _array_from(stream, source, 0, "the .npy array", len(buf), None)
    if stream.tell() != len(buf):
        raise ParamsFormatError(source, stream.tell(), f"{len(buf) - stream.tell()} unexpected bytes follow "
                                "the array; the file is corrupted")
    return [arr]


def _where(info: zipfile.ZipInfo, size: int) -> int:
    """The member's offset in the file, or 0 where a corrupted directory puts it outside the file."""
    return info.header_offset if 0 <= info.header_offset < size else 0


def _members(archive: zipfile.ZipFile, source: str, size: int) -> Iterator[zipfile.ZipInfo]:
    seen = set()
    for info in archive.infolist():
        if info.is_dir():
            continue
        if not info.filename.endswith(".npy"):
            raise ParamsFormatError(source, _where(info, size), f"archive member {info.filename!r} is not a "
                                    ".npy file; an .npz archive holds only <name>.npy members")
        if info.filename in seen:
            raise ParamsFormatError(source, _where(info, size), f"archive member {info.filename!r} appears "
                                    "twice; the file is corrupted")
        seen.add(info.filename)
        yield info


def read_npz(buf: onp.ndarray, source: str, max_bytes: int) -> tuple[list[onp.ndarray], list[str]]:
    """The arrays of an ``.npz`` archive and their names (member names without ``.npy``), in order."""
    budget = [max_bytes]
    size = len(buf)
    arrays, names = [], []
    try:
        with zipfile.ZipFile(io.BytesIO(buf.tobytes())) as archive:
            for info in _members(archive, source, size):
                what = f"archive member {info.filename!r}"
                if info.compress_type != zipfile.ZIP_STORED and info.file_size > budget[0]:
                    raise ParamsFormatError(source, _where(info, size), f"{what} is compressed and declares "
                                            f"{info.file_size} bytes, more than the {budget[0]} bytes left "
                                            "of max_bytes (a guard against decompression bombs)")
                with archive.open(info) as member:
                    stored = info.compress_type == zipfile.ZIP_STORED
                    arr = _array_from(member, source, _where(info, size), what, info.file_size,
                                      None if stored else budget)
                    if member.read(1):
                        raise ParamsFormatError(source, _where(info, size), f"{what} holds bytes after its "
                                                "array; the file is corrupted")
                arrays.append(arr)
                names.append(info.filename[: -len(".npy")])
    except ParamsFormatError:
        raise
    except _ZIP_ERRORS as err:
        raise ParamsFormatError(source, 0, f"not a readable .npz archive ({type(err).__name__}: "
                                f"{err})") from None
    return arrays, names
