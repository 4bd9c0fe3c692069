"""Tiny, valid stand-ins for MNIST, Fashion-MNIST and CIFAR-10 (made here, never real data), in MXNet's
repository layout and in their mirrors' forms, with the catalogue entries that describe them (sizes,
shapes, content checksums, MXNet's SHA-1s computed from these bytes) for tests to swap in."""

from __future__ import annotations

import copy
import gzip
import hashlib
import io
import struct
import tarfile
from dataclasses import dataclass, field
from typing import Any

import numpy as onp

from framework.gluon.data.vision import catalogue


def idx_bytes(array: onp.ndarray) -> bytes:
    return bytes([0, 0, 8, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape) + array.tobytes()


@dataclass
class Tiny:
    name: str
    entry: dict[str, Any]
    arrays: dict[str, onp.ndarray] = field(default_factory=dict)  # IDX: file -> array; CIFAR: split -> ...
    repo: dict[str, bytes] = field(default_factory=dict)  # file name -> MXNet's copy
    mirror: dict[str, bytes] = field(default_factory=dict)  # file name -> the original download


def tiny_idx(name: str, mirror_base: str, seed: int = 0, content_sha256: bool = True) -> Tiny:
    """6 train and 3 test images; MXNet's ``.gz`` copies differ from the mirror's (other gzip wrapper,
    same content) as they do for the real Fashion-MNIST. ``content_sha256=False`` leaves only the
    ``.gz`` checksums, as the real MNIST entry has."""
    entry = copy.deepcopy(catalogue.CATALOGUE[name])
    entry["urls"] = [mirror_base]
    tiny = Tiny(name, entry)
    rng = onp.random.default_rng(seed)
    for fname, spec in entry["files"].items():
        n = 6 if spec["split"] == "train" else 3
        arr = (rng.integers(0, 256, (n, 28, 28), dtype=onp.uint8) if spec["kind"] == "images"
               else rng.integers(0, 10, n).astype(onp.uint8))
        raw = idx_bytes(arr)
        mxnet_gz = gzip.compress(raw, compresslevel=9, mtime=1)
        original_gz = gzip.compress(raw, compresslevel=1, mtime=2)
        tiny.arrays[fname] = arr
        tiny.repo[fname + ".gz"] = mxnet_gz
        tiny.mirror[fname + ".gz"] = original_gz
        spec.update(shape=list(arr.shape), size=len(raw),
                    sha256=hashlib.sha256(raw).hexdigest() if content_sha256 else None,
                    gz={"size": len(original_gz), "sha256": [hashlib.sha256(original_gz).hexdigest()],
                        "sha1": [hashlib.sha1(mxnet_gz).hexdigest()]})
    return tiny


def _tar(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def tiny_cifar10(mirror_base: str, seed: int = 1) -> Tiny:
    """2 records per batch file; MXNet's archive holds the batches at its top level, the mirror's under
    ``cifar-10-batches-bin/`` (two different archives, each with its own checksum)."""
    entry = copy.deepcopy(catalogue.CATALOGUE["cifar10"])
    entry["urls"] = [mirror_base]
    tiny = Tiny("cifar10", entry)
    rng = onp.random.default_rng(seed)
    batches = {}
    for fname, spec in entry["files"].items():
        rec = rng.integers(0, 256, (2, 3073), dtype=onp.uint8)
        rec[:, 0] %= 10
        raw = rec.tobytes()
        batches[fname] = raw
        tiny.arrays[fname] = rec
        spec.update(records=2, size=len(raw), sha1=hashlib.sha1(raw).hexdigest())
    mxnet_archive = _tar(batches)
    original = _tar({f"{entry['inner_dir']}/{n}": b for n, b in batches.items()})
    archive = entry["archive"]
    tiny.repo[archive["name"]] = mxnet_archive
    tiny.mirror[archive["name"]] = original
    archive.update(size=len(original), sha256=hashlib.sha256(original).hexdigest(),
                   sha1=hashlib.sha1(mxnet_archive).hexdigest())
    return tiny


def cifar_split(tiny: Tiny, train: bool) -> tuple[onp.ndarray, onp.ndarray]:
    """(images NHWC, labels) of a tiny CIFAR-10 split, decoded independently of the library."""
    names = [n for n, s in tiny.entry["files"].items() if (s["split"] == "train") == train]
    rec = onp.concatenate([tiny.arrays[n] for n in names])
    return rec[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1), rec[:, 0].astype(onp.int32)
