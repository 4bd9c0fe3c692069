"""``mx.nd`` shape operators with MXNet 1.x semantics: ``reshape`` with the 1.x special codes
(0 copy, -1 infer, -2 copy the rest, -3 merge two, -4 split one; ``reverse`` matches from the right),
``concat(dim=1)``, ``split(num_outputs, axis=1, squeeze_axis)``, broadcasting, tiling, flipping.

>>> import jax.numpy as jnp
>>> from framework import nd
>>> nd.reshape(jnp.ones((2, 3, 4)), shape=(-4, 1, 2, -2)).shape
(1, 2, 3, 4)
>>> nd.reshape(jnp.ones((2, 3, 4)), shape=(0, -3)).shape
(2, 12)
>>> [a.shape for a in nd.split(jnp.ones((2, 4)), num_outputs=2)]
[(2, 2), (2, 2)]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from ._op import nd_op, norm_axis

__all__ = [
    "reshape", "reshape_shape_1x", "reshape_like", "expand_dims", "flatten", "Flatten", "transpose",
    "swapaxes", "SwapAxis", "concat", "Concat", "stack", "split", "SliceChannel", "tile", "repeat",
    "flip", "reverse", "broadcast_to", "broadcast_like", "broadcast_axis", "broadcast_axes", "squeeze",
    "depth_to_space", "space_to_depth", "pad", "Pad", "shape_array", "size_array", "Reshape",
]


def _bad(shape: Sequence[int], codes: Sequence[int], msg: str) -> ValueError:
    return ValueError(f"nd.reshape: cannot reshape {tuple(shape)} to shape={tuple(codes)}: {msg}")


def _infer_1x(src: tuple[int, ...], codes: tuple[int, ...]) -> tuple[int, ...]:
    out: list[int] = []
    unknown = -1
    i = j = 0
    while j < len(codes):
        c = codes[j]
        if c == 0:
            if i >= len(src):
                raise _bad(src, codes, f"0 at position {j} has no input dimension to copy")
            out.append(src[i])
            i += 1
        elif c == -1:
            if unknown >= 0:
                raise _bad(src, codes, "one and only one dimension can be -1")
            unknown = len(out)
            out.append(1)
            i += 1
        elif c == -2:
            out.extend(src[i:])
            i = len(src)
        elif c == -3:
            if i + 1 >= len(src):
                raise _bad(src, codes, f"-3 at position {j} needs two input dimensions to merge")
            out.append(src[i] * src[i + 1])
            i += 2
        elif c == -4:
            if j + 2 >= len(codes) or i >= len(src):
                raise _bad(src, codes, f"-4 at position {j} must be followed by two sizes and split "
                                       "an input dimension")
            d, a, b = src[i], codes[j + 1], codes[j + 2]
            if a == -1 and b == -1:
                raise _bad(src, codes, "the two sizes after -4 cannot both be -1")
            a = d // b if a == -1 else a
            b = d // a if b == -1 else b
            if a * b != d:
                raise _bad(src, codes, f"-4 splits {d} into {a} x {b}")
            out.extend((a, b))
            i += 1
            j += 2
        elif c > 0:
            out.append(c)
            i += 1
        else:
            raise _bad(src, codes, f"unknown code {c} (MXNet 1.x codes are 0, -1, -2, -3, -4)")
        j += 1
    total = math.prod(src)
    if unknown >= 0:
        known = math.prod(out)
        if known == 0 or total % known:
            raise _bad(src, codes, "the -1 dimension cannot be inferred")
        out[unknown] = total // known
    if math.prod(out) != total:
        raise _bad(src, codes, f"{math.prod(out)} elements vs the input's {total}")
    return tuple(out)


def reshape_shape_1x(shape: Sequence[int], codes: Sequence[int], reverse: bool = False) -> tuple[int, ...]:
    """The output shape of MXNet 1.x ``reshape`` (no array needed).

    >>> reshape_shape_1x((10, 5, 4), (-1, 0), reverse=True)
    (50, 4)
    """
    src, cd = tuple(int(s) for s in shape), tuple(int(c) for c in codes)
    if not reverse:
        return _infer_1x(src, cd)
    return tuple(reversed(_infer_1x(src[::-1], cd[::-1])))


@nd_op
def reshape(data: jax.Array, shape: Any = None, reverse: bool = False) -> jax.Array:
    """MXNet 1.x ``reshape(data, shape, reverse=False)`` with its special codes (see the module)."""
    if shape is None:
        raise ValueError("nd.reshape: shape= is required")
    codes = (shape,) if isinstance(shape, int) else tuple(shape)
    return jnp.reshape(data, reshape_shape_1x(data.shape, codes, reverse))


Reshape = reshape


@nd_op
def reshape_like(lhs: jax.Array, rhs: jax.Array, lhs_begin: int | None = None, lhs_end: int | None = None,
                 rhs_begin: int | None = None, rhs_end: int | None = None) -> jax.Array:
    """``lhs`` with dimensions ``lhs[lhs_begin:lhs_end]`` replaced by ``rhs.shape[rhs_begin:rhs_end]``.

    >>> import jax.numpy as jnp
    >>> reshape_like(jnp.ones((6,)), jnp.ones((2, 3))).shape
    (2, 3)
    """
    ls, rs = list(lhs.shape), list(rhs.shape)
    lb, le = slice(lhs_begin, lhs_end).indices(len(ls))[:2]
    rb, re_ = slice(rhs_begin, rhs_end).indices(len(rs))[:2]
    new = ls[:lb] + rs[rb:re_] + ls[le:]
    if math.prod(new) != lhs.size:
        raise ValueError(f"nd.reshape_like: {tuple(ls)} cannot take the shape {tuple(new)}")
    return jnp.reshape(lhs, new)


@nd_op
def expand_dims(data: jax.Array, axis: int) -> jax.Array:
    """A new size-1 axis at ``axis``."""
    return jnp.expand_dims(data, norm_axis(axis, data.ndim + 1, "expand_dims"))


@nd_op
def flatten(data: jax.Array) -> jax.Array:
    """(N, a, b, ...) -> (N, a*b*...).

    >>> import jax.numpy as jnp
    >>> flatten(jnp.ones((2, 3, 4))).shape
    (2, 12)
    """
    if data.ndim == 0:
        raise ValueError("nd.flatten: data must have at least one dimension")
    return jnp.reshape(data, (data.shape[0], -1) if data.shape[0] else (0, math.prod(data.shape[1:])))


Flatten = flatten


@nd_op
def transpose(data: jax.Array, axes: Sequence[int] = ()) -> jax.Array:
    """Permute axes (reversed when ``axes`` is empty)."""
    return jnp.transpose(data, tuple(axes) or None)


@nd_op
def swapaxes(data: jax.Array, dim1: int = 0, dim2: int = 0) -> jax.Array:
    """Exchange axes ``dim1`` and ``dim2``."""
    return jnp.swapaxes(data, dim1, dim2)


SwapAxis = swapaxes


@nd_op
def concat(*data: jax.Array, dim: int = 1, num_args: int | None = None) -> jax.Array:
    """Join arrays along ``dim`` (default 1, as in MXNet 1.x). A 0-d array joins as shape ``(1,)``:
    MXNet 1.x arrays have at least one axis (the elements of ``*x`` or ``for v in x`` over a 1-d
    NDArray are ``(1,)``-shaped there, 0-d in JAX).

    >>> import jax.numpy as jnp
    >>> concat(jnp.array([1.0]), *jnp.array([2.0, 3.0]), dim=0).tolist()
    [1.0, 2.0, 3.0]
    """
    if not data:
        raise ValueError("nd.concat: needs at least one array")
    if num_args is not None and num_args != len(data):
        raise ValueError(f"nd.concat: num_args={num_args} but {len(data)} arrays were given")
    return jnp.concatenate([jnp.reshape(d, (1,)) if jnp.ndim(d) == 0 else d for d in data], axis=dim)


Concat = concat


@nd_op
def stack(*data: jax.Array, axis: int = 0, num_args: int | None = None) -> jax.Array:
    """Join arrays along a new axis."""
    if not data:
        raise ValueError("nd.stack: needs at least one array")
    return jnp.stack(data, axis=axis)


@nd_op
def split(data: jax.Array, num_outputs: int, axis: int = 1, squeeze_axis: bool = False) -> Any:
    """``num_outputs`` equal parts along ``axis`` (default 1); one part is returned as an array, more
    as a list. ``squeeze_axis`` drops the split axis (its parts must have size 1)."""
    ax = norm_axis(axis, data.ndim, "split")
    n = data.shape[ax]
    if num_outputs < 1 or n % num_outputs:
        raise ValueError(
            f"nd.split: axis {axis} of size {n} cannot be split into num_outputs={num_outputs} equal parts"
        )
    if squeeze_axis and n != num_outputs:
        raise ValueError(f"nd.split: squeeze_axis=True needs num_outputs == {n} (the size of axis {axis})")
    parts = jnp.split(data, num_outputs, axis=ax)
    if squeeze_axis:
        parts = [jnp.squeeze(p, ax) for p in parts]
    return parts[0] if num_outputs == 1 else list(parts)


SliceChannel = split


@nd_op
def tile(data: jax.Array, reps: int | Sequence[int]) -> jax.Array:
    """Repeat the whole array ``reps`` times per axis (NumPy's tile; an int repeats the last axis, as
    MXNet 1.9.1 accepts: ``tile(ones((2, 2)), reps=3).shape == (2, 6)``)."""
    return jnp.tile(data, (int(reps),) if isinstance(reps, int) else tuple(reps))


@nd_op
def repeat(data: jax.Array, repeats: int, axis: int | None = None) -> jax.Array:
    """Repeat each element ``repeats`` times along ``axis`` (the flattened array when None)."""
    return jnp.repeat(data, int(repeats), axis=axis)


@nd_op
def flip(data: jax.Array, axis: int | Sequence[int]) -> jax.Array:
    """Reverse the order of elements along ``axis`` (MXNet's ``reverse``)."""
    return jnp.flip(data, tuple(axis) if isinstance(axis, Sequence) else axis)


reverse = flip


@nd_op
def broadcast_to(data: jax.Array, shape: Sequence[int]) -> jax.Array:
    """Broadcast to ``shape``; a 0 keeps the input's dimension."""
    if len(shape) != data.ndim:
        raise ValueError(f"nd.broadcast_to: shape={tuple(shape)} must have {data.ndim} dimensions like data")
    target = tuple(d if s == 0 else s for s, d in zip(shape, data.shape, strict=True))
    return jnp.broadcast_to(data, target)


@nd_op
def broadcast_like(lhs: jax.Array, rhs: jax.Array, lhs_axes: Sequence[int] | None = None,
                   rhs_axes: Sequence[int] | None = None) -> jax.Array:
    """Broadcast ``lhs`` to ``rhs``'s shape (or its ``lhs_axes`` to the sizes of ``rhs_axes``)."""
    if lhs_axes is None and rhs_axes is None:
        return jnp.broadcast_to(lhs, rhs.shape)
    if lhs_axes is None or rhs_axes is None or len(lhs_axes) != len(rhs_axes):
        raise ValueError("nd.broadcast_like: give lhs_axes and rhs_axes of one length, or neither")
    target = list(lhs.shape)
    for la, ra in zip(lhs_axes, rhs_axes, strict=True):
        target[la] = rhs.shape[ra]
    return jnp.broadcast_to(lhs, tuple(target))


@nd_op
def broadcast_axis(data: jax.Array, axis: Any = (), size: Any = ()) -> jax.Array:
    """Broadcast the size-1 axes ``axis`` to ``size``."""
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    sizes = (size,) if isinstance(size, int) else tuple(size)
    if len(axes) != len(sizes):
        raise ValueError(f"nd.broadcast_axis: axis={axes} and size={sizes} differ in length")
    target = list(data.shape)
    for a, s in zip(axes, sizes, strict=True):
        if data.shape[a] != 1:
            raise ValueError(f"nd.broadcast_axis: axis {a} has size {data.shape[a]}; only size-1 axes "
                             "broadcast")
        target[a] = s
    return jnp.broadcast_to(data, tuple(target))


broadcast_axes = broadcast_axis


@nd_op
def squeeze(data: jax.Array, axis: Any = None) -> jax.Array:
    """Drop size-1 axes (all, or those in ``axis``)."""
    return jnp.squeeze(data, axis if axis is None or isinstance(axis, int) else tuple(axis))


@nd_op
def depth_to_space(data: jax.Array, block_size: int) -> jax.Array:
    """(N, C, H, W) -> (N, C/b^2, H*b, W*b), MXNet's (DCR) order."""
    n, c, h, w = data.shape
    b = int(block_size)
    if c % (b * b):
        raise ValueError(f"nd.depth_to_space: {c} channels are not divisible by block_size**2 = {b * b}")
    x = data.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return x.reshape(n, c // (b * b), h * b, w * b)


@nd_op
def space_to_depth(data: jax.Array, block_size: int) -> jax.Array:
    """(N, C, H, W) -> (N, C*b^2, H/b, W/b), the inverse of :func:`depth_to_space`."""
    n, c, h, w = data.shape
    b = int(block_size)
    if h % b or w % b:
        raise ValueError(f"nd.space_to_depth: H={h} and W={w} must be divisible by block_size={b}")
    x = data.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return x.reshape(n, c * b * b, h // b, w // b)


@nd_op
def pad(data: jax.Array, mode: str = "constant", pad_width: Sequence[int] = (),
        constant_value: float = 0.0) -> jax.Array:
    """Pad with ``pad_width`` = (before0, after0, before1, after1, ...); 'constant', 'edge', 'reflect'."""
    if mode not in ("constant", "edge", "reflect"):
        raise ValueError(f"nd.pad: mode={mode!r} must be 'constant', 'edge' or 'reflect'")
    if len(pad_width) != 2 * data.ndim:
        raise ValueError(f"nd.pad: pad_width needs 2 values per axis ({2 * data.ndim}), got {len(pad_width)}")
    widths = [(pad_width[2 * i], pad_width[2 * i + 1]) for i in range(data.ndim)]
    if mode == "constant":
        return jnp.pad(data, widths, constant_values=constant_value)
    return jnp.pad(data, widths, mode=mode)


Pad = pad


@nd_op
def shape_array(data: jax.Array) -> jax.Array:
    """The shape as a 1-D integer array (int64 under ``jax_enable_x64``, else int32)."""
    return jnp.asarray(data.shape, dtype=jax.dtypes.canonicalize_dtype(jnp.int64))


@nd_op
def size_array(data: jax.Array) -> jax.Array:
    """The number of elements as a 1-element integer array."""
    return jnp.asarray([data.size], dtype=jax.dtypes.canonicalize_dtype(jnp.int64))
