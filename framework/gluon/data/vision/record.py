"""``ImageRecordDataset``: (image, label) pairs from an im2rec ``.rec`` file (MXNet's vision dataset).

Images decode with Pillow to uint8 HWC NumPy arrays (``flag=1`` RGB, ``flag=0`` (H, W, 1)); the label
is the header's float32 label, or its float32 array for multi-label records (``flag > 0``).

>>> import os, tempfile
>>> import numpy as onp
>>> from framework import recordio
>>> from framework.gluon.data.vision import ImageRecordDataset
>>> d = tempfile.mkdtemp()
>>> w = recordio.MXIndexedRecordIO(os.path.join(d, 'x.idx'), os.path.join(d, 'x.rec'), 'w')
>>> w.write_idx(0, recordio.pack_img(recordio.IRHeader(0, 4.0, 0, 0), onp.zeros((2, 3, 3), 'uint8'),
...                                  img_fmt='.png'))
>>> w.close()
>>> img, label = ImageRecordDataset(os.path.join(d, 'x.rec'))[0]
>>> img.shape, img.dtype, float(label)
((2, 3, 3), dtype('uint8'), 4.0)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as onp

from .... import image, recordio
from ..recordfile import RecordFileDataset

__all__ = ["ImageRecordDataset"]


class ImageRecordDataset(RecordFileDataset):
    """See the module docstring; ``transform(img, label)`` is applied to each pair when given."""

    def __init__(self, filename: str | os.PathLike, flag: int = 1,
                 transform: Callable[..., Any] | None = None) -> None:
        if flag not in (0, 1):
            raise ValueError(f"ImageRecordDataset: flag must be 0 (grayscale) or 1 (RGB), got {flag!r}")
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx: int) -> Any:
        header, data = recordio.unpack(super().__getitem__(idx))
        img = image.imdecode(data, self._flag)
        label = onp.float32(header.label) if header.flag == 0 else header.label
        if self._transform is not None:
            return self._transform(img, label)
        return img, label
