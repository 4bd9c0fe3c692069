"""NumPy names MXNet-era code used that NumPy 2 no longer has (MXNet 1.9.1 pinned NumPy < 1.24), where
the module's name is bound to NumPy itself (``import numpy as np``, ``import numpy as onp``,
``import numpy``) -- never where ``np`` is ``mxnet.np`` / ``framework.np``:

- ``np_builtin_alias``: ``np.float``, ``np.int``, ``np.bool``, ``np.object``, ``np.complex``,
  ``np.str``, ``np.long``, ``np.unicode`` -> the builtin each one was (NumPy 1.20 deprecated them, 1.24
  removed them; NumPy 2's ``np.bool``/``np.long`` are other types, so they are rewritten too);
- ``np_removed_alias``: ``np.bool8`` -> ``np.bool_``, ``np.float_`` -> ``np.float64``,
  ``np.NaN`` -> ``np.nan``, ``np.product`` -> ``np.prod`` ... (removed in NumPy 2.0 or since);
  ``np.NINF`` -> ``-np.inf`` and ``np.NZERO``/``np.PZERO`` -> ``-0.0``/``0.0``;
- ``np_asscalar``: ``np.asscalar(a)`` -> ``a.item()`` (removed in 1.23);
- ``np_removed_call``: ``np.msort(a)`` -> ``np.sort(a, axis=0)``, ``np.in1d(a, b)`` ->
  ``np.isin(a, b).ravel()``, ``np.asfarray(a)`` -> ``np.asarray(a, dtype=np.float64)``,
  ``np.alen(a)`` -> ``len(a)``, ``np.rank(a)`` -> ``np.ndim(a)``, ``np.issubclass_`` -> ``issubclass``,
  ``np.fromstring(data, dtype)`` without ``sep`` (binary mode, removed in NumPy 2.3) ->
  ``np.frombuffer(data, dtype).copy()``.

Names NumPy removed without a one-to-one replacement (``np.cast``, ``np.find_common_type``, ...) are
reported with the change to make. Assignments to these names (``np.float = float``, a compatibility
shim) are left alone.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider, ParentNodeProvider

from ._base import Rule, plain_args

__all__ = ["NumpyAliasRule"]

_BUILTIN = {"float": "float", "int": "int", "bool": "bool", "object": "object", "complex": "complex",
            "str": "str", "long": "int", "unicode": "str"}
_RENAMED = {"bool8": "bool_", "int0": "intp", "uint0": "uintp", "object0": "object_", "str0": "str_",
            "bytes0": "bytes_", "void0": "void", "float_": "float64", "complex_": "complex128",
            "longfloat": "longdouble", "singlecomplex": "complex64", "cfloat": "complex128",
            "longcomplex": "clongdouble", "clongfloat": "clongdouble", "string_": "bytes_",
            "unicode_": "str_", "Inf": "inf", "Infinity": "inf", "infty": "inf", "PINF": "inf", "NaN": "nan",
            "round_": "round", "product": "prod", "cumproduct": "cumprod", "alltrue": "all",
            "sometrue": "any", "trapz": "trapezoid", "row_stack": "vstack", "issubsctype": "issubdtype",
            "mat": "asmatrix", "typeDict": "sctypeDict"}
_CONSTANT = {"NINF": "-{np}.inf", "NZERO": "-0.0", "PZERO": "0.0"}
# removed with no one-to-one replacement: why is the same for all, the fix per name
_REPORT = {
    "cast": "np.asarray(x, dtype=dtype) (np.cast[dtype](x) before)",
    "find_common_type": "np.result_type(*array_types, *scalar_types) or np.promote_types(a, b)",
    "asscalar": "a.item()",
    "msort": "np.sort(a, axis=0)",
    "in1d": "np.isin(a, b).ravel()",
    "asfarray": "np.asarray(a, dtype=np.float64) (np.asfarray kept a float dtype= it was given)",
    "alen": "len(a)",
    "rank": "np.ndim(a)",
    "issctype": "issubclass(t, np.generic)",
    "obj2sctype": "np.dtype(obj).type",
    "sctype2char": "np.dtype(obj).char",
    "sctypes": "name the dtypes explicitly",
    "maximum_sctype": "name the widest dtype explicitly (e.g. np.float64)",
    "set_string_function": "np.set_printoptions(formatter=...)",
    "safe_eval": "ast.literal_eval",
    "deprecate": "warnings.warn(..., DeprecationWarning)",
    "deprecate_with_doc": "warnings.warn(..., DeprecationWarning)",
    "recfromcsv": "np.genfromtxt(f, delimiter=',', names=True, dtype=None)",
    "recfromtxt": "np.genfromtxt(f, names=True, dtype=None)",
    "source": "inspect.getsource",
    "lookfor": "search NumPy's documentation",
    "who": "a debugger's variable view, or locals()",
    "byte_bounds": "np.lib.array_utils.byte_bounds",
    "compare_chararrays": "np.char.compare_chararrays",
    "format_parser": "np.rec.format_parser",
    "DataSource": "np.lib.npyio.DataSource",
    "nbytes": "np.dtype(t).itemsize",
    "fastCopyAndTranspose": "a.T.copy()",
    "geterrobj": "the np.errstate context manager",
    "seterrobj": "the np.errstate context manager",
    "set_numeric_ops": "define __array_ufunc__ on an ndarray subclass",
    "add_newdoc": "np.lib.add_newdoc",
    "add_docstring": "np.lib.add_docstring",
    "add_newdoc_ufunc": "no replacement: drop it",
    "tracemalloc_domain": "np.lib.tracemalloc_domain",
    "disp": "print(x)",
    "math": "import math and use it directly",
    "loads": "pickle.loads (only for data you trust)",
    "MachAr": "np.finfo(dtype)",
    "get_array_wrap": "no replacement: drop it",
    "issubclass_": "issubclass",
}


class NumpyAliasRule(Rule):

    def _numpy_attr(self, node: cst.BaseExpression) -> str | None:
        """``X`` when ``node`` is ``<name bound to numpy>.X`` (read, not assigned to)."""
        if not (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)):
            return None
        if self.info.resolve(node) != f"numpy.{node.attr.value}":
            return None
        load = ExpressionContext.LOAD
        if self.meta(ExpressionContextProvider, node, load) != load:
            return None
        return node.attr.value

    def visit_Attribute(self, node: cst.Attribute) -> None:
        name = self._numpy_attr(node)
        if name is None or name not in _REPORT:
            return
        parent = self.meta(ParentNodeProvider, node, None)
        called = isinstance(parent, cst.Call) and parent.func is node
        if name in _CALLS and called and _CALLS[name][0](parent):  # type: ignore[arg-type]
            return  # rewritten by leave_Call
        np_name = node.value.value  # type: ignore[attr-defined]
        where = parent if called else node
        self.unported(where, f"NumPy 2 has no {np_name}.{name} (MXNet used NumPy < 1.24)",
                      _REPORT[name].replace("np.", f"{np_name}."))

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        name = self._numpy_attr(original)
        if name is None:
            return updated
        if name in _BUILTIN:
            self.count("np_builtin_alias")
            return cst.Name(_BUILTIN[name], lpar=updated.lpar, rpar=updated.rpar)
        if name in _RENAMED:
            self.count("np_removed_alias")
            return updated.with_changes(attr=cst.Name(_RENAMED[name]))
        if name in _CONSTANT:
            self.count("np_removed_alias")
            text = _CONSTANT[name].format(np=original.value.value)  # type: ignore[attr-defined]
            expr = cst.parse_expression(text)
            if text.startswith("-") and not self._bare_value(original):
                expr = expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            return expr.with_changes(lpar=[*updated.lpar, *expr.lpar], rpar=[*expr.rpar, *updated.rpar])
        return updated

    def _bare_value(self, node: cst.CSTNode) -> bool:
        """``node`` stands where a negative number needs no parentheses (an argument, a right-hand side,
        an element, a return value)."""
        parent = self.meta(ParentNodeProvider, node, None)
        return isinstance(parent, (cst.Arg, cst.Assign, cst.AnnAssign, cst.Return, cst.Element,
                                   cst.DictElement, cst.AugAssign))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not isinstance(original.func, cst.Attribute):
            return updated
        name = self._numpy_attr(original.func)
        if name not in _CALLS or not _CALLS[name][0](updated):
            return updated
        self.count(_CALLS[name][1])
        out = _CALLS[name][2](original.func.value, updated)  # type: ignore[arg-type]
        return out.with_changes(lpar=updated.lpar, rpar=updated.rpar)


def _arg(call: cst.Call, i: int = 0) -> cst.BaseExpression:
    return call.args[i].value


def _atom(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` as the receiver of a method call (parenthesised unless it is an atom already)."""
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.List, cst.Tuple, cst.Dict,
                         cst.SimpleString, cst.ConcatenatedString)) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _method(receiver: cst.BaseExpression, method: str, *args: cst.Arg) -> cst.Call:
    return cst.Call(func=cst.Attribute(value=_atom(receiver), attr=cst.Name(method)), args=list(args))


