"""Build a tensorflow-datasets copy (array_record) of an IDX dataset from verified local files.

The stock tensorflow-datasets builders need TensorFlow to encode images; this subclass hands them
PNGs made by Pillow, so ``tfds.data_source`` (and ``FashionMNIST()``'s tensorflow-datasets lookup)
can read the result on a machine without TensorFlow or network. Nothing is downloaded.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as onp

__all__ = ["build"]

_BUILDERS = {"fashion-mnist": "FashionMNIST", "mnist": "MNIST"}


def build(name: str, splits: dict[str, tuple[onp.ndarray, onp.ndarray]], data_dir: Path) -> Path:
    """Write ``splits`` ({'train': (images NHWC uint8, labels)}) as tensorflow-datasets' ``name``."""
    if name not in _BUILDERS:
        raise ValueError(f"no tensorflow-datasets copy for {name!r}; supported: {', '.join(_BUILDERS)}")
    import tensorflow_datasets as tfds
    from PIL import Image
    from tensorflow_datasets.image_classification import mnist

    base: Any = getattr(mnist, _BUILDERS[name])

    class FromArrays(base, skip_registration=True):  # type: ignore[misc, valid-type]
        def _split_generators(self, dl_manager: Any) -> dict[str, Any]:
            return {split: self._examples(*arrays) for split, arrays in splits.items()}

        def _examples(self, images: onp.ndarray, labels: onp.ndarray) -> Any:
            for i in range(len(labels)):
                yield i, {"image": Image.fromarray(images[i][..., 0]), "label": int(labels[i])}

    FromArrays.name = base.name
    builder = FromArrays(data_dir=os.fspath(data_dir), file_format="array_record")
    builder.download_and_prepare(download_config=tfds.download.DownloadConfig(try_download_gcs=False))
    return Path(builder.data_dir)
