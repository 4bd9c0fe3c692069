"""``python -m datasets``: fetch (local copy, download, archive), verify, where, prepare, the tfds copy.

Downloads come from a local HTTP server; catalogue entries are swapped for tiny synthetic ones whose
checksums the test computes, so the real verification code runs on every path.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import http.server
import io
import os
import struct
import subprocess
import sys
import tarfile
import threading
from pathlib import Path

import numpy as onp
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from datasets import cli  # noqa: E402
from framework.gluon import _download  # noqa: E402
from framework.gluon.data import vision  # noqa: E402
from framework.gluon.data.vision import catalogue  # noqa: E402


def _idx(array: onp.ndarray) -> bytes:
    return bytes([0, 0, 8, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape) + array.tobytes()


@pytest.fixture
def tiny_fashion(tmp_path, monkeypatch):
    """A 6+3-image Fashion-MNIST in the catalogue and as .gz files in tmp_path/'src'; nothing else found."""
    monkeypatch.setenv("FRAMEWORK_HOME", os.fspath(tmp_path / "home"))
    monkeypatch.setenv("TFDS_DATA_DIR", os.fspath(tmp_path / "tfds"))
    monkeypatch.setenv("MXNET_GLUON_REPO", "http://127.0.0.1:9/")  # never the real repository
    monkeypatch.setattr(_download, "PAUSE", 0.0)
    entry = copy.deepcopy(catalogue.CATALOGUE["fashion-mnist"])
    entry["debian"]["dir"] = os.fspath(tmp_path / "no-debian")
    src = tmp_path / "src"
    src.mkdir()
    rng = onp.random.default_rng(0)
    arrays = {}
    for name, spec in entry["files"].items():
        n = 6 if spec["split"] == "train" else 3
        arr = (rng.integers(0, 256, (n, 28, 28), dtype=onp.uint8) if spec["kind"] == "images"
               else rng.integers(0, 10, n).astype(onp.uint8))
        arrays[name] = arr
        raw = _idx(arr)
        gz = gzip.compress(raw, mtime=0)
        (src / f"{name}.gz").write_bytes(gz)
        spec.update(shape=list(arr.shape), size=len(raw), sha256=hashlib.sha256(raw).hexdigest(),
                    gz={"size": len(gz), "sha256": [hashlib.sha256(gz).hexdigest()]})
    monkeypatch.setitem(catalogue.CATALOGUE, "fashion-mnist", entry)
    return src, arrays


@pytest.fixture
def http_root(tmp_path):
    """An HTTP server on 127.0.0.1 serving tmp_path/'www'; yields its base URL."""
    www = tmp_path / "www"
    www.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=os.fspath(www), **kwargs)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield www, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_fetch_from_a_local_copy_then_load(tiny_fashion, capsys):
    src, arrays = tiny_fashion
    assert cli.main(["fetch", "fashion-mnist", "--from", os.fspath(src)]) == 0
    cache = Path(os.environ["FRAMEWORK_HOME"]) / "datasets" / "fashion-mnist"
    assert sorted(p.name for p in cache.iterdir()) == sorted(f"{n}.gz" for n in arrays)
    assert all(oct(p.stat().st_mode)[-3:] != "600" for p in cache.iterdir())
    ds = vision.FashionMNIST(train=False)
    onp.testing.assert_array_equal(ds[:][0][..., 0], arrays["t10k-images-idx3-ubyte"])
    assert cli.main(["fetch", "fashion-mnist", "--from", os.fspath(src)]) == 0
    assert "already in" in capsys.readouterr().out
    assert cli.main(["verify", "fashion-mnist"]) == 0
    assert cli.main(["where", "fashion-mnist"]) == 0
    out = capsys.readouterr().out
    assert "complete" in out and f"loads from {cache}" in out


def test_fetch_refuses_a_corrupt_copy_and_verify_names_it(tiny_fashion, tmp_path, capsys):
    src, _ = tiny_fashion
    bad = src / "train-labels-idx1-ubyte.gz"
    bad.write_bytes(gzip.compress(_idx(onp.full(6, 9, onp.uint8))))
    assert cli.main(["fetch", "fashion-mnist", "--from", os.fspath(src)]) == 1
    err = capsys.readouterr().err
    assert "could not get train-labels-idx1-ubyte" in err and "checksum mismatch" in err
    cache = Path(os.environ["FRAMEWORK_HOME"]) / "datasets" / "fashion-mnist"
    assert not (cache / "train-labels-idx1-ubyte.gz").exists()
    assert not [p for p in cache.iterdir() if p.name.endswith(".part")]  # nothing half-written is left
    assert cli.main(["verify", "fashion-mnist", "--dir", os.fspath(src)]) == 1
    out = capsys.readouterr().out
    assert "BAD train-labels-idx1-ubyte" in out and "ok  train-images-idx3-ubyte" in out


def test_download_tries_each_mirror_and_verifies(tiny_fashion, http_root, monkeypatch, capsys):
    src, _ = tiny_fashion
    www, base = http_root
    (www / "good").mkdir()
    (www / "bad").mkdir()
    for f in src.iterdir():
        (www / "good" / f.name).write_bytes(f.read_bytes())
        (www / "bad" / f.name).write_bytes(b"<html>moved</html>")
    entry = catalogue.CATALOGUE["fashion-mnist"]
    monkeypatch.setitem(entry, "urls", [base + "missing/", base + "bad/", base + "good/"])
    dest = Path(os.environ["FRAMEWORK_HOME"]) / "elsewhere"
    assert cli.main(["fetch", "fashion-mnist", "--dir", os.fspath(dest)]) == 0
    out = capsys.readouterr().out
    assert out.count("from " + base + "good/") == 4 and "from " + base + "missing/" in out
    assert out.count("from http://127.0.0.1:9/gluon/dataset/fashion-mnist/") == 1  # not reached: skipped
    assert len(vision.FashionMNIST(root=dest)) == 6


def test_fetch_downloads_from_mxnet_gluon_repo_first(tiny_fashion, http_root, monkeypatch, capsys):
    """The same code as the dataset classes: MXNet's repository layout, then the mirrors."""
    src, _ = tiny_fashion
    www, base = http_root
    repo = www / "repo" / "gluon" / "dataset" / "fashion-mnist"
    repo.mkdir(parents=True)
    for f in src.iterdir():
        (repo / f.name).write_bytes(f.read_bytes())
    monkeypatch.setenv("MXNET_GLUON_REPO", base + "repo")
    monkeypatch.setitem(catalogue.CATALOGUE["fashion-mnist"], "urls", [base + "never/"])
    assert cli.main(["fetch", "fashion-mnist"]) == 0
    out = capsys.readouterr().out
    assert out.count("from " + base + "repo/gluon/dataset/fashion-mnist/") == 4 and "never/" not in out
    assert len(vision.FashionMNIST(train=True)) == 6


