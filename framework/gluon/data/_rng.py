"""Host-side randomness for the data pipeline: numpy Generators seeded from the framework key stream.

A :class:`~framework.gluon.data.DataLoader` draws one key per epoch from :func:`framework.np.random.next_key`
and opens a :func:`batch_scope` around every batch it builds, so a random transform draws from a
Generator that depends only on (seed, epoch, batch): the batches are the same whether they are built in
the main thread, in threads or in worker processes. Outside a loader, :func:`host_rng` draws a fresh key
from the framework stream on each call, so ``np.random.seed`` still makes results reproducible.

>>> from framework import np
>>> np.random.seed(3); a = host_rng().integers(1000, size=3)
>>> np.random.seed(3); b = host_rng().integers(1000, size=3)
>>> bool((a == b).all())
True
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import numpy as onp

__all__ = ["host_rng", "draw_seed", "batch_scope"]

_local = threading.local()


def draw_seed() -> tuple[int, int]:
    """Two 32-bit words drawn from the framework key stream (one host transfer, no device work kept)."""
    import jax

    from ... import np as fnp

    words = onp.asarray(jax.random.key_data(fnp.random.next_key())).ravel()
    return int(words[0]), int(words[-1])


@contextlib.contextmanager
def batch_scope(seed: tuple[int, int], batch: int) -> Iterator[None]:
    """Within this scope :func:`host_rng` returns one Generator seeded by ``(seed, batch)``.

    The Generator is made on first use only, so batches that draw nothing cost nothing.
    """
    previous = getattr(_local, "scope", None)
    _local.scope = [seed, batch, None]
    try:
        yield
    finally:
        _local.scope = previous


def host_rng() -> onp.random.Generator:
    """The numpy Generator that host-side random transforms draw from.

    Inside a DataLoader batch it is the batch's Generator; elsewhere a new one from the framework stream.
    """
    scope = getattr(_local, "scope", None)
    if scope is None:
        return onp.random.default_rng(draw_seed())
    if scope[2] is None:
        scope[2] = onp.random.default_rng([*scope[0], scope[1]])
    return scope[2]
