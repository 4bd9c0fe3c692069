"""MXNet 1.x's ``contrib`` signal and counting operators as pure JAX functions:

- ``fft`` / ``ifft``: the FFT of the last axis of a real array in MXNet's packed layout
  (``[re0, im0, re1, im1, ...]``, so the last axis doubles), and the real part of the unnormalised
  inverse FFT of such packed data (halving it). MXNet 1.9.1 runs them on GPUs only; the values are
  ``numpy.fft``'s in that layout, and the gradients are the exact ones (what MXNet's backward computes).
- ``count_sketch``: ``out[n, h[i]] += s[i] * data[n, i]`` into ``out_dim`` buckets (GPU-only in MXNet too).
- ``hawkesll``: the log likelihood of a multivariate exponential-kernel Hawkes process over ragged,
  left-aligned sequences, and the process state at ``max_time`` (MXNet's kernel, loop for loop).
- ``getnnz``: the number of non-zero entries (all, or per row/column): what MXNet counts for a CSR
  array made from dense data.

>>> import jax.numpy as jnp
>>> fft(jnp.array([[1.0, 0.0, 0.0, 0.0]])).tolist()
[[1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]]
>>> count_sketch(jnp.array([[1.2, 2.5, 3.4]]), jnp.array([[0, 3, 1]]), jnp.array([[1, -1, 1]]), 5).tolist()
[[1.2000000476837158, 3.4000000953674316, 0.0, -2.5, 0.0]]
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

__all__ = ["fft", "ifft", "count_sketch", "hawkesll", "getnnz"]


def fft(data: jax.Array, compute_size: int = 128) -> jax.Array:
    """FFT of the last axis, packed as ``[re, im]`` pairs: shape ``(..., 2 * d)``. ``compute_size``
    (MXNet's sub-batch size for cuFFT) is accepted."""
    del compute_size
    spec = jnp.fft.fft(data.astype(jnp.float32), axis=-1)
    out = jnp.stack([spec.real, spec.imag], axis=-1)
    return out.reshape(data.shape[:-1] + (2 * data.shape[-1],)).astype(data.dtype)


def ifft(data: jax.Array, compute_size: int = 128) -> jax.Array:
    """Real part of the unnormalised inverse FFT of packed ``[re, im]`` pairs: shape ``(..., d / 2)``."""
    del compute_size
    if data.shape[-1] % 2:
        raise ValueError(f"ifft: the last axis ({data.shape[-1]}) must hold [re, im] pairs (even length)")
    pairs = data.astype(jnp.float32).reshape(data.shape[:-1] + (data.shape[-1] // 2, 2))
    spec = lax.complex(pairs[..., 0], pairs[..., 1])
    n = pairs.shape[-2]
    return (jnp.fft.ifft(spec, axis=-1).real * n).astype(data.dtype)


def count_sketch(
    data: jax.Array, h: jax.Array, s: jax.Array, out_dim: int | None = None, processing_batch_size: int = 32
) -> jax.Array:
    """Count sketch of ``data`` (N, in_dim) with hash ``h`` and signs ``s`` (both (1, in_dim)):
    (N, out_dim)."""
    del processing_batch_size
    if out_dim is None:
        raise TypeError("count_sketch: out_dim is required")
    idx = jnp.reshape(h, (-1,)).astype(jnp.int32)
    sign = jnp.reshape(s, (-1,)).astype(data.dtype)
    flat = data.reshape(-1, data.shape[-1])
    out = jnp.zeros((flat.shape[0], int(out_dim)), data.dtype).at[:, idx].add(flat * sign)
    return out.reshape(data.shape[:-1] + (int(out_dim),))


def hawkesll(
    lda: jax.Array,
    alpha: jax.Array,
    beta: jax.Array,
    state: jax.Array,
    lags: jax.Array,
    marks: jax.Array,
    valid_length: jax.Array,
    max_time: jax.Array,
) -> tuple[jax.Array, jax.Array]:
    """Log likelihood (N,) of each sequence on ``(0, max_time]`` and the state (N, K) there."""
    n, k = lda.shape
    marks = marks.astype(jnp.int32)
    steps = jnp.arange(lags.shape[1])

    def one(mu, st, lag, mark, length, horizon):
        def body(carry, xs):
            t, last, s, ll = carry
            j, dt, c = xs
            live = j < length
            t_new = t + dt
            d = t_new - last[c]
            ed = jnp.exp(-beta[c] * d)
            rate = mu[c] + alpha[c] * beta[c] * s[c] * ed
            comp = mu[c] * d + alpha[c] * s[c] * (1 - ed)
            ll = ll + jnp.where(live, jnp.log(rate) - comp, 0)
            s = jnp.where(live, s.at[c].set(1 + s[c] * ed), s)
            last = jnp.where(live, last.at[c].set(t_new), last)
            return (jnp.where(live, t_new, t), last, s, ll), None

        init = (jnp.zeros((), lda.dtype), jnp.zeros((k,), lda.dtype), st, jnp.zeros((), lda.dtype))
        (_, last, s, ll), _ = lax.scan(body, init, (steps, lag, mark))
        d = horizon - last
        ed = jnp.exp(-beta * d)
        remaining = mu * d + alpha * s * (1 - ed)
        return ll - jnp.sum(remaining), ed * s

    return jax.vmap(one)(lda, state, lags, marks, valid_length, max_time)


def getnnz(data: jax.Array, axis: int | None = None) -> jax.Array:
    """Non-zero entries: all of them as a (1,) array, or per column (``axis=0``) or row (``axis=1``)."""
    if data.ndim != 2:
        raise ValueError(
            f"getnnz: expected a 2-D array (a CSR matrix in MXNet), got shape {tuple(data.shape)}"
        )
    nz = (data != 0).astype(jnp.int32)
    if axis is None:
        return jnp.sum(nz).reshape(1)
    if axis not in (0, 1, -1, -2):
        raise ValueError(f"getnnz: axis={axis} must be None, 0 or 1")
    return jnp.sum(nz, axis=axis)
