"""``mx.nd.linalg``'s decompositions and triangle packing: ``gelqf`` (LQ), ``syevd`` (symmetric
eigendecomposition, MXNet's sign convention), ``extracttrian``/``maketrian``. Re-exported by
:mod:`framework.nd.linalg`.

>>> import jax.numpy as jnp
>>> from framework import nd
>>> nd.linalg.extracttrian(jnp.array([[1.0, 2.0], [3.0, 4.0]])).tolist()
[1.0, 3.0, 4.0]
>>> nd.linalg.maketrian(jnp.array([1.0, 2.0, 3.0])).tolist()
[[1.0, 0.0], [2.0, 3.0]]
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as onp

from ._op import nd_op

__all__ = ["gelqf", "syevd", "extracttrian", "maketrian"]


@nd_op
def gelqf(A: jax.Array) -> list[jax.Array]:
    """``[Q, L]`` with ``A = L Q`` for (..., m, n) ``A``, m <= n: Q has orthonormal rows, L is lower
    triangular (LAPACK's signs: the QR of ``A``'s transpose)."""
    if A.ndim < 2 or A.shape[-2] > A.shape[-1]:
        raise ValueError(f"linalg.gelqf: A must be (..., m, n) with m <= n, got {tuple(A.shape)}")
    q, r = jnp.linalg.qr(jnp.swapaxes(A, -1, -2))
    return [jnp.swapaxes(q, -1, -2), jnp.swapaxes(r, -1, -2)]


@nd_op
def syevd(A: jax.Array) -> list[jax.Array]:
    """``[U, L]`` with ``A = U^T diag(L) U`` for symmetric ``A``: eigenvalues ascending, eigenvectors as
    the rows of U, each signed so that its largest-magnitude entry (the first, on ties) is positive."""
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"linalg.syevd: A must be (..., n, n), got {tuple(A.shape)}")
    lam, vec = jnp.linalg.eigh(A)
    u = jnp.swapaxes(vec, -1, -2)
    k = jnp.argmax(jnp.abs(u), axis=-1)
    sign = jnp.where(jnp.take_along_axis(u, k[..., None], axis=-1) < 0, -1.0, 1.0).astype(u.dtype)
    return [u * sign, lam]


def _tri_index(n: int, offset: int, lower: bool) -> tuple[onp.ndarray, onp.ndarray]:
    """The packed order of a triangle: the lower one row by row, the upper one column by column."""
    if lower:
        return onp.tril_indices(n, offset)
    cols, rows = onp.tril_indices(n, -offset)
    return rows, cols


@nd_op
def extracttrian(A: jax.Array, offset: int = 0, lower: bool = True) -> jax.Array:
    """The lower triangle of each (n, n) matrix row by row (or, ``lower=False``, the upper one column by
    column) as a vector; a non-zero ``offset`` moves the diagonal (positive: the upper triangle above it,
    negative: the lower one below it) and decides the triangle, as in MXNet."""
    n = A.shape[-1]
    rows, cols = _tri_index(n, offset, lower if offset == 0 else offset < 0)
    return A[..., rows, cols]


@nd_op
def maketrian(A: jax.Array, offset: int = 0, lower: bool = True) -> jax.Array:
    """The inverse of :func:`extracttrian`: a triangular (n, n) matrix from its packed entries."""
    size = A.shape[-1]
    k = abs(int(offset))
    m = int(round((math.sqrt(8 * size + 1) - 1) / 2))  # the triangle's own size
    if m * (m + 1) // 2 != size:
        raise ValueError(f"linalg.maketrian: {size} entries do not pack a triangle")
    n = m + k
    low = lower if offset == 0 else offset < 0
    rows, cols = _tri_index(n, offset, low)
    out = jnp.zeros(A.shape[:-1] + (n, n), A.dtype)
    return out.at[..., rows, cols].set(A)
