"""Image files (PNG, JPEG) through ``image.imdecode``, the decoder of ``imread``, ``ImageRecordDataset``
and ``recordio.unpack_img``, under a pixel budget of 2**20 (about 12 MB of decoding at most).

Valid files are small random images encoded by the library; a structured mutation rewrites a PNG's
header with another width and height (a consistent CRC, so the decoder reads it: a decompression bomb
from a few bytes), and byte mutations do the rest. The documented error is ``ValueError`` naming
``imdecode``; the engine's memory bound (48 MiB + 64 x the file) holds every case under the budget.

>>> import random
>>> TARGET.generate(random.Random(0)).label.startswith("image ")
True
"""

from __future__ import annotations

import random
import struct
import zlib
from typing import Any

import numpy as onp

from framework import image
from framework.image import _codec

from .engine import INTERESTING, Target, Valid

__all__ = ["TARGET"]

BUDGET = 1 << 20


def _generate(rng: random.Random) -> Valid:
    h, w = rng.randint(1, 48), rng.randint(1, 48)
    img = onp.random.default_rng(rng.randrange(2**32)).integers(0, 256, (h, w, 3), dtype=onp.uint8)
    fmt = rng.choice([".png", ".jpg"])
    data = _codec.encode(img, img_fmt=fmt, quality=rng.choice([50, 95]))
    return Valid(data, (h, w, img if fmt == ".png" else None), [], f"image {fmt} {w}x{h}")


def _structured(rng: random.Random, valid: Valid) -> bytes:
    data = valid.data
    if not data.startswith(b"\x89PNG"):
        return data[:rng.randint(0, len(data))]
    w, h = (rng.choice(INTERESTING + [1, 80_000_000, 1 << 20]) for _ in range(2))
    body = struct.pack(">II", w & 0xFFFFFFFF, h & 0xFFFFFFFF) + data[24:29]
    ihdr = struct.pack(">I", 13) + b"IHDR" + body + struct.pack(">I", zlib.crc32(b"IHDR" + body))
    return data[:8] + ihdr + data[33:]


def _load(path: str) -> Any:
    with open(path, "rb") as f:
        data = f.read()
    return image.imdecode(data, max_pixels=BUDGET)


def _check(result: Any, expected: Any) -> None:
    assert isinstance(result, onp.ndarray) and result.dtype == onp.uint8 and result.ndim == 3
    h, w = result.shape[:2]
    assert w * h + 16 * h <= BUDGET
    if expected is not None:
        eh, ew, img = expected
        assert result.shape == (eh, ew, 3)
        if img is not None:
            assert (result == img).all()


def _located(err: BaseException, path: str) -> bool:
    return "imdecode" in str(err)


TARGET = Target("image", ".img", _generate, _load, (ValueError,), _check, structured=_structured,
                located=_located)
