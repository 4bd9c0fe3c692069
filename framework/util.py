"""MXNet's ``mx.util``: the NumPy-mode switches (always on here, so the decorators return what they
are given), and environment variables.

>>> import framework as mx
>>> @mx.util.use_np
... class Net:
...     pass
>>> mx.util.is_np_array(), Net.__name__
(True, 'Net')
"""

from __future__ import annotations

import os
from typing import Any, TypeVar

__all__ = ["use_np", "use_np_array", "use_np_shape", "is_np_array", "is_np_shape", "set_np", "reset_np",
           "set_np_shape", "np_shape", "np_array", "getenv", "setenv", "get_cuda_compute_capability",
           "gpu_memory_info"]

T = TypeVar("T")


def use_np(obj: T) -> T:
    """``@mx.util.use_np`` on a function or a class: returned unchanged (NumPy semantics always hold)."""
    return obj


use_np_array = use_np
use_np_shape = use_np


def is_np_array() -> bool:
    return True


def is_np_shape() -> bool:
    return True


def set_np(shape: bool = True, array: bool = True, dtype: bool = False) -> None:
    """Accepted: NumPy mode is always on; ``shape=False``/``array=False`` (the legacy mode) is an error."""
    if not (shape and array):
        raise ValueError("set_np(shape=False/array=False): the legacy (non-NumPy) mode does not exist here; "
                         "MXNet 1.x's nd operators are in framework.nd")


def reset_np() -> None:
    """Accepted for MXNet compatibility (no legacy mode exists here)."""


def set_np_shape(active: bool) -> bool:
    """Returns the previous state (always True); turning NumPy shapes off is an error."""
    if not active:
        raise ValueError("set_np_shape(False): legacy shape semantics do not exist here")
    return True


class _Scope:
    def __init__(self, active: bool = True) -> None:
        if not active:
            raise ValueError("the legacy (non-NumPy) mode does not exist here")

    def __enter__(self) -> _Scope:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


np_shape = _Scope
np_array = _Scope


def getenv(name: str) -> str | None:
    """The environment variable ``name`` (None when unset)."""
    return os.environ.get(name)


def setenv(name: str, value: str | None) -> None:
    """Set (or, with None, remove) the environment variable ``name``."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)


def get_cuda_compute_capability(ctx: Any) -> int:
    """The CUDA compute capability of a GPU device as an integer (8.0 -> 80): ``npx``'s function."""
    from .npx.devices_info import get_cuda_compute_capability as capability

    return capability(ctx)


def gpu_memory_info(device_id: int = 0) -> tuple[int, int]:
    """``(free, total)`` bytes of GPU ``device_id``'s memory: ``npx``'s function."""
    from .npx.devices_info import gpu_memory_info as info

    return info(device_id)
