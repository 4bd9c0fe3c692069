"""``mxnet.contrib``: what libraries written for MXNet 1.x import from it (:mod:`~framework.contrib.amp`,
:mod:`~framework.contrib.io`).

>>> from framework.contrib import amp
>>> amp.init()
"""

from __future__ import annotations

from . import amp, io, text

__all__ = ["amp", "io", "text"]
