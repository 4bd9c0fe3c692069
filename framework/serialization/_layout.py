"""The byte layout of MXNet's NDArray-list files, walked without trusting any size field.

:func:`parse` checks every count, rank, extent and byte size against what the buffer still holds
*before* anything is allocated, and returns zero-copy views of the payloads (sparse ones not yet
densified) plus the names. Nothing is ever executed, nothing is unpickled. Payloads are read in the
host's byte order, little-endian on every platform JAX runs on.

>>> import numpy as onp
>>> from framework.serialization import dumps
>>> raws, names = parse(onp.frombuffer(dumps({"w": onp.ones(2, "float32")}), onp.uint8), "<bytes>")
>>> names, raws[0].shape, raws[0].data.tolist()
(['w'], (2,), [1.0, 1.0])
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

import numpy as onp

from ._format import (
    DEV_TYPES,
    DTYPE_OF_FLAG,
    LIST_MAGIC,
    MAX_EXTENT_BYTES,
    MAX_NDIM,
    NUM_AUX,
    STYPE_NAMES,
    V1_MAGIC,
    V2_MAGIC,
    V3_MAGIC,
    ParamsFormatError,
    flag_names,
)

__all__ = ["Cursor", "Raw", "parse", "TRUNCATED", "CORRUPTED"]

TRUNCATED = "the file is truncated or not an MXNet .params file"
CORRUPTED = "the file is corrupted or not an MXNet .params file"


class Cursor:
    """A read position in the buffer; every read checks the remaining length first."""

    __slots__ = ("buf", "pos", "source")

    def __init__(self, buf: onp.ndarray, source: str) -> None:
        self.buf = buf
        self.pos = 0
        self.source = source

    @property
    def remaining(self) -> int:
        return len(self.buf) - self.pos

    def fail(self, message: str, at: int | None = None) -> ParamsFormatError:
        return ParamsFormatError(self.source, self.pos if at is None else at, message)

    def _scalar(self, fmt: str, size: int, what: str) -> int:
        if self.remaining < size:
            raise self.fail(f"expected {what} ({size} bytes) but only {self.remaining} remain; {TRUNCATED}")
        (value,) = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += size
        return value

    def u32(self, what: str) -> int:
        return self._scalar("<I", 4, what)

    def i32(self, what: str) -> int:
        return self._scalar("<i", 4, what)

    def u64(self, what: str) -> int:
        return self._scalar("<Q", 8, what)

    def shape(self, what: str, *, allow_none: bool = False, ndim: int | None = None,
              dim_bytes: int = 8) -> tuple[int, ...] | None:
        """``i32 ndim | i64 dims`` (``u32`` dims in pre-V1 files, whose ndim is the array's first word)."""
        at = self.pos
        if ndim is None:
            ndim = self.i32(f"the ndim of {what}")
        if ndim == -1 and allow_none:
            return None
        if not 0 <= ndim <= MAX_NDIM:
            extra = " (or -1 for an undefined array)" if allow_none else ""
            raise self.fail(f"{what} declares ndim {ndim}; expected 0..{MAX_NDIM}{extra}; {CORRUPTED}", at)
        size = ndim * dim_bytes
        if self.remaining < size:
            raise self.fail(f"{what} declares {ndim} dimensions ({size} bytes) but only {self.remaining} "
                            f"bytes remain; {TRUNCATED}", at)
        dims = struct.unpack_from(f"<{ndim}{'q' if dim_bytes == 8 else 'I'}", self.buf, self.pos)
        if any(d < 0 for d in dims):
            raise self.fail(f"{what} is {dims}: extents must be >= 0; {CORRUPTED}", at)
        self.pos += size
        return dims

    def payload(self, dtype: onp.dtype, shape: tuple[int, ...], what: str) -> onp.ndarray:
        """A zero-copy view of ``prod(shape)`` items, after checking they fit in the buffer."""
        count = math.prod(shape)
        nbytes = count * dtype.itemsize
        if nbytes > self.remaining:
            raise self.fail(f"{what} declares shape {shape} {dtype.name} = {nbytes} bytes but only "
                            f"{self.remaining} bytes remain; {TRUNCATED}")
        if count == 0:
            if math.prod(max(d, 1) for d in shape) * dtype.itemsize > MAX_EXTENT_BYTES:
                raise self.fail(f"{what} declares the empty shape {shape}, too large to describe; "
                                f"{CORRUPTED}")
            return onp.empty(shape, dtype)
        view = onp.frombuffer(self.buf, dtype=dtype, count=count, offset=self.pos).reshape(shape)
        self.pos += nbytes
        return view

    def dtype(self, what: str, *, integer: bool = False) -> onp.dtype:
        at = self.pos
        flag = self.i32(f"the type flag of {what}")
        dtype = DTYPE_OF_FLAG.get(flag)
        if dtype is None:
            raise self.fail(f"{what} has unknown type flag {flag}; expected one of {flag_names()}", at)
        if integer and dtype.kind not in "iu":
            raise self.fail(f"{what} has type {dtype.name}; sparse indices must be integers", at)
        return dtype


@dataclass(frozen=True)
class Raw:
    """One array as found in the file: views of its payload, not yet densified."""

    offset: int
    stype: int
    shape: tuple[int, ...]
    data: onp.ndarray
    aux: tuple[onp.ndarray, ...] = ()


def _context_and_dtype(c: Cursor, what: str) -> onp.dtype:
    at = c.pos
    dev_type = c.i32(f"the device type of {what}")
    c.i32(f"the device id of {what}")
    if dev_type not in DEV_TYPES:
        known = ", ".join(f"{v} ({k})" for k, v in DEV_TYPES.items())
        raise c.fail(f"{what} has device type {dev_type}; expected {known}; {CORRUPTED}", at)
    return c.dtype(what)


def _sparse_layout(c: Cursor, what: str, stype: int, shape: tuple[int, ...], sshape: tuple[int, ...],
                   aux_shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """The storage shape MXNet's sparse constructor would use, after checking the aux shapes agree."""
    at = c.pos
    if stype == 1:  # row_sparse: aux = (row indices,)
        (idx,) = aux_shapes
        if len(shape) < 1 or len(idx) != 1:
            raise c.fail(f"{what} is row_sparse with shape {shape} and index shape {idx}; expected ndim >= 1 "
                         f"and a 1-d index; {CORRUPTED}", at)
        expected = (idx[0], *shape[1:])
    else:  # csr: aux = (indptr, indices)
        indptr, indices = aux_shapes
        if len(shape) != 2 or len(indptr) != 1 or len(indices) != 1 or indptr[0] != shape[0] + 1:
            raise c.fail(f"{what} is csr with shape {shape}, indptr shape {indptr} and indices shape "
                         f"{indices}; expected a 2-d shape (rows, cols), indptr (rows + 1,) and 1-d indices; "
                         f"{CORRUPTED}", at)
        expected = indices
    # MXNet writes csr's storage shape as (0,) and then takes it from the aux shapes: a zero-size
    # storage shape means "derive it" (ndarray.h, sparse NDArray constructor).
    if math.prod(sshape) == 0:
        sshape = expected
    if tuple(sshape) != tuple(expected):
        raise c.fail(f"{what} has storage shape {sshape} but its indices imply {expected}; {CORRUPTED}", at)
    return tuple(sshape)


def _check_indices(c: Cursor, what: str, stype: int, shape: tuple[int, ...],
                   aux: tuple[onp.ndarray, ...], at: int) -> None:
    if stype == 1:
        (idx,) = aux
        if idx.size and (idx.min() < 0 or idx.max() >= shape[0]):
            raise c.fail(f"{what} is row_sparse with row indices outside [0, {shape[0]}); {CORRUPTED}", at)
        return
    indptr, indices = aux
    nnz = indices.shape[0]
    if indptr[0] != 0 or indptr[-1] != nnz or onp.any(indptr[1:] < indptr[:-1]):
        raise c.fail(f"{what} is csr with an invalid indptr (it must rise from 0 to nnz={nnz}); "
                     f"{CORRUPTED}", at)
    if nnz and (indices.min() < 0 or indices.max() >= shape[1]):
        raise c.fail(f"{what} is csr with column indices outside [0, {shape[1]}); {CORRUPTED}", at)


def _read_array(c: Cursor, i: int) -> Raw | None:
    """One NDArray record; ``None`` for an undefined ("none") array."""
    at = c.pos
    what = f"array {i}"
    magic = c.u32(f"the magic of {what}")
    if magic in (V2_MAGIC, V3_MAGIC):
        stype_at = c.pos
        stype = c.i32(f"the storage type of {what}")
        if stype not in STYPE_NAMES:
            raise c.fail(f"{what} has unknown storage type {stype}; expected 0 (default), 1 (row_sparse) "
                         f"or 2 (csr)", stype_at)
        nad = NUM_AUX[stype]
        sshape = c.shape(f"the storage shape of {what}") if nad else None
        shape = c.shape(f"the shape of {what}", allow_none=True)
        # V2 is nd shape semantics (ndim 0 = none); V3 is np semantics (ndim 0 = a 0-d scalar).
        if shape is None or (magic == V2_MAGIC and len(shape) == 0):
            return None
        dtype = _context_and_dtype(c, what)
        aux_meta = [(c.dtype(f"aux array {k} of {what}", integer=True), c.shape(f"aux array {k} of {what}"))
                    for k in range(nad)]
        if nad:
            sshape = _sparse_layout(c, what, stype, shape, sshape, [s for _, s in aux_meta])
        data = c.payload(dtype, sshape if nad else shape, what)
        aux = tuple(c.payload(dt, s, f"aux array {k} of {what}") for k, (dt, s) in enumerate(aux_meta))
        if nad:
            _check_indices(c, what, stype, shape, aux, at)
        return Raw(at, stype, shape, data, aux)
    if magic == V1_MAGIC:
        shape = c.shape(f"the shape of {what}")
    elif magic <= MAX_NDIM:  # pre-V1: the first word is the ndim, dims are u32
        shape = c.shape(f"the shape of {what}", ndim=magic, dim_bytes=4)
    else:
        raise c.fail(f"{what} starts with 0x{magic:08X}, which is neither an array magic "
                     f"(0x{V3_MAGIC:08X} V3, 0x{V2_MAGIC:08X} V2, 0x{V1_MAGIC:08X} V1) nor a legacy ndim "
                     f"(0..{MAX_NDIM}); {CORRUPTED}", at)
    if len(shape) == 0:  # legacy files are nd shape semantics: ndim 0 is an undefined array
        return None
    dtype = _context_and_dtype(c, what)
    return Raw(at, 0, shape, c.payload(dtype, shape, what))


def _sniff(buf: onp.ndarray) -> str:
    """A hint for files that are clearly something else."""
    head = bytes(buf[:8])  # .npy and .npz files never get here: load reads them
    if head[:1] == b"\x80" and len(head) > 1 and head[1] <= 5:
        return " (it looks like a Python pickle, which is never loaded here: it can execute code)"
    if head[:1] in (b"{", b"["):
        return " (it looks like JSON, e.g. an exported -symbol.json; the weights are in the .params file)"
    return ""


def parse(buf: onp.ndarray, source: str) -> tuple[list[Raw | None], list[str] | None]:
    """Walk a whole file: its records (``None`` for undefined arrays) and its names (``None``: a list)."""
    c = Cursor(buf, source)
    if len(buf) < 8 or struct.unpack_from("<Q", buf, 0)[0] != LIST_MAGIC:
        raise c.fail(f"expected the NDArray-list magic 0x{LIST_MAGIC:X} (a u64) at the start; this is not an "
                     f"MXNet .params/.ndarray file{_sniff(buf)}")
    c.pos = 8
    c.u64("the reserved header word")
    count_at = c.pos
    count = c.u64("the array count")
    if count * 4 > c.remaining:  # the smallest record (a legacy undefined array) is 4 bytes
        raise c.fail(f"the header declares {count} arrays but only {c.remaining} bytes remain; {TRUNCATED}",
                     count_at)
    arrays = [_read_array(c, i) for i in range(count)]
    names_at = c.pos
    n_names = c.u64("the name count")
    if n_names not in (0, count):
        expect = f"0 (a list) or {count} (a dict)" if count else "0"
        raise c.fail(f"the file holds {count} arrays but declares {n_names} names; expected {expect}; "
                     f"{CORRUPTED}", names_at)
    names: list[str] = []
    seen: set[str] = set()
    for j in range(n_names):
        at = c.pos
        length = c.u64(f"the length of name {j}")
        if length > c.remaining:
            raise c.fail(f"name {j} declares {length} bytes but only {c.remaining} bytes remain; "
                         f"{TRUNCATED}", at)
        try:
            name = bytes(buf[c.pos:c.pos + length]).decode("utf-8")
        except UnicodeDecodeError as err:
            raise c.fail(f"name {j} is not valid UTF-8 ({err.reason}); {CORRUPTED}", c.pos) from None
        if name in seen:
            raise c.fail(f"name {j} ({name!r}) appears twice; {CORRUPTED}", at)
        seen.add(name)
        names.append(name)
        c.pos += length
    if c.remaining:
        raise c.fail(f"{c.remaining} unexpected bytes follow the names table; the file is corrupted")
    return arrays, (names if n_names else None)
