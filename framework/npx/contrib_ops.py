"""Smaller operators of MXNet's contrib set: indexing (``boolean_mask``, ``index_copy``, ``index_array``),
elementwise (``quadratic``, ``div_sqrt_dim``, ``isfinite``/``isinf``/``isnan``, ``allclose``),
straight-through and gradient-scaling identities (``round_ste``, ``sign_ste``, ``gradientmultiplier``),
the transformer helpers ``interleaved_matmul_*`` and the sampler ``rand_zipfian``.

>>> import jax.numpy as jnp
>>> index_copy(jnp.zeros((3, 2)), jnp.array([2]), jnp.ones((1, 2))).tolist()
[[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]]
>>> round_ste(jnp.array([0.5, 1.5, -0.5])).tolist()
[1.0, 2.0, -1.0]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

__all__ = ["boolean_mask", "index_copy", "index_array", "quadratic", "div_sqrt_dim", "isfinite", "isinf",
           "isnan", "allclose", "round_ste", "sign_ste", "gradientmultiplier",
           "interleaved_matmul_selfatt_qk", "interleaved_matmul_selfatt_valatt",
           "interleaved_matmul_encdec_qk", "interleaved_matmul_encdec_valatt", "rand_zipfian"]

_INDEX = jax.dtypes.canonicalize_dtype(jnp.int64)


def boolean_mask(data: jax.Array, index: jax.Array, axis: int = 0) -> jax.Array:
    """The rows of ``data`` (along axis 0, the only axis MXNet supports) where ``index`` is non-zero.
    The row count depends on the values: concrete arrays only (not inside ``jax.jit``).

    >>> import jax.numpy as jnp
    >>> boolean_mask(jnp.arange(6).reshape(3, 2), jnp.array([1, 0, 1])).tolist()
    [[0, 1], [4, 5]]
    """
    if axis != 0:
        raise ValueError(f"boolean_mask: axis={axis} is not supported (MXNet supports axis=0 only)")
    if isinstance(index, jax.core.Tracer):
        raise TypeError("boolean_mask: the number of rows kept depends on index's values, so it cannot run "
                        "inside jax.jit or a hybridized block; call it on concrete arrays, or use "
                        "np.where(mask[:, None], data, 0) to keep the shape")
    keep = onp.nonzero(onp.asarray(index).reshape(-1))[0]
    if onp.asarray(index).size != data.shape[0]:
        raise ValueError(f"boolean_mask: index has {onp.asarray(index).size} entries, data has "
                         f"{data.shape[0]} rows")
    return jnp.take(data, jnp.asarray(keep, jnp.int32), axis=0)


def index_copy(old_tensor: jax.Array, index_vector: jax.Array, new_tensor: jax.Array) -> jax.Array:
    """``old_tensor`` with rows ``index_vector[i]`` replaced by ``new_tensor[i]``."""
    idx = jnp.asarray(index_vector).astype(jnp.int32).reshape(-1)
    if new_tensor.shape[1:] != old_tensor.shape[1:] or new_tensor.shape[0] != idx.shape[0]:
        raise ValueError(f"index_copy: new_tensor {tuple(new_tensor.shape)} must hold one row of shape "
                         f"{tuple(old_tensor.shape[1:])} per index ({idx.shape[0]})")
    return old_tensor.at[idx].set(new_tensor.astype(old_tensor.dtype))


def index_array(data: jax.Array, axes: Sequence[int] | None = None) -> jax.Array:
    """For every position of ``data``, its index along ``axes`` (all by default): shape
    ``data.shape + (len(axes),)``, integer.

    >>> import jax.numpy as jnp
    >>> index_array(jnp.ones((1, 2))).tolist()
    [[[0, 0], [0, 1]]]
    """
    nd = data.ndim
    axes = tuple(range(nd)) if axes is None else tuple(int(a) % max(nd, 1) for a in axes)
    grids = jnp.meshgrid(*[jnp.arange(n, dtype=_INDEX) for n in data.shape], indexing="ij")
    return jnp.stack([grids[a] for a in axes], axis=-1) if axes else jnp.zeros(data.shape + (0,), _INDEX)


def quadratic(data: jax.Array, a: float = 0.0, b: float = 0.0, c: float = 0.0) -> jax.Array:
    """``a * data**2 + b * data + c``."""
    return a * data * data + b * data + c


def div_sqrt_dim(data: jax.Array) -> jax.Array:
    """``data / sqrt(data.shape[-1])`` (scaled dot-product attention's scaling)."""
    return data / jnp.sqrt(jnp.asarray(data.shape[-1], data.dtype))


def isfinite(data: jax.Array) -> jax.Array:
    """1.0 where finite, else 0.0 (in data's dtype, as MXNet)."""
    return jnp.isfinite(data).astype(data.dtype)


def isinf(data: jax.Array) -> jax.Array:
    """1.0 where infinite, else 0.0."""
    return jnp.isinf(data).astype(data.dtype)


def isnan(data: jax.Array) -> jax.Array:
    """1.0 where NaN, else 0.0."""
    return jnp.isnan(data).astype(data.dtype)


def allclose(a: jax.Array, b: jax.Array, rtol: float = 1e-5, atol: float = 1e-8,
             equal_nan: bool = True) -> jax.Array:
    """A 0-d uint8 array: 1 if ``|a - b| <= atol + rtol * |b|`` everywhere (NaNs equal by default)."""
    return jnp.all(jnp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)).astype(jnp.uint8)


