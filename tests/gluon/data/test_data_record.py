"""RecordFileDataset / ImageRecordDataset over an im2rec file made by MXNet 1.9.1, and the DataLoader
feeding from it with worker processes (each opens its own file handle)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as onp
from record_helpers import PadTo

from framework import image, recordio
from framework.gluon import data
from framework.gluon.data.vision import ImageRecordDataset

REF = Path(__file__).resolve().parents[2] / "reference" / "recordio"


def _expected():
    """(image, label) per .lst line, decoded from the image folder itself."""
    lines = [line.split("\t") for line in (REF / "im2rec.lst").read_text().splitlines()]
    return [(image.imread(REF / "images" / p.strip()), float(label)) for _, label, p in lines]


def test_record_file_dataset_gives_the_raw_records():
    ds = data.RecordFileDataset(REF / "mx.rec")
    r = recordio.MXIndexedRecordIO(REF / "mx.idx", REF / "mx.rec", "r")
    assert len(ds) == 8 and [ds[i] for i in range(8)] == [r.read_idx(k) for k in r.keys]


def test_image_record_dataset_reads_mxnets_im2rec_file():
    ds = ImageRecordDataset(REF / "im2rec.rec")
    want = _expected()
    assert len(ds) == len(want) == 5
    for i, (img, label) in enumerate(want):
        got, got_label = ds[i]
        onp.testing.assert_array_equal(got, img)
        assert got_label == label and got_label.dtype == onp.float32
    gray, _ = ImageRecordDataset(REF / "im2rec.rec", flag=0)[0]
    assert gray.shape == want[0][0].shape[:2] + (1,)


def test_dataloader_workers_read_the_rec_file():
    ds = ImageRecordDataset(REF / "im2rec.rec", transform=PadTo(8, 6))
    serial = [[onp.asarray(a) for a in b] for b in data.DataLoader(ds, 2)]
    loader = data.DataLoader(ds, 2, num_workers=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to threads: the dataset pickles to processes
        workers = [[onp.asarray(a) for a in b] for b in loader]
    assert len(loader._worker_pool.pids) == 2
    assert len(serial) == len(workers) == 3
    for (xa, ya), (xb, yb) in zip(serial, workers, strict=True):
        onp.testing.assert_array_equal(xa, xb)
        onp.testing.assert_array_equal(ya, yb)
