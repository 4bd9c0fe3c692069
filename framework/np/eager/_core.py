"""The operators of :mod:`framework.np.eager`: Python's arithmetic, comparisons and indexing on an eager
CPU array's first-seen shapes, in host memory, and the counting that decides when JAX takes over.

>>> import jax, numpy
>>> x = jax.device_put(numpy.array([3.0, 1.0, 2.0], numpy.float32))
>>> BINARY["sub"](x, 1).tolist()
[2.0, 0.0, 1.0]
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from ... import config
from .._host import host_values, put

__all__ = ["BINARY", "UNARY", "INPLACE", "SLICE", "getitem", "maximum", "minimum", "clip", "host_runs_left",
           "is_array", "signature", "static_signature", "host_operand", "computable", "result_device"]

_NUMBERS = (bool, int, float)
_KINDS = frozenset("biuf")  # bool, signed, unsigned, float (float16 and ml_dtypes' types are JAX's)
_SEEN_LIMIT = 1 << 16
_seen: dict[tuple, int] = {}
_array_types: dict[type, bool] = {}


def is_array(x: Any) -> bool:
    """A concrete ``jax.Array`` (not a tracer, not a recorded value)."""
    t = type(x)
    known = _array_types.get(t)
    if known is None:
        known = _array_types[t] = issubclass(t, jax.Array) and not issubclass(t, jax.core.Tracer)
    return known


def host_runs_left(key: tuple) -> bool:
    """Counts one run of ``key`` (an operator and its signature); False once it has run on the host
    ``FRAMEWORK_EAGER_HOST_RUNS`` times (then JAX compiles it and runs it from its cache)."""
    runs = _seen.get(key, 0)
    if runs >= config.get("eager_host_runs"):
        return False
    if len(_seen) >= _SEEN_LIMIT:
        _seen.clear()
    _seen[key] = runs + 1
    return True


def signature(x: Any) -> Any:
    """What the program of an operator depends on: an array's shape and dtype, a number's type (JAX
    passes numbers to the program as arguments)."""
    if is_array(x) or isinstance(x, onp.ndarray):
        return (x.shape, x.dtype)
    return type(x)


def static_signature(x: Any) -> Any:
    """The same for an index or a method's arguments, where JAX builds numbers and shapes into the
    program: their values."""
    if is_array(x) or isinstance(x, onp.ndarray):
        return (x.shape, x.dtype)
    if isinstance(x, (tuple, list)):
        return (type(x), *map(static_signature, x))
    if isinstance(x, slice):
        return (slice, static_signature(x.start), static_signature(x.stop), static_signature(x.step))
    try:
        hash(x)
    except TypeError:
        return (object, id(type(x)))
    return (type(x), x)


def host_operand(x: Any, weak: bool = False) -> tuple[onp.ndarray, jax.Device | None] | None:
    """Host values of an array (a CPU one, see :func:`host_values`; a weakly typed one where ``weak``:
    for an operand promoted by JAX's rules) or of a Python number."""
    if type(x) in _NUMBERS:
        return onp.asarray(x), None
    found = host_values(x, weak=weak)
    if found is None or not computable(found[0].dtype):
        return None
    return found


def computable(dtype: onp.dtype) -> bool:
    """A dtype whose arithmetic NumPy does as XLA does: bool, integers, float32 and float64 (not
    float16, nor ml_dtypes' types, which NumPy sees as kind "V")."""
    return dtype.kind in _KINDS and (dtype.kind != "f" or dtype.itemsize >= 4)


def result_device(*devices: jax.Device | None) -> tuple[bool, jax.Device | None]:
    """(whether the committed devices agree, the one the result goes to)."""
    found = {d for d in devices if d is not None}
    if len(found) > 1:
        return False, None
    return True, next(iter(found), None)


def _fits(number: Any, dtype: onp.dtype) -> bool:
    """Whether a Python number converts to ``dtype`` as JAX converts it (JAX refuses an integer out of
    range; NumPy would wrap it)."""
    if type(number) is int and dtype.kind in "iu":
        info = onp.iinfo(dtype)
        return info.min <= number <= info.max
    return True


def _promoted(args: tuple[Any, ...], host: list[onp.ndarray]) -> tuple[list[onp.ndarray], onp.dtype] | None:
    dtype, weak = jax.dtypes.result_type(*args, return_weak_type_flag=True)
    if weak or not computable(onp.dtype(dtype)) or not all(_fits(a, dtype) for a in args):
        return None  # a weakly typed result stays JAX's to carry
    return [h.astype(dtype, copy=False) for h in host], onp.dtype(dtype)


def _host_ufunc(name: str, fn: Callable[..., Any], args: tuple[Any, ...], kinds: str = "biuf",
                result: str | None = None) -> jax.Array | None:
    """``fn`` of ``args`` promoted as JAX promotes them, in host memory; None where JAX must compute.
    ``result``: "bool" for comparisons, "float" for true division (integers divide as floats)."""
    if not host_runs_left((name, *map(signature, args))):
        return None
    operands = [host_operand(a, weak=True) for a in args]  # (a weakly typed result is refused below)
    if any(o is None for o in operands):
        return None
    agree, device = result_device(*(o[1] for o in operands))
    if not agree or len({o[0].ndim for o in operands}) > 1 and jax.config.jax_numpy_rank_promotion != "allow":
        return None  # (JAX warns of, or refuses, broadcasting across ranks: its message)
    try:
        promoted = _promoted(args, [o[0] for o in operands])
    except (TypeError, ValueError):
        return None
    if promoted is None or promoted[1].kind not in kinds:
        return None
    host, dtype = promoted
    if result == "float" and dtype.kind != "f":
        dtype = onp.dtype(jax.dtypes.canonicalize_dtype(onp.float64))
        host = [h.astype(dtype) for h in host]
    if name in ("floordiv", "mod") and dtype.kind in "biu" and not host[1].all():
        return None  # an integer division by zero: JAX's result
    with onp.errstate(all="ignore"):
        out = fn(*host)
    return put(onp.asarray(out, dtype=bool if result == "bool" else dtype), device)


def _binary(name: str, py: Callable[[Any, Any], Any], fn: Callable[..., Any], kinds: str = "biuf",
            result: str | None = None) -> Callable[[Any, Any], Any]:
    def op(a: Any, b: Any) -> Any:
        if is_array(a) or is_array(b):
            out = _host_ufunc(name, fn, (a, b), kinds, result)
            if out is not None:
                return out
        return py(a, b)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``operator.{py.__name__}``, computed in host memory for an eager CPU array's first runs."
    return op


def _integer_power(x: Any, n: Any) -> Any:
    """``x ** n`` for a float array and a Python integer: JAX multiplies (``lax.integer_pow``, by
    repeated squaring), and so does this, in the same order."""
    if not (is_array(x) and type(n) is int and x.dtype.kind == "f" and 0 < n <= 64):
        return None
    if not host_runs_left(("pow", signature(x), n)):
        return None
    found = host_operand(x)
    if found is None:
        return None
    base, acc = found[0], None
    with onp.errstate(all="ignore"):
        while n:
            if n & 1:
                acc = base if acc is None else acc * base
            n >>= 1
            if n:
                base = base * base
    return put(onp.asarray(acc), found[1])


def _pow(a: Any, b: Any) -> Any:
    out = _integer_power(a, b)
    return operator.pow(a, b) if out is None else out


def _unary(name: str, py: Callable[[Any], Any], fn: Callable[..., Any], kinds: str) -> Callable[[Any], Any]:
    def op(a: Any) -> Any:
        if is_array(a) and a.dtype.kind in kinds:
            out = _host_ufunc(name, fn, (a,), kinds)
            if out is not None:
                return out
        return py(a)

    op.__name__ = op.__qualname__ = name
    return op


#: Python's binary operators by ``operator``'s names (``__framework_eager__.BINARY["add"](a, b)``).
BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": _binary("add", operator.add, onp.add),
    "sub": _binary("sub", operator.sub, onp.subtract, "iuf"),
    "mul": _binary("mul", operator.mul, onp.multiply),
    "truediv": _binary("truediv", operator.truediv, onp.true_divide, "biuf", "float"),
    "floordiv": _binary("floordiv", operator.floordiv, onp.floor_divide, "iu"),
    "mod": _binary("mod", operator.mod, onp.mod, "iu"),
    "pow": _pow,
    "and_": _binary("and_", operator.and_, onp.bitwise_and, "biu"),
    "or_": _binary("or_", operator.or_, onp.bitwise_or, "biu"),
    "xor": _binary("xor", operator.xor, onp.bitwise_xor, "biu"),
    "lt": _binary("lt", operator.lt, onp.less, "biuf", "bool"),
    "le": _binary("le", operator.le, onp.less_equal, "biuf", "bool"),
    "gt": _binary("gt", operator.gt, onp.greater, "biuf", "bool"),
    "ge": _binary("ge", operator.ge, onp.greater_equal, "biuf", "bool"),
    "eq": _binary("eq", operator.eq, onp.equal, "biuf", "bool"),
    "ne": _binary("ne", operator.ne, onp.not_equal, "biuf", "bool"),
}

