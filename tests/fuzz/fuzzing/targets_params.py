"""MXNet ``.params`` files: every version (V3, V2, V1, pre-V1), all 13 dtypes, dense/row_sparse/csr.

The encoder here is written independently of ``framework.serialization._writer`` (which writes only
dense V2/V3) from the layout of MXNet 1.9.1's ``NDArray::Save`` and records the offset of every
integer field for structured mutation. The loader is the public ``npx.load``.

>>> import random
>>> v = TARGET.generate(random.Random(0))
>>> v.data[:8] == (0x112).to_bytes(8, "little"), len(v.fields) > 3
(True, True)
"""

from __future__ import annotations

import random
import struct
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from framework.serialization import ParamsFormatError, load

from .engine import Field, Target, Valid

__all__ = ["TARGET", "encode"]

V1, V2, V3 = 0xF993FAC8, 0xF993FAC9, 0xF993FACA
DTYPES = [onp.dtype(d) for d in ("float32", "float64", "float16", "uint8", "int32", "int8", "int64", "bool",
                                 "int16", "uint16", "uint32", "uint64")] + [onp.dtype(jnp.bfloat16)]
FLAG = {dt: i for i, dt in enumerate(DTYPES)}
INDEX_DTYPES = [onp.dtype("int64"), onp.dtype("int32")]


class _Writer:
    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0
        self.fields: list[Field] = []

    def put(self, fmt: str, *values: int, name: str = "") -> None:
        for v in values:
            if name:
                self.fields.append(Field(self.size, fmt, name))
            self.raw(struct.pack(fmt, v))

    def raw(self, blob: bytes) -> None:
        self.parts.append(blob)
        self.size += len(blob)

    def shape(self, shape: tuple[int, ...], what: str, *, legacy: bool = False) -> None:
        if legacy:
            self.put("<I", len(shape), name=f"{what} ndim")
            self.put("<I", *shape, name=f"{what} dim")
        else:
            self.put("<i", len(shape), name=f"{what} ndim")
            self.put("<q", *shape, name=f"{what} dim")

    def context(self, dtype: onp.dtype, what: str) -> None:
        self.put("<i", 1, name=f"{what} dev_type")
        self.put("<i", 0, name=f"{what} dev_id")
        self.put("<i", FLAG[dtype], name=f"{what} dtype")


def _values(rng: random.Random, dtype: onp.dtype, shape: tuple[int, ...]) -> onp.ndarray:
    n = int(onp.prod(shape, dtype=onp.int64))
    raw = onp.frombuffer(rng.randbytes(n * dtype.itemsize), onp.uint8)
    if dtype == onp.bool_:
        return (raw % 2).astype(onp.bool_).reshape(shape)
    if dtype.kind == "f" or dtype == onp.dtype(jnp.bfloat16):
        return (onp.frombuffer(rng.randbytes(4 * n), onp.int32).astype(onp.float32) / 2**24).astype(dtype) \
            .reshape(shape)
    if dtype.itemsize == 8:  # stay inside the 32-bit range: JAX's 32-bit mode would wrap the rest
        narrow = onp.int32 if dtype.kind == "i" else onp.uint32
        return onp.frombuffer(rng.randbytes(4 * n), narrow).astype(dtype).reshape(shape)
    return raw.view(dtype).reshape(shape)


def _shape(rng: random.Random, version: int) -> tuple[int, ...]:
    low = 0 if version == V3 else 1  # ndim 0 means "undefined" before V3
    ndim = rng.choice([low, 1, 1, 2, 2, 3, 4])
    extents = [0, 1, 2, 3, 5, 8] if version == V3 else [1, 2, 3, 5, 8]
    return tuple(rng.choice(extents) for _ in range(ndim))


def _dense(w: _Writer, rng: random.Random, version: int, i: int) -> onp.ndarray:
    dtype = rng.choice(DTYPES)
    shape = _shape(rng, version)
    arr = _values(rng, dtype, shape)
    what = f"array {i}"
    if version in (V2, V3):
        w.put("<I", version, name=f"{what} magic")
        w.put("<i", 0, name=f"{what} stype")
        w.shape(shape, what)
    elif version == V1:
        w.put("<I", V1, name=f"{what} magic")
        w.shape(shape, what)
    else:  # pre-V1: the first word is the ndim, dims are u32
        w.shape(shape, what, legacy=True)
    w.context(dtype, what)
    w.raw(arr.tobytes())
    return arr


