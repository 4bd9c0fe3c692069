"""``mx.sym.linalg``: the ``_linalg_<name>`` operators (``gemm2``, ``potrf``, ``inverse``, ...).

>>> from framework import symbol
>>> symbol.linalg.gemm2(symbol.var('a'), symbol.var('b'), name='g').list_arguments()
['a', 'b']
"""

from __future__ import annotations

from ._namespaces import functions

globals().update(functions("linalg"))
__all__ = sorted(functions("linalg"))