def test_download_without_network_says_how_to_copy(tiny_fashion, monkeypatch, capsys):
    monkeypatch.setitem(catalogue.CATALOGUE["fashion-mnist"], "urls", ["http://127.0.0.1:9/"])
    monkeypatch.setattr(_download, "TIMEOUT", 2.0)
    assert cli.main(["fetch", "fashion-mnist"]) == 1
    err = capsys.readouterr().err
    assert "http://127.0.0.1:9/train-images-idx3-ubyte.gz" in err and "--from DIR here" in err
    assert "http://127.0.0.1:9/gluon/dataset/fashion-mnist/train-images-idx3-ubyte.gz" in err


def test_prepare_extracts_a_cifar_archive(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FRAMEWORK_HOME", os.fspath(tmp_path / "home"))
    entry = copy.deepcopy(catalogue.CATALOGUE["cifar10"])
    rng = onp.random.default_rng(1)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, spec in entry["files"].items():
            rec = rng.integers(0, 256, (2, 3073), dtype=onp.uint8)
            rec[:, 0] %= 10
            raw = rec.tobytes()
            spec.update(records=2, size=len(raw), sha1=hashlib.sha1(raw).hexdigest())
            info = tarfile.TarInfo(f"cifar-10-batches-bin/{name}")
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))
    archive = buf.getvalue()
    entry["archive"].update(size=len(archive), sha256=hashlib.sha256(archive).hexdigest())
    monkeypatch.setitem(catalogue.CATALOGUE, "cifar10", entry)
    src = tmp_path / "usb"
    src.mkdir()
    (src / "cifar-10-binary.tar.gz").write_bytes(archive)
    assert cli.main(["prepare", "cifar10", "--from", os.fspath(src)]) == 0
    out = capsys.readouterr().out
    assert "train: 10 samples of (32, 32, 3) read back" in out and "test: 2 samples" in out
    assert len(vision.CIFAR10()) == 10


def test_tfds_copy_is_found_by_the_dataset_class(tiny_fashion):
    from datasets.tfds_copy import build

    _, arrays = tiny_fashion
    splits = {"train": (arrays["train-images-idx3-ubyte"][..., None], arrays["train-labels-idx1-ubyte"]),
              "test": (arrays["t10k-images-idx3-ubyte"][..., None], arrays["t10k-labels-idx1-ubyte"])}
    build("fashion-mnist", splits, Path(os.environ["TFDS_DATA_DIR"]))
    ds = vision.FashionMNIST(train=True)  # no files anywhere else: the tensorflow-datasets copy
    assert "fashion_mnist" in ds.source and len(ds) == 6 and ds[0][0].shape == (28, 28, 1)
    pairs = sorted((img.tobytes(), int(label)) for img, label in zip(*ds[:], strict=True))
    want = sorted((img.tobytes(), int(label)) for img, label in zip(*splits["train"], strict=True))
    assert pairs == want  # the same samples, in tensorflow-datasets' order


def test_module_entry_point_lists_the_catalogue():
    out = subprocess.run([sys.executable, "-m", "datasets", "list"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "fashion-mnist" in out.stdout and "MIT" in out.stdout and "cifar100" in out.stdout
