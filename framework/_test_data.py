"""The data and environment helpers of MXNet's ``mx.test_utils`` (re-exported there): ``download`` and
the archive helpers over ``gluon.utils.download`` (atomic, retried, checked), ``get_cifar10`` (MXNet's
``data/cifar`` RecordIO files, written from the CIFAR-10 dataset, which finds or downloads its files the
way ``gluon.data.vision.CIFAR10`` does), ``discard_stderr`` and MXNet's CI questions answered for this
runtime.

>>> from framework import test_utils
>>> test_utils.is_op_runnable(), test_utils.has_tvm_ops()
(True, False)
"""

from __future__ import annotations

import bz2
import contextlib
import os
import platform
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as onp

from .runtime import Features

__all__ = ["download", "download_model", "get_zip_data", "get_bz2_data", "get_cifar10", "discard_stderr",
           "is_cd_run", "is_aarch64_run", "has_tvm_ops", "is_op_runnable", "Features"]


# MXNet 1.x's pretrained Module checkpoints: name -> (directory under data.mxnet.io/models/, file stem)
_MODEL_URL = "http://data.mxnet.io/models/"
_MODELS = {
    "imagenet1k-inception-bn": ("imagenet/inception-bn/", "Inception-BN", 126),
    **{f"imagenet1k-resnet-{n}": (f"imagenet/resnet/{n}-layers/", f"resnet-{n}", 0)
       for n in (18, 34, 50, 101, 152)},
    **{f"imagenet1k-resnext-{n}": (f"imagenet/resnext/{n}-layers/", f"resnext-{n}", 0) for n in (50, 101)},
    "imagenet1k-resnext-101-64x4d": ("imagenet/resnext/101-layers/", "resnext-101-64x4d", 0),
    "imagenet11k-resnet-152": ("imagenet-11k/resnet-152/", "resnet-152", 0),
    **{f"imagenet11k-place365ch-resnet-{n}": ("imagenet-11k-place365-ch/", f"resnet-{n}", 0)
       for n in (152, 50)},
}


def download_model(model_name: str, dst_dir: str = "./",
                   meta_info: dict[str, dict[str, str]] | None = None
                   ) -> tuple[str | None, int]:
    """Download a pretrained MXNet Module checkpoint (MXNet's ``test_utils.download_model``): its
    ``symbol`` and ``params`` URLs (``meta_info[model_name]``, default MXNet's table of ImageNet models
    on data.mxnet.io) saved as ``dst_dir/<model_name>-symbol.json`` and ``-0000.params``; returns
    ``(dst_dir/model_name, 0)`` for ``mx.model.load_checkpoint``, or ``(None, 0)`` for a name the table
    does not have.

    >>> download_model('no-such-model')
    (None, 0)
    """
    if meta_info is None:
        meta_info = {name: {"symbol": f"{_MODEL_URL}{d}{stem}-symbol.json",
                            "params": f"{_MODEL_URL}{d}{stem}-{epoch:04d}.params"}
                     for name, (d, stem, epoch) in _MODELS.items()}
    if model_name not in meta_info:
        return None, 0
    meta = dict(meta_info[model_name])
    for part in ("symbol", "params"):
        if part not in meta:
            raise ValueError(f"download_model: meta_info[{model_name!r}] has no {part!r} URL; give both "
                             "'symbol' and 'params'.")
    os.makedirs(dst_dir, exist_ok=True)
    prefix = os.path.join(dst_dir, model_name)
    download(meta["symbol"], prefix + "-symbol.json")
    download(meta["params"], prefix + "-0000.params")
    return prefix, 0


def download(url: str, fname: str | None = None, dirname: str | None = None, overwrite: bool = False,
             retries: int = 5) -> str:
    """Download ``url`` to ``fname`` (default: the URL's last part) in ``dirname``; an existing file is
    kept unless ``overwrite``. Returns the file's path (MXNet's ``test_utils.download``)."""
    from .gluon.utils import download as _download

    if retries < 0:
        raise ValueError(f"download: retries={retries} must be at least 0")
    if fname is None:
        fname = url.split("/")[-1]
    if dirname is None:
        dirname = os.path.dirname(fname)
    else:
        fname = os.path.join(dirname, fname)
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    if not overwrite and os.path.exists(fname):
        return fname
    return _download(url, path=fname, overwrite=True, retries=max(retries, 1))


def _extract_zip(archive: str, dest: str) -> None:
    """Extract every member inside ``dest`` (a member whose path leaves ``dest`` is refused)."""
    root = Path(dest).resolve()
    with zipfile.ZipFile(archive) as zf:
        for member in zf.namelist():
            if not (root / member).resolve().is_relative_to(root):
                raise ValueError(f"{archive}: member {member!r} would be written outside {dest}")
        zf.extractall(dest)


