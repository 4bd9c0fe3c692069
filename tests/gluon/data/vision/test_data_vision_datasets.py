"""Vision datasets: where they are looked for, IDX/CIFAR reading, verification, the real files."""

from __future__ import annotations

import gzip
import os
import struct
from pathlib import Path

import jax
import numpy as onp
import pytest

from framework import np
from framework.gluon import data
from framework.gluon.data.vision import catalogue

vision = data.vision


def write_idx(path: Path, array: onp.ndarray, gz: bool = True, cut: int = 0) -> Path:
    raw = bytes([0, 0, 8, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape) + array.tobytes()
    raw = raw[:len(raw) - cut]
    if gz:
        path = path.with_name(path.name + ".gz")
        path.write_bytes(gzip.compress(raw, compresslevel=1))
    else:
        path.write_bytes(raw)
    return path


def fake_mnist(d: Path, n: int = 7, split: str = "train", gz: bool = True, size: int = 28) -> tuple:
    d.mkdir(parents=True, exist_ok=True)
    prefix = "train" if split == "train" else "t10k"
    rng = onp.random.default_rng(n)
    images = rng.integers(0, 256, (n, size, size), dtype=onp.uint8)
    labels = rng.integers(0, 10, n).astype(onp.uint8)
    write_idx(d / f"{prefix}-images-idx3-ubyte", images, gz)
    write_idx(d / f"{prefix}-labels-idx1-ubyte", labels, gz)
    return images, labels


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """No user cache, no Debian package, no tensorflow-datasets: only what a test puts there."""
    monkeypatch.setenv("FRAMEWORK_HOME", os.fspath(tmp_path / "home"))
    monkeypatch.setenv("TFDS_DATA_DIR", os.fspath(tmp_path / "tfds"))
    monkeypatch.setitem(catalogue.CATALOGUE["fashion-mnist"], "debian",
                        {"package": "dataset-fashion-mnist", "dir": os.fspath(tmp_path / "debian")})
    return tmp_path


def test_synthetic_idx_items_slices_and_transform(isolated):
    images, labels = fake_mnist(isolated / "fm")
    ds = vision.FashionMNIST(root=isolated / "fm", verify=False)
    assert len(ds) == 7
    img, label = ds[3]
    assert img.shape == (28, 28, 1) and img.dtype == onp.uint8 and label.dtype == onp.int32
    onp.testing.assert_array_equal(img[..., 0], images[3])
    xs, ys = ds[0:4]
    assert xs.shape == (4, 28, 28, 1) and ys.tolist() == labels[:4].tolist()
    flipped = vision.FashionMNIST(root=isolated / "fm", transform=lambda x, y: (x[::-1], y + 100),
                                  verify=False)
    assert flipped[0][1] == labels[0] + 100
    test_images, _ = fake_mnist(isolated / "fm", n=3, split="test", gz=False)
    test_ds = vision.FashionMNIST(isolated / "fm", train=False, verify=False)
    onp.testing.assert_array_equal(test_ds[2][0][..., 0], test_images[2])


def test_lookup_order_root_then_cache(isolated):
    fake_mnist(isolated / "home" / "datasets" / "fashion-mnist", n=5)
    assert len(vision.FashionMNIST(verify=False)) == 5
    fake_mnist(isolated / "explicit", n=6)
    assert len(vision.FashionMNIST(root=isolated / "explicit", verify=False)) == 6
    assert len(vision.FashionMNIST(root=isolated / "empty", verify=False)) == 5  # a missing root: next place
    fake_mnist(isolated / "debian", n=4)
    (isolated / "home" / "datasets" / "fashion-mnist" / "train-images-idx3-ubyte.gz").unlink()
    ds = vision.FashionMNIST(verify=False)
    assert len(ds) == 4 and ds.source == os.fspath(isolated / "debian")


def test_not_found_lists_every_place_and_the_fixes(isolated):
    with pytest.raises(vision.DatasetNotFoundError) as err:
        vision.FashionMNIST(root=isolated / "nowhere")
    msg = str(err.value)
    for part in ("train-images-idx3-ubyte(.gz)", f"root='{isolated / 'nowhere'}'", "no such directory",
                 os.fspath(isolated / "home" / "datasets" / "fashion-mnist"),
                 "Debian's dataset-fashion-mnist", "tensorflow-datasets 'fashion_mnist'", "not prepared",
                 "apt-get install dataset-fashion-mnist", "python -m datasets fetch fashion-mnist",
                 "--from DIR", "FRAMEWORK_HOME"):
        assert part in msg, part
    assert isinstance(err.value, FileNotFoundError)
    fake_mnist(isolated / "half", n=3)
    (isolated / "half" / "train-labels-idx1-ubyte.gz").unlink()
    with pytest.raises(vision.DatasetNotFoundError, match=r"half: missing train-labels-idx1-ubyte\(\.gz\)"):
        vision.FashionMNIST(root=isolated / "half")


def test_corrupt_files_are_named(isolated):
    d = isolated / "bad"
    fake_mnist(d, n=4)
    img = d / "train-images-idx3-ubyte.gz"
    img.write_bytes(img.read_bytes()[:-20])
    with pytest.raises(vision.DataFileError, match=rf"{img}: not a complete gzip file.*truncated"):
        vision.FashionMNIST(root=d, verify=False)
    write_idx(d / "train-images-idx3-ubyte", onp.zeros((4, 28, 28), onp.uint8), gz=True, cut=100)
    with pytest.raises(vision.DataFileError, match=r"truncated: the IDX header gives shape \(4, 28, 28\)"):
        vision.FashionMNIST(root=d, verify=False)
    img.write_bytes(gzip.compress(b"<html>not found</html>"))
    with pytest.raises(vision.DataFileError, match=r"not an IDX file of unsigned bytes \(magic 0x3c68746d"):
        vision.FashionMNIST(root=d, verify=False)
    write_idx(d / "train-images-idx3-ubyte", onp.zeros((5, 28, 28), onp.uint8))
    with pytest.raises(vision.DataFileError, match="holds 5 images but 4 labels"):
        vision.FashionMNIST(root=d, verify=False)
    write_idx(d / "train-images-idx3-ubyte", onp.zeros((4,), onp.uint8))
    with pytest.raises(vision.DataFileError, match="IDX rank 1, expected 3"):
        vision.FashionMNIST(root=d, verify=False)


def test_verification_checks_shape_and_decompressed_checksum(isolated):
    d = isolated / "v"
    fake_mnist(d, n=4)
    with pytest.raises(vision.DataFileError, match=r"shape \(4, 28, 28\), expected \(60000, 28, 28\)"):
        vision.FashionMNIST(root=d)
    write_idx(d / "t10k-images-idx3-ubyte", onp.zeros((10000, 28, 28), onp.uint8), gz=False)
    write_idx(d / "t10k-labels-idx1-ubyte", onp.zeros((10000,), onp.uint8), gz=False)
    with pytest.raises(vision.DataFileError, match=r"t10k-images-idx3-ubyte: checksum mismatch: sha256 of "
                                                   r"the content is [0-9a-f]{64}, expected 5b4141f0"):
        vision.FashionMNIST(root=d, train=False)


def test_cifar_binary_batches(isolated):
    d = isolated / "cifar" / "cifar-10-batches-bin"
    d.mkdir(parents=True)
    rng = onp.random.default_rng(0)
    chw = {}
    for name in [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]:
        rec = rng.integers(0, 256, (3, 3073), dtype=onp.uint8)
        rec[:, 0] = rng.integers(0, 10, 3)
        chw[name] = rec
        (d / name).write_bytes(rec.tobytes())
    ds = vision.CIFAR10(root=isolated / "cifar", verify=False)
    assert len(ds) == 15 and ds[0][0].shape == (32, 32, 3) and ds[0][1].dtype == onp.int32
    first = chw["data_batch_1.bin"][0]
    onp.testing.assert_array_equal(ds[0][0], first[1:].reshape(3, 32, 32).transpose(1, 2, 0))
    assert ds[0][1] == first[0]
    assert len(vision.CIFAR10(root=isolated / "cifar", train=False, verify=False)) == 3
    with pytest.raises(vision.DataFileError, match=r"data_batch_1.bin: 9219 bytes, expected 30730000"):
        vision.CIFAR10(root=isolated / "cifar")
    (d / "test_batch.bin").write_bytes(chw["test_batch.bin"].tobytes()[:-5])
    with pytest.raises(vision.DataFileError, match="not a whole number of 3073-byte CIFAR records"):
        vision.CIFAR10(root=isolated / "cifar", train=False, verify=False)


def test_cifar100_coarse_and_fine_labels(isolated):
    d = isolated / "c100"
    d.mkdir()
    rec = onp.zeros((2, 3074), onp.uint8)
    rec[:, 0], rec[:, 1] = [3, 4], [33, 44]
    (d / "train.bin").write_bytes(rec.tobytes())
    assert vision.CIFAR100(root=d, verify=False)[:][1].tolist() == [3, 4]
    assert vision.CIFAR100(root=d, fine_label=True, verify=False)[:][1].tolist() == [33, 44]


def test_image_folder_dataset(tmp_path):
    from PIL import Image

    for cls, colour in (("cat", (255, 0, 0)), ("dog", (0, 0, 255))):
        (tmp_path / cls).mkdir()
        Image.new("RGB", (5, 4), colour).save(tmp_path / cls / "a.png")
    (tmp_path / "dog" / "notes.txt").write_text("x")
    (tmp_path / "stray.png").write_bytes(b"")
    with pytest.warns(UserWarning, match="Ignoring"):
        ds = vision.ImageFolderDataset(tmp_path)
    assert ds.synsets == ["cat", "dog"] and [label for _, label in ds.items] == [0, 1]
    img, label = ds[1]
    assert img.shape == (4, 5, 3) and img[0, 0].tolist() == [0, 0, 255] and label == 1
    with pytest.warns(UserWarning):
        gray = vision.ImageFolderDataset(tmp_path, flag=0, transform=lambda x, y: (x.shape, y))
    assert gray[0] == ((4, 5, 1), 0)


def test_real_fashion_mnist(fashion_root):
    train = vision.FashionMNIST(root=fashion_root, train=True)
    test = vision.FashionMNIST(root=fashion_root, train=False)
    assert len(train) == 60000 and len(test) == 10000
    assert train[0][0].shape == (28, 28, 1) and train[0][0].dtype == onp.uint8
    assert train[0:4][1].tolist() == [9, 0, 0, 3] and test[0:5][1].tolist() == [9, 2, 1, 1, 6]
    assert onp.bincount(train._label).tolist() == [6000] * 10
    assert onp.shares_memory(vision.FashionMNIST(root=fashion_root)._data, train._data)  # decoded once


def test_the_seed_data_section_on_the_real_files(fashion_root, tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "datasets").mkdir(parents=True)
    (home / "datasets" / "fashion-mnist").symlink_to(fashion_root)
    monkeypatch.setenv("FRAMEWORK_HOME", os.fspath(home))
    from framework import gluon
    np.random.seed(0)
    batch_size = 256
    transformer = gluon.data.vision.transforms.Compose([gluon.data.vision.transforms.ToTensor(),
                                                        gluon.data.vision.transforms.Normalize(0.13, 0.31)])
    train_data = gluon.data.DataLoader(gluon.data.vision.datasets.FashionMNIST(train=True).transform_first(
        transformer), batch_size, shuffle=True, num_workers=2)
    valid_data = gluon.data.DataLoader(gluon.data.vision.datasets.FashionMNIST(train=False).transform_first(
        transformer), batch_size, shuffle=False, num_workers=0)
    assert len(train_data) == 235 and len(valid_data) == 40
    data_b, label = next(iter(train_data))
    assert isinstance(data_b, jax.Array) and data_b.shape == (256, 1, 28, 28) and label.dtype == onp.int32
    assert 0.3 < float(data_b.mean()) < 0.7 and sorted(set(onp.asarray(label).tolist())) == list(range(10))
    assert sum(int(label.shape[0]) for _, label in valid_data) == 10000
    first = onp.asarray(next(iter(valid_data))[0][0, 0])
    raw = vision.FashionMNIST(train=False)[0][0][..., 0]
    onp.testing.assert_array_equal(first, (raw / onp.float32(255) - onp.float32(0.13)) / onp.float32(0.31))
