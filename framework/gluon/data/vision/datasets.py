"""MXNet's vision datasets: MNIST, FashionMNIST, CIFAR10, CIFAR100, ImageFolderDataset.

Items are ``(image HWC uint8, label int32)`` numpy values, and slices work (``ds[0:10]``). The data is
looked for in an explicit ``root``, the user cache (``$FRAMEWORK_HOME/datasets/<name>``), Debian's
package directory, then a prepared tensorflow-datasets copy; when it is in none of them, the split's
files are downloaded as MXNet did (into ``root``, else the user cache; see :mod:`._fetch`: MXNet's
repository ``$MXNET_GLUON_REPO``, then the dataset's own mirrors; every file verified before it is put
in place). ``FRAMEWORK_OFFLINE=1`` turns downloads off. When nothing works, the error lists each place,
each download tried and the commands that fix it (``python -m datasets fetch NAME --from DIR``,
``apt-get install dataset-fashion-mnist``). Files are verified against :mod:`.catalogue` (pass
``verify=False`` for other files of the same format). Arrays are decoded once per process.

>>> import os
>>> ds = FashionMNIST(root=os.environ.get("FASHION_MNIST_ROOT"), train=False)  # doctest: +SKIP
>>> ds[0][0].shape, ds[0][1].dtype                                              # doctest: +SKIP
((28, 28, 1), dtype('int32'))
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as onp

from ..._download import downloads_allowed
from .._batching import gather
from ..dataset import Dataset
from . import _fetch, _tfds
from ._files import (
    DataFileError,
    DatasetNotFoundError,
    cache_dir,
    find_file,
    read_cifar,
    read_idx,
    search_dirs,
)
from .catalogue import entry_for

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageFolderDataset", "DatasetNotFoundError",
           "DataFileError"]


class _DownloadedDataset(Dataset):
    """A dataset held as two arrays, ``_data`` (N, H, W, C) and ``_label`` (N,)."""

    def __init__(self, root: str | os.PathLike | None, transform: Callable[..., Any] | None) -> None:
        self._root = None if root is None else os.path.expanduser(os.fspath(root))
        self._transform = transform
        self._data: onp.ndarray
        self._label: onp.ndarray
        self.source = ""
        self._get_data()

    def _get_data(self) -> None:
        raise NotImplementedError

    def __getitem__(self, idx: Any) -> Any:
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self) -> int:
        return len(self._label)

    def _getbatch(self, indices: onp.ndarray) -> Any:
        if self._transform is not None:
            return NotImplemented
        return gather(self._data, indices), gather(self._label, indices)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)} samples of {self._data.shape[1:]} from {self.source})"


def _not_found(who: str, name: str, wanted: list[str], looked: list[str]) -> DatasetNotFoundError:
    entry = entry_for(name)
    fixes = []
    if entry.get("debian"):
        fixes.append(f"apt-get install {entry['debian']['package']}   "
                     "(Debian/Ubuntu, also offline with a mirror)")
    fixes += ["point MXNET_GLUON_REPO at a reachable mirror of MXNet's repository (files under gluon/"
              f"dataset/{entry.get('mxnet_namespace', name)}/), and unset FRAMEWORK_OFFLINE if set",
              f"python -m datasets fetch {name}   (run from the framework repository; needs network)",
              f"python -m datasets fetch {name} --from DIR   (copies and verifies files you already have)",
              f"pass root=DIR, or set FRAMEWORK_HOME so that $FRAMEWORK_HOME/datasets/"
              f"{entry['cache_subdir']} holds the files"]
    lines = [f"{who}: the {entry['title']} files {', '.join(wanted)} were not found. Looked in:"]
    lines += [f"  - {place}" for place in looked]
    lines += ["Fix it with one of:"] + [f"  - {fix}" for fix in fixes]
    return DatasetNotFoundError("\n".join(lines))


def _download(name: str, root: str | None, files: list[str], looked: list[str]) -> Path | None:
    """Download ``files`` of ``name`` into ``root`` (else the user cache); the directory, or None
    with what went wrong added to ``looked``."""
    if not downloads_allowed():
        looked.append("downloads: off (FRAMEWORK_OFFLINE is set)")
        return None
    dest = Path(root) if root is not None else cache_dir(name)
    try:
        _fetch.fetch(name, dest, files=files)
    except (_fetch.FetchError, OSError) as err:
        looked.append(f"a download into {dest}: {err}")
        return None
    return dest


def _tfds_place(entry: dict[str, Any], split: str) -> tuple[Path | None, str]:
    if not entry.get("tfds"):
        return None, ""
    spec = entry["tfds"]
    found = _tfds.prepared(entry, split)
    where = f"tensorflow-datasets '{spec['name']}' {spec['version']} in {_tfds.data_dir()} ($TFDS_DATA_DIR)"
    return found, where


class MNIST(_DownloadedDataset):
    """MNIST handwritten digits: 28x28x1 uint8 images, int32 labels (60,000 train, 10,000 test).

    ``verify`` (new, keyword-only) checks shapes and checksums against the catalogue; IDX headers
    and sizes are always checked.
    """

    _name = "mnist"

    def __init__(self, root: str | os.PathLike | None = None, train: bool = True,
                 transform: Callable[..., Any] | None = None, *, verify: bool = True) -> None:
        self._train = train
        self._verify = verify
        super().__init__(root, transform)

    def _get_data(self) -> None:
        entry = entry_for(self._name)
        split = "train" if self._train else "test"
        names = {f["kind"]: n for n, f in entry["files"].items() if f["split"] == split}
        who = f"{type(self).__name__}(train={self._train})"
        looked = []
        for place, directory in search_dirs(self._name, self._root):
            if self._load(directory, names, who, entry):
                return
            paths = {kind: find_file(directory, n) for kind, n in names.items()}
            state = ("no such directory" if not directory.is_dir() else
                     "missing " + ", ".join(f"{n}(.gz)" for k, n in names.items() if not paths[k]))
            looked.append(f"{place}: {directory}: {state}")
        found, where = _tfds_place(entry, split)
        if found is not None:
            images, labels = _tfds.read_split(entry, split)
            self._set(images[..., 0] if images.ndim == 4 else images, labels, found, who, entry)
            return
        if where:
            looked.append(f"{where}: not prepared")
        dest = _download(self._name, self._root, list(names.values()), looked)
        if dest is not None and self._load(dest, names, who, entry):
            return
        raise _not_found(who, self._name, [f"{n}(.gz)" for n in names.values()], looked)

    def _load(self, directory: Path, names: dict[str, str], who: str, entry: dict[str, Any]) -> bool:
        paths = {kind: find_file(directory, n) for kind, n in names.items()}
        if not all(paths.values()):
            return False
        images = read_idx(paths["images"], self._name, entry["files"][names["images"]], self._verify)
        labels = read_idx(paths["labels"], self._name, entry["files"][names["labels"]], self._verify)
        self._set(images, labels, paths["images"].parent, who, entry)
        return True

    def _set(self, images: onp.ndarray, labels: onp.ndarray, where: Path, who: str,
             entry: dict[str, Any]) -> None:
        if len(images) != len(labels):
            raise DataFileError(f"{who}: {where} holds {len(images)} images but {len(labels)} labels; the "
                                "two files do not belong together.")
        expected = next(f["shape"][0] for f in entry["files"].values()
                        if f["split"] == ("train" if self._train else "test"))
        if self._verify and len(labels) != expected:
            raise DataFileError(f"{who}: {where} holds {len(labels)} samples, expected {expected}. Pass "
                                "verify=False to read a copy that is not the catalogued one.")
        if self._verify and len(labels) and int(labels.max()) >= entry["classes"]:
            raise DataFileError(f"{who}: a label in {where} is {int(labels.max())}, but {entry['title']} has "
                                f"{entry['classes']} classes: the labels file is corrupt.")
        self._data = images.reshape(*images.shape, 1)
        self._label = labels.astype(onp.int32)
        self.source = os.fspath(where)


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: 28x28x1 uint8 images of 10 kinds of articles, int32 labels.

    Found in ``root``, ``$FRAMEWORK_HOME/datasets/fashion-mnist``, ``/usr/share/datasets/fashion-mnist``
    (Debian's ``dataset-fashion-mnist``) or a prepared tensorflow-datasets ``fashion_mnist``.
    """

    _name = "fashion-mnist"


