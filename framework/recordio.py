"""MXNet's RecordIO: ``.rec`` files of length-prefixed records (and ``.idx`` indexes), byte-compatible
with ``mx.recordio`` in both directions; no MXNet needed.

A record is ``magic (0xced7230a) | lrec | data | zero padding to 4 bytes`` with ``lrec = cflag << 29 |
length``. A payload containing the magic word at a 4-byte-aligned offset is written as several parts
(cflag 1 = first, 2 = middle, 3 = last) and the reader puts the magic words back, as dmlc-core does.
An ``.idx`` file holds one ``key<TAB>offset`` line per record. ``pack``/``unpack`` add the 24-byte
``IRHeader`` (flag, label, id, id2); ``flag > 0`` means ``flag`` float32 labels follow the header.

Every length is checked against the bytes the file still holds: a torn or hostile file raises
:class:`RecordIOError` naming the file and the offset, never allocating beyond the file's size.

>>> import os, tempfile
>>> from framework import recordio
>>> d = tempfile.mkdtemp()
>>> w = recordio.MXIndexedRecordIO(os.path.join(d, 'a.idx'), os.path.join(d, 'a.rec'), 'w')
>>> w.write_idx(3, recordio.pack(recordio.IRHeader(0, 1.0, 3, 0), b'payload'))
>>> w.close()
>>> r = recordio.MXIndexedRecordIO(os.path.join(d, 'a.idx'), os.path.join(d, 'a.rec'), 'r')
>>> header, data = recordio.unpack(r.read_idx(3))
>>> r.keys, header.label, header.id, data
([3], 1.0, 3, b'payload')
"""

from __future__ import annotations

import io
import numbers
import os
import struct
from collections import namedtuple
from typing import Any

import numpy as onp

from ._files import open_regular, read_bytes

__all__ = ["MXRecordIO", "MXIndexedRecordIO", "IRHeader", "pack", "unpack", "pack_img", "unpack_img",
           "RecordIOError"]

_MAGIC = 0xCED7230A
_MAGIC_BYTES = struct.pack("<I", _MAGIC)
_MAX_LEN = (1 << 29) - 1
_IR_FORMAT = "<IfQQ"
_IR = struct.Struct(_IR_FORMAT)
_IR_SIZE = _IR.size
_HEAD = struct.Struct("<II")

IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
IRHeader.__doc__ = """A record's image header: ``flag`` (number of labels when > 0), ``label`` (a float, or
the labels array when ``flag > 0``), ``id`` and ``id2`` (uint64)."""


class RecordIOError(ValueError):
    """A ``.rec``/``.idx`` file that is not valid RecordIO (the message names the file and offset)."""


