"""``mx.sym._internal``: the operator names starting with ``_`` (``_Plus``, ``_plus_scalar``, ``_zeros``,
...), which symbol arithmetic and ``mx.sym.zeros`` use.

>>> from framework.symbol import _internal
>>> _internal._PlusScalar(_internal._zeros(shape=(2,)), scalar=1, name='p').list_outputs()
['p_output']
"""

from __future__ import annotations

from ._namespaces import functions

globals().update(functions("_internal"))
__all__ = sorted(functions("_internal"))
