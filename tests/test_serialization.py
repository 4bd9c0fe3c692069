"""framework.serialization against files written by MXNet 1.9.1, plus round trips, errors and atomicity."""

from __future__ import annotations

import io
import json
import os
import struct
import tracemalloc

import jax
import jax.numpy as jnp
import numpy as onp
import pytest

from framework import npx
from framework.serialization import ParamsFormatError, dumps, load, load_numpy, save, savez

FIXTURES = [
    "dtypes_nd.params", "list_nd.params", "np_scalar.params", "small_net_nd.params", "small_net_np.params",
    "sparse_nd.params", "small_net_export_nd-0000.params", "small_net_export_np-0000.params",
]
# Order of the names inside the files (the JSON lists them sorted), from the fixtures' README.
SMALL_NET_ORDER = ["0.weight", "0.bias", "1.gamma", "1.beta", "1.running_mean", "1.running_var", "3.weight",
                   "3.bias"]
EXPORT_ORDER = ["arg:conv0_weight", "arg:conv0_bias", "arg:batchnorm0_gamma", "arg:batchnorm0_beta",
                "aux:batchnorm0_running_mean", "aux:batchnorm0_running_var", "arg:dense0_weight",
                "arg:dense0_bias"]
ALL_DTYPES = ["float32", "float64", "float16", "uint8", "int32", "int8", "int64", "bool", "int16", "uint16",
              "uint32", "uint64", jnp.bfloat16]
V1, V2, V3 = 0xF993FAC8, 0xF993FAC9, 0xF993FACA


def _entry(e: dict) -> onp.ndarray:
    if "dense" in e:  # sparse fixtures give the dense float32 value
        return onp.array(e["dense"], dtype=onp.float32)
    return onp.array(e["data"], dtype=e["dtype"]).reshape(e["shape"])


def expected(params_dir, name: str):
    """The fixture's arrays from its JSON (export files reuse small_net's values via prefix_name)."""
    if "export" in name:
        arrays = json.loads((params_dir / "small_net_np.params.json").read_text())["arrays"]
        by_prefix = {e["prefix_name"]: _entry(e) for e in arrays.values()}
        return {k: by_prefix[k.split(":", 1)[1]] for k in EXPORT_ORDER}
    arrays = json.loads((params_dir / f"{name}.json").read_text())["arrays"]
    if isinstance(arrays, list):
        return [_entry(e) for e in arrays]
    if name.startswith("small_net"):
        return {k: _entry(arrays[k]) for k in SMALL_NET_ORDER}
    return {k: _entry(e) for k, e in arrays.items()}


def assert_bit_exact(got, want) -> None:
    assert type(got) is type(want)
    if isinstance(want, dict):
        assert list(got) == list(want)  # names and their order in the file
        pairs = [(got[k], want[k]) for k in want]
    else:
        assert len(got) == len(want)
        pairs = list(zip(got, want, strict=True))
    for g, w in pairs:
        g = onp.asarray(g)
        assert (g.dtype, g.shape) == (w.dtype, w.shape)
        assert g.tobytes() == w.tobytes()


def record(arr, magic: int = V3) -> bytes:
    """One dense NDArray record, built by hand from the documented layout."""
    arr = onp.asarray(arr)
    flag = {onp.dtype(d): i for i, d in enumerate(ALL_DTYPES)}[arr.dtype]
    return struct.pack(f"<Iii{arr.ndim}qiii", magic, 0, arr.ndim, *arr.shape, 1, 0, flag) + arr.tobytes()


def params_file(records: list[bytes], names: list[str] | None = None) -> bytes:
    out = struct.pack("<QQQ", 0x112, 0, len(records)) + b"".join(records)
    names = names or []
    out += struct.pack("<Q", len(names))
    return out + b"".join(struct.pack("<Q", len(n.encode())) + n.encode() for n in names)


# ---------------------------------------------------------------- files written by MXNet 1.9.1

@pytest.mark.parametrize("name", FIXTURES)
def test_mxnet_fixture_loads_bit_exactly(params_dir, name):
    path = params_dir / name
    want = expected(params_dir, name)
    assert_bit_exact(load_numpy(path), want)
    assert_bit_exact(load_numpy(path.read_bytes()), want)
    with jax.enable_x64(True):
        got = load(str(path))
        assert_bit_exact(got, want)
        values = got.values() if isinstance(got, dict) else got
        assert all(isinstance(v, jax.Array) and v.devices() == {npx.cpu(0)} for v in values)


def test_fixture_loads_in_32_bit_mode_like_jax(params_dir):
    got = load(params_dir / "dtypes_nd.params")
    for k, w in expected(params_dir, "dtypes_nd.params").items():
        canonical = w.astype(jax.dtypes.canonicalize_dtype(w.dtype))
        assert onp.asarray(got[k]).tobytes() == canonical.tobytes(), k