class CIFAR10(_DownloadedDataset):
    """CIFAR-10 from its binary batches (never the pickled Python version): 32x32x3 uint8, int32 labels."""

    _name = "cifar10"

    def __init__(self, root: str | os.PathLike | None = None, train: bool = True,
                 transform: Callable[..., Any] | None = None, *, verify: bool = True) -> None:
        self._train = train
        self._verify = verify
        self._fine_label = False
        super().__init__(root, transform)

    def _get_data(self) -> None:
        entry = entry_for(self._name)
        split = "train" if self._train else "test"
        names = [n for n, f in entry["files"].items() if f["split"] == split]
        who = f"{type(self).__name__}(train={self._train})"
        looked = []
        for place, directory in search_dirs(self._name, self._root):
            if self._load(directory, names, entry):
                return
            paths = [find_file(directory, n, entry["inner_dir"]) for n in names]
            archive = directory / entry["archive"]["name"]
            state = ("no such directory" if not directory.is_dir() else
                     f"only the archive {archive.name}: run python -m datasets prepare {self._name} "
                     f"--from {directory}" if archive.is_file() else
                     "missing " + ", ".join(n for n, p in zip(names, paths, strict=True) if not p))
            looked.append(f"{place}: {directory}: {state}")
        dest = _download(self._name, self._root, names, looked)
        if dest is not None and self._load(dest, names, entry):
            return
        raise _not_found(who, self._name, names, looked)

    def _load(self, directory: Path, names: list[str], entry: dict[str, Any]) -> bool:
        paths = [find_file(directory, n, entry["inner_dir"]) for n in names]
        if not all(paths):
            return False
        parts = [read_cifar(p, self._name, entry["files"][n], entry["label_bytes"], self._verify)
                 for p, n in zip(paths, names, strict=True)]
        images = parts[0][0] if len(parts) == 1 else onp.concatenate([p[0] for p in parts])
        labels = onp.concatenate([p[1][:, int(self._fine_label)] for p in parts]).astype(onp.int32)
        self._data, self._label, self.source = images, labels, os.fspath(paths[0].parent)
        return True


