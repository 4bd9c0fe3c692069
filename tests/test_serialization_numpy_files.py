"""npx.save / npx.savez / npx.load with NumPy's .npy and .npz (MXNet 2.0's format; issue 18 item 9)."""

from __future__ import annotations

import io
import zipfile

import jax.numpy as jnp
import numpy as onp
import pytest

from framework import np, npx
from framework.serialization import ParamsFormatError, default_max_bytes, load, load_numpy


def test_npx_save_to_npy_is_read_by_numpy(tmp_path):
    a = onp.arange(6, dtype=onp.float32).reshape(2, 3)
    npx.save(str(tmp_path / "a.npy"), np.array(a))
    assert onp.load(tmp_path / "a.npy").tolist() == a.tolist()
    got = npx.load(str(tmp_path / "a.npy"))
    assert isinstance(got, list) and got[0].tolist() == a.tolist()
    npx.save(str(tmp_path / "a.bin"), a, format="npy")
    assert onp.load(tmp_path / "a.bin").dtype == onp.float32


def test_npx_savez_to_npz_is_read_by_numpy(tmp_path):
    path = tmp_path / "b.npz"
    npx.savez(str(path), onp.ones(2, onp.float32), w=np.arange(3))
    with onp.load(path) as data:
        assert sorted(data.files) == ["arr_0", "w"] and data["w"].tolist() == [0, 1, 2]
    assert {k: v.tolist() for k, v in npx.load(str(path)).items()} == {"w": [0, 1, 2], "arr_0": [1.0, 1.0]}
    with zipfile.ZipFile(path) as z:
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_STORED}


def test_other_names_keep_mxnet_1_9_params(tmp_path):
    npx.savez(str(tmp_path / "c.params"), onp.ones(2, onp.float32))
    assert (tmp_path / "c.params").read_bytes()[:8] == (0x112).to_bytes(8, "little")
    npx.save(str(tmp_path / "d.params"), {"w": onp.ones(2, onp.float32)})
    assert list(npx.load(str(tmp_path / "d.params"))) == ["w"]


def test_numpy_written_files_load(tmp_path):
    a = onp.arange(6, dtype=">i4").reshape(2, 3)
    onp.save(tmp_path / "f.npy", onp.asfortranarray(a))
    got = load_numpy(str(tmp_path / "f.npy"))[0]
    assert got.tolist() == a.tolist() and got.dtype == onp.int32
    onp.savez_compressed(tmp_path / "z.npz", x=onp.zeros((100, 100), onp.float16), y=onp.array(True))
    got = load(str(tmp_path / "z.npz"))
    assert got["x"].shape == (100, 100) and got["y"].dtype == jnp.bool_


def test_what_is_refused(tmp_path):
    onp.save(tmp_path / "o.npy", onp.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ParamsFormatError, match=r"o.npy: byte 0: the .npy array has dtype object; .* pickle"):
        load(str(tmp_path / "o.npy"))
    with pytest.raises(TypeError, match=r"format 'npy' holds one array .* got dict"):
        npx.save(str(tmp_path / "x.npy"), {"a": onp.ones(1)})
    with pytest.raises(TypeError, match="bfloat16, which .npy cannot describe"):
        npx.save(str(tmp_path / "x.npy"), jnp.ones(2, jnp.bfloat16))
    with pytest.raises(ValueError, match="format='npz' is not supported"):
        npx.save(str(tmp_path / "x.bin"), onp.ones(1), format="npz")


def test_a_compressed_npz_bomb_is_refused_before_inflating():
    buf = io.BytesIO()
    onp.savez_compressed(buf, x=onp.zeros(2**28, onp.float32))  # 1 MiB claiming 1 GiB
    left = default_max_bytes(len(buf.getvalue()))  # 64 x the file's ~1 MiB
    with pytest.raises(ParamsFormatError, match=rf"archive member 'x.npy' is compressed and declares "
                                                rf"1073741952 bytes, more than the {left} bytes left of "
                                                r"max_bytes"):
        load(buf.getvalue())


def test_truncated_and_mislabelled_numpy_files():
    blob = io.BytesIO()
    onp.save(blob, onp.ones((4, 4), onp.float64))
    data = blob.getvalue()
    with pytest.raises(ParamsFormatError, match=r"declares shape \(4, 4\) float64 = 128 bytes but only"):
        load(data[:-8])
    with pytest.raises(ParamsFormatError, match="8 unexpected bytes follow the array"):
        load(data + bytes(8))
    z = io.BytesIO()
    with zipfile.ZipFile(z, "w") as archive:
        archive.writestr("notes.txt", b"hello")
    with pytest.raises(ParamsFormatError, match=r"member 'notes.txt' is not a .npy file"):
        load(z.getvalue())
    with pytest.raises(ParamsFormatError, match=r"byte 0: not a readable .npz archive"):
        load(z.getvalue()[:30])
