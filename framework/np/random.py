"""``np.random`` over a framework-held key stream.

``seed(n)`` makes every later draw reproducible: draw ``i`` after a seed uses
``fold_in(key(n), i)``, so the stream is a pure function of (seed, count) and can be checkpointed with
:func:`get_state` / :func:`set_state`. Every function takes ``ctx=`` / ``device=``.

>>> from framework import np
>>> np.random.seed(0); a = np.random.uniform(size=(2,))
>>> np.random.seed(0); b = np.random.uniform(size=(2,))
>>> bool((a == b).all())
True
"""

from __future__ import annotations

import threading
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .. import _compile, _draw, _threefry
from .creation import place

__all__ = [
    "seed", "next_key", "get_state", "set_state", "uniform", "normal", "randn", "rand", "randint",
    "choice", "shuffle", "permutation", "gamma", "beta", "exponential", "multinomial", "bernoulli",
    "laplace", "logistic", "gumbel", "poisson", "lognormal", "chisquare", "categorical", "pareto", "power",
    "rayleigh", "weibull", "f", "multivariate_normal",
]

_lock = threading.Lock()
_state = {"seed": 0, "count": 0}
_base_keys: dict[tuple[int, Any], jax.Array] = {}


def seed(seed: int = 0, ctx: Any = "all", *, device: Any = None) -> None:
    """Reset the stream (``ctx`` is accepted for MXNet compatibility: the stream is global)."""
    with _lock:
        _state["seed"] = int(seed)
        _state["count"] = 0


def get_state() -> dict[str, int]:
    """The stream's position: ``{'seed': s, 'count': c}`` (JSON-serialisable)."""
    with _lock:
        return dict(_state)


def set_state(state: dict[str, int]) -> None:
    """Restore a position saved by :func:`get_state`."""
    with _lock:
        _state["seed"] = int(state["seed"])
        _state["count"] = int(state["count"])


def next_key_parts(*, device: jax.Device | None = None) -> tuple[jax.Array, onp.uint32]:
    """The next draw as ``(base key on device, count)``: ``jax.random.fold_in(base, count)`` is the key.

    Compiled callers fold the count in inside their own program: a key costs no dispatch of its own
    (a separate ``fold_in`` call on a key array costs about half a millisecond of host time).
    """
    with _lock:
        s, c = _state["seed"], _state["count"]
        _state["count"] = c + 1
        base = _base_keys.get((s, device))
        if base is None:
            base = _threefry.key(s)
            base = _base_keys[(s, device)] = base if device is None else jax.device_put(base, device)
    return base, onp.uint32(c)


def next_key(*, device: jax.Device | None = None) -> jax.Array:
    """A fresh PRNG key from the stream, ``fold_in(key(seed), count)``, computed on ``device``."""
    return _fold_in(*next_key_parts(device=device))


class _Programs:
    """The owner of this module's compiled program (see :mod:`framework._compile`)."""


_programs = _Programs()


def _fold_in(key: jax.Array, count: Any) -> jax.Array:
    return _threefry.fold_in(key, count, _compiled_fold_in)


def _compiled_fold_in(key: jax.Array, count: Any) -> jax.Array:
    return _compile.jit(("fold_in",), lambda: jax.random.fold_in, owner=_programs)(key, count)


def _shape(size: Any) -> tuple[int, ...]:
    if size is None:
        return ()
    if isinstance(size, int):
        return (size,)
    return tuple(size)


def _float(dtype: Any) -> Any:
    return dtype or jnp.float32


def _out(x: jax.Array, ctx: Any, device: Any) -> jax.Array:
    return place(x, ctx, device)


def _into(out: Any, fn: Any, a: Any, b: Any) -> Any:
    """``out=``: only a writable holder (an initializer's ``arr``, see framework.initializer.slot) can
    be filled; a jax.Array is immutable."""
    if not (hasattr(out, "written") and hasattr(out, "__setitem__")):
        raise TypeError(f"np.random.{fn.__name__}(..., out=...): jax arrays are immutable; use the "
                        "returned array")
    out[:] = fn(a, b, size=out.shape, dtype=out.dtype)
    return out


