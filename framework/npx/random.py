"""``npx.random``: everything of ``np.random`` (one key stream), plus MXNet's batched samplers
``normal_n``/``uniform_n``, whose result has the shape ``batch_shape + broadcast(params)``.

>>> from framework import np, npx
>>> npx.random.normal_n(np.array([0.0, 10.0]), 1.0, batch_shape=(3,)).shape
(3, 2)
>>> npx.random.uniform_n(np.zeros((2, 1)), np.ones(3), batch_shape=4).shape
(4, 2, 3)
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from ..np import random as _np_random
from ..np.random import *  # noqa: F403  (npx.random offers np.random's samplers too)

__all__ = [*_np_random.__all__, "normal_n", "uniform_n"]


def _batch(batch_shape: Any) -> tuple[int, ...]:
    if batch_shape is None:
        return ()
    if isinstance(batch_shape, int):
        return (batch_shape,)
    return tuple(int(s) for s in batch_shape)


def normal_n(loc: Any = 0.0, scale: Any = 1.0, batch_shape: Any = None, dtype: Any = None, ctx: Any = None,
             *, device: Any = None) -> jax.Array:
    """Normal samples of shape ``batch_shape + broadcast(loc, scale)`` (MXNet's ``npx.random.normal_n``)."""
    shape = _batch(batch_shape) + jnp.broadcast_shapes(jnp.shape(loc), jnp.shape(scale))
    return _np_random.normal(loc, scale, size=shape, dtype=dtype, ctx=ctx, device=device)


def uniform_n(low: Any = 0.0, high: Any = 1.0, batch_shape: Any = None, dtype: Any = None, ctx: Any = None,
              *, device: Any = None) -> jax.Array:
    """Uniform samples in ``[low, high)`` of shape ``batch_shape + broadcast(low, high)`` (MXNet's
    ``npx.random.uniform_n``)."""
    shape = _batch(batch_shape) + jnp.broadcast_shapes(jnp.shape(low), jnp.shape(high))
    return _np_random.uniform(low, high, size=shape, dtype=dtype, ctx=ctx, device=device)
