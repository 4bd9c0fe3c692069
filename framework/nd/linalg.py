"""``mx.nd.linalg``: MXNet 1.x's batched linear algebra over the last two axes (``gemm``, ``gemm2``,
``potrf``, ``potri``, ``trsm``, ``trmm``, ``syrk``, ``sumlogdiag``, ``extractdiag``, ``makediag``,
``inverse``, ``det``, ``slogdet``). Triangular operands use only the triangle named by ``lower``; a
single matrix's scalar results have shape (1,), as in MXNet 1.x.

>>> import jax.numpy as jnp
>>> from framework import nd
>>> a = jnp.array([[4.0, 2.0], [2.0, 3.0]])
>>> l = nd.linalg.potrf(a)
>>> jnp.allclose(l @ l.T, a).item()
True
>>> nd.linalg.gemm2(jnp.ones((2, 3)), jnp.ones((2, 3)), transpose_b=True, alpha=2.0).tolist()
[[6.0, 6.0], [6.0, 6.0]]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from ._op import legacy_scalar, nd_op

__all__ = [
    "gemm", "gemm2", "potrf", "potri", "trsm", "trmm", "syrk", "sumlogdiag", "extractdiag", "makediag",
    "inverse", "det", "slogdet", "gelqf", "syevd", "extracttrian", "maketrian",
]


def _mat(x: jax.Array, op: str, what: str = "A") -> None:
    if x.ndim < 2:
        raise ValueError(f"linalg.{op}: {what} must be at least 2-D (..., rows, cols), got {tuple(x.shape)}")


def _axis(axis: int, op: str) -> None:
    if axis != -2:
        raise ValueError(f"linalg.{op}: axis={axis}: only axis=-2 (matrices in the last two axes) is "
                         "supported; move the axes with nd.swapaxes first")


def _op(x: jax.Array, transpose: bool) -> jax.Array:
    return jnp.swapaxes(x, -1, -2) if transpose else x


def _square(x: jax.Array, op: str) -> None:
    _mat(x, op)
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"linalg.{op}: A must be square in its last two axes, got {tuple(x.shape)}")


@nd_op
def gemm(A: jax.Array, B: jax.Array, C: jax.Array, transpose_a: bool = False, transpose_b: bool = False,
         alpha: float = 1.0, beta: float = 1.0, axis: int = -2) -> jax.Array:
    """``alpha * op(A) @ op(B) + beta * C``."""
    _axis(axis, "gemm")
    _mat(A, "gemm")
    _mat(B, "gemm", "B")
    return alpha * jnp.matmul(_op(A, transpose_a), _op(B, transpose_b)) + beta * C


@nd_op
def gemm2(A: jax.Array, B: jax.Array, transpose_a: bool = False, transpose_b: bool = False,
          alpha: float = 1.0, axis: int = -2) -> jax.Array:
    """``alpha * op(A) @ op(B)``."""
    _axis(axis, "gemm2")
    _mat(A, "gemm2")
    _mat(B, "gemm2", "B")
    return alpha * jnp.matmul(_op(A, transpose_a), _op(B, transpose_b))


@nd_op
def potrf(A: jax.Array, lower: bool = True) -> jax.Array:
    """The Cholesky factor of a symmetric positive-definite ``A``: L with A = L L^T (``lower``), or
    U with A = U^T U."""
    _square(A, "potrf")
    chol = jnp.linalg.cholesky(A)
    return chol if lower else jnp.swapaxes(chol, -1, -2)


@nd_op
def potri(A: jax.Array, lower: bool = True) -> jax.Array:
    """The inverse of L L^T (``lower``) or U^T U, given the Cholesky factor in ``A``."""
    _square(A, "potri")
    tri = jnp.tril(A) if lower else jnp.triu(A)
    eye = jnp.broadcast_to(jnp.eye(A.shape[-1], dtype=A.dtype), A.shape)
    inv = lax.linalg.triangular_solve(tri, eye, left_side=True, lower=lower)  # tri^-1
    return jnp.matmul(_op(inv, lower), _op(inv, not lower))


@nd_op
def trsm(A: jax.Array, B: jax.Array, transpose: bool = False, rightside: bool = False, lower: bool = True,
         alpha: float = 1.0) -> jax.Array:
    """X solving ``op(A) X = alpha B`` (or ``X op(A) = alpha B`` with ``rightside``), A triangular."""
    _square(A, "trsm")
    return lax.linalg.triangular_solve(A, alpha * B, left_side=not rightside, lower=lower,
                                       transpose_a=transpose)


@nd_op
def trmm(A: jax.Array, B: jax.Array, transpose: bool = False, rightside: bool = False, lower: bool = True,
         alpha: float = 1.0) -> jax.Array:
    """``alpha op(A) B`` (or ``alpha B op(A)`` with ``rightside``), A triangular."""
    _square(A, "trmm")
    tri = _op(jnp.tril(A) if lower else jnp.triu(A), transpose)
    return alpha * (jnp.matmul(B, tri) if rightside else jnp.matmul(tri, B))


@nd_op
def syrk(A: jax.Array, transpose: bool = False, alpha: float = 1.0) -> jax.Array:
    """``alpha A A^T`` (or ``alpha A^T A`` with ``transpose``)."""
    _mat(A, "syrk")
    at = jnp.swapaxes(A, -1, -2)
    return alpha * (jnp.matmul(at, A) if transpose else jnp.matmul(A, at))


@nd_op
def sumlogdiag(A: jax.Array) -> jax.Array:
    """The sum of the logarithms of the diagonal of each matrix."""
    _square(A, "sumlogdiag")
    return legacy_scalar(jnp.sum(jnp.log(jnp.diagonal(A, axis1=-2, axis2=-1)), axis=-1))


@nd_op
def extractdiag(A: jax.Array, offset: int = 0) -> jax.Array:
    """The ``offset``-th diagonal of each matrix."""
    _mat(A, "extractdiag")
    return jnp.diagonal(A, offset=offset, axis1=-2, axis2=-1)


@nd_op
def makediag(A: jax.Array, offset: int = 0) -> jax.Array:
    """Square matrices with the last axis of ``A`` on their ``offset``-th diagonal."""
    n = A.shape[-1] + abs(offset)
    out = jnp.zeros(A.shape[:-1] + (n, n), A.dtype)
    i = jnp.arange(A.shape[-1])
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    return out.at[..., rows, cols].set(A)


@nd_op
def inverse(A: jax.Array) -> jax.Array:
    """The inverse of each square matrix."""
    _square(A, "inverse")
    return jnp.linalg.inv(A)


@nd_op
def det(A: jax.Array) -> jax.Array:
    """The determinant of each square matrix."""
    _square(A, "det")
    return legacy_scalar(jnp.linalg.det(A))


@nd_op
def slogdet(A: jax.Array) -> list[jax.Array]:
    """``[sign, log|det|]`` of each square matrix."""
    _square(A, "slogdet")
    sign, logdet = jnp.linalg.slogdet(A)
    return [legacy_scalar(sign), legacy_scalar(logdet)]


from .linalg_decomp import extracttrian, gelqf, maketrian, syevd  # noqa: E402  (re-exported)
