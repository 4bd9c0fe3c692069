"""MXNet 1.x's ``HybridBlock.hybrid_forward(self, F, x, *args, **params)``.

A HybridBlock subclass that defines ``hybrid_forward`` instead of ``forward`` is called with ``F`` the
``mx.nd`` namespace (:mod:`framework.nd`, whose operators take JAX arrays and tracers alike) and each of
its own registered Parameters (and constants) passed by attribute name as its value in the current call.
The same Block then runs eagerly, hybridized (one ``jax.jit``), under ``autograd.record()`` and inside
``parallel.DataParallel``'s compiled step, because ``forward`` is the one pure function every path uses.

>>> from framework import gluon, nd
>>> class Scale(gluon.HybridBlock):
...     def __init__(self, **kwargs):
...         super().__init__(**kwargs)
...         self.alpha = self.params.get('alpha', shape=(1,), init='ones')
...     def hybrid_forward(self, F, x, alpha):
...         return F.broadcast_mul(x, alpha * 2)
>>> s = Scale(); s.initialize()
>>> s(nd.ones((2,))).tolist()
[2.0, 2.0]
"""

from __future__ import annotations

from typing import Any

from . import binding as _binding

__all__ = ["call_hybrid_forward", "defines_hybrid_forward"]


def defines_hybrid_forward(block: Any) -> bool:
    """True when ``block``'s class defines ``hybrid_forward`` (the framework's Blocks do not)."""
    return callable(getattr(type(block), "hybrid_forward", None))


def call_hybrid_forward(block: Any, *args: Any) -> Any:
    """``block.hybrid_forward(F, *args, **{name: value})`` with F = framework.nd."""
    from .. import nd

    params = {name: p for name, p in block._reg_params.items() if p is not None}
    values = {name: p.data() for name, p in params.items()}
    bound = _binding.current()
    if bound is not None and bound.values is None:  # imperative: values found by parameter_of
        bound.hand(params, values)
    return block.hybrid_forward(nd, *args, **values)