def get_zip_data(data_dir: str, url: str, data_origin_name: str) -> None:
    """Download the zip ``url`` into ``data_dir`` as ``data_origin_name`` and extract it there, unless
    that file is there already."""
    path = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(path):
        download(url, fname=data_origin_name, dirname=data_dir)
        _extract_zip(path, data_dir)


def get_bz2_data(data_dir: str, data_name: str, url: str, data_origin_name: str) -> None:
    """Download the bzip2 file ``url`` and decompress it to ``data_dir/data_name``, unless that file is
    there already (the compressed file is removed afterwards, as MXNet does)."""
    target = os.path.join(data_dir, data_name)
    if os.path.exists(target):
        return
    origin = download(url, fname=data_origin_name, dirname=data_dir)
    fd, tmp = tempfile.mkstemp(dir=data_dir, prefix=f".{data_name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out, bz2.open(origin, "rb") as src:
            for chunk in iter(lambda: src.read(1 << 20), b""):
                out.write(chunk)
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    os.remove(origin)


def write_cifar_records(dataset: Any, prefix: str) -> None:
    """``prefix.rec`` and ``prefix.lst`` of a dataset of ``(HWC uint8 RGB image, label)``: record ``i``
    holds the image as PNG (lossless) with header label ``float(label)`` and id ``i``; the list has
    MXNet's ``index<TAB>label<TAB>path`` lines."""
    from . import recordio

    folder = os.path.dirname(prefix) or "."
    tmp_rec = tempfile.mkstemp(dir=folder, prefix=".rec.", suffix=".part")
    tmp_lst = tempfile.mkstemp(dir=folder, prefix=".lst.", suffix=".part")
    os.close(tmp_rec[0])
    name = os.path.basename(prefix)
    try:
        writer = recordio.MXRecordIO(tmp_rec[1], "w")
        with os.fdopen(tmp_lst[0], "w") as lst:
            for i in range(len(dataset)):
                img, label = dataset[i]
                header = recordio.IRHeader(0, float(label), i, 0)
                writer.write(recordio.pack_img(header, onp.asarray(img)[:, :, ::-1], img_fmt=".png"))
                lst.write(f"{i}\t{float(label):f}\t{name}/{i}.png\n")
        writer.close()
        os.replace(tmp_rec[1], prefix + ".rec")
        os.replace(tmp_lst[1], prefix + ".lst")
    finally:
        for tmp in (tmp_rec[1], tmp_lst[1]):
            Path(tmp).unlink(missing_ok=True)


def get_cifar10() -> None:
    """Make sure ``data/cifar/{train,test}.{rec,lst}`` exist (what MXNet's image-classification
    examples read with ``ImageRecordIter``), written from ``gluon.data.vision.CIFAR10`` (which finds its
    files, or downloads them from ``$MXNET_GLUON_REPO``)."""
    from .gluon.data.vision import CIFAR10

    os.makedirs(os.path.join("data", "cifar"), exist_ok=True)
    for split, train in (("train", True), ("test", False)):
        prefix = os.path.join("data", "cifar", split)
        if not (os.path.exists(prefix + ".rec") and os.path.exists(prefix + ".lst")):
            write_cifar_records(CIFAR10(train=train), prefix)


@contextlib.contextmanager
def discard_stderr() -> Iterator[None]:
    """Send what is written to file descriptor 2 (C libraries' messages included) to ``os.devnull``
    inside the block."""
    try:
        fileno = sys.stderr.fileno()
    except (AttributeError, ValueError, OSError):  # no descriptor behind sys.stderr (a notebook)
        yield
        return
    sys.stderr.flush()
    saved = os.dup(fileno)
    try:
        with open(os.devnull, "w") as sink:
            os.dup2(sink.fileno(), fileno)
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, fileno)
        os.close(saved)


def is_cd_run() -> bool:
    """Whether MXNet's continuous-delivery job runs (``CD_JOB=1``)."""
    return os.environ.get("CD_JOB", "0") == "1"


def is_aarch64_run() -> bool:
    """Whether the machine is an ARM64 one."""
    return platform.machine() == "aarch64"


def has_tvm_ops() -> bool:
    """Whether TVM-built operators exist: never here (the operators are JAX's)."""
    return Features().is_enabled("TVM_OP")


def is_op_runnable() -> bool:
    """Whether MXNet's TVM operators can run on the current device: every operator can here."""
    return True
