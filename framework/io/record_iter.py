"""``ImageRecordIter`` (and ``ImageRecordUInt8Iter``): batches of images from a RecordIO ``.rec`` file
(made by ``im2rec``), decoded, augmented as MXNet's default augmenter does, and normalised.

Per image, in MXNet's order: ``resize`` (shorter edge), ``pad`` (with ``fill_value``), a crop to
``data_shape`` (``random_resized_crop`` with ``min/max_random_area`` and aspect ratios; else a
``min/max_crop_size`` square resized to ``data_shape``; else a ``data_shape`` window, random with
``rand_crop``, centred otherwise, after enlarging an image smaller than ``data_shape``), the
``brightness``/``contrast``/``saturation`` jitter in a random order, ``rand_mirror``/``mirror``, then
``(pixel - mean) * scale / std`` per channel (RGB order; ``ImageRecordUInt8Iter`` keeps the raw uint8).
Batches follow MXNet's ``round_batch`` (see :mod:`framework.io._loader`). Random choices come from a
generator seeded by ``seed_aug`` (else ``seed``); shuffling from ``seed``, every epoch. Resizing has
OpenCV's arithmetic (``framework.image``). ``ImageRecordInt8Iter`` saturates the raw pixels to int8;
the ``_v1`` classes are MXNet's names for its first implementation of the same iterators.

Augmentations MXNet's C++ iterator offers that this one refuses with an error naming the alternative:
rotation, shear, HSL jitter, PCA noise and mean images.

>>> from framework import io
>>> io.ImageRecordIter.__name__
'ImageRecordIter'
"""

from __future__ import annotations

import concurrent.futures
import io
import math
import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as onp

from .. import image as _image
from .. import recordio as _recordio
from .._files import open_regular
from ._loader import RoundBatches
from .io import DataBatch, DataDesc, DataIter
from .utils import to_batch_array

__all__ = ["ImageRecordIter", "ImageRecordUInt8Iter", "ImageRecordInt8Iter", "ImageRecordIter_v1",
           "ImageRecordUInt8Iter_v1"]

_REFUSED = {
    "max_rotate_angle": 0,
    "rotate": -1,
    "max_shear_ratio": 0,
    "random_h": 0,
    "random_s": 0,
    "random_l": 0,
    "pca_noise": 0,
    "mean_img": "",
    "max_random_scale": 1.0,
    "min_random_scale": 1.0,
    "max_aspect_ratio": 0.0,
    "min_aspect_ratio": None,
    "max_img_size": 1e10,
    "min_img_size": 0.0,
}
_IGNORED = (
    "preprocess_threads",
    "verbose",
    "prefetch_buffer",
    "ctx",
    "device_id",
    "shuffle_chunk_size",
    "shuffle_chunk_seed",
    "aug_seq",
)


