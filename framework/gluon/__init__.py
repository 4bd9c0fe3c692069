"""Gluon: Blocks, Parameters, layers, losses, Trainer, data, metrics, utils.

>>> from framework import gluon
>>> isinstance(gluon.nn.HybridSequential(), gluon.HybridBlock)
True
"""

from __future__ import annotations

import importlib

from . import nn
from .block import Block, HybridBlock
from .parameter import Constant, DeferredInitializationError, Parameter, ParameterDict
from .symbol_block import SymbolBlock

__all__ = [
    "Block", "HybridBlock", "SymbolBlock", "Parameter", "ParameterDict", "Constant",
    "DeferredInitializationError", "nn", "loss", "data", "utils", "metric", "Trainer", "rnn", "model_zoo",
    "contrib", "probability",
]

# Submodules imported on first use (only modules that exist: a test imports each).
_LAZY = {"loss": ".loss", "data": ".data", "utils": ".utils", "metric": ".metric", "model_zoo": ".model_zoo",
         "rnn": ".rnn", "contrib": ".contrib", "probability": ".probability"}


def __getattr__(name: str):
    if name == "Trainer":
        from .trainer import Trainer

        return Trainer
    if name in _LAZY:
        try:
            module = importlib.import_module(_LAZY[name], __name__)
        except ModuleNotFoundError as e:  # hasattr() must see False, not an import error
            if e.name != __name__ + _LAZY[name]:
                raise
            raise AttributeError(f"module 'framework.gluon' has no attribute {name!r} ({e})") from e
        globals()[name] = module
        return module
    raise AttributeError(f"module 'framework.gluon' has no attribute {name!r}")
