"""MXNet 1.x's ``mx.nd`` (also ``mx.ndarray``): the NDArray operator functions over :class:`jax.Array`,
with 1.x names, argument spellings and semantics (``concat(dim=1)``, reshape codes 0/-1/-2/-3/-4, full
reductions of shape (1,), float32 indices), plus ``save``/``load`` in the legacy (V2) file format.
``nd.NDArray`` is :class:`jax.Array`, so ``isinstance(x, nd.NDArray)`` holds for every array. Inside
``autograd.record()`` every operator records; ``F`` in a 1.x ``hybrid_forward`` is this module.

Each concept lives in its own module: ``creation``, ``arithmetic``, ``reduction``, ``shape``,
``indexing``, ``sequence``, ``sort``, ``linalg``, ``nn``, ``random``.

>>> import framework as mx
>>> x = mx.nd.array([[1, 2], [3, 4]])
>>> isinstance(x, mx.nd.NDArray), x.dtype
(True, dtype('float32'))
>>> mx.nd.concat(x, x).shape, mx.nd.sum(x).tolist()
((2, 4), [10.0])
>>> mx.nd.FullyConnected(x, mx.nd.ones((3, 2)), no_bias=True, num_hidden=3).tolist()
[[3.0, 3.0, 3.0], [7.0, 7.0, 7.0]]
"""

from __future__ import annotations

import os
from typing import Any

import jax
import numpy as onp

from .. import _refusals, serialization
from ..np._indexing import is_framework_array
from . import contrib, image, linalg, random
from .arithmetic import *  # noqa: F403
from .arithmetic import __all__ as _arith_all
from .array_extras import *  # noqa: F403
from .array_extras import __all__ as _extras_all
from .creation import *  # noqa: F403
from .creation import __all__ as _creation_all
from .ctc import *  # noqa: F403
from .ctc import __all__ as _ctc_all
from .fused_rnn import *  # noqa: F403
from .fused_rnn import __all__ as _rnn_all
from .indexing import *  # noqa: F403
from .indexing import __all__ as _indexing_all
from .legacy_ops import *  # noqa: F403
from .legacy_ops import __all__ as _legacy_all
from .nn import *  # noqa: F403
from .nn import __all__ as _nn_all
from .optimizer_ops import *  # noqa: F403
from .optimizer_ops import __all__ as _optimizer_all
from .random_pdf import *  # noqa: F403
from .random_pdf import __all__ as _pdf_all
from .reduction import *  # noqa: F403
from .reduction import __all__ as _reduction_all
from .sequence import *  # noqa: F403
from .sequence import __all__ as _sequence_all
from .shape import *  # noqa: F403
from .shape import __all__ as _shape_all
from .sort import *  # noqa: F403
from .sort import __all__ as _sort_all
from .vision import *  # noqa: F403
from .vision import __all__ as _vision_all

NDArray = jax.Array

_LINALG_ALIASES = {f"linalg_{n}": getattr(linalg, n) for n in linalg.__all__}
globals().update(_LINALG_ALIASES)
_RANDOM_ALIASES = {"uniform": random.uniform, "normal": random.normal,
                   "sample_uniform": random.uniform, "sample_normal": random.normal,
                   "sample_gamma": random.gamma, "sample_exponential": random.exponential,
                   "sample_poisson": random.poisson, "sample_negative_binomial": random.negative_binomial,
                   "sample_generalized_negative_binomial": random.generalized_negative_binomial,
                   "random_negative_binomial": random.negative_binomial,
                   "random_generalized_negative_binomial": random.generalized_negative_binomial,
                   "random_uniform": random.uniform, "random_normal": random.normal,
                   "random_randint": random.randint, "random_poisson": random.poisson,
                   "random_exponential": random.exponential, "random_gamma": random.gamma,
                   "sample_multinomial": random.multinomial, "shuffle": random.shuffle}
globals().update(_RANDOM_ALIASES)

__all__ = [
    "NDArray", "save", "load", "waitall", "array_method", "contrib", "image", "linalg", "random",
    "NOT_SUPPORTED",
    *_arith_all, *_extras_all, *_legacy_all, *_pdf_all, *_creation_all, *_ctc_all, *_rnn_all,
    *_indexing_all, *_nn_all, *_optimizer_all, *_reduction_all, *_sequence_all, *_shape_all, *_sort_all,
    *_vision_all, *_LINALG_ALIASES, *_RANDOM_ALIASES,
]


def save(fname: str | os.PathLike, data: Any) -> None:
    """``mx.nd.save``: an array, a list or a dict of arrays in the legacy V2 format (what 1.x writes)."""
    serialization.save(fname, data, format="nd")


def load(fname: str | os.PathLike) -> Any:
    """``mx.nd.load``: reads V1/V2/V3 files (a list, or a dict when the file has names)."""
    return serialization.load(fname)


def array_method(x: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """``x.<name>(...)`` for a receiver the porter cannot type, decided when it runs: on an array of the
    framework (a ``jax.Array``, recorded value or Variable: an NDArray in MXNet 1.x code), or a NumPy
    array that lacks the method, the operator of this module the NDArray method stood for,
    ``nd.<name>(x, ...)``; on anything else the object's own method.

    >>> import numpy as onp
    >>> from framework import nd
    >>> nd.array_method(nd.array([1.0, 2.0]), "tile", reps=(2, 1)).shape
    (2, 2)
    >>> nd.array_method(nd.ones((2, 3, 4)), "flatten").shape  # MXNet's flatten keeps the first axis
    (2, 12)
    >>> nd.array_method(onp.ones((2, 3)), "flatten").shape  # NumPy's own
    (6,)
    >>> nd.array_method("a b", "split")
    ['a', 'b']
    """
    if is_framework_array(x) or (isinstance(x, onp.ndarray) and not hasattr(x, name)):
        return globals()[name](x, *args, **kwargs)
    return getattr(x, name)(*args, **kwargs)


def waitall() -> None:
    """Block until every computation dispatched so far has finished."""
    from .. import npx

    npx.waitall()


#: MXNet 1.9.1 ``mx.nd`` names that are not offered: ``{name: "reason; instead: ..."}`` (a view of
#: ``framework._refusals``, the one table of refusals).
NOT_SUPPORTED: dict[str, str] = _refusals.not_supported("mx.nd")

# MXNet's nd.np / nd.npx (nd.numpy / nd.numpy_extension): what a 1.x hybrid_forward's F offers in np mode
from .. import np, npx  # noqa: E402

numpy, numpy_extension = np, npx


def __getattr__(name: str) -> Any:
    if name == "Custom":  # user-defined operators (framework.operator), imported on first use
        from ..operator import Custom

        return Custom
    if name in ("ndarray", "op"):  # mx.nd.ndarray; mx.nd.op, MXNet's module of the generated operators
        import importlib

        return importlib.import_module("framework.nd")
    if name == "utils":
        import importlib

        return importlib.import_module("framework.nd.utils")
    refused = _refusals.refusal_message("mx.nd", name)
    if refused:
        raise AttributeError(refused)
    raise AttributeError(
        f"framework.nd has no attribute {name!r}: it is not one of MXNet 1.x's NDArray functions "
        "supported here (see framework/nd/__init__.py for the list; framework.np has NumPy's names)"
    )


def __dir__() -> list[str]:
    return sorted(__all__)
