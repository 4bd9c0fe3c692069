"""MXNet's ``npx.utils``: ``save``/``load`` (and 2.0's ``savez``) of arrays, as on ``npx`` itself.

>>> from framework.npx import utils
>>> utils.save is __import__('framework').npx.save
True
"""

from __future__ import annotations

from ..serialization import load, save, savez

__all__ = ["save", "load", "savez"]
