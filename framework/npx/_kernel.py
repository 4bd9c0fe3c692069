"""Run an operator with loops or many small steps as one compiled program, also when called eagerly.

``@compiled("data", "rois")`` marks which parameters are arrays; every other argument is static and part
of the program's description (``framework._compile`` caches the program; under an outer ``jax.jit`` the
call is inlined). Eagerly, a ``lax.fori_loop`` over boxes then costs one dispatch instead of one per
primitive.

>>> import jax.numpy as jnp
>>> @compiled("x")
... def scale(x, by=2.0):
...     return x * by
>>> scale(jnp.ones(2), by=3.0).tolist()
[3.0, 3.0]
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from .. import _compile

__all__ = ["compiled"]


def compiled(*array_params: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate ``fn`` so it runs through one cached ``jax.jit`` per set of static arguments."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(fn)
        unknown = set(array_params) - set(sig.parameters)
        if unknown:
            raise TypeError(f"compiled: {fn.__qualname__} has no parameters {sorted(unknown)}")

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"{fn.__name__}: {e}") from None
            arrays = {k: (None if v is None else jnp.asarray(v))
                      for k, v in bound.arguments.items() if k in array_params}
            statics = {k: v for k, v in bound.arguments.items() if k not in array_params}
            key = _compile.static(tuple(sorted(statics.items())))
            desc = ("npx-kernel", fn.__module__, fn.__qualname__, key)
            prog = _compile.jit(desc, lambda: lambda arrs: fn(**arrs, **statics))
            return prog(arrays)

        wrapper.__wrapped__ = fn
        return wrapper

    return deco