class CIFAR100(CIFAR10):
    """CIFAR-100 from its binary version; ``fine_label`` picks the 100 classes over the 20 superclasses."""

    _name = "cifar100"

    def __init__(self, root: str | os.PathLike | None = None, fine_label: bool = False, train: bool = True,
                 transform: Callable[..., Any] | None = None, *, verify: bool = True) -> None:
        self._train = train
        self._verify = verify
        self._fine_label = bool(fine_label)
        _DownloadedDataset.__init__(self, root, transform)


class ImageFolderDataset(Dataset):
    """Images in ``root/<class name>/<file>.jpg|.jpeg|.png``; labels number the class folders in order.

    ``flag=1`` loads RGB (H, W, 3), ``flag=0`` grayscale (H, W, 1). Decoding uses Pillow.
    Attributes: ``synsets`` (class names) and ``items`` ((path, label) pairs).
    """

    _exts = (".jpg", ".jpeg", ".png")

    def __init__(self, root: str | os.PathLike, flag: int = 1,
                 transform: Callable[..., Any] | None = None) -> None:
        self._root = os.path.expanduser(os.fspath(root))
        if not os.path.isdir(self._root):
            raise FileNotFoundError(f"ImageFolderDataset: root {self._root!r} is not a directory; it should "
                                    "hold one sub-directory of images per class.")
        if flag not in (0, 1):
            raise ValueError(f"ImageFolderDataset: flag must be 0 (grayscale) or 1 (RGB), got {flag!r}.")
        self._flag = flag
        self._transform = transform
        self.synsets: list[str] = []
        self.items: list[tuple[str, int]] = []
        for folder in sorted(os.listdir(self._root)):
            path = os.path.join(self._root, folder)
            if not os.path.isdir(path):
                warnings.warn(f"Ignoring {path}, which is not a directory.", stacklevel=2)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                file = os.path.join(path, filename)
                ext = os.path.splitext(file)[1]
                if ext.lower() not in self._exts:
                    warnings.warn(f"Ignoring {file} of type {ext}. Only support {', '.join(self._exts)}",
                                  stacklevel=2)
                    continue
                self.items.append((file, label))

    def __getitem__(self, idx: int) -> Any:
        from PIL import Image

        path, label = self.items[idx]
        with Image.open(path) as im:
            img = onp.asarray(im.convert("RGB" if self._flag else "L"))
        if img.ndim == 2:
            img = img[..., None]
        label = onp.int32(label)
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self) -> int:
        return len(self.items)
