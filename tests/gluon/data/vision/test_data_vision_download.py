"""Vision data sets download what they cannot find, as MXNet's did: from ``$MXNET_GLUON_REPO`` in MXNet's
layout (``<repo>/gluon/dataset/<name>/<file>``), then the data set's mirrors; every file verified before
it is put in place. A server on 127.0.0.1 plays both; the catalogue is swapped for tiny files made here
(tiny_datasets.py). Failures (500, a cut body, a wrong file, a stall) name the URL and the fix and
leave nothing behind. The last test runs an unchanged MXNet script under ``python -m framework.run``."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as onp
import pytest
from local_http import LocalServer
from tiny_datasets import cifar_split, idx_bytes, tiny_cifar10, tiny_idx

from framework.gluon import _download
from framework.gluon.data import vision
from framework.gluon.data.vision import catalogue

ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture
def net(tmp_path, monkeypatch):
    """A repository and a mirror on 127.0.0.1 serving tiny MNIST, Fashion-MNIST and CIFAR-10, and
    nothing found locally. Yields (server, {name: Tiny})."""
    monkeypatch.setenv("FRAMEWORK_HOME", os.fspath(tmp_path / "home"))
    monkeypatch.setenv("TFDS_DATA_DIR", os.fspath(tmp_path / "tfds"))
    monkeypatch.setenv("FRAMEWORK_OFFLINE", "0")
    monkeypatch.setattr(_download, "TIMEOUT", 0.5)
    monkeypatch.setattr(_download, "PAUSE", 0.0)
    server = LocalServer()
    monkeypatch.setenv("MXNET_GLUON_REPO", server.url("repo"))  # MXNet adds the missing slash too
    tinies = {"mnist": tiny_idx("mnist", server.url("mirror/mnist/"), content_sha256=False),
              "fashion-mnist": tiny_idx("fashion-mnist", server.url("mirror/fashion-mnist/"), seed=5),
              "cifar10": tiny_cifar10(server.url("mirror/cifar10/"))}
    tinies["fashion-mnist"].entry["debian"]["dir"] = os.fspath(tmp_path / "no-debian")
    for name, tiny in tinies.items():
        monkeypatch.setitem(catalogue.CATALOGUE, name, tiny.entry)
        for fname, data in tiny.repo.items():
            server.add(f"repo/gluon/dataset/{name}/{fname}", data)
        for fname, data in tiny.mirror.items():
            server.add(f"mirror/{name}/{fname}", data)
    yield server, tinies
    server.close()


def cache(name: str) -> Path:
    return Path(os.environ["FRAMEWORK_HOME"]) / "datasets" / name


def parts(directory: Path) -> list[str]:
    return [p.name for p in directory.rglob("*") if ".part" in p.name] if directory.exists() else []


def test_mnist_downloads_its_split_from_the_repository_verifies_and_loads(net, capsys):
    server, tinies = net
    ds = vision.MNIST(train=False)
    tiny = tinies["mnist"]
    onp.testing.assert_array_equal(ds[:][0][..., 0], tiny.arrays["t10k-images-idx3-ubyte"])
    assert ds[:][1].tolist() == tiny.arrays["t10k-labels-idx1-ubyte"].tolist()
    assert ds.source == os.fspath(cache("mnist"))
    assert {p: n for p, n in server.hits.items() if n} == {  # only this split, only the repository
        "repo/gluon/dataset/mnist/t10k-images-idx3-ubyte.gz": 1,
        "repo/gluon/dataset/mnist/t10k-labels-idx1-ubyte.gz": 1}
    name = "t10k-images-idx3-ubyte.gz"
    assert (cache("mnist") / name).read_bytes() == tiny.repo[name]
    assert f"from {server.url('repo')}/gluon/dataset/mnist/{name}" in capsys.readouterr().out
    assert len(vision.MNIST(train=False)) == 3 and sum(server.hits.values()) == 2  # found now
    assert len(vision.MNIST(train=True)) == 6 and sum(server.hits.values()) == 4
    assert parts(cache("mnist")) == []


def test_fashion_mnist_downloads_into_root_like_mxnet(net, tmp_path):
    _, tinies = net
    ds = vision.FashionMNIST(root=tmp_path / "fm", train=True)
    want = tinies["fashion-mnist"].arrays["train-images-idx3-ubyte"]
    onp.testing.assert_array_equal(ds[:][0][..., 0], want)
    assert sorted(p.name for p in (tmp_path / "fm").iterdir()) == [
        "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"]
    assert not cache("fashion-mnist").exists()


def test_cifar10_archive_in_mxnets_layout_is_verified_and_unpacked(net):
    server, tinies = net
    ds = vision.CIFAR10(train=False)
    images, labels = cifar_split(tinies["cifar10"], train=False)
    onp.testing.assert_array_equal(ds[:][0], images)
    assert ds[:][1].tolist() == labels.tolist()
    train = vision.CIFAR10(train=True)  # the same archive held both splits: no second download
    assert len(train) == 10 and server.hits["repo/gluon/dataset/cifar10/cifar-10-binary.tar.gz"] == 1
    assert sorted(p.name for p in (cache("cifar10") / "cifar-10-batches-bin").iterdir()) == sorted(
        tinies["cifar10"].entry["files"])
    assert parts(cache("cifar10")) == []


def test_the_mirrors_come_after_the_repository(net, capsys):
    server, tinies = net
    for name in ("fashion-mnist", "mnist", "cifar10"):
        for fname in tinies[name].repo:
            del server.routes[f"repo/gluon/dataset/{name}/{fname}"]  # the repository answers 404
    ds = vision.FashionMNIST(train=False)  # the original .gz, verified by its decompressed content
    onp.testing.assert_array_equal(ds[:][0][..., 0], tinies["fashion-mnist"].arrays["t10k-images-idx3-ubyte"])
    assert len(vision.MNIST(train=False)) == 3  # verified by the original .gz file's sha256
    images, _ = cifar_split(tinies["cifar10"], train=True)
    onp.testing.assert_array_equal(vision.CIFAR10(train=True)[:][0], images)  # under cifar-10-batches-bin/
    out = capsys.readouterr()
    assert "HTTP 404" not in out.out and server.hits["mirror/mnist/t10k-images-idx3-ubyte.gz"] == 1


def test_an_unreachable_repository_is_tried_once(net, capsys, monkeypatch):
    server, _ = net
    monkeypatch.setenv("MXNET_GLUON_REPO", "http://127.0.0.1:9/")  # the discard port: refused
    assert len(vision.MNIST(train=False)) == 3
    out = capsys.readouterr().out
    assert out.count("from http://127.0.0.1:9/") == 1 and out.count("from " + server.url("mirror/")) == 2


@pytest.mark.parametrize("case", ["500", "cut", "wrong file", "wrong file on the mirror", "stall"])
def test_failures_name_the_url_and_the_fix_and_leave_nothing(net, case):
    server, tinies = net
    path = "repo/gluon/dataset/mnist/t10k-images-idx3-ubyte.gz"
    if case == "wrong file on the mirror":  # checked against the catalogue's gzip checksums only
        del server.routes[path]
        path = "mirror/mnist/t10k-images-idx3-ubyte.gz"
    else:
        tinies["mnist"].entry["urls"] = []  # no mirror to fall back on
    route = server.routes[path]
    expect = {"500": "the server answered HTTP 500",
              "cut": "truncated: got",
              "wrong file": "checksum mismatch: SHA-1",
              "wrong file on the mirror": "the downloaded file: checksum mismatch: sha256",
              "stall": "the server stopped sending (no byte for 0.5 s)"}[case]
    if case == "500":
        route.mode, route.status = "status", 500
    elif case == "cut":
        route.mode, route.ranges = "truncate", False
    elif case == "wrong file":
        route.body = tinies["mnist"].repo["train-images-idx3-ubyte.gz"]  # a valid file, the wrong one
    elif case == "wrong file on the mirror":  # the right shape, other pixels
        route.body = gzip.compress(idx_bytes(onp.zeros((3, 28, 28), onp.uint8)))
    else:
        route.mode = "stall"
    with pytest.raises(vision.DatasetNotFoundError) as err:
        vision.MNIST(train=False)
    msg = str(err.value)
    assert f"{server.url(path)}: attempts 1-5: {expect}" in msg  # five attempts (MXNet's retries=5)
    assert server.hits[path] == 5 and not server.hits["repo/gluon/dataset/mnist/t10k-labels-idx1-ubyte.gz"]
    assert f"a download into {cache('mnist')}" in msg and "MXNET_GLUON_REPO" in msg
    assert "python -m datasets fetch mnist --from DIR" in msg
    assert not cache("mnist").exists() or list(cache("mnist").iterdir()) == []


def test_a_cut_body_is_resumed(net):
    server, _ = net
    path = "repo/gluon/dataset/mnist/t10k-images-idx3-ubyte.gz"
    server.routes[path].mode, server.routes[path].times = "truncate", 1
    assert len(vision.MNIST(train=False)) == 3
    assert server.hits[path] == 2 and [p for p, _ in server.ranges] == [path]


def test_offline_means_no_download(net, monkeypatch):
    server, _ = net
    monkeypatch.setenv("FRAMEWORK_OFFLINE", "1")
    with pytest.raises(vision.DatasetNotFoundError, match=r"downloads: off \(FRAMEWORK_OFFLINE is set\)"):
        vision.CIFAR10()
    assert sum(server.hits.values()) == 0


SCRIPT = """\
import mxnet as mx
from mxnet import gluon

