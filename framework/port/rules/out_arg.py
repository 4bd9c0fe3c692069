"""``nd.sigmoid(p, out=p)`` -> ``p = nd.sigmoid(p)``: an MXNet operator applied in place, as a
statement (``p.sigmoid(out=p)`` is routed to that form first). Arrays here cannot change in place, so
the name is bound to the result. Only that form is rewritten: a call of the operator namespaces
(``mx.nd``, ``mx.np``, ``mx.npx``, a ``hybrid_forward``'s ``F``) whose ``out=`` is a plain name that is
also its first argument. Another ``out=`` target (an initializer's ``arr``, a Variable) is left to the
operator, which writes into the objects that can be written.

>>> from framework.port import port_source
>>> print(port_source('import mxnet as mx\\nmx.nd.sigmoid(p, out=p)\\nmx.nd.exp(p, out=q)\\n'), end='')
import framework as mx
p = mx.nd.sigmoid(p)
mx.nd.exp(p, out=q)
"""

from __future__ import annotations

import libcst as cst

from .._analysis import dotted
from ._base import Rule

__all__ = ["OutArgRule"]

_NAMESPACES = ("framework.nd.", "framework.ndarray.", "framework.np.", "framework.npx.", "framework.numpy.",
               "framework.numpy_extension.")


class OutArgRule(Rule):
    def _split(self, call: cst.BaseExpression) -> tuple[cst.Call, cst.Name] | None:
        """(the call without ``out=``, the name) for ``f(x, ..., out=x)`` of an operator namespace."""
        if not isinstance(call, cst.Call):
            return None
        out = [a for a in call.args if a.keyword is not None and a.keyword.value == "out"]
        first = call.args[0] if call.args and call.args[0].keyword is None and not call.args[0].star else None
        if len(out) != 1 or first is None or not isinstance(out[0].value, cst.Name) or \
                not isinstance(first.value, cst.Name) or first.value.value != out[0].value.value:
            return None
        name = dotted(call.func) or ""
        path = self.info.resolve(call.func) or ""
        if not (path.startswith(_NAMESPACES) or name.startswith("F.")):
            return None
        args = [a for a in call.args if a is not out[0]]
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return call.with_changes(args=args), out[0].value

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr) -> cst.BaseSmallStatement:
        split = self._split(updated.value)
        if split is None:
            return updated
        self.count("out_arg")
        call, target = split
        return cst.Assign(targets=[cst.AssignTarget(target)], value=call)
