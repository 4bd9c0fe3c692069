"""Random draws made outside a trace, compiled once per size class instead of once per shape.

``jax.random.uniform(key, shape)`` called eagerly compiles a program for every new shape, and XLA:CPU
takes 0.2 s to 1.5 s for each (the threefry hash laid out over a 4-d shape is the slow case). A model's
initialisation draws a few dozen shapes, a notebook a few hundred: seconds to minutes of compiling. Here
an eager draw fills a flat vector whose length is the shape's size rounded up to a size class (4 Ki or
64 Ki values for every small draw, whose extra values cost microseconds; above that four classes per
octave, at most 25% more values than asked for), and a small program per shape takes the first values
and scales them. Inside a trace (a key that is a tracer) the draw is ``jax.random``'s own, part of the
caller's program.

The values are those of ``jax.random`` for the flat vector, so a key still determines them; they are not
the values of ``jax.random.uniform(key, shape)`` itself.

>>> import jax
>>> u = uniform(jax.random.key(0), (3, 5), minval=-1.0, maxval=1.0)
>>> u.shape, bool((u >= -1).all() and (u < 1).all())
((3, 5), True)
>>> size_class(150), size_class(48_000), size_class(100_000)
(4096, 65536, 114688)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from . import _compile

__all__ = ["uniform", "normal", "size_class"]

_SMALL_CLASSES = (1 << 12, 1 << 16)


def size_class(n: int) -> int:
    """The length of the flat draw that serves ``n`` values."""
    for length in _SMALL_CLASSES:
        if n <= length:
            return length
    step = 1 << ((n - 1).bit_length() - 3)  # n needs between 4 and 8 steps of this size
    return -(-n // step) * step


class _Programs:
    """The owner of this module's compiled programs (see :mod:`framework._compile`)."""


_programs = _Programs()


def _eager(key: Any, shape: tuple[int, ...]) -> bool:
    return not isinstance(key, jax.core.Tracer) and math.prod(shape) > 0


def _flat(kind: str, key: jax.Array, length: int, dtype: Any) -> jax.Array:
    draw = jax.random.uniform if kind == "uniform" else jax.random.normal
    return _compile.jit(("draw", kind, length, jnp.dtype(dtype).name),
                        lambda: lambda k: draw(k, (length,), dtype), owner=_programs)(key)


def _finish(kind: str, flat: jax.Array, shape: tuple[int, ...], a: Any, b: Any) -> jax.Array:
    def build():
        def finish(values, a, b):
            x = values[:math.prod(shape)].reshape(shape)
            if kind == "uniform":  # as jax.random.uniform: min + u (max - min), never below min
                return jnp.maximum(a, x * (b - a) + a).astype(values.dtype)
            return (x * a).astype(values.dtype)
        return finish
    return _compile.jit(("draw_finish", kind, shape, flat.shape[0], flat.dtype.name), build,
                        owner=_programs)(flat, a, b)


def _shape(shape: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(d) for d in shape)


def uniform(key: jax.Array, shape: Sequence[int] = (), dtype: Any = jnp.float32, minval: Any = 0.0,
            maxval: Any = 1.0) -> jax.Array:
    """``jax.random.uniform``'s signature and distribution; eager draws compile per size class."""
    shape = _shape(shape)
    if not _eager(key, shape) or jnp.ndim(minval) or jnp.ndim(maxval):
        return jax.random.uniform(key, shape, dtype, minval, maxval)
    flat = _flat("uniform", key, size_class(math.prod(shape)), dtype)
    return _finish("uniform", flat, shape, jnp.asarray(minval, dtype), jnp.asarray(maxval, dtype))


def normal(key: jax.Array, shape: Sequence[int] = (), dtype: Any = jnp.float32,
           scale: Any = 1.0) -> jax.Array:
    """``jax.random.normal(key, shape, dtype) * scale``; eager draws compile per size class."""
    shape = _shape(shape)
    if not _eager(key, shape) or jnp.ndim(scale):
        return jax.random.normal(key, shape, dtype) * scale
    flat = _flat("normal", key, size_class(math.prod(shape)), dtype)
    return _finish("normal", flat, shape, jnp.asarray(scale, dtype), jnp.asarray(0, dtype))
