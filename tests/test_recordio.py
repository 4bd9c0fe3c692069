"""framework.recordio against files written and read by real MXNet 1.9.1 (tools/mxnet_reference/
gen_recordio.py): record for record both ways, byte-identical writing, multi-label headers, hostile files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as onp
import pytest

from framework import recordio

REF = Path(__file__).resolve().parent / "reference" / "recordio"
ROOT = Path(__file__).resolve().parents[1]
MX = os.environ.get("MXNET_PYTHON", "/tmp/mx/bin/python")


@pytest.fixture(scope="module")
def ref():
    d = onp.load(REF / "mx.npz")
    keys = [int(k) for k in d["keys"]]
    return d, keys, {k: d[f"raw{k}"].tobytes() for k in keys}


def test_mxnet_file_reads_record_for_record(ref):
    d, keys, raws = ref
    r = recordio.MXIndexedRecordIO(REF / "mx.idx", REF / "mx.rec", "r")
    assert r.keys == keys == [5, 2, 9, 10, 11, 12, 13, 1]
    for k in reversed(keys):  # random access, any order
        assert r.read_idx(k) == raws[k], k
    magic = b"\x0a\x23\xd7\xce"
    assert raws[5] == magic + b"abcd" + magic + b"xyz" + magic  # three parts joined back
    seq = recordio.MXRecordIO(REF / "seq.rec", "r")
    assert list(seq) == [raws[k] for k in keys]
    assert seq.read() is None


def test_headers_and_multi_label_unpack_as_mxnet(ref):
    d, _, raws = ref
    for k in (9, 10, 11):
        header, payload = recordio.unpack(raws[k])
        assert header.flag == int(d[f"flag{k}"])
        onp.testing.assert_array_equal(onp.asarray(header.label, onp.float32), d[f"label{k}"])
        assert [header.id, header.id2] == d[f"id{k}"].tolist()
        assert payload == d[f"payload{k}"].tobytes()
    header, _ = recordio.unpack(raws[10])
    assert header.flag == 3 and header.label.tolist() == [1.5, -2.0, 7.25] and header.id2 == 77
    # pack makes MXNet's bytes from the same header values
    assert recordio.pack(recordio.IRHeader(0, 3.0, 9, 0), b"hello world") == raws[9]
    assert recordio.pack(recordio.IRHeader(0, [1.5, -2.0, 7.25], 10, 77), b"multi") == raws[10]


def test_writer_is_byte_identical_to_mxnets(ref, tmp_path):
    _, keys, raws = ref
    w = recordio.MXIndexedRecordIO(tmp_path / "o.idx", tmp_path / "o.rec", "w")
    for k in keys:
        w.write_idx(k, raws[k])
    w.close()
    assert (tmp_path / "o.rec").read_bytes() == (REF / "mx.rec").read_bytes()
    assert (tmp_path / "o.idx").read_bytes() == (REF / "mx.idx").read_bytes()
    s = recordio.MXRecordIO(tmp_path / "s.rec", "w")
    for k in keys:
        s.write(raws[k])
    s.close()
    assert (tmp_path / "s.rec").read_bytes() == (REF / "seq.rec").read_bytes()


@pytest.mark.skipif(not os.path.exists(MX), reason="MXNet side venv not installed (byte identity above "
                    "covers this direction)")
def test_file_written_here_reads_in_mxnet(ref, tmp_path):
    _, keys, raws = ref
    w = recordio.MXIndexedRecordIO(tmp_path / "o.idx", tmp_path / "o.rec", "w")
    for k in keys:
        w.write_idx(k, raws[k])
    w.close()
    out = tmp_path / "mx_read.npz"
    subprocess.run([MX, "tools/mxnet_reference/gen_recordio.py", "--check-ours", str(tmp_path / "o.rec"),
                    str(tmp_path / "o.idx"), str(out)], cwd=ROOT, check=True, timeout=120)
    got = onp.load(out)
    assert [int(k) for k in got["keys"]] == keys
    for k in keys:
        assert got[f"raw{k}"].tobytes() == raws[k]


def test_images_decode_as_mxnet(ref):
    from framework import image

    d, _, raws = ref
    header, bgr = recordio.unpack_img(raws[11])
    assert header.label == 1.0 and header.id == 11
    onp.testing.assert_array_equal(bgr, d["png_bgr"])
    _, png = recordio.unpack(raws[11])
    onp.testing.assert_array_equal(image.imdecode(png), d["png_rgb"])
    onp.testing.assert_array_equal(image.imdecode(png, to_rgb=False), d["png_bgr"])
    gray = image.imdecode(png, flag=0)
    assert gray.shape == d["png_gray"].shape
    assert onp.abs(gray.astype(int) - d["png_gray"]).max() <= 1  # luma weights' rounding (Pillow vs OpenCV)


def test_pack_img_round_trip():
    rs = onp.random.RandomState(0)
    img = rs.randint(0, 256, (9, 11, 3)).astype(onp.uint8)
    header, out = recordio.unpack_img(recordio.pack_img(recordio.IRHeader(0, 2.0, 4, 0), img, img_fmt=".png"))
    onp.testing.assert_array_equal(out, img)
    smooth = onp.tile(onp.linspace(0, 255, 16, dtype=onp.uint8)[None, :, None], (16, 1, 3))
    _, jpg = recordio.unpack_img(recordio.pack_img(header, smooth, quality=95))
    assert jpg.shape == smooth.shape and onp.abs(jpg.astype(int) - smooth).max() <= 8


def _read_all(rec: Path, idx: Path | None = None):
    if idx is None:
        return list(recordio.MXRecordIO(rec, "r"))
    r = recordio.MXIndexedRecordIO(idx, rec, "r")
    return [r.read_idx(k) for k in r.keys]


def test_torn_and_hostile_records_name_the_offset(tmp_path):
    data = (REF / "seq.rec").read_bytes()
    for cut in (3, 9, 30, len(data) - 2):
        (tmp_path / "t.rec").write_bytes(data[:cut])
        with pytest.raises(recordio.RecordIOError, match=r"t.rec: record at byte offset \d+: (torn|length)"):
            _read_all(tmp_path / "t.rec")
    (tmp_path / "m.rec").write_bytes(b"\x00" * 8 + data)
    with pytest.raises(recordio.RecordIOError, match="offset 0: bad magic number 0x00000000"):
        _read_all(tmp_path / "m.rec")
    huge = b"\x0a\x23\xd7\xce" + (0x1FFFFFFF).to_bytes(4, "little")  # 512 MB claimed, 8 bytes present
    (tmp_path / "h.rec").write_bytes(huge)
    with pytest.raises(recordio.RecordIOError, match="length 536870911 runs past the end of the file"):
        _read_all(tmp_path / "h.rec")
    lone_middle = b"\x0a\x23\xd7\xce" + (2 << 29).to_bytes(4, "little")
    (tmp_path / "c.rec").write_bytes(lone_middle)
    with pytest.raises(recordio.RecordIOError, match="continuation flag 2 at the start of a record"):
        _read_all(tmp_path / "c.rec")
    shutil.copy(REF / "mx.rec", tmp_path / "i.rec")
    for text, match in (("5\t99999\n", "offset 99999 is not a record start"), ("5\tx\n", "not a number"),
                        ("5 0\n", "expected 'key<TAB>offset'"), ("5\t6\n", "offset 6 is not a record start")):
        (tmp_path / "i.idx").write_text(text)
        with pytest.raises(recordio.RecordIOError, match=match):
            _read_all(tmp_path / "i.rec", tmp_path / "i.idx")
    with pytest.raises(recordio.RecordIOError, match="header says 3 labels"):
        recordio.unpack(recordio.pack(recordio.IRHeader(0, [1.0, 2.0, 3.0], 0, 0), b"")[:30])
    with pytest.raises(recordio.RecordIOError, match="at least 24 bytes"):
        recordio.unpack(b"abc")


def test_seeded_mutations_give_records_or_typed_errors(tmp_path):
    """Byte flips, cuts and splices of a real file: every read ends in records or a RecordIOError."""
    data = bytearray((REF / "seq.rec").read_bytes())
    rs = onp.random.RandomState(1234)
    outcomes = {"ok": 0, "error": 0}
    for trial in range(300):
        m = bytearray(data)
        kind = trial % 3
        if kind == 0:
            for _ in range(rs.randint(1, 4)):
                m[rs.randint(len(m))] = rs.randint(256)
        elif kind == 1:
            m = m[:rs.randint(len(m))]
        else:
            a, b = sorted(rs.randint(len(m), size=2))
            m = m[:a] + m[b:] + m[a:b]
        path = tmp_path / "f.rec"
        path.write_bytes(bytes(m))
        try:
            recs = _read_all(path)
            assert sum(len(r) for r in recs) <= len(m)
            outcomes["ok"] += 1
        except recordio.RecordIOError:
            outcomes["error"] += 1
    assert outcomes["ok"] > 0 and outcomes["error"] > 0


def test_pickled_reader_opens_its_own_handle():
    import pickle

    r = recordio.MXIndexedRecordIO(REF / "mx.idx", REF / "mx.rec", "r")
    r.read_idx(9)
    clone = pickle.loads(pickle.dumps(r))
    assert clone._file is None and clone.read_idx(1) == b"abc" and r.read_idx(1) == b"abc"
    assert clone._file is not r._file


def test_writer_refuses_to_read_and_reader_to_write(tmp_path):
    w = recordio.MXRecordIO(tmp_path / "w.rec", "w")
    with pytest.raises(RuntimeError, match="open for writing"):
        w.read()
    r = recordio.MXRecordIO(REF / "seq.rec", "r")
    with pytest.raises(RuntimeError, match="open for reading"):
        r.write(b"x")
    with pytest.raises(ValueError, match="flag='a' must be 'r'"):
        recordio.MXRecordIO(tmp_path / "x.rec", "a")
    with pytest.raises(KeyError, match="key 77 is not in"):
        recordio.MXIndexedRecordIO(REF / "mx.idx", REF / "mx.rec", "r").read_idx(77)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
