"""The array methods and ``framework.np`` functions of :mod:`framework.np.eager`: reshapes, ``astype``,
sorting and reductions, and elementwise math, on an eager CPU array's first-seen shapes in host memory.

>>> import jax, numpy
>>> method(jax.device_put(numpy.arange(6, dtype="float32")), "reshape", 2, 3).shape
(2, 3)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .._host import put
from ._core import clip, computable, host_operand, host_runs_left, is_array, signature, static_signature

__all__ = ["method", "METHOD_NAMES", "functions"]


def _shape_args(args: tuple[Any, ...]) -> Any:
    return args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args


def _astype(values: onp.ndarray, dtype: Any) -> onp.ndarray | None:
    target = onp.dtype(dtype)
    if target != jax.dtypes.canonicalize_dtype(target):
        return None  # JAX's warning that 64-bit types are off
    if not computable(target) or values.dtype.kind == "f" and target.kind in "iu":
        return None  # float to integer: NumPy leaves NaN and out-of-range values undefined, XLA saturates
    return values.astype(target)


def _index_result(out: onp.ndarray) -> onp.ndarray:
    return out.astype(jax.dtypes.canonicalize_dtype(onp.int64))


def _integer_sum_dtype(dtype: onp.dtype) -> Any:
    """JAX's dtype for a sum of booleans or integers: its default (unsigned) integer."""
    return jax.dtypes.canonicalize_dtype(onp.uint64 if dtype.kind == "u" else onp.int64)


def _reduction(fn: Callable[..., Any], index: bool = False, kinds: str = "biuf",
               summed: bool = False) -> Callable[..., Any]:
    def host(values: onp.ndarray, axis: Any = None, *, keepdims: bool = False) -> onp.ndarray | None:
        if values.dtype.kind not in kinds or values.ndim == 0 and axis is not None:
            return None  # (NumPy takes axis 0 of a 0-d array; JAX refuses it)
        out = fn(values, axis=axis, keepdims=keepdims)
        if index:
            return _index_result(out)
        if summed and values.dtype.kind != "f":
            return out.astype(_integer_sum_dtype(values.dtype))  # (NumPy sums into int64: JAX's wraps)
        return out

    return host


def _sort(fn: Callable[..., Any], index: bool) -> Callable[..., Any]:
    def host(values: onp.ndarray, axis: int = -1) -> onp.ndarray | None:
        if values.ndim == 0:
            return None  # JAX's error
        out = fn(values, axis=axis, kind="stable")  # JAX's sort is stable
        return _index_result(out) if index else out

    return host


def _elementwise(fn: Callable[..., Any], kinds: str = "f") -> Callable[..., Any]:
    def host(values: onp.ndarray) -> onp.ndarray | None:
        return fn(values) if values.dtype.kind in kinds else None  # (JAX makes integers floats first)

    return host


def _rearranged(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A function that only moves values (``expand_dims``, ``transpose``, ...), with its arguments."""
    def host(values: onp.ndarray, *args: Any, **kwargs: Any) -> onp.ndarray | None:
        if any(isinstance(a, (jax.Array, onp.ndarray)) for a in (*args, *kwargs.values())):
            return None  # an array argument: JAX's reading of it
        return fn(values, *args, **kwargs)

    return host


# Reshapes, sorting, max/min and the other exact reductions: NumPy's results are XLA's, bit for bit.
# Sums and means (float ones) differ from XLA's by the rounding of another summation order, as XLA's
# own do between programs.
_METHODS: dict[str, Callable[..., Any]] = {
    "reshape": lambda v, *shape: v.reshape(_shape_args(shape)),
    "astype": _astype,
    "flatten": lambda v: v.reshape(-1),
    "copy": lambda v: v.copy(),
    "swapaxes": lambda v, axis1, axis2: v.swapaxes(axis1, axis2),
    "ravel": lambda v: v.reshape(-1),
    "squeeze": lambda v, axis=None: v.squeeze(axis),
    "transpose": lambda v, *axes: v.transpose(_shape_args(axes) or None),
    "argsort": _sort(onp.argsort, True),
    "sort": _sort(onp.sort, False),
    "max": _reduction(onp.max),
    "min": _reduction(onp.min),
    "any": _reduction(onp.any),
    "all": _reduction(onp.all),
    "argmax": _reduction(onp.argmax, True),
    "argmin": _reduction(onp.argmin, True),
    "sum": _reduction(onp.sum, summed=True),
    "mean": _reduction(onp.mean, kinds="f"),
}

# framework.np's functions of one array: the reductions above, and elementwise math (of float arrays;
# transcendental functions agree with XLA's to its rounding, the rest exactly)
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    **{name: _METHODS[name] for name in ("argsort", "sort", "max", "min", "any", "all", "argmax", "argmin",
                                         "sum", "mean")},
    "amax": _METHODS["max"],
    "amin": _METHODS["min"],
    **{name: _elementwise(getattr(onp, name)) for name in (
        "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh",
        "arcsin", "arccos", "arctan", "floor", "ceil", "trunc")},
    **{name: _elementwise(getattr(onp, name), "iuf") for name in ("abs", "absolute", "square", "sign")},
    **{name: _elementwise(getattr(onp, name), "biuf") for name in ("isnan", "isinf", "isfinite",
                                                                   "logical_not")},
    **{name: _rearranged(getattr(onp, name)) for name in ("expand_dims", "squeeze", "transpose", "swapaxes",
                                                          "reshape", "flip", "ravel")},
}


def _on_host(name: str, host: Callable[..., Any], a: Any, args: tuple[Any, ...],
             kwargs: dict[str, Any]) -> jax.Array | None:
    key = (name, signature(a), static_signature(args), static_signature(tuple(kwargs.items())))
    if not host_runs_left(key):
        return None
    found = host_operand(a)
    if found is None:
        return None
    try:
        with onp.errstate(all="ignore"):
            out = host(found[0], *args, **kwargs)
    except (TypeError, ValueError, IndexError, AttributeError):
        return None  # an argument the host function does not take, an axis out of range: JAX's
    return None if out is None else put(onp.asarray(out), found[1])


#: The method names :func:`method` may compute in host memory (the calls ``framework.run`` routes to it).
METHOD_NAMES = frozenset({*_METHODS, "clip"})


def method(obj: Any, name: str, /, *args: Any, **kwargs: Any) -> Any:
    """``obj.name(*args, **kwargs)``, computed in host memory for an eager CPU array's first runs of a
    signature, for the methods in :data:`METHOD_NAMES`; anything else's own method."""
    if is_array(obj):
        if name == "clip":
            return clip(obj, *args, **kwargs)
        host = _METHODS.get(name)
        if host is not None:
            out = _on_host(name, host, obj, args, kwargs)
            if out is not None:
                return out
    return getattr(obj, name)(*args, **kwargs)


def _function(name: str, jnp_fn: Callable[..., Any], host: Callable[..., Any]) -> Callable[..., Any]:
    def fn(a: Any, *args: Any, **kwargs: Any) -> Any:
        if is_array(a):
            out = _on_host(name, host, a, args, kwargs)
            if out is not None:
                return out
        return jnp_fn(a, *args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``jax.numpy.{name}``, computed in host memory for an eager CPU array's first runs."
    fn.__wrapped__ = jnp_fn  # type: ignore[attr-defined]
    return fn


def functions() -> dict[str, Callable[..., Any]]:
    """``framework.np``'s functions that compute an eager CPU array's first-seen shapes in host memory,
    by name (each is ``jax.numpy``'s for anything else)."""
    return {name: _function(name, getattr(jnp, name), host) for name, host in _FUNCTIONS.items()}
