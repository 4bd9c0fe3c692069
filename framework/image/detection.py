"""MXNet's detection augmenters and ``ImageDetIter``: images with object labels.

A label is MXNet's flat record label ``[header_width, object_width, (header...), obj0..., obj1...]``
where each object is ``[class, xmin, ymin, xmax, ymax, ...]`` with coordinates in [0, 1]. Batches hold
``(batch, max_objects, object_width)`` labels, rows of -1 where an image has fewer objects.
A detection augmenter maps ``(image, objects) -> (image, objects)``; random choices come from Python's
``random`` in MXNet's order.

>>> import numpy as onp
>>> from framework import image
>>> flip = image.DetHorizontalFlipAug(1.0)
>>> img, objs = flip(onp.zeros((4, 6, 3)), onp.array([[0, 0.1, 0.2, 0.3, 0.4]]))
>>> objs.tolist()
[[0.0, 0.7, 0.2, 0.9, 0.4]]
"""

from __future__ import annotations

import json
import logging
import math
import numbers
import random
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as onp

from .augmenters import (
    _PCA_EIGVAL,
    _PCA_EIGVEC,
    Augmenter,
    CastAug,
    ColorJitterAug,
    ColorNormalizeAug,
    ForceResizeAug,
    HueJitterAug,
    LightingAug,
    RandomGrayAug,
    ResizeAug,
    _plain,
)
from .image import copyMakeBorder, fixed_crop
from .image_iter import ImageIter

__all__ = [
    "DetAugmenter",
    "DetBorrowAug",
    "DetRandomSelectAug",
    "DetHorizontalFlipAug",
    "DetRandomCropAug",
    "DetRandomPadAug",
    "CreateMultiRandCropAugmenter",
    "CreateDetAugmenter",
    "ImageDetIter",
]


class DetAugmenter:
    """Base class: ``aug(src, label) -> (src, label)``; ``dumps()`` describes it as JSON."""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = {k: _plain(v) for k, v in kwargs.items()}

    def dumps(self) -> str:
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, src: Any, label: onp.ndarray) -> tuple[Any, onp.ndarray]:
        raise NotImplementedError(f"{type(self).__name__} must define __call__")


class DetBorrowAug(DetAugmenter):
    """An image :class:`Augmenter` that leaves the objects unchanged."""

    def __init__(self, augmenter: Augmenter) -> None:
        if not isinstance(augmenter, Augmenter):
            raise TypeError(f"DetBorrowAug: {augmenter!r} is not an Augmenter")
        super().__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self):
        return [type(self).__name__.lower(), self.augmenter.dumps()]

    def __call__(self, src, label):
        return self.augmenter(src), label


class DetRandomSelectAug(DetAugmenter):
    """Skip with probability ``skip_prob``, else apply one of ``aug_list`` chosen at random."""

    def __init__(self, aug_list: Sequence[DetAugmenter] | DetAugmenter, skip_prob: float = 0) -> None:
        super().__init__(skip_prob=skip_prob)
        aug_list = list(aug_list) if isinstance(aug_list, (list, tuple)) else [aug_list]
        for aug in aug_list:
            if not isinstance(aug, DetAugmenter):
                raise ValueError(f"DetRandomSelectAug: {aug!r} is not a DetAugmenter")
        self.aug_list = aug_list
        self.skip_prob = 1 if not aug_list else skip_prob

    def dumps(self):
        return [type(self).__name__.lower(), [a.dumps() for a in self.aug_list]]

    def __call__(self, src, label):
        if random.random() < self.skip_prob:
            return src, label
        random.shuffle(self.aug_list)
        return self.aug_list[0](src, label)


class DetHorizontalFlipAug(DetAugmenter):
    """With probability ``p``, mirror the image and the boxes."""

    def __init__(self, p: float) -> None:
        super().__init__(p=p)
        self.p = p

    def __call__(self, src, label):
        if random.random() < self.p:
            src = src[:, ::-1]
            label = onp.array(label, copy=True)
            label[:, 1], label[:, 3] = 1.0 - label[:, 3], 1.0 - label[:, 1]
        return src, label


def _pair(value: Any, what: str, aug: str) -> tuple[float, float]:
    if isinstance(value, (tuple, list)):
        return tuple(value)  # type: ignore[return-value]
    if not isinstance(value, numbers.Number):
        raise TypeError(f"{aug}: {what}={value!r} must be a number or a (low, high) pair")
    return (value, value)


