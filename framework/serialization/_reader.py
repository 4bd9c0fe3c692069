"""Reading MXNet ``.params`` / ``.ndarray`` files (V3, V2, V1 and pre-V1): ``load`` and ``load_numpy``.

The input is read once into a private buffer; :func:`._layout.parse` validates it and takes views of
the payloads; here they become arrays (sparse ones densified, within ``max_bytes``) and, for
:func:`load`, device arrays.

>>> from framework.serialization._writer import dumps
>>> import numpy as onp
>>> load_numpy(dumps({"w": onp.arange(3, dtype="float32")}))
{'w': array([0., 1., 2.], dtype=float32)}
"""

from __future__ import annotations

import math
import os
import warnings
from typing import Any

import jax
import numpy as onp

from .._files import open_regular
from ..device import as_device, cpu
from ._format import STYPE_NAMES, ParamsFormatError
from ._layout import Raw, parse
from ._numpy_files import NPY_MAGIC, ZIP_MAGICS, read_npy, read_npz

__all__ = ["load", "load_numpy", "default_max_bytes", "MAX_BYTES_FLOOR", "MAX_BYTES_PER_FILE_BYTE"]

#: The default bound on what the sparse arrays of one file may expand to, densified, all together:
#: ``max(MAX_BYTES_FLOOR, MAX_BYTES_PER_FILE_BYTE * file size)``. A few bytes of row_sparse/csr header
#: can declare an arbitrarily large dense shape (a 118-byte file can declare 1 GiB): a decompression bomb.
MAX_BYTES_FLOOR = 16 << 20
MAX_BYTES_PER_FILE_BYTE = 64


def default_max_bytes(file_size: int) -> int:
    """The default ``max_bytes`` for a file of ``file_size`` bytes.

    >>> default_max_bytes(118) == 16 << 20, default_max_bytes(10 << 20) == 640 << 20
    (True, True)
    """
    return max(MAX_BYTES_FLOOR, MAX_BYTES_PER_FILE_BYTE * file_size)


class _Budget:
    """What the densified sparse arrays of one file may still take."""

    def __init__(self, source: str, file_size: int, max_bytes: int | None) -> None:
        if max_bytes is not None and (isinstance(max_bytes, bool) or not isinstance(max_bytes, int)
                                      or max_bytes < 0):
            raise TypeError(f"load: max_bytes must be a non-negative int (bytes) or None for the default; "
                            f"got {max_bytes!r}")
        self.source = source
        self.explicit = max_bytes is not None
        self.limit = default_max_bytes(file_size) if max_bytes is None else max_bytes
        self.file_size = file_size
        self.used = 0

    def take(self, raw: Raw, label: str) -> None:
        dense_bytes = math.prod(raw.shape) * raw.data.dtype.itemsize
        if self.used + dense_bytes <= self.limit:
            self.used += dense_bytes
            return
        how = (f"max_bytes={self.limit}" if self.explicit else
               f"the default max_bytes={self.limit} ({MAX_BYTES_PER_FILE_BYTE} x the file's {self.file_size} "
               f"bytes, at least {MAX_BYTES_FLOOR >> 20} MiB)")
        before = f" (after {self.used} bytes of earlier sparse arrays)" if self.used else ""
        raise ParamsFormatError(
            self.source, raw.offset,
            f"{label} is {STYPE_NAMES[raw.stype]} with dense shape {raw.shape} {raw.data.dtype.name} = "
            f"{dense_bytes} bytes{before}, more than {how}: a guard against decompression bombs. If the "
            f"file is trusted, pass a larger max_bytes to load it")


def _densify(raw: Raw) -> onp.ndarray:
    data = raw.data.view(onp.uint8) != 0 if raw.data.dtype == onp.bool_ else raw.data
    out = onp.zeros(raw.shape, raw.data.dtype)
    if raw.stype == 1:
        out[raw.aux[0].astype(onp.intp)] = data
    else:
        indptr, indices = raw.aux
        rows = onp.repeat(onp.arange(raw.shape[0]), onp.diff(indptr.astype(onp.intp)))
        out[rows, indices.astype(onp.intp)] = data
    return out


