"""Make ``jax.numpy`` functions record under :func:`framework.autograd.record`.

A function wrapped here behaves exactly as the jax.numpy one, unless one of its arguments is a recorded
value (see :mod:`framework.autograd`): then the call becomes a node of the recorded computation.

>>> import jax.numpy as jnp
>>> recordable(jnp.add)(1.0, 2.0).item()
3.0
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

import jax

from ..autograd import tape


def _array_like(x: Any) -> bool:
    """An object that converts itself to an array (``__jax_array__``) but is none: JAX no longer does
    that conversion for arguments of its functions, so it is done here (an initializer's ``arr``)."""
    return hasattr(type(x), "__jax_array__") and not isinstance(x, (jax.Array, tape.Value))


def _concrete(x: Any) -> Any:
    return x.__jax_array__() if _array_like(x) else x


def recordable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap ``fn`` so that calls with recorded arguments are recorded."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        # a generator or other iterator is read once here, not once by the check and again by fn
        args = tuple(list(a) if isinstance(a, Iterator) else a for a in args)
        if tape.any_recorded(args, kwargs):
            return tape.record_call(fn, args, kwargs)
        if any(_array_like(a) for a in args) or any(_array_like(v) for v in kwargs.values()):
            args = tuple(_concrete(a) for a in args)
            kwargs = {k: _concrete(v) for k, v in kwargs.items()}
        return fn(*args, **kwargs)

    wrapper.__wrapped__ = fn
    return wrapper
