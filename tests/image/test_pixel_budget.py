"""The pixel budget: a decompression bomb (a 311 KB PNG of 1 x 80,000,000 pixels) is refused from its
header through imdecode, imread and ImageRecordDataset; resizes above the budget are refused; the budget
is overridable per process and per call."""

from __future__ import annotations

import struct
import zlib

import numpy as onp
import pytest

from framework import image, recordio
from framework.gluon.data.vision import ImageRecordDataset, transforms


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


@pytest.fixture(scope="module")
def bomb() -> bytes:
    """A real, complete PNG: 1 x 80,000,000 gray pixels, every row (filter byte + pixel) zero."""
    w, h = 1, 80_000_000
    comp = zlib.compressobj(9)
    row_block = b"\0" * (2 * 1_000_000)
    idat = b"".join(comp.compress(row_block) for _ in range(h // 1_000_000)) + comp.flush()
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + _chunk(b"IDAT", idat) + _chunk(b"IEND", b""))


def test_bomb_refused_from_the_header(bomb):
    assert len(bomb) < 400_000
    with pytest.raises(ValueError, match=r"a 1x80000000 \(width x height\) image costs 1360000000 pixels, "
                                         r"above the image pixel budget of 33554432"):
        image.imdecode(bomb)


def test_bomb_refused_through_imread_and_image_record_dataset(bomb, tmp_path):
    p = tmp_path / "bomb.png"
    p.write_bytes(bomb)
    with pytest.raises(ValueError, match="pixel budget"):
        image.imread(str(p))
    w = recordio.MXIndexedRecordIO(str(tmp_path / "x.idx"), str(tmp_path / "x.rec"), "w")
    w.write_idx(0, recordio.pack(recordio.IRHeader(0, 1.0, 0, 0), bomb))
    w.close()
    with pytest.raises(ValueError, match="pixel budget"):
        ImageRecordDataset(str(tmp_path / "x.rec"))[0]


def test_budget_is_overridable_per_process_and_per_call():
    png = image._codec.encode(onp.zeros((20, 30, 3), onp.uint8), img_fmt=".png")
    assert image.imdecode(png).shape == (20, 30, 3)
    with pytest.raises(ValueError, match="budget of 100"):
        image.imdecode(png, max_pixels=100)
    old = image.set_max_pixels(30 * 20 + 16 * 20)  # exactly the cost: allowed
    try:
        assert image.imdecode(png).shape == (20, 30, 3)
        image.set_max_pixels(30 * 20 + 16 * 20 - 1)
        with pytest.raises(ValueError, match="pixel budget"):
            image.imdecode(png)
        assert image.imdecode(png, max_pixels=10**6).shape == (20, 30, 3)
    finally:
        image.set_max_pixels(old)
    with pytest.raises(ValueError, match="positive int"):
        image.set_max_pixels(0)


def test_resizes_above_the_budget_are_refused():
    img = onp.zeros((4, 4, 3), onp.uint8)
    with pytest.raises(ValueError, match=r"imresize: a 100000x100000"):
        image.imresize(img, 100_000, 100_000)
    with pytest.raises(ValueError, match=r"resize: a 100000x100000"):
        transforms.Resize((100_000, 100_000))(img)
    assert image.imresize(img, 8, 8).shape == (8, 8, 3)
