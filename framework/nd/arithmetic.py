"""``mx.nd`` element-wise arithmetic: the binary operators (``add``, ``broadcast_*``, ``elemwise_*``),
comparisons returning 1/0 in the input's dtype (as MXNet 1.x does), unary math, ``clip``, ``add_n``,
``dot(transpose_a, transpose_b)`` and ``batch_dot``.

>>> import jax.numpy as jnp
>>> from framework import nd
>>> nd.broadcast_greater(jnp.array([1.0, 3.0]), jnp.array([2.0])).tolist()
[0.0, 1.0]
>>> nd.dot(jnp.ones((3, 2)), jnp.ones((3, 4)), transpose_a=True).shape
(2, 4)
>>> nd.broadcast_div(jnp.array([7, -7]), jnp.array([2])).tolist()
[3, -3]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from ._op import as_array, nd_op

__all__: list[str] = [
    "clip", "add_n", "ElementWiseSum", "dot", "batch_dot", "smooth_l1", "reciprocal", "rsqrt", "rcbrt",
    "relu", "sigmoid", "softsign", "hard_sigmoid", "erf", "erfinv", "gamma", "gammaln", "fix",
]


def _operands(lhs: Any, rhs: Any) -> tuple[jax.Array, jax.Array]:
    """Both operands as arrays; a Python number beside an array takes the array's type (MXNet 1.x's
    scalar operators: ``int32 array / 2.5`` divides by 2)."""
    scalar = (int, float)
    if isinstance(lhs, scalar) and not isinstance(rhs, scalar):
        b = as_array(rhs)
        return jnp.asarray(lhs).astype(b.dtype), b
    if isinstance(rhs, scalar) and not isinstance(lhs, scalar):
        a = as_array(lhs)
        return a, jnp.asarray(rhs).astype(a.dtype)
    return as_array(lhs), as_array(rhs)


def _binary(name: str, fn: Callable[[Any, Any], Any], *, boolean: bool = False) -> Callable:
    def op(lhs: Any, rhs: Any) -> jax.Array:
        a, b = _operands(lhs, rhs)
        out = fn(a, b)
        if boolean:  # MXNet 1.x: comparisons give 1/0 in the operands' dtype
            dtype = jnp.result_type(a, b)
            out = out.astype(dtype)
        return out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"MXNet 1.x ``nd.{name}(lhs, rhs)``: element-wise with broadcasting."
    return nd_op(op)


def _divide(a: jax.Array, b: jax.Array) -> jax.Array:
    """MXNet 1.x's division: integer operands give the integer quotient rounded toward zero, in their
    type (``broadcast_div(int64 [7, -7], [2]) == [3, -3]``); otherwise true division."""
    dtype = jnp.result_type(a, b)
    if jnp.issubdtype(dtype, jnp.integer):
        a, b = jnp.broadcast_arrays(jnp.asarray(a, dtype), jnp.asarray(b, dtype))
        return lax.div(a, b)
    return jnp.divide(a, b)


_BINARY: dict[str, tuple[Callable, bool]] = {
    "add": (jnp.add, False), "subtract": (jnp.subtract, False), "multiply": (jnp.multiply, False),
    "divide": (_divide, False), "modulo": (jnp.mod, False), "power": (jnp.power, False),
    "maximum": (jnp.maximum, False), "minimum": (jnp.minimum, False), "hypot": (jnp.hypot, False),
    "equal": (jnp.equal, True), "not_equal": (jnp.not_equal, True), "greater": (jnp.greater, True),
    "greater_equal": (jnp.greater_equal, True), "lesser": (jnp.less, True),
    "lesser_equal": (jnp.less_equal, True), "logical_and": (jnp.logical_and, True),
    "logical_or": (jnp.logical_or, True), "logical_xor": (jnp.logical_xor, True),
}
_BROADCAST_NAMES = {
    "add": "add", "sub": "subtract", "minus": "subtract", "mul": "multiply", "div": "divide",
    "mod": "modulo", "power": "power", "maximum": "maximum", "minimum": "minimum", "hypot": "hypot",
    "plus": "add", "equal": "equal", "not_equal": "not_equal", "greater": "greater",
    "greater_equal": "greater_equal", "lesser": "lesser", "lesser_equal": "lesser_equal",
    "logical_and": "logical_and", "logical_or": "logical_or", "logical_xor": "logical_xor",
}
_ELEMWISE = {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide"}

for _name, (_fn, _bool) in _BINARY.items():
    globals()[_name] = _binary(_name, _fn, boolean=_bool)
    __all__.append(_name)
for _alias, _name in _BROADCAST_NAMES.items():
    globals()[f"broadcast_{_alias}"] = _binary(f"broadcast_{_alias}", *_BINARY[_name][:1],
                                               boolean=_BINARY[_name][1])
    __all__.append(f"broadcast_{_alias}")
for _alias, _name in _ELEMWISE.items():
    globals()[f"elemwise_{_alias}"] = _binary(f"elemwise_{_alias}", _BINARY[_name][0])
    __all__.append(f"elemwise_{_alias}")


def _unary(name: str, fn: Callable[[Any], Any], *, boolean: bool = False) -> Callable:
    def op(data: Any) -> jax.Array:
        x = as_array(data)
        out = fn(x)
        return out.astype(x.dtype) if boolean else out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"MXNet 1.x ``nd.{name}(data)``: element-wise."
    return nd_op(op)


_UNARY: dict[str, Callable] = {
    "abs": jnp.abs, "sign": jnp.sign, "round": jnp.round, "rint": jnp.rint, "ceil": jnp.ceil,
    "floor": jnp.floor, "trunc": jnp.trunc, "sqrt": jnp.sqrt, "cbrt": jnp.cbrt, "square": jnp.square,
    "exp": jnp.exp, "expm1": jnp.expm1, "log": jnp.log, "log10": jnp.log10, "log2": jnp.log2,
    "log1p": jnp.log1p, "sin": jnp.sin, "cos": jnp.cos, "tan": jnp.tan, "arcsin": jnp.arcsin,
    "arccos": jnp.arccos, "arctan": jnp.arctan, "sinh": jnp.sinh, "cosh": jnp.cosh, "tanh": jnp.tanh,
    "arcsinh": jnp.arcsinh, "arccosh": jnp.arccosh, "arctanh": jnp.arctanh, "degrees": jnp.degrees,
    "radians": jnp.radians, "negative": jnp.negative,
}
for _name, _fn in _UNARY.items():
    globals()[_name] = _unary(_name, _fn)
    __all__.append(_name)
logical_not = _unary("logical_not", jnp.logical_not, boolean=True)
__all__.append("logical_not")

# MXNet's "round" rounds half away from zero; numpy (and jnp.round) rounds half to even.
round = _unary("round", lambda x: jnp.where(x >= 0, jnp.floor(x + 0.5), jnp.ceil(x - 0.5)))  # noqa: A001
# MXNet's "rint" takes the lower neighbour at exactly .5 (-2.5 -> -3, 2.5 -> 2)
rint = _unary("rint", lambda x: jnp.where(x - jnp.floor(x) <= 0.5, jnp.floor(x), jnp.ceil(x)))
fix = _unary("fix", jnp.trunc)
reciprocal = _unary("reciprocal", jnp.reciprocal)
rsqrt = _unary("rsqrt", lax.rsqrt)
rcbrt = _unary("rcbrt", lambda x: 1.0 / jnp.cbrt(x))
relu = _unary("relu", jax.nn.relu)
sigmoid = _unary("sigmoid", jax.nn.sigmoid)
softsign = _unary("softsign", jax.nn.soft_sign)
erf = _unary("erf", jax.scipy.special.erf)
erfinv = _unary("erfinv", jax.scipy.special.erfinv)
gamma = _unary("gamma", jax.scipy.special.gamma)
gammaln = _unary("gammaln", jax.scipy.special.gammaln)


@nd_op
def hard_sigmoid(data: jax.Array, alpha: float = 0.2, beta: float = 0.5) -> jax.Array:
    """``clip(alpha * data + beta, 0, 1)``."""
    return jnp.clip(alpha * data + beta, 0.0, 1.0)


@nd_op
def clip(data: jax.Array, a_min: float, a_max: float) -> jax.Array:
    """Values limited to ``[a_min, a_max]``.

    >>> import jax.numpy as jnp
    >>> clip(jnp.array([-2.0, 0.5, 3.0]), 0.0, 1.0).tolist()
    [0.0, 0.5, 1.0]
    """
    if a_min > a_max:
        raise ValueError(f"nd.clip: a_min={a_min} is larger than a_max={a_max}")
    return jnp.clip(data, a_min, a_max)


@nd_op
def add_n(*args: jax.Array) -> jax.Array:
    """The element-wise sum of all arguments (same shapes).

    >>> import jax.numpy as jnp
    >>> add_n(jnp.ones(2), jnp.ones(2), jnp.ones(2)).tolist()
    [3.0, 3.0]
    """
    if not args:
        raise ValueError("nd.add_n: needs at least one array")
    shapes = {tuple(a.shape) for a in args}
    if len(shapes) > 1:
        raise ValueError(f"nd.add_n: all arrays must have one shape, got {sorted(shapes)}")
    out = args[0]
    for a in args[1:]:
        out = out + a
    return out


ElementWiseSum = add_n


@nd_op
def dot(lhs: jax.Array, rhs: jax.Array, transpose_a: bool = False, transpose_b: bool = False,
        forward_stype: Any = None) -> jax.Array:
    """MXNet's ``dot``: the last axis of ``lhs`` (its first with ``transpose_a``) against the first axis
    of ``rhs`` (its last with ``transpose_b``); the other axes keep their order. 1-D by 1-D gives shape
    (1,), as MXNet 1.x does.

    >>> import jax.numpy as jnp
    >>> dot(jnp.ones((2, 3, 4)), jnp.ones((4, 5))).shape
    (2, 3, 5)
    >>> dot(jnp.ones((2, 3, 4)), jnp.ones((2, 5)), transpose_a=True).shape
    (3, 4, 5)
    """
    ax_a = 0 if transpose_a else lhs.ndim - 1
    ax_b = rhs.ndim - 1 if transpose_b else 0
    if lhs.shape[ax_a] != rhs.shape[ax_b]:
        raise ValueError(
            f"nd.dot: shapes {tuple(lhs.shape)} and {tuple(rhs.shape)} (transpose_a={transpose_a}, "
            f"transpose_b={transpose_b}) do not match: {lhs.shape[ax_a]} vs {rhs.shape[ax_b]}"
        )
    out = jnp.tensordot(lhs, rhs, axes=([ax_a], [ax_b]))
    return out.reshape(1) if out.ndim == 0 else out


@nd_op
def batch_dot(lhs: jax.Array, rhs: jax.Array, transpose_a: bool = False, transpose_b: bool = False,
              forward_stype: Any = None) -> jax.Array:
    """Matrix products of the last two axes, batched over the leading axes.

    >>> import jax.numpy as jnp
    >>> batch_dot(jnp.ones((4, 2, 3)), jnp.ones((4, 2, 5)), transpose_a=True).shape
    (4, 3, 5)
    """
    if lhs.ndim < 3 or rhs.ndim < 3:
        raise ValueError(
            f"nd.batch_dot: both operands must be at least 3-D (batch, rows, cols), got "
            f"{tuple(lhs.shape)} and {tuple(rhs.shape)}"
        )
    a = jnp.swapaxes(lhs, -1, -2) if transpose_a else lhs
    b = jnp.swapaxes(rhs, -1, -2) if transpose_b else rhs
    if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2]:
        raise ValueError(
            f"nd.batch_dot: shapes {tuple(a.shape)} and {tuple(b.shape)} (after transposes) do not "
            "match as batched matrices"
        )
    return jnp.matmul(a, b)


@nd_op
def smooth_l1(data: jax.Array, scalar: float = 1.0) -> jax.Array:
    """MXNet's smooth L1: ``0.5 (s x)^2 / s^2`` if ``|x| < 1/s^2``, else ``|x| - 0.5/s^2`` (s=scalar).

    >>> import jax.numpy as jnp
    >>> smooth_l1(jnp.array([0.5, 2.0])).tolist()
    [0.125, 1.5]
    """
    s2 = float(scalar) ** 2
    ax = jnp.abs(data)
    return jnp.where(ax < 1.0 / s2, 0.5 * s2 * data * data, ax - 0.5 / s2)
