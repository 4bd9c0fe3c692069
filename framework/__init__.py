"""framework: MXNet Gluon's programming model rebuilt on JAX.

``from framework import np, npx, gluon, autograd`` is the seed's import line; ``import framework as mx``
offers what ``import mxnet as mx`` does for Gluon users.

>>> import framework as mx
>>> from framework import np, npx
>>> x = np.ones((3, 4), ctx=mx.cpu())
>>> x.shape
(3, 4)
"""

from __future__ import annotations

import importlib

from . import np, npx
from ._compile import clear_caches
from .base import FrameworkError, MXNetError
from .device import (
    Context,
    Device,
    cpu,
    cpu_pinned,
    current_context,
    current_device,
    device_scope,
    gpu,
    num_gpus,
)
from .util import (
    is_np_array,
    is_np_shape,
    np_array,
    np_shape,
    set_np_shape,
    use_np,
    use_np_array,
    use_np_shape,
)

__version__ = "0.1.0"

_LAZY = {
    "gluon": "framework.gluon",
    "autograd": "framework.autograd",
    "init": "framework.initializer",
    "initializer": "framework.initializer",
    "optimizer": "framework.optimizer",
    "lr_scheduler": "framework.lr_scheduler",
    "metric": "framework.gluon.metric",
    "parallel": "framework.parallel",
    "serialization": "framework.serialization",
    "test_utils": "framework.test_utils",
    "nd": "framework.nd",
    "ndarray": "framework.nd",
    "util": "framework.util",
    "context": "framework.device",
    "io": "framework.io",
    "kv": "framework.kvstore",
    "kvstore": "framework.kvstore",
    "image": "framework.image",
    "img": "framework.image",
    "recordio": "framework.recordio",
    "profiler": "framework.profiler",
    "callback": "framework.callback",
    "operator": "framework.operator",
    "sym": "framework.symbol",
    "symbol": "framework.symbol",
    "name": "framework.symbol.naming",
    "attribute": "framework.symbol.naming",
    "mod": "framework.module",
    "module": "framework.module",
    "model": "framework.model",
    "numpy": "framework.np",
    "numpy_extension": "framework.npx",
    "rnd": "framework.np.random",
    "log": "framework.log",
    "config": "framework.config",
    "contrib": "framework.contrib",
    "error": "framework.error",
    "registry": "framework.registry",
    "runtime": "framework.runtime",
    "engine": "framework.engine",
    "executor": "framework.executor",
    "monitor": "framework.monitor",
    "mon": "framework.monitor",
    "visualization": "framework.visualization",
    "viz": "framework.visualization",
}

#: classes MXNet offers on ``mx`` itself, imported from their modules when first used
_LAZY_ATTRS = {
    "AttrScope": ("framework.symbol.naming", "AttrScope"),
}

__all__ = [
    "np", "npx", "cpu", "gpu", "cpu_pinned", "num_gpus", "current_context", "current_device",
    "Context", "Device", "device_scope", "random", "clear_caches", "FrameworkError", "MXNetError", *_LAZY,
    *_LAZY_ATTRS,
    "is_np_array", "is_np_shape", "np_array", "np_shape", "set_np_shape", "use_np", "use_np_array",
    "use_np_shape",
]

random = np.random


def __getattr__(name: str):
    if name in _LAZY:
        module = importlib.import_module(_LAZY[name])
        globals()[name] = module
        return module
    if name in _LAZY_ATTRS:
        module_name, attr = _LAZY_ATTRS[name]
        value = getattr(importlib.import_module(module_name), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'framework' has no attribute {name!r}")