class MXRecordIO:
    """Sequential reader/writer of a ``.rec`` file (``flag`` 'r' or 'w'), MXNet's ``MXRecordIO``.

    Picklable: a copy (e.g. in a DataLoader worker) opens its own file handle on first use.
    """

    def __init__(self, uri: str | os.PathLike, flag: str) -> None:
        if flag not in ("r", "w"):
            raise ValueError(f"MXRecordIO: flag={flag!r} must be 'r' (read) or 'w' (write)")
        self.uri = os.fspath(uri)
        self.flag = flag
        self.writable = flag == "w"
        self._file: io.BufferedIOBase | None = None
        self._pid: int | None = None
        self._size = 0
        self.is_open = False
        self.open()

    # ------------------------------------------------------------------ handle management
    def open(self) -> None:
        """(Re)open the file: 'w' truncates it, 'r' reads from the start."""
        self._file = open(self.uri, "wb") if self.writable else open_regular(  # noqa: SIM115
            self.uri, what="record file")
        self._pid = os.getpid()
        self._size = 0 if self.writable else os.fstat(self._file.fileno()).st_size
        self.is_open = True

    def close(self) -> None:
        if self.is_open and self._file is not None:
            self._file.close()
        self._file = None
        self.is_open = False

    def reset(self) -> None:
        """Reopen at the start (for reading)."""
        self.close()
        self.open()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass

    def __enter__(self) -> MXRecordIO:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getstate__(self) -> dict:
        d = dict(self.__dict__)
        d["_file"] = None
        d["_pid"] = None
        d["is_open"] = False
        return d

    def __setstate__(self, d: dict) -> None:
        self.__dict__.update(d)  # the handle opens on first use, in the process that uses it

    def _handle(self) -> io.BufferedIOBase:
        if self._file is None or self._pid != os.getpid():
            if self.writable:
                raise RuntimeError(f"MXRecordIO: the writer of {self.uri} is closed or belongs to another "
                                   "process; open a new MXRecordIO(..., 'w')")
            self.open()
        return self._file

    # ------------------------------------------------------------------ writing
    def write(self, buf: bytes) -> None:
        """Append one record (a bytes-like payload below 2**29 bytes)."""
        if not self.writable:
            raise RuntimeError(f"MXRecordIO: {self.uri} is open for reading; open it with flag='w'")
        data = bytes(buf)
        if len(data) > _MAX_LEN:
            raise ValueError(f"MXRecordIO: a record holds at most {_MAX_LEN} bytes, got {len(data)}")
        f = self._handle()
        start = 0
        for i in range(0, len(data) - len(data) % 4, 4):
            if data[i:i + 4] == _MAGIC_BYTES:
                f.write(_MAGIC_BYTES + struct.pack("<I", ((1 if start == 0 else 2) << 29) | (i - start)))
                f.write(data[start:i])
                start = i + 4
        f.write(_MAGIC_BYTES + struct.pack("<I", ((3 if start else 0) << 29) | (len(data) - start)))
        f.write(data[start:])
        f.write(b"\0" * (-len(data) % 4))

    def tell(self) -> int:
        """The current byte offset (where the next record is written or read)."""
        return self._handle().tell()

    # ------------------------------------------------------------------ reading
    def _fail(self, offset: int, msg: str) -> RecordIOError:
        return RecordIOError(f"RecordIO file {self.uri}: record at byte offset {offset}: {msg}")

    def read(self) -> bytes | None:
        """The next record's payload, or None at the end of the file."""
        if self.writable:
            raise RuntimeError(f"MXRecordIO: {self.uri} is open for writing; open it with flag='r'")
        f = self._handle()
        parts: list[bytes] = []
        expect_more = False
        at = f.tell()
        while True:
            head = f.read(8)
            if not head and not expect_more:
                return None
            if len(head) < 8:
                raise self._fail(at, f"torn header ({len(head)} of 8 bytes before the end of the file)")
            magic, lrec = _HEAD.unpack(head)
            if magic != _MAGIC:
                raise self._fail(at, f"bad magic number 0x{magic:08x} (expected 0x{_MAGIC:08x}): not a "
                                     "RecordIO file, or an offset that is not a record's start")
            cflag, length = lrec >> 29, lrec & _MAX_LEN
            padded = length + (-length % 4)
            if padded > self._size - at - 8:
                raise self._fail(at, f"length {length} runs past the end of the file "
                                     f"({self._size - at - 8} bytes left): the file is truncated or corrupt")
            if expect_more and cflag not in (2, 3):
                raise self._fail(at, f"continuation flag {cflag} where a middle (2) or last (3) part "
                                     "of a multi-part record was expected")
            if not expect_more and cflag not in (0, 1):
                raise self._fail(at, f"continuation flag {cflag} at the start of a record (expected 0 or 1)")
            data = f.read(padded)
            parts.append(data if padded == length else data[:length])
            at += 8 + padded
            if cflag in (0, 3):
                break
            expect_more = True
        return parts[0] if len(parts) == 1 else _MAGIC_BYTES.join(parts)

    def __iter__(self):
        while True:
            rec = self.read()
            if rec is None:
                return
            yield rec


