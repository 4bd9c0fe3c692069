"""Which parameters of a class's methods receive MXNet arrays from the class's own calls: a helper
method (``self.sample_layer(x, bias, w)``) called with arrays from ``hybrid_forward``, a ``forward`` or
another such helper takes arrays in those positions. Used by :mod:`.arrays`, per module-level class.

>>> import libcst as cst
>>> cls = cst.parse_module('''
... class Op:
...     def forward(self, x):
...         return self.helper(x, 2)
...     def helper(self, a, k):
...         return a
... ''').body[0]
>>> def scope(fn, extra):  # forward's x is an array; a helper's parameters only as found
...     return {"x"} if fn.name.value == "forward" else set(extra)
>>> def is_array(node, arrays):
...     return isinstance(node, cst.Name) and node.value in arrays
>>> method_array_params(cls, scope, is_array)
{'helper': {'a'}}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import libcst as cst

__all__ = ["method_array_params"]


class _SelfCalls(cst.CSTVisitor):
    """The calls ``self.<name>(...)`` in a function body (nested functions included)."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.calls: list[tuple[str, cst.Call]] = []

    def visit_Call(self, node: cst.Call) -> None:
        f = node.func
        if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and f.value.value == "self" \
                and f.attr.value in self.names:
            self.calls.append((f.attr.value, node))


def _param_at(fn: cst.FunctionDef, arg: cst.Arg, position: int) -> str | None:
    params = fn.params
    if arg.keyword is not None:
        every = [*params.params, *params.kwonly_params]
        return arg.keyword.value if any(p.name.value == arg.keyword.value for p in every) else None
    positional = list(params.params)[1:]  # after self
    return positional[position].name.value if position < len(positional) else None


def method_array_params(cls: cst.ClassDef, arrays_of: Callable[[cst.FunctionDef, set[str]], Any],
                        is_array: Callable[[cst.BaseExpression, Any], bool]) -> dict[str, set[str]]:
    """``{method: parameters}`` that some call ``self.method(...)`` in the class gives an array.
    ``arrays_of(fn, extra)`` is the scope of method ``fn`` when ``extra`` of its parameters are arrays
    too; ``is_array(expr, scope)`` tells an array expression in such a scope."""
    methods = {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)}
    found: dict[str, set[str]] = {}
    calls = {}
    for name, fn in methods.items():
        visitor = _SelfCalls(set(methods))
        fn.body.visit(visitor)
        calls[name] = visitor.calls
    for _ in range(4):  # a chain of helpers: each round reaches one more level
        changed = False
        for name, fn in methods.items():
            if not calls[name]:
                continue
            scope = arrays_of(fn, found.get(name, set()))
            for callee, call in calls[name]:
                position = 0
                for arg in call.args:
                    if arg.star:
                        break
                    param = _param_at(methods[callee], arg, position)
                    if arg.keyword is None:
                        position += 1
                    if param is not None and is_array(arg.value, scope) and \
                            param not in found.setdefault(callee, set()):
                        found[callee].add(param)
                        changed = True
        if not changed:
            break
    return {k: v for k, v in found.items() if v}
