"""Fashion-MNIST for the main job: whole splits as arrays, normalised once, and the epoch order.

The seed applies ``ToTensor()`` then ``Normalize(0.13, 0.31)`` per sample; both are the same for every
sample, so they run here once over the whole split (vectorised): ``(x / 255 - 0.13) / 0.31`` in float32,
NCHW. The order of epoch ``e`` is ``jax.random.permutation(fold_in(key(seed), e), n)``: a pure function
of (seed, epoch), which is the data-order state a checkpoint needs, and the same permutation the compiled
step draws on the device from :func:`epoch_key`.

>>> import numpy as onp
>>> x = normalize(onp.full((2, 28, 28, 1), 255, onp.uint8))
>>> x.shape, x.dtype, round(float(x[0, 0, 0, 0]), 4)
((2, 1, 28, 28), dtype('float32'), 2.8065)
>>> epoch_order(0, 3, 5).tolist() == epoch_order(0, 3, 5).tolist()
True
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as onp

from .config import MEAN, STD

__all__ = ["Split", "DataRootError", "check_root", "load", "normalize", "epoch_key", "epoch_order"]


class DataRootError(FileNotFoundError):
    """``--data-root`` names a directory that does not hold Fashion-MNIST (exit status 2)."""


def check_root(root: str | None) -> None:
    """An explicit ``--data-root`` must hold the four files itself: the job never falls back to another
    copy (the framework's search order) when the user named one."""
    if root is None:
        return
    from framework.gluon.data.vision import catalogue
    from framework.gluon.data.vision._files import find_file

    directory = Path(root).expanduser()
    names = sorted(catalogue.CATALOGUE["fashion-mnist"]["files"])
    if not directory.is_dir():
        state = "does not exist" if not directory.exists() else "is not a directory"
        raise DataRootError(f"--data-root {root}: {state}. Give the directory that holds {', '.join(names)} "
                            "(or their .gz), or leave --data-root out to use the framework's search "
                            "(python -m datasets where fashion-mnist).")
    missing = [n for n in names if find_file(directory, n) is None]
    if missing:
        listed = ", ".join(f"{n}(.gz)" for n in missing)
        raise DataRootError(f"--data-root {root}: missing {listed}. Copy them "
                            "there (python -m datasets fetch fashion-mnist), or leave --data-root out to use "
                            "the framework's search.")


@dataclass
class Split:
    """One split, ready to train on: ``x`` float32 (N, 1, 28, 28) normalised, ``y`` int32 (N,)."""

    x: onp.ndarray
    y: onp.ndarray

    def __len__(self) -> int:
        return int(self.x.shape[0])


def normalize(images: onp.ndarray) -> onp.ndarray:
    """ToTensor + Normalize(0.13, 0.31) over a whole uint8 HWC (or HW) batch -> float32 NCHW."""
    images = onp.asarray(images)
    if images.ndim == 3:
        images = images[..., None]
    x = images.astype(onp.float32) / onp.float32(255.0)
    x = (x - onp.float32(MEAN)) / onp.float32(STD)
    return onp.ascontiguousarray(x.transpose(0, 3, 1, 2))


def _arrays(dataset: Any) -> tuple[onp.ndarray, onp.ndarray]:
    """The images and labels a vision dataset holds, without a Python loop per sample."""
    for data_attr, label_attr in (("data", "label"), ("_data", "_label")):
        images, labels = getattr(dataset, data_attr, None), getattr(dataset, label_attr, None)
        if images is not None and labels is not None and hasattr(images, "shape"):
            return onp.asarray(images), onp.asarray(labels)
    n = len(dataset)
    images, labels = dataset[onp.arange(n)]
    return onp.asarray(images), onp.asarray(labels)


@functools.lru_cache(maxsize=4)
def _raw(root: str | None, train: bool) -> tuple[onp.ndarray, onp.ndarray]:
    from framework import gluon

    return _arrays(gluon.data.vision.datasets.FashionMNIST(root=root, train=train))


def load(root: str | None, train: bool, subset: int | None = None) -> Split:
    """The train or test split of Fashion-MNIST (first ``subset`` samples if given)."""
    images, labels = _raw(None if root is None else str(root), bool(train))
    if subset is not None:
        images, labels = images[:subset], labels[:subset]
    return Split(normalize(images), onp.ascontiguousarray(labels.astype(onp.int32)))


def epoch_key(seed: int, epoch: int) -> Any:
    """The PRNG key that orders epoch ``epoch`` (0-based) of a run seeded with ``seed``."""
    import jax

    return jax.random.fold_in(jax.random.key(seed), epoch)


def epoch_order(seed: int, epoch: int, n: int) -> onp.ndarray:
    """The sample order of epoch ``epoch``: the permutation the compiled step draws from the same key."""
    import jax

    return onp.asarray(jax.random.permutation(epoch_key(seed, epoch), n))
