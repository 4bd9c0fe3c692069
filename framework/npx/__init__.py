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

from .. import _refusals
from ..device import Context, cpu, cpu_pinned, current_context, current_device, device_scope, gpu, num_gpus
from ..np._indexing import getitem, nd_getitem
from ..np._scalars import to_float, to_int
from ..np.dispatch import recordable
from ..serialization import load, save, savez
from . import control_flow, random, utils
from .attach_owned import attach_grad_attributes
from .control_flow import cond, foreach, while_loop
from .devices_info import get_cuda_compute_capability, gpu_memory_info
from .interop import from_dlpack, from_numpy, to_dlpack_for_read
from .methods import (
    NDArray,
    as_in_context,
    asnumpy,
    asscalar,
    context_of,
    copy_into,
    copyto,
    detach,
    device_id,
    device_type,
    item,
    setitem,
    wait_to_read,
)
from .ops import *  # noqa: F403  (the operator catalogue; ops.__all__ lists it)
from .ops import __all__ as _ops_all
from .v2_names import ALIASES as _V2_ALIASES
from .v2_names import (
    index_add,
    index_update,
    intgemm_maxabsolute,
    intgemm_prepare_data,
    is_np_default_dtype,
    set_np_default_dtype,
)
from .v2_names import resolve as _resolve_v2

__all__ = [
    "set_np", "reset_np", "is_np_array", "is_np_shape", "use_np", "waitall",
    "cpu", "cpu_pinned", "gpu", "num_gpus", "current_context", "current_device", "device_scope", "Context",
    "gpu_memory_info", "get_cuda_compute_capability", "image",
    "random", "save", "load", "savez",
    "asnumpy", "asscalar", "detach", "item", "wait_to_read", "copyto", "copy_into",
    "as_in_context",
    "context_of",
    "device_type", "device_id", "setitem", "getitem", "nd_getitem", "to_float", "to_int",
    "attach_grad_attributes",
    "NDArray", "from_numpy", "from_dlpack", "to_dlpack_for_read", "utils",
    # MXNet 2.0 names: control flow, index updates, and 1.x operators under 2.0 names (v2_names.ALIASES,
    # resolved on first use by __getattr__ below)
    "control_flow", "cond", "foreach", "while_loop", "index_add", "index_update", "is_np_default_dtype",
    "set_np_default_dtype", "intgemm_maxabsolute", "intgemm_prepare_data", *_V2_ALIASES,
    *_ops_all,
]


def _mode_when_called(fn, p_at: int | None, mode_at: int | None):
    """``fn`` (batch_norm, dropout, rnn) with ``training`` (and, where it drops, ``key``) fixed when
    called, so that a call recorded under ``autograd.record()`` replays for ``backward`` in its own mode,
    with its own mask. ``p_at``/``mode_at``: positions of the ``p``/``mode`` arguments (None: none)."""
    import functools

    from ..autograd import mode as _mode
    from ..np import random as _rnd

    rec = recordable(fn)

    @functools.wraps(fn)
    def wrapper(*args, training=None, **kwargs):
        training = _mode.is_training() if training is None else bool(training)
        if p_at is not None and kwargs.get("key") is None:
            p = kwargs.get("p", args[p_at] if len(args) > p_at else (0.5 if mode_at is not None else 0.0))
            mode = kwargs.get("mode", args[mode_at] if mode_at is not None and len(args) > mode_at
                              else "training")
            if (mode == "always" or training) and 0.0 < float(p) < 1.0:
                kwargs["key"] = _rnd.next_key()
        return rec(*args, training=training, **kwargs)

    return wrapper


_WHEN_CALLED = {"batch_norm": (None, None), "dropout": (1, 2), "rnn": (9, None)}


def _make_recordable() -> None:
    for _name in _ops_all:
        fn = globals()[_name]
        if _name in _WHEN_CALLED:
            globals()[_name] = _mode_when_called(fn, *_WHEN_CALLED[_name])
        else:
            globals()[_name] = recordable(fn)


_make_recordable()


#: MXNet ``mx.npx`` names that are not offered: ``{name: "reason; instead: ..."}`` (a view of
#: ``framework._refusals``, the one table of refusals).
NOT_SUPPORTED: dict[str, str] = _refusals.not_supported("mx.npx")


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
    if name == "image":  # imported when first used (it reads framework.nd and framework.image)
        import importlib

        module = importlib.import_module(".image", __name__)
        globals()["image"] = module
        return module
    if name in _V2_ALIASES:  # a 1.x nd/nd.contrib operator under its MXNet 2.0 name (framework.nd is
        value = _resolve_v2(name)  # imported when first used: it imports framework.npx)
        globals()[name] = value
        return value
    raise AttributeError(_refusals.refusal_message("mx.npx", name)
                         or f"framework.npx has no attribute {name!r}")
