"""``mx.nd`` sequence operators on (time, batch, ...) data (``axis=0``) or (batch, time, ...) (``axis=1``):
``SequenceMask``, ``SequenceLast``, ``SequenceReverse``; lengths are per batch element.

>>> import jax.numpy as jnp
>>> from framework import nd
>>> x = jnp.arange(6.0).reshape(3, 2)  # 3 steps, batch of 2
>>> nd.SequenceLast(x, jnp.array([1.0, 3.0]), use_sequence_length=True).tolist()
[0.0, 5.0]
>>> nd.SequenceReverse(x, jnp.array([2.0, 3.0]), use_sequence_length=True).tolist()
[[2.0, 5.0], [0.0, 3.0], [4.0, 1.0]]
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ..npx import indexing as _npx
from ._op import nd_op

__all__ = ["SequenceMask", "SequenceLast", "SequenceReverse"]


def _lengths(data: jax.Array, sequence_length: Any, use: bool, axis: int, op: str) -> jax.Array:
    if axis not in (0, 1) or data.ndim < 2:
        raise ValueError(f"nd.{op}: axis={axis} must be 0 or 1 and data at least 2-D, got "
                         f"{tuple(data.shape)}")
    t, b = data.shape[axis], data.shape[1 - axis]
    if not use:
        return jnp.full((b,), t, jnp.int32)
    if sequence_length is None:
        raise ValueError(f"nd.{op}: use_sequence_length=True needs sequence_length")
    lengths = jnp.asarray(sequence_length)
    if lengths.shape != (b,):
        raise ValueError(f"nd.{op}: sequence_length has shape {tuple(lengths.shape)}, expected ({b},)")
    return lengths.astype(jnp.int32)


@nd_op
def SequenceMask(data: jax.Array, sequence_length: Any = None, use_sequence_length: bool = False,
                 value: float = 0.0, axis: int = 0) -> jax.Array:
    """Steps at or after each sequence's length set to ``value``."""
    return _npx.sequence_mask(data, sequence_length, use_sequence_length, value, axis)


@nd_op
def SequenceLast(data: jax.Array, sequence_length: Any = None, use_sequence_length: bool = False,
                 axis: int = 0) -> jax.Array:
    """The last valid step of each sequence: shape data.shape without ``axis``."""
    lengths = _lengths(data, sequence_length, use_sequence_length, axis, "SequenceLast")
    moved = jnp.moveaxis(data, axis, 0)  # (T, B, ...)
    last = jnp.clip(lengths - 1, 0, moved.shape[0] - 1)
    return moved[last, jnp.arange(moved.shape[1])]


@nd_op
def SequenceReverse(data: jax.Array, sequence_length: Any = None, use_sequence_length: bool = False,
                    axis: int = 0) -> jax.Array:
    """Each sequence's first ``length`` steps reversed; the padding after them stays in place."""
    if axis != 0:
        raise ValueError(f"nd.SequenceReverse: axis={axis}: MXNet supports only axis=0 (time first)")
    lengths = _lengths(data, sequence_length, use_sequence_length, axis, "SequenceReverse")
    t = data.shape[0]
    steps = jnp.arange(t)[:, None]
    src = jnp.where(steps < lengths[None, :], lengths[None, :] - 1 - steps, steps)  # (T, B)
    return data[src, jnp.arange(data.shape[1])[None, :]]
