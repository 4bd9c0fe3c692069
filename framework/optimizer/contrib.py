"""MXNet's ``mx.optimizer.contrib``: :class:`GroupAdaGrad`.

>>> from framework import optimizer
>>> optimizer.contrib.GroupAdaGrad(eps=1e-6).float_stable_eps
1e-06
"""

from .large_batch import GroupAdaGrad

__all__ = ["GroupAdaGrad"]
