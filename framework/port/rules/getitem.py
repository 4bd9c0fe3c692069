"""Reads with an index JAX refuses but MXNet takes: ``x[idx]`` -> ``npx.getitem(x, idx)``.

MXNet takes a float index array (cast to integers), a Python ``range`` and a list as an index; a
``jax.Array``'s own ``[]`` refuses all three. ``npx.getitem`` indexes the framework's arrays with such
parts made integer arrays and is plain ``x[idx]`` for anything else, so the rewrite is safe wherever it
lands; it is applied where an index part visibly may be one of them:

- a ``range(...)`` or ``list(...)`` call or a list (``y_hat[range(n), y]``, ``x[[0, 2]]``);
- an array the module makes (``np.array(...)``, ``nd.arange(...)``, any ``*.array``/``*.tensor``/
  ``*.asarray``/``*.arange`` call -- MXNet's are float32 -- or a name assigned one:
  ``idx = d2l.tensor(batch); X[idx]``).

Integer, slice, ``None`` and ``...`` indexes, assignment targets (the setitem rule's), annotations and
subscripts of modules, containers and other libraries' values are left alone.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider

from ._base import Rule

__all__ = ["GetitemRule"]

_MAKERS = {"array", "tensor", "asarray", "arange"}
_TYPING = {"list", "dict", "tuple", "set", "frozenset", "type", "List", "Dict", "Tuple", "Set", "Optional",
           "Union", "Callable", "Iterable", "Iterator", "Sequence", "Mapping", "Type", "Literal"}


def _maker_call(node: cst.BaseExpression, info) -> bool:
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    last = func.attr.value if isinstance(func, cst.Attribute) else None
    path = info.resolve(func) or ""
    return last in _MAKERS or path.startswith(("framework.np.", "framework.nd."))


class _IndexArrays(cst.CSTVisitor):
    """Names the module assigns an array-making call to (``idx = d2l.tensor(...)``)."""

    def __init__(self, info) -> None:
        self.info = info
        self.names: set[str] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        if _maker_call(node.value, self.info):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    self.names.add(t.target.value)


class GetitemRule(Rule):

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        finder = _IndexArrays(self.info)
        ctx.module.visit(finder)
        self.index_arrays = finder.names | self.info.arrays
        self._annotation = 0
        self._params: list[set[str]] = []  # parameters of the enclosing functions shadow module names

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        p = node.params
        names = [*p.posonly_params, *p.params, *p.kwonly_params]
        names += [a for a in (p.star_arg, p.star_kwarg) if isinstance(a, cst.Param)]
        self._params.append({a.name.value for a in names})

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        self._params.pop()
        return updated

    def visit_Annotation(self, node: cst.Annotation) -> None:
        self._annotation += 1

    def leave_Annotation(self, original: cst.Annotation, updated: cst.Annotation) -> cst.Annotation:
        self._annotation -= 1
        return updated

    def _part_needs(self, part: cst.BaseExpression) -> bool:
        if isinstance(part, (cst.List, cst.ListComp)):
            return True
        func = part.func if isinstance(part, cst.Call) else None
        if isinstance(func, cst.Name) and func.value in ("range", "list"):
            return True
        if _maker_call(part, self.info):
            return True
        return isinstance(part, cst.Name) and part.value in self.index_arrays and \
            not any(part.value in params for params in self._params)

    def _wanted(self, node: cst.Subscript) -> bool:
        if self._annotation:
            return False
        try:
            if self.meta(ExpressionContextProvider, node) != ExpressionContext.LOAD:
                return False
        except KeyError:
            return False
        base = node.value
        if self.is_module_ref(base):
            return False
        if isinstance(base, cst.Name) and (base.value in _TYPING or base.value in
                                           (self.info.containers | self.info.foreign | self.info.devices)):
            return False
        parts = []
        for el in node.slice:
            if not isinstance(el.slice, cst.Index) or el.slice.star is not None:
                continue
            value = el.slice.value
            parts.extend(value.elements if isinstance(value, cst.Tuple) else [value])
        return any(self._part_needs(p.value if isinstance(p, cst.Element) else p) for p in parts)

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if not self._wanted(original):
            return updated
        from .setitem import _index_expr

        index = _index_expr(updated)
        if index is None:
            return updated
        self.count("getitem")
        call = self.call("npx", "getitem", updated.value, index)
        return call.with_changes(lpar=updated.lpar, rpar=updated.rpar)
