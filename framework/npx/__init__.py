"""MXNet's ``npx``: devices, the np switch, and neural-network operators as pure functions (NCHW).

>>> from framework import npx
>>> npx.set_np()
>>> npx.is_np_array()
True
>>> npx.cpu(0).platform
'cpu'
"""

from __future__ import annotations

import jax

from ..device import cpu, cpu_pinned, current_context, current_device, device_scope, gpu, num_gpus
from ..np import random
from ..np._indexing import getitem
from ..np._scalars import to_float, to_int
from ..np.dispatch import recordable
from ..serialization import load, save, savez
from .methods import (
    NDArray,
    as_in_context,
    asnumpy,
    asscalar,
    context_of,
    copy_into,
    copyto,
    device_id,
    device_type,
    item,
    setitem,
    wait_to_read,
)
from .ops import *  # noqa: F403  (the operator catalogue; ops.__all__ lists it)
from .ops import __all__ as _ops_all

__all__ = [
    "set_np", "reset_np", "is_np_array", "is_np_shape", "use_np", "waitall",
    "cpu", "cpu_pinned", "gpu", "num_gpus", "current_context", "current_device", "device_scope",
    "random", "save", "load", "savez",
    "asnumpy", "asscalar", "item", "wait_to_read", "copyto", "copy_into", "as_in_context", "context_of",
    "device_type", "device_id", "setitem", "getitem", "to_float", "to_int", "NDArray",
    *_ops_all,
]


def _make_recordable() -> None:
    for _name in _ops_all:
        globals()[_name] = recordable(globals()[_name])


_make_recordable()


def set_np(shape: bool = True, array: bool = True, dtype: bool = False) -> None:
    """Accepted for MXNet compatibility: this framework is always in NumPy mode. Idempotent."""


def reset_np() -> None:
    """Accepted for MXNet compatibility (no legacy mode exists here)."""


def is_np_array() -> bool:
    return True


def is_np_shape() -> bool:
    return True


def use_np(obj):
    """MXNet's ``@npx.use_np`` decorator: a no-op here."""
    return obj


def waitall() -> None:
    """Block until every computation dispatched so far has finished (MXNet's ``npx.waitall``)."""
    for x in jax.live_arrays():
        x.block_until_ready()


def __getattr__(name: str):
    raise AttributeError(f"framework.npx has no attribute {name!r}")
