"""NumPy ``.npy`` and ``.npz`` files (MXNet 2.0's ``npx.save``/``npx.savez``), read by ``npx.load``.

Valid files are written by NumPy itself (``save``, ``savez``, ``savez_compressed``; C or Fortran
order, either byte order). A structured mutation rewrites the ``.npy`` header's dictionary with one
entry changed (a huge or negative extent, another dtype, an object dtype, a broken literal); byte
mutations also hit the zip structure and the deflate streams.

>>> import random
>>> v = TARGET.generate(random.Random(3))
>>> v.data[:6] in (b"\\x93NUMPY", b"PK\\x03\\x04")
True
"""

from __future__ import annotations

import io
import random
import warnings
import zipfile
from typing import Any

import numpy as onp

from framework.serialization import ParamsFormatError

from .engine import INTERESTING, Target, Valid
from .targets_params import _check, _load, _located

__all__ = ["TARGET"]

DTYPES = ["<f4", ">f4", "<f8", "<f2", "|u1", "|i1", "<i4", ">i8", "<u2", "|b1", "<c8"]


def _array(rng: random.Random) -> onp.ndarray:
    dtype = onp.dtype(rng.choice(DTYPES))
    shape = tuple(rng.choice([0, 1, 2, 3, 5]) for _ in range(rng.choice([0, 1, 1, 2, 3])))
    n = int(onp.prod(shape, dtype=onp.int64))
    if dtype.kind == "b":
        arr = onp.array([rng.random() < 0.5 for _ in range(n)], dtype).reshape(shape)
    elif dtype.kind == "f" or dtype.kind == "c":
        arr = onp.array([rng.uniform(-4, 4) for _ in range(n)]).astype(dtype).reshape(shape)
    else:
        arr = onp.array([rng.randrange(0, 100) for _ in range(n)]).astype(dtype).reshape(shape)
    return onp.asfortranarray(arr) if arr.ndim > 1 and rng.random() < 0.3 else arr


def _npy(arr: onp.ndarray) -> bytes:
    out = io.BytesIO()
    onp.save(out, arr, allow_pickle=False)
    return out.getvalue()


def _generate(rng: random.Random) -> Valid:
    if rng.random() < 0.4:
        arr = _array(rng)
        return Valid(_npy(arr), [arr], [], f"npy {arr.dtype.str}{arr.shape}")
    arrays = {f"a{i}": _array(rng) for i in range(rng.randint(0, 3))}
    out = io.BytesIO()
    compressed = rng.random() < 0.5
    (onp.savez_compressed if compressed else onp.savez)(out, **arrays)
    return Valid(out.getvalue(), arrays, [], f"npz{'-deflate' if compressed else ''} n={len(arrays)}")


def _odd_header(rng: random.Random, arr: onp.ndarray) -> bytes:
    odd = ["|O", "<V8", "<U4", "<f16", "x", "<i9", "|b1"]
    descr = arr.dtype.str if rng.random() < 0.6 else rng.choice(odd)
    shape = list(arr.shape) or [1]
    shape[rng.randrange(len(shape))] = rng.choice([-1, 2**62, 2**31, rng.choice(INTERESTING)])
    text = repr({"descr": descr, "fortran_order": rng.random() < 0.3, "shape": tuple(shape)})
    text = rng.choice([text, text.replace(")", ""), text[:-1], text + " ", "{'a': __import__('os')}"])
    header = text.encode("latin1")
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + arr.tobytes()


def _structured(rng: random.Random, valid: Valid) -> bytes:
    if isinstance(valid.expected, list):
        return _odd_header(rng, valid.expected[0])
    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a duplicate member name is one of the mutations
        method = zipfile.ZIP_DEFLATED if rng.random() < 0.5 else zipfile.ZIP_STORED
        with zipfile.ZipFile(out, "w", method) as z:
            for name, arr in valid.expected.items():
                z.writestr(f"{name}.npy", _odd_header(rng, arr) if rng.random() < 0.7 else _npy(arr))
            if rng.random() < 0.2:
                z.writestr(rng.choice(["readme.txt", "a0.npy", "dir/"]), b"x")
    return out.getvalue()


def _native(arr: onp.ndarray) -> onp.ndarray:
    return arr.astype(arr.dtype.newbyteorder("="))


def _check_npz(result: Any, expected: Any) -> None:
    if expected is None:
        _check(result, None)
    elif isinstance(expected, list):
        _check(result, [_native(a) for a in expected])
    else:
        _check(result, {k: _native(v) for k, v in expected.items()})


TARGET = Target("npz", ".npz", _generate, _load, (ParamsFormatError,), _check_npz, structured=_structured,
                located=_located)
