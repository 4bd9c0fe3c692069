"""MXNet's ``.params`` / ``.ndarray`` file format: read V1, V2, V3 and pre-V1 files, write V2 and V3.

``npx.save`` / ``npx.load`` / ``npx.savez`` and ``mx.nd.save`` / ``mx.nd.load`` land here. Files are
byte-compatible with MXNet 1.9.1 in both directions. Reading never executes code (no pickle) and
never trusts a size field beyond the file's length: bad input raises :class:`ParamsFormatError`.

>>> import os, tempfile
>>> import numpy as onp
>>> from framework import npx
>>> path = os.path.join(tempfile.mkdtemp(), "w.params")
>>> npx.save(path, {"0.weight": onp.ones((2, 3), "float32"), "0.bias": onp.zeros(2, "float32")})
>>> {k: v.shape for k, v in npx.load(path).items()}
{'0.weight': (2, 3), '0.bias': (2,)}
"""

from __future__ import annotations

from ._format import ParamsFormatError
from ._reader import MAX_BYTES_FLOOR, MAX_BYTES_PER_FILE_BYTE, default_max_bytes, load, load_numpy
from ._writer import dumps, save, savez

__all__ = ["load", "load_numpy", "save", "savez", "dumps", "ParamsFormatError", "default_max_bytes",
           "MAX_BYTES_FLOOR", "MAX_BYTES_PER_FILE_BYTE"]
