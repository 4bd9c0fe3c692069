"""Random draws made outside a trace without a compiled program per shape.

``jax.random.uniform(key, shape)`` called eagerly compiles a program for every new shape, and XLA:CPU
takes 0.2 s to 1.5 s for each (the threefry hash laid out over a 4-d shape is the slow case); a model's
initialisation draws a few dozen shapes, a notebook a few hundred. And a cached program still costs its
tracing and lowering in every new process (about 0.13 s for each flat draw).

Here an eager draw is made of flat vectors of two lengths only: 4 Ki values for a draw of up to 4 Ki
values, else 64 Ki-value chunks, chunk ``i`` drawn with ``fold_in(key, i)``. So every draw of a kind
and dtype is served by two programs, whatever its shape. When the key lives on a CPU the flat values are
cut, shaped and scaled in host memory and the result is placed where the key is; on an accelerator
(where reading values back would wait for the device) a small program per shape does it. (Fills and
ranges are made in host memory too: :mod:`framework.np.creation`.)
Inside a trace (a key that is a tracer) the draw is ``jax.random``'s own, part of the caller's program.

The values are those of ``jax.random`` for the flat vectors, so a key still determines them; they are
not the values of ``jax.random.uniform(key, shape)`` itself.

>>> import jax
>>> u = uniform(jax.random.key(0), (3, 5), minval=-1.0, maxval=1.0)
>>> u.shape, bool((u >= -1).all() and (u < 1).all())
((3, 5), True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from . import _compile, _threefry

__all__ = ["uniform", "normal", "scalar_parameters", "SMALL", "CHUNK"]

SMALL = 1 << 12  # the flat length of every draw of at most this many values
CHUNK = 1 << 16  # the flat length of each piece of a larger draw
HOST_VALUES = 1 << 24  # uniform values a process draws in host memory (0.15-0.75 s) before the programs
_host_drawn = [0]  # how many it has drawn there (a bounded per-process tier, like framework.np.eager's)


class _Programs:
    """The owner of this module's compiled programs (see :mod:`framework._compile`)."""


_programs = _Programs()


def _eager(key: Any, shape: tuple[int, ...]) -> bool:
    return not isinstance(key, jax.core.Tracer) and math.prod(shape) > 0


def _flat(kind: str, key: jax.Array, length: int, dtype: Any) -> jax.Array:
    draw = jax.random.uniform if kind == "uniform" else jax.random.normal
    return _compile.jit(("draw", kind, length, jnp.dtype(dtype).name),
                        lambda: lambda k: draw(k, (length,), dtype), owner=_programs)(key)


def _chunk(kind: str, key: jax.Array, index: int, dtype: Any) -> jax.Array:
    draw = jax.random.uniform if kind == "uniform" else jax.random.normal
    return _compile.jit(("draw", kind, "chunk", jnp.dtype(dtype).name),
                        lambda: lambda k, i: draw(jax.random.fold_in(k, i), (CHUNK,), dtype),
                        owner=_programs)(key, onp.uint32(index))