@pytest.mark.parametrize("name", ["small_net_np.params", "small_net_nd.params", "dtypes_nd.params",
                                  "list_nd.params", "np_scalar.params", "small_net_export_np-0000.params",
                                  "small_net_export_nd-0000.params"])
def test_writer_reproduces_mxnet_bytes(params_dir, tmp_path, name):
    """Arrays taken from the JSON (not from our reader), written back: MXNet's exact bytes."""
    fmt = "nd" if "_nd" in name else "np"
    data = expected(params_dir, name)
    original = (params_dir / name).read_bytes()
    assert dumps(data, format=fmt) == original
    as_jax = {k: jnp.asarray(v) if v.dtype.itemsize < 8 else v for k, v in data.items()} \
        if isinstance(data, dict) else data  # jax arrays where 32-bit JAX can hold them
    save(tmp_path / name, as_jax, format=fmt)
    assert (tmp_path / name).read_bytes() == original


def test_npx_save_load(tmp_path):
    path = str(tmp_path / "x.params")
    npx.save(path, {"a": jnp.arange(6.0).reshape(2, 3), "s": jnp.float32(2.0)})
    got = npx.load(path)
    assert list(got) == ["a", "s"] and got["s"].shape == () and float(got["s"]) == 2.0
    assert (tmp_path / "x.params").read_bytes()[24:28] == struct.pack("<I", V3)
    npx.save(path, jnp.ones(3))  # a single array is saved as a one-element list, as in MXNet
    assert [a.tolist() for a in npx.load(path)] == [[1.0, 1.0, 1.0]]


# ---------------------------------------------------------------- round trips

