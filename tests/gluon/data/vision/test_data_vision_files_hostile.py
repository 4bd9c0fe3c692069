"""Hostile dataset files (issues 16 and 19): IDX dimensions that overflow, and gzip bombs."""

from __future__ import annotations

import gzip
import struct
import time
import tracemalloc

import numpy as onp
import pytest

from framework.gluon.data.vision import _files
from framework.gluon.data.vision.catalogue import entry_for

MIB = 1 << 20


def _idx(dims, content=b""):
    return bytes([0, 0, 8, len(dims)]) + struct.pack(f">{len(dims)}I", *dims) + content


def _bomb(head: bytes, inflated_mib: int) -> bytes:
    """A gzip file (one member per MiB) whose content is ``head`` then ``inflated_mib`` MiB of zeros."""
    member = gzip.compress(bytes(MIB), compresslevel=9, mtime=0)
    return gzip.compress(head, mtime=0) + member * inflated_mib


def _read(path, spec=None, verify=False):
    try:
        return _files.read_idx(path, "fashion-mnist", spec, verify)
    finally:
        _files._cache.clear()


def test_dimensions_that_overflow_are_rejected_before_any_reshape(tmp_path):
    path = tmp_path / "x-idx3-ubyte"
    path.write_bytes(_idx((4278190079, 4294967295, 0)))
    with pytest.raises(_files.DataFileError, match=r"x-idx3-ubyte: byte 4: the IDX header gives shape "
                                                   r"\(4278190079, 4294967295, 0\), more than \d+ bytes"):
        _read(path)


def test_rank_zero_and_a_truncated_header_name_the_byte(tmp_path):
    path = tmp_path / "labels.idx"
    path.write_bytes(bytes([0, 0, 8, 0]))
    with pytest.raises(_files.DataFileError, match=r"labels.idx: byte 3: IDX rank 0, expected 1 or more"):
        _read(path)
    path.write_bytes(_idx((5, 28, 28))[:9])
    with pytest.raises(_files.DataFileError, match=r"labels.idx: byte 9: truncated inside its IDX header "
                                                   r"\(9 of 16 bytes\)"):
        _read(path)


@pytest.mark.parametrize("gz", [False, True])
def test_valid_files_still_load(tmp_path, gz):
    content = bytes(range(256)) * 3
    blob = _idx((3, 16, 16), content)
    path = tmp_path / ("x-idx3-ubyte.gz" if gz else "x-idx3-ubyte")
    path.write_bytes(gzip.compress(blob) if gz else blob)
    assert _read(path).tolist() == onp.frombuffer(content, onp.uint8).reshape(3, 16, 16).tolist()
    multi = gzip.compress(blob[:100]) + gzip.compress(blob[100:])  # gzip members one after another
    path.write_bytes(multi)
    assert _read(path).shape == (3, 16, 16)


def test_a_gzip_bomb_is_rejected_after_the_declared_size_in_bounded_memory(tmp_path):
    """1 MiB of gzip inflating to 1 GiB behind a header declaring 10 images: read 7840 bytes, reject."""
    path = tmp_path / "train-images-idx3-ubyte.gz"
    path.write_bytes(_bomb(_idx((10, 28, 28), bytes(7840)), 1024))
    assert path.stat().st_size < 2 * MIB
    tracemalloc.start()
    tic = time.perf_counter()
    try:
        with pytest.raises(_files.DataFileError, match=r"byte 7856: longer than its header says"):
            _read(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * MIB, peak  # a small multiple of the 1 MiB read chunk, nothing like 1 GiB
    assert time.perf_counter() - tic < 30  # a bound far above its ~0.01 s, far below inflating 1 GiB


def test_a_known_file_is_checked_against_the_catalogue_before_inflating(tmp_path):
    spec = entry_for("fashion-mnist")["files"]["train-images-idx3-ubyte"]
    path = tmp_path / "train-images-idx3-ubyte.gz"
    path.write_bytes(_bomb(_idx((2**20, 32, 32)), 1024))  # declares a 1 GiB content, inflates to it
    tracemalloc.start()
    try:
        with pytest.raises(_files.DataFileError, match=r"byte 4: shape \(1048576, 32, 32\), expected "
                                                       r"\(60000, 28, 28\)"):
            _read(path, spec, verify=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * MIB, peak


def test_corrupt_gzip_is_a_data_file_error(tmp_path):
    blob = bytearray(gzip.compress(_idx((2, 3), bytes(6)), mtime=0))
    blob[-8] ^= 0xFF  # the CRC
    path = tmp_path / "x.idx"
    path.write_bytes(bytes(blob))
    with pytest.raises(_files.DataFileError, match="not a complete gzip file"):
        _read(path)
    path.write_bytes(bytes(blob[:-3]))
    with pytest.raises(_files.DataFileError, match="not a complete gzip file"):
        _read(path)