def _host_pieces(kind: str, key: jax.Array, n: int, dtype: Any) -> list[onp.ndarray] | None:
    """The flat uniform float32 vectors of :func:`_pieces` computed in host memory (a key on a CPU,
    :mod:`framework._threefry`), while this process has drawn fewer than ``HOST_VALUES`` values there;
    past that, the two programs pay for their compile. None where they are the programs'."""
    if kind != "uniform" or jnp.dtype(dtype) != jnp.float32 or _host_drawn[0] >= HOST_VALUES:
        return None
    words = _threefry.draw_words(key)
    if words is None:
        return None
    if n <= SMALL:
        pieces = [_threefry.uniform_flat(words, SMALL)]
    else:
        pieces = [_threefry.uniform_flat(_threefry.fold_in_words(words, i), CHUNK)
                  for i in range(-(-n // CHUNK))]
    _host_drawn[0] += sum(p.size for p in pieces)
    return pieces


def _pieces(kind: str, key: jax.Array, n: int, dtype: Any) -> list[Any]:
    """Flat vectors holding at least ``n`` values: one of SMALL values, or ``ceil(n / CHUNK)`` chunks."""
    host = _host_pieces(kind, key, n, dtype)
    if host is not None:
        return host
    if n <= SMALL:
        return [_flat(kind, key, SMALL, dtype)]
    return [_chunk(kind, key, i, dtype) for i in range(-(-n // CHUNK))]


_host_device = _threefry.cpu_device  # where a draw is finished in host memory (None: on the device)


def _place(host: onp.ndarray, key: jax.Array, device: Any) -> jax.Array:
    """``host`` as an array where the key is, committed to that device as the key is."""
    return jax.device_put(host, device) if key.committed else jax.device_put(host)


def _finish(kind: str, key: jax.Array, pieces: list[jax.Array], shape: tuple[int, ...], a: Any,
            b: Any) -> jax.Array:
    n = math.prod(shape)
    device = _host_device(key)
    if device is not None:
        values = onp.concatenate([onp.asarray(p) for p in pieces])[:n].reshape(shape)
        a, b = onp.asarray(a, values.dtype), onp.asarray(b, values.dtype)
        if kind == "uniform":  # as jax.random.uniform: min + u (max - min), never below min
            out = onp.maximum(a, values * (b - a) + a).astype(values.dtype)
        else:  # scale, then shift
            out = (values * a + b).astype(values.dtype)
        return _place(out, key, device)

    def build():
        def finish(pieces, a, b):
            x = jnp.concatenate(pieces)[:n].reshape(shape)
            if kind == "uniform":
                return jnp.maximum(a, x * (b - a) + a).astype(x.dtype)
            return (x * a + b).astype(x.dtype)
        return finish
    dtype = pieces[0].dtype
    return _compile.jit(("draw_finish", kind, shape, len(pieces), pieces[0].shape[0], dtype.name), build,
                        owner=_programs)(pieces, jnp.asarray(a, dtype), jnp.asarray(b, dtype))


def scalar_parameters(*values: Any) -> bool:
    """Whether every value is a concrete scalar: distribution parameters a draw applies itself (no
    program of the draw's shape), e.g. ``uniform(key, shape, dtype, low, high)``.

    >>> scalar_parameters(0.0, 2), scalar_parameters(jnp.ones(3))
    (True, False)
    """
    return all(not isinstance(v, jax.core.Tracer) and jnp.ndim(v) == 0 for v in values)


def _shape(shape: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(d) for d in shape)


def uniform(key: jax.Array, shape: Sequence[int] = (), dtype: Any = jnp.float32, minval: Any = 0.0,
            maxval: Any = 1.0) -> jax.Array:
    """``jax.random.uniform``'s signature and distribution; eager draws need no program per shape."""
    shape = _shape(shape)
    if not _eager(key, shape) or jnp.ndim(minval) or jnp.ndim(maxval):
        return jax.random.uniform(key, shape, dtype, minval, maxval)
    pieces = _pieces("uniform", key, math.prod(shape), dtype)
    return _finish("uniform", key, pieces, shape, minval, maxval)


def normal(key: jax.Array, shape: Sequence[int] = (), dtype: Any = jnp.float32,
           scale: Any = 1.0, loc: Any = 0.0) -> jax.Array:
    """``jax.random.normal(key, shape, dtype) * scale + loc``; eager draws need no program per shape."""
    shape = _shape(shape)
    if not _eager(key, shape) or jnp.ndim(scale) or jnp.ndim(loc):
        return (jax.random.normal(key, shape, dtype) * scale + loc).astype(dtype)
    pieces = _pieces("normal", key, math.prod(shape), dtype)
    return _finish("normal", key, pieces, shape, scale, loc)