train = gluon.data.vision.MNIST(train=True)
test = gluon.data.vision.MNIST(train=False, transform=lambda x, y: (x.astype('float32') / 255, y))
loader = gluon.data.DataLoader(test, batch_size=2)
for data, label in loader:
    print('batch', data.shape, label.shape)
print('train', len(train), train[0][0].shape, 'test', len(test))
"""

SITECUSTOMIZE = """\
import json
from framework.gluon.data.vision import catalogue
with open({path!r}) as f:
    catalogue.CATALOGUE.update(json.load(f))
"""


def test_an_unchanged_mxnet_script_downloads_under_framework_run(net, tmp_path):
    """The catalogue swap reaches the child process through a sitecustomize module (test scaffolding
    only: the script and framework.run are untouched)."""
    server, tinies = net
    (tmp_path / "catalogue.json").write_text(json.dumps({"mnist": tinies["mnist"].entry}))
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE.format(path=os.fspath(tmp_path / "catalogue.json")))
    (tmp_path / "script.py").write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.fspath(site), os.fspath(ROOT)]), TQDM_DISABLE="1")
    out = subprocess.run([sys.executable, "-m", "framework.run", "script.py"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.splitlines()[-1] == "train 6 (28, 28, 1) test 3"
    assert textwrap.dedent("""\
        batch (2, 28, 28, 1) (2,)
        batch (1, 28, 28, 1) (1,)
        """) in out.stdout
    assert server.hits["repo/gluon/dataset/mnist/train-images-idx3-ubyte.gz"] == 1
    assert sorted(p.name for p in cache("mnist").iterdir()) == sorted(tinies["mnist"].repo)
