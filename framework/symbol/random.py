"""``mx.sym.random``: ``uniform`` and ``normal`` nodes (``_random_uniform``/``_random_normal``), drawn from
the executor's key on every forward.

>>> from framework import symbol
>>> symbol.random.uniform(low=0, high=1, shape=(2,), name='u').list_outputs()
['u_output']
"""

from __future__ import annotations

from ._namespaces import functions

globals().update(functions("random"))
__all__ = sorted(functions("random"))
