"""Shape helpers Gluon layers use: ``reshape`` (MXNet 2.0's special codes), ``batch_flatten``,
``arange_like``.

>>> import jax.numpy as jnp
>>> from framework import npx
>>> npx.reshape(jnp.ones((2, 3, 8)), (-2, -2, 2, -1)).shape
(2, 3, 2, 4)
>>> npx.batch_flatten(jnp.ones((2, 3, 4))).shape
(2, 12)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

__all__ = ["reshape", "batch_flatten", "arange_like", "reshape_shape"]


def _bad(msg: str, shape: Sequence[int], newshape: Sequence[int]) -> ValueError:
    return ValueError(f"npx.reshape: cannot reshape {tuple(shape)} to {tuple(newshape)}: {msg}")


def _infer(src: tuple[int, ...], codes: tuple[int, ...]) -> tuple[int, ...]:
    out: list[int] = []
    unknown = -1
    i = j = 0
    while j < len(codes):
        c = codes[j]
        if c >= 0:
            out.append(c)
            i += 1
        elif c == -1:
            if unknown >= 0:
                raise _bad("at most one -1 is allowed", src, codes)
            unknown = len(out)
            out.append(-1)
            i += 1
        elif c == -2:
            if i >= len(src):
                raise _bad(f"-2 at position {j} has no input dimension to copy", src, codes)
            out.append(src[i])
            i += 1
        elif c == -3:
            if i >= len(src) or src[i] != 1:
                raise _bad(f"-3 at position {j} skips a dimension only when it is 1", src, codes)
            i += 1
        elif c == -4:
            out.extend(src[i:])
            i = len(src)
        elif c == -5:
            if i + 1 >= len(src):
                raise _bad(f"-5 at position {j} needs two input dimensions", src, codes)
            out.append(src[i] * src[i + 1])
            i += 2
        elif c == -6:
            if j + 2 >= len(codes):
                raise _bad(f"-6 at position {j} must be followed by two sizes", src, codes)
            if i >= len(src):
                raise _bad(f"-6 at position {j} has no input dimension to split", src, codes)
            d = src[i]
            a, b = codes[j + 1], codes[j + 2]
            if a == -1 and b == -1:
                raise _bad("-6 cannot be followed by two -1", src, codes)
            if a == -1:
                a = d // b if b else 0
            if b == -1:
                b = d // a if a else 0
            if a * b != d:
                raise _bad(f"-6 splits {d} into {a} x {b}", src, codes)
            out.extend((a, b))
            i += 1
            j += 2
        else:
            raise _bad(f"unknown special value {c} (use -1 to -6)", src, codes)
        j += 1
    total = math.prod(src)
    if unknown >= 0:
        known = math.prod(d for k, d in enumerate(out) if k != unknown)
        if known == 0 or total % known:
            raise _bad("the -1 dimension cannot be inferred", src, codes)
        out[unknown] = total // known
    if math.prod(out) != total:
        raise _bad(f"the sizes differ ({math.prod(out)} vs {total} elements)", src, codes)
    return tuple(out)


def reshape_shape(
    shape: Sequence[int], newshape: int | Sequence[int], reverse: bool = False
) -> tuple[int, ...]:
    """The output shape of :func:`reshape` for an input ``shape`` (no array needed).

    >>> reshape_shape((8, 3, 2, 4, 8), (-4, -1, 2, -6), reverse=True)
    (8, 3, 2, 4, 4, 2)
    """
    codes = (int(newshape),) if isinstance(newshape, int) else tuple(int(c) for c in newshape)
    src = tuple(int(s) for s in shape)
    if not reverse:
        return _infer(src, codes)
    return tuple(reversed(_infer(src[::-1], codes[::-1])))


def reshape(
    a: jax.Array, newshape: int | Sequence[int], reverse: bool = False, order: str = "C"
) -> jax.Array:
    """MXNet 2.0's ``npx.reshape``: -1 infers, -2 copies a dimension, -3 drops a size-1 dimension,
    -4 copies all remaining ones, -5 merges two, -6 splits one into the next two values (one may be
    -1). ``reverse=True`` matches the codes from the right.

    >>> import jax.numpy as jnp
    >>> reshape(jnp.ones((8, 3, 3, 3, 4, 4)), (-6, 2, -1, -4)).shape
    (2, 4, 3, 3, 3, 4, 4)
    >>> reshape(jnp.ones((8, 1, 1, 1, 3)), (-2, -3, -3, -3, -2)).shape
    (8, 3)
    """
    if order != "C":
        raise ValueError(f"npx.reshape: order={order!r} is not supported; only 'C'")
    return jnp.reshape(a, reshape_shape(a.shape, newshape, reverse))


def batch_flatten(x: jax.Array) -> jax.Array:
    """Collapse all axes but the first: (N, a, b, ...) -> (N, a*b*...).

    >>> import jax.numpy as jnp
    >>> batch_flatten(jnp.ones((4,))).shape
    (4, 1)
    """
    if x.ndim == 0:
        raise ValueError("batch_flatten: data must have at least one dimension, got a scalar")
    return jnp.reshape(x, (x.shape[0], math.prod(x.shape[1:])))


def arange_like(
    data: jax.Array,
    start: float = 0.0,
    step: float = 1.0,
    repeat: int = 1,
    ctx: Any = None,
    axis: int | None = None,
) -> jax.Array:
    """``start, start+step, ...`` shaped like ``data`` (or of length ``data.shape[axis]``), each value
    repeated ``repeat`` times.

    >>> import jax.numpy as jnp
    >>> arange_like(jnp.zeros((2, 2))).tolist()
    [[0.0, 1.0], [2.0, 3.0]]
    >>> arange_like(jnp.zeros((2, 3)), axis=1, start=1.0).tolist()
    [1.0, 2.0, 3.0]
    """
    n = math.prod(data.shape) if axis is None else data.shape[axis]
    repeat = int(repeat)
    if repeat < 1:
        raise ValueError(f"arange_like: repeat={repeat} must be >= 1")
    values = start + step * (jnp.arange(n, dtype=jnp.float32) // repeat)
    dtype = data.dtype if jnp.issubdtype(data.dtype, jnp.floating) else jnp.float32
    values = values.astype(dtype)
    out = values.reshape(data.shape) if axis is None else values
    if ctx is not None:
        out = jax.device_put(out, ctx)
    return out
