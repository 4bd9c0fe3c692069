"""MXNet 1.x's ``mx.nd.contrib`` (``F.contrib`` inside a 1.x ``hybrid_forward``): detection
(``box_nms``, ``box_iou``, ``box_encode``/``box_decode``, ``bipartite_matching``, ``MultiBox*``,
``ROIAlign``), resizing and adaptive pooling, control flow (``foreach``, ``while_loop``, ``cond``) and the
smaller tensor operators, each a pure JAX function that runs eagerly, under ``jax.jit`` and inside
``autograd.record()``. The contrib names MXNet has but this package does not are listed, with the
reason, in ``NOT_SUPPORTED``.

>>> import framework as mx
>>> mx.nd.contrib.BilinearResize2D(mx.nd.ones((1, 1, 2, 2)), height=4, width=4).shape
(1, 1, 4, 4)
"""

from __future__ import annotations

from typing import Any

from ... import _refusals
from .. import optimizer_ops as _optimizer_ops
from .control_flow import *  # noqa: F403
from .control_flow import __all__ as _control_flow_all
from .detection import *  # noqa: F403
from .detection import __all__ as _detection_all
from .quantization import *  # noqa: F403
from .quantization import __all__ as _quantization_all
from .signal import *  # noqa: F403
from .signal import __all__ as _signal_all
from .tensor import *  # noqa: F403
from .tensor import __all__ as _tensor_all

globals().update({_n: getattr(_optimizer_ops, _n) for _n in _optimizer_ops.CONTRIB})

__all__ = [*_control_flow_all, *_detection_all, *_quantization_all, *_signal_all, *_tensor_all,
           *_optimizer_ops.CONTRIB, "NOT_SUPPORTED"]

#: MXNet 1.9.1 ``mx.nd.contrib`` names that are not offered: ``{name: "reason; instead: ..."}`` (a view
#: of ``framework._refusals``, the one table of refusals).
NOT_SUPPORTED: dict[str, str] = _refusals.not_supported("mx.nd.contrib")


def __getattr__(name: str) -> Any:
    refused = _refusals.refusal_message("mx.nd.contrib", name)
    if refused:
        raise AttributeError(refused)
    raise AttributeError(f"framework.nd.contrib has no attribute {name!r}: it is not one of MXNet 1.x's "
                         "contrib operators supported here")


def __dir__() -> list[str]:
    return sorted(__all__)
