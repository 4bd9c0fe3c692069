"""Constants of MXNet's NDArray-list file format and the error raised for bad files.

Source of the layout: apache/mxnet 1.9.1 ``src/ndarray/ndarray.cc`` (``NDArray::Save``/``Load``,
``LegacyLoad``), ``include/mxnet/tuple.h`` (``Tuple::Save``/``Load``), mshadow's type flags; confirmed byte
by byte against files written by MXNet 1.9.1. Every integer is little-endian.

>>> hex(V3_MAGIC), DTYPE_OF_FLAG[0]
('0xf993faca', dtype('float32'))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as onp

from ..base import FrameworkError

__all__ = [
    "ParamsFormatError",
    "LIST_MAGIC",
    "V1_MAGIC",
    "V2_MAGIC",
    "V3_MAGIC",
    "DTYPE_OF_FLAG",
    "FLAG_OF_DTYPE",
    "STYPE_NAMES",
    "NUM_AUX",
    "MAX_EXTENT_BYTES",
    "DEV_TYPES",
    "MAX_NDIM",
    "CPU_DEV_TYPE",
]

#: ``kMXAPINDArrayListMagic``: the first u64 of every file, followed by a reserved u64 (0).
LIST_MAGIC = 0x112
#: Per-array magics. V1: int64 shape, no storage type. V2: storage type (nd shape semantics: ndim 0 =
#: "none"). V3: np shape semantics (ndim 0 = a 0-d scalar, ndim -1 = "none"), written in np mode.
V1_MAGIC = 0xF993FAC8
V2_MAGIC = 0xF993FAC9
V3_MAGIC = 0xF993FACA

#: mshadow type flags (``mshadow/base.h``: kFloat32 = 0 ... kBfloat16 = 12).
DTYPE_OF_FLAG: dict[int, onp.dtype] = {
    0: onp.dtype(onp.float32),
    1: onp.dtype(onp.float64),
    2: onp.dtype(onp.float16),
    3: onp.dtype(onp.uint8),
    4: onp.dtype(onp.int32),
    5: onp.dtype(onp.int8),
    6: onp.dtype(onp.int64),
    7: onp.dtype(onp.bool_),
    8: onp.dtype(onp.int16),
    9: onp.dtype(onp.uint16),
    10: onp.dtype(onp.uint32),
    11: onp.dtype(onp.uint64),
    12: onp.dtype(jnp.bfloat16),
}
FLAG_OF_DTYPE: dict[onp.dtype, int] = {dt: flag for flag, dt in DTYPE_OF_FLAG.items()}

#: Storage types (``NDArrayStorageType``) and how many auxiliary arrays each carries.
STYPE_NAMES = {0: "default", 1: "row_sparse", 2: "csr"}
NUM_AUX = {0: 0, 1: 1, 2: 2}

#: ``Context::DeviceType`` values MXNet writes; arrays always load onto the host here.
DEV_TYPES = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
CPU_DEV_TYPE = 1

#: No real parameter has more dimensions; a larger ndim means a corrupted or foreign file.
MAX_NDIM = 32
#: numpy cannot describe an array whose (non-zero) extents multiply past this many bytes.
MAX_EXTENT_BYTES = 2**62


class ParamsFormatError(FrameworkError, ValueError):
    """A ``.params`` file (or byte string) is truncated, corrupted or not an MXNet NDArray file.

    ``source`` names the file (``"<bytes>"`` for in-memory data), ``offset`` is the byte where reading
    stopped, and the message says what was expected there.

    >>> err = ParamsFormatError("net.params", 16, "expected the array count")
    >>> str(err), err.offset
    ('net.params: byte 16: expected the array count', 16)
    """

    def __init__(self, source: str, offset: int, message: str) -> None:
        super().__init__(f"{source}: byte {offset}: {message}")
        self.source = source
        self.offset = offset


def flag_names() -> str:
    """The supported dtypes, for messages: ``'float32 (0), float64 (1), ...'``."""
    return ", ".join(f"{dt.name} ({flag})" for flag, dt in DTYPE_OF_FLAG.items())
