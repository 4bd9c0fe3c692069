"""Python numbers from one-element arrays: ``float(x)`` -> ``npx.to_float(x)``, ``int(x)`` ->
``npx.to_int(x)``. MXNet converts an array of one element of any rank (``float(np.array([3.5]))``);
JAX only a 0-d one. The functions are Python's ``float``/``int`` for anything but the framework's
arrays, so the rewrite is applied to every one-argument call whose argument is not visibly a Python
value already (a literal, an f-string, ``len(...)``, ``str(...)``, ...), unless the module rebinds the
name."""

from __future__ import annotations

import libcst as cst

from ._base import Rule

__all__ = ["ScalarsRule"]

_TARGET = {"float": "to_float", "int": "to_int"}
_PYTHON_VALUES = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer, cst.Float,
                  cst.Imaginary)
_PYTHON_CALLS = {"len", "str", "input", "round", "ord", "float", "int", "bool", "repr", "hash", "id"}


class _Rebound(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.names.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.names.add(node.name.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Name):
            self.names.add(node.target.value)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        bound = node.asname.name if node.asname is not None else node.name
        if isinstance(bound, cst.Name):
            self.names.add(bound.value)


class ScalarsRule(Rule):
    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        rebound = _Rebound()
        ctx.module.visit(rebound)
        self.rebound = rebound.names

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = updated.func
        if not isinstance(func, cst.Name) or func.value not in _TARGET or func.value in self.rebound:
            return updated
        if len(updated.args) != 1 or updated.args[0].keyword is not None or updated.args[0].star:
            return updated
        arg = updated.args[0].value
        if isinstance(arg, _PYTHON_VALUES) or (isinstance(arg, cst.UnaryOperation) and
                                               isinstance(arg.expression, _PYTHON_VALUES)):
            return updated
        if isinstance(arg, cst.Call) and isinstance(arg.func, cst.Name) and arg.func.value in _PYTHON_CALLS:
            return updated
        self.count("scalar")
        arg = updated.args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        out = self.call("npx", _TARGET[func.value], arg)
        return out.with_changes(lpar=updated.lpar, rpar=updated.rpar)
