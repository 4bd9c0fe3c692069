"""``npx.dropout``: zero each value with probability ``p`` and scale the kept ones by ``1/(1-p)``.

Identity unless training (``mode='training'``, MXNet's default) or ``mode='always'``. Pass a PRNG
``key`` for reproducible masks (layers pass their own); without one the framework's key stream is used.

>>> import jax, jax.numpy as jnp
>>> from framework import npx
>>> x = jnp.ones((4, 1000))
>>> bool((npx.dropout(x, p=0.5) == x).all())   # not training: identity
True
>>> y = npx.dropout(x, p=0.5, key=jax.random.key(0), training=True)
>>> sorted(set(y.ravel().tolist()))
[0.0, 2.0]
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp

from ..np import random as _random
from ._utils import _is_training

__all__ = ["dropout"]


def dropout(
    data: jax.Array,
    p: float = 0.5,
    mode: str = "training",
    axes: Sequence[int] = (),
    cudnn_off: bool = False,
    *,
    key: jax.Array | None = None,
    training: bool | None = None,
) -> jax.Array:
    """Dropout with drop probability ``p``; ``axes`` share one mask along those axes (variational).

    ``training=None`` follows ``autograd.is_training()``. ``cudnn_off`` is accepted and ignored.

    >>> import jax, jax.numpy as jnp
    >>> y = dropout(jnp.ones((2, 3)), p=0.5, axes=(1,), key=jax.random.key(1), mode='always')
    >>> all(len(set(row)) == 1 for row in y.tolist())
    True
    """
    if mode not in ("training", "always"):
        raise ValueError(f"dropout: mode={mode!r} must be 'training' or 'always'")
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p={p} is a drop probability and must be in [0, 1]")
    if p == 0.0 or (mode == "training" and not _is_training(training)):
        return data
    if p == 1.0:
        return jnp.zeros_like(data)
    shape = list(data.shape)
    for ax in axes:
        if not -data.ndim <= ax < data.ndim:
            raise ValueError(f"dropout: axes={tuple(axes)} out of range for data of shape {data.shape}")
        shape[ax] = 1
    if key is None:
        key = _random.next_key()
    keep = jax.random.bernoulli(key, 1.0 - p, tuple(shape))
    scale = jnp.asarray(1.0 / (1.0 - p), data.dtype)
    return jnp.where(keep, data * scale, jnp.zeros((), data.dtype))
