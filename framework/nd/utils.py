"""MXNet's ``mx.nd.utils``: the array makers and file functions that module gathers (``zeros``,
``empty``, ``array``, ``load``, ``load_frombuffer``, ``save``) under their ``mx.nd`` behaviour.

>>> from framework.nd import utils
>>> utils.zeros((2,)).tolist()
[0.0, 0.0]
"""

from __future__ import annotations

from . import load, save
from .creation import array, empty, zeros
from .legacy_ops import load_frombuffer

__all__ = ["zeros", "empty", "array", "load", "load_frombuffer", "save"]