def uniform(low: Any = 0.0, high: Any = 1.0, size: Any = None, dtype: Any = None, ctx: Any = None,
            out: Any = None, *, device: Any = None) -> jax.Array:
    if out is not None:
        return _into(out, uniform, low, high)
    shape = _shape(size) if size is not None else jnp.broadcast_shapes(jnp.shape(low), jnp.shape(high))
    # drawn and scaled without a program of this shape (low > high: values in (high, low], as MXNet's np)
    if _draw.scalar_parameters(low, high) and bool(low <= high):
        return _out(_draw.uniform(next_key(), shape, _float(dtype), low, high), ctx, device)
    u = _draw.uniform(next_key(), shape, _float(dtype))
    return _out(low + (jnp.asarray(high) - low) * u, ctx, device).astype(_float(dtype))


def normal(loc: Any = 0.0, scale: Any = 1.0, size: Any = None, dtype: Any = None, ctx: Any = None,
           out: Any = None, *, device: Any = None) -> jax.Array:
    if out is not None:
        return _into(out, normal, loc, scale)
    shape = _shape(size) if size is not None else jnp.broadcast_shapes(jnp.shape(loc), jnp.shape(scale))
    if _draw.scalar_parameters(loc, scale):
        return _out(_draw.normal(next_key(), shape, _float(dtype), scale, loc), ctx, device)
    z = _draw.normal(next_key(), shape, _float(dtype))
    return _out((loc + jnp.asarray(scale) * z).astype(_float(dtype)), ctx, device)


def randn(*size: int, dtype: Any = None, ctx: Any = None, device: Any = None) -> jax.Array:
    return normal(size=size, dtype=dtype, ctx=ctx, device=device)


def rand(*size: int, dtype: Any = None, ctx: Any = None, device: Any = None) -> jax.Array:
    return uniform(size=size, dtype=dtype, ctx=ctx, device=device)


def lognormal(mean: float = 0.0, sigma: float = 1.0, size: Any = None, dtype: Any = None,
              ctx: Any = None, *, device: Any = None) -> jax.Array:
    return jnp.exp(normal(mean, sigma, size, dtype, ctx, device=device))


def randint(low: int, high: int | None = None, size: Any = None, dtype: Any = None,
            ctx: Any = None, out: Any = None, *, device: Any = None) -> jax.Array:
    if high is None:
        low, high = 0, low
    x = jax.random.randint(next_key(), _shape(size), low, high, dtype or jnp.int32)
    return _out(x, ctx, device)


def choice(a: Any, size: Any = None, replace: bool = True, p: Any = None, ctx: Any = None,
           out: Any = None, *, device: Any = None) -> jax.Array:
    x = jax.random.choice(next_key(), a if not isinstance(a, int) else int(a), _shape(size),
                          replace=replace, p=p)
    return _out(x, ctx, device)


def permutation(x: Any, ctx: Any = None, *, device: Any = None) -> jax.Array:
    return _out(jax.random.permutation(next_key(), x), ctx, device)


def shuffle(x: jax.Array) -> jax.Array:
    """Shuffle along the first axis. JAX arrays are immutable, so (unlike MXNet, which shuffles in
    place and returns None) the shuffled array is returned: write ``x = np.random.shuffle(x)``."""
    return jax.random.permutation(next_key(), x, independent=False)


def gamma(shape: Any = 1.0, scale: Any = 1.0, size: Any = None, dtype: Any = None, ctx: Any = None,
          out: Any = None, *, device: Any = None) -> jax.Array:
    s = _shape(size) if size is not None else jnp.shape(shape)
    g = jax.random.gamma(next_key(), jnp.asarray(shape, _float(dtype)), s, _float(dtype))
    return _out(g * scale, ctx, device)


def beta(a: Any, b: Any, size: Any = None, dtype: Any = None, ctx: Any = None, *,
         device: Any = None) -> jax.Array:
    x = jax.random.beta(next_key(), a, b, _shape(size) if size is not None else None, _float(dtype))
    return _out(x, ctx, device)


def exponential(scale: Any = 1.0, size: Any = None, dtype: Any = None, ctx: Any = None, out: Any = None,
                *, device: Any = None) -> jax.Array:
    x = jax.random.exponential(next_key(), _shape(size), _float(dtype)) * scale
    return _out(x, ctx, device)


def laplace(loc: Any = 0.0, scale: Any = 1.0, size: Any = None, dtype: Any = None, ctx: Any = None,
            *, device: Any = None) -> jax.Array:
    return _out(loc + scale * jax.random.laplace(next_key(), _shape(size), _float(dtype)), ctx, device)


def logistic(loc: Any = 0.0, scale: Any = 1.0, size: Any = None, dtype: Any = None, ctx: Any = None,
             *, device: Any = None) -> jax.Array:
    return _out(loc + scale * jax.random.logistic(next_key(), _shape(size), _float(dtype)), ctx, device)