#: Python's unary operators ``-x`` and ``~x``.
UNARY: dict[str, Callable[[Any], Any]] = {
    "neg": _unary("neg", operator.neg, onp.negative, "iuf"),
    "invert": _unary("invert", operator.invert, onp.invert, "biu"),
}


def _inplace(name: str, py: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    binary = BINARY[name]

    def op(a: Any, b: Any) -> Any:
        return binary(a, b) if is_array(a) else py(a, b)  # (an array has no in-place operators)

    op.__name__ = op.__qualname__ = f"i{name.rstrip('_')}"
    return op


#: ``name op= value``: an array's binary operator, anything else's in-place one (a list's ``+=``).
INPLACE: dict[str, Callable[[Any, Any], Any]] = {
    name: _inplace(name, getattr(operator, f"i{name.rstrip('_')}"))
    for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor")}

#: ``slice``, for the instrumented code (which may rebind the builtin's name).
SLICE = slice

maximum = _binary("maximum", jnp.maximum, onp.maximum)
minimum = _binary("minimum", jnp.minimum, onp.minimum)


def clip(a: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002 - jax.numpy's names
    """``jax.numpy.clip(a, min, max)``: ``maximum`` with ``min``, then ``minimum`` with ``max``, each in
    host memory on its first runs."""
    if not is_array(a):
        return jnp.clip(a, min, max)
    out = a if min is None else maximum(min, a)
    return out if max is None else minimum(max, out)


def _index_part(part: Any) -> tuple[bool, Any, jax.Device | None]:
    """(NumPy indexes the part as JAX does, its host form, the device of an index array)."""
    if part is None or part is Ellipsis or type(part) is int:
        return True, part, None
    if type(part) is slice:
        return all(v is None or type(v) is int for v in (part.start, part.stop, part.step)), part, None
    if is_array(part) or isinstance(part, onp.ndarray):
        found = host_values(part)
        if found is not None and found[0].dtype.kind in "biu":
            return True, found[0], found[1]
    return False, None, None


def _host_getitem(x: Any, index: Any, parts: tuple[Any, ...]) -> jax.Array | None:
    """``x[index]`` (``parts``: the index as a tuple) in host memory, or None where JAX indexes (a part
    NumPy reads otherwise, index arrays on other devices, an index NumPy refuses)."""
    found = host_values(x)
    if found is None:
        return None
    host_parts, devices = [], [found[1]]
    for part in parts:
        ok, host, device = _index_part(part)
        if not ok:
            return None
        host_parts.append(host)
        devices.append(device)
    agree, device = result_device(*devices)
    if not agree:
        return None
    try:
        out = found[0][tuple(host_parts) if type(index) is tuple else host_parts[0]]
    except (IndexError, TypeError, ValueError):
        return None
    return put(onp.asarray(out), device)


def getitem(x: Any, index: Any) -> Any:
    """``x[index]``, in host memory for an eager CPU array's first runs of an index form, where NumPy
    indexes as JAX does: integers, slices, ``None``, ``...`` and integer or boolean index arrays (JAX's
    own clamping of an out-of-range index array, and its errors, by JAX)."""
    if is_array(x) and x.dtype.kind in _KINDS:
        parts = index if type(index) is tuple else (index,)
        if host_runs_left(("getitem", signature(x), static_signature(parts))):
            out = _host_getitem(x, index, parts)
            if out is not None:
                return out
    return x[index]