def _np(np_name: cst.Name, attr: str) -> cst.Attribute:
    return cst.Attribute(value=np_name, attr=cst.Name(attr))


def _one(call: cst.Call) -> bool:
    return plain_args(call, 1)


def _no_star(call: cst.Call) -> bool:
    return bool(call.args) and not any(a.star for a in call.args)


def _plain(arg: cst.Arg) -> cst.Arg:
    return arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)


def _kw(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(value=value, keyword=cst.Name(name), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))


def _binary_fromstring(call: cst.Call) -> bool:
    """``np.fromstring`` in binary mode: no ``sep`` (the text mode NumPy 2 keeps), at most
    (string, dtype, count)."""
    return _no_star(call) and len(call.args) <= 3 and not any(
        a.keyword is not None and a.keyword.value in ("sep", "like") for a in call.args)


_CALLS = {  # name: (applies to this call?, rule, rewrite(np name, call))
    "asscalar": (_one, "np_asscalar", lambda np, c: _method(_arg(c), "item")),
    "msort": (_one, "np_removed_call",
              lambda np, c: cst.Call(func=_np(np, "sort"), args=[
                  _plain(c.args[0]).with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                  _kw("axis", cst.Integer("0"))])),
    "in1d": (_no_star, "np_removed_call",
             lambda np, c: _method(c.with_changes(func=_np(np, "isin")), "ravel")),
    "asfarray": (_one, "np_removed_call",
                 lambda np, c: cst.Call(func=_np(np, "asarray"), args=[
                     _plain(c.args[0]).with_changes(comma=cst.Comma(
                         whitespace_after=cst.SimpleWhitespace(" "))),
                     _kw("dtype", _np(np, "float64"))])),
    "alen": (_one, "np_removed_call", lambda np, c: cst.Call(func=cst.Name("len"), args=[_plain(c.args[0])])),
    "rank": (_one, "np_removed_call", lambda np, c: c.with_changes(func=_np(np, "ndim"))),
    "issubclass_": (lambda c: True, "np_removed_call",
                    lambda np, c: c.with_changes(func=cst.Name("issubclass"))),
    "fromstring": (_binary_fromstring, "np_removed_call",
                   lambda np, c: _method(c.with_changes(func=_np(np, "frombuffer")), "copy")),
}
