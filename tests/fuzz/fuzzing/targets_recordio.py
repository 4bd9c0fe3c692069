"""MXNet RecordIO ``.rec`` files, read record by record and unpacked as image records are.

The encoder here writes the layout independently of ``framework.recordio``'s writer: ``magic | lrec
(cflag << 29 | length) | data | padding``, with payloads that contain the magic word at aligned offsets
(multi-part records) and ``IRHeader``s with one or several labels. Structured fields: each part's magic
and length word and each header's label count. The loader is ``MXRecordIO(path, 'r')`` then ``unpack``
of every record; the documented error is ``RecordIOError`` (naming the file and offset; ``unpack``,
which takes bytes, names the record's sizes).

>>> import random
>>> v = TARGET.generate(random.Random(0))
>>> v.data[:4] == bytes.fromhex("0a23d7ce") or v.data == b""
True
"""

from __future__ import annotations

import random
import struct
from typing import Any

import numpy as onp

from framework import recordio

from .engine import Field, Target, Valid

__all__ = ["TARGET"]

MAGIC = 0xCED7230A


def _payload(rng: random.Random) -> tuple[tuple, bytes, bytes]:
    nlabels = rng.choice([0, 0, 1, 3])
    labels = [float(rng.randint(-5, 5)) for _ in range(nlabels)]
    label = 0.0 if nlabels else float(rng.randint(0, 9))
    ids = (rng.getrandbits(64), rng.getrandbits(16))
    body = rng.randbytes(rng.choice([0, 1, 3, 4, 17, 64]))
    if rng.random() < 0.3:  # the magic word inside the payload, 4-byte aligned: a multi-part record
        cut = (rng.randrange(len(body) + 1) // 4) * 4
        body = body[:cut] + struct.pack("<I", MAGIC) + body[cut:]
    head = struct.pack("<IfQQ", nlabels, label, *ids) + struct.pack(f"<{nlabels}f", *labels)
    return (nlabels, labels or label, *ids), head + body, body


def _generate(rng: random.Random) -> Valid:
    parts: list[bytes] = []
    fields: list[Field] = []
    size = 0
    expected = []
    for _ in range(rng.choice([0, 1, 2, 3, 5])):
        header, record, body = _payload(rng)
        expected.append((header, body))
        fields.append(Field(size + 8, "<I", "label count"))
        pieces, start = [], 0
        for i in range(0, len(record) - len(record) % 4, 4):
            if record[i:i + 4] == struct.pack("<I", MAGIC):
                pieces.append(record[start:i])
                start = i + 4
        pieces.append(record[start:])
        for k, piece in enumerate(pieces):
            cflag = 0 if len(pieces) == 1 else 1 if k == 0 else 3 if k == len(pieces) - 1 else 2
            fields += [Field(size, "<I", "magic"), Field(size + 4, "<I", "lrec")]
            blob = struct.pack("<II", MAGIC, cflag << 29 | len(piece)) + piece + b"\0" * (-len(piece) % 4)
            parts.append(blob)
            size += len(blob)
    return Valid(b"".join(parts), expected, fields, f"recordio n={len(expected)}")


def _load(path: str) -> Any:
    with recordio.MXRecordIO(path, "r") as reader:
        return [recordio.unpack(rec) for rec in reader]


def _check(result: Any, expected: Any) -> None:
    assert isinstance(result, list)
    for header, body in result:
        assert isinstance(body, bytes) and header.flag >= 0
    if expected is None:
        return
    assert len(result) == len(expected)
    for (header, body), (want, want_body) in zip(result, expected, strict=True):
        assert body == want_body and (header.flag, header.id, header.id2) == (want[0], want[2], want[3])
        assert onp.asarray(header.label, onp.float32).tolist() == onp.asarray(want[1], onp.float32).tolist()


def _located(err: BaseException, path: str) -> bool:
    return path in str(err) or str(err).startswith("unpack: ")


TARGET = Target("recordio", ".rec", _generate, _load, (recordio.RecordIOError,), _check, located=_located)