@pytest.mark.parametrize("fmt", ["np", "nd"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_round_trip_every_dtype(fmt, dtype):
    x = (onp.arange(-3, 9).reshape(3, 4) % 5).astype(dtype)
    blob = dumps({"x": x, "y": x[:, ::2]}, format=fmt)  # a non-contiguous view too
    got = load_numpy(blob)
    assert_bit_exact(got, {"x": x, "y": onp.ascontiguousarray(x[:, ::2])})
    assert blob[24:28] == struct.pack("<I", V3 if fmt == "np" else V2)


def test_round_trip_shapes_lists_and_jax_arrays():
    data = [onp.float32(3.5), onp.zeros((0, 3), onp.float32), jnp.arange(4, dtype=jnp.int8),
            onp.ones((1,) * 6)]
    got = load_numpy(dumps(data))
    assert [a.shape for a in got] == [(), (0, 3), (4,), (1,) * 6]
    assert got[0].tolist() == 3.5 and got[2].tolist() == [0, 1, 2, 3]
    assert load_numpy(dumps(onp.ones(2, onp.float16))) == [pytest.approx(onp.ones(2))]
    assert load_numpy(dumps([])) == [] and load_numpy(dumps({})) == []
    assert load_numpy(dumps({"ü/é": onp.ones(1, onp.float32)})).keys() == {"ü/é"}
    assert load_numpy(dumps([onp.array([True, False])]))[0].tolist() == [True, False]


def test_loaded_arrays_are_writable_and_independent_of_the_source():
    blob = dumps({"a": onp.ones(3, onp.float32), "b": onp.zeros(2, onp.float64)})
    got = load_numpy(blob)
    got["a"] += 1
    assert got["a"].tolist() == [2.0, 2.0, 2.0] and load_numpy(blob)["a"].tolist() == [1.0, 1.0, 1.0]


def test_savez_names_positional_arrays(tmp_path):
    savez(tmp_path / "z.params", onp.zeros(1, onp.float32), onp.ones(1, onp.float32), w=onp.ones(2))
    assert list(load_numpy(tmp_path / "z.params")) == ["w", "arr_0", "arr_1"]
    with pytest.raises(ValueError, match="positional argument 0 would be saved as 'arr_0'"):
        savez(tmp_path / "z.params", onp.zeros(1), arr_0=onp.ones(1))


# ---------------------------------------------------------------- writer errors

def test_writer_rejects_what_mxnet_cannot_hold(tmp_path):
    with pytest.raises(ValueError, match=r"array 's' is a 0-d scalar, which format='nd' \(V2\) cannot hold"):
        dumps({"s": onp.float32(1)}, format="nd")
    with pytest.raises(ValueError, match=r"array 0 has shape \(0, 3\); in format='nd'"):
        dumps([onp.zeros((0, 3))], format="nd")
    with pytest.raises(ValueError, match="format='v3' is not supported; use 'np'"):
        save(tmp_path / "f.params", [], format="v3")
    with pytest.raises(TypeError, match=r"dict keys are array names and must be str; got 0 \(int\)"):
        dumps({0: onp.ones(1)})
    with pytest.raises(TypeError, match="array 'c' has dtype complex64, which MXNet's format cannot hold"):
        dumps({"c": onp.ones(1, onp.complex64)})
    with pytest.raises(TypeError, match="array 'p' is a float; expected an array"):
        dumps({"p": 1.5})
    with pytest.raises(TypeError, match="expected an array, a list of arrays or a dict"):
        dumps("weights")
    with pytest.raises(TypeError, match="file must be a path"):
        save(b"x.params", [])
    with pytest.raises(FileNotFoundError, match="does not exist; create it first"):
        save(tmp_path / "no" / "x.params", [])
    with pytest.raises(TypeError, match="traced value"):
        jax.jit(lambda x: dumps([x]) and x)(jnp.ones(2))
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------- atomic replacement

class _Exploding:
    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("conversion failed mid-way")


def test_failed_conversion_leaves_old_file_and_no_temp(tmp_path):
    path = tmp_path / "net.params"
    save(path, {"w": onp.ones(3, onp.float32)})
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match="conversion failed mid-way"):
        save(path, {"w": onp.zeros(3, onp.float32), "boom": _Exploding()})
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["net.params"]


def test_failed_replace_leaves_old_file_and_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "net.params"
    save(path, [onp.ones(3, onp.float32)])
    before = path.read_bytes()

    def refuse(src, dst):
        raise OSError("disk said no")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk said no"):
        save(path, [onp.zeros(3, onp.float32)])
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["net.params"]
    monkeypatch.undo()
    with pytest.raises(RuntimeError):
        save(tmp_path / "new.params", [_Exploding()])
    assert os.listdir(tmp_path) == ["net.params"]


def test_save_keeps_permissions_and_writes_through_symlinks(tmp_path):
    path = tmp_path / "net.params"
    save(path, [onp.ones(1, onp.float32)])
    os.chmod(path, 0o600)
    link = tmp_path / "link.params"
    link.symlink_to(path)
    save(link, [onp.zeros(1, onp.float32)])
    assert link.is_symlink() and (path.stat().st_mode & 0o777) == 0o600
    assert load_numpy(path)[0].tolist() == [0.0]


# ---------------------------------------------------------------- legacy formats and semantics

def test_v1_and_pre_v1_legacy_records():
    x = onp.arange(6, dtype=onp.float32).reshape(2, 3)
    v1 = struct.pack("<Iiqqiii", V1, 2, 2, 3, 1, 0, 0) + x.tobytes()
    pre = struct.pack("<IIIiii", 2, 2, 3, 1, 0, 0) + x.tobytes()
    got = load_numpy(params_file([v1, pre], ["v1", "pre"]))
    assert_bit_exact(got, {"v1": x, "pre": x})
    none_legacy = struct.pack("<I", 0)  # pre-V1 ndim 0: an undefined array
    assert load_numpy(params_file([none_legacy])) == [None]


def test_undefined_arrays_and_np_semantics():
    v2_none = struct.pack("<Iii", V2, 0, 0)  # V2: ndim 0 means "none"
    v3_none = struct.pack("<Iii", V3, 0, -1)  # V3: ndim -1 means "none", ndim 0 is a scalar
    got = load(params_file([v2_none, v3_none, record(onp.float32(2.0))], ["a", "b", "c"]))
    assert got["a"] is None and got["b"] is None and got["c"].shape == ()


def test_gpu_saved_arrays_load_on_cpu():
    blob = bytearray(params_file([record(onp.ones(2, onp.float32))]))
    struct.pack_into("<ii", blob, 24 + 12 + 8, 2, 1)  # dev_type gpu, dev_id 1
    assert load(bytes(blob))[0].devices() == {npx.cpu(0)}


def test_int64_out_of_int32_range_warns_in_32_bit_mode():
    blob = dumps({"step": onp.array([2**40], onp.int64)})
    with pytest.warns(UserWarning, match="array 'step' holds int64 values outside the int32 range, and "
                                         "they wrap"):
        load(blob)
    assert load_numpy(blob)["step"].tolist() == [2**40]


# ---------------------------------------------------------------- bad files

def _fails(blob, match, source="<bytes>"):
    with pytest.raises(ParamsFormatError, match=match) as info:
        load(blob)
    assert str(info.value).startswith(f"{source}: byte ")
    return info.value


def test_not_a_params_file(tmp_path):
    path = tmp_path / "net.params"
    path.write_bytes(b"hello, I am text")
    with pytest.raises(ParamsFormatError, match=r"net.params: byte 0: expected the NDArray-list magic 0x112"):
        load(path)
    _fails(b"PK\x03\x04" + bytes(40), r"not a readable .npz archive \(BadZipFile")
    _fails(b"\x80\x04\x95" + bytes(40), "pickle, which is never loaded")
    _fails(b"", "magic 0x112")


def test_truncated_and_corrupted_headers():
    good = params_file([record(onp.arange(4, dtype=onp.float32))], ["w"])
    for cut in range(len(good)):
        _fails(good[:cut], "truncated|magic|unexpected|name count")
    err = _fails(good[:-1], r"name 0 declares 1 bytes but only 0 bytes remain")
    assert err.offset == len(good) - 9
    _fails(good + b"\0", "1 unexpected bytes follow the names table")
    bad = bytearray(good)
    struct.pack_into("<i", bad, 24 + 4, 7)
    _fails(bytes(bad), r"array 0 has unknown storage type 7; expected 0 \(default\)")
    bad = bytearray(good)
    struct.pack_into("<i", bad, 24 + 28, 13)
    _fails(bytes(bad), r"array 0 has unknown type flag 13; expected one of float32 \(0\)")
    bad = bytearray(good)
    struct.pack_into("<I", bad, 24, 0xDEADBEEF)
    _fails(bytes(bad), "array 0 starts with 0xDEADBEEF, which is neither an array magic")
    _fails(params_file([record(onp.ones(1))] * 2, ["a", "a"]), r"name 1 \('a'\) appears twice")
    _fails(params_file([record(onp.ones(1))] * 2, ["a"]), "holds 2 arrays but declares 1 names")
    _fails(params_file([record(onp.ones(1))], ["x"])[:-1] + b"\xff", "name 0 is not valid UTF-8")


def test_hostile_sizes_fail_fast_without_allocating():
    tracemalloc.start()
    try:
        huge = struct.pack("<Iii2qiii", V3, 0, 2, 2**31, 2**31, 1, 0, 0) + bytes(96)  # 2**62 float32
        err = _fails(params_file([huge]), r"array 0 declares shape \(2147483648, 2147483648\) float32 = "
                                          r"18446744073709551616 bytes but only 104 bytes remain")
        assert err.offset == 24 + 40  # where the payload would start
        _fails(struct.pack("<QQQ", 0x112, 0, 2**63) + bytes(64), "declares 9223372036854775808 arrays")
        one = params_file([record(onp.ones(1))], ["a"])[:-9] + struct.pack("<Q", 2**64 - 1)
        _fails(one, "name 0 declares 18446744073709551615 bytes")
        _fails(params_file([struct.pack("<Iii", V3, 0, 2**31 - 1)]), "ndim 2147483647; expected 0..32")
        _fails(params_file([struct.pack("<Iiiq", V3, 0, 1, -5)]), r"is \(-5,\): extents must be >= 0")
        _fails(params_file([struct.pack("<Iii3qiii", V3, 0, 3, 2**40, 2**40, 0, 1, 0, 0)]), "too large")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_sparse_guards():
    def rsp(rows, idx, data_rows):
        head = struct.pack("<Iii2qi2qiiiii1q", V2, 1, 2, data_rows, 2, 2, rows, 2, 1, 0, 0, 6, 1, len(idx))
        return head + onp.ones((data_rows, 2), onp.float32).tobytes() + onp.array(idx, onp.int64).tobytes()

    assert load_numpy(params_file([rsp(4, [1, 3], 2)]))[0].tolist() == [[0, 0], [1, 1], [0, 0], [1, 1]]
    _fails(params_file([rsp(4, [1, 4], 2)]), r"row indices outside \[0, 4\)")
    _fails(params_file([rsp(4, [1], 2)]), r"storage shape \(2, 2\) but its indices imply \(1, 2\)")
    _fails(params_file([rsp(2**40, [], 0)], ["r"]), r"array 0 \('r'\) is row_sparse with dense shape .* more "
                                                    r"than the default max_bytes=16777216 \(64 x the file's")
    assert load_numpy(params_file([rsp(2**24, [], 0)]), max_bytes=2**27)[0].shape == (2**24, 2)


def test_sources_devices_and_lenient_v2_empty(tmp_path):
    blob = dumps({"w": onp.arange(3, dtype=onp.float32)})
    (tmp_path / "w.params").write_bytes(blob)
    with open(tmp_path / "w.params", "rb") as f:
        assert load(f)["w"].tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(TypeError, match="returned str; open it in binary mode"):
        load(io.StringIO("text"))
    with pytest.raises(TypeError, match="expected a path .* got int"):
        load(3)
    assert load(blob, device="cpu:1")["w"].devices() == {npx.cpu(1)}
    v2_empty = struct.pack("<Iii2qiii", V2, 0, 2, 0, 3, 1, 0, 0)  # MXNet's nd mode: "undefined"
    assert load_numpy(params_file([v2_empty]))[0].shape == (0, 3)
