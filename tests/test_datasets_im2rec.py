"""``python -m datasets im2rec``: the list and the pass-through pack are byte-identical to MXNet 1.9.1's
im2rec on the same folder (tests/reference/recordio/images); re-encoded packing reads back."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as onp  # noqa: E402

from datasets import cli  # noqa: E402
from framework import image, recordio  # noqa: E402

REF = ROOT / "tests" / "reference" / "recordio"


def test_list_and_pass_through_pack_match_mxnets_im2rec(tmp_path, capsys):
    prefix = str(tmp_path / "im2rec")
    images = str(REF / "images")
    assert cli.main(["im2rec", "--list", "--recursive", prefix, images]) == 0
    assert Path(prefix + ".lst").read_bytes() == (REF / "im2rec.lst").read_bytes()
    assert cli.main(["im2rec", "--pass-through", prefix, images]) == 0
    assert Path(prefix + ".rec").read_bytes() == (REF / "im2rec.rec").read_bytes()
    assert Path(prefix + ".idx").read_bytes() == (REF / "im2rec.idx").read_bytes()
    assert "packed 5 images" in capsys.readouterr().out


def test_reencoded_pack_with_resize_reads_back(tmp_path):
    shutil.copy(REF / "im2rec.lst", tmp_path / "x.lst")
    prefix = str(tmp_path / "x")
    assert cli.main(["im2rec", "--encoding", ".png", "--resize", "8", prefix, str(REF / "images")]) == 0
    r = recordio.MXIndexedRecordIO(prefix + ".idx", prefix + ".rec", "r")
    lines = [line.split("\t") for line in (REF / "im2rec.lst").read_text().splitlines()]
    assert r.keys == [int(line[0]) for line in lines]
    for idx, label, path in lines:
        header, img = recordio.unpack_img(r.read_idx(int(idx)))
        src = image.imread(REF / "images" / path.strip())
        assert header.label == float(label) and header.id == int(idx)
        h, w = src.shape[:2]
        new_h, new_w = (h * 8 // w, 8) if h > w else (8, w * 8 // h)  # shorter edge to 8 (MXNet's rule)
        assert img.shape == (new_h, new_w, 3)
        flat = image.imresize(src[:, :, ::-1], new_w, new_h)  # BGR in the record, like OpenCV's
        onp.testing.assert_array_equal(img, flat)


def test_missing_root_and_lists_are_reported(tmp_path, capsys):
    assert cli.main(["im2rec", str(tmp_path / "p"), str(tmp_path / "nope")]) == 2
    assert "is not a directory" in capsys.readouterr().err
    assert cli.main(["im2rec", str(tmp_path / "p"), str(REF / "images")]) == 1
    assert "make one with --list first" in capsys.readouterr().err
