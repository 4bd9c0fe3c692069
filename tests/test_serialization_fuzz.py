"""Hostile input: mutated and truncated MXNet files either load or raise ParamsFormatError, nothing else."""

from __future__ import annotations

import struct
import warnings
from pathlib import Path

import jax
import numpy as onp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from framework.serialization import ParamsFormatError, load, load_numpy

PARAMS = Path(__file__).resolve().parent / "reference" / "params"  # tools/mxnet_reference/gen_params.py
NAMES = ["dtypes_nd.params", "list_nd.params", "np_scalar.params", "small_net_nd.params",
         "small_net_np.params", "sparse_nd.params", "small_net_export_nd-0000.params",
         "small_net_export_np-0000.params"]
HUGE = [2**31 - 1, 2**31, 2**32 - 1, 2**40, 2**62, 2**63 - 1, 2**64 - 1, 0xF993FACA]


@pytest.fixture(scope="module")
def fixtures() -> dict[str, bytes]:
    missing = [n for n in NAMES if not (PARAMS / n).exists()]
    if missing:
        pytest.fail(f"MXNet fixtures missing from {PARAMS}: {missing}")
    return {n: (PARAMS / n).read_bytes() for n in NAMES}


def _check(result) -> None:
    """What a successful load may return: a dict or list of jax arrays (or None for undefined arrays)."""
    assert isinstance(result, (dict, list))
    values = result.values() if isinstance(result, dict) else result
    assert all(v is None or isinstance(v, (jax.Array, onp.ndarray)) for v in values)
    if isinstance(result, dict):
        assert all(isinstance(k, str) for k in result)


def _load_or_reject(blob: bytes, loader=load) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # int64 values out of the 32-bit range are a warning, not an error
        try:
            result = loader(blob)
        except ParamsFormatError as err:
            assert str(err).startswith("<bytes>: byte ")
            return
    _check(result)


def _mutate(data: bytearray, op: tuple) -> None:
    kind, pos = op[0], op[1] % (len(data) + 1)
    if kind == "flip" and pos < len(data):
        data[pos] ^= op[2]
    elif kind == "insert":
        data[pos:pos] = op[2]
    elif kind == "delete":
        del data[pos:pos + op[2]]
    elif kind == "size":  # a size field (u32/u64 at an aligned offset) replaced by a huge value
        value, width = op[2], op[3]
        pos -= pos % 4
        packed = struct.pack("<Q", value)[:width] if width == 8 else struct.pack("<I", value & 0xFFFFFFFF)
        data[pos:pos + width] = packed
    elif kind == "truncate":
        del data[pos:]


_positions = st.integers(0, 1 << 12)
_mutation = st.one_of(
    st.tuples(st.just("flip"), _positions, st.integers(1, 255)),
    st.tuples(st.just("insert"), _positions, st.binary(min_size=1, max_size=16)),
    st.tuples(st.just("delete"), _positions, st.integers(1, 16)),
    st.tuples(st.just("size"), _positions, st.sampled_from(HUGE), st.sampled_from([4, 8])),
    st.tuples(st.just("truncate"), _positions),
)


@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES), ops=st.lists(_mutation, min_size=1, max_size=4))
def test_mutated_files_load_or_raise_params_format_error(fixtures, name, ops):
    data = bytearray(fixtures[name])
    for op in ops:
        _mutate(data, op)
    _load_or_reject(bytes(data))


@pytest.mark.parametrize("name", NAMES)
def test_every_truncation_is_rejected(fixtures, name):
    blob = fixtures[name]
    for cut in range(len(blob)):
        with pytest.raises(ParamsFormatError):
            load_numpy(blob[:cut])


@pytest.mark.parametrize("name", NAMES)
def test_every_single_byte_flip_loads_or_is_rejected(fixtures, name):
    blob = fixtures[name]
    for pos in range(len(blob)):
        data = bytearray(blob)
        data[pos] ^= 0xFF
        _load_or_reject(bytes(data), load_numpy)


def test_header_claiming_2_pow_62_elements_fails_fast(fixtures):
    """Overwrite small_net's first extent so the array claims 2**62 float32s: rejected before allocating."""
    data = bytearray(fixtures["small_net_np.params"])
    struct.pack_into("<q", data, 24 + 12, 2**62)  # first dim of array 0 (shape (2, 1, 3, 3))
    with pytest.raises(ParamsFormatError, match=r"array 0 declares shape \(4611686018427387904, 1, 3, 3\) "
                                                r"float32 = 166020696663385964544 bytes but only \d+ bytes"):
        load(bytes(data))
