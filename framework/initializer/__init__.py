"""MXNet's weight initializers as pure functions of ``(name, shape, dtype, key)``.

Arrays are immutable, so an initializer *returns* the array instead of filling one. Two entry points:

- ``init(name, shape, dtype, key=k)`` dispatches on the parameter name's suffix exactly like MXNet's
  ``Initializer.__call__``: ``...weight`` -> the initializer's rule, ``...bias``/``...beta`` -> 0,
  ``...gamma`` -> 1, running/moving mean -> 0, running/moving var -> 1, ``...min`` -> 0, ``...max`` -> 1;
  anything else raises MXNet's "Unknown initialization pattern" error. This is what a Block-level
  default initializer does.
- ``init.init_array(shape, dtype, key=k)`` applies the rule itself whatever the name (MXNet's
  ``_init_weight``), which is what a parameter's *own* initializer does (``bias_initializer='zeros'``).

Fan-in/fan-out follow MXNet for Gluon's ``(out, in, *kernel)`` layout.

>>> import jax
>>> from framework import initializer as init
>>> w = init.Xavier()('0.weight', (4, 3), 'float32', key=jax.random.key(0))
>>> w.shape, str(w.dtype)
((4, 3), 'float32')
>>> init.Uniform()('0.bias', (2,), 'float32', key=jax.random.key(0)).tolist()
[0.0, 0.0]
>>> init.create('zeros').dumps()
'["zero", {}]'
"""
from __future__ import annotations

import jax

from ..util import is_np_array
from .base import Constant, InitDesc, Initializer, One, Zero, alias, create, register
from .rules import Bilinear, Load, LSTMBias, Mixed, MSRAPrelu, Normal, Orthogonal, Uniform, Xavier

NDArray = jax.Array


def load(fname: str) -> dict:
    """``mx.nd.load``: the arrays of a ``.params`` file (for ``Load`` initializers)."""
    from .. import serialization

    return serialization.load(fname)


__all__ = [
    "NDArray", "is_np_array", "load", "InitDesc", "Initializer", "Uniform", "Normal", "Zero", "One",
    "Constant", "Xavier", "MSRAPrelu", "Orthogonal", "Bilinear", "LSTMBias", "Mixed", "Load", "register",
    "alias", "create",
]
