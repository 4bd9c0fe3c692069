"""MXNet's legacy ``nd`` namespace where it is cheap: the ``np`` functions plus ``save``/``load`` in the
legacy (V2) file format.

>>> import framework as mx
>>> mx.nd.ones((2,)).shape
(2,)
"""

from __future__ import annotations

import os
from typing import Any

from . import serialization
from .np import *  # noqa: F403
from .np import __getattr__ as _np_getattr


def save(fname: str | os.PathLike, data: Any) -> None:
    """``mx.nd.save``: legacy V2 format (what MXNet 1.x nd mode writes)."""
    serialization.save(fname, data, format="nd")


def load(fname: str | os.PathLike) -> Any:
    """``mx.nd.load``: reads V1/V2/V3 files."""
    return serialization.load(fname)


def __getattr__(name: str) -> Any:
    return _np_getattr(name)