def _areas(boxes: onp.ndarray) -> onp.ndarray:
    return onp.maximum(0, boxes[:, 3] - boxes[:, 1]) * onp.maximum(0, boxes[:, 2] - boxes[:, 0])


class DetRandomCropAug(DetAugmenter):
    """A random crop (area and aspect ratio in ranges) keeping at least ``min_object_covered`` of each
    object it cuts; objects covered less than ``min_eject_coverage`` are dropped (MXNet's/SSD's
    proposal search, up to ``max_attempts`` tries)."""

    def __init__(
        self,
        min_object_covered: float = 0.1,
        aspect_ratio_range: Any = (0.75, 1.33),
        area_range: Any = (0.05, 1.0),
        min_eject_coverage: float = 0.3,
        max_attempts: int = 50,
    ) -> None:
        aspect_ratio_range = _pair(aspect_ratio_range, "aspect_ratio_range", "DetRandomCropAug")
        area_range = _pair(area_range, "area_range", "DetRandomCropAug")
        super().__init__(
            min_object_covered=min_object_covered,
            aspect_ratio_range=aspect_ratio_range,
            area_range=area_range,
            min_eject_coverage=min_eject_coverage,
            max_attempts=max_attempts,
        )
        self.min_object_covered, self.min_eject_coverage = min_object_covered, min_eject_coverage
        self.max_attempts, self.aspect_ratio_range, self.area_range = (
            max_attempts,
            aspect_ratio_range,
            area_range,
        )
        self.enabled = (
            area_range[1] > 0
            and area_range[0] <= area_range[1]
            and 0 < aspect_ratio_range[0] <= aspect_ratio_range[1]
        )
        if not self.enabled:
            warnings.warn(
                f"DetRandomCropAug is skipped: invalid area_range {area_range} or aspect_ratio_range "
                f"{aspect_ratio_range}",
                stacklevel=2,
            )

    def __call__(self, src, label):
        crop = self._proposal(label, src.shape[0], src.shape[1])
        if crop:
            x, y, w, h, label = crop
            src = fixed_crop(src, x, y, w, h, None)
        return src, label

    def _intersect(self, boxes, xmin, ymin, xmax, ymax):
        left, right = onp.maximum(boxes[:, 0], xmin), onp.minimum(boxes[:, 2], xmax)
        top, bot = onp.maximum(boxes[:, 1], ymin), onp.minimum(boxes[:, 3], ymax)
        out = onp.stack([left, top, right, bot], axis=1)
        out[(left >= right) | (top >= bot)] = 0
        return out

    def _satisfied(self, label, xmin, ymin, xmax, ymax, width, height) -> bool:
        if (xmax - xmin) * (ymax - ymin) < 2:
            return False
        areas = _areas(label[:, 1:])
        valid = onp.where(areas * width * height > 2)[0]
        if valid.size < 1:
            return False
        inter = self._intersect(label[valid, 1:], xmin / width, ymin / height, xmax / width, ymax / height)
        cover = _areas(inter) / areas[valid]
        cover = cover[cover > 0]
        return cover.size > 0 and float(onp.amin(cover)) > self.min_object_covered

    def _update(self, label, box, height, width):
        xmin, ymin, w, h = box[0] / width, box[1] / height, box[2] / width, box[3] / height
        out = onp.array(label, dtype=onp.float64, copy=True)
        out[:, (1, 3)] = (out[:, (1, 3)] - xmin) / w
        out[:, (2, 4)] = (out[:, (2, 4)] - ymin) / h
        out[:, 1:5] = onp.clip(out[:, 1:5], 0, 1)
        cover = _areas(out[:, 1:]) * w * h / _areas(label[:, 1:])
        valid = (out[:, 3] > out[:, 1]) & (out[:, 4] > out[:, 2]) & (cover > self.min_eject_coverage)
        return out[valid].astype(label.dtype) if valid.any() else None

    def _proposal(self, label, height, width):
        if not self.enabled or height <= 0 or width <= 0:
            return ()
        min_area = self.area_range[0] * height * width
        max_area = self.area_range[1] * height * width
        for _ in range(self.max_attempts):
            ratio = random.uniform(*self.aspect_ratio_range)
            if ratio <= 0:
                continue
            h = int(round(math.sqrt(min_area / ratio)))
            max_h = int(round(math.sqrt(max_area / ratio)))
            if round(max_h * ratio) > width:
                max_h = int((width + 0.4999999) / ratio)
            max_h = min(max_h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            area = w * h
            if area < min_area:
                h += 1
                w = int(round(h * ratio))
                area = w * h
            if area > max_area:
                h -= 1
                w = int(round(h * ratio))
                area = w * h
            if not (min_area <= area <= max_area and 0 <= w <= width and 0 <= h <= height):
                continue
            y = random.randint(0, max(0, height - h))
            x = random.randint(0, max(0, width - w))
            if self._satisfied(label, x, y, x + w, y + h, width, height):
                new = self._update(label, (x, y, w, h), height, width)
                if new is not None:
                    return (x, y, w, h, new)
        return ()


class DetRandomPadAug(DetAugmenter):
    """Place the image on a larger canvas of ``pad_val`` (area ratio in ``area_range``, aspect ratio in
    ``aspect_ratio_range``) and move the boxes with it."""

    def __init__(
        self,
        aspect_ratio_range: Any = (0.75, 1.33),
        area_range: Any = (1.0, 3.0),
        max_attempts: int = 50,
        pad_val: Any = (128, 128, 128),
    ) -> None:
        aspect_ratio_range = _pair(aspect_ratio_range, "aspect_ratio_range", "DetRandomPadAug")
        area_range = _pair(area_range, "area_range", "DetRandomPadAug")
        super().__init__(
            aspect_ratio_range=aspect_ratio_range,
            area_range=area_range,
            max_attempts=max_attempts,
            pad_val=pad_val,
        )
        self.pad_val, self.aspect_ratio_range = pad_val, aspect_ratio_range
        self.area_range, self.max_attempts = area_range, max_attempts
        self.enabled = (
            area_range[1] > 1.0
            and area_range[0] <= area_range[1]
            and 0 < aspect_ratio_range[0] <= aspect_ratio_range[1]
        )
        if not self.enabled:
            warnings.warn(
                f"DetRandomPadAug is skipped: invalid area_range {area_range} or aspect_ratio_range "
                f"{aspect_ratio_range}",
                stacklevel=2,
            )

    def __call__(self, src, label):
        height, width = src.shape[0], src.shape[1]
        pad = self._proposal(label, height, width)
        if pad:
            x, y, w, h, label = pad
            values = self.pad_val if isinstance(self.pad_val, (list, tuple)) else [self.pad_val]
            src = copyMakeBorder(src, y, h - y - height, x, w - x - width, 16, values=values)
        return src, label

    def _proposal(self, label, height, width):
        if not self.enabled or height <= 0 or width <= 0:
            return ()
        min_area = self.area_range[0] * height * width
        max_area = self.area_range[1] * height * width
        for _ in range(self.max_attempts):
            ratio = random.uniform(*self.aspect_ratio_range)
            if ratio <= 0:
                continue
            h = int(round(math.sqrt(min_area / ratio)))
            max_h = int(round(math.sqrt(max_area / ratio)))
            if round(h * ratio) < width:
                h = int((width + 0.499999) / ratio)
            h = max(h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            if (h - height) < 2 or (w - width) < 2:
                continue
            y = random.randint(0, max(0, h - height))
            x = random.randint(0, max(0, w - width))
            out = onp.array(label, dtype=onp.float64, copy=True)
            out[:, (1, 3)] = (out[:, (1, 3)] * width + x) / w
            out[:, (2, 4)] = (out[:, (2, 4)] * height + y) / h
            return (x, y, w, h, out.astype(label.dtype))
        return ()


def CreateMultiRandCropAugmenter(
    min_object_covered: Any = 0.1,
    aspect_ratio_range: Any = (0.75, 1.33),
    area_range: Any = (0.05, 1.0),
    min_eject_coverage: Any = 0.3,
    max_attempts: Any = 50,
    skip_prob: float = 0,
) -> DetRandomSelectAug:
    """One :class:`DetRandomCropAug` per entry of the list-valued arguments (a scalar is repeated),
    chosen at random per image."""
    params = [
        p if isinstance(p, list) else [p]
        for p in (min_object_covered, aspect_ratio_range, area_range, min_eject_coverage, max_attempts)
    ]
    num = max(len(p) for p in params)
    for k, p in enumerate(params):
        if len(p) != num:
            if len(p) != 1:
                raise ValueError(
                    f"CreateMultiRandCropAugmenter: lists of different lengths {[len(q) for q in params]}"
                )
            params[k] = p * num
    augs = [
        DetRandomCropAug(
            min_object_covered=a, aspect_ratio_range=b, area_range=c, min_eject_coverage=d, max_attempts=e
        )
        for a, b, c, d, e in zip(*params, strict=True)
    ]
    return DetRandomSelectAug(augs, skip_prob=skip_prob)


def CreateDetAugmenter(
    data_shape: Sequence[int],
    resize: int = 0,
    rand_crop: float = 0,
    rand_pad: float = 0,
    rand_gray: float = 0,
    rand_mirror: bool = False,
    mean: Any = None,
    std: Any = None,
    brightness: float = 0,
    contrast: float = 0,
    saturation: float = 0,
    pca_noise: float = 0,
    hue: float = 0,
    inter_method: int = 2,
    min_object_covered: Any = 0.1,
    aspect_ratio_range: Any = (0.75, 1.33),
    area_range: Any = (0.05, 3.0),
    min_eject_coverage: Any = 0.3,
    max_attempts: Any = 50,
    pad_val: Any = (127, 127, 127),
) -> list[DetAugmenter]:
    """MXNet's standard detection augmenter list (resize, random crops, mirror, random pad, a forced
    resize to ``data_shape``, cast, colour, normalisation)."""
    augs: list[DetAugmenter] = []
    if resize > 0:
        augs.append(DetBorrowAug(ResizeAug(resize, inter_method)))
    if rand_crop > 0:
        augs.append(
            CreateMultiRandCropAugmenter(
                min_object_covered,
                aspect_ratio_range,
                area_range,
                min_eject_coverage,
                max_attempts,
                skip_prob=1 - rand_crop,
            )
        )
    if rand_mirror > 0:
        augs.append(DetHorizontalFlipAug(0.5))
    if rand_pad > 0:
        pad = DetRandomPadAug(aspect_ratio_range, (1.0, area_range[1]), max_attempts, pad_val)
        augs.append(DetRandomSelectAug([pad], 1 - rand_pad))
    augs.append(DetBorrowAug(ForceResizeAug((data_shape[2], data_shape[1]), inter_method)))
    augs.append(DetBorrowAug(CastAug()))
    if brightness or contrast or saturation:
        augs.append(DetBorrowAug(ColorJitterAug(brightness, contrast, saturation)))
    if hue:
        augs.append(DetBorrowAug(HueJitterAug(hue)))
    if pca_noise > 0:
        augs.append(DetBorrowAug(LightingAug(pca_noise, _PCA_EIGVAL, _PCA_EIGVEC)))
    if rand_gray > 0:
        augs.append(DetBorrowAug(RandomGrayAug(rand_gray)))
    if mean is True:
        mean = onp.array([123.68, 116.28, 103.53])
    if std is True:
        std = onp.array([58.395, 57.12, 57.375])
    if mean is not None or std is not None:
        augs.append(DetBorrowAug(ColorNormalizeAug(mean, std)))
    return augs


class ImageDetIter(ImageIter):
    """:class:`ImageIter` for detection: labels parsed from MXNet's flat detection format, augmented with
    the image, batched as ``(batch, max_objects, object_width)`` (the most objects of any image, found by
    a first pass over the data), -1 for missing objects."""

    def __init__(
        self,
        batch_size: int,
        data_shape: Sequence[int],
        path_imgrec: str | None = None,
        path_imglist: str | None = None,
        path_root: str | None = None,
        path_imgidx: str | None = None,
        shuffle: bool = False,
        part_index: int = 0,
        num_parts: int = 1,
        aug_list: Sequence[DetAugmenter] | None = None,
        imglist: list | None = None,
        data_name: str = "data",
        label_name: str = "label",
        last_batch_handle: str = "pad",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            batch_size=batch_size,
            data_shape=data_shape,
            path_imgrec=path_imgrec,
            path_imglist=path_imglist,
            path_root=path_root,
            path_imgidx=path_imgidx,
            shuffle=shuffle,
            part_index=part_index,
            num_parts=num_parts,
            aug_list=[],
            imglist=imglist,
            data_name=data_name,
            label_name=label_name,
            last_batch_handle=last_batch_handle,
        )
        self.auglist = list(aug_list) if aug_list is not None else CreateDetAugmenter(data_shape, **kwargs)
        self.label_shape = self._estimate_label_shape()
        self.provide_label = [(label_name, (self.batch_size, *self.label_shape))]

    def _estimate_label_shape(self) -> tuple[int, int]:
        most, width = 0, 5
        self.reset()
        try:
            while True:
                label, _ = self.next_sample()
                label = self._parse_label(label)
                most, width = max(most, label.shape[0]), label.shape[1]
        except StopIteration:
            pass
        self.reset()
        return (most, width)

    def _parse_label(self, label: Any) -> onp.ndarray:
        raw = onp.asarray(label, onp.float32).ravel()
        if raw.size < 7:
            raise RuntimeError(
                f"ImageDetIter: label of {raw.size} values is too short for MXNet's detection "
                "format [header_width, object_width, ..., objects...]"
            )
        header, width = int(raw[0]), int(raw[1])
        if width <= 0 or (raw.size - header) % width:
            raise RuntimeError(
                f"ImageDetIter: {raw.size} label values do not fit header {header} + objects of width {width}"
            )
        out = raw[header:].reshape(-1, width)
        valid = (out[:, 3] > out[:, 1]) & (out[:, 4] > out[:, 2])
        if not valid.any():
            raise RuntimeError("ImageDetIter: a sample has no valid object")
        return out[valid]

    def _check_valid_label(self, label: onp.ndarray) -> None:
        if label.ndim != 2 or label.shape[1] < 5:
            raise RuntimeError(f"ImageDetIter: objects of shape {label.shape}; (n, 5+) required")
        if not ((label[:, 0] >= 0) & (label[:, 3] > label[:, 1]) & (label[:, 4] > label[:, 2])).any():
            raise RuntimeError("ImageDetIter: no valid object left after augmentation")

    def _new_label(self) -> onp.ndarray:
        return onp.full(self.provide_label[0][1], -1.0, onp.float32)

    def _fill(self, data: onp.ndarray, label: onp.ndarray, start: int = 0) -> int:
        i = start
        try:
            while i < self.batch_size:
                lab, s = self.next_sample()
                img = self.imdecode(s)
                try:
                    self.check_valid_image([img])
                    objs = self._parse_label(lab)
                    img, objs = self.augmentation_transform(img, objs)
                    self._check_valid_label(objs)
                except RuntimeError as e:
                    logging.debug("ImageDetIter: skipping a sample: %s", e)
                    continue
                data[i] = self.postprocess_data(img)
                label[i] = -1
                label[i, : objs.shape[0]] = objs
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def augmentation_transform(self, data: Any, label: Any = None) -> tuple[Any, Any]:  # type: ignore[override]
        for aug in self.auglist:
            data, label = aug(data, label)
        return data, label

    def reshape(
        self, data_shape: Sequence[int] | None = None, label_shape: Sequence[int] | None = None
    ) -> None:
        """Change the batch's data or label shape (the label may only grow)."""
        if data_shape is not None:
            self.check_data_shape(data_shape)
            self.data_shape = tuple(data_shape)
            self.provide_data = [(self.provide_data[0][0], (self.batch_size, *self.data_shape))]
        if label_shape is not None:
            self.check_label_shape(label_shape)
            self.label_shape = tuple(label_shape)
            self.provide_label = [(self.provide_label[0][0], (self.batch_size, *self.label_shape))]

    def check_label_shape(self, label_shape: Sequence[int]) -> None:
        if len(label_shape) != 2:
            raise ValueError(f"ImageDetIter: label_shape={tuple(label_shape)} must have 2 entries")
        if label_shape[0] < self.label_shape[0]:
            raise ValueError(
                f"ImageDetIter: cannot reduce the object count from {self.label_shape[0]} to {label_shape[0]}"
            )
        if label_shape[1] != self.provide_label[0][1][2]:
            raise ValueError(
                f"ImageDetIter: object width {label_shape[1]} differs from {self.provide_label[0][1][2]}"
            )

    def sync_label_shape(self, it: ImageDetIter, verbose: bool = False) -> ImageDetIter:
        """Give this iterator and ``it`` the same (larger) label shape."""
        if not isinstance(it, ImageDetIter):
            raise TypeError("sync_label_shape: it must be an ImageDetIter")
        if self.label_shape[1] != it.label_shape[1]:
            raise ValueError("sync_label_shape: object widths differ")
        most = max(self.label_shape[0], it.label_shape[0])
        if most > self.label_shape[0]:
            self.reshape(None, (most, self.label_shape[1]))
        if most > it.label_shape[0]:
            it.reshape(None, (most, it.label_shape[1]))
        return it
