"""``mxnet.contrib``: what libraries written for MXNet 1.x import from it (:mod:`~framework.contrib.amp`).

>>> from framework.contrib import amp
>>> amp.init()
"""

from __future__ import annotations

from . import amp, text

__all__ = ["amp", "text"]
