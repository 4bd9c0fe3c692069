"""``npx.fully_connected``: ``y = x @ weight.T + bias`` with MXNet's weight layout (out, in).

>>> import jax.numpy as jnp
>>> from framework import npx
>>> npx.fully_connected(jnp.ones((2, 3, 4)), jnp.ones((5, 12)), jnp.zeros(5), num_hidden=5).shape
(2, 5)
>>> npx.fully_connected(jnp.ones((2, 3, 4)), jnp.ones((5, 4)), num_hidden=5, flatten=False).shape
(2, 3, 5)
"""

from __future__ import annotations

import math
from typing import Any

import jax
from jax import lax

__all__ = ["fully_connected"]


def fully_connected(
    x: jax.Array,
    weight: jax.Array,
    bias: jax.Array | None = None,
    num_hidden: int | None = None,
    no_bias: bool = False,
    flatten: bool = True,
    **kwargs: Any,
) -> jax.Array:
    """MXNet's FullyConnected. ``flatten=True``: data (N, ...) is reshaped to (N, -1);
    ``flatten=False``: the product acts on the last axis. ``bias=None`` means no bias.

    >>> import jax.numpy as jnp
    >>> fully_connected(jnp.ones((1, 2)), jnp.array([[1.0, 2.0]]), jnp.array([0.5]), num_hidden=1).tolist()
    [[3.5]]
    """
    op = "fully_connected"
    if weight.ndim != 2:
        raise ValueError(f"{op}: weight must be 2-D (num_hidden, in_units), got shape {tuple(weight.shape)}")
    if num_hidden is None:
        num_hidden = weight.shape[0]
    if x.ndim == 0:
        raise ValueError(f"{op}: data must have at least one dimension, got a scalar")
    if flatten:
        in_units = math.prod(x.shape[1:]) if x.ndim > 1 else 1
        if x.ndim != 2:
            x = x.reshape((x.shape[0], in_units))
    else:
        in_units = x.shape[-1]
    if tuple(weight.shape) != (num_hidden, in_units):
        raise ValueError(
            f"{op}: weight has shape {tuple(weight.shape)} but data {tuple(x.shape)} with "
            f"flatten={flatten} and num_hidden={num_hidden} needs ({num_hidden}, {in_units}). "
            "Check num_hidden/units, in_units and flatten."
        )
    # x @ weight.T without materialising the transpose.
    out = lax.dot_general(x, weight, (((x.ndim - 1,), (1,)), ((), ())))
    if bias is not None and not no_bias:
        if tuple(bias.shape) != (num_hidden,):
            raise ValueError(f"{op}: bias has shape {tuple(bias.shape)}, expected ({num_hidden},)")
        out = out + bias
    return out