def _finish(raw: Raw) -> onp.ndarray:
    """A dense payload view made into a proper host array (bools canonical, aligned)."""
    arr = raw.data
    if arr.dtype == onp.bool_:
        arr = arr.view(onp.uint8) != 0
    elif not arr.flags.aligned:
        arr = arr.copy()
    return arr


def _read_source(source: Any) -> tuple[onp.ndarray, str]:
    """The whole input as one private, writable byte buffer (loaded arrays are views into it)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return onp.frombuffer(source, onp.uint8).copy(), "<bytes>"
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open_regular(path, what="parameter file") as f:
            size = os.fstat(f.fileno()).st_size
            buf = onp.empty(size, onp.uint8)  # not zero-filled: readinto writes every byte
            got = 0
            with memoryview(buf) as view:
                while got < size:
                    n = f.readinto(view[got:])
                    if not n:
                        break
                    got += n
        buf = buf[:got]  # the size at open bounds the read: a file that grows cannot exhaust memory
        return buf, os.fsdecode(path)
    if hasattr(source, "read"):
        data = source.read()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"load: the stream {source!r} returned {type(data).__name__}; open it in binary "
                            "mode ('rb')")
        return onp.frombuffer(data, onp.uint8).copy(), str(getattr(source, "name", "<stream>"))
    raise TypeError(f"load: expected a path (str or os.PathLike), bytes, or a binary stream; got "
                    f"{type(source).__name__}")


def _load_host(source: Any,
               max_bytes: int | None) -> tuple[list[onp.ndarray | None], list[str] | None, str]:
    buf, name = _read_source(source)
    budget = _Budget(name, len(buf), max_bytes)
    head = bytes(buf[:6])
    if head == NPY_MAGIC:  # MXNet 2.0's npx.save
        return list(read_npy(buf, name)), None, name
    if head[:4] in ZIP_MAGICS:  # MXNet 2.0's npx.savez
        arrays, names = read_npz(buf, name, budget.limit)
        return list(arrays), names, name
    raws, names = parse(buf, name)
    for i, raw in enumerate(raws):  # every bound is checked before anything is densified
        if raw is not None and raw.stype:
            budget.take(raw, f"array {i}" + (f" ({names[i]!r})" if names else ""))
    arrays: list[onp.ndarray | None] = []
    for raw in raws:
        arrays.append(None if raw is None else _densify(raw) if raw.stype else _finish(raw))
    return arrays, names, name


def _warn_if_narrowed(arrays: list[onp.ndarray | None], names: list[str] | None, source: str) -> None:
    """JAX in 32-bit mode stores 64-bit arrays as 32-bit ones: say which, and how to keep them."""
    narrowed = []
    wrapped = []
    for i, arr in enumerate(arrays):
        if arr is None or arr.dtype.itemsize != 8 or arr.dtype.kind not in "iuf":
            continue
        label = repr(names[i]) if names else f"{i}"
        narrow = jax.dtypes.canonicalize_dtype(arr.dtype)
        narrowed.append(f"{label} ({arr.dtype.name} -> {narrow.name})")
        if arr.dtype.kind in "iu" and arr.size:
            info = onp.iinfo(narrow)
            if arr.min() < info.min or arr.max() > info.max:
                wrapped.append(f"array {label} holds {arr.dtype.name} values outside the {narrow.name} range")
    if not narrowed:
        return
    shown = ", ".join(narrowed[:8]) + (f" and {len(narrowed) - 8} more" if len(narrowed) > 8 else "")
    extra = f" {'; '.join(wrapped)}, and they wrap around." if wrapped else ""
    warnings.warn(
        f"{source}: 64-bit arrays were loaded as 32-bit because JAX runs in 32-bit mode: {shown}.{extra} "
        f"To keep 64 bits, run jax.config.update('jax_enable_x64', True) before loading, or read the file "
        f"with framework.serialization.load_numpy.", UserWarning, stacklevel=3)


def _pack(arrays: list, names: list[str] | None) -> dict[str, Any] | list[Any]:
    return dict(zip(names, arrays, strict=True)) if names is not None else arrays


def load_numpy(source: str | os.PathLike | bytes, *,
               max_bytes: int | None = None) -> dict[str, onp.ndarray | None] | list:
    """Read an MXNet ``.params``/``.ndarray`` file into host NumPy arrays, in file order.

    Same as :func:`load` but without placing anything on a device: this is what checkpoints and
    ``Block.load_parameters`` use before putting each array on its own devices. The dtypes are the
    file's (float64 and int64 stay 64-bit).

    >>> import numpy as onp
    >>> from framework.serialization import dumps
    >>> load_numpy(dumps([onp.float16(1.5) * onp.ones(2, "float16")]))
    [array([1.5, 1.5], dtype=float16)]
    """
    arrays, names, _ = _load_host(source, max_bytes)
    return _pack(arrays, names)


def load(
    source: str | os.PathLike | bytes, *, device: Any = None, max_bytes: int | None = None
) -> dict[str, jax.Array | None] | list[jax.Array | None]:
    """MXNet's ``npx.load`` / ``mx.nd.load``: read a ``.params``/``.ndarray``, ``.npy`` or ``.npz`` file.

    ``source`` is a path, the file's content as bytes, or a binary stream; the format is recognised
    from the content, not the name. A file saved from a dict returns a dict (names as stored, e.g.
    ``'0.weight'`` or ``'arg:conv0_weight'``, in file order); one saved from a list or a single array
    returns a list. NumPy files (what MXNet 2.0's ``npx.save``/``npx.savez`` write, and
    ``numpy.save``/``numpy.savez``/``numpy.savez_compressed``): a ``.npy`` returns a one-item list, a
    ``.npz`` a dict keyed by member name; numeric dtypes only (object arrays, which need pickle, are
    refused), compressed members count against ``max_bytes``. V3 (np), V2 (nd), V1 and pre-V1 files
    all load, whatever mode wrote them. ``row_sparse`` and ``csr`` arrays come back dense; all of a
    file's sparse arrays together may expand to at most ``max_bytes`` bytes (keyword-only; default
    :func:`default_max_bytes`: 64 x the file's size, at least 16 MiB), so that a few hundred crafted
    bytes cannot claim gigabytes. Pass a larger ``max_bytes`` for a trusted file that needs it. An
    undefined array (MXNet's "none" NDArray) comes back as ``None``; a V2 array with a zero extent,
    which MXNet's nd mode would also treat as undefined, comes back as the empty array it describes.

    Arrays land on ``device`` (keyword-only; default: the CPU, as in MXNet). With JAX in its default
    32-bit mode, float64/int64/uint64 arrays become 32-bit as everywhere in JAX, and a warning names
    each such array, its dtype, and the way to keep 64 bits:
    ``jax.config.update('jax_enable_x64', True)`` before loading (they then load as float64/int64);
    :func:`load_numpy` keeps them exact in any mode.

    A truncated, corrupted or foreign file raises :class:`ParamsFormatError` naming the file, the
    byte offset and what was expected; no size field is trusted beyond the file's length.

    >>> import numpy as onp
    >>> from framework import npx
    >>> from framework.serialization import dumps
    >>> d = load(dumps({"w": onp.ones((2, 3), "float32")}))
    >>> d["w"].shape, str(d["w"].dtype), d["w"].devices() == {npx.cpu()}
    ((2, 3), 'float32', True)
    """
    target = cpu(0) if device is None else as_device(device, what="device")
    arrays, names, source_name = _load_host(source, max_bytes)
    if not jax.config.jax_enable_x64:
        _warn_if_narrowed(arrays, names, source_name)
    present = [a for a in arrays if a is not None]
    # The host arrays are views of a private buffer nothing else can reach: a CPU target may alias it.
    placed = iter(jax.device_put(present, target, may_alias=True))
    return _pack([None if a is None else next(placed) for a in arrays], names)