class MXIndexedRecordIO(MXRecordIO):
    """Random access through an ``.idx`` file: ``read_idx(key)``, ``write_idx(key, buf)``, ``keys``."""

    def __init__(self, idx_path: str | os.PathLike, uri: str | os.PathLike, flag: str,
                 key_type: type = int) -> None:
        self.idx_path = os.fspath(idx_path)
        self.key_type = key_type
        self.idx: dict[Any, int] = {}
        self.keys: list[Any] = []
        self._fidx: io.TextIOBase | None = None
        super().__init__(uri, flag)

    def open(self) -> None:
        super().open()
        self.idx, self.keys = {}, []
        if self.writable:
            self._fidx = open(self.idx_path, "w")  # noqa: SIM115
            return
        size = self._size
        raw = read_bytes(self.idx_path, what="index file")
        for lineno, line in enumerate(raw.decode("utf-8", "replace").splitlines(), 1):
            if not line.strip():
                continue
            fields = line.strip().split("\t")
            if len(fields) != 2:
                raise RecordIOError(f"index file {self.idx_path} line {lineno}: expected 'key<TAB>offset', "
                                    f"got {line[:60]!r}")
            try:
                key, pos = self.key_type(fields[0]), int(fields[1])
            except ValueError:
                raise RecordIOError(f"index file {self.idx_path} line {lineno}: key {fields[0][:30]!r} or "
                                    f"offset {fields[1][:30]!r} is not a number") from None
            if not 0 <= pos < max(size, 1) or pos % 4:
                raise RecordIOError(f"index file {self.idx_path} line {lineno}: offset {pos} is not a record "
                                    f"start inside {self.uri} ({size} bytes)")
            if key not in self.idx:
                self.keys.append(key)
            self.idx[key] = pos

    def close(self) -> None:
        if self._fidx is not None:
            self._fidx.close()
            self._fidx = None
        super().close()

    def __getstate__(self) -> dict:
        d = super().__getstate__()
        d["_fidx"] = None
        return d

    def seek(self, idx: Any) -> None:
        """Move the reader to the record of key ``idx``."""
        if self.writable:
            raise RuntimeError(f"MXIndexedRecordIO: {self.uri} is open for writing")
        if idx not in self.idx:
            raise KeyError(f"MXIndexedRecordIO: key {idx!r} is not in {self.idx_path} "
                           f"({len(self.keys)} keys, e.g. {self.keys[:5]})")
        self._handle().seek(self.idx[idx])

    def read_idx(self, idx: Any) -> bytes:
        """The payload of the record with key ``idx``."""
        self.seek(idx)
        rec = self.read()
        if rec is None:
            raise self._fail(self.idx[idx], "the index points at the end of the file")
        return rec

    def write_idx(self, idx: Any, buf: bytes) -> None:
        """Append a record and index it under key ``idx``."""
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self._fidx.write(f"{key}\t{pos}\n")
        self.idx[key] = pos
        self.keys.append(key)


# ---------------------------------------------------------------------- headers
def pack(header: IRHeader, s: bytes) -> bytes:
    """Header + payload as one record; an array label sets ``flag`` to its length (multi-label)."""
    if not isinstance(s, (bytes, bytearray, memoryview)):
        hint = " (encode text first: s.encode('utf-8'))" if isinstance(s, str) else ""
        raise TypeError(f"recordio.pack: the payload s must be bytes; got {type(s).__name__}{hint}. For an "
                        "image use recordio.pack_img.")
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        head = struct.pack(_IR_FORMAT, 0, float(header.label), int(header.id), int(header.id2))
        return head + bytes(s)
    label = onp.asarray(header.label, dtype=onp.float32).ravel()
    head = struct.pack(_IR_FORMAT, label.size, 0.0, int(header.id), int(header.id2))
    return head + label.tobytes() + bytes(s)


def unpack(s: bytes) -> tuple[IRHeader, bytes]:
    """Split a record into its :class:`IRHeader` and payload (``flag > 0``: ``label`` is an array)."""
    if len(s) < _IR_SIZE:
        raise RecordIOError(f"unpack: a record with an IRHeader has at least {_IR_SIZE} bytes, got {len(s)}")
    flag, label, id_, id2 = _IR.unpack_from(s)
    s = s[_IR_SIZE:]
    if flag > 0:
        if flag * 4 > len(s):
            raise RecordIOError(f"unpack: header says {flag} labels ({flag * 4} bytes) but only {len(s)} "
                                "bytes follow it")
        label = onp.frombuffer(s, onp.float32, flag).copy()
        s = s[flag * 4:]
    return IRHeader(flag, label, id_, id2), s


def pack_img(header: IRHeader, img: Any, quality: int = 95, img_fmt: str = ".jpg") -> bytes:
    """Encode ``img`` (HWC uint8, **BGR** channel order like MXNet's OpenCV-based ``pack_img``) as
    JPEG or PNG with Pillow and pack it with ``header``."""
    from .image import _codec

    return pack(header, _codec.encode(onp.asarray(img), quality=quality, img_fmt=img_fmt, bgr=True))


def unpack_img(s: bytes, iscolor: int = -1) -> tuple[IRHeader, onp.ndarray]:
    """Unpack a record and decode its image: HWC uint8 in **BGR** order (MXNet's ``unpack_img``);
    ``iscolor`` 0 gives a grayscale (H, W) image, 1 forces 3 channels."""
    from .image import _codec

    header, data = unpack(s)
    return header, _codec.decode(data, flag=iscolor, bgr=True)
