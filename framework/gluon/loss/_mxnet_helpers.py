"""MXNet 1.x's loss helpers that libraries import from ``mxnet.gluon.loss`` to write their own losses
(``_apply_weighting(F, loss, weight, sample_weight)``, ``_reshape_like(F, x, y)``), with MXNet's
signatures: ``F`` first, the operator namespace of a ``hybrid_forward`` (ignored here: one array type).

>>> import jax.numpy as jnp
>>> from framework import nd
>>> _apply_weighting(nd, jnp.ones((2, 3)), 0.5, jnp.array([[1.0], [2.0]])).tolist()
[[0.5, 0.5, 0.5], [1.0, 1.0, 1.0]]
>>> _reshape_like(nd, jnp.arange(6), jnp.ones((2, 3))).shape
(2, 3)
"""

from __future__ import annotations

import numbers
from typing import Any

import jax

from . import base

__all__ = ["_apply_weighting", "_reshape_like"]


def _apply_weighting(F: Any, loss: jax.Array, weight: float | None = None, sample_weight: Any = None) -> Any:
    """``loss * sample_weight`` (broadcast) ``* weight``; ``weight`` must be a number, as in MXNet."""
    if weight is not None and not isinstance(weight, numbers.Number):
        raise TypeError(f"_apply_weighting: weight must be a number, got {type(weight).__name__}")
    return base._apply_weighting(loss, weight, sample_weight)


def _reshape_like(F: Any, x: Any, y: Any) -> Any:
    """``x`` reshaped to ``y``'s shape (same number of elements)."""
    return base._reshape_like(x, y)
