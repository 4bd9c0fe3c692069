"""Reading a dataset prepared by tensorflow-datasets (array_record files), without TensorFlow.

Only what is already on disk is read: the check is a look at the directory, and the read uses
``tfds.data_source(..., download=False)``. tensorflow-datasets is imported only then (offline, its
download path retries for minutes, so it is never reached from here).
The examples come in tensorflow-datasets' own order, not the original files' order.

>>> prepared({"tfds": None}) is None
True
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as onp

__all__ = ["data_dir", "prepared", "read_split"]


def data_dir() -> Path:
    """``$TFDS_DATA_DIR``, or tensorflow-datasets' default ``~/tensorflow_datasets``."""
    return Path(os.environ.get("TFDS_DATA_DIR") or "~/tensorflow_datasets").expanduser()


def prepared(entry: dict[str, Any], split: str | None = None) -> Path | None:
    """The directory of the prepared copy of ``entry`` (with ``split``'s array_record files), if any."""
    spec = entry.get("tfds")
    if not spec:
        return None
    d = data_dir() / spec["name"] / spec["version"]
    if not (d / "dataset_info.json").is_file():
        return None
    pattern = f"{spec['name']}-{split or '*'}.array_record*"
    return d if any(d.glob(pattern)) else None


def read_split(entry: dict[str, Any], split: str) -> tuple[onp.ndarray, onp.ndarray]:
    """(images NHWC uint8, labels int32) of ``split`` from the prepared copy."""
    import tensorflow_datasets as tfds

    spec = entry["tfds"]
    source = tfds.data_source(spec["name"], split=split, data_dir=os.fspath(data_dir()), download=False,
                              try_gcs=False)
    n = len(source)
    if hasattr(source, "__getitems__"):
        items = source.__getitems__(list(range(n)))
    else:
        items = [source[i] for i in range(n)]
    images = onp.stack([onp.asarray(item["image"], dtype=onp.uint8) for item in items])
    labels = onp.asarray([item["label"] for item in items], dtype=onp.int32)
    return images, labels