@jax.custom_vjp
def _straight_through(data: jax.Array, value: jax.Array) -> jax.Array:
    return value


def _st_fwd(data, value):
    return value, None


def _st_bwd(_, g):
    return g, None


_straight_through.defvjp(_st_fwd, _st_bwd)


def round_ste(data: jax.Array) -> jax.Array:
    """Round halves away from zero; the gradient passes straight through (as if the identity)."""
    rounded = jnp.sign(data) * jnp.floor(jnp.abs(data) + 0.5)
    return _straight_through(data, jax.lax.stop_gradient(rounded))


def sign_ste(data: jax.Array) -> jax.Array:
    """``sign(data)``; the gradient passes straight through."""
    return _straight_through(data, jax.lax.stop_gradient(jnp.sign(data)))


def gradientmultiplier(data: jax.Array, scalar: float = 0.0, is_int: bool = True) -> jax.Array:
    """The identity whose gradient is multiplied by ``scalar`` (a gradient-reversal layer with -1)."""
    s = float(scalar)

    @jax.custom_vjp
    def scaled(x):
        return x

    scaled.defvjp(lambda x: (x, None), lambda _, g: (g * s,))
    return scaled(data)


def _heads(x: jax.Array, heads: int, parts: int, what: str) -> jax.Array:
    """(L, B, heads*parts*d) -> (L, B, heads, parts, d)."""
    length, batch, width = x.shape
    if width % (heads * parts):
        raise ValueError(f"interleaved_matmul: {what} has width {width}, not a multiple of "
                         f"heads*{parts} = {heads * parts}")
    return x.reshape(length, batch, heads, parts, width // (heads * parts))


def interleaved_matmul_selfatt_qk(queries_keys_values: jax.Array, heads: int) -> jax.Array:
    """Self-attention scores (B*heads, L, L) from interleaved (L, B, heads*3*d) projections: the
    queries, scaled by 1/sqrt(d), times the keys."""
    x = _heads(queries_keys_values, heads, 3, "queries_keys_values")
    q, k = x[:, :, :, 0], x[:, :, :, 1]
    q = q / jnp.sqrt(jnp.asarray(q.shape[-1], q.dtype))
    att = jnp.einsum("ibhd,jbhd->bhij", q, k)
    return att.reshape(-1, att.shape[2], att.shape[3])


def interleaved_matmul_selfatt_valatt(queries_keys_values: jax.Array, attention: jax.Array,
                                      heads: int) -> jax.Array:
    """``attention`` (B*heads, L, L) applied to the values of interleaved projections: (L, B, heads*d)."""
    x = _heads(queries_keys_values, heads, 3, "queries_keys_values")
    v = x[:, :, :, 2]
    length, batch = v.shape[0], v.shape[1]
    att = attention.reshape(batch, heads, length, length)
    out = jnp.einsum("bhij,jbhd->ibhd", att, v)
    return out.reshape(length, batch, -1)


def interleaved_matmul_encdec_qk(queries: jax.Array, keys_values: jax.Array, heads: int) -> jax.Array:
    """Encoder-decoder attention scores (B*heads, Lq, Lk): ``queries`` (Lq, B, heads*d), scaled by
    1/sqrt(d), times the keys of interleaved ``keys_values`` (Lk, B, heads*2*d)."""
    q = _heads(queries, heads, 1, "queries")[:, :, :, 0]
    k = _heads(keys_values, heads, 2, "keys_values")[:, :, :, 0]
    q = q / jnp.sqrt(jnp.asarray(q.shape[-1], q.dtype))
    att = jnp.einsum("ibhd,jbhd->bhij", q, k)
    return att.reshape(-1, att.shape[2], att.shape[3])


def interleaved_matmul_encdec_valatt(keys_values: jax.Array, attention: jax.Array, heads: int) -> jax.Array:
    """``attention`` (B*heads, Lq, Lk) applied to the values of ``keys_values``: (Lq, B, heads*d)."""
    v = _heads(keys_values, heads, 2, "keys_values")[:, :, :, 1]
    lk, batch = v.shape[0], v.shape[1]
    att = attention.reshape(batch, heads, -1, lk)
    out = jnp.einsum("bhij,jbhd->ibhd", att, v)
    return out.reshape(out.shape[0], batch, -1)


def rand_zipfian(true_classes: jax.Array, num_sampled: int, range_max: int, ctx: Any = None,
                 key: jax.Array | None = None) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``num_sampled`` classes from an approximately log-uniform (Zipfian) distribution over
    ``[0, range_max)``, with the expected counts of ``true_classes`` and of the samples:
    ``(sampled_classes, expected_count_true, expected_count_sampled)``. The key comes from the
    framework's random stream unless given."""
    from ..np import random as _random

    key = _random.next_key() if key is None else key
    log_range = math.log(range_max + 1)
    wide = jax.dtypes.canonicalize_dtype(jnp.float64)
    rand = jax.random.uniform(key, (int(num_sampled),), wide, 0.0, log_range)
    sampled = (jnp.exp(rand) - 1).astype(_INDEX) % range_max
    true_cls = jnp.asarray(true_classes).astype(wide)
    count_true = jnp.log((true_cls + 2.0) / (true_cls + 1.0)) / log_range * num_sampled
    s = sampled.astype(wide)
    count_sampled = jnp.log((s + 2.0) / (s + 1.0)) / log_range * num_sampled
    if ctx is not None:
        sampled, count_true, count_sampled = (jax.device_put(v, ctx)
                                              for v in (sampled, count_true, count_sampled))
    return sampled, count_true, count_sampled
