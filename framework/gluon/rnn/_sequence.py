"""Helpers of ``unroll``: between one (T, N, C)/(N, T, C) tensor and a list of per-step (N, C) arrays,
and the valid-length operations (mask, last valid state, reverse within the valid part).

>>> import jax.numpy as jnp
>>> steps, axis = to_steps(jnp.zeros((2, 3, 4)), 'NTC', 3)
>>> len(steps), steps[0].shape, axis
(3, (2, 4), 1)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ...np.dispatch import recordable
from ._kernels import reverse_valid

# Inside autograd.record() the steps are recorded values: these record one node each (plain jnp would
# refuse them), and are the jnp functions themselves otherwise.
_stack, _take, _where = recordable(jnp.stack), recordable(jnp.take), recordable(jnp.where)
_reverse_valid = recordable(reverse_valid)

__all__ = ["to_steps", "finish_outputs", "mask_steps", "last_valid", "reverse_steps"]


def to_steps(inputs: Any, layout: str, length: int | None) -> tuple[list[jax.Array], int]:
    """Per-step inputs from a tensor in ``layout`` or a list of (N, C) arrays; checks ``length``."""
    if layout not in ("NTC", "TNC"):
        raise ValueError(f"unroll: layout={layout!r}; 'NTC' or 'TNC' expected")
    axis = layout.find("T")
    if isinstance(inputs, (list, tuple)):
        steps = list(inputs)
    else:
        steps = [_take(inputs, t, axis=axis) for t in range(inputs.shape[axis])]
    if length is not None and len(steps) != length:
        raise ValueError(f"unroll: length={length} but the inputs hold {len(steps)} time steps")
    return steps, axis


def finish_outputs(outputs: Any, axis: int, merge: bool | None) -> Any:
    """Stack a list of steps (merge True), split a tensor (merge False), or leave it as is (None)."""
    if merge is True and isinstance(outputs, (list, tuple)):
        return _stack(outputs, axis=axis)
    if merge is False and not isinstance(outputs, (list, tuple)):
        return [_take(outputs, t, axis=axis) for t in range(outputs.shape[axis])]
    return outputs


def mask_steps(outputs: Any, valid_length: jax.Array, axis: int) -> jax.Array:
    """Merged outputs with every step at or past a sample's valid length set to zero."""
    data = _stack(outputs, axis=axis) if isinstance(outputs, (list, tuple)) else outputs
    t = jnp.arange(data.shape[axis])
    live = t[:, None] < valid_length.astype(jnp.int32)[None, :]  # (T, N)
    if axis == 1:
        live = live.T
    return _where(live.reshape(live.shape + (1,) * (data.ndim - 2)), data, 0)


def last_valid(per_step: list[jax.Array], valid_length: jax.Array) -> jax.Array:
    """Each sample's value at its last valid step (MXNet's SequenceLast)."""
    data = _stack(per_step, axis=0)
    idx = jnp.clip(valid_length.astype(jnp.int32) - 1, 0, data.shape[0] - 1)
    return data[idx, jnp.arange(data.shape[1])]


def reverse_steps(steps: list[jax.Array], valid_length: jax.Array | None) -> list[jax.Array]:
    """Steps in reverse order, each sample within its valid length (MXNet's SequenceReverse)."""
    if valid_length is None:
        return steps[::-1]
    data = _reverse_valid(_stack(steps, axis=0), valid_length)
    return [data[t] for t in range(data.shape[0])]