def gumbel(loc: Any = 0.0, scale: Any = 1.0, size: Any = None, dtype: Any = None, ctx: Any = None,
           *, device: Any = None) -> jax.Array:
    return _out(loc + scale * jax.random.gumbel(next_key(), _shape(size), _float(dtype)), ctx, device)


def poisson(lam: Any = 1.0, size: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    return _out(jax.random.poisson(next_key(), lam, _shape(size) or None), ctx, device)


def chisquare(df: Any, size: Any = None, dtype: Any = None, ctx: Any = None, *,
              device: Any = None) -> jax.Array:
    return _out(jax.random.chisquare(next_key(), df, _shape(size) or None, _float(dtype)), ctx, device)


def bernoulli(prob: Any = 0.5, size: Any = None, dtype: Any = None, ctx: Any = None, *,
              device: Any = None) -> jax.Array:
    x = jax.random.bernoulli(next_key(), prob, _shape(size) or None)
    return _out(x.astype(_float(dtype)), ctx, device)


def categorical(logits: Any, size: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    return _out(jax.random.categorical(next_key(), logits, shape=_shape(size) or None), ctx, device)


def multinomial(n: int, pvals: Any, size: Any = None, ctx: Any = None, *,
                device: Any = None) -> jax.Array:
    """Counts of ``n`` draws over ``pvals`` (shape ``size + (len(pvals),)``), as numpy's."""
    pvals = jnp.asarray(pvals, jnp.float32)
    shape = _shape(size)
    draws = jax.random.categorical(next_key(), jnp.log(pvals), shape=shape + (int(n),))
    counts = jax.nn.one_hot(draws, pvals.shape[-1], dtype=jnp.int32).sum(axis=-2)
    return _out(counts, ctx, device)


def _shape_of(size: Any, *params: Any) -> tuple[int, ...]:
    return _shape(size) if size is not None else jnp.broadcast_shapes(*(jnp.shape(p) for p in params))


def pareto(a: Any, size: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    """Pareto II (Lomax) draws, as NumPy's: ``exp(E / a) - 1`` with ``E`` standard exponential."""
    e = jax.random.exponential(next_key(), _shape_of(size, a), jnp.float32)
    return _out(jnp.expm1(e / jnp.asarray(a, jnp.float32)), ctx, device)


def power(a: Any, size: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    """Draws on [0, 1] with density ``a x^(a-1)``: ``U^(1/a)``."""
    u = jax.random.uniform(next_key(), _shape_of(size, a), jnp.float32)
    return _out(u ** (1.0 / jnp.asarray(a, jnp.float32)), ctx, device)


def rayleigh(scale: Any = 1.0, size: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    """Rayleigh draws: ``scale * sqrt(2 E)`` with ``E`` standard exponential."""
    e = jax.random.exponential(next_key(), _shape_of(size, scale), jnp.float32)
    return _out(jnp.asarray(scale, jnp.float32) * jnp.sqrt(2.0 * e), ctx, device)


def weibull(a: Any, size: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    """Weibull draws of shape ``a`` (scale 1): ``E^(1/a)``."""
    e = jax.random.exponential(next_key(), _shape_of(size, a), jnp.float32)
    return _out(e ** (1.0 / jnp.asarray(a, jnp.float32)), ctx, device)


def f(dfnum: Any, dfden: Any, size: Any = None, ctx: Any = None, *, device: Any = None) -> jax.Array:
    """F-distribution draws: ``(X1 / dfnum) / (X2 / dfden)`` with chi-square ``X1``, ``X2``."""
    shape = _shape_of(size, dfnum, dfden)
    num = jax.random.chisquare(next_key(), dfnum, shape, jnp.float32) / dfnum
    den = jax.random.chisquare(next_key(), dfden, shape, jnp.float32) / dfden
    return _out(num / den, ctx, device)


def multivariate_normal(mean: Any, cov: Any, size: Any = None, check_valid: Any = None, tol: Any = None,
                        ctx: Any = None, *, device: Any = None) -> jax.Array:
    """Draws of shape ``size + mean.shape`` from ``N(mean, cov)`` (``cov`` positive semi-definite)."""
    mean, cov = jnp.asarray(mean, jnp.float32), jnp.asarray(cov, jnp.float32)
    shape = _shape(size) if size is not None else None
    x = jax.random.multivariate_normal(next_key(), mean, cov, shape, method="svd")
    return _out(x, ctx, device)