def _read_lst(path: str) -> dict[int, onp.ndarray]:
    out = {}
    with io.TextIOWrapper(open_regular(path, what="image list"), encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3:
                if line.strip():
                    raise ValueError(
                        f"ImageRecordIter: {path}:{lineno}: expected 'index<TAB>label(s)<TAB>path'"
                    )
                continue
            out[int(float(parts[0]))] = onp.asarray([float(v) for v in parts[1:-1]], onp.float32)
    return out


class _Records:
    """The records of a ``.rec`` file: by key through its ``.idx``, else read once into memory."""

    def __init__(self, rec: str, idx: str | None) -> None:
        self._lock = threading.Lock()  # the decode threads share one file handle: a seek, then a read
        if idx:
            self._r = _recordio.MXIndexedRecordIO(idx, rec, "r")
            self.keys = list(self._r.keys)
            self._mem = None
        else:
            reader = _recordio.MXRecordIO(rec, "r")
            self._mem = list(iter(reader.read, None))
            reader.close()
            self.keys = list(range(len(self._mem)))

    def __len__(self) -> int:
        return len(self.keys)

    def get(self, i: int) -> bytes:
        if self._mem is not None:
            return self._mem[i]
        with self._lock:
            return self._r.read_idx(self.keys[i])


class ImageRecordIter(DataIter):
    """MXNet's ``mx.io.ImageRecordIter`` (see the module docstring for what each argument does)."""

    _uint8 = False
    _int8 = False

    def _data_dtype(self) -> type:
        return onp.int8 if self._int8 else onp.uint8 if self._uint8 else onp.float32

    def __init__(
        self,
        path_imgrec: str,
        data_shape: Sequence[int],
        batch_size: int,
        path_imglist: str = "",
        path_imgidx: str = "",
        label_width: int = 1,
        shuffle: bool = False,
        seed: int = 0,
        seed_aug: int | None = None,
        round_batch: bool = True,
        num_parts: int = 1,
        part_index: int = 0,
        dtype: str | None = None,
        resize: int = -1,
        rand_crop: bool = False,
        random_resized_crop: bool = False,
        max_random_area: float = 1.0,
        min_random_area: float = 1.0,
        max_crop_size: int = -1,
        min_crop_size: int = -1,
        brightness: float = 0.0,
        contrast: float = 0.0,
        saturation: float = 0.0,
        fill_value: int = 255,
        pad: int = 0,
        mirror: bool = False,
        rand_mirror: bool = False,
        mean_r: float = 0.0,
        mean_g: float = 0.0,
        mean_b: float = 0.0,
        mean_a: float = 0.0,
        std_r: float = 1.0,
        std_g: float = 1.0,
        std_b: float = 1.0,
        std_a: float = 1.0,
        scale: float = 1.0,
        max_random_contrast: float = 0.0,
        max_random_illumination: float = 0.0,
        inter_method: int = 1,
        data_name: str = "data",
        label_name: str = "softmax_label",
        **kwargs: Any,
    ) -> None:
        super().__init__(int(batch_size))
        for key, value in kwargs.items():
            if key in _IGNORED:
                continue
            if key in _REFUSED:
                if value != _REFUSED[key]:
                    raise ValueError(
                        f"{type(self).__name__}: {key}={value!r} is not supported (rotation, "
                        "shear, HSL jitter, PCA noise, mean images, random scales); use "
                        "mx.image.ImageIter with mx.image augmenters, or gluon transforms"
                    )
                continue
            raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {key!r}")
        if len(data_shape) != 3 or data_shape[0] not in (1, 3):
            raise ValueError(
                f"{type(self).__name__}: data_shape={tuple(data_shape)}; expected "
                "(channels, height, width) with 1 or 3 channels"
            )
        if dtype not in (None, "float32", "uint8"):
            raise ValueError(f"{type(self).__name__}: dtype={dtype!r}; expected None, 'float32' or 'uint8'")
        if random_resized_crop and (rand_crop or max_crop_size != -1 or min_crop_size != -1):
            raise ValueError(
                f"{type(self).__name__}: random_resized_crop conflicts with rand_crop and "
                "min/max_crop_size; use one of them"
            )
        self._uint8 = self._uint8 or dtype == "uint8"
        self.data_shape = tuple(int(d) for d in data_shape)
        self.label_width = int(label_width)
        self._records = _Records(os.fspath(path_imgrec), os.fspath(path_imgidx) if path_imgidx else None)
        self._labels = _read_lst(os.fspath(path_imglist)) if path_imglist else None
        n = len(self._records)
        lo, hi = n * part_index // num_parts, n * (part_index + 1) // num_parts
        self._part = onp.arange(lo, hi)
        self.shuffle = bool(shuffle)
        self._shuffle_rng = onp.random.RandomState(seed)
        self._rng = onp.random.RandomState(seed if seed_aug is None else seed_aug)
        self._aug = dict(
            resize=int(resize),
            rand_crop=bool(rand_crop),
            rrc=bool(random_resized_crop),
            area=(float(min_random_area), float(max_random_area)),
            crop_size=(int(min_crop_size), int(max_crop_size)),
            jitter=(float(brightness), float(contrast), float(saturation)),
            fill=int(fill_value),
            interp=int(inter_method),
            pad=int(pad),
            mirror=bool(mirror),
            rand_mirror=bool(rand_mirror),
            random_contrast=float(max_random_contrast),
            random_illumination=float(max_random_illumination),
        )
        self._mean = onp.asarray([mean_r, mean_g, mean_b, mean_a], onp.float32)
        self._std = onp.asarray([std_r, std_g, std_b, std_a], onp.float32)
        self._scale = float(scale)
        self._names = (data_name, label_name)
        self._loader = RoundBatches(len(self._part), self.batch_size, round_batch)
        self._pool = concurrent.futures.ThreadPoolExecutor(max(1, min(4, os.cpu_count() or 1)))
        self._batch: DataBatch | None = None
        self._last: tuple[onp.ndarray, onp.ndarray] | None = None
        self.reset()

    def __del__(self) -> None:
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown(wait=False)

    @property
    def provide_data(self) -> list[DataDesc]:
        return [
            DataDesc(
                self._names[0], (self.batch_size, *self.data_shape), self._data_dtype()
            )
        ]

    @property
    def provide_label(self) -> list[DataDesc]:
        shape = (self.batch_size,) if self.label_width == 1 else (self.batch_size, self.label_width)
        return [DataDesc(self._names[1], shape, onp.float32)]

    def reset(self) -> None:
        order = self._part.copy()
        if self.shuffle:
            self._shuffle_rng.shuffle(order)
        self._epoch = self._loader.epoch(order)

    # ---- one image

    def _label_of(self, header: Any) -> onp.ndarray:
        if self._labels is not None:
            if int(header.id) not in self._labels:
                raise ValueError(f"ImageRecordIter: record id {header.id} is not in path_imglist")
            lab = self._labels[int(header.id)]
        else:
            lab = onp.atleast_1d(onp.asarray(header.label, onp.float32))
        if lab.size < self.label_width:
            raise ValueError(
                f"ImageRecordIter: a record has {lab.size} labels, label_width={self.label_width}"
            )
        return lab[: self.label_width]

    def _crop(self, img: onp.ndarray, rng: onp.random.RandomState) -> onp.ndarray:
        a = self._aug
        c, h, w = self.data_shape
        if a["rrc"] and a["area"] != (1.0, 1.0):
            rows, cols = img.shape[:2]
            for _ in range(10):
                target = rows * cols * rng.uniform(*a["area"])
                ratio = rng.uniform(3 / 4, 4 / 3)
                yh, xw = round(math.sqrt(target / ratio)), round(math.sqrt(target * ratio))
                if rng.uniform() > 0.5:
                    yh, xw = xw, yh
                if yh <= rows and xw <= cols:
                    y, x = rng.randint(0, rows - yh + 1), rng.randint(0, cols - xw + 1)
                    return _image.imresize(img[y : y + yh, x : x + xw], w, h, a["interp"])
        elif a["crop_size"] != (-1, -1):
            lo, hi = a["crop_size"]
            rows, cols = img.shape[:2]
            if min(rows, cols) < hi or hi < lo:
                raise ValueError(
                    f"ImageRecordIter: an image of {cols}x{rows} is smaller than max_crop_size={hi}"
                )
            size = rng.randint(lo, hi + 1)
            y, x = (
                (rng.randint(0, rows - size + 1), rng.randint(0, cols - size + 1))
                if a["rand_crop"]
                else ((rows - size) // 2, (cols - size) // 2)
            )
            return _image.imresize(img[y : y + size, x : x + size], w, h, a["interp"])
        rows, cols = img.shape[:2]
        if rows < h:
            img = _image.imresize(img, int(h / rows * cols), h, a["interp"])
            rows, cols = img.shape[:2]
        if cols < w:
            img = _image.imresize(img, w, int(w / cols * rows), a["interp"])
            rows, cols = img.shape[:2]
        y, x = rows - h, cols - w
        if a["rand_crop"]:
            y, x = rng.randint(0, y + 1), rng.randint(0, x + 1)
        else:
            y, x = y // 2, x // 2
        return img[y : y + h, x : x + w]

    def _jitter(self, img: onp.ndarray, rng: onp.random.RandomState) -> onp.ndarray:
        b, c, s = self._aug["jitter"]
        alphas = [1 + rng.uniform(-b, b), 1 + rng.uniform(-c, c), 1 + rng.uniform(-s, s)]
        out = img.astype(onp.float32)
        for i in rng.permutation(3):
            gray = out @ onp.float32([0.299, 0.587, 0.114]) if out.shape[2] == 3 else out[..., 0]
            if i == 0:
                out = out * alphas[0]
            elif i == 1:
                out = out * alphas[1] + (1 - alphas[1]) * gray.mean()
            else:
                out = out * alphas[2] + (1 - alphas[2]) * gray[..., None]
            out = onp.clip(onp.rint(out), 0, 255)
        return out.astype(onp.uint8)

    def _one(self, item: int, seed: int) -> tuple[onp.ndarray, onp.ndarray]:
        rng = onp.random.RandomState(seed)
        a = self._aug
        header, payload = _recordio.unpack(self._records.get(int(item)))
        img = _image.imdecode(payload, flag=1 if self.data_shape[0] == 3 else 0)
        if a["resize"] > 0:
            img = _image.resize_short(img, a["resize"], a["interp"])
        if a["pad"] > 0:
            p = a["pad"]
            img = onp.pad(img, ((p, p), (p, p), (0, 0)), constant_values=a["fill"])
        img = self._crop(img, rng)
        if any(a["jitter"]):
            img = self._jitter(img, rng)
        mirrored = (a["rand_mirror"] and rng.uniform() < 0.5) or a["mirror"]
        if mirrored:
            img = img[:, ::-1]
        chw = onp.ascontiguousarray(onp.transpose(img, (2, 0, 1)))
        if self._int8:  # MXNet saturates the pixels to int8's range
            return onp.minimum(chw, 127).astype(onp.int8), self._label_of(header)
        if self._uint8:
            return chw, self._label_of(header)
        contrast = (rng.uniform() * a["random_contrast"] * 2 - a["random_contrast"] + 1) * self._scale
        illum = (rng.uniform() * a["random_illumination"] * 2 - a["random_illumination"]) * self._scale
        k = chw.shape[0]
        mean, std = self._mean[:k, None, None], self._std[:k, None, None]
        out = (chw.astype(onp.float32) - mean) * (contrast / std) + illum / std
        return out.astype(onp.float32), self._label_of(header)

    # ---- batches

    def iter_next(self) -> bool:
        slots = next(self._epoch, None)
        if slots is None:
            return False
        fresh = slots.order[: slots.fresh]
        seeds = self._rng.randint(0, 2**31 - 1, size=len(fresh))
        done = list(self._pool.map(self._one, fresh, seeds))
        data = onp.zeros((self.batch_size, *self.data_shape), self._data_dtype())
        label = onp.zeros((self.batch_size, self.label_width), onp.float32)
        for i, (img, lab) in enumerate(done):
            if img.shape != self.data_shape:
                raise ValueError(
                    f"ImageRecordIter: an image came out {img.shape}, expected {self.data_shape}"
                )
            data[i], label[i] = img, lab
        if slots.fresh < self.batch_size and self._last is not None:  # round_batch=False: earlier slots
            data[slots.fresh :], label[slots.fresh :] = (
                self._last[0][slots.fresh :],
                self._last[1][slots.fresh :],
            )
        self._last = (data, label)
        self._batch = DataBatch(
            [to_batch_array(data)],
            [to_batch_array(label[:, 0] if self.label_width == 1 else label)],
            pad=slots.pad,
            index=slots.order.copy(),
        )
        return True

    def next(self) -> DataBatch:
        if self.iter_next():
            return self._batch
        raise StopIteration

    def getdata(self):
        return self._batch.data

    def getlabel(self):
        return self._batch.label

    def getindex(self):
        return self._batch.index

    def getpad(self):
        return self._batch.pad


class ImageRecordUInt8Iter(ImageRecordIter):
    """``ImageRecordIter`` yielding the augmented images as raw uint8 (no mean/std/scale)."""

    _uint8 = True


class ImageRecordInt8Iter(ImageRecordIter):
    """``ImageRecordIter`` yielding the augmented images as int8 (pixels above 127 saturate to 127, as
    MXNet's quantisation-calibration iterator does; no mean/std/scale)."""

    _uint8 = True
    _int8 = True


class ImageRecordIter_v1(ImageRecordIter):  # noqa: N801  (MXNet's name)
    """MXNet's deprecated first implementation of :class:`ImageRecordIter`: the same arguments and
    batches."""


class ImageRecordUInt8Iter_v1(ImageRecordUInt8Iter):  # noqa: N801  (MXNet's name)
    """MXNet's deprecated first implementation of :class:`ImageRecordUInt8Iter`: the same arguments and
    batches."""
