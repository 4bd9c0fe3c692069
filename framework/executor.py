"""``mx.executor``: the executor class of bound symbols (``sym.bind``/``sym.simple_bind`` make them).

>>> import framework as mx
>>> exe = (mx.sym.var('x') * 2).simple_bind(None, x=(2,))
>>> isinstance(exe, mx.executor.Executor)
True
"""

from __future__ import annotations

from .symbol._executor import Executor

__all__ = ["Executor"]
