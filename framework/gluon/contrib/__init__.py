"""MXNet 1.9.1's ``gluon.contrib``: extra layers (``nn``, ``cnn``, ``rnn``), the ``estimator`` training
loop with its event handlers, and ``data`` samplers. Submodules load on first use.

>>> from framework import gluon
>>> net = gluon.contrib.nn.HybridConcurrent(axis=1)
>>> type(net).__name__
'HybridConcurrent'
"""

from __future__ import annotations

import importlib

__all__ = ["nn", "cnn", "rnn", "data", "estimator"]

_LAZY = {"nn": ".nn", "cnn": ".cnn", "rnn": ".rnn", "data": ".data", "estimator": ".estimator"}


def __getattr__(name: str):
    if name in _LAZY:
        try:
            module = importlib.import_module(_LAZY[name], __name__)
        except ModuleNotFoundError as e:  # hasattr() must see False, not an import error
            if e.name != __name__ + _LAZY[name]:
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r} ({e})") from e
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
