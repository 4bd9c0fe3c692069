"""IDX files (the MNIST family), plain or gzip-compressed, read by the dataset reader.

Structured fields are the header's magic word and big-endian dimensions; byte mutations also hit the
gzip stream (header, deflate data, CRC and length trailer). The loader is ``read_idx`` without a
catalogue entry (any rank 1..3) and without a cache (each case is a new file).

>>> import random
>>> v = TARGET.generate(random.Random(1))
>>> v.expected.dtype.name, v.data[:2] == b"\\x1f\\x8b" or v.fields[0].name == "magic"
('uint8', True)
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path
from typing import Any

import numpy as onp

from framework.gluon.data.vision import _files

from .engine import Field, Target, Valid

__all__ = ["TARGET"]


def _generate(rng: random.Random) -> Valid:
    ndim = rng.choice([1, 3, 3])
    dims = [rng.choice([0, 1, 2, 5, 28]) if ndim == 1 else rng.choice([0, 1, 2, 7, 7, 28, 28])
            for _ in range(ndim)]
    content = rng.randbytes(int(onp.prod(dims, dtype=onp.int64)))
    header = bytes([0, 0, 8, ndim]) + b"".join(d.to_bytes(4, "big") for d in dims)
    fields = [Field(0, ">I", "magic")] + [Field(4 + 4 * k, ">I", f"dim {k}") for k in range(ndim)]
    plain = header + content
    expected = onp.frombuffer(content, onp.uint8).reshape(dims)
    if rng.random() < 0.5:
        return Valid(plain, expected, fields, f"idx{ndim} {dims}")
    return Valid(gzip.compress(plain, compresslevel=rng.choice([1, 6, 9]), mtime=0), expected,
                 [], f"idx{ndim}.gz {dims}")


def _structured(rng: random.Random, valid: Valid) -> bytes:
    """A header field changed inside the compressed stream (the gzip wrapper stays intact)."""
    plain = gzip.decompress(valid.data) if valid.data[:2] == b"\x1f\x8b" else valid.data
    buf = bytearray(plain)
    ndim = buf[3]
    pos = 4 + 4 * rng.randrange(ndim) if ndim and rng.random() < 0.8 else rng.randrange(4)
    width = 4 if pos >= 4 else 1
    value = rng.choice([0, 1, 2, 3, 4, 255, 2**16, 2**24, 2**31, 2**32 - 1]) % (1 << (8 * width))
    buf[pos:pos + width] = value.to_bytes(width, "big")
    if rng.random() < 0.3:
        buf = buf[: rng.randrange(len(buf) + 1)]
    return gzip.compress(bytes(buf), mtime=0)


def _load(path: str) -> Any:
    try:
        return _files.read_idx(Path(path), "fuzz", None, verify=False)
    finally:
        _files._cache.clear()


def _check(result: Any, expected: Any) -> None:
    assert isinstance(result, onp.ndarray) and result.dtype == onp.uint8 and 1 <= result.ndim <= 3
    if expected is not None:
        assert result.shape == expected.shape and onp.array_equal(result, expected)


TARGET = Target("idx", "-images.idx", _generate, _load, (_files.DataFileError,), _check,
                structured=_structured)
