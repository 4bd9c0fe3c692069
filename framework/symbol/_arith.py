"""Arithmetic, comparison and the operator methods of symbols, as MXNet 1.x writes them: ``a + b`` is an
``elemwise_add`` node named ``_plus<n>``, ``a + 1`` a ``_plus_scalar`` node named ``_plusscalar<n>``
(``scalar="1"``), ``-a`` is ``a * -1.0``, ``a.reshape((2, -1))`` is ``mx.sym.reshape(a, shape=...)``.

>>> from framework import symbol as sym
>>> a = sym.var('a')
>>> with sym.NameManager():
...     b = 2 - a * a
>>> [n['op'] for n in __import__('json').loads(b.tojson())['nodes']]
['null', 'elemwise_mul', '_rminus_scalar']
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as onp

__all__ = ["SymbolArithmetic", "FLUENT"]

_NUMBER = (numbers.Number, onp.generic)


# the operator functions (framework/symbol/_opfuncs.py) register themselves here when they are imported
# (the package imports them): this module sits below them, they build on Symbol, which builds on this
_BUILDERS: dict[str, Callable[..., Any]] = {}


def register_builders(internal_op: Callable[[str], Callable[..., Any]], split_v2: Callable[..., Any]) -> None:
    """Called once by ``_opfuncs``: how an operator node is made, and ``split_v2``."""
    _BUILDERS.update(internal_op=internal_op, split_v2=split_v2)


def _op(name: str, *args: Any, **kwargs: Any) -> Any:
    return _BUILDERS["internal_op"](name)(*args, **kwargs)


def _binary(sym_op: str, scalar_op: str, rscalar_op: str | None = None, swap: bool = False):
    def method(self, other):
        if isinstance(other, SymbolArithmetic):  # a Symbol
            return _op(sym_op, other, self) if swap else _op(sym_op, self, other)
        if isinstance(other, _NUMBER):
            return _op(rscalar_op if swap and rscalar_op else scalar_op, self, scalar=other)
        raise TypeError(f"type {type(other).__name__} not supported")
    return method


class SymbolArithmetic:
    """Operators of :class:`~framework.symbol.Symbol` (mixed in)."""

    __add__ = _binary("_Plus", "_PlusScalar")
    __radd__ = _binary("_Plus", "_PlusScalar")
    __sub__ = _binary("_Minus", "_MinusScalar")
    __rsub__ = _binary("_Minus", "_MinusScalar", "_RMinusScalar", swap=True)
    __mul__ = _binary("_Mul", "_MulScalar")
    __rmul__ = _binary("_Mul", "_MulScalar")
    __truediv__ = _binary("_Div", "_DivScalar")
    __rtruediv__ = _binary("_Div", "_DivScalar", "_RDivScalar", swap=True)
    __div__ = __truediv__
    __rdiv__ = __rtruediv__
    __mod__ = _binary("_Mod", "_ModScalar")
    __rmod__ = _binary("_Mod", "_ModScalar", "_RModScalar", swap=True)
    __pow__ = _binary("_Power", "_PowerScalar")
    __rpow__ = _binary("_Power", "_PowerScalar", "_rpower_scalar", swap=True)
    __eq__ = _binary("_equal", "_equal_scalar")  # type: ignore[assignment]
    __ne__ = _binary("_not_equal", "_not_equal_scalar")  # type: ignore[assignment]
    __gt__ = _binary("_greater", "_greater_scalar")
    __ge__ = _binary("_greater_equal", "_greater_equal_scalar")
    __lt__ = _binary("_lesser", "_lesser_scalar")
    __le__ = _binary("_lesser_equal", "_lesser_equal_scalar")

    def __neg__(self):
        return self.__mul__(-1.0)

    def __abs__(self):
        return self.abs()

    def __bool__(self):
        raise NotImplementedError("The truth value of a Symbol is not known until it runs: a Symbol "
                                  "describes a computation (compare arrays after executor.forward())")

    def astype(self, dtype: Any) -> Any:
        """``mx.sym.cast(self, dtype=dtype)``."""
        return _op("cast", self, dtype=dtype)


#: Symbol methods that call the operator function of the same name with the symbol first.
FLUENT = (
    "reshape", "reshape_like", "zeros_like", "ones_like", "broadcast_axes", "repeat", "pad", "swapaxes",
    "split", "slice", "slice_axis", "slice_like", "take", "one_hot", "pick", "sort", "topk", "argsort",
    "argmax", "argmax_channel", "argmin", "clip", "abs", "sign", "flatten", "shape_array", "size_array",
    "expand_dims", "broadcast_to", "broadcast_like", "tile", "transpose", "flip", "depth_to_space",
    "space_to_depth", "diag", "sum", "nansum", "prod", "nanprod", "mean", "max", "min", "norm", "round",
    "rint", "fix", "floor", "ceil", "trunc", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "degrees",
    "radians", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "exp", "expm1", "log", "log10",
    "log2", "log1p", "sqrt", "rsqrt", "cbrt", "rcbrt", "square", "reciprocal", "relu", "sigmoid", "softmax",
    "log_softmax", "softmin", "squeeze",
)


def _fluent(name: str):
    def method(self, *args: Any, **kwargs: Any) -> Any:
        return _op(name, self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"``mx.sym.{name}(self, ...)``."
    return method


for _name in FLUENT:
    setattr(SymbolArithmetic, _name, _fluent(_name))


def _split_v2(self, *args: Any, **kwargs: Any) -> Any:
    return _BUILDERS["split_v2"](self, *args, **kwargs)


SymbolArithmetic.split_v2 = _split_v2  # type: ignore[attr-defined]