def _sparse(w: _Writer, rng: random.Random, version: int, i: int) -> onp.ndarray:
    dtype = rng.choice([d for d in DTYPES if d != onp.bool_])
    what = f"array {i}"
    rows, cols = rng.choice([1, 2, 4, 6]), rng.choice([1, 2, 3])
    dense = onp.zeros((rows, cols), dtype)
    w.put("<I", version, name=f"{what} magic")
    if rng.random() < 0.5:  # row_sparse: storage (nnz_rows, cols), aux = (row indices,)
        idx = onp.array(sorted(rng.sample(range(rows), rng.randint(0, rows))), rng.choice(INDEX_DTYPES))
        data = _values(rng, dtype, (len(idx), cols))
        dense[idx] = data
        w.put("<i", 1, name=f"{what} stype")
        w.shape(data.shape, f"{what} storage")
        w.shape((rows, cols), what)
        w.context(dtype, what)
        w.put("<i", FLAG[idx.dtype], name=f"{what} aux dtype")
        w.shape(idx.shape, f"{what} aux")
        w.raw(data.tobytes() + idx.tobytes())
        return dense
    # csr: storage shape written as (0,) (derived from the indices), aux = (indptr, indices)
    counts = [rng.randint(0, cols) for _ in range(rows)]
    indices_list = [c for n in counts for c in sorted(rng.sample(range(cols), n))]
    itype = rng.choice(INDEX_DTYPES)
    indptr = onp.array([0, *onp.cumsum(counts)], itype)
    indices = onp.array(indices_list, itype)
    data = _values(rng, dtype, (len(indices),))
    r = onp.repeat(onp.arange(rows), counts)
    dense[r, indices.astype(onp.intp)] = data
    w.put("<i", 2, name=f"{what} stype")
    w.shape((0,), f"{what} storage")
    w.shape((rows, cols), what)
    w.context(dtype, what)
    for k, aux in enumerate((indptr, indices)):
        w.put("<i", FLAG[aux.dtype], name=f"{what} aux{k} dtype")
        w.shape(aux.shape, f"{what} aux{k}")
    w.raw(data.tobytes() + indptr.tobytes() + indices.tobytes())
    return dense


def encode(rng: random.Random) -> Valid:
    """A random valid file and the arrays it holds (dense, as numpy)."""
    version = rng.choice([V3, V3, V2, V2, V1, 0])
    count = rng.choice([0, 1, 1, 2, 3, 4])
    named = rng.random() < 0.7
    w = _Writer()
    w.put("<Q", 0x112, name="list magic")
    w.put("<Q", 0, name="reserved")
    w.put("<Q", count, name="count")
    arrays = []
    for i in range(count):
        sparse = version in (V2, V3) and rng.random() < 0.25
        arrays.append((_sparse if sparse else _dense)(w, rng, version, i))
    names = [f"{rng.choice(['', 'arg:', 'aux:'])}p{i}.weight" for i in range(count)] if named else []
    w.put("<Q", len(names), name="name count")
    for n in names:
        blob = n.encode()
        w.put("<Q", len(blob), name="name length")
        w.raw(blob)
    expected = dict(zip(names, arrays, strict=True)) if named and count else arrays
    label = f"params v{ {V3: 3, V2: 2, V1: 1, 0: 0}[version]} n={count}"
    return Valid(b"".join(w.parts), expected, w.fields, label)


def _load(path: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the 64-bit -> 32-bit notice is expected here
        return load(path)


def _check(result: Any, expected: Any) -> None:
    assert isinstance(result, (dict, list)), type(result)
    values = list(result.values()) if isinstance(result, dict) else result
    if isinstance(result, dict):
        assert all(isinstance(k, str) for k in result)
    assert all(v is None or isinstance(v, jax.Array) for v in values)
    if expected is None:
        return
    if isinstance(expected, dict):
        assert isinstance(result, dict) and list(result) == list(expected), (list(result), list(expected))
        pairs = [(result[k], expected[k]) for k in expected]
    else:
        assert isinstance(result, list) and len(result) == len(expected)
        pairs = list(zip(result, expected, strict=True))
    for got, want in pairs:
        want = want.astype(jax.dtypes.canonicalize_dtype(want.dtype))
        got = onp.asarray(got)
        assert (got.dtype, got.shape) == (want.dtype, want.shape), (got.dtype, got.shape, want.dtype)
        assert got.tobytes() == want.tobytes()


def _located(err: BaseException, path: str) -> bool:
    return isinstance(err, ParamsFormatError) and err.source == path and isinstance(err.offset, int) \
        and err.offset >= 0 and str(err).startswith(f"{path}: byte {err.offset}: ")


TARGET = Target("params", ".params", encode, _load, (ParamsFormatError,), _check, located=_located)
