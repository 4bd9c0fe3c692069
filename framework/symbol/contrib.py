"""``mx.sym.contrib``: the contrib operators a graph can name (``_contrib_<name>`` in the graph), every one
the interpreter runs (``box_nms``, ``MultiBoxPrior``, ``ROIAlign``, ``BilinearResize2D``,
``SyncBatchNorm``, ...), with ``mx.sym``'s rules for inputs, attributes and names.

>>> from framework import symbol
>>> bn = symbol.contrib.SyncBatchNorm(symbol.var('data'), name='bn', key='k')
>>> bn.list_arguments(), bn.list_auxiliary_states()
(['data', 'bn_gamma', 'bn_beta'], ['bn_moving_mean', 'bn_moving_var'])
"""

from __future__ import annotations

from ._namespaces import functions

globals().update(functions("contrib"))
__all__ = sorted(functions("contrib"))
