"""Crafted .params files of issue 16: sparse decompression bombs, and 64-bit arrays in JAX's 32-bit mode."""

from __future__ import annotations

import struct
import warnings

import jax
import numpy as onp
import pytest

from framework import npx
from framework.serialization import ParamsFormatError, default_max_bytes, dumps, load, load_numpy

V2 = 0xF993FAC9


def _row_sparse_bomb(rows: int, cols: int = 1) -> bytes:
    """A row_sparse float32 record declaring a (rows, cols) dense array and storing no row at all."""
    return struct.pack("<Iii2qi2qiiiii1q", V2, 1, 2, 0, cols, 2, rows, cols, 1, 0, 0, 6, 1, 0)


def _file(records: list[bytes], names: list[str]) -> bytes:
    out = struct.pack("<QQQ", 0x112, 0, len(records)) + b"".join(records) + struct.pack("<Q", len(names))
    return out + b"".join(struct.pack("<Q", len(n)) + n.encode() for n in names)


def test_a_118_byte_row_sparse_file_declaring_1_gib_is_rejected():
    blob = _file([_row_sparse_bomb(2**28)], ["w"])
    assert len(blob) <= 118
    match = (r"<bytes>: byte 24: array 0 \('w'\) is row_sparse with dense shape \(268435456, 1\) float32 = "
             r"1073741824 bytes, more than the default max_bytes=16777216 .*decompression bombs")
    with pytest.raises(ParamsFormatError, match=match):
        load(blob)


def test_eight_bombs_in_one_file_are_bounded_together():
    """Each array alone fits an explicit 1.5 GiB bound; the file's eight (8 GiB) do not."""
    blob = _file([_row_sparse_bomb(2**28)] * 8, [f"w{i}" for i in range(8)])
    assert len(blob) < 1000
    with pytest.raises(ParamsFormatError, match=r"array 1 \('w1'\) .* \(after 1073741824 bytes of earlier "
                                                r"sparse arrays\), more than max_bytes=1610612736"):
        load_numpy(blob, max_bytes=3 << 29)


def test_max_bytes_lets_a_trusted_file_through_and_is_checked():
    blob = _file([_row_sparse_bomb(2**10, 4)], ["w"])
    assert load_numpy(blob, max_bytes=2**14)["w"].shape == (1024, 4)
    with pytest.raises(ParamsFormatError, match="more than max_bytes=16383"):
        load_numpy(blob, max_bytes=2**14 - 1)
    with pytest.raises(TypeError, match=r"max_bytes must be a non-negative int .* got '1GB'"):
        load_numpy(blob, max_bytes="1GB")
    assert default_max_bytes(2**30) == 2**36


def test_the_bomb_is_rejected_before_memory_is_used():
    import tracemalloc

    blob = _file([_row_sparse_bomb(2**28)] * 8, [f"w{i}" for i in range(8)])
    tracemalloc.start()
    try:
        with pytest.raises(ParamsFormatError):
            load(blob)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_float64_and_int64_in_32_bit_mode_warn_naming_array_dtype_and_fix():
    blob = dumps({"w": onp.arange(3, dtype=onp.float64), "n": onp.array([7], onp.int64),
                  "b": onp.zeros(2, onp.float32)})
    with pytest.warns(UserWarning) as record:
        got = load(blob)
    message = str(record[0].message)
    assert "'w' (float64 -> float32), 'n' (int64 -> int32)" in message
    assert "jax.config.update('jax_enable_x64', True)" in message and "'b'" not in message
    assert got["w"].dtype == onp.float32 and got["n"].dtype == onp.int32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_numpy(blob)["w"].dtype == onp.float64  # host arrays: exact, no warning
        load(dumps({"b": onp.zeros(2, onp.float32)}))  # nothing narrowed: no warning


def test_float64_loads_as_float64_with_x64():
    blob = dumps({"w": onp.array([0.1, 1e300], onp.float64)})
    with jax.enable_x64(True), warnings.catch_warnings():
        warnings.simplefilter("error")
        got = load(blob)["w"]
        assert got.dtype == onp.float64 and got.tolist() == [0.1, 1e300]
        assert got.devices() == {npx.cpu(0)}
